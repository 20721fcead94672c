"""Sea Salt & Paper's lines: one verdict per round, and the result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from referee.judging.verdicts.base import Result, Verdict, fact, read_line


@dataclass(frozen=True, kw_only=True)
class RoundVerdict(Verdict):
    """One round, scored once its call and every hand are in."""

    round: int = fact("the round's number, from 1", 0)
    call: str = fact("how the round ended: `stop`, `lastchance`, `emptydeck` or `mermaids`", "")
    caller: str | None = fact("who called (or whose turn ended it)")
    legal: bool | None = fact("the caller had at least 7 card points (null: the caller's cards were not all read)",
                              True)
    why: str = fact("how the round was scored", "")
    scores: dict[str, dict[str, int]] = fact("`{player: {card_points, color_bonus, score}}` (not the players in "
                                             "`unclear`: their cards were not all read)", factory=dict)
    caller_won: bool = fact("LAST CHANCE: the caller's bet won", when="present")
    instant_winner: str | None = fact("who won the game at once (four mermaids)", optional=True)
    totals: dict[str, int] = fact("`{player: running total}`", factory=dict)


@dataclass(frozen=True, kw_only=True)
class SeaSaltPaperResult(Result):
    """The end of the game."""

    scores: dict[str, int] = fact("`{player: total}`", factory=dict)
    target: int = fact("the total that ends the game", 0)
    rounds: int = fact("the rounds scored", 0)
    winners: list[str] = fact("the winners (empty: nobody reached the target)", factory=list)
    finished: bool = fact("somebody won", False)


TYPES = (RoundVerdict, SeaSaltPaperResult)


def parse(line: Mapping[str, Any]) -> RoundVerdict | SeaSaltPaperResult:
    """The typed Sea Salt & Paper line."""
    return read_line(line, RoundVerdict, SeaSaltPaperResult)

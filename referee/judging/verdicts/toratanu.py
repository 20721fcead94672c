"""TORATANU's lines: one verdict per game (night) at the tally, and the result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from referee.judging.verdicts.base import Result, Verdict, fact, read_line


@dataclass(frozen=True, kw_only=True)
class TallyVerdict(Verdict):
    """One game, scored once every player's tally is in."""

    game: int = fact("the game's number, from 1", 0)
    special: str | None = fact("the special card face up in this game")
    scores: dict[str, int] = fact("`{player: points scored}` (not the players in `unclear`)", factory=dict)
    declared: dict[str, int | None] = fact("`{player: score of the sets laid out}` (null: none laid out)",
                                           factory=dict)
    missed: dict[str, int] = fact("`{player: points the best arrangement would have added}`", factory=dict)
    best: dict[str, dict[str, Any]] = fact("`{player: the best arrangement, with its explain lines}`",
                                           factory=dict)
    totals: dict[str, int] = fact("`{player: running total}`", factory=dict)
    needs: dict[str, list[str]] = fact(
        "`{player: [catalogue fields]}`: what the rulebook leaves unsaid and that player's hand needs (the "
        "player is in `unclear`; `referee rules toratanu set FIELD VALUE` gives it once)", factory=dict,
        optional=True)


@dataclass(frozen=True, kw_only=True)
class ToratanuResult(Result):
    """The end of the games."""

    scores: dict[str, int] = fact("`{player: total}`", factory=dict)
    games: int = fact("the games scored", 0)
    of: int = fact("the games to play (option `games`)", 0)
    winners: list[str] = fact("the best totals once every game was played (empty before)", factory=list)
    finished: bool = fact("every game was played", False)


TYPES = (TallyVerdict, ToratanuResult)


def parse(line: Mapping[str, Any]) -> TallyVerdict | ToratanuResult:
    """The typed TORATANU line."""
    return read_line(line, TallyVerdict, ToratanuResult)

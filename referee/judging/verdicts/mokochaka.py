"""MOKOCHAKA's lines: a play's verdict (the call, the grab, the penalties) and the result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from referee.judging.verdicts.base import CardVerdict, Result, fact, read_line


@dataclass(frozen=True, kw_only=True)
class PlayVerdict(CardVerdict):
    """One play: the caller's call, who grabbed the token first, and the penalties."""

    pile: int | None = fact("the pile the card was played on")
    by: str | None = fact("who played the card")
    tops: list[str] = fact("the visible pile tops after the play", factory=list)
    caller: str | None = fact("the active player, who must call")
    call: str | None = fact("the caller's call that counts (null: none, or one the table answered wrong)")
    accepted: list[str] = fact("the calls the rules accept over these tops", factory=list)
    special: str | None = fact("the special call these tops ask for, if any")
    ok: bool = fact("the caller's call was right and in time", False)
    late: bool = fact("the caller called after the window", False)
    grab_winner: str | None = fact("who won the token and the piles")
    margin: float | None = fact("seconds between the winner's grab and the next grab")
    grabs: dict[str, float] = fact("`{player: seconds}`: each player's first touch of the token", factory=dict)
    penalties: list[dict[str, Any]] = fact(
        "each penalty: `{player, reason, reasons, t, to, cards}` (`chosen` when the receiver was chosen)",
        factory=list)
    bonus: dict[str, Any] | None = fact("the winner's take: `{player, piles, cards, from_players, chosen}`")
    calls: dict[str, str] = fact("`{player: call}`: the call that counts for each player who called", factory=dict)
    times: dict[str, float] = fact("`{player: seconds}`: when each of those calls came after the card",
                                   factory=dict)
    why: dict[str, str] = fact("`{player: reason}` for every penalised player", factory=dict)
    next: str | None = fact("who plays next (null: the game is over)")
    hands: dict[str, int] = fact("`{player: cards in hand}` after the play", factory=dict)


@dataclass(frozen=True, kw_only=True)
class MokochakaResult(Result):
    """The end of the game: hands, Gabu counts and the winners."""

    over: bool = fact("someone played their last card", False)
    ended_by: str | None = fact("who played their last card")
    hands: dict[str, int] = fact("`{player: cards in hand}` at the end", factory=dict)
    gabu: dict[str, int | None] = fact("`{player: Gabu cards declared}` (null: not given)", factory=dict)
    scores: dict[str, int] = fact("`{player: hand minus Gabu}` (the hand alone when a count is missing)",
                                  factory=dict)
    winners: list[str] = fact("the players with the best score", factory=list)
    piles: list[int] = fact("cards left in each pile", factory=list)
    note: str | None = fact("why the winners are by hand size (a Gabu count missing)", optional=True)


TYPES = (PlayVerdict, MokochakaResult)


def parse(line: Mapping[str, Any]) -> PlayVerdict | MokochakaResult:
    """The typed MOKOCHAKA line."""
    return read_line(line, PlayVerdict, MokochakaResult)

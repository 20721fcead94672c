"""TAKOYAKI's lines: one verdict per card move, and the result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from referee.judging.verdicts.base import Result, Verdict, fact, read_line


@dataclass(frozen=True, kw_only=True)
class MoveVerdict(Verdict):
    """One card move: whether it was legal, and who plays next."""

    player: str | None = fact("who made the move")
    card: str = fact("the card moved", "")
    zone: str | None = fact("where the card went (`p:NAME:draw`, `p:NAME:slotN`, `discard`, …)")
    action: str = fact("`draw`, `take`, `place` or `discard`", "")
    legal: bool | None = fact("the move was legal (null: not judged, the player is in `unclear`: a card not read "
                                 "before it)", True)
    why: str = fact("the reason of an illegal move (or what the move did)", "")
    next: str | None = fact("who plays next by the rules (null: the game is over)")
    face_up: dict[str, int] = fact("`{player: face-up slots}` after the move", factory=dict)
    winner: str | None = fact("who filled their griddle with this move", optional=True)


@dataclass(frozen=True, kw_only=True)
class TakoyakiResult(Result):
    """The end of the game: winner, ranking and illegal moves."""

    winners: list[str] = fact("the player who filled their griddle (empty: unfinished)", factory=list)
    face_up: dict[str, int] = fact("`{player: face-up slots}` at the end", factory=dict)
    ranking: list[list[str]] = fact("the players ranked, ties grouped", factory=list)
    turns: dict[str, int] = fact("`{player: turns played}`", factory=dict)
    illegal: dict[str, int] = fact("`{player: illegal moves}`", factory=dict)
    next_sizes: dict[str, int] = fact("option `kachinuki`: the griddle sizes of the next game", when="present")
    champion: str | None = fact("option `kachinuki`: a winner at griddle size 1", when="present")
    finished: bool = fact("`false` when nobody won (absent otherwise)", when="present")
    turns_needed: int | None = fact("solo: the turns the griddle took (null: not filled)", when="present")


TYPES = (MoveVerdict, TakoyakiResult)


def parse(line: Mapping[str, Any]) -> MoveVerdict | TakoyakiResult:
    """The typed TAKOYAKI line."""
    return read_line(line, MoveVerdict, TakoyakiResult)

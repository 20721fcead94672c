"""What a spread game's live view shows (Sea Salt & Paper: :mod:`referee.live.tallies`;
TORATANU: :mod:`referee.live.nights`): each player's tally as typed data the window and the
terminal draw alike, and the judge's own state of the round in play."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PlayerTally:
    player: str
    total: int = 0
    #: the cards read after this round's call (None: not read yet, or no call yet)
    cards: list[str] | None = None
    #: why this player's cards were not all read (None: all read)
    unclear: str | None = None
    card_points: int | None = None
    color_bonus: int | None = None
    #: the last round's outcome for this player, in words (shown until the next call)
    last: str | None = None
    last_unclear: bool = False
    #: the camera's last reading of the spread since this round's call: each card's box and
    #: code (None: not read) — none before the call
    seen: list[dict] = field(default_factory=list)
    #: what the views show under the player's name, ``(text, kind)`` with kind "ok",
    #: "unclear", "wait" or "info" (:func:`tally_lines`; a night's: :mod:`referee.live.nights`)
    lines: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Tallies:
    players: list[PlayerTally]
    round: int = 1
    call: str | None = None  # "STOP" / "LAST CHANCE" of the round in play (None: no call yet)
    caller: str | None = None
    call_t: float | None = None
    #: the last round's outcome (the game's words) and its kind: "scored", "unclear", "illegal"
    said: str | None = None
    said_kind: str | None = None
    winners: list[str] = field(default_factory=list)
    #: every round judged, one line each ("round 1: aki STOP: aki 9, ben 8")
    moves: list[str] = field(default_factory=list)
    #: the views' words for the game: what a round is called, the round in play's headline
    #: (None: waiting, as ``waiting`` says) and what is being done, the legend, the history's title
    unit: str = "ROUND"
    head: str | None = None
    #: the headline as the terminal's one line says it (None: as ``head``)
    head_line: str | None = None
    head_note: str = "reading each player's cards"
    waiting: str = "waiting for the round's end"
    legend: tuple[str, ...] = ()
    moves_title: str = "ROUNDS (newest last)"


def judge_state(state: Any) -> Any:
    """The game's rules state as the judge has it over the released declarations
    (:attr:`referee.judge.IncrementalJudge.state`; None before the session starts): a round
    is credited and a hand counted exactly as the verdict will be."""
    from referee.judge import IncrementalJudge

    if state.header is None:
        return None
    judge = IncrementalJudge(state.header)
    for ev in state.declared:
        try:
            judge.feed(ev)
        except Exception:  # (a declaration the judge refuses: its warning is in the record)
            continue
    return judge.state


def cards_text(cards: list[str]) -> str:
    """The cards read in few words: "8 cards: boat, crab x2, lighthouse, mermaid, shell x3"."""
    kinds = Counter(c.split(":")[0] for c in cards)
    parts = [k + (f" x{n}" if n > 1 else "") for k, n in sorted(kinds.items())]
    return f"{len(cards)} card{'s' if len(cards) != 1 else ''}: " + ", ".join(parts)

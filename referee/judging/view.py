"""How a game's verdict is shown to people in the dispute report, as small typed data (no
HTML): each judging module's ``describe(verdict) -> VerdictView`` says which summary columns
and which fact rows a verdict has and who was right; :mod:`referee.report` draws any game
from that, so a MOKOCHAKA report shows the calls, the grab order and the penalties as
clearly as an IKATAKO one shows hands and words.

A cell is lines of parts; a part is ``(text, status)`` with status ``"ok"`` (right),
``"bad"`` (wrong), ``"miss"`` (missed), ``"unclear"`` (not judged: the referee was not sure
of what it perceived, :mod:`referee.judging.unclear`) or None (plain). An empty cell shows
as ``-``. A fact row whose cell is None is filled in by the report with the evidence of what
was heard.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

Part = tuple[str, "str | None"]
Line = Sequence[Part]
Cell = Sequence[Line]

#: the fact row the report fills with what the microphones heard in the verdict's window
HEARD = "heard"
#: the status of a player the verdict did not judge (an unclear observation, a sense missing)
UNCLEAR = "unclear"


def unclear_items(lines: Sequence[Mapping[str, Any]], game: str | None = None
                  ) -> list[tuple[int, Mapping[str, Any], str, str]]:
    """Every unclear item of a judgement, for people to settle: ``(verdict number, verdict
    line, player, reason)`` in order (the number is what ``referee judge --decide`` names)."""
    from referee.judging.verdicts import verdict_of

    return [(k, v, p, str(why)) for k, v in enumerate(lines, 1) for p, why in verdict_of(game, v).unclear.items()]


def lack_text(why: str) -> str:
    """What an unjudged player's reason says was lacking: ``not heard``, ``not seen``, both, or
    ``not judged`` (a card seen late)."""
    return " and ".join(x for x in ("not heard", "not seen") if x in why) or "not judged"


def text(s: Any) -> Cell:
    """A cell of one plain line."""
    return [[(str(s), None)]]


def marked(items: Sequence[tuple[str, str]], status: str, sep: str = ", ") -> Cell:
    """One line of player names marked with ``status``, each followed by its note."""
    line: list[Part] = []
    for k, (name, note) in enumerate(items):
        if k:
            line.append((sep, None))
        line.append((name, status))
        if note:
            line.append((note, None))
    return [line] if line else []


@dataclass(frozen=True)
class VerdictView:
    """One verdict for people: its title, its summary-table cells, its fact rows, and each
    player's status (``ok``/``bad``/``miss``: the colour of their evidence)."""

    title: str
    columns: Sequence[tuple[str, Cell]]
    facts: Sequence[tuple[str, Cell | None]]
    status: Mapping[str, str] = field(default_factory=dict)
    #: the annotated video's two caption lines: while the window is open, and after it
    caption: tuple[str, str] | None = None

    def captions(self) -> tuple[str, str]:
        if self.caption is not None:
            return self.caption
        def flat(cell) -> str:
            return "; ".join("".join(t for t, _ in line) for line in cell) or "-"
        top = f"{self.title}: " + (flat(self.columns[1][1]) if len(self.columns) > 1 else "")
        return top, "  ".join(f"{name} {flat(cell)}" for name, cell in self.columns[2:])


def generic(verdict: Mapping[str, Any]) -> VerdictView:
    """Every field of a verdict as it is (a game without a ``describe``)."""
    def value(v: Any) -> str:
        return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)

    shown = [(k, text(value(v))) for k, v in verdict.items() if k not in ("type", "t")]
    return VerdictView(title=str(verdict.get("card", verdict.get("call", "verdict"))),
                       columns=shown[:4], facts=shown + [(HEARD, None)])

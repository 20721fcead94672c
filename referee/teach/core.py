"""What every drill is made of: a situation to show, the key presses that answer it, and the
judged feedback (reason first).

A drill answer is judged as a small session record by the same judge as a real game
(:func:`judge_lines`): the drill module writes the record (a header, the situation as
``card``/``choice`` events, the learner's presses as ``hand``/``shout``/``grab``/``choice``
events on the press clock) and reads the verdict back. The reason shown and spoken is
built from that verdict and from the situation, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from referee.judge import judge
from session.events import Event, SessionHeader
from session.record import Entry, Record

#: where the drilled card appears on the drill record's clock (troubles and preludes before it)
CARD_T = 1.0


@dataclass(frozen=True)
class Press:
    """One key press: ``key`` and ``t`` seconds after the card was shown, on the input's own
    clock (the moment the key arrived, not when the lesson processed it); ``t < 0`` is a
    press before the card appeared (a false start)."""

    key: str
    t: float


@dataclass(frozen=True)
class Situation:
    """One thing to drill: ``key`` is its stable id (the FSRS card and the confusion table use
    it), ``rule`` the ladder rule it trains, ``data`` what the drill module needs (JSON-able)."""

    game: str
    rule: str
    key: str
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Level:
    """One rung of the ladder: one rule, the situations that train it, the reaction target.

    ``target_s``: the median reaction (first press to complete answer, as the judge times
    it) under which the level counts as mastered; ``window_s``: the reaction window of the
    drill record (docs/rules.md's ``window``; the last IKATAKO level shortens it).
    """

    rule: str
    title: Mapping[str, str]
    situations: tuple[Situation, ...]
    target_s: float
    window_s: float = 3.0


@dataclass
class Feedback:
    """The judged answer of one drill card.

    ``verdict``: ``correct`` | ``wrong`` | ``missed`` | ``false_start`` | ``unclear`` (the
    referee did not clearly perceive the answer: "I could not hear you", no rating); ``reaction`` the
    judge's reaction time (or the last press for a wrong answer, None when nothing was
    pressed); ``rule``/``fact``/``did`` the three parts of the reason (the rule that
    decided, the fact it hung on, what the learner did); ``spoken`` the phrase keys of
    :mod:`referee.teach.phrases` the voice says; ``answered_as`` the situation key whose
    right answer the learner gave (the confusion table), ``record`` and ``lines`` the drill
    record and the judge's output.
    """

    verdict: str
    reaction: float | None
    rule: str
    fact: str
    did: str
    spoken: tuple[str, ...]
    answered: str = ""
    answered_as: str | None = None
    record: list[Event] = field(default_factory=list)
    lines: list[dict[str, Any]] = field(default_factory=list)
    rival: str = ""

    @property
    def ok(self) -> bool:
        return self.verdict == "correct"

    def reason(self) -> str:
        """The reason line: ``rule: fact; did`` (the issue's example form)."""
        text = f"{self.rule}: {self.fact}" if self.rule else self.fact
        return f"{text}; {self.did}" if self.did else text


def judge_lines(record: Sequence[Event]) -> list[dict[str, Any]]:
    """Judge a drill record (typed events of ``session.events``, the header first) with the
    referee's judge; the judge puts the events in the canonical order."""
    header = record[0]
    if not isinstance(header, SessionHeader):  # a drill module's bug, said plainly
        raise AssertionError("a drill record starts with its session header")
    rec = Record(header=header, entries=[Entry(n, ev) for n, ev in enumerate(record[1:], start=2)])
    return judge(rec).lines


def header(game: str, players: Sequence[str], options: Mapping[str, Any], sit: Situation,
           mode: str | None = None) -> SessionHeader:
    """The drill record's header: the game, the players, the level's options, and (in
    ``teach``) which situation and rule it drills."""
    return SessionHeader(t=0.0, game=game, mode=mode, players=tuple(players), options=dict(options),
                         extra={"teach": {"situation": sit.key, "rule": sit.rule}})


def verdict_at(lines: Sequence[Mapping[str, Any]], t: float) -> dict[str, Any] | None:
    """The verdict line of the card shown at ``t`` (the drilled card)."""
    for line in lines:
        if line.get("type") == "verdict" and abs(float(line.get("t", -1)) - t) < 1e-6:
            return dict(line)
    return None


def presses_before(presses: Sequence[Press], submit: str = "enter") -> list[Press]:
    """The answer presses: everything up to the first submit key, false starts excluded."""
    out = []
    for p in presses:
        if p.key == submit:
            break
        if p.t >= 0:
            out.append(p)
    return out


def false_start(presses: Sequence[Press]) -> bool:
    return any(p.t < 0 for p in presses)


def rt(t: float) -> float:
    """Record times rounded to the microsecond (the record is text; keep it short and exact)."""
    return round(t, 6)

"""The interface of a game's drills (one module per game in this package).

A drill module defines a :class:`Drill`: its ladder of :class:`Level` objects, the keypad,
how a situation is shown (:class:`Screen`, drawn by :mod:`referee.teach.draw` and printed
by the terminal view), how a learner's presses are judged (``feedback``: write the drill
record, judge it with the referee's judge, read the reason from the verdict) and, for tests,
benchmarks and the rival, ``oracle`` (the keys of a right answer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from referee.teach.core import Feedback, Level, Press, Situation
from session.events import ChoiceEvent, Event


@dataclass(frozen=True)
class Screen:
    """What a situation shows: a ``title`` (the question), the ``card`` to draw big, the
    ``field`` (small cards beside it: troubles, pile tops, a hand), ``lines`` of context
    (the running total, the griddle) and the ``keys`` help line."""

    title: str
    card: str = ""
    field: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()
    keys: str = ""
    game: str = ""


@dataclass(frozen=True)
class RivalAnswer:
    """The ghost rival's answer to one card: right or not, at ``t`` seconds after the card."""

    t: float
    correct: bool = True


@dataclass
class Drill:
    """Base of the five games' drills. ``name`` is what ``referee teach NAME`` says."""

    name: str = ""
    game: str = ""
    mode: str | None = None
    reaction: bool = False  # a reaction game (the rival and the false-start rule apply)
    _levels: tuple[Level, ...] = field(default=(), repr=False)

    def levels(self) -> tuple[Level, ...]:
        return self._levels

    def level_of(self, rule: str) -> Level:
        for lv in self.levels():
            if lv.rule == rule:
                return lv
        raise KeyError(rule)

    def situation(self, key: str) -> Situation | None:
        for lv in self.levels():
            for s in lv.situations:
                if s.key == key:
                    return s
        return None

    def make(self, key: str) -> Situation | None:
        """The situation of ``key``, also one the ladder does not hold (a recorded game's
        mistake); None when this drill cannot pose it."""
        return self.situation(key)

    # ----------------------------------------------------------------- per game
    def screen(self, sit: Situation, lang: str) -> Screen:
        raise NotImplementedError

    def feedback(self, sit: Situation, presses: Sequence[Press], level: Level, lang: str,
                 learner: str = "you", rival: RivalAnswer | None = None) -> Feedback:
        raise NotImplementedError

    def oracle(self, sit: Situation) -> list[str]:
        """The keys of a right answer (the submit key last)."""
        raise NotImplementedError

    def answer_of(self, sit: Situation) -> str:
        """The right answer as a canonical string (the confusion table compares these)."""
        return self.answer_text(sit, [Press(k, 0.1 * (i + 1)) for i, k in enumerate(self.oracle(sit))])

    def answer_text(self, sit: Situation, presses: Sequence[Press]) -> str:
        """The canonical string of what ``presses`` answer."""
        raise NotImplementedError

    def answered_as(self, sit: Situation, presses: Sequence[Press]) -> str | None:
        """The situation the learner answered as if it were: another situation of the ladder
        whose right answer is what they gave (same card first). None when none matches."""
        return self.answered_as_text(sit, self.answer_text(sit, presses))

    def answered_as_text(self, sit: Situation, given: str) -> str | None:
        """:meth:`answered_as` of an answer already in :meth:`answer_text`'s form."""
        card = sit.data.get("card")
        best: tuple[int, int, str] | None = None
        n = 0
        for lv in self.levels():
            for s in lv.situations:
                n += 1
                if s.key == sit.key or self.answer_of(s) != given:
                    continue
                cand = (0 if s.data.get("card") == card else 1, n, s.key)
                if best is None or cand < best:
                    best = cand
        return best[2] if best else None

    def phrase_keys(self) -> tuple[str, ...]:
        """Phrase keys this drill may speak beyond the fixed set (rendered up front)."""
        return ()

    # ----------------------------------------------------------------- in words
    def words(self, key: str, lang: str) -> str:
        """A situation as a learner reads it (the summary, the progress page), never its
        internal key; a drill whose keys are not words says so here."""
        return key

    def rule_words(self, key: str, lang: str) -> str | None:
        """The rule a situation trains, in a sentence (None: the drill has none to say)."""
        return None

    def answer_words(self, answered_as: str, lang: str) -> str:
        """What an answer given was the right answer of (``answered_as``: a situation key)."""
        return self.words(answered_as, lang)

    def confusion_text(self, asked: str, answered_as: str, n: int, lang: str) -> str:
        """One line of the summary's "mixed up": the situation asked, what the answer given
        is the right answer of, how often, and the rule that tells them apart."""
        from referee.teach.texts import text

        rule = self.rule_words(asked, lang)
        times = text(lang, f"{n} time" + ("s" if n != 1 else ""), f"{n}回")
        line = text(lang, f"{self.words(asked, lang)}: you gave the answer for {self.answer_words(answered_as, lang)} "
                          f"({times})",
                    f"{self.words(asked, lang)}: {self.answer_words(answered_as, lang)}の答えをした ({times})")
        return line + (text(lang, f". The rule: {rule}", f"。ルール: {rule}") if rule else "")


def words_of(presses: Sequence[Press], keymap: dict[str, str]) -> tuple[list[str], float | None]:
    """The word tokens of ``presses`` (keys in ``keymap``) and the first word press time."""
    words, first = [], None
    for p in presses:
        if p.key in keymap:
            words.append(keymap[p.key])
            if first is None:
                first = p.t
    return words, first


#: a BGR colour of the drawn cards
Colour = tuple[int, int, int]


@dataclass(frozen=True)
class CardLook:
    """How the teach window draws one game (:mod:`referee.teach.draw`): its cards' face and
    label colours per kind, how a card reads as (kind, label, pips) where the generic rule
    (a number, a kind named by the card, else plain) does not say it, and its table."""

    faces: Mapping[str, Colour] = field(default_factory=dict)
    #: label colour of a face kind (default: dark)
    ink: Mapping[str, Colour] = field(default_factory=dict)
    #: card -> (face kind, label, pips), or None for the generic rule
    kind: Callable[[str], tuple[str, str, int] | None] | None = None
    #: "field": the card big and the field small; "piles": the first three of the field big,
    #: side by side (the question); "griddle": the field as ten slots, ``up:RANK``/``down:RANK``
    table: str = "field"
    #: a card's Japanese name, written under its label with ``--lang ja``
    names_ja: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class DrillEntry:
    """One drill of a game: the name ``referee teach`` and the progress file use, the mode it
    trains (None: the game's drill for any other mode) and its class."""

    name: str
    mode: str | None
    make: Callable[[], Drill]
    #: runs the drill with a camera and microphones (``referee teach NAME --calibration``), or
    #: None: the function, or its name ``"package.module:function"`` (a camera drill kept in a
    #: module of its own that builds on this drill: imported by name when run, as the package
    #: finds the games' drill modules, so the two modules do not import each other)
    sensed: Callable[..., Any] | str | None = None
    #: the camera drill's answers are keys (the camera reads the cards, the learner types the
    #: answer): ``referee teach`` hands it a key source, and a recording needs no ``--audio``
    #: (False: hands and voice answer, as IKATAKO's)
    keys_answer: bool = False

    def camera_drill(self) -> Callable[..., Any] | None:
        """The camera/microphone drill's function (imported when named), or None."""
        if not isinstance(self.sensed, str):
            return self.sensed
        import importlib

        module, _, function = self.sensed.partition(":")
        return getattr(importlib.import_module(module), function)


@dataclass(frozen=True)
class Teaching:
    """What ``referee teach`` needs of one game, declared once in its drill module
    (``referee/teach/drills/<game>.py`` defines ``TEACHING``): its drills, how the window
    draws it, the game words its spoken feedback says, and how ``referee teach explain`` reads a
    recorded game: ``walk`` (reaction games), or (turn-based games) ``explainer(record)``, an
    object whose ``verdict(fields, lang)`` gives ``(drill line, note)`` pairs."""

    drills: tuple[DrillEntry, ...]
    look: CardLook = field(default_factory=CardLook)
    #: the call tokens the spoken feedback says (phrase keys ``w:<token>``), in order
    words: tuple[str, ...] = ()
    explainer: Callable[[Any], Any] | None = None
    #: ``walk(n, verdict, lang, drill_lines)``: a recorded game's verdict ``n`` as lines of
    #: text (the rule and the fact it hung on), its mistakes appended to ``drill_lines`` as
    #: drills; None for a verdict it does not walk (then the judge's reason is the line)
    walk: Callable[[int, Any, str, list[str]], list[str] | None] | None = None
    #: ``reader(drill, seat, rule, lang)``: reads what the live referee perceives at a real table
    #: (its released events and verdict lines) into :class:`Seen` questions about the
    #: learner's own cards (:mod:`referee.teach.drills.cards_sensed`); None: no camera drill
    #: of that kind
    reader: Callable[[Any, str, str | None, str], Any] | None = None


@dataclass(frozen=True)
class Seen:
    """What a game's camera reader makes of the table: a ``situation`` of the game's drill
    built from the cards the camera read (its time ``t`` on the session clock), or — never
    a guess — ``unclear``: why the cards were not clearly read (the drill asks to show them
    again). ``said``: what the referee judged of the table's own move (shown with the
    feedback; "" when nothing)."""

    situation: Situation | None
    t: float
    unclear: str = ""
    said: str = ""


class CameraHands:
    """A seat's hands as the camera read them (``ChoiceEvent`` ``hand``, ``source`` camera):
    a hand with a card not clearly read is said unclear, never asked; the same hand read
    again (the spread still lying there) is asked once."""

    def __init__(self, seat: str):
        self.seat = seat
        self.last: list[str] | None = None

    def take(self, ev: Event) -> tuple[list[str], list[Seen]]:
        """``(cards, [])`` for this seat's new hand (sorted codes); ``([], [unclear])`` for a
        hand with a card not read; ``([], [])`` for any other event or the same hand again."""
        if not (isinstance(ev, ChoiceEvent) and ev.action == "hand" and ev.player == self.seat
                and ev.extra.get("source") == "camera"):
            return [], []
        unclear = [str(x) for x in ev.extra.get("unclear") or []]
        if unclear:
            self.last = None
            return [], [Seen(None, ev.t, unclear="; ".join(unclear))]
        cards = sorted(str(c) for c in ev.extra.get("cards") or [])
        if not cards or cards == self.last:
            return [], []
        self.last = cards
        return cards, []

"""Judging a session record: a pure function from a record to verdicts and a result.

Steps, the same for every game:
1. apply ``correction`` events (a human overrides what perception saw: the event on line
   ``ref`` is replaced by ``replace``, or deleted when ``replace`` is null; the last
   correction of a line wins);
2. put the events in canonical order: by time, then by kind (cards before reactions
   before the table's decisions), then by content, so events with equal timestamps
   judge the same whatever order they were written in;
3. hand them to the game's judging module (``referee.judging.<game>``), which returns
   ``verdict`` objects and one final ``result``.

The table's answers about unclear observations (``decision`` events with ``card_index``,
and ``referee judge --decide``) are not fed as events: they are gathered first into
``Session.answers`` (:mod:`referee.judging.unclear`), and the game judge applies a card's
answers when it judges that card. A live answer arriving after the card's verdict re-judges
the session, as a correction does.

Same record and options, same output, byte for byte: nothing here reads a clock, and
every collection that reaches the output is ordered.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

import rules
from session.errors import EventError, RecordError, RulesError
from session.events import CorrectionEvent, DecisionEvent, Event, SessionHeader, StatusEvent, UnknownEvent
from session.order import sort_key
from referee.judging.base import GameJudge
from referee.judging.senses import Senses
from referee.judging.unclear import Answer, Answers, Clarity
from session.record import Entry, Record, RecordIssue, dumps



@dataclass
class Session:
    """What a game's judging module receives: header, resolved options, ordered events."""

    header: SessionHeader
    options: dict[str, Any]
    events: list[Event]
    notes: list[RecordIssue] = field(default_factory=list)
    #: the stretches where a sense was missing (from the record's status events, as fed)
    senses: Senses = field(default_factory=Senses)
    #: how sure an observation must be for a verdict to rest on it
    clarity: Clarity = field(default_factory=Clarity)
    #: the table's answers about unclear observations, by card number
    answers: Answers = field(default_factory=Answers)

    @property
    def players(self) -> tuple[str, ...]:
        return self.header.players

    def warn(self, message: str, at: Event | int = 0) -> None:
        """Note a problem met while judging, at an event's record line (or a line number)."""
        line = at.line if isinstance(at, Event) else at
        self.notes.append(RecordIssue(line, message, "warning"))


@dataclass
class Judgement:
    """The judge's output: verdict and result objects in order, and the warnings met."""

    game: str
    lines: list[dict[str, Any]]
    notes: list[RecordIssue]

    def jsonl(self) -> str:
        return "".join(dumps(obj) + "\n" for obj in self.lines)


def apply_corrections(record: Record) -> tuple[list[Event], list[RecordIssue]]:
    """The record's events with corrections applied (corrections themselves removed)."""
    notes: list[RecordIssue] = []
    by_line = {e.line: e for e in record.entries}
    replacements: dict[int, Event | None] = {}
    for entry in record.entries:
        ev = entry.event
        if not isinstance(ev, CorrectionEvent):
            continue
        target = by_line.get(ev.ref)
        if target is None or isinstance(target.event, CorrectionEvent):
            notes.append(RecordIssue(entry.line, f"correction refers to line {ev.ref}, which holds no event to correct", "warning"))
            continue
        try:
            replacements[ev.ref] = None if ev.replace is None else replace(Event.from_dict(ev.replace), line=ev.ref)
        except EventError as exc:  # validated at parse time; kept for safety
            notes.append(RecordIssue(entry.line, f"correction ignored: {exc}", "warning"))
    events: list[Event] = []
    for entry in record.entries:
        if isinstance(entry.event, CorrectionEvent):
            continue
        if entry.line in replacements:
            new = replacements[entry.line]
            if new is not None:
                events.append(new)
        else:
            events.append(entry.event)
    return events, notes


def game_judge(session: Session):
    """The incremental judge of the session's game (``referee.judging.<game>.Judge``)."""
    from referee import judging

    module = judging.module(session.header.game)
    cls = getattr(module, "Judge", None)
    if not (isinstance(cls, type) and issubclass(cls, GameJudge)):
        raise RulesError(f"{module.__name__} defines no Judge (a referee.judging.base.GameJudge)")
    return cls(session)


class IncrementalJudge:
    """Judges a session while it is recorded: ``feed`` each event as it is released (in
    canonical order), ``advance`` with the watermark, ``finish`` at the end.

    A ``correction`` (a human overriding line ``ref``) or an event earlier than one already
    fed re-judges the session from the start with the correction applied; the lines that
    changed are returned again (a revised verdict follows the first one in the record, as it
    was said at the table). :attr:`lines` is always the judgement as it stands.
    """

    def __init__(self, header: SessionHeader, options: Mapping[str, Any] | None = None,
                 notes: list[RecordIssue] | None = None, clarity: Clarity | None = None,
                 answers: Sequence[Answer] = ()):
        game = rules.get(header.game)
        self.header = header
        self.options = game.resolve_options({**header.options, **(options or {})})
        self.clarity = clarity or Clarity()
        self._given = list(answers)  # --decide: after the record's own answers, so they win
        self._base_notes = list(notes or [])
        self._entries: list = []  # (line, event) of every event fed, corrections included
        self._line = 1
        self._said: set[str] = set()
        self._reset()

    def _reset(self) -> None:
        self.session = Session(header=self.header, options=self.options, events=[], notes=list(self._base_notes),
                               clarity=self.clarity, answers=Answers(list(self._given)))
        self._judge = game_judge(self.session)
        self.lines: list[dict[str, Any]] = []
        self._last_key: tuple | None = None
        self.finished = False

    @property
    def state(self) -> Any:
        """The game's rules state as judged so far (``rules.<game>`` state; None if the
        game's judge keeps none), read-only: the live scoreboard shows it."""
        return getattr(self._judge, "state", None)

    def _take(self, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self.lines.extend(out)
        return out

    def feed(self, event: Event) -> list[dict[str, Any]]:
        if self.finished:
            raise RecordError("the judge was fed an event after finish()")
        self._line += 1
        if event.line == 0:
            event = replace(event, line=self._line)
        self._entries.append(event)
        if isinstance(event, CorrectionEvent) or _is_answer(event):
            return self._rejudge()
        if isinstance(event, UnknownEvent):
            return []
        key = sort_key(event)
        if self._last_key is not None and key < self._last_key:
            return self._rejudge()
        return self._take(self._feed_in_order(event, key))

    def feed_sorted(self, events) -> None:
        """Every event of a finished record (corrections applied), in canonical order; the
        table's answers among them first (a card is judged with its answers)."""
        answers = [Answer.of(e) for e in events if _is_answer(e)]
        self.session.answers.items[:0] = sorted(answers, key=lambda a: a.line)
        keyed = sorted(((sort_key(e), e) for e in events if not isinstance(e, UnknownEvent) and not _is_answer(e)),
                       key=lambda ke: ke[0])
        for key, ev in keyed:
            self.lines.extend(self._feed_in_order(ev, key))

    def _feed_in_order(self, event: Event, key: tuple) -> list[dict[str, Any]]:
        """One event in canonical order (``key``: its :func:`session.order.sort_key`): a status
        event tells which senses were there, the rest goes to the game's judge."""
        self._last_key = key
        if isinstance(event, StatusEvent):
            self.session.senses.note(event)
            if event.type == "warning" and event.extra.get("unread"):
                return self._judge.unread_card(event)
            if event.type == "warning" and event.extra.get("card_time_uncertain"):
                return self._judge.card_seen_late(event)
            return []
        return self._judge.feed(event)

    def advance(self, t: float) -> list[dict[str, Any]]:
        """The watermark reached ``t``: lines that time alone made final."""
        return self._take(self._judge.advance(t))

    def announce(self, t: float) -> list[dict[str, Any]]:
        """Provisional announcements at watermark ``t`` (see ``GameJudge.announce``), each
        said once: after a correction re-judges the session, what was already announced is
        not said again (only what changed)."""
        out = []
        for item in self._judge.announce(t):
            key = dumps({k: v for k, v in item.items() if k != "t"})
            if key not in self._said:
                self._said.add(key)
                out.append(item)
        return out

    def _rejudge(self) -> list[dict[str, Any]]:
        before = [dumps(x) for x in self.lines]
        record = Record(header=self.header, entries=[Entry(e.line, e) for e in self._entries])
        events, notes = apply_corrections(record)
        self._reset()
        self.session.notes.extend(notes)
        self.feed_sorted(events)
        seen = set(before)
        return [x for x in self.lines if dumps(x) not in seen]

    def finish(self) -> "Judgement":
        if not self.finished:
            self._take(self._judge.finish())
            takes = getattr(self._judge, "takes_answers", False)
            for a in self.session.answers.untaken():
                why = (f"there is no verdict {a.card_index} to answer about" if takes
                       else f"{self.header.game} verdicts take no answers (IKATAKO and MOKOCHAKA weigh "
                       "unclear observations)")
                self.session.warn(f"{a.describe()}: {why}; ignored", a.line)
            self.finished = True
        return Judgement(game=self.header.game, lines=list(self.lines), notes=self.session.notes)


def _is_answer(event: Event) -> bool:
    """A ``decision`` about a numbered card (an answer of the table), not the latest card's tie."""
    return isinstance(event, DecisionEvent) and event.is_answer


def judge(record: Record, options: Mapping[str, Any] | None = None, *, clarity: Clarity | None = None,
          answers: Sequence[Answer] = ()) -> Judgement:
    """Judge a parsed record; ``options`` override the header's rule options, ``clarity`` the
    default thresholds of what counts as clearly perceived, and ``answers`` (``referee judge
    --decide``) are applied after the record's own ``decision`` answers.

    The batch judgement is the incremental judge fed the whole record: corrections applied,
    events in canonical order, then :meth:`IncrementalJudge.finish`.
    """
    if record.header is None:
        raise RecordError("cannot judge a record without a valid session header on its first line")
    events, notes = apply_corrections(record)
    inc = IncrementalJudge(record.header, options, notes=notes, clarity=clarity, answers=answers)
    inc.feed_sorted(events)
    return inc.finish()

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

Same record and options, same output, byte for byte: nothing here reads a clock, and
every collection that reaches the output is ordered.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import rules
from referee.errors import EventError, RecordError
from referee.events import CorrectionEvent, Event, SessionHeader, UnknownEvent
from referee.record import Record, RecordIssue, dumps

# Order of event kinds at equal timestamps: what appears first, then what reacts to it,
# then what the table decides about it.
KIND_ORDER = {"card": 0, "hand": 1, "shout": 1, "grab": 1, "decision": 2, "choice": 3, "end": 9}


@dataclass
class Session:
    """What a game's judging module receives: header, resolved options, ordered events."""

    header: SessionHeader
    options: dict[str, Any]
    events: list[Event]
    notes: list[RecordIssue] = field(default_factory=list)

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


def sort_key(event: Event) -> tuple:
    return (event.t, KIND_ORDER.get(event.type, 5), dumps(event))


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


def judge(record: Record, options: Mapping[str, Any] | None = None) -> Judgement:
    """Judge a parsed record; ``options`` override the header's rule options."""
    if record.header is None:
        raise RecordError("cannot judge a record without a session header on its first line")
    header = record.header
    game = rules.get(header.game)
    resolved = game.resolve_options({**header.options, **(options or {})})
    events, notes = apply_corrections(record)
    events = sorted((e for e in events if not isinstance(e, UnknownEvent)), key=sort_key)
    session = Session(header=header, options=resolved, events=events, notes=notes)
    module = importlib.import_module(f"referee.judging.{header.game}")
    lines = list(module.judge(session))
    return Judgement(game=header.game, lines=lines, notes=session.notes)

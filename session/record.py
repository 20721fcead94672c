"""Reading and writing session records (JSON Lines, described in docs/record.md).

The reader never stops at a bad line: it collects a :class:`RecordIssue` naming the line
and goes on, as a PGN reader keeps the games it can parse. Unknown fields and unknown
event types are kept. The writer flushes every event, so a crash or a pulled plug loses
at most the line being written.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Iterable, Iterator, Mapping

from session.errors import EventError, RecordError
from session.events import Event, SessionHeader, UnknownEvent


@dataclass(frozen=True)
class RecordIssue:
    """A problem with one line of a record; ``severity`` is ``error`` or ``warning``."""

    line: int
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        return f"line {self.line}: {self.severity}: {self.message}"


@dataclass(frozen=True)
class Entry:
    """One event and the line it came from (corrections refer to lines)."""

    line: int
    event: Event


@dataclass
class Record:
    """A parsed session record: the header, the events after it, and what went wrong."""

    header: SessionHeader | None
    entries: list[Entry] = field(default_factory=list)
    issues: list[RecordIssue] = field(default_factory=list)

    @property
    def events(self) -> list[Event]:
        return [e.event for e in self.entries]

    @property
    def errors(self) -> list[RecordIssue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[RecordIssue]:
        return [i for i in self.issues if i.severity == "warning"]


def _decode_lines(raw: bytes) -> Iterator[tuple[int, str | None, str | None]]:
    """Yield (line number, text, decoding problem) for each line of raw bytes."""
    for number, chunk in enumerate(raw.split(b"\n"), start=1):
        chunk = chunk.rstrip(b"\r")
        if number == 1 and chunk.startswith(b"\xef\xbb\xbf"):
            chunk = chunk[3:]
        try:
            yield number, chunk.decode("utf-8"), None
        except UnicodeDecodeError as exc:
            yield number, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})"


def parse_lines(lines: Iterable[str]) -> Record:
    """Parse record lines (strings, numbered from 1); see :func:`read_record`."""
    return _parse((n, text, None) for n, text in enumerate(lines, start=1))


def read_record(source: str | Path | bytes | IO[bytes]) -> Record:
    """Read a record from a path, raw bytes or a binary stream.

    Raises :class:`RecordError` only when there is nothing to read (missing file,
    a directory); every problem inside the file becomes an issue of the record.
    """
    if isinstance(source, bytes):
        raw = source
    elif isinstance(source, (str, Path)):
        path = Path(source)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise RecordError(f"{path}: no such session record") from None
        except IsADirectoryError:
            raise RecordError(f"{path}: is a folder, not a session record") from None
        except OSError as exc:
            raise RecordError(f"{path}: cannot read ({exc.strerror})") from None
    else:
        raw = source.read()
    return _parse(_decode_lines(raw))


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def loads(text: str) -> Any:
    """One record line as strict JSON: ``NaN``/``Infinity`` (which Python's json reads by
    default) are refused, so no non-finite number reaches the judge or is written back as
    invalid JSON; an integer too long to read (Python's 4300-digit limit) is a ValueError."""
    return json.loads(text, parse_constant=_refuse_constant)


def _parse(numbered: Iterable[tuple[int, str | None, str | None]]) -> Record:
    record = Record(header=None)
    seen_content = False
    last_t = float("-inf")
    for number, text, problem in numbered:
        if problem is not None:
            record.issues.append(RecordIssue(number, problem))
            continue
        assert text is not None
        if not text.strip():
            continue
        try:
            obj = loads(text)
        except json.JSONDecodeError as exc:
            record.issues.append(RecordIssue(number, f"not a JSON object ({exc.msg} at column {exc.colno})"))
            seen_content = True
            continue
        except RecursionError:
            record.issues.append(RecordIssue(number, "not a JSON object (nested too deeply)"))
            seen_content = True
            continue
        except ValueError as exc:  # NaN/Infinity, an integer of thousands of digits
            why = str(exc) if "JSON number" in str(exc) else "a number of more than 4300 digits"
            record.issues.append(RecordIssue(number, f"not a JSON object ({why})"))
            seen_content = True
            continue
        try:
            event = replace(Event.from_dict(obj), line=number)
        except EventError as exc:
            if not seen_content and isinstance(obj, dict) and obj.get("type") == "session":
                # the header is there but broken: say what is wrong with it, not that it is missing
                record.issues.append(RecordIssue(number, f"the session header is not valid: {exc}"))
            else:
                record.issues.append(RecordIssue(number, str(exc)))
            seen_content = True
            continue
        if isinstance(event, SessionHeader):
            if seen_content or record.header is not None:
                record.issues.append(RecordIssue(number, "a session header is allowed only on the first line"))
            else:
                record.header = event
            seen_content = True
            continue
        if not seen_content:
            record.issues.append(RecordIssue(number, "the first line must be the session header (type 'session')"))
        seen_content = True
        if "said_t" in obj and isinstance(event, UnknownEvent):
            # a line the live referee appended as it said it (a verdict, an announcement): dated
            # by its card, written when said; not an observation, so not in the events' time order
            record.entries.append(Entry(number, event))
            continue
        if event.t < last_t:
            record.issues.append(
                RecordIssue(number, f"t={event.t:g} is earlier than an event before it; judged in time order", "warning")
            )
        last_t = max(last_t, event.t)
        record.entries.append(Entry(number, event))
    if record.header is None and not any("header" in i.message for i in record.issues):
        record.issues.append(RecordIssue(1, "the record has no session header (type 'session')"))
    return record


def dumps(obj: Mapping[str, Any] | Event) -> str:
    """One record line: the canonical JSON of an event or judgement, without newline."""
    if isinstance(obj, Event):
        obj = obj.to_dict()
    return json.dumps(obj, ensure_ascii=False)


class RecordWriter:
    """A sink for a session record: ``with RecordWriter(path) as w: w.write(event)``.

    Each event is written as one line and flushed at once.
    """

    def __init__(self, target: str | Path | IO[str], *, append: bool = False):
        self._target = target
        self._append = append
        self._stream: IO[str] | None = None
        self._owns = False
        self.count = 0

    def __enter__(self) -> "RecordWriter":
        if isinstance(self._target, (str, Path)):
            path = Path(self._target)
            try:
                # a lone surrogate (a JSON "\\ud800", a file name that is not UTF-8) has no
                # UTF-8: written as its JSON escape, which reads back as the same string
                self._stream = path.open("a" if self._append else "w", encoding="utf-8", newline="\n",
                                         errors="backslashreplace")
            except OSError as exc:
                raise RecordError(f"{path}: cannot write the session record ({exc.strerror})") from None
            self._owns = True
        else:
            self._stream = self._target
        return self

    def write(self, obj: Mapping[str, Any] | Event) -> None:
        if self._stream is None:
            raise RecordError("RecordWriter used outside its 'with' block")
        self._stream.write(dumps(obj) + "\n")
        self._stream.flush()
        self.count += 1

    def __exit__(self, *exc: object) -> None:
        if self._stream is not None and self._owns:
            self._stream.close()
        self._stream = None


def to_text(events: Iterable[Mapping[str, Any] | Event]) -> str:
    """The record text of several events (handy for tests and fixtures)."""
    buf = io.StringIO()
    with RecordWriter(buf) as w:
        for e in events:
            w.write(e)
    return buf.getvalue()

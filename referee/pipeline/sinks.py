"""Sinks: where what the pipeline produces goes — the streaming record, the terminal, JSON
lines, the HTML report, the annotated video, a live window, the voice.

Every sink has one interface and is a context manager (``with RecordSink(path) as s:``): the
pipeline calls :meth:`Sink.start` with the session header once, then :meth:`Sink.event` for
every event the watermark merge releases (canonical order, :mod:`session.order`),
:meth:`Sink.verdicts` with judgement lines as soon as they are final, :meth:`Sink.announce`
with provisional announcements (a live table hears who was first before the verdict is
final), :meth:`Sink.frame` with each camera frame when the sink asks for frames
(``wants_frames``), :meth:`Sink.status` with the pipeline's periodic status (fps, dropped
frames, audio levels, how far the watermark lags), and :meth:`Sink.finish` with the whole
judgement at the end. A sink ignores what it does not need; none may block the pipeline
for long (a slow sink hands work to a thread of its own).
"""

from __future__ import annotations

from typing import Any

from session.events import Event, SessionHeader


class Sink:
    """Base of every sink; each method's default does nothing."""

    #: True when the sink wants every camera frame (a live window); the others never see one
    wants_frames = False

    def __enter__(self) -> "Sink":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, header: SessionHeader) -> None:
        pass

    def event(self, event: Event) -> None:
        pass

    def verdicts(self, lines: list[dict[str, Any]]) -> None:
        pass

    def announce(self, items: list[dict[str, Any]]) -> None:
        pass

    def frame(self, frame: Any, events: list[Event]) -> None:
        pass

    def status(self, info: dict[str, Any]) -> None:
        pass

    def finish(self, judgement: Any) -> None:
        pass

    def close(self) -> None:
        pass


class RecordSink(Sink):
    """The streaming session record: the header, then every released event, each line
    flushed as it is written (a killed run leaves a valid record up to the watermark).

    With ``said_at`` (live play: a function giving the session time now, or None before the
    session clock started) the judgement's lines and the announcements are appended too, as
    they are said, each stamped ``said_t`` and given a ``t`` where it has none (the
    ``result`` line), so the record stays readable by every reader (a line without ``t`` is
    an error there; these are unknown types, ignored by the judge)."""

    def __init__(self, path, *, said_at=None):
        from pathlib import Path

        self.path = Path(path)
        self.said_at = said_at
        self._writer = None

    def start(self, header: SessionHeader) -> None:
        from session.record import RecordWriter

        self._writer = RecordWriter(self.path).__enter__()
        self._writer.write(header)

    def event(self, event: Event) -> None:
        self._writer.write(event)

    def verdicts(self, lines: list[dict[str, Any]]) -> None:
        if self.said_at is None:
            return
        said = self.said_at()
        for line in lines:
            obj = dict(line)
            obj.setdefault("t", said if said is not None else 0.0)
            obj["said_t"] = said
            self._writer.write(obj)

    def announce(self, items: list[dict[str, Any]]) -> None:
        self.verdicts(items)  # what the table heard first, in the record with when

    def close(self) -> None:
        if self._writer is not None:
            self._writer.__exit__(None, None, None)
            self._writer = None


class CollectSink(Sink):
    """Keeps everything in memory (the replay's result, the report, tests)."""

    def __init__(self) -> None:
        self.header: SessionHeader | None = None
        self.events: list[Event] = []
        self.lines: list[dict[str, Any]] = []
        self.announcements: list[dict[str, Any]] = []
        self.judgement: Any = None

    def start(self, header: SessionHeader) -> None:
        self.header = header

    def event(self, event: Event) -> None:
        self.events.append(event)

    def verdicts(self, lines: list[dict[str, Any]]) -> None:
        self.lines.extend(lines)

    def announce(self, items: list[dict[str, Any]]) -> None:
        self.announcements.extend(items)

    def finish(self, judgement: Any) -> None:
        self.judgement = judgement


class JsonLinesSink(Sink):
    """The judgement as JSON lines, each verdict written the moment it is final (``write``
    gets one line of text, without its newline)."""

    def __init__(self, write) -> None:
        self.write = write

    def verdicts(self, lines: list[dict[str, Any]]) -> None:
        from session.record import dumps

        for line in lines:
            self.write(dumps(line))


class ReportSink(Sink):
    """The dispute report (``report.html``) and/or the annotated video (``annotated.mp4``: seat
    boxes, raised hands, words, the card and its verdict), :mod:`referee.report`, drawn once
    the session is judged from the evidence the run gathered: ``evidence(judgement)`` gives
    the object the report reads (a :class:`referee.replay.Replay`). :attr:`seconds` is the
    time it took."""

    def __init__(self, evidence, *, html: bool = True, video: bool = False) -> None:
        self.evidence = evidence
        self.html, self.video = html, video
        self.seconds = 0.0

    def finish(self, judgement: Any) -> None:
        import time

        from referee import report

        t0 = time.perf_counter()
        report.write(self.evidence(judgement), html=self.html, video=self.video)
        self.seconds += time.perf_counter() - t0


class EachEventSink(Sink):
    """Hands every released event to ``on_event`` (``referee watch``/``listen``)."""

    def __init__(self, on_event) -> None:
        self.on_event = on_event

    def event(self, event: Event) -> None:
        self.on_event(event)

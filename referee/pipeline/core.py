"""The pipeline's spine: stages' events → watermark merge → record and sinks → incremental
judge → verdicts to the sinks.

Sources and stages (a file or a camera, a recording or microphones) differ between replay
and live play; this part does not. A driver (``referee.pipeline.replay``, the live
referee) pushes each stage's events with :meth:`Pipeline.push` and moves its watermark with
:meth:`Pipeline.advance`; every released event goes to every sink and then to the judge, and
the judge's final lines and provisional announcements go to the sinks at once.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

from referee.judge import IncrementalJudge, Judgement
from referee.pipeline.crediting import RoomCrediting
from referee.pipeline.merge import WatermarkMerge
from referee.pipeline.sinks import Sink
from session.events import Event, SessionHeader


class Pipeline:
    """One session: ``start(header)``, then ``push``/``advance``/``close`` per stream, ``finish``.

    Events pushed before :meth:`start` wait in the merge (the header is written first).
    ``judge`` False records without judging (``referee watch``/``listen``).
    """

    def __init__(self, streams: Sequence[str], sinks: Sequence[Sink], *, judge: bool = True,
                 options: Mapping[str, Any] | None = None):
        self.merge = WatermarkMerge(streams)
        #: one room microphone: its words credited to a seat by the hands (idle otherwise)
        self.crediting = RoomCrediting()
        self.sinks = list(sinks)
        self._judge_wanted = judge
        self._options = dict(options or {})
        self.judge: IncrementalJudge | None = None
        self.header: SessionHeader | None = None
        self.released = 0
        self._warned_late = 0
        self.judgement: Judgement | None = None

    # ------------------------------------------------------------------ feeding
    def start(self, header: SessionHeader) -> None:
        if self.header is not None:
            raise RuntimeError("the pipeline was started twice")
        self.header = header
        self.crediting.start(header.options.get("window"))
        for s in self.sinks:
            s.start(header)
        if self._judge_wanted:
            self.judge = IncrementalJudge(header, self._options)
        self._flush()

    def push(self, stream: str, events: Iterable[Event]) -> None:
        self.merge.push(stream, events)

    def advance(self, stream: str, t: float) -> None:
        self.merge.advance(stream, t)
        self._flush()

    def close(self, stream: str) -> None:
        self.merge.close(stream)
        self._flush()

    def frame(self, frame: Any, events: list[Event]) -> None:
        for s in self.sinks:
            if s.wants_frames:
                s.frame(frame, events)

    def status(self, info: dict[str, Any]) -> None:
        for s in self.sinks:
            s.status(info)

    @property
    def watermark(self) -> float:
        """The time before which every event has gone to the sinks and the judge."""
        return self.crediting.released_until(self.merge.watermark())

    def _flush(self) -> None:
        if self.header is None:
            return
        released, mark = self.crediting.feed(self.merge.release(), self.merge.watermark())
        for ev in released:
            self.released += 1
            for s in self.sinks:
                s.event(ev)
            if self.judge is not None:
                self._say(self.judge.feed(ev))
        if self.judge is not None:
            if mark > -math.inf and mark < math.inf:
                self._say(self.judge.advance(mark))
                items = self.judge.announce(mark)
                if items:
                    for s in self.sinks:
                        s.announce(items)

    def _say(self, lines: list[dict[str, Any]]) -> None:
        if lines:
            for s in self.sinks:
                s.verdicts(lines)

    # ------------------------------------------------------------------ the end
    @property
    def late(self) -> list:
        return self.merge.late

    def finish(self) -> Judgement | None:
        """Close every stream, release the rest, judge to the end, tell the sinks."""
        if self.header is None:
            raise RuntimeError("the pipeline finished before it started (no session header)")
        for name in self.merge.streams:
            self.merge.close(name)
        self._flush()
        if self.judge is not None:
            before = len(self.judge.lines)
            judgement = self.judge.finish()
            self._say(judgement.lines[before:])
            self.judgement = judgement
        for s in self.sinks:
            s.finish(self.judgement)
        return self.judgement

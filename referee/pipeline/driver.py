"""The one session driver: sources → the pipeline, round after round, for every mode.

A session is the same loop whatever feeds it (replay, watch, listen, live play, the demo,
the camera drill): each round every open :class:`Source` is asked what it has now
(:meth:`Source.poll`), its events go to its stream of the watermark merge with the promise
it makes (its watermark), a stream it has finished is closed, and the session starts (its
header written, judging begins) as soon as the header can be made. A file and a live device
differ only in what their ``poll`` does (a file's reader waits for its next frame; a camera
gives its newest one); pacing, keys and device status are sources too, and what the session
shows or writes is a sink (:mod:`referee.pipeline.sinks`). The models: pipecat's pipeline (a
live transport and a file differ only at the ends) and supervision's ``process_video``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

from session.events import Event, SessionHeader


@dataclass
class Batch:
    """What a source hands to one stream in one poll: ``events``, then the stream's promise
    (nothing earlier than ``watermark`` will follow; None: no new promise), then ``closed``
    (the stream has ended: nothing more at all)."""

    stream: str
    events: list[Event] = field(default_factory=list)
    watermark: float | None = None
    closed: bool = False
    #: a camera frame and the events the stage found on it, for the sinks that draw frames
    #: (after the events went in: what was released is drawn with it)
    shown: tuple[Any, list[Event]] | None = None


class Source(Protocol):
    """One input of a session: a video file, a camera, a WAV, the microphones, the keys, the
    devices' status. ``poll`` returns what is there now (it may wait a little: a file's next
    frame); ``done`` once it will have nothing more; ``wait`` True asks a source that is the
    last one open to wait for its news instead of returning at once (nothing else to do)."""

    done: bool

    def poll(self, wait: bool = False) -> list[Batch]: ...


class Session:
    """One session: a pipeline fed by its sources until they are all done (or ``stop`` says
    so). ``header`` makes the session header once it can be made (None until then: a replay
    waits for hearing to name what it heard; live waits for the first frame); events polled
    before it wait in the merge. ``after_round`` runs after each round (live: the status)."""

    def __init__(self, pipe, sources: Sequence[Source], header: Callable[[], SessionHeader | None], *,
                 after_round: Callable[[], None] | None = None):
        self.pipe = pipe
        self.sources = list(sources)
        self.header = header
        self.after_round = after_round

    @property
    def open_sources(self) -> list[Source]:
        return [s for s in self.sources if not s.done]

    def step(self) -> bool:
        """One round: each open source polled once, its batches into the pipeline. False when
        every source is done."""
        open_now = self.open_sources
        for source in open_now:
            self.take(source.poll(wait=len(open_now) == 1))
        self.start_if_ready()
        if self.after_round is not None:
            self.after_round()
        return bool(self.open_sources)

    def take(self, batches: Sequence[Batch]) -> None:
        """A source's batches into the merge, in the order given."""
        pipe = self.pipe
        for b in batches:
            if b.events:
                pipe.push(b.stream, b.events)
            if b.watermark is not None:
                pipe.advance(b.stream, b.watermark)
            if b.closed:
                pipe.close(b.stream)
            if b.shown is not None:
                pipe.frame(*b.shown)

    def start_if_ready(self) -> bool:
        """The header written (once) as soon as it can be made; True once started."""
        if self.pipe.header is None:
            header = self.header()
            if header is not None:
                self.pipe.start(header)
        return self.pipe.header is not None

    def run(self, stop: Callable[[], bool] = lambda: False) -> None:
        """Rounds until every source is done or ``stop()``; the caller finishes the pipeline."""
        while self.step() and not stop():
            pass

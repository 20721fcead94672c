"""The sources every mode shares (:class:`referee.pipeline.driver.Source`): the hearing job's
messages (a WAV's or the microphones'), a recorded video's frames through the vision stage,
and fixed setup events. Live play adds the camera, the keys and the devices' status
(:mod:`referee.live.sources`)."""

from __future__ import annotations

import time
from typing import Callable, Sequence

from referee.pipeline.driver import Batch
from referee.pipeline.hearing import HeardEvents, HearingDone, HearingFailed, HearingMessage, HearingReady
from session.calibration import shift_audio_events
from session.errors import RefereeError
from session.events import Event, SkippedEvent, WarningEvent


class FixedSource:
    """Events known before the session (setup warnings at t = 0) and streams with nothing to
    say (``referee watch`` hears nothing): given once, then done."""

    def __init__(self, batches: Sequence[Batch]):
        self._batches = list(batches)
        self.done = False

    def poll(self, wait: bool = False) -> list[Batch]:
        self.done = True
        out, self._batches = self._batches, []
        return out


def keep_all(event: Event) -> bool:
    return True


class HearingSource:
    """The hearing job's messages as batches (replay, watch with audio, live): the setup's
    warnings once hearing is set up (``setup``: the events that go with them, None when the
    setup stream is fed elsewhere), the events moved onto the video clock (``av_offset``, the
    calibration's audio–video offset; None: live, one session clock), the watermark, and at the end what was not heard
    (``unheard``: the done message → events to add, e.g. a ``skipped`` stretch).

    ``keep`` drops what is not perceived (live: the warm-up, a pause); ``say_warnings`` says
    the hearing's warning events as they come (replay); ``on_heard`` sees every batch of kept
    events with its watermark (live: the words on screen, the figures); ``on_timings`` each
    batch's shout timings (``HeardEvents.timings``: the live latency's parts)."""

    def __init__(self, job, warn: Callable[[str], None], *, av_offset: float | None = None,
                 setup: Sequence[Event] | None = None,
                 unheard: Callable[[HearingDone], list[Event]] | None = None,
                 keep: Callable[[Event], bool] = keep_all, say_warnings: bool = True,
                 on_heard: Callable[[list[Event], float], None] | None = None,
                 on_timings: Callable[[list[dict]], None] | None = None):
        self.job, self.warn, self.av_offset = job, warn, av_offset
        self.setup = None if setup is None else list(setup)
        self.unheard, self.keep, self.say_warnings, self.on_heard = unheard, keep, say_warnings, on_heard
        self.on_timings = on_timings
        #: the setup message, once hearing is set up (what was heard, which voices are enrolled)
        self.ready: HearingReady | None = None
        #: the done message, once hearing ended (figures, where the audio ended)
        self.finished: HearingDone | None = None
        self.done = False
        #: seconds spent waiting for hearing to end (after every other source was done)
        self.waited = 0.0

    def poll(self, wait: bool = False) -> list[Batch]:
        """The messages ready now; ``wait``: the remaining ones, until hearing ends."""
        if not wait:
            return self.take(self.job.poll())
        t0 = time.perf_counter()
        messages = self.job.wait()
        self.waited += time.perf_counter() - t0
        return self.take(messages)

    def take(self, messages: Sequence[HearingMessage]) -> list[Batch]:
        out: list[Batch] = []
        for msg in messages:
            if isinstance(msg, HearingFailed):
                raise msg.error
            if isinstance(msg, HearingReady):
                out += self._ready(msg)
            elif isinstance(msg, HeardEvents):
                watermark = msg.watermark + (self.av_offset or 0.0)
                events = self._events(msg.events)
                if self.on_timings is not None and msg.timings:
                    self.on_timings(msg.timings)
                if self.on_heard is not None:
                    self.on_heard(events, watermark)
                out.append(Batch("hearing", events, watermark))
            elif isinstance(msg, HearingDone):
                out.append(self._done(msg))
        return out

    def _ready(self, msg: HearingReady) -> list[Batch]:
        self.ready = msg
        for w in msg.warnings:
            self.warn(w)
        if self.setup is None:
            return []
        return [Batch("setup", self.setup + [WarningEvent(t=0.0, message=w) for w in msg.warnings], closed=True)]

    def _events(self, dicts) -> list[Event]:
        """What the hearing gave — shouts, and its audio_status and warnings, all timed on
        the audio clock — on the video clock. Its warnings (channels swapped, a voice on the
        wrong channel, a microphone clipping) are also said as they come (the terminal; the
        report's warnings), not only written in the record: a user settling a dispute must
        see them."""
        events = [Event.from_dict(d) for d in dicts]
        if self.av_offset is not None:
            events = shift_audio_events(events, self.av_offset, kinds="all")
        events = [e for e in events if self.keep(e)]
        for e in events:
            if self.say_warnings and isinstance(e, WarningEvent):
                self.warn(e.message if e.t <= 0 else f"at {e.t:.2f} s: {e.message}")
        return events

    def _done(self, done: HearingDone) -> Batch:
        self.done = True
        self.finished = done
        events = self._events(done.events)
        if self.unheard is not None:
            events += self.unheard(done)
        return Batch("hearing", events, closed=True)


#: audio that ends this many seconds before the video is reported as skipped
AUDIO_SHORT_S = 0.5


class Unheard:
    """Replay's account of what was not heard, at hearing's end: after an error, everything
    without audio, or the video's end beyond the audio's (``skipped`` events, each said)."""

    def __init__(self, source: HearingSource, expected_end: float | None, heard_from: Callable[[], object]):
        self.source, self.expected_end, self.heard_from = source, expected_end, heard_from

    def __call__(self, done: HearingDone) -> list[Event]:
        warn = self.source.warn
        if done.source_warning:
            warn(f"audio: {done.source_warning}")
        skip = self._skipped(done, warn)
        return [] if skip is None else [skip]

    def _skipped(self, done: HearingDone, warn) -> SkippedEvent | None:
        end = done.end + (self.source.av_offset or 0.0)  # where the audio ended, on the video clock
        expected_end = self.expected_end
        until = expected_end if expected_end is not None else end
        if done.error is not None:
            exc = done.error
            if not isinstance(exc, RefereeError):
                raise exc
            warn(f"audio: {exc}; shouts after {end:.2f} s are not heard")
            return SkippedEvent(t=round(end, 6), what="audio", start=round(end, 6), stop=until, reason=str(exc))
        ready = self.source.ready
        if ready is not None and not ready.listened:
            return SkippedEvent(t=0.0, what="audio", start=0.0, stop=until, reason="no audio: shouts are not heard")
        if expected_end is not None and end < expected_end - AUDIO_SHORT_S:
            msg = (f"audio {self.heard_from()} ends at {end:.2f} s, the video at {expected_end:.2f} s: "
                   "shouts after the audio's end are not heard")
            warn(msg)
            return SkippedEvent(t=round(end, 6), what="audio", start=round(end, 6), stop=expected_end, reason=msg)
        return None


def set_pose_every(stage, every: int) -> None:
    """Pose on every ``every``-th frame from the next frame on, in the pose workers and in the
    vision stage's own seats (which give its worst-case lag)."""
    from vision.parallel import set_every

    tw = stage.tw
    if tw.workers is not None:
        tw.workers.set_every(every)
    for seat in tw.seats:
        set_every(seat, every)
    stage.lag_s = tw.lag_frames / stage.fps


class VideoFileSource:
    """A recorded video through the vision stage, one decoded frame per poll (the reader's
    queue paces the session): the stage's events and watermark, the packets the reader could
    not decode as skipped stretches, the live session's pose-stride changes followed
    (``pose_changes``), and at the end the stage's last events. ``warn`` says each warning."""

    def __init__(self, reader, stage, info, warn: Callable[[str], None], *,
                 pose_changes: Sequence[tuple[float, int]] = (),
                 on_progress: Callable[[int, int], None] | None = None):
        self.reader, self.stage, self.info, self.warn = reader, stage, info, warn
        self.changes = list(pose_changes)
        self.on_progress = on_progress
        self.total = info.frames or 0
        # a frame's PTS is within half a frame of the capture time the live record names
        self.half_frame = 0.5 / (info.fps or 30.0)
        self.last_t, self.frames, self.seen_skips = 0.0, 0, 0
        self.done = False
        #: when the last frame was done (``time.perf_counter``): the video's share of the time
        self.ended_at: float | None = None

    def poll(self, wait: bool = False) -> list[Batch]:
        item = self.reader.get()
        if item is None:
            return self._end([])
        if isinstance(item, BaseException):
            return self._failed(item)
        return [self._frame(item)]

    def _frame(self, item) -> Batch:
        stage = self.stage
        try:
            events = stage.update(item)
        except (BrokenPipeError, EOFError, ConnectionResetError) as exc:
            raise RefereeError(f"a pose worker process stopped at frame {item.index} ({exc}); "
                               "replay with --workers 0 to run pose in this process") from None
        while self.changes and item.t >= self.changes[0][0] - self.half_frame:
            set_pose_every(stage, self.changes.pop(0)[1])
        skips = self._skipped_frames(item.t)
        for w in stage.take_warnings():
            self.warn(w)
        self.last_t = item.t
        self.frames += 1
        if self.on_progress is not None:
            self.on_progress(self.frames, self.total)
        return Batch("vision", skips + events, stage.watermark(item.t))

    def _failed(self, exc: BaseException) -> list[Batch]:
        """A decoding error after some frames: the rest of the video skipped (before: fatal)."""
        if isinstance(exc, RefereeError) and self.frames > 0:
            self.warn(f"{exc}; the rest of the video is skipped")
            last = round(self.last_t, 6)
            rest = SkippedEvent(t=last, what="video", start=last, stop=self.info.duration or last, reason=str(exc))
            return self._end([rest])
        raise exc

    def _end(self, events: list[Event]) -> list[Batch]:
        """The stage's last events; what the reader said after the last frame (a file cut
        short) is skipped to the end."""
        tail = self._skipped_frames(max(self.last_t, self.info.duration or 0.0))
        self.done = True
        self.ended_at = time.perf_counter()
        return [Batch("vision", events + tail + self.stage.finish(), closed=True)]

    def _skipped_frames(self, until: float) -> list[SkippedEvent]:
        """The reader's new messages (packets it could not decode) as warnings and skipped
        stretches from the last frame seen to ``until``."""
        out = []
        skipped = self.reader.skipped
        while self.seen_skips < len(skipped):
            msg = skipped[self.seen_skips]
            self.seen_skips += 1
            self.warn(msg)
            out.append(SkippedEvent(t=round(self.last_t, 6), what="video", start=round(self.last_t, 6),
                                    stop=round(until, 6), reason=msg))
        return out


class ListenerSource:
    """A WAV or the microphones heard in this thread, one audio block per poll
    (``referee listen``): the listener's shouts and its watermark, and at the end (the input
    ended, or :meth:`end` after Ctrl-C) the words still open."""

    def __init__(self, audio, listener):
        self.audio, self.listener = audio, listener
        self._blocks = iter(audio)
        self.done = False

    def poll(self, wait: bool = False) -> list[Batch]:
        block = next(self._blocks, None)
        if block is None:
            return self.end()
        events = [Event.from_dict(d) for d in self.listener.update(block)]
        return [Batch("hearing", events, self.listener.watermark())]

    def end(self) -> list[Batch]:
        """The words still open, and the stream closed."""
        self.done = True
        return [Batch("hearing", [Event.from_dict(d) for d in self.listener.close_window()], closed=True)]

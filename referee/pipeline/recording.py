"""A recorded session through the pipeline: the video's frames and the seats' audio (files)
→ vision and hearing stages → merge → record → judge → sinks.

Layout of the work (bounded queues; every part on its own core where there is one):
- a *reader* thread decodes frames (:class:`~referee.pipeline.vision.FrameReader`);
- this thread runs the vision stage: the card zones here, the seats in *seat worker
  processes* (``vision.parallel.SeatWorkers``) with :data:`PIPELINE` frames in flight, so
  decoding, cards and pose run at the same time;
- *hearing* runs in a process of its own, started first (``workers`` 0: a thread) and
  streams its shouts with its watermark (:mod:`referee.pipeline.hearing`);
- the :class:`~referee.pipeline.core.Pipeline` releases every stage's events in time order
  as soon as no earlier one can arrive, writes each to the record (flushed per event), feeds
  the incremental judge and hands verdicts to the sinks.

Bad input that leaves something to judge is a warning, and the record says what was not
perceived with ``skipped`` events (``what``: ``audio``/``video``, ``from``/``to``,
``reason``) and ``warning`` events; setup warnings (known before the first frame) are
recorded at t = 0.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from referee.pipeline.core import Pipeline
from referee.pipeline.hearing import (HeardEvents, HearingDone, HearingFailed, HearingJob, HearingMessage,
                                      HearingReady)
from referee.pipeline.sinks import Sink
from referee.pipeline.vision import FrameReader, VisionStage
from session.calibration import shift_audio_events
from session.closing import close_all
from session.errors import RefereeError
from session.events import Event, SessionHeader, SkippedEvent, WarningEvent

#: frames in flight to the seat workers: decoding and the card zones run ahead while the
#: workers analyse; hand events are known this many frames later (their times unchanged).
#: Deep enough that a re-analysis burst in one worker (9 pose runs at every 8th frame) does
#: not stall the other. Memory: this many + 2 frames in shared memory (2.8 MB each at 720p)
PIPELINE = 16
#: audio that ends this many seconds before the video is reported as skipped
AUDIO_SHORT_S = 0.5
#: the merge's streams: setup warnings (t = 0), what the camera saw, what the microphones heard
STREAMS = ("setup", "vision", "hearing")


@dataclass
class Recording:
    """The inputs of one recorded session, as plain values."""

    video: Path
    audio: Path | None
    layout: Any  # vision.table.TableLayout
    hearing: Any  # audio.hearing.HearingPlan, or None to perceive the video only
    info: Any  # vision.video.VideoInfo
    workers: int = 2
    pose_every: int = 8
    card_every: int = 2
    keep_landmarks: bool = True
    #: the calibration's sample rate when the seats' recording has another (resampled to it)
    audio_rate: int | None = None
    #: the table's rule on quick half-raises (None: vision's default, a hand at head height counts)
    half_raise: bool | None = None
    #: the calibration's audio–video offset (s, audio clock minus video clock; 0 when not measured)
    av_offset: float = 0.0
    #: pose stride changes to follow, ``(after_frame_t, every)`` in time order: from the frame
    #: after the one at ``after_frame_t`` (session s) on, pose on every ``every``-th frame — a
    #: live session's adaptive pose rate, read from its record (``referee replay --follow-live``)
    pose_changes: tuple[tuple[float, int], ...] = ()


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


@dataclass
class RecordingRun:
    """What perceiving a recording produced besides the events (evidence, figures)."""

    frames: int = 0
    duration: float = 0.0
    heard_from: Path | None = None
    enrolled: bool = False
    #: the enrolled voices' engine (``audio.voices.engine_of``: "embedding+dtw", "dtw"), None without
    enrolled_by: str | None = None
    landmarks: dict[str, list[tuple[float, dict]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    elapsed_video: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)
    late: int = 0


def open_audio(video: Path, audio: Path | None, demix: bool, warnings: list[str], rate: int | None = None,
               leakage_from: Path | None = None, channels: int | None = None, measured=None):
    """The recording's audio source (picklable as a partial: it runs in the hearing process),
    resampled to ``rate`` when given, cross-talk cancelled with the leakage measured on the
    calibration recording ``leakage_from`` when given (``measured``: the calibration's stored
    measurement of it, ``HearingPlan.leakage_measured``)."""
    from audio import hearing

    return hearing.open_source(video, audio, warnings, demix=demix, rate=rate, leakage_from=leakage_from,
                               channels=channels, measured=measured)


class HearingFeed:
    """The hearing job's messages into the pipeline: the header once hearing is set up, the
    events moved onto the video clock (the calibration's audio–video offset), its watermark,
    and at the end what was not heard as a ``skipped`` stretch."""

    def __init__(self, pipe: Pipeline, out: RecordingRun, warn: Callable[[str], None],
                 make_header: Callable[[RecordingRun], SessionHeader], setup: list[Event], av_offset: float,
                 expected_end: float | None):
        self.pipe, self.out, self.warn, self.make_header = pipe, out, warn, make_header
        self.setup, self.av_offset, self.expected_end = setup, av_offset, expected_end
        self.listened = True
        self.done = False

    def take(self, msg: HearingMessage) -> None:
        if isinstance(msg, HearingFailed):
            raise msg.error
        if isinstance(msg, HearingReady):
            self._ready(msg)
        elif isinstance(msg, HeardEvents):
            self.pipe.push("hearing", self._events(msg.events))
            self.pipe.advance("hearing", msg.watermark + self.av_offset)
        elif isinstance(msg, HearingDone):
            self._done(msg)

    def _ready(self, msg: HearingReady) -> None:
        out = self.out
        out.heard_from, out.enrolled, out.enrolled_by = msg.heard_from, msg.enrolled, msg.enrolled_by
        self.listened = msg.listened
        for w in msg.warnings:
            self.warn(w)
        self.pipe.start(self.make_header(out))
        self.pipe.push("setup", self.setup + [WarningEvent(t=0.0, message=w) for w in msg.warnings])
        self.pipe.close("setup")

    def _events(self, dicts) -> list[Event]:
        """What the hearing gave — shouts, and its audio_status and warnings, all timed on
        the audio clock — on the video clock. Its warnings (channels swapped, a voice on the
        wrong channel, a microphone clipping) are also said as they come (the terminal; the
        report's warnings), not only written in the record: a user settling a dispute must
        see them."""
        events = shift_audio_events([Event.from_dict(d) for d in dicts], self.av_offset, kinds="all")
        for e in events:
            if isinstance(e, WarningEvent):
                self.warn(e.message if e.t <= 0 else f"at {e.t:.2f} s: {e.message}")
        return events

    def _done(self, done: HearingDone) -> None:
        self.done = True
        self.pipe.push("hearing", self._events(done.events))
        self.out.stats.update(done.stats)
        if done.source_warning:
            self.warn(f"audio: {done.source_warning}")
        skip = self._unheard(done)
        if skip is not None:
            self.pipe.push("hearing", [skip])
        self.pipe.close("hearing")

    def _unheard(self, done: HearingDone) -> SkippedEvent | None:
        """The stretch nobody was heard in: after an error, everything without audio, or
        the video's end beyond the audio's."""
        end = done.end + self.av_offset  # where the audio ended, on the video clock
        expected_end = self.expected_end
        until = expected_end if expected_end is not None else end
        if done.error is not None:
            exc = done.error
            if not isinstance(exc, RefereeError):
                raise exc
            self.warn(f"audio: {exc}; shouts after {end:.2f} s are not heard")
            return SkippedEvent(t=round(end, 6), what="audio", start=round(end, 6), stop=until, reason=str(exc))
        if not self.listened:
            return SkippedEvent(t=0.0, what="audio", start=0.0, stop=until, reason="no audio: shouts are not heard")
        if expected_end is not None and end < expected_end - AUDIO_SHORT_S:
            msg = (f"audio {self.out.heard_from} ends at {end:.2f} s, the video at {expected_end:.2f} s: "
                   "shouts after the audio's end are not heard")
            self.warn(msg)
            return SkippedEvent(t=round(end, 6), what="audio", start=round(end, 6), stop=expected_end, reason=msg)
        return None


def run(rec: Recording, sinks: Sequence[Sink], make_header: Callable[[RecordingRun], SessionHeader], *,
        options: dict | None = None, setup_warnings: Sequence[str] = (),
        on_progress: Callable[[int, int], None] | None = None,
        on_warning: Callable[[str], None] | None = None, judge: bool = True,
        out: RecordingRun | None = None) -> tuple[RecordingRun, Pipeline]:
    """Perceive and judge one recording; the header is made once hearing is set up (it names
    the audio heard and whether voices are enrolled) and written before any event. ``out``
    (filled in as the run goes, complete before the sinks' ``finish``) lets a sink that
    draws the evidence read it."""
    out = out if out is not None else RecordingRun()
    pipe = Pipeline(STREAMS, sinks, options=options, judge=judge)

    def warn(msg: str) -> None:
        out.warnings.append(msg)
        if on_warning is not None:
            on_warning(msg)

    for w in setup_warnings:
        warn(w)
    setup = [WarningEvent(t=0.0, message=w) for w in setup_warnings]
    expected_end = rec.info.duration
    job = None
    if rec.hearing is not None:
        from audio.hearing import seat_channels

        job = HearingJob(rec.workers > 0, functools.partial(open_audio, rec.video, rec.audio, rec.hearing.demix,
                                                            rate=rec.audio_rate,
                                                            leakage_from=rec.hearing.leakage_from,
                                                            measured=rec.hearing.leakage_measured,
                                                            channels=seat_channels(rec.hearing)), rec.hearing)
    else:  # seeing only (``referee watch``): nothing to wait for before the header
        pipe.start(make_header(out))
        pipe.push("setup", setup)
        pipe.close("setup")
        pipe.close("hearing")
    reader = FrameReader(rec.video)
    stage = None
    feed = HearingFeed(pipe, out, warn, make_header, setup, rec.av_offset, expected_end)
    take = feed.take

    t_video = time.perf_counter()
    last_t, frames, seen_skips = 0.0, 0, 0

    def skipped_frames(until: float) -> list[SkippedEvent]:
        """The reader's new messages (packets it could not decode) as warnings and skipped
        stretches from the last frame seen to ``until``."""
        nonlocal seen_skips
        out_events = []
        while seen_skips < len(reader.skipped):
            msg = reader.skipped[seen_skips]
            seen_skips += 1
            warn(msg)
            out_events.append(SkippedEvent(t=round(last_t, 6), what="video", start=round(last_t, 6),
                                           stop=round(until, 6), reason=msg))
        return out_events

    total = rec.info.frames or 0
    changes = list(rec.pose_changes)
    # a frame's PTS is within half a frame of the capture time the live record names
    half_frame = 0.5 / (rec.info.fps or 30.0)
    try:
        stage = VisionStage(rec.layout, fps=rec.info.fps, workers=rec.workers, card_every=rec.card_every,
                            pose_every=rec.pose_every, pipeline=PIPELINE if rec.workers > 0 else 0,
                            keep_landmarks=rec.keep_landmarks, half_raise=rec.half_raise)
        reader.start()
        while True:
            for msg in job.poll() if job is not None else ():
                take(msg)
            item = reader.get()
            if item is None:
                break
            if isinstance(item, BaseException):
                if isinstance(item, RefereeError) and frames > 0:
                    warn(f"{item}; the rest of the video is skipped")
                    pipe.push("vision", [SkippedEvent(t=round(last_t, 6), what="video", start=round(last_t, 6),
                                                      stop=rec.info.duration or round(last_t, 6), reason=str(item))])
                    break
                raise item
            try:
                events = stage.update(item)
            except (BrokenPipeError, EOFError, ConnectionResetError) as exc:
                raise RefereeError(f"a pose worker process stopped at frame {item.index} ({exc}); "
                                   "replay with --workers 0 to run pose in this process") from None
            while changes and item.t >= changes[0][0] - half_frame:
                set_pose_every(stage, changes.pop(0)[1])
            skips = skipped_frames(item.t)
            for w in stage.new_warnings:
                warn(w)
            stage.new_warnings.clear()
            pipe.push("vision", skips + events)
            pipe.advance("vision", stage.watermark(item.t))
            last_t = item.t
            frames += 1
            if on_progress is not None:
                on_progress(frames, total)
        # what the reader said after the last frame (a file cut short): skipped to the end
        tail = skipped_frames(max(last_t, rec.info.duration or 0.0))
        pipe.push("vision", tail + stage.finish())
        pipe.close("vision")
        out.elapsed_video = time.perf_counter() - t_video
        t_wait = time.perf_counter()
        for msg in job.wait() if job is not None else ():
            take(msg)
        out.stats["audio_wait"] = time.perf_counter() - t_wait
    finally:  # (each closer runs, and none hides the error that brought us here)
        close_all(reader.stop, job is not None and job.close, stage is not None and stage.close)
    if job is not None and not feed.done:
        raise RefereeError("hearing ended without a result")
    out.stats.update(decode_cpu=reader.cpu, **stage.stats())
    out.landmarks = stage.landmarks
    out.frames = frames
    out.duration = round(last_t + 1.0 / (rec.info.fps or 30.0), 6)
    out.late = len(pipe.late)
    if pipe.late:
        warn(f"{len(pipe.late)} event(s) came later than their stage promised and were recorded out of order "
             f"(first: {pipe.late[0][1].type} at t={pipe.late[0][1].t:.3f} s from {pipe.late[0][0]})")
    pipe.finish()
    return out, pipe

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
from referee.pipeline.driver import Batch, Session
from referee.pipeline.hearing import HearingJob
from referee.pipeline.sinks import Sink
from referee.pipeline.sources import FixedSource, HearingSource, Unheard, VideoFileSource
from referee.pipeline.vision import FrameReader, VisionStage
from session.closing import close_all
from session.errors import RefereeError
from session.events import Event, SessionHeader, WarningEvent

#: frames in flight to the seat workers: decoding and the card zones run ahead while the
#: workers analyse; hand events are known this many frames later (their times unchanged).
#: Deep enough that a re-analysis burst in one worker (9 pose runs at every 8th frame) does
#: not stall the other. Memory: this many + 2 frames in shared memory (2.8 MB each at 720p)
PIPELINE = 16
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
    #: read the seats' mouths on every n-th frame (0: not at all): one room microphone only
    #: (its words are credited by the mouth that opened, :mod:`referee.pipeline.crediting`)
    mouths: int = 0


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


def run(rec: Recording, sinks: Sequence[Sink], make_header: Callable[[RecordingRun], SessionHeader], *,
        options: dict | None = None, setup_warnings: Sequence[str] = (),
        on_progress: Callable[[int, int], None] | None = None,
        on_warning: Callable[[str], None] | None = None, judge: bool = True,
        out: RecordingRun | None = None) -> tuple[RecordingRun, Pipeline]:
    """Perceive and judge one recording (:class:`~referee.pipeline.driver.Session` over the
    video file and the hearing job); the header is made once hearing is set up (it names
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
    hearing = _hearing_source(rec, warn, setup)
    job = hearing.job if isinstance(hearing, HearingSource) else None  # (started: closed whatever fails next)
    reader = FrameReader(rec.video)
    stage = None
    t_video = time.perf_counter()
    try:
        stage = VisionStage(rec.layout, fps=rec.info.fps, workers=rec.workers, card_every=rec.card_every,
                            pose_every=rec.pose_every, pipeline=PIPELINE if rec.workers > 0 else 0,
                            keep_landmarks=rec.keep_landmarks, half_raise=rec.half_raise, mouths=rec.mouths)
        video = VideoFileSource(reader, stage, rec.info, warn, pose_changes=rec.pose_changes, on_progress=on_progress)
        reader.start()
        Session(pipe, [hearing, video], functools.partial(_header_when_heard, hearing, out, make_header)).run()
    finally:  # (each closer runs, and none hides the error that brought us here)
        close_all(reader.stop, job is not None and job.close, stage is not None and stage.close)
    if job is not None and not hearing.done:
        raise RefereeError("hearing ended without a result")
    _collect(out, hearing, video, reader, stage, pipe, rec.info, t_video)
    if pipe.late:
        warn(f"{len(pipe.late)} event(s) came later than their stage promised and were recorded out of order "
             f"(first: {pipe.late[0][1].type} at t={pipe.late[0][1].t:.3f} s from {pipe.late[0][0]})")
    pipe.finish()
    return out, pipe


def _hearing_source(rec: Recording, warn: Callable[[str], None], setup: list[Event]):
    """The hearing job on the recording's audio, started now (it loads its model while the
    video stage is built); without a hearing plan (``referee watch``) the setup events alone
    and a hearing stream closed at once."""
    if rec.hearing is None:
        return FixedSource([Batch("setup", setup, closed=True), Batch("hearing", closed=True)])
    from audio.hearing import seat_channels

    job = HearingJob(rec.workers > 0, functools.partial(open_audio, rec.video, rec.audio, rec.hearing.demix,
                                                        rate=rec.audio_rate, leakage_from=rec.hearing.leakage_from,
                                                        measured=rec.hearing.leakage_measured,
                                                        channels=seat_channels(rec.hearing)), rec.hearing)
    source = HearingSource(job, warn, av_offset=rec.av_offset, setup=setup)
    source.unheard = Unheard(source, rec.info.duration, lambda: source.ready.heard_from if source.ready else None)
    return source


def _header_when_heard(hearing, out: RecordingRun, make_header) -> SessionHeader | None:
    """The header once hearing is set up (it names what was heard); at once without hearing."""
    ready = getattr(hearing, "ready", None)
    if isinstance(hearing, HearingSource):
        if ready is None:
            return None
        out.heard_from, out.enrolled_by = ready.heard_from, ready.enrolled_by
        out.enrolled = ready.enrolled
    return make_header(out)


def _collect(out: RecordingRun, hearing, video: VideoFileSource, reader, stage, pipe: Pipeline, info,
             t_video: float) -> None:
    """What the run produced besides the events: figures, landmarks, how much was seen."""
    if isinstance(hearing, HearingSource):
        out.stats.update(hearing.finished.stats)
        out.stats["audio_wait"] = hearing.waited
    out.elapsed_video = (video.ended_at or time.perf_counter()) - t_video
    out.stats.update(decode_cpu=reader.cpu, **stage.stats())
    out.landmarks = stage.landmarks
    out.frames = video.frames
    out.duration = round(video.last_t + 1.0 / (info.fps or 30.0), 6)
    out.late = len(pipe.late)

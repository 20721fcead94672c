"""The live referee: a camera and the seats' microphones (or a recording paced in real time)
→ the pipeline's stages → the watermark merge → the streaming record and the judge → the
live view, the recordings and the voice.

The same stages as replay (:mod:`referee.pipeline`): :class:`~referee.pipeline.vision.
VisionStage` on the camera's newest frames, the hearing job (:mod:`referee.pipeline.hearing`)
on the live audio source, the table's keys as a third stream (``table``). Only the sources
and the sinks are live:

- sources: :class:`vision.camera.Camera` (the driver or :class:`vision.paced_camera.PacedFakeCamera`)
  and :class:`audio.capture.LiveSource` (PortAudio or :class:`audio.capture.PacedStreamFactory`),
  both on one session clock (``time.monotonic()`` at the session start); a recording given with
  ``--from-video``/``--audio`` is released on that clock in real time, so it goes through
  exactly the path a table does;
- sinks: ``OUT/session.jsonl`` (flushed per event, verdicts appended as they are said),
  ``OUT/video.mp4`` and ``OUT/seats.wav`` (:mod:`referee.live.media`, crash-safe), the window
  or the terminal view, and the voice (a no-op until ``audio/voice.py`` exists).

Sources report losses (``warning``/``audio_status`` events) and reconnect by themselves; while
one is lost its stream's watermark follows the session clock, so judging goes on with the
other sense. Pause (a key) stops perceiving: what is not perceived is recorded as ``skipped``.

Every game's judge is incremental (``referee.judging.<game>.Judge``): a verdict is said
when it is final, and the first correct player is announced earlier (``announce``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import queue
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from session.closing import close_all
from session.errors import MediaError
from session.events import (Event, SessionHeader, StatusEvent,
                            WarningEvent)

from referee.live.pacing import CatchUpParams, PoseRateParams
from referee.live.latency import LatencyProbe
from referee.live.selftest_sink import SelfTestSink
from referee.live.warmup import first_image, warm_up
from referee.pipeline.hearing import SHOUTS_AT_ONCE
from referee.pipeline.sinks import RecordSink, Sink
from referee.pipeline.sources import HearingSource, set_pose_every

#: the merge's streams: setup warnings, what the camera saw, what the microphones heard, the
#: table's keys, the sources' own status (camera/microphone lost and back)
STREAMS = ("setup", "vision", "hearing", "table", "sources")
#: frames in flight to the seat workers live (replay uses 16 for throughput; live wants the
#: hand events early: each frame in flight is 33 ms of announcement latency)
LIVE_PIPELINE = 4
#: audio between two hearing messages live (replay: ``referee.pipeline.hearing.BATCH_S``,
#: 0.25 s): the hearing watermark moves in these steps and every event waits for it in the
#: merge, so each step is up to that much announcement latency; a message costs ~nothing
HEARING_BATCH_S = 0.04
#: one room microphone: the seats' mouths are read on every n-th frame (``vision.mouth``; about
#: 6 ms of CPU per seat a reading: every 2nd frame at 30 fps is 4 seats' 35 % of one core)
LIVE_MOUTH_EVERY = 2
#: how often the status (fps, drops, levels, lag) goes to the sinks
STATUS_EVERY_S = 0.5
#: the longest the self-test waits for every seat (a table needs ~20 s: four people, one
#: word and two hands each); then it stops and says which seats failed
SELFTEST_S = 45.0


@dataclass
class LiveOptions:
    """What ``referee live`` was asked to do, as plain values."""

    calibration: Path
    out: Path
    camera: Any = 0
    from_video: Path | None = None
    audio_device: Any = None
    audio: Path | None = None
    game: str | None = None
    mode: str | None = None
    lang: str = "ja"
    model: str | None = None
    window: bool = True
    voice: bool = True
    #: the voice as the views show it: "on", or "off: <why>" (None: not shown)
    voice_note: str | None = None
    #: how long the window keeps the final result when no key is pressed (s; 0: close at once)
    hold_s: float = 120.0
    force: bool = False
    workers: int = 2
    pose_every: int = 8
    card_every: int = 2
    enroll: Path | None = None
    no_enroll: bool = False
    demix: bool = True
    #: hear nothing, open no audio input (a drill answered with keys); a table whose seats have
    #: no microphone and no ``audio_device`` named is heard as silent anyway
    silent: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    #: stop after this many seconds of session (tests, benchmarks); None: until the end
    max_seconds: float | None = None
    #: faults injected into the paced recording (tests of losses): ``PacedFakeCamera``'s
    #: ``freeze``/``unplug``/``lag_s``/``driver_stamps`` and ``PacedStreamFactory``'s
    #: ``drop_after``/``gap_s``/``adc``
    camera_faults: dict[str, Any] = field(default_factory=dict)
    audio_faults: dict[str, Any] = field(default_factory=dict)
    #: the adaptive pose rate (:mod:`referee.live.pacing`; ``pose_every`` is where it
    #: starts); None: pose on every ``pose_every``-th frame whatever the load
    pose_rate: PoseRateParams | None = field(default_factory=PoseRateParams)
    #: after a stall of the live loop, the frames captured meanwhile go to the vision stage
    #: too (:class:`referee.live.pacing.CatchUpParams`); None: only the newest frame
    catch_up: CatchUpParams | None = field(default_factory=CatchUpParams)
    #: the card zones on a thread of their own (:class:`vision.table.CardThread`): a card's
    #: recognition no longer stalls the loop and the seats' frames; False: in the loop's thread
    card_thread: bool = True


@dataclass
class LiveResult:
    out: Path
    record: Path
    video: Path
    audio: Path
    judgement: Any
    lines: list[dict]
    warnings: list[str]
    figures: dict[str, Any]
    #: the table asked for a new game (``n n``): the session ended there, the next one follows
    new_game: bool = False


class _Tap:
    """The live audio source as hearing sees it: waits for the session start (``gate``),
    hands each block to the WAV writer, keeps the levels, and takes the device statuses out
    (they go to the ``sources`` stream: the pipeline's hearing job reads blocks only)."""

    def __init__(self, source, gate: threading.Event, statuses: queue.Queue):
        self.source, self.gate, self.statuses = source, gate, statuses
        #: the end of the last block handed on (session s): a device status still to come is
        #: dated at the sample count, never before it (the ``sources`` stream's promise)
        self.heard_until = float(getattr(source, "offset", 0.0) or 0.0)
        self.ended = False  # the source's blocks ended: no status can follow
        self.rate, self.channels = source.rate, source.channels
        self.writer = None
        self.warning = None
        self.closed = False  # closed before the session started: nothing is read (close())
        #: each channel's loudest block level (dBFS) since the start: the self-test's meter
        self.peaks: list[float | None] = [None] * self.channels

    def __iter__(self):
        self.gate.wait()
        try:
            if not self.closed:
                yield from self._items()
        finally:
            self.ended = True

    def close(self) -> None:
        """No session will start (it failed, or was stopped, before its start): the hearing
        thread waiting at the gate hears nothing and ends, instead of waiting for ever."""
        if not self.gate.is_set():
            self.closed = True
            self.gate.set()

    def _items(self):
        from audio.capture import Block, levels_dbfs

        for item in self.source:
            if isinstance(item, Block):
                if self.writer is not None:
                    self.writer.put(item)
                for k, db in enumerate(levels_dbfs(item.data)[: self.channels]):
                    if self.peaks[k] is None or db > self.peaks[k]:
                        self.peaks[k] = db
                self.heard_until = max(self.heard_until, item.offset + (item.index + len(item.data)) / item.rate)
                yield item
            else:
                self.statuses.put(item)


def _open_live_audio(tap_box: dict, warnings: list[str]):
    """Runs in the hearing thread: the tap (built beforehand), demixed when asked; either
    way its raw input is watched (a dead channel's ``lost`` status, clipping)."""
    tap, recording = tap_box["tap"], tap_box.get("demix_from")
    if recording is not None and tap.channels > 1:
        from audio.hearing import demixed_from

        try:
            source, onset, left = demixed_from(tap, recording, tap.channels, warnings, tap_box.get("measured"))
            source.residual_db = left
            return source, tap_box["heard_from"]
        except MediaError as exc:
            warnings.append(f"audio: {exc}; heard without cross-talk cancellation")
    from audio.watch import InputWatch

    watch = InputWatch(tap)  # not demixed, still watched: a dead channel is lost, clipping said
    watch.watch = watch
    return watch, tap_box["heard_from"]


def run_live(opts: LiveOptions, **kwargs) -> LiveResult:
    """Run one live session (:func:`_run_live`); a start that fails (no camera, no display)
    leaves no empty output folder behind — a folder holding a record is always kept."""
    made = not Path(opts.out).exists()
    try:
        return _run_live(opts, **kwargs)
    except BaseException:
        if made:
            _remove_empty(Path(opts.out))
        raise


def _remove_empty(folder: Path) -> None:
    """Remove ``folder`` and its sub-folders if they hold no file at all."""
    try:
        if any(p.is_file() for p in folder.rglob("*")):
            return
        for d in sorted((p for p in folder.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
            d.rmdir()
        folder.rmdir()
    except OSError:
        pass


def _run_live(opts: LiveOptions, *, extra_sinks: Sequence[Sink] = (), say: Callable[[str], None] = print,
              view_factory: Callable | None = None, selftest=None,
              setup_warnings_in: Sequence[str] = (), engines=None) -> LiveResult:
    """Run one live session until the recording ends, the table quits, or Ctrl-C.

    With ``selftest`` (:class:`referee.live.selftest.SelfTestParams`) it runs the pre-game
    self-test instead: the same sources and stages, no judging, the self-test's screen,
    until every seat passes (or :data:`SELFTEST_S`); the evaluation is in
    ``figures["selftest"]`` (a :class:`~referee.live.selftest.SelfTestResult`), its record in
    ``OUT/selftest/``.

    ``engines`` (:class:`referee.live.engines.LiveEngines`): the pose workers loaded once
    for the self-test, the session and the next games (the caller closes them); without,
    this session starts its own and stops them at its end."""
    return _LiveRun(opts, extra_sinks=extra_sinks, say=say, view_factory=view_factory, selftest=selftest,
                    setup_warnings_in=setup_warnings_in, engines=engines).run()


class _LiveRun:
    """One live session (:func:`_run_live`): what it holds, from the calibration's checks to
    the figures. :meth:`run` opens the views and the sources (:meth:`_prepare`), starts the
    stages and the session clock (:meth:`_start`), runs the session (the one driver,
    :class:`referee.pipeline.driver.Session`, over the live sources of
    :mod:`referee.live.sources`) until the end, then closes everything (:meth:`_close`)."""

    def __init__(self, opts: LiveOptions, *, extra_sinks: Sequence[Sink], say: Callable[[str], None],
                 view_factory: Callable | None, selftest, setup_warnings_in: Sequence[str], engines):
        self.opts, self.extra_sinks, self.say = opts, list(extra_sinks), say
        self.view_factory, self.selftest, self.setup_warnings_in = view_factory, selftest, setup_warnings_in
        self.own_engines = engines is None
        self.engines = engines
        self.job = self.stage = self.wav = self.pacer = self.setup = self.hearing = self.session = None
        self.frames = self.keys = None
        self.judgement = None
        self.figures: dict[str, Any] = {}
        self.warm = 0

    # ------------------------------------------------------------------ before the session
    def run(self) -> LiveResult:
        self._prepare()
        try:
            self._start()
            self.pipe.push("setup", [WarningEvent(t=0.0, message=w) for w in self.warnings])
            self.pipe.close("setup")
            self.session.run(stop=self._over)
        except KeyboardInterrupt as exc:  # (SIGTERM too: the CLI raises session.errors.Stopped for it)
            self.warnings.append(f"stopped by {getattr(exc, 'how', 'Ctrl-C')}")
        finally:  # every part stopped, started or not; a failure here never hides the first error
            self._close()
        return self._result()

    def _prepare(self) -> None:
        """The calibration checked, the output folder, the views, the sources (not started)
        and the sinks; nothing heavy runs yet."""
        from audio import capture
        from referee.preflight import check_live
        from referee.replay import ReplaySettings, table_mode

        opts = self.opts
        self.cal_path = Path(opts.calibration)
        self.settings = ReplaySettings(game=opts.game, mode=opts.mode, workers=opts.workers,
                                       pose_every=opts.pose_every, card_every=opts.card_every, model=opts.model,
                                       lang=opts.lang, enroll=opts.enroll, no_enroll=opts.no_enroll,
                                       demix=opts.demix, options=dict(opts.options))
        # the replay's checks (referee.preflight): the game, the zones, the references, the
        # output folder; a paced recording's size and sample rate (resampled to the calibration's)
        pre = self.pre = check_live(self.cal_path, opts.out, game=opts.game, video=opts.from_video, audio=opts.audio)
        cal = self.cal = pre.calibration
        self.setup_warnings: list[str] = list(pre.warnings)
        self.fps = cal.fps or 30.0
        if pre.video_info is not None:
            self.fps = pre.video_info.fps or self.fps
        self.game = cal.game
        self.mode = table_mode(opts.mode, cal)
        self.players = [s.name for s in cal.seats]
        # a table whose calibration gives no seat a microphone (TAKOYAKI, TORATANU, a teaching
        # camera) and no input named: the live path runs on silence, no audio interface needed
        self.silent = opts.audio is None and (opts.silent or opts.audio_device is None and cal.seat_channels is None)
        # the microphones' device before any folder or window: no input is one line, nothing left behind
        self.device = capture.device_info(opts.audio_device) if opts.audio is None and not self.silent else None
        out = self.out = Path(opts.out) / "selftest" if self.selftest is not None else Path(opts.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise MediaError(f"cannot create the output folder {out}: {exc.strerror}") from None
        self._open_view()
        self._open_audio()
        self._open_camera()
        # (what this table needs: no hearing without microphones, no pose for a card-only game)
        loading = [part for part, needed in (("hearing", not self.silent), ("pose", bool(live_layout(cal, self.game).seats)),
                                             ("the card zones", True)) if needed]
        what = " and ".join([", ".join(loading[:-1]), loading[-1]] if len(loading) > 1 else loading)
        self.say(f"referee: live {self.game}{' ' + self.mode if self.mode else ''} · {', '.join(self.players)} · "
                 f"loading {what} …")
        self._make_pipeline()

    def _open_view(self) -> None:
        """The views first: a window without a display fails before anything heavy starts."""
        from referee.live.controls import Controls
        from referee.live.state import LiveState

        opts, cal, players = self.opts, self.cal, self.players
        self.state = LiveState(cal, voice=opts.voice_note)
        self.controls = Controls(players)
        self.check = SelfTestSink(players, {s.name: s.channel for s in cal.seats}, self.selftest) \
            if self.selftest else None
        check = self.check
        if self.view_factory is not None:
            self.view = self.view_factory(self.state, self.controls)
        elif opts.window:
            from referee.live.window import LiveWindow, WindowParams

            self.view = LiveWindow(self.state, self.controls, WindowParams(hold_s=opts.hold_s),
                                   check.image if check else None).open()
        else:
            from referee.live.terminal import TerminalView

            self.view = TerminalView(self.state, self.controls, renderer=check.text if check else None).open()

    def _open_audio(self) -> None:
        """The microphones (or a paced recording), not started: they wait for the session start."""
        from audio import capture
        from referee.replay import hearing_plan

        opts, cal, cal_path = self.opts, self.cal, self.cal_path
        self.statuses: queue.Queue = queue.Queue()
        self.gate = threading.Event()
        if opts.audio is not None:
            factory = capture.PacedStreamFactory(opts.audio, rate=self.pre.audio_rate, **opts.audio_faults)
            rate, channels = factory.rate, factory.channels
            heard_from, demix_from = Path(opts.audio), Path(opts.audio) if opts.demix else None
            measured = None  # (the calibration's stored leakage of its recording, audio.leakage)
            if opts.demix and cal.audio is not None and getattr(cal.audio, "file", None):  # as the replay: the
                rec = Path(cal.audio.file)  # calibration's leakage (a dead seat's fingerprint), not the session's
                rec = rec if rec.is_absolute() else cal_path.parent / rec
                demix_from = rec if rec.is_file() else demix_from
                measured = cal.audio.leakage if demix_from == rec else None
        elif self.silent:
            info = self.pre.video_info  # (a paced recording: silence as long as it, so the session ends with it)
            seconds = (info.duration or (info.frames or 0) / (info.fps or 30.0)) if info is not None else None
            factory = capture.silence(cal.audio.rate if cal.audio is not None and cal.audio.rate else 16000, seconds)
            rate, channels = factory.rate, factory.channels
            heard_from = demix_from = measured = None
        else:
            factory = None
            channels, rate = self.device
            used = cal.seat_channels
            if used is not None and channels > used:  # an interface with more inputs: the seats' only (see replay)
                self.setup_warnings.append(f"audio: the input has {channels} channels, the calibration's seats are "
                                           f"on 0-{used - 1}: only those are heard")
                channels = used
            if cal.audio is not None and cal.audio.rate:
                rate = cal.audio.rate
            heard_from = None
            demix_from = measured = None
            if opts.demix and cal.audio is not None and getattr(cal.audio, "file", None):
                demix_from = Path(cal.audio.file)
                if not demix_from.is_absolute():
                    demix_from = cal_path.parent / demix_from
                measured = cal.audio.leakage
        self.factory, self.rate, self.channels = factory, rate, channels
        self.heard_from, self.demix_from, self.measured = heard_from, demix_from, measured
        self.source = capture.LiveSource(opts.audio_device, channels, rate, factory=factory, session_start=0.0)
        self.tap = _Tap(self.source, self.gate, self.statuses)
        self.plan = hearing_plan(cal, self.game, self.mode, self.settings, cal_path)

    def _open_camera(self) -> None:
        """The camera (or a paced recording), not started."""
        from vision import camera as cam_mod

        opts, cal = self.opts, self.cal
        catch = opts.catch_up
        # the camera's ring holds what a stall's catch-up reaches back to
        cam_params = cam_mod.CameraParams(ring=max(cam_mod.CameraParams().ring, catch.ring_frames(self.fps))) \
            if catch is not None else cam_mod.CameraParams()
        if opts.from_video is not None:
            from vision.paced_camera import PacedFakeCamera

            self.fake = PacedFakeCamera(opts.from_video, **opts.camera_faults)
            self.camera = cam_mod.Camera("recording", opener=self.fake.opener, params=cam_params)
        else:
            self.fake = None
            self.camera = cam_mod.Camera(opts.camera, opener=functools.partial(
                cam_mod.cv2_opener, size=(cal.width, cal.height), fps=cal.fps), params=cam_params)

    def _make_pipeline(self) -> None:
        """The sinks (the record, the recordings, the view, the figures) and the pipeline."""
        from referee.live.engines import LiveEngines
        from referee.live.media import VideoWriter
        from referee.live.state import scoreboard
        from referee.pipeline.core import Pipeline
        from referee.pipeline.sinks import CollectSink

        self.engines = self.engines or LiveEngines()
        self.session_clock = {"start": None}
        clock = self.session_clock
        self.record_sink = RecordSink(self.out / "session.jsonl", said_at=lambda: (
            None if clock.get("start") is None else round(time.monotonic() - clock["start"], 4)))
        self.video_sink = VideoWriter(self.out / "video.mp4", fps=self.fps)
        self.collect = CollectSink()
        self.probe = LatencyProbe()
        self.sinks = [self.record_sink, self.video_sink, self.collect, self.probe, self.view,
                      *self.extra_sinks] + ([self.check] if self.check else [])
        pipe = self.pipe = Pipeline(STREAMS, self.sinks, options={}, judge=self.selftest is None)
        self.state.scores_from = lambda: scoreboard(pipe.judge)  # the scoreboard is the judge's
        # the prompts' options
        self.controls.judge_state = lambda: pipe.judge.state if pipe.judge is not None else None
        self.warnings = list(self.setup_warnings) + list(self.setup_warnings_in)

    def _start(self) -> None:
        """The stages loaded and warmed up, then the session clock starts for the camera,
        the microphones and the keys."""
        from referee.live.media import WavWriter
        from referee.live.pacing import PoseRate
        from referee.pipeline.hearing import HearingJob
        from referee.pipeline.vision import VisionStage

        opts = self.opts
        # the stage first: it reads the card references, and a damaged one is then said before
        # the hearing starts (a thread, which cannot be stopped while its model loads)
        room = bool(self.cal.extra.get("room_microphone"))
        stage = self.stage = VisionStage(live_layout(self.cal, self.game), fps=self.fps, workers=0,
                                         card_every=opts.card_every, pose_every=opts.pose_every,
                                         pipeline=LIVE_PIPELINE if opts.workers > 0 else 0,
                                         mouths=LIVE_MOUTH_EVERY if room else 0)
        # hearing in a thread (not a process): the tap, the levels and the gate are shared objects
        self.job = HearingJob(False, functools.partial(_open_live_audio, {
            "tap": self.tap, "heard_from": self.heard_from, "demix_from": self.demix_from,
            "measured": self.measured}), self.plan,
            batch_s=HEARING_BATCH_S, at_once=SHOUTS_AT_ONCE)
        # the pose workers load while the speech model does
        if opts.workers > 0 and stage.tw.seats:  # the pose workers: loaded once, lent to each session
            stage.tw.workers = self.engines.lend(stage.tw, opts.workers)
        # the card zones on a thread of their own: recognising a new card no longer stalls the
        # loop (and the seats' frames) just when the players react (vision.table.CardThread)
        if opts.card_thread:
            stage.tw.start_card_thread()
        # (no seats, no pose: no stride to adapt, no "pose every n frames" warnings)
        pacer = self.pacer = PoseRate(opts.pose_every, opts.pose_rate) \
            if opts.pose_rate is not None and stage.tw.seats else None
        if pacer is not None and pacer.every != opts.pose_every:
            set_pose_every(stage, pacer.every)
        self.hearing = HearingSource(self.job, self.warnings.append, keep=self.keep, say_warnings=False,
                                     on_heard=self._heard, unheard=self._unheard,
                                     on_timings=self.probe.hearing_times)
        self.setup = self._wait_setup()
        # (every stride the pose rate may take: a replay following the record's stride changes
        # then analyses the same frames after each change too)
        strides = pacer.rungs() + [pacer.every] if pacer is not None else [opts.pose_every]
        self.warm, self.figures["warm_up_s"] = warm_up(stage, first_image(opts, self.camera, self.cal), self.fps,
                                                        math.lcm(opts.card_every, *strides))
        # ---- the session starts now: one clock for the camera, the microphones and the keys
        start = self.start = time.monotonic()
        self.camera.start = start
        self.source.session_start = start
        if self.fake is not None:
            self.fake.t0 = start
        if self.factory is not None:
            self.factory.t0 = start
        self.wav = WavWriter(self.out / "seats.wav", self.rate, self.channels)
        self.tap.writer = self.wav
        self.gate.set()
        if opts.from_video is not None:  # (a real camera is already open: it gave the warm-up image)
            self.camera.open()
        self.probe.start_clock(start)
        for s in self.extra_sinks:  # (the voice times its sounds on the session clock)
            if hasattr(s, "start_clock"):
                s.start_clock(start)
        self.session_clock["start"] = start
        self.last_status = 0.0
        self._make_session(start)

    def _make_session(self, start: float) -> None:
        """The live sources in the order a round polls them, and the one driver over them:
        the pacing (the camera's next frame), the hearing, the devices' status, the frames
        through the vision stage, the keys; the status after each round."""
        from referee.live import sources
        from referee.pipeline.driver import Session

        opts, probe = self.opts, self.probe
        clock = self.clock = sources.RoundClock(start)
        pacing = sources.Pacing(self.camera, clock, woken=self.job.has_shout if self.job is not None else None)
        self.devices = sources.DeviceStatus(self.camera, self.tap, self.source, self.statuses, clock,
                                            self.warnings.append, self.hearing, probe.marks)
        # the stage's frame count goes on from the warm-up's
        self.frames = sources.CameraFrames(pacing, self.stage, clock, probe, catch_up=opts.catch_up, pacer=self.pacer,
                                           pose_rate=opts.pose_rate, keep=self.keep, warn=self.warnings.append,
                                           processed=self.warm)
        self.keys = sources.Keys(self.view, clock)
        self.session = Session(self.pipe, [pacing, self.hearing, self.devices, self.frames, self.keys],
                               self._header_when_spoken, after_round=self._after_round)

    def _wait_setup(self):
        """The hearing job's setup message (the speech model loaded), or its error."""
        while self.hearing.ready is None:
            self.pipe.push("hearing", [e for b in self.hearing.take(self.job.wait_one(timeout=1.0))
                                       for e in b.events])
        return self.hearing.ready

    # ------------------------------------------------------------------ the session
    def now(self) -> float:
        return time.monotonic() - self.start

    def _header_when_spoken(self) -> SessionHeader | None:
        """The header once the camera and the microphones have spoken (or 3 s have passed)."""
        t_now = self.clock.t
        if (self.camera.captured > 0 or t_now > 3.0) and (self.source.blocks > 0 or t_now > 3.0):
            return self.make_header()
        return None

    def make_header(self) -> SessionHeader:
        opts, setup, pacer = self.opts, self.setup, self.pacer
        source_info = {"live": True, "camera": str(opts.from_video.name if opts.from_video else opts.camera),
                       "audio": "none (no seat has a microphone)" if self.silent else
                       str(self.heard_from.name if self.heard_from else opts.audio_device),
                       "calibration": self.cal_path.name, "paced": opts.from_video is not None,
                       # (the stride it starts at: the pose rate keeps it within its bounds)
                       "pose_every": pacer.every if pacer is not None else opts.pose_every,
                       "card_every": opts.card_every,
                       "pose_rate": (dataclasses.asdict(opts.pose_rate) if opts.pose_rate is not None
                                     else "fixed"),
                       "enrolled": setup.enrolled}
        if setup.enrolled_by is not None:  # which enrolled verifier heard the words (audio.voices)
            source_info["enrolled_by"] = setup.enrolled_by
        clocks = {"session": "time.monotonic() at the session start", "video": self.camera.clock_info(),
                  "audio": self.source.clock_info(), "av_offset_ms": None}
        return SessionHeader(t=0.0, game=self.game, mode=self.mode, players=tuple(self.players),
                             options=dict(opts.options), extra={"source": source_info, "clocks": clocks})

    def keep(self, ev: Event) -> bool:
        if ev.t < 0:  # from the warm-up frames, before the session
            return False
        return self.keys is None or self.keys.paused_at is None or isinstance(ev, StatusEvent)

    def _heard(self, events: list[Event], watermark: float) -> None:
        """What hearing found, for the figures and on screen as soon as it is heard."""
        self.probe.found(events)
        self.probe.marks["hearing"] = watermark
        self.view.seen(events)

    def _unheard(self, done) -> list[Event]:
        if done.error is not None:
            self.warnings.append(f"audio: {done.error}")
        return []

    def _after_round(self) -> None:
        t_now = self.clock.t
        if t_now - self.last_status >= STATUS_EVERY_S:
            self._status(t_now)

    def _over(self) -> bool:
        """The session is over: the table quit, the recording ended, --max-seconds, the self-test done."""
        t_now, opts = self.clock.t, self.opts
        if self.keys.quit_asked or (self.camera.ended and self.hearing.done):
            return True  # (a real camera never ends: the table quits)
        if opts.max_seconds is not None and t_now > opts.max_seconds:
            return True
        return self.check is not None and (self.check.done(t_now) or t_now > SELFTEST_S)

    def _status(self, t_now: float) -> None:
        pipe = self.pipe
        self.last_status = t_now
        self.probe.mark_lags(t_now)
        self.probe.vision_parts(t_now, self.stage.tw)
        pipe.status({"camera": self.camera.status(), "levels": list(self.source.levels), "peaks": list(self.tap.peaks),
                     "now": t_now,
                     "lag_ms": round((t_now - pipe.watermark) * 1000) if pipe.header is not None and pipe.watermark > -1e9
                     else None})

    # ------------------------------------------------------------------ the end
    def _close(self) -> None:
        """Every part stopped, started or not; a failure here never hides the first error.
        The vision stage's last events and the hearing's last words go in before the judge
        finishes."""
        stage, pipe, job = self.stage, self.pipe, self.job
        try:
            close_all(self.camera.close, self.source.stop, self.tap.close)
            try:
                if stage is not None and pipe.header is not None:
                    pipe.push("vision", stage.finish())
            finally:
                close_all(stage is not None and stage.close, self.own_engines and self.engines.close)
            if pipe.header is not None:
                pipe.close("vision")
                if self.hearing is not None:
                    self.session.take(self.hearing.take(_wait_done(job, timeout=10.0)))
                self.judgement = pipe.finish()
        finally:
            close_all(job is not None and job.close, *(functools.partial(_close_sink, s) for s in self.sinks),
                      self.wav is not None and self.wav.close)

    def _result(self) -> LiveResult:
        """The figures (``OUT/live-figures.json``) and what the session produced."""
        import json

        figures, out = self._figures(), self.out
        if self.video_sink.error:
            self.warnings.append(self.video_sink.error)
        if self.wav is not None and self.wav.error:
            self.warnings.append(self.wav.error)
        try:
            (out / "live-figures.json").write_text(json.dumps(figures, indent=1, sort_keys=True, default=str) + "\n")
        except OSError:
            pass
        return LiveResult(out=out, record=out / "session.jsonl", video=out / "video.mp4", audio=out / "seats.wav",
                          judgement=self.judgement, lines=list(self.collect.lines), warnings=self.warnings,
                          figures=figures, new_game=self.keys is not None and self.keys.new_game)

    def _figures(self) -> dict[str, Any]:
        import os

        opts, figures, pipe = self.opts, self.figures, self.pipe
        figures.update(self.camera.status())
        frames = self.frames
        figures["processed"] = frames.processed - self.warm if frames is not None else 0
        figures["warm_up_frames"] = self.warm
        figures["caught_up"] = frames.caught_up if frames is not None else 0
        if self.check is not None:
            figures["selftest"] = self.check.result()
        figures["latency"] = self.probe.figures()
        cards_thread = getattr(getattr(self.stage, "tw", None), "card_thread", None)
        if cards_thread is not None:  # the most frames that waited for the card zones' thread
            figures["card_backlog_max"] = cards_thread.backlog_max
            figures["card_frames_unanalysed"] = cards_thread.unanalysed  # (a full backlog: kept, not analysed)
        for s in self.extra_sinks:  # "sound starts": the voice's first sample handed to the output
            sound = s.sound_figures() if hasattr(s, "sound_figures") else None
            if sound is not None:
                figures["sound_ms"] = sound
        pacer = self.pacer
        figures["pose_every"] = {"start": opts.pose_every, "end": pacer.every if pacer is not None else opts.pose_every,
                                 "changes": list(pacer.changes) if pacer is not None else []}
        figures["pose_workers"] = {"started": self.engines.started, "reused": self.engines.reused}
        figures["load"] = [round(x, 2) for x in os.getloadavg()]
        wav = self.wav
        figures.update(audio_clock=self.source.clock, audio_blocks=self.source.blocks,
                       video_written=self.video_sink.written, video_dropped=self.video_sink.dropped,
                       wav_seconds=round(wav.samples / self.rate, 2) if wav else 0.0, late=len(pipe.late),
                       late_events=[{"stream": st, "type": ev.type, "t": ev.t,
                                     **({"player": ev.player} if getattr(ev, "player", None) else {})}
                                    for st, ev in pipe.late[:10]])
        return figures


def live_layout(cal, game: str):
    """The camera's layout live (:func:`referee.pipeline.vision.table_layout`, as replay): no
    seats, hence no pose workers and no hand events, for a game whose verdicts use no hands
    (``rules.Game.uses_hands``: TAKOYAKI, Sea Salt & Paper, TORATANU) — unless the calibration
    hears the words on one room microphone (``extra.room_microphone``), where the seats' hands
    and mouths say who spoke."""
    from referee.pipeline.vision import table_layout

    return table_layout(cal, game, room=bool(cal.extra.get("room_microphone")))


def _close_sink(sink: Sink) -> None:
    """A sink's close, whose failure is not the run's (a window already gone, the voice's
    device unplugged): the record and the verdicts are kept all the same."""
    try:
        sink.close()
    except Exception:
        pass


def _wait_done(job, timeout: float) -> list:
    out, deadline = [], time.monotonic() + timeout
    while not job.finished and time.monotonic() < deadline:
        out += job.wait_one(timeout=0.5)
    return out

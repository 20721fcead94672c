"""Replay a recorded session: video + per-seat audio + calibration -> record, verdicts, report.

One clock: video frames carry their PTS (``vision.video.read_frames``), audio samples their
index (``audio.capture.FileSource``); both count from the start of their file, so a WAV
recorded together with the video (or the video's own audio track) shares the frame clock.

Pipeline (bounded queues where it helps; every part on its own core where there is one):

- a *reader* thread decodes frames (PyAV, FFmpeg's own threads, outside the GIL) into a
  queue of :data:`QUEUE_FRAMES`;
- the *processor* (this thread) runs ``vision.table.TableWatcher``: it copies each frame
  into a shared-memory ring, watches the card zones, and collects the hands from the *seat
  worker processes* (``vision.parallel.SeatWorkers``: each owns whole seats — pose, arm
  state and the full-rate re-analysis around hand changes) with :data:`PIPELINE` frames in
  flight, so decoding, cards and pose run at the same time;
- the *audio* runs in a process of its own (``--workers 0``: a thread), started first:
  cross-talk cancellation, onsets, Vosk and the enrolled-voice verifier over the seats'
  channels (``_hear``); its setup warnings are given after the video (t = 0 in the record);
- the *writer* merges all event streams in time order into ``session.jsonl`` through
  :class:`session.record.RecordWriter` (flushed per event); the record is judged like any
  other record (``referee.judge``) and the dispute report drawn (:mod:`referee.report`).

Why (measured on the 4-seat demo, 37 s): before, one core was busy although there were 2
pose workers: the replay waited for the workers on every frame (no frames in flight); with
staggered pose the two workers' seats were due on alternate frames (round-robin groups
[0, 2], [1, 3] vs phases 0-3), so one worker idled while the other ran; the re-analysis
ran in the main process; and the audio thread shared the main process's GIL with decoding
and the cards.

Decisions (the spec is silent):
- Bad input that leaves something to judge is a warning, and the record says what was
  skipped with ``skipped`` events (``what``: ``audio``/``video``, ``from``/``to`` in
  session seconds, ``reason``) and ``warning`` events (``message``); the judge ignores both
  (unknown types). Bad input that leaves nothing sensible (a calibration for another game
  or another resolution, an unreadable video) is one :class:`RefereeError`.
- No audio (no ``--audio`` and no track in the video): replay goes on with hands and cards
  only; every required call is then "missed" — the report says why at the top.
- A card code of the game's deck without a reference image cannot be seen: a warning per
  missing code, replay goes on.
- Defaults for speed (measured on the 4-seat demo, ``benchmarks/bench_replay.py``): 2 seat
  worker processes, pose on every 8th frame per seat (seats staggered; the frames around
  each hand change are re-analysed at full rate, so onsets keep full-rate timing: 44/44 demo
  hand changes within 5 ms at 8 as at 2), card zones every 2nd frame (timing stays
  full-rate by the ring-buffer walk-back; every 3rd-6th costs *more*, the walk-back grows).
  Cost of every 8th: a hand must stay up about 9 frames (0.3 s) and down about 16 frames
  (0.55 s) to be seen, and is known up to ~0.6 s after it happened (its time unchanged).
  Pose is 19 ms CPU per seat crop whatever the crop size (MediaPipe resizes to 256x256),
  so smaller crops save nothing; fewer pose runs do: CPU 64 s at every 2nd, 38 s at 8th.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from session.errors import CalibrationError, MediaError, RefereeError
from session.order import sort_key
from session.record import RecordWriter, read_record

#: frames decoded ahead of the watcher (memory: ~2.7 MB each at 1280x720)
QUEUE_FRAMES = 8
#: frames in flight to the seat workers (``TableWatcher`` pipeline): decoding and the card
#: zones run ahead while the workers analyse; hand events are known this many frames later
#: (their times unchanged). Deep enough that a re-analysis burst in one worker (9 pose runs
#: at every 8th frame) does not stall the other. Memory: this many + 2 frames in shared
#: memory (2.8 MB each at 720p: 50 MB)
PIPELINE = 16
#: audio that ends this many seconds before the video is reported as skipped
AUDIO_SHORT_S = 0.5


@dataclass
class ReplaySettings:
    """How to replay: vision speed knobs, audio model, enrollment, outputs."""

    game: str | None = None
    mode: str | None = None
    workers: int = 2
    pose_every: int = 8
    card_every: int = 2
    model: str | None = None
    lang: str = "ja"
    enroll: Path | None = None  # overrides the calibration's ``enroll`` folder
    no_enroll: bool = False
    demix: bool = True  # cancel seat-to-seat cross-talk (audio.demix) before hearing
    video: bool = False
    report: bool = True
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Replay:
    """Everything one replay produced (paths, the judgement, the evidence for the report)."""

    video: Path
    audio: Path | None
    out: Path
    record: Path
    header: dict
    events: list[dict]
    judgement: Any
    landmarks: dict[str, list[tuple[float, dict]]]
    warnings: list[str]
    duration: float
    elapsed: dict[str, float]
    report: Path | None = None
    annotated: Path | None = None
    calibration: Any = None
    enrolled: bool = False
    #: per-stage figures for the benchmark: seconds of wall time or CPU (``*_cpu``), pose
    #: inferences and re-analysed frames, CPU per seat worker
    stats: dict[str, Any] = field(default_factory=dict)


def _reader(path: Path, q: queue.Queue, skipped: list[str], stop: threading.Event,
            cpu: list[float] | None = None) -> None:
    from vision.video import read_frames

    c0 = time.thread_time()
    try:
        for fr in read_frames(path, skipped):
            while not stop.is_set():
                try:
                    q.put(fr, timeout=0.2)
                    break
                except queue.Full:
                    continue
            if stop.is_set():
                return
        q.put(None)
    except BaseException as exc:  # handed to the processor, raised there
        q.put(exc)
    finally:
        if cpu is not None:
            cpu[0] = time.thread_time() - c0


class _ThreadSink:
    def __init__(self, q: queue.Queue):
        self.q = q

    def send(self, msg) -> None:
        self.q.put(msg)

    def close(self) -> None:
        pass


def _hear(sink, video: Path, audio: Path | None, cal_path: Path, game: str, mode: str | None,
          settings: ReplaySettings) -> None:
    """The audio half of a replay (a process of its own, or a thread): sends ``("setup",
    {...})`` once the source and the listener are ready, then ``("done", {...})`` with the
    shout events; a setup failure is ``("fatal", error)``. A read error mid-way ends hearing
    with the events so far (``error``)."""
    from audio import hearing
    from session.calibration import load

    stats: dict[str, float] = {}
    c0, t0 = time.process_time(), time.perf_counter()
    try:
        cal = load(cal_path)
        warnings: list[str] = []
        plan = hearing_plan(cal, game, mode, settings, cal_path)
        source, heard_from = hearing.open_source(video, audio, warnings, demix=plan.demix)
        stats["audio_demix"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        listener, names, enrolled = None, list(plan.names), False
        if source is not None:
            listener = hearing.make_listener(plan, source, warnings)
            enrolled = listener is not None and listener.verifier is not None
        stats["audio_setup"] = time.perf_counter() - t1
    except BaseException as exc:
        _send_error(sink, "fatal", exc)
        return
    sink.send(("setup", {"warnings": warnings, "heard_from": heard_from, "names": names, "enrolled": enrolled,
                         "listened": source is not None and listener is not None}))
    events: list[dict] = []
    end = [0.0]
    error = None
    t2 = time.perf_counter()
    if source is not None and listener is not None:
        try:
            for b in _blocks_with_end(source, end):
                events.extend(listener.update(b))
            events.extend(listener.close_window())
        except BaseException as exc:  # reported after the video
            error = exc
    stats["audio_listen"] = time.perf_counter() - t2
    stats["audio_cpu"] = time.process_time() - c0
    done = {"events": events, "end": end[0], "error": None,
            "source_warning": getattr(source, "warning", None) if source is not None else None, "stats": stats}
    if error is not None:
        _send_error(sink, "done", error, done)
    else:
        sink.send(("done", done))


def _send_error(sink, kind: str, exc: BaseException, done: dict | None = None) -> None:
    import pickle
    import traceback

    try:
        pickle.dumps(exc)
    except Exception:
        exc = RuntimeError("".join(traceback.format_exception(exc)))
    sink.send((kind, exc) if done is None else (kind, dict(done, error=exc)))


def _hear_process(conn, *args) -> None:
    try:
        _hear(conn, *args)
    finally:
        conn.close()


class _AudioJob:
    """The audio half running beside the video: a spawned process (``process``; the default
    with pose workers, so hearing takes a core of its own instead of contending with
    decoding for this process's GIL) or a thread (``--workers 0``: several sessions at once,
    one process each)."""

    def __init__(self, process: bool, *args):
        self.proc = self.thread = None
        self.finished = False
        if process:
            import multiprocessing as mp

            ctx = mp.get_context("spawn")
            self.conn, child = ctx.Pipe(duplex=False)
            self.proc = ctx.Process(target=_hear_process, args=(child, *args), name="replay-audio", daemon=True)
            self.proc.start()
            child.close()
        else:
            self.q: queue.Queue = queue.Queue()
            self.thread = threading.Thread(target=_hear, args=(_ThreadSink(self.q), *args), name="replay-audio",
                                           daemon=True)
            self.thread.start()

    def _get(self, timeout: float | None):
        if self.proc is not None:
            if timeout is not None and not self.conn.poll(timeout):
                return None
            try:
                return self.conn.recv()
            except (EOFError, OSError):
                return ("fatal", RefereeError("the audio process stopped unexpectedly"))
        try:
            return self.q.get(timeout=timeout) if timeout is None or timeout > 0 else self.q.get_nowait()
        except queue.Empty:
            return None

    def poll(self) -> list:
        """Messages ready now (never waits)."""
        return self._messages(0)

    def wait(self) -> list:
        """The remaining messages, waiting for the end of hearing."""
        return self._messages(None)

    def _messages(self, timeout: float | None) -> list:
        out = []
        while not self.finished:
            msg = self._get(timeout)
            if msg is None:  # nothing ready (only when not waiting)
                break
            out.append(msg)
            self.finished = msg[0] in ("done", "fatal")
        return out

    def close(self) -> None:
        if self.proc is not None:
            self.proc.join(timeout=0 if not self.finished else 5)
            if self.proc.is_alive():
                self.proc.terminate()
                self.proc.join(timeout=5)
            self.conn.close()


def check_inputs(video: Path, cal, settings: ReplaySettings) -> tuple[Any, list[str]]:
    """Probe the video against the calibration; returns (VideoInfo, warnings)."""
    from vision.video import probe

    warnings: list[str] = []
    if settings.game and settings.game != cal.game:
        raise CalibrationError(
            f"the calibration is for {cal.game}, not {settings.game}: calibrate this table for {settings.game} "
            f"(referee calibrate --game {settings.game}) or replay with --game {cal.game}")
    info = probe(video)
    if (info.width, info.height) != (cal.width, cal.height):
        raise CalibrationError(
            f"{video} is {info.width}x{info.height} but the calibration is for {cal.width}x{cal.height}: "
            "its zones and seat boxes would be in the wrong place; calibrate at this resolution")
    if cal.card_zones and cal.references is not None:
        deck = set(_deck_codes(cal.game))
        have = {p.stem.split("_")[0] for p in Path(cal.references).iterdir() if p.is_file()}
        missing = sorted(deck - have)
        if missing:
            warnings.append(
                f"references: no image for card(s) {', '.join(missing)} in {cal.references}: "
                "those cards cannot be recognised (add CODE.png and replay again)")
    return info, warnings


def _deck_codes(game: str) -> list[str]:
    import importlib

    try:
        mod = importlib.import_module(f"rules.{game}")
    except ImportError:
        return []
    deck = getattr(mod, "DECK", None) or getattr(mod, "CARDS", None) or {}
    return [str(c) for c in deck]  # a game without a deck list: nothing to check


def hearing_plan(cal, game: str, mode: str | None, settings: ReplaySettings, cal_path: Path):
    """The calibration's audio side as plain inputs for :mod:`audio.hearing`."""
    from audio.hearing import HearingPlan

    leak = cal.audio.crosstalk_db if getattr(cal, "audio", None) is not None else None
    audio = cal.extra.get("audio")
    if leak is None and isinstance(audio, dict):
        leak = audio.get("crosstalk_db")  # a v1 file's extra key
    folder = settings.enroll
    if folder is None and not settings.no_enroll and cal.extra.get("enroll"):
        folder = Path(cal.extra["enroll"])
        if not folder.is_absolute():
            folder = cal_path.parent / folder
    return HearingPlan(game=game, mode=mode, channels={s.name: s.channel for s in cal.seats if s.channel is not None},
                       names=tuple(s.name for s in cal.seats), crosstalk_db=leak,
                       enroll=None if settings.no_enroll else folder, model=settings.model, lang=settings.lang,
                       demix=settings.demix)


def replay(video: str | Path, calibration: str | Path, *, audio: str | Path | None = None,
           out: str | Path, settings: ReplaySettings | None = None,
           on_progress: Callable[[int, int], None] | None = None,
           on_warning: Callable[[str], None] | None = None) -> Replay:
    """Replay one session into ``out`` (created): ``session.jsonl``, ``report.html``
    (and ``annotated.mp4`` with ``settings.video``)."""
    from session.calibration import load
    from referee.judge import judge
    from vision.table import TableWatcher

    settings = settings or ReplaySettings()
    video, cal_path = Path(video), Path(calibration)
    audio = Path(audio) if audio is not None else None
    out = Path(out)
    warnings: list[str] = []

    def warn(msg: str) -> None:
        warnings.append(msg)
        if on_warning is not None:
            on_warning(msg)

    t_start = time.perf_counter()
    cal = load(cal_path)
    info, ws = check_inputs(video, cal, settings)
    for w in ws:
        warn(w)
    game = cal.game
    mode = settings.mode or cal.extra.get("mode") or ("versus" if game == "ikatako" else None)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MediaError(f"cannot create the output folder {out}: {exc.strerror}") from None

    setup_warnings = list(warnings)  # known before the first frame: recorded at t = 0

    # ---- audio: its own process (or a thread with --workers 0), started first
    job = _AudioJob(settings.workers > 0, video, audio, cal_path, game, mode, settings)
    heard: dict | None = None

    def take(msg) -> None:
        nonlocal heard
        kind = msg[0]
        if kind == "fatal":
            raise msg[1]
        if kind == "setup":
            heard = dict(msg[1])
        elif kind == "done":
            assert heard is not None
            heard.update(msg[1])

    # ---- video: reader thread -> bounded queue -> watcher (seat worker processes)
    skipped_frames: list[str] = []
    q: queue.Queue = queue.Queue(maxsize=QUEUE_FRAMES)
    stop = threading.Event()
    decode_cpu = [0.0]
    reader = threading.Thread(target=_reader, args=(video, q, skipped_frames, stop, decode_cpu),
                              name="replay-reader", daemon=True)
    vision_events: list[dict] = []
    names_v = [s.name for s in cal.seats]
    landmarks: dict[str, list[tuple[float, dict]]] = {n: [] for n in names_v}
    last_t, frames, seen_w, seen_skips = 0.0, 0, 0, 0
    skip_events: list[dict] = []
    total = info.frames or 0
    stats: dict[str, Any] = {}
    tw = None
    try:
        tw = TableWatcher(cal, workers=settings.workers, card_every=settings.card_every,
                          pose_every=settings.pose_every, pipeline=PIPELINE if settings.workers > 0 else 0,
                          keep_landmarks=True)
        reader.start()
        t_video = time.perf_counter()

        def keep(got) -> None:
            for e in got:
                vision_events.append(e.to_dict())
            for t, player, lm in tw.seen:
                landmarks[player].append((t, lm.to_dict()))
            tw.seen.clear()

        while True:
            for msg in job.poll():
                take(msg)
            item = q.get()
            if item is None:
                break
            if isinstance(item, BaseException):
                if isinstance(item, RefereeError) and frames > 0:
                    warn(f"{item}; the rest of the video is skipped")
                    skip_events.append({"t": round(last_t, 6), "type": "skipped", "what": "video",
                                        "from": round(last_t, 6), "to": info.duration, "reason": str(item)})
                    break
                raise item
            try:
                keep(tw.update(item))
            except (BrokenPipeError, EOFError, ConnectionResetError) as exc:
                raise RefereeError(f"a pose worker process stopped at frame {item.index} ({exc}); "
                                   "replay with --workers 0 to run pose in this process") from None
            while seen_skips < len(skipped_frames):
                msg = skipped_frames[seen_skips]
                seen_skips += 1
                warn(msg)
                skip_events.append({"t": round(last_t, 6), "type": "skipped", "what": "video",
                                    "from": round(last_t, 6), "to": round(item.t, 6), "reason": msg})
            ws = tw.warnings
            for w in ws[seen_w:]:
                warn(w)
                vision_events.append({"t": round(item.t, 6), "type": "warning", "message": w})
            seen_w = len(ws)
            last_t = item.t
            frames += 1
            if on_progress is not None:
                on_progress(frames, total)
        keep(tw.finish())
        elapsed_video = time.perf_counter() - t_video
        t_wait = time.perf_counter()
        for msg in job.wait():
            take(msg)
        stats["audio_wait"] = time.perf_counter() - t_wait
    finally:
        stop.set()
        job.close()
        if tw is not None:
            tw.close()
    reader.join(timeout=5)
    stats.update(decode_cpu=decode_cpu[0], cards=tw.card_seconds, **tw.pose_stats())
    frame_dt = 1.0 / (info.fps or 30.0)
    duration = round(last_t + frame_dt, 6)
    assert heard is not None
    for w in heard["warnings"]:  # known before the first sample: recorded at t = 0
        warn(w)
        setup_warnings.append(w)
    heard_from, names, enrolled = heard["heard_from"], heard["names"], heard["enrolled"]
    audio_events = heard.get("events", [])
    stats.update(heard.get("stats", {}))
    if heard.get("source_warning"):
        warn(f"audio: {heard['source_warning']}")
    audio_end = heard.get("end", 0.0)
    if heard.get("error") is not None:
        exc = heard["error"]
        if not isinstance(exc, RefereeError):
            raise exc
        warn(f"audio: {exc}; shouts after {audio_end:.2f} s are not heard")
        skip_events.append({"t": round(audio_end, 6), "type": "skipped", "what": "audio", "from": round(audio_end, 6),
                            "to": duration, "reason": str(exc)})
    elif not heard["listened"]:
        skip_events.append({"t": 0.0, "type": "skipped", "what": "audio", "from": 0.0, "to": duration,
                            "reason": "no audio: shouts are not heard"})
    elif audio_end < duration - AUDIO_SHORT_S:
        msg = (f"audio {heard_from} ends at {audio_end:.2f} s, the video at {duration:.2f} s: "
               "shouts after the audio's end are not heard")
        warn(msg)
        skip_events.append({"t": round(audio_end, 6), "type": "skipped", "what": "audio",
                            "from": round(audio_end, 6), "to": duration, "reason": msg})
    header = {"t": 0.0, "type": "session", "game": game, "players": names,
              "options": dict(settings.options)}
    if mode is not None:
        header["mode"] = mode
    header["source"] = {"video": video.name, "audio": heard_from.name if heard_from else None,
                        "calibration": cal_path.name, "frames": frames, "fps": info.fps,
                        "pose_every": settings.pose_every, "card_every": settings.card_every,
                        "enrolled": enrolled}
    setup = [{"t": 0.0, "type": "warning", "message": w} for w in setup_warnings]
    events = sorted(setup + vision_events + audio_events + skip_events, key=sort_key)
    record_path = out / "session.jsonl"
    with RecordWriter(record_path) as w:
        w.write(header)
        for e in events:
            w.write(e)
    t_judge = time.perf_counter()
    record = read_record(record_path)
    judgement = judge(record, {})
    stats["judge"] = time.perf_counter() - t_judge
    result = Replay(video=video, audio=heard_from, out=out, record=record_path, header=header, events=events,
                    judgement=judgement, landmarks=landmarks, warnings=warnings, duration=duration,
                    elapsed={"video": elapsed_video}, calibration=cal, enrolled=enrolled, stats=stats)
    result.elapsed["perception"] = time.perf_counter() - t_start
    if settings.report or settings.video:
        from referee import report

        t_rep = time.perf_counter()
        report.write(result, html=settings.report, video=settings.video)
        result.elapsed["report"] = time.perf_counter() - t_rep
    result.elapsed["total"] = time.perf_counter() - t_start
    return result


def _blocks_with_end(source, end: list[float]):
    for block in source:
        end[0] = block.offset + (block.index + len(block.data)) / block.rate
        yield block

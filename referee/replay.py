"""Replay a recorded session: video + per-seat audio + calibration -> record, verdicts, report.

One clock: video frames carry their PTS (``vision.video.read_frames``), audio samples their
index (``audio.capture.FileSource``); both count from the start of their file, so a WAV
recorded together with the video (or the video's own audio track) shares the frame clock.

The work runs through the one pipeline (:mod:`referee.pipeline`, the same path live play
takes): the recording's frames and audio → the vision and hearing stages → the watermark
merge → ``session.jsonl`` (written as events are released, flushed per event) → the
incremental judge → the sinks (the result kept here, the CLI's table or JSON lines, the
dispute report drawn at the end by :mod:`referee.report`). Threads and processes are the
pipeline's (:mod:`referee.pipeline.recording`); this module only says what to replay.

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

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from referee.pipeline.sinks import Sink
import rules
from session.errors import Stopped
from session.events import SessionHeader


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
    #: the pose stride changes a live session made, to replay it as it was seen (``(after_frame_t,
    #: every)``; :func:`live_strides`)
    pose_changes: tuple[tuple[float, int], ...] = ()


@dataclass(frozen=True)
class LiveStrides:
    """How a live session analysed its frames, from its record: the pose and card strides it
    started with and each change of the adaptive pose rate (``(after_frame_t, every)``)."""

    pose_every: int
    card_every: int
    changes: tuple[tuple[float, int], ...]


def live_strides(record: str | Path) -> LiveStrides:
    """The strides of the live session recorded in ``record`` (its ``session.jsonl``).

    Why from the record and not the video: ``video.mp4`` holds the frames the live referee
    analysed, in order, and the record's ``pose`` warnings say after which of them
    (``after_frame_t``, its capture time = its PTS) the stride changed, so a replay that
    starts at the header's ``pose_every`` and changes after the same frames runs pose on the
    same frames (the live warm-up aligns the frame count with every stride of the ladder)."""
    from session.errors import RefereeError
    from session.record import read_record

    path = Path(record)
    rec = read_record(path)  # (a missing file or a folder: its RecordError)
    source = (rec.header.extra or {}).get("source") or {} if rec.header is not None else {}
    if not source.get("live"):
        raise RefereeError(f"{path}: not the record of a live session (its header has no live source); "
                           "--follow-live takes OUT/session.jsonl of `referee live`")
    changes = []
    for e in rec.events:
        extra = getattr(e, "extra", None) or {}
        if getattr(e, "type", None) == "warning" and extra.get("source") == "pose" and "after_frame_t" in extra:
            changes.append((float(extra["after_frame_t"]), int(extra["pose_every"])))
    return LiveStrides(pose_every=int(source.get("pose_every", 8)), card_every=int(source.get("card_every", 2)),
                       changes=tuple(sorted(changes)))


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


def calibration_enroll(cal, cal_path: Path) -> Path | None:
    """The calibration's enrolled-voices folder: the ``enroll`` field (a version 2 file, as
    ``referee calibrate --enroll`` writes it; a version 1 file's key becomes it too), else a
    key kept in ``extra`` (relative to the calibration file)."""
    if getattr(cal, "enroll", None) is not None:
        return Path(cal.enroll)
    kept = cal.extra.get("enroll")
    if not kept:
        return None
    folder = Path(kept)
    return folder if folder.is_absolute() else cal_path.parent / folder


def hearing_plan(cal, game: str, mode: str | None, settings: ReplaySettings, cal_path: Path):
    """The calibration's audio side as plain inputs for :mod:`audio.hearing`."""
    from audio.hearing import HearingPlan

    leak = cal.audio.crosstalk_db if getattr(cal, "audio", None) is not None else None
    audio = cal.extra.get("audio")
    if leak is None and isinstance(audio, dict):
        leak = audio.get("crosstalk_db")  # a v1 file's extra key
    folder = settings.enroll
    if folder is None and not settings.no_enroll:
        folder = calibration_enroll(cal, cal_path)
    # the seat-to-seat leakage is measured on the calibration recording (the seats' test
    # words), never fitted over the session being judged, when the calibration names one;
    # what calibration measured there (audio.leakage) is used while the file is unchanged
    recorded = cal.audio.file if getattr(cal, "audio", None) is not None else None
    leakage_from = cal_path.parent / recorded if recorded and (cal_path.parent / recorded).is_file() else None
    # one laptop: the words are heard on one room microphone and credited to a seat by its hands
    # or its mouth (the faces are read then only: Recording.mouths)
    room = bool(cal.extra.get("room_microphone"))
    return HearingPlan(game=game, mode=mode, channels={s.name: s.channel for s in cal.seats if s.channel is not None},
                       names=tuple(s.name for s in cal.seats), crosstalk_db=leak, room=room,
                       enroll=None if settings.no_enroll or room else folder, model=settings.model, lang=settings.lang,
                       demix=settings.demix and not room, leakage_from=None if room else leakage_from,
                       leakage_measured=cal.audio.leakage if leakage_from is not None and not room else None,
                       vocab=game_vocabulary(game, mode))


def _hearing_if_heard(cal, game: str, mode: str | None, settings: ReplaySettings, cal_path: Path,
                      audio: Path | None):
    """The replay's hearing plan; None (nothing heard, nothing said about sound) for a game
    without spoken calls replayed without a seats' recording (TAKOYAKI from the camera alone:
    "no audio: shouts are not heard" would only puzzle the table)."""
    if audio is None and game_vocabulary(game, mode) is None:
        return None
    return hearing_plan(cal, game, mode, settings, cal_path)


def table_mode(asked: str | None, cal) -> str | None:
    """The mode played: the one asked for (``--mode``), else the calibration's, else the
    game's default (``Game.default_mode``) — replay and live alike."""
    return asked or cal.extra.get("mode") or rules.get(cal.game).default_mode


def game_vocabulary(game: str, mode: str | None):
    """The calls hearing listens for (the game's declaration), None for a game without calls."""
    return rules.vocabulary(game, mode) if rules.get(game).calls is not None else None


def replay(video: str | Path, calibration: str | Path, *, audio: str | Path | None = None,
           out: str | Path, settings: ReplaySettings | None = None,
           on_progress: Callable[[int, int], None] | None = None,
           on_warning: Callable[[str], None] | None = None,
           sinks: Sequence[Sink] = ()) -> Replay:
    """Replay one session into ``out`` (created): ``session.jsonl`` written as the session is
    perceived (flushed per event), ``report.html`` (and ``annotated.mp4`` with
    ``settings.video``). Extra ``sinks`` (the CLI's JSON lines, a live view) see everything
    the pipeline produces as it is produced."""
    from calibration import load
    from referee.outdir import OutputFolder
    from referee.preflight import check_replay

    settings = settings or ReplaySettings()
    video, cal_path = Path(video), Path(calibration)
    audio = Path(audio) if audio is not None else None
    out = Path(out)
    t_start = time.perf_counter()
    cal = load(cal_path)
    # every check before any work (referee.preflight): the game, the zones, the video's size,
    # the seats' sample rate (resampled to the calibration's), a writable output folder
    # and the reference images of the deck
    pre = check_replay(video, audio, cal, out, game=settings.game, annotated=settings.video)
    info, setup_warnings = pre.video_info, list(pre.warnings)
    if not settings.pose_changes:  # (a live session's strides are followed as they were)
        import dataclasses

        from referee.preflight import strides_for

        watched = rules.get(cal.game).uses_hands or bool(cal.extra.get("room_microphone"))
        pose_every, card_every, slow = strides_for(info.fps, settings.pose_every, settings.card_every, video.name,
                                                   pose=watched)
        if slow is not None:
            setup_warnings.append(slow)
            settings = dataclasses.replace(settings, pose_every=pose_every, card_every=card_every)
    game = cal.game
    mode = table_mode(settings.mode, cal)
    folder = OutputFolder(out)
    try:
        with folder as staging:  # a run's files appear together, or not at all
            try:
                result = _replay_into(staging, video, audio, cal, cal_path, info, game, mode, settings,
                                      setup_warnings, pre.audio_rate, t_start, on_progress, on_warning, sinks)
            except KeyboardInterrupt as exc:
                _mark_stopped(staging / "session.jsonl", info.duration, getattr(exc, "how", "Ctrl-C"))
                raise
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM: the record so far is kept and named
        raise Stopped(getattr(exc, "how", "Ctrl-C"), kept=stopped_record(folder.kept)) from None
    folder = OutputFolder(out)
    result.out = folder.path
    for name in ("record", "report", "annotated"):
        p = getattr(result, name)
        if p is not None:
            setattr(result, name, folder.path / Path(p).name)
    return result


def _last_time(record: Path) -> float:
    """The latest event time in ``record`` (lines cut short skipped)."""
    last = 0.0
    try:
        lines = record.read_text(encoding="utf-8", errors="replace").splitlines()[1:]
    except OSError:
        return last
    for line in lines:
        try:
            t = json.loads(line).get("t")
        except (ValueError, AttributeError):
            continue  # (a line cut by the stop)
        if isinstance(t, (int, float)):
            last = max(last, float(t))
    return last


def _mark_stopped(record: Path, duration: float | None, how: str) -> None:
    """A stopped replay's record ends with what was not perceived: ``skipped`` video and
    audio from its last event to the video's end, so judging it never calls a player
    "missed" whose reaction came after the stop (the judge says "not judged" there)."""
    if not record.is_file():
        return
    from session.events import SkippedEvent
    from session.record import dumps

    last = _last_time(record)
    end = max(last, float(duration or 0.0))
    reason = f"stopped by {how}"
    try:
        cut = not record.read_bytes().endswith(b"\n")
        with open(record, "ab") as f:
            if cut:
                f.write(b"\n")  # (a line cut by the stop stays a line of its own: reported, skipped)
            for what in ("video", "audio"):
                ev = SkippedEvent(t=round(last, 6), what=what, start=round(last, 6), stop=round(end, 6), reason=reason)
                f.write((dumps(ev) + "\n").encode("utf-8"))
    except OSError:
        pass


def stopped_record(kept: Path | None) -> str:
    """What a stopped replay kept, said to the person: where its record is, how far it goes
    and how to judge it (no report is written for a part of a session)."""
    if kept is None:
        return "nothing was recorded yet"
    record = kept / "session.jsonl"
    last = _last_time(record)
    return (f"the record up to {last:.1f} s is in {record}; no report was written "
            f"(judge it with: referee judge {record})")


def _table_rule(game: str, options: dict, name: str):
    """A rule option the table set (``-o NAME=VALUE``), validated by the game; None if unset
    or not one of the game's options."""
    import rules

    game_rules = rules.get(game)
    if name not in {o.name for o in game_rules.options}:
        return None
    return game_rules.resolve_options(options)[name] if name in options else None


def _replay_into(out: Path, video: Path, audio: Path | None, cal, cal_path: Path, info, game: str,
                 mode: str | None, settings: ReplaySettings, setup_warnings: list[str], audio_rate: int | None,
                 t_start: float, on_progress, on_warning, sinks) -> Replay:
    from referee.pipeline import recording
    from referee.pipeline.sinks import CollectSink, RecordSink, ReportSink
    from referee.pipeline.vision import table_layout

    record_path = out / "session.jsonl"
    hearing = _hearing_if_heard(cal, game, mode, settings, cal_path, audio)
    room = bool(hearing is not None and hearing.room)
    rec = recording.Recording(video=video, audio=audio, layout=table_layout(cal, game, room=room), hearing=hearing,
                              info=info,
                              workers=settings.workers, pose_every=settings.pose_every,
                              card_every=settings.card_every, audio_rate=audio_rate,
                              half_raise=_table_rule(game, settings.options, "half_raise"),
                              av_offset=float(getattr(cal, "av_offset", None) or 0.0),
                              pose_changes=settings.pose_changes, mouths=int(room))

    def make_header(run) -> SessionHeader:
        source = {"video": video.name, "audio": run.heard_from.name if run.heard_from else None,
                  "calibration": cal_path.name, "frames": info.frames, "fps": info.fps,
                  "pose_every": settings.pose_every, "card_every": settings.card_every, "enrolled": run.enrolled}
        if run.enrolled_by is not None:  # which enrolled verifier heard the words (audio.voices)
            source["enrolled_by"] = run.enrolled_by
        if settings.pose_changes:  # (only then: a plain replay's record is as before)
            source["pose_changes"] = [list(c) for c in settings.pose_changes]
        return SessionHeader(t=0.0, game=game, mode=mode, players=tuple(s.name for s in cal.seats),
                             options=dict(settings.options), extra={"source": source})

    collect = CollectSink()
    run = recording.RecordingRun()
    made: list[Replay] = []

    def evidence(judgement) -> Replay:
        """The replay as the report sinks read it (made once, when the session is judged)."""
        if not made:
            result = Replay(video=video, audio=run.heard_from, out=out, record=record_path,
                            header=collect.header.to_dict(), events=[e.to_dict() for e in collect.events],
                            judgement=judgement, landmarks=run.landmarks, warnings=run.warnings,
                            duration=run.duration, elapsed={"video": run.elapsed_video}, calibration=cal,
                            enrolled=run.enrolled, stats=run.stats)
            if run.frames != (info.frames or run.frames):
                result.warnings.append(f"{video.name}: {run.frames} frames decoded, the file announces {info.frames}")
            made.append(result)
        return made[0]

    drawn = [ReportSink(evidence, html=True, video=False)] if settings.report else []
    drawn += [ReportSink(evidence, html=False, video=True)] if settings.video else []
    with RecordSink(record_path) as record_sink:
        _, pipe = recording.run(rec, [record_sink, collect, *sinks, *drawn], make_header, options={},
                                setup_warnings=setup_warnings, on_progress=on_progress, on_warning=on_warning,
                                out=run)
    run.stats["judge"] = 0.0  # judged while perceiving (incremental), no separate pass
    result = evidence(pipe.judgement)
    if settings.report:
        result.report = out / "report.html"
    if settings.video:
        result.annotated = out / "annotated.mp4"
    total = time.perf_counter() - t_start
    result.elapsed["report"] = sum(s.seconds for s in drawn)
    result.elapsed["perception"] = total - result.elapsed["report"]
    result.elapsed["total"] = total
    return result


@dataclass
class ReplaySummary:
    """What one replay of several (``replay_many``) hands back across processes."""

    video: Path
    table: str = ""
    jsonl: str = ""
    record: Path | None = None
    report: Path | None = None
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    #: how many times the session was run (Ray retries a failed one: referee.replay_ray)
    attempts: int = 1
    #: where it ran, on Ray: node, process id, sessions and Whisper model reads of that worker
    worker: dict[str, Any] = field(default_factory=dict)


def replay_task(args, on_progress: Callable[[int, int], None] | None = None) -> ReplaySummary:
    """One session of several: the one per-session function of the local process pool
    (:func:`replay_many`) and of Ray (:mod:`referee.replay_ray`, whose ``on_progress`` stops
    a cancelled session as Ctrl-C does), so both write the same record and report in the same
    place. Bad input is its summary's ``error``."""
    from referee import announce
    from session.errors import RefereeError

    video, cal, out, settings = args
    try:
        result = replay(video, cal, out=out, settings=settings, on_progress=on_progress)
    except RefereeError as exc:
        return ReplaySummary(video=video, error=str(exc))
    table = announce.table(result.judgement, SessionHeader.from_dict(result.header))
    return ReplaySummary(video=video, table=table, jsonl=result.judgement.jsonl(), record=result.record,
                         report=result.report, warnings=list(result.warnings))


def replay_many(videos: Sequence[Path], calibration: Path, base: Path, settings: ReplaySettings,
                jobs: int | None = None):
    """Replay several recordings (each with its own audio track) into ``base/<video stem>/``,
    one process per session, ``jobs`` at a time (default: the cores); each session then runs
    its pose in its own process (no pose workers), so the cores are shared between sessions
    rather than nested. Yields a :class:`ReplaySummary` per video, in the given order."""
    import multiprocessing as mp
    import os
    from concurrent.futures import ProcessPoolExecutor

    tasks = session_tasks(videos, calibration, base, settings)
    jobs = min(jobs or os.cpu_count() or 1, len(videos))
    earlier = {p.pid for p in mp.active_children()}  # the pool's workers are the children started after
    with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn")) as pool:
        try:
            yield from pool.map(replay_task, tasks)
        except KeyboardInterrupt as exc:  # stopped: the sessions running stop too (keeping their records)
            workers = [p for p in mp.active_children() if p.pid not in earlier]
            _stop_sessions(pool, workers, getattr(exc, "how", "Ctrl-C"))
            raise


def session_tasks(videos: Sequence[Path], calibration: Path, base: Path, settings: ReplaySettings) -> list[tuple]:
    """The arguments of :func:`replay_task` for each video: its output in ``base/<video stem>/``
    and its pose in its own process (``workers=0``: the cores go to sessions, not nested) —
    the local pool's and Ray's alike."""
    import dataclasses

    stems = [v.stem for v in videos]
    if len(set(stems)) != len(stems):
        from session.errors import RefereeError

        raise RefereeError("two videos have the same name; their output folders would collide")
    one = dataclasses.replace(settings, workers=0)
    return [(v, calibration, base / v.stem, one) for v in videos]


def _stop_sessions(pool, workers: list, how: str) -> None:
    """The sessions not started are not started; the running ones (in the pool's ``workers``)
    get a Ctrl-C of their own when the replay was stopped by SIGTERM (a terminal's Ctrl-C
    reached them already), so each keeps its record so far (:func:`replay`) instead of running
    to its end."""
    import os
    import signal

    if how == "SIGTERM":
        for proc in workers:
            try:
                os.kill(proc.pid, signal.SIGINT)
            except OSError:
                pass
    pool.shutdown(wait=True, cancel_futures=True)

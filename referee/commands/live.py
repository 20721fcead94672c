"""``referee live``: judge a table while it plays (camera + seat microphones, or a recording
paced in real time), and ``referee demo --live`` (the bundled demo through the live path).

Parses options and calls :func:`referee.live.run.run_live`; prints where the files are.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click


def device_arg(value):
    """A ``--camera``/``--audio-device`` value: a device number, or a name as given (None stays None)."""
    if value is None:
        return None
    return int(value) if str(value).isdigit() else value


def _options(f):
    opts = [
        click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help="Folder for session.jsonl, video.mp4 and seats.wav (default: a new live-* folder here)."),
        click.option("--lang", type=click.Choice(["ja", "en"]), default=None,
                     help="Language of the spoken verdicts and of the speech model (default: the table's, as "
                          "referee teach: the calibration's — Japanese when it names none —, else the locale's)."),
        click.option("--no-voice", is_flag=True, help="Do not speak the verdicts."),
        click.option("--no-window", is_flag=True, help="The terminal view instead of the window."),
        click.option("--hold-result", type=click.FloatRange(0, 3600), default=120.0, show_default=True,
                     metavar="SECONDS",
                     help="The window keeps the final result until a key is pressed in it, at most this long "
                          "(0: it closes when the game ends)."),
        click.option("--workers", type=click.IntRange(0, 16), default=2, show_default=True,
                     help="Pose worker processes (0: pose in this process)."),
        click.option("--pose-every", type=click.IntRange(1, 10), default=8, show_default=True,
                     help="Pose on every Nth frame per seat to start with (hand changes are re-analysed at full "
                          "rate); it adapts to the load between 4 and 8 unless --fixed-pose-rate."),
        click.option("--fixed-pose-rate", is_flag=True,
                     help="Keep --pose-every whatever the load (the referee may then fall behind)."),
        click.option("--card-every", type=click.IntRange(1, 30), default=2, show_default=True,
                     help="Card zones on every Nth frame."),
        click.option("--no-demix", is_flag=True, help="Hear each channel as recorded (no cross-talk cancellation)."),
        click.option("--no-enroll", is_flag=True, help="Words from the speech model alone (no voice enrollment)."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def _run(opts, no_voice: bool, selftest: bool = False):
    from referee.live.engines import LiveEngines
    from referee.live.run import run_live

    if opts.from_video is None:  # a camera and microphones: both there before anyone is told to speak
        from referee.live.selftest import check_sources

        check_sources(opts.camera, opts.audio_device, _calibration(opts.calibration).seat_channels)
    engines = LiveEngines()  # the pose workers load once: self-test, session and the next games
    try:
        started_with: list[str] = []
        if selftest:
            from referee.live.selftest import SelfTestParams, render_text, require_pass

            click.echo("referee: self-test: each seat says one word and raises the left hand, then the right", err=True)
            check = run_live(opts, selftest=SelfTestParams(), say=lambda s: click.echo(s, err=True), engines=engines)
            result = check.figures["selftest"]
            click.echo("\n".join(render_text(result)), err=True)
            started_with = require_pass(result, force=opts.force)
        base, game = opts.out, 1
        while True:
            sinks = [] if no_voice else [_voice(opts.lang)]
            opts = dataclasses.replace(opts, voice_note=_voice_note(sinks[0] if sinks else None))
            result = run_live(opts, extra_sinks=sinks, say=lambda s: click.echo(s, err=True),
                              setup_warnings_in=started_with, engines=engines)
            _summary(result)
            _report(result, opts.calibration)
            if not result.new_game:
                return result
            game += 1  # n n: the session is closed and judged; the next game gets a folder of its own
            click.echo(f"referee: new game {game}", err=True)
            opts = dataclasses.replace(opts, out=base / f"game-{game}")
            started_with = []
    finally:
        engines.close()


def _summary(result) -> None:
    for w in result.warnings:
        click.echo(f"referee: warning: {w}", err=True)
    if result.judgement is not None:
        from referee import announce

        click.echo(announce.for_terminal(announce.table(result.judgement, None)))
    f = result.figures
    click.echo(f"\nreferee: camera {f.get('captured', 0)} frames, {f.get('skipped', 0)} skipped, "
               f"{f.get('dropped', 0)} dropped by the camera; clocks: video {f.get('clock')}, "
               f"audio {f.get('audio_clock')}", err=True)
    lat = f.get("latency", {})
    known = ", ".join(f"{k} {v['median']}/{v['p95']}" for k, v in (lat.get("event_known_ms") or {}).items() if v)
    if known:
        click.echo(f"referee: capture -> event known, median/p95 ms: {known}; vision stage "
                   f"{(lat.get('stage_ms') or {}).get('median')} ms a frame; load {f.get('load')}", err=True)
    enrolled = _enrolled_line(result.record)
    if enrolled is not None:  # (as the replay says it: which enrolled verifier heard the words)
        click.echo(f"referee: {enrolled}", err=True)
    click.echo(f"referee: record {result.record}\nreferee: video  {result.video}\nreferee: audio  {result.audio}",
               err=True)


def _enrolled_line(record) -> str | None:
    """One line naming the enrolled voices' engine, from the record's header
    (``source.enrolled_by``; :func:`audio.voices.describe`), or None without enrolled voices."""
    import json

    from audio.voices import describe

    try:
        with open(record, encoding="utf-8") as f:
            header = json.loads(f.readline())
    except (OSError, ValueError):
        return None
    source = header.get("source") if isinstance(header, dict) else None
    return describe(source.get("enrolled_by")) if isinstance(source, dict) else None


def _voice_note(sink):
    """What the views show of the voice: "off: --no-voice", or a callable reading the
    voice's state when drawn (it finds it has no sound device only when it starts)."""
    if sink is None:
        return "off (no-voice option)"

    def note() -> str:
        w = sink.warning
        if not w:
            return "on"
        return "off: " + w.removeprefix("voice off: ").split(";")[0]
    return note


def _report(result, calibration: Path) -> None:
    """The dispute report of the session just played (``OUT/report.html``), as ``referee
    demo`` writes one; a report that cannot be drawn is a warning, the record stays."""
    from referee.live.report import write_live_report
    from session.errors import RefereeError

    try:
        path = write_live_report(result, calibration)
    except (RefereeError, OSError, ValueError) as exc:
        click.echo(f"referee: warning: no dispute report: {exc}", err=True)
        return
    if path is not None:
        click.echo(f"referee: dispute report {path} (open it in a browser)", err=True)


def _voice(lang: str):
    """The spoken verdicts (:class:`referee.live.voice.VoiceSink`); without a sound device or
    an engine the voice is silent and says so once."""
    from referee.live.voice import VoiceSink

    sink = VoiceSink(lang)
    if sink.warning:
        click.echo(f"referee: warning: {sink.warning}", err=True)
    return sink


@click.command("live")
@click.option("--calibration", "cal", required=True, type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="The table's calibration.json (referee calibrate).")
@click.option("--camera", default=None,
              help="Camera index or device path (default: the calibration's camera, else 0).")
@click.option("--audio-device", default=None,
              help="Audio input, an index or a name (default: the calibration's input, else the default input).")
@click.option("--from-video", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="Play this recording through the live path, paced in real time (no camera needed).")
@click.option("--audio", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="With --from-video: the seats' recording (one channel per seat), paced in real time.")
@click.option("--game", default=None, help="The game played (checked against the calibration's).")
@click.option("--mode", default=None, help="Game mode (ikatako: versus, coop, solo).")
@click.option("--model", default=None, help="Speech model (default: the best installed for the language).")
@click.option("--selftest/--no-selftest", default=None,
              help="The pre-game self-test (default: on with a camera, off for a recording and for a table "
                   "with no microphone playing a card-only game).")
@click.option("--force", is_flag=True, help="Start even when a seat fails the self-test.")
@_options
def live_cmd(cal, camera, audio_device, from_video, audio, game, mode, model, selftest, force, out, lang, no_voice,
             no_window, hold_result, workers, pose_every, fixed_pose_rate, card_every, no_demix, no_enroll):
    """Referee a table live: verdicts on screen (and spoken) as the cards are flipped, the
    session recorded while it is judged (OUT/session.jsonl, video.mp4, seats.wav)."""
    from referee.language import table_language
    from referee.live.run import LiveOptions

    lang = table_language(lang, cal)
    if audio is not None and from_video is None:
        raise click.UsageError("--audio paces a recording: give the video with --from-video too")
    if from_video is not None and audio is None and _calibration(cal).seat_channels is not None:
        raise click.UsageError("--from-video needs the seats' recording with --audio SEATS.wav")
    if from_video is None and (camera is None or audio_device is None):
        table = _calibration(cal)  # the devices the table was calibrated with
        camera = camera if camera is not None else (table.camera_id if table.camera_id is not None else 0)
        audio_device = audio_device if audio_device is not None else (table.audio.device if table.audio else None)
    opts = LiveOptions(calibration=cal, out=out or new_out_folder(), camera=device_arg(camera if camera is not None else 0),
                       from_video=from_video, audio_device=device_arg(audio_device), audio=audio, game=game, mode=mode, lang=lang, model=model,
                       window=not no_window, voice=not no_voice, force=force, workers=workers,
                       pose_every=pose_every, card_every=card_every, no_enroll=no_enroll, demix=not no_demix,
                       hold_s=hold_result)
    if fixed_pose_rate:
        opts.pose_rate = None
    _run(opts, no_voice, selftest=_default_selftest(cal) and from_video is None if selftest is None else selftest)


def _default_selftest(cal) -> bool:
    """Whether the pre-game self-test (each seat heard saying a word, both hands seen) runs by
    default with a camera: not for a table with neither (no seat has a microphone and the game
    reads the cards only: TAKOYAKI, TORATANU), where it could only fail."""
    import rules

    table = _calibration(cal)
    return table.seat_channels is not None or rules.get(table.game).uses_hands


def _calibration(path):
    """The calibration file, read as the live run will (its errors are the same one line)."""
    import rules
    from session.calibration import load

    return load(path, games=rules)


def demo_live(out, no_window: bool, no_voice: bool, lang: str | None = None, workers: int = 2, pose_every: int = 8,
              card_every: int = 2, no_enroll: bool = False, no_demix: bool = False, hold_s: float = 120.0):
    """``referee demo --live``: the bundled demo recording through the live path in real time."""
    from referee.commands.demo_files import DEMO
    from referee.live.run import LiveOptions
    from session.errors import RefereeError

    for p in (DEMO / "session.mp4", DEMO / "seats.wav", DEMO / "calibration.json"):
        if not p.is_file():
            raise RefereeError(f"the demo file {p} is missing: run the demo from a clone of the project")
    from referee.language import table_language

    opts = LiveOptions(calibration=DEMO / "calibration.json", out=out or new_out_folder(), from_video=DEMO / "session.mp4",
                       audio=DEMO / "seats.wav", lang=table_language(lang, DEMO / "calibration.json"), window=not no_window, voice=not no_voice,
                       workers=workers, pose_every=pose_every, card_every=card_every, no_enroll=no_enroll,
                       demix=not no_demix, hold_s=hold_s)
    return _run(opts, no_voice)


def demo_live_takoyaki(out, no_window: bool, no_voice: bool, lang: str | None = None, workers: int = 2,
                       pose_every: int = 8, card_every: int = 2, hold_s: float = 120.0):
    """``referee demo --game takoyaki --live``: the rendered TAKOYAKI game through the live path
    in real time, the griddles drawn as they are read and each move's call said (the table has
    no microphones: the live path hears silence as long as the video)."""
    from referee.commands.demo_files import TAKOYAKI_DEMO

    return _demo_live_silent(TAKOYAKI_DEMO, "takoyaki", out, no_window, no_voice, lang, workers=workers,
                             pose_every=pose_every, card_every=card_every, hold_s=hold_s)


def demo_live_toratanu(out, no_window: bool, no_voice: bool, lang: str | None = None, workers: int = 2,
                       pose_every: int = 8, card_every: int = 2, hold_s: float = 120.0):
    """``referee demo --game toratanu --live``: the rendered TORATANU nights through the live
    path in real time, the special card and each player's revealed hand shown as read with its
    best arrangement, each night's tally said (no microphones: the live path hears silence;
    the demo plays two nights, as its truth's header says)."""
    from referee.commands.demo_files import TORATANU_DEMO

    return _demo_live_silent(TORATANU_DEMO, "toratanu", out, no_window, no_voice, lang, options={"games": 2},
                             workers=workers, pose_every=pose_every, card_every=card_every, hold_s=hold_s)


def _demo_live_silent(folder: Path, game: str, out, no_window: bool, no_voice: bool, lang: str | None,
                      options: dict | None = None, **pace):
    """A camera-only demo (``folder``'s session.mp4 and calibration.json) through the live
    path; its calibration gives no seat a microphone, so the live run hears silence."""
    from referee.language import table_language
    from referee.live.run import LiveOptions
    from session.errors import RefereeError

    video, cal = folder / "session.mp4", folder / "calibration.json"
    for p in (video, cal):
        if not p.is_file():
            raise RefereeError(f"the demo file {p} is missing: run the demo from a clone of the project")
    opts = LiveOptions(calibration=cal, out=out or new_out_folder(), from_video=video, game=game,
                       lang=table_language(lang, cal), window=not no_window, voice=not no_voice, no_enroll=True,
                       options=dict(options or {}), **pace)
    return _run(opts, no_voice)


def demo_live_seasaltpaper(out, no_window: bool, no_voice: bool, workers: int = 2, pose_every: int = 8,
                           card_every: int = 2, hold_s: float = 120.0):
    """``referee demo --game seasaltpaper --live``: the rendered Sea Salt & Paper rounds' ends
    through the live path in real time: each call heard from the seats' recording (English,
    as the demo's replay), each player's tally shown as the camera reads it, the round's
    outcome shown and said."""
    from referee.commands.demo_files import SEASALTPAPER_DEMO
    from referee.live.run import LiveOptions
    from session.errors import RefereeError

    video, audio, cal = (SEASALTPAPER_DEMO / n for n in ("session.mp4", "seats.wav", "calibration.json"))
    for p in (video, audio, cal):
        if not p.is_file():
            raise RefereeError(f"the demo file {p} is missing: run the demo from a clone of the project")
    opts = LiveOptions(calibration=cal, out=out or new_out_folder(), from_video=video, audio=audio,
                       game="seasaltpaper", lang="en", window=not no_window, voice=not no_voice, workers=workers,
                       pose_every=pose_every, card_every=card_every, hold_s=hold_s)
    return _run(opts, no_voice)


def new_out_folder() -> Path:
    """A new session folder in the current one, named by the time: ``live-YYYYmmdd-HHMMSS``."""
    import time

    return Path(time.strftime("live-%Y%m%d-%H%M%S"))

"""``referee replay`` (recorded sessions -> record, verdicts, dispute report) and ``referee demo``.

Several videos: one process per session (``--jobs``, default the number of cores), each
into its own folder ``OUT/<video stem>/`` (:func:`referee.replay.replay_many`); with ``--ray``
the same sessions on Ray (:func:`referee.replay_ray.replay_many_ray`, the extra ``[scale]``).
This module parses options, calls the library and prints.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import click

from session.errors import RefereeError, Stopped

from referee.commands.demo_files import DEMO, ROOT


def _settings(game, mode, workers, pose_every, card_every, model, enroll, no_enroll, video, options,
              demix=True):
    from referee.options import parse_option_args
    from referee.replay import ReplaySettings

    return ReplaySettings(game=game, mode=mode, workers=workers, pose_every=pose_every, card_every=card_every,
                          model=model, enroll=enroll, no_enroll=no_enroll, demix=demix, video=video,
                          options=parse_option_args(options))


def _one(video: Path, audio: Path | None, cal: Path, out: Path, settings, progress: bool, as_json: bool = False):
    """Replay one session; returns (Replay | None, error message | None). With ``as_json`` the
    verdicts are printed as JSON lines the moment each is final."""
    from referee.pipeline.sinks import JsonLinesSink
    from referee.replay import replay

    bar = None
    try:
        last = [0]

        def on_progress(n, total):
            nonlocal bar
            if not progress:
                return
            if bar is None:  # made at the first frame: input checks speak first
                bar = click.progressbar(length=total, label=f"decoding {video.name}", file=sys.stderr,
                                        show_pos=True, show_percent=True)
                bar.__enter__()
            bar.update(n - last[0])
            last[0] = n

        def on_warning(w):
            click.echo(("\n" if bar is not None else "") + f"referee: warning: {w}", err=True)

        sinks = [JsonLinesSink(click.echo)] if as_json else []
        result = replay(video, cal, audio=audio, out=out, settings=settings, on_progress=on_progress,
                        on_warning=on_warning, sinks=sinks)
        return result, None
    except RefereeError as exc:
        return None, str(exc)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)


def _print(result, as_json: bool) -> None:
    from referee import announce
    from session.events import SessionHeader

    if not as_json:  # (JSON lines were printed as each verdict became final)
        click.echo(announce.for_terminal(announce.table(result.judgement, SessionHeader.from_dict(result.header))))
    for note in result.judgement.notes:
        click.echo(f"{result.record}:{note}", err=True)
    from audio.voices import describe

    enrolled = describe((result.header.get("source") or {}).get("enrolled_by"))
    if enrolled is not None:
        click.echo(enrolled, err=True)
    s = result.elapsed
    click.echo(f"replayed {result.duration:.1f} s of video in {s['total']:.1f} s "
               f"({result.duration / max(s['total'], 1e-9):.2f}x real time)", err=True)
    click.echo(f"session record: {result.record}", err=True)
    if result.report:
        click.echo(f"dispute report: {result.report}", err=True)
    if result.annotated:
        click.echo(f"annotated video: {result.annotated}", err=True)


common = [
    click.option("--workers", type=click.IntRange(0, 16), default=2, show_default=True,
                 help="Seat (pose) worker processes for one session; audio then runs in a process of its own too "
                      "(several sessions: one process each instead)."),
    click.option("--pose-every", type=click.IntRange(1, 10), default=8, show_default=True,
                 help="Each seat's pose on every n-th frame (seats staggered; frames around each hand change re-analysed at full rate)."),
    click.option("--card-every", type=click.IntRange(1, 30), default=2, show_default=True,
                 help="Card zones analysed every n-th frame (appearance time stays full-rate)."),
    click.option("--video", "video_out", is_flag=True, help="Also write annotated.mp4 (boxes, hands, cards, verdicts)."),
    click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON lines instead of the table."),
]


def _apply(opts):
    def deco(f):
        for o in reversed(opts):
            f = o(f)
        return f
    return deco


@click.command("replay")
@click.argument("videos", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--audio", type=click.Path(dir_okay=False, path_type=Path),
              help="The seats' recording (one channel per seat, same start as the video). Default: the video's track.")
@click.option("--calibration", "cal", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The table's calibration.json (zones, seats and channels, references, enroll folder).")
@click.option("--game", default=None, help="The game played (checked against the calibration's).")
@click.option("--mode", default=None, help="Game mode (ikatako: versus, coop, solo). Default: versus.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder (default: ./replay-<video stem>; several videos: OUT/<video stem>/).")
@click.option("--model", default=None, help="Speech model (default: the best installed for Japanese).")
@click.option("--enroll", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
              help="Voice enrollment folder <player>/<call>[.<take>].wav (default: the calibration's 'enroll').")
@click.option("--no-enroll", is_flag=True, help="Ignore the calibration's enrollment (speech model alone).")
@click.option("--no-demix", is_flag=True, help="Hear each channel as recorded (no seat-to-seat cross-talk cancellation).")
@click.option("--jobs", type=click.IntRange(1, 1024), default=None,
              help="Sessions replayed at once (default: the cores; with --ray, the cluster's).")
@click.option("--ray", "ray_address", is_flag=False, flag_value="local", default=None, metavar="[ADDRESS]",
              help="Replay the sessions on Ray (pip install -e '.[scale]'): alone, a Ray of this machine's cores; "
                   "ADDRESS (auto, HOST:PORT, ray://HOST:10001) joins that cluster. Write it after the videos.")
@click.option("--option", "-o", "options", multiple=True, metavar="NAME=VALUE", help="A rule option, e.g. -o window=2.5.")
@click.option("--follow-live", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="A live session's record (OUT/session.jsonl of `referee live`): analyse the frames as it did "
                   "(its pose and card strides and each change of the adaptive pose rate, after the frame it names).")
@_apply(common)
def replay_cmd(videos, audio, cal, game, mode, out, model, enroll, no_enroll, no_demix, jobs, ray_address, options,
               follow_live, workers, pose_every, card_every, video_out, as_json):
    """Replay recorded SESSION video(s) into a session record, verdicts and a dispute report.

    Writes OUT/session.jsonl, OUT/report.html (one self-contained page) and, with --video,
    OUT/annotated.mp4; prints the verdict table. Progress on stderr.
    """
    settings = _settings(game, mode, workers, pose_every, card_every, model, enroll, no_enroll, video_out, options,
                         demix=not no_demix)
    if follow_live is not None:
        import dataclasses

        from referee.replay import live_strides

        if len(videos) != 1:
            raise click.UsageError("--follow-live names one live session's record: replay its one video")
        strides = live_strides(follow_live)
        settings = dataclasses.replace(settings, pose_every=strides.pose_every, card_every=strides.card_every,
                                       pose_changes=strides.changes)
    if len(videos) == 1 and ray_address is None:
        out = out or Path(f"replay-{videos[0].stem}")
        result, err = _one(videos[0], audio, cal, out, settings, progress=True, as_json=as_json)
        if err is not None:
            raise RefereeError(err)
        _print(result, as_json)
        return
    if audio is not None:
        raise click.UsageError("--audio names one recording; with several videos (or --ray) each video's own "
                               "audio track is used")
    base = out or Path("replay-out")
    try:
        summaries = list(_each_reported(_sessions(list(videos), cal, base, settings, jobs, ray_address), as_json))
    except KeyboardInterrupt as exc:  # (each session process keeps its own record so far)
        raise Stopped(getattr(exc, "how", "Ctrl-C"), kept=f"each session stopped keeps its record so far in "
                      f"{base}/<video name>/session.jsonl (judge it with: referee judge)") from None
    failed = sum(1 for s in summaries if s.error is not None)
    if failed:
        raise RefereeError(f"{failed} of {len(videos)} sessions could not be replayed (see above)")


def _sessions(videos, cal, base, settings, jobs, ray_address):
    """Several sessions on this machine's process pool, or on Ray with ``--ray``."""
    if ray_address is None:
        from referee.replay import replay_many

        click.echo(f"replaying {len(videos)} sessions, {min(jobs or os.cpu_count() or 1, len(videos))} at a time, "
                   f"into {base}/", err=True)
        return replay_many(videos, cal, base, settings, jobs)
    from referee.replay_ray import LOCAL, check_address, import_ray, replay_many_ray

    import_ray()  # (its one line before anything is said)
    check_address(ray_address)
    where = "a Ray of this machine's cores" if ray_address == LOCAL else f"the Ray cluster at {ray_address}"
    click.echo(f"replaying {len(videos)} session(s) on {where} into {base}/", err=True)
    return replay_many_ray(videos, cal, base, settings, address=ray_address, jobs=jobs)


def _each_reported(summaries, as_json: bool):
    """Print each session's result as it comes; yields the summaries."""
    from referee import announce

    for summary in summaries:
        if summary.error is not None:
            click.echo(f"referee: error: {summary.video}: {summary.error}", err=True)
        else:
            for w in summary.warnings:
                click.echo(f"referee: warning: {summary.video}: {w}", err=True)
            click.echo(f"== {summary.video}")
            click.echo(summary.jsonl if as_json else announce.for_terminal(summary.table), nl=as_json is False)
            click.echo(f"session record: {summary.record}\ndispute report: {summary.report}", err=True)
        yield summary


def _demo_files(*paths: Path) -> tuple[Path, ...]:
    """The bundled demo's files, or one clear error naming the first that is missing."""
    for p in paths:
        if not p.is_file():
            raise RefereeError(f"the demo file {p} is missing: run the demo from a clone of the project "
                               "installed with 'pip install -e .'")
    return paths


def _demo_takoyaki(out, workers, pose_every, card_every, video_out, as_json) -> None:
    """``referee demo --game takoyaki``: replay the rendered TAKOYAKI game (no audio)."""
    from referee.commands.demo_files import TAKOYAKI_DEMO

    video, cal = _demo_files(TAKOYAKI_DEMO / "session.mp4", TAKOYAKI_DEMO / "calibration.json")
    if out is None:
        out = Path(tempfile.mkdtemp(prefix="referee-demo-takoyaki-"))
    click.echo(f"Replaying the bundled TAKOYAKI recording {video.relative_to(ROOT)} into {out}", err=True)
    settings = _settings("takoyaki", "versus", workers, pose_every, card_every, None, None, True, video_out, ())
    result, err = _one(video, None, cal, out, settings, progress=True, as_json=as_json)
    if err is not None:
        raise RefereeError(err)
    _print(result, as_json)
    click.echo(f"The report is a single HTML page: open {result.report} in a browser.", err=True)


def _demo_seasaltpaper(out, workers, pose_every, card_every, video_out, as_json) -> None:
    """``referee demo --game seasaltpaper``: replay the rendered Sea Salt & Paper rounds' ends
    (the calls heard in English from seats.wav, the spreads read by the camera)."""
    import dataclasses

    from referee.commands.demo_files import SEASALTPAPER_DEMO

    video, audio, cal = _demo_files(SEASALTPAPER_DEMO / "session.mp4", SEASALTPAPER_DEMO / "seats.wav",
                                    SEASALTPAPER_DEMO / "calibration.json")
    if out is None:
        out = Path(tempfile.mkdtemp(prefix="referee-demo-seasaltpaper-"))
    click.echo(f"Replaying the bundled Sea Salt & Paper recording {video.relative_to(ROOT)} + {audio.name} "
               f"into {out}", err=True)
    settings = _settings("seasaltpaper", None, workers, pose_every, card_every, None, None, True, video_out, ())
    settings = dataclasses.replace(settings, lang="en")  # (the demo's table speaks English)
    result, err = _one(video, audio, cal, out, settings, progress=True, as_json=as_json)
    if err is not None:
        raise RefereeError(err)
    _print(result, as_json)
    click.echo(f"The report is a single HTML page: open {result.report} in a browser.", err=True)


def _demo_toratanu(out, workers, pose_every, card_every, video_out, as_json) -> None:
    """``referee demo --game toratanu``: replay the rendered TORATANU nights' tallies (no
    audio: the special card and each player's revealed hand read by the camera)."""
    from referee.commands.demo_files import TORATANU_DEMO

    video, cal = _demo_files(TORATANU_DEMO / "session.mp4", TORATANU_DEMO / "calibration.json")
    if out is None:
        out = Path(tempfile.mkdtemp(prefix="referee-demo-toratanu-"))
    click.echo(f"Replaying the bundled TORATANU recording {video.relative_to(ROOT)} into {out}", err=True)
    # (the demo plays two nights: the match's option games, as its truth's header says)
    settings = _settings("toratanu", None, workers, pose_every, card_every, None, None, True, video_out, ("games=2",))
    result, err = _one(video, None, cal, out, settings, progress=True, as_json=as_json)
    if err is not None:
        raise RefereeError(err)
    _print(result, as_json)
    click.echo(f"The report is a single HTML page: open {result.report} in a browser.", err=True)


#: the demos whose record the camera reads (their own ``demo_live_<game>`` plays them live),
#: and what ``--events`` is told of each
CAMERA_DEMOS = {"takoyaki": "TAKOYAKI's is read by the camera",
                "seasaltpaper": "Sea Salt & Paper's is read by the camera and heard",
                "toratanu": "TORATANU's is read by the camera"}


@click.command("demo")
@click.option("--game", type=click.Choice(["ikatako", "takoyaki", "seasaltpaper", "toratanu"]), default="ikatako",
              show_default=True,
              help="The bundled recording: IKATAKO (video + a microphone per seat), a rendered TAKOYAKI game "
                   "(video only: the griddles read by the camera), rendered Sea Salt & Paper rounds' ends (the "
                   "calls heard, each player's cards read by the camera) or rendered TORATANU nights' tallies "
                   "(each player's revealed hand read by the camera, its best arrangement scored).")
@click.option("--events", is_flag=True, help="The old event-only demo: judge the bundled 28-card session record.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the record and report go (default: a new temporary folder).")
@click.option("--no-enroll", is_flag=True, help="Words from the speech model alone (no voice enrollment).")
@click.option("--no-demix", is_flag=True, help="Hear each channel as recorded (no cross-talk cancellation).")
@click.option("--live", is_flag=True, help="Through the live path in real time, with the window (see referee live).")
@click.option("--no-window", is_flag=True, help="With --live: the terminal view instead of the window.")
@click.option("--no-voice", is_flag=True, help="With --live: do not speak the verdicts.")
@click.option("--hold-result", type=click.FloatRange(0, 3600), default=120.0, show_default=True, metavar="SECONDS",
              help="With --live: the window keeps the final result until a key is pressed in it, at most this long.")
@_apply(common)
def demo_cmd(game, events, out, no_enroll, no_demix, live, no_window, no_voice, hold_result, workers, pose_every,
             card_every, video_out, as_json):
    """Replay the bundled 4-player IKATAKO recording end to end and print the verdicts.

    fixtures/demo/: session.mp4 (camera), seats.wav (a microphone per seat), calibration.json.
    With --game takoyaki: fixtures/takoyaki/, a rendered two-player TAKOYAKI game read by the
    camera alone (every card landing on a griddle slot or the discards); with --live, paced in
    real time with the griddles drawn as read and each move's call said.
    With --game seasaltpaper: fixtures/seasaltpaper/, two rendered rounds' ends: the call said
    aloud (seats.wav), then each player's cards in front of them read by the camera and scored;
    with --live, paced in real time with each player's tally shown as it is read.
    With --game toratanu: fixtures/toratanu/, two rendered nights' tallies of three players:
    the special card and each revealed hand read by the camera, each hand's best arrangement
    and its score; with --live, paced in real time with each player's hand and best
    arrangement shown as read and each night's tally said.
    """
    if game in CAMERA_DEMOS:  # (TAKOYAKI, Sea Salt & Paper, TORATANU: each a demo of its own)
        if events:
            raise click.UsageError(f"--events plays the IKATAKO demo's typed record; {CAMERA_DEMOS[game]}")
        if live:
            from referee.commands import live as live_demos

            getattr(live_demos, f"demo_live_{game}")(out, no_window, no_voice, workers=workers, pose_every=pose_every,
                                                     card_every=card_every, hold_s=hold_result)
            return
        replay_demo = {"takoyaki": _demo_takoyaki, "seasaltpaper": _demo_seasaltpaper, "toratanu": _demo_toratanu}[game]
        replay_demo(out, workers, pose_every, card_every, video_out, as_json)
        return
    if live:
        from referee.commands.live import demo_live

        demo_live(out, no_window, no_voice, workers=workers, pose_every=pose_every, card_every=card_every,
                  no_enroll=no_enroll, no_demix=no_demix, hold_s=hold_result)
        return
    if events:
        from referee.commands.judge import demo_events

        demo_events(as_json)
        return
    video, audio, cal = _demo_files(DEMO / "session.mp4", DEMO / "seats.wav", DEMO / "calibration.json")
    if out is None:
        out = Path(tempfile.mkdtemp(prefix="referee-demo-"))
    click.echo(f"Replaying the bundled recording {video.relative_to(ROOT)} + {audio.name} into {out}", err=True)
    settings = _settings("ikatako", "versus", workers, pose_every, card_every, None, None, no_enroll, video_out, (),
                         demix=not no_demix)
    result, err = _one(video, audio, cal, out, settings, progress=True, as_json=as_json)
    if err is not None:
        raise RefereeError(err)
    _print(result, as_json)
    click.echo(f"The report is a single HTML page: open {result.report} in a browser.", err=True)

"""``referee teach``: drills with the reason for every verdict, a rule ladder, spaced
repetition and progress (the library is ``referee.teach``; this module parses options)."""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import click

from session.errors import RefereeError



class TeachError(RefereeError):
    pass


def _voice(lang: str, enabled: bool, drill):
    if not enabled:
        return None
    from audio.voice import Voice, cache_dir
    from referee.teach.phrases import fixed_keys, spoken_text
    voice = Voice(lang, lambda k: spoken_text(k, lang), cache=cache_dir(),
                  warn=lambda m: click.echo(f"referee: warning: {m}", err=True))
    if not voice.active or voice.player is None:
        return None
    voice.prepare(list(fixed_keys()) + list(drill.phrase_keys()))
    return voice


@click.command("teach", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("what", required=False, metavar="[GAME | explain]")
@click.argument("session_file", required=False, metavar="[SESSION.jsonl]")
@click.option("--mode", type=click.Choice(["versus", "coop"]), default="versus", show_default=True,
              help="IKATAKO: versus reactions or co-op totals and uzushio.")
@click.option("--learner", default="you", show_default=True, help="Whose progress (one file per learner).")
@click.option("--lang", type=click.Choice(["en", "ja"]), default=None,
              help="Screen and voice language (default: the table's, as referee live: the calibration's, else the "
                   "locale's: ja_* is Japanese, else English).")
@click.option("--no-voice", is_flag=True, help="Silent: no spoken feedback.")
@click.option("--seed", type=int, default=None, help="Same seed, same cards and foreperiods.")
@click.option("--cards", type=click.IntRange(1, 500), default=20, show_default=True, help="Cards in this session.")
@click.option("--rival", is_flag=True, help="A ghost rival reacting from your own history, slightly faster.")
@click.option("--level", default=None, help="Start at this level (its rule name); skips the placement test.")
@click.option("--no-placement", is_flag=True, help="Start at level 1 (or where you were) without a placement test.")
@click.option("--drills", "drills_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Drill only these situations (the file 'referee teach explain SESSION -o FILE' writes).")
@click.option("--window", "use_window", is_flag=True, help="Show the drawn cards in a window (OpenCV) instead of the terminal.")
@click.option("--data", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Progress folder (default $TABLE_REFEREE_DATA, $XDG_DATA_HOME/table-referee or ~/.local/share/table-referee).")
@click.option("--script", default=None, metavar="oracle|FILE",
              help="Answer with scripted keys on a simulated clock (tests, demos): 'oracle' gives the right "
                   "answer 0.4 s after each card; FILE is JSON, one list of [seconds, key] per card (cycled).")
@click.option("--start", default=None, hidden=True, help="The session's start time (ISO, UTC) for reproducible files.")
@click.option("--report", "report", is_flag=True, help="Write the HTML progress page and exit.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="--report: the page to write (default: teach-report.html in the progress folder); explain: drills file.")
@click.option("--calibration", "cal", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="A camera drill: the table's calibration (referee calibrate). IKATAKO: hands and voice read; "
                   "TAKOYAKI, Sea Salt & Paper, TORATANU: the cards read, answered with keys.")
@click.option("--camera", default=None, help="With --calibration: the camera (index or device path).")
@click.option("--audio-device", default=None, help="With --calibration: the audio input (sounddevice index or name).")
@click.option("--from-video", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="With --calibration: a recording played through the live sources in real time; its card "
                   "flips are the drill's cards.")
@click.option("--audio", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="With --from-video: the seats' WAV (IKATAKO needs it; without it the others' seats are silent).")
@click.option("--seat", default=None, help="With --calibration: the learner's seat (default: the first seat); "
                                           "explain: only this player's mistakes become drills.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="With --calibration: where the drill's session record, video and audio go (default: a new folder).")
def teach_cmd(what, session_file, mode, learner, lang, no_voice, seed, cards, rival, level, no_placement,
              drills_file, use_window, data, script, start, report, output, cal, camera, audio_device, from_video,
              audio, seat, out):
    """Learn the games: drills that show a card, read your keys, judge with the referee and
    say why (reason first), on a rule ladder with spaced repetition.

    \b
    referee teach ikatako                 # 20 cards, keys F/J for the hands, letters for words
    referee teach ikatako --mode coop     # running totals and uzushio
    referee teach mokochaka | takoyaki | seasaltpaper | toratanu
    referee teach --report                # the HTML progress page
    referee teach explain SESSION.jsonl   # a recorded game, card by card, and its mistakes as drills
    referee teach ikatako --calibration CAL --camera 0 --seat aki      # hands and voice, read by the referee
    referee teach ikatako --calibration CAL --from-video V.mp4 --audio SEATS.wav --seat aki
    referee teach takoyaki --calibration CAL --camera 0 --seat aki     # questions about the cards read
    """
    from referee.language import table_language
    from referee.teach.progress import data_dir
    lang = table_language(lang, cal)
    if report:
        from referee.teach.report import write_report
        path = write_report(_open(learner, data), output or data_dir(data) / "teach-report.html", lang)
        click.echo(f"wrote {path}")
        return
    if what is None:
        raise click.UsageError(f"name a game ({', '.join(_games())}), 'explain SESSION.jsonl' or --report")
    if what == "explain":
        if not session_file:
            raise click.UsageError("explain needs a session record: referee teach explain SESSION.jsonl")
        from referee.teach.explain import add_to_progress, explain_file
        text, drills_out = explain_file(Path(session_file), lang, seat=seat)
        click.echo(text)
        if output:
            output.write_text("".join(x + "\n" for x in drills_out), encoding="utf-8")
            click.echo(f"wrote {len(drills_out)} drill(s) to {output}")
        if drills_out:
            from datetime import datetime, timezone
            progress = _open(learner, data)
            added = add_to_progress(progress, drills_out, _start(start) or datetime.now(timezone.utc))
            from referee.teach import drills
            games = sorted({a.split()[0] for a in added})
            click.echo(f"{len(added)} drill(s) due now for learner {learner} ({progress.path}): "
                       + ", ".join(f"'referee teach {drills.command(g)}'" for g in games)
                       + " brings them back first" if added else "no drill could be posed from these mistakes")
        return
    if what not in _games():
        raise click.UsageError(f"unknown game {what!r} (games: {', '.join(_games())})")
    if session_file:
        raise click.UsageError("a session record goes with 'explain', not with a game")
    from referee.teach import drills
    from referee.teach.lesson import Lesson, LessonParams
    name = drills.for_game(what, mode)
    drill = drills.get(name)
    if seed is None:
        seed = int.from_bytes(os.urandom(2), "big")
    sensing = cal is not None or from_video is not None or camera is not None or audio is not None
    if sensing:
        return _sensed(name, cal, camera, audio_device, from_video, audio, seat, out, learner, data, lang, seed,
                       cards, level, use_window, no_voice, start, drill, script)
    only = _read_drills(drills_file, drill) if drills_file else None
    progress = _open(learner, data)
    voice = _voice(lang, not no_voice, drill)
    if use_window:  # the window first: without a display it fails before the terminal is touched
        from referee.teach.window import WindowView
        view = WindowView(lang=lang)
        keys = view.keys() if script is None else _scripted(script, drill)
    else:
        from referee.teach.terminal import TerminalView
        view = TerminalView(sys.stdout, lang=lang, game=drill.game)
        keys = _keys() if script is None else _scripted(script, drill)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            lesson = Lesson(drill, progress, keys, view, learner=learner, lang=lang, seed=seed, voice=voice,
                            rival=rival, level=level, placement=not no_placement, params=LessonParams(cards=cards),
                            start=_start(start), only=only)
            summary = lesson.run()
        finally:
            keys.close()
            view.close()
    import shutil

    from referee.teach.terminal import summary_text
    width = shutil.get_terminal_size((80, 24)).columns - 1 if sys.stdout.isatty() else None
    click.echo("\n\n" + summary_text(summary, lang, width))
    click.echo(f"progress: {progress.path}")
    if voice is not None:
        voice.wait(5.0)
        voice.close()


def _sensed(name, cal, camera, audio_device, from_video, audio, seat, out, learner, data, lang, seed, cards, level,
            use_window, no_voice, start, drill, script=None):
    """``referee teach ikatako --calibration CAL (--camera N | --from-video V --audio W)``, and
    the card-reading drills (``takoyaki``, ``seasaltpaper``, ``toratanu``: ``--from-video V``
    alone, answered with keys, ``--script`` too)."""
    from referee.teach import drills
    run_sensed = drills.entry(name).camera_drill()
    if run_sensed is None:
        import rules
        with_camera = [e for g in drills.games() for e in drills.teaching(g).drills if e.sensed is not None]
        said = ", ".join(" ".join(x for x in (rules.get(d.game).title, d.mode) if x)
                         for d in (e.make() for e in with_camera))
        raise click.UsageError(f"the camera drills are {said}: referee teach {with_camera[0].name} "
                               "--calibration CAL ...")
    if cal is None:
        raise click.UsageError("a camera or recording drill needs the table's --calibration (referee calibrate)")
    if from_video is not None and camera is not None:
        raise click.UsageError("--from-video and --camera: give one")
    keys_answer = drills.entry(name).keys_answer  # the cards read, the answer typed: no microphone needed
    if (audio is not None and from_video is None) or (from_video is not None and audio is None and not keys_answer):
        raise click.UsageError("--from-video goes with --audio SEATS.wav (and --audio with --from-video)")
    from referee.commands.live import device_arg, new_out_folder
    progress = _open(learner, data)
    voice = _voice(lang, not no_voice, drill)
    if use_window:
        from referee.teach.window import WindowView
        view = WindowView(lang=lang)
    else:
        from referee.teach.terminal import TerminalView
        view = TerminalView(sys.stdout, lang=lang, game=drill.game)
    extra = {}
    if keys_answer:
        extra["keys"] = _scripted(script, drill) if script is not None else view.keys() if use_window else _keys()
        extra["game"] = drill.game
    out = out or new_out_folder()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sensed, result = run_sensed(calibration=cal, seat=seat, out=out, view=view,
                                        camera=device_arg(camera if camera is not None else "0"),
                                        audio_device=device_arg(audio_device) if audio_device is not None else None,
                                        from_video=from_video, audio=audio, lang=lang, cards=cards, seed=seed,
                                        progress=progress, level=level, voice=voice, start=_start(start),
                                        say=lambda m: click.echo(m, err=True), **extra)
    finally:
        if "keys" in extra:
            extra["keys"].close()
        view.close()
    s = sensed.summary()
    med = f"{s['median_reaction']:.2f} s" if s["median_reaction"] is not None else "-"
    click.echo(f"\n{sensed.seat}: {s['cards']} card(s), {s['right']} right, median reaction {med} "
               f"({s.get('clock', 'sensor clock')})")
    if s.get("unclear"):
        click.echo(f"{s['unclear']} reading(s) not clear: not drilled (shown again at the table, they are asked)")
    if s["feedback_after_window_s"]:
        med_l, max_l = s["feedback_after_window_s"]
        click.echo(f"feedback after each card's window closed (session clock): median {med_l:.2f} s, max {max_l:.2f} s")
    click.echo(f"drill record, video and audio: {result.out}")
    click.echo(f"progress: {progress.path}")
    for w in result.warnings:
        click.echo(f"referee: warning: {w}", err=True)
    if voice is not None:
        voice.wait(5.0)
        voice.close()


def _games() -> list[str]:
    """The games with drills (each game's ``referee/teach/drills/<game>.py``)."""
    from referee.teach import drills
    return drills.games()


def _open(learner, data):
    from referee.teach.progress import Progress
    progress = Progress.open(learner, data)
    for issue in progress.issues:
        click.echo(f"referee: warning: {issue}", err=True)
    return progress


def _read_drills(path: Path, drill) -> list:
    """The situations of ``drill`` listed in a drills file (``DRILL KEY  # note`` per line)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise TeachError(f"{path}: cannot read the drills ({exc.strerror})") from None
    out, skipped = [], 0
    for line in lines:
        words = line.split("#")[0].split()
        if len(words) != 2 or words[0] != drill.name:
            continue
        sit = drill.make(words[1])
        if sit is None:
            skipped += 1
        elif sit.key not in {s.key for s in out}:
            out.append(sit)
    if skipped:
        click.echo(f"referee: warning: {path}: {skipped} situation(s) this drill cannot pose were skipped", err=True)
    if not out:
        raise TeachError(f"{path}: no {drill.name} situation to drill (lines look like '{drill.name} KEY  # note')")
    return out


def _start(text):
    if text is None:
        return None
    from datetime import datetime, timezone
    try:
        return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)
    except ValueError:
        raise click.BadParameter(f"not an ISO time: {text!r}", param_hint="--start") from None


def _scripted(script: str, drill):
    import json
    from referee.teach.keys import FakeClock, ScriptedKeys
    if script == "oracle":
        return ScriptedKeys(lambda sit: [(0.4 + 0.1 * i, k) for i, k in enumerate(drill.oracle(sit))], FakeClock())
    try:
        tape = json.loads(Path(script).read_text(encoding="utf-8"))
        cards = [[(float(t), str(k)) for t, k in card] for card in tape]
    except (OSError, ValueError, TypeError) as exc:
        raise TeachError(f"{script}: not a key script (a JSON list of [[seconds, key], ...] per card): {exc}") from None
    if not cards:
        raise TeachError(f"{script}: the key script holds no card")
    n = [0]

    def policy(sit):
        n[0] += 1
        return cards[(n[0] - 1) % len(cards)]
    return ScriptedKeys(policy, FakeClock())


def _keys():
    from referee.teach.keys import StreamKeys, TtyKeys
    stdin = sys.stdin
    try:
        if stdin.isatty():
            return TtyKeys(stdin.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return StreamKeys(stdin)

"""``referee calibrate``: set a table up (guided at the camera, or from a recording).

Writes ``OUT/calibration.json`` (schema version 2) and ``OUT/refs/CODE.png``. Every step
checks itself and prints what to fix; the file is written only when no check failed
(``--force`` writes it anyway), and it is loaded back through the schema, and its card
references read back as a replay reads them, before the command reports success: a
reference that cannot be read (a write cut short, an earlier calibration's image left in
``OUT/refs``) or a folder without any is one clear error now, not at the first replay.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

import rules
from calibration.enroll_takes import DEFAULT_TAKES, TAKES_RANGE


PLAYERS_HELP = ("the players' names left to right as the camera sees them, e.g. aki,ben,chie,dai "
                "(or their number, e.g. 4); --players aki,ben,chie,dai gives them on the command line")


def _names(players: str | None, n_channels: int | None, ask: bool = True) -> list[str]:
    """The seats' names: ``--players`` (names or a count), else asked on the terminal (the
    channel count, when known, is offered as the answer); with no one to ask, one error
    saying what ``--players`` wants."""
    from session.errors import CalibrationError

    if players is None:
        if not ask and n_channels:
            return [f"p{i + 1}" for i in range(n_channels)]
        if not ask:
            raise CalibrationError(f"--players: give {PLAYERS_HELP.split(';')[0]}")
        click.echo(f"Players: give {PLAYERS_HELP}.", err=True)
        try:
            players = click.prompt("Players", default=str(n_channels) if n_channels else None, err=True)
        except click.Abort:
            click.echo("", err=True)  # (the prompt's line ended: the error on a line of its own)
            raise CalibrationError(f"--players: give {PLAYERS_HELP.split(';')[0]}") from None
    if players.strip().isdigit():
        n = int(players)
        if not 1 <= n <= 12:
            raise CalibrationError(f"--players: 1..12 players, got {n}")
        return [f"p{i + 1}" for i in range(n)]
    names = [p.strip() for p in players.split(",") if p.strip()]
    if len(set(names)) != len(names) or not names:
        raise CalibrationError(f"--players: distinct names expected, got {players!r}")
    return names


def _require_camera(camera) -> None:
    """The camera opens and gives a picture, checked before anyone is asked anything."""
    from session.errors import DeviceError
    from vision.devices import can_open

    if not can_open(camera):
        raise DeviceError(f"camera {camera!r} cannot be opened (not plugged in, another program using it, or another "
                          f"index: referee devices lists the cameras)")


def _choose_input(audio_device, room: bool, seats: int):
    """The audio input of a guided calibration and whether it is one room microphone.

    ``--audio-device`` names it; else the input that fits ``seats`` (``audio.devices``):
    the referee says which it took. An input with fewer channels than seats is used as one
    room microphone (one laptop), said in one line. No input at all: None (hands and cards
    only; the channels step says so)."""
    from audio.devices import best_for, find, fit, list_inputs
    from session.errors import DeviceError

    try:
        inputs = list_inputs()
    except DeviceError as exc:
        if audio_device is not None:
            raise
        click.echo(f"referee: warning: no audio input ({exc}): seats' channels and voices are left out", err=True)
        return None, room
    if audio_device is not None:
        chosen = find(inputs, audio_device)
    else:
        chosen = best_for(inputs, seats)
        if chosen is None:
            click.echo("referee: warning: no audio input here: seats' channels and voices are left out "
                       "(referee devices lists what there is)", err=True)
            return None, room
        click.echo(f"microphones: input {chosen.index} '{chosen.name}' ({chosen.channels} channel(s)); "
                   f"--audio-device N takes another (referee devices lists them)", err=True)
    if not room and fit(chosen, seats).mode == "room":
        from audio.devices import ROOM

        click.echo(f"referee: warning: input {chosen.index} has {chosen.channels} channel(s) for {seats} seats: "
                   f"one-laptop mode ({ROOM})", err=True)
        room = True
    return chosen.index, room


def _zones(values: tuple[str, ...]) -> dict:
    from session.calibration import Box
    from session.errors import CalibrationError

    out = {}
    for v in values:
        if "=" not in v:
            raise CalibrationError(f"--zone: NAME=X1,Y1,X2,Y2 expected, got {v!r}")
        name, box = v.split("=", 1)
        out[name.strip()] = Box.from_value(box, f"--zone {name.strip()}").to_list()
    return out


@click.command("calibrate")
@click.option("--game", type=click.Choice(rules.names()),
              help="The game the table will play (required, except with --enroll-only).")
@click.option("--camera", default=None, help="Camera index or device (guided, in a window).")
@click.option("--from-video", "video", type=click.Path(dir_okay=False, path_type=Path),
              help="A calibration recording instead of the camera (non-interactive).")
@click.option("--audio", "audio", type=click.Path(dir_okay=False, path_type=Path),
              help="With --from-video: the seats' multi-channel WAV (default: the video's own audio track).")
@click.option("--audio-device", default=None, help="With --camera: the multi-channel input (index or name).")
@click.option("--players", default=None,
              help="Names left to right as the camera sees them, or a count (guided: asked when not given).")
@click.option("--cards", "card_list", default=None, help="Card codes in the order shown (default: the game's deck).")
@click.option("--deck-rows", is_flag=True,
              help="The deck laid out in rows, a suit per shot (A..K in reading order), instead of one card at a "
                   "time: guided with --camera, or each still showing of --from-video's recording is a layout.")
@click.option("--deck-photos", "deck_photos", multiple=True,
              help="With --from-video: the layout photos (P1,P2,... or repeated), one per shot in the printed "
                   "order; the recording then needs no cards shown.")
@click.option("--cards-per-photo", type=click.IntRange(1, 60), default=13, show_default=True,
              help="Cards per layout shot (--deck-rows, --deck-photos): a standard deck's suit.")
@click.option("--zone", "zone_opts", multiple=True, help="A zone given by hand: NAME=X1,Y1,X2,Y2 (repeatable).")
@click.option("--enroll", type=click.Path(file_okay=False, path_type=Path),
              help="Voice takes made by hand (DIR/<player>/<call>.<take>.wav) to reference instead of recording them.")
@click.option("--enroll-from", "enroll_from", type=click.Path(dir_okay=False, path_type=Path),
              help="Record the voice enrollment from this WAV (the players saying the calls in the prompted order) "
                   "instead of the audio input.")
@click.option("--enroll-only", is_flag=True,
              help="Only record the voice enrollment again for --calibration FILE (and set its enroll field).")
@click.option("--calibration", "cal_file", type=click.Path(dir_okay=False, path_type=Path),
              help="With --enroll-only: the calibration file whose players' voices to record.")
@click.option("--enroll-takes", type=click.IntRange(*TAKES_RANGE), default=DEFAULT_TAKES, show_default=True,
              help="Takes of each call per player.")
@click.option("--room", is_flag=True,
              help="One room microphone for everyone (one laptop): no channel per seat is looked for.")
@click.option("--selftest/--no-selftest", default=True, show_default=True,
              help="Guided: end with the live self-test (each seat says a word and raises each hand).")
@click.option("--skip-enroll", is_flag=True, help="Do not record the voice enrollment (hearing is weaker without it).")
@click.option("--lang", type=click.Choice(["ja", "en"]), default="ja", show_default=True,
              help="The language the calls are said in (the prompts of the voice enrollment).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("table"), show_default=True,
              help="Folder for calibration.json and refs/.")
@click.option("--force", is_flag=True, help="Write the file even when a check failed.")
@click.option("--json", "as_json", is_flag=True, help="Print the checks and the calibration as JSON.")
def calibrate_cmd(game, camera, video, audio, audio_device, players, card_list, deck_rows, deck_photos,
                  cards_per_photo, zone_opts, enroll, enroll_from, enroll_only, cal_file, enroll_takes, room, selftest,
                  skip_enroll, lang, out, force, as_json) -> None:
    """Calibrate a table: seats, zones, card references, microphone channels and the players' voices."""
    from calibration import steps
    from calibration.decks import deck_cards
    from session import calibration as schema
    from session.errors import CalibrationError

    if enroll is not None and (enroll_from is not None or enroll_only):
        raise CalibrationError("--enroll DIR references takes made by hand; --enroll-from and --enroll-only record "
                               "them: give one or the other")
    if enroll_only:
        return _enroll_only(cal_file, enroll_from, audio_device, enroll_takes, lang)
    if cal_file is not None:
        raise CalibrationError("--calibration FILE goes with --enroll-only (a new calibration is written to --out)")
    if game is None:
        raise CalibrationError("--game: which game the table will play (" + ", ".join(rules.names()) + ")")
    if (camera is None) == (video is None):
        raise CalibrationError("give either --camera N (guided) or --from-video VIDEO (a recording)")
    codes = tuple(c.strip() for c in card_list.split(",") if c.strip()) if card_list else deck_cards(game)
    photos = _deck_photos(deck_photos, video, deck_rows)
    per_shot = cards_per_photo if deck_rows or photos else None
    if per_shot is not None:
        from calibration.deck_capture import plan_lines

        click.echo("the deck in rows: " + "; ".join(plan_lines(codes, per_shot)), err=True)
    zones = _zones(zone_opts)
    for z in zones:  # a wrong zone name is said before any work, not after
        if not rules.get(game).has_zone(z):
            raise CalibrationError(f"--zone {z}: not a zone of {game}")
    if camera is not None:
        from calibration.interactive import calibrate_camera, require_display

        require_display()
        _require_camera(camera)
        n_ch = None
        if audio_device is not None:
            from audio.capture import device_info

            n_ch = device_info(int(audio_device) if str(audio_device).isdigit() else audio_device)[0]
        names = _names(players, n_ch)
        audio_device, room = _choose_input(audio_device, room, len(names))
        res = calibrate_camera(camera, game, names, codes, zones=zones, audio_device=audio_device, room=room,
                               deck_rows=per_shot)
    else:
        from calibration.recording import calibrate_recording
        from vision.video import probe

        info = probe(video)
        n_ch = None
        if audio is not None:
            from audio.capture import FileSource

            n_ch = FileSource(audio).channels
        names = _names(players, n_ch, ask=False)
        with click.progressbar(length=info.frames or 0, label="calibrating", file=sys.stderr) as bar:
            res = calibrate_recording(video, audio if audio is not None else _own_audio(video), game, names, codes,
                                      zones=zones, on_frame=lambda fr: bar.update(1), deck_rows=per_shot,
                                      deck_photos=photos)
    fails = steps.failed(res.checks)
    out.mkdir(parents=True, exist_ok=True)
    cal_obj = dict(res.calibration)
    # the table's language: `referee live` and `referee teach` default to it (referee.language)
    cal_obj["extra"] = {**(cal_obj.get("extra") or {}), "lang": lang}
    if enroll is not None:
        cal_obj["enroll"] = str(enroll.resolve())
    written = None
    record_from = enroll_from if enroll_from is not None else (
        "device" if camera is not None and audio_device is not None and not skip_enroll and not room else None)
    if room and enroll_from is None and not skip_enroll:  # (the players' time is not asked for nothing)
        click.echo("voices: not recorded: with one room microphone a word is credited to a seat by its hands or "
                   "mouth, not by its voice, so enrolled voices would not be used", err=True)
    if record_from is not None and (not fails or force):
        cal_obj["enroll"] = str(_record_voices(game, cal_obj["seats"], out / "enroll", enroll_from, cal_obj.get("audio"),
                                               enroll_takes, lang, room=room).resolve())
    if not fails or force:
        refs = out / "refs"
        refs.mkdir(exist_ok=True)
        for code, img in res.references.items():
            _write_reference(refs / f"{code}.png", img)
        if cal_obj.get("audio", {}).get("file") and audio is not None:
            cal_obj["audio"]["file"] = str(Path(audio).resolve())
        cal = schema.Calibration.from_dict(cal_obj, base=out)  # the schema checks what the steps built
        written = out / "calibration.json"
        schema.save(cal, written)
        _read_back(schema.load(written, games=rules))
    if as_json:
        click.echo(json.dumps({"checks": [c.to_dict() for c in res.checks], "calibration": cal_obj,
                               "written": str(written) if written else None, "seconds": round(res.seconds, 2),
                               "frames": res.frames}, ensure_ascii=False))
    else:
        for c in res.checks:
            click.echo(str(c))
        warns = sum(1 for c in res.checks if c.level == "warn")
        click.echo(f"{len(res.checks)} checks: {len(fails)} failed, {warns} warnings; {res.seconds:.1f} s")
        if written:
            click.echo(f"wrote {written}")
    if fails and not force:
        raise CalibrationError(f"calibration not written: {len(fails)} check(s) failed (see above; --force writes it "
                               f"anyway)")
    if written and camera is not None and not as_json:
        _end_with_selftest(written, camera, cal_obj.get("audio"), room, selftest, lang)


def _deck_photos(given, video, deck_rows: bool):
    """The ``--deck-photos`` images (paths comma-separated or repeated), read, or None."""
    from session.errors import CalibrationError

    paths = [Path(p.strip()) for arg in given for p in arg.split(",") if p.strip()]
    if not paths:
        return None
    if video is None:
        raise CalibrationError("--deck-photos goes with --from-video VIDEO (the recording gives the seats and "
                               "channels); at the camera use --deck-rows")
    if deck_rows:
        raise CalibrationError("give --deck-photos (the layouts as photos) or --deck-rows (the layouts in the "
                               "recording), not both")
    from calibration.deck_capture import read_photos

    return read_photos(paths)


def _end_with_selftest(written: Path, camera, audio_info, room: bool, selftest: bool, lang: str) -> None:
    """The guided calibration's last step: the live self-test on the table just calibrated
    (``referee live`` runs it again before every game). It says what to fix; the
    calibration is written whatever it finds."""
    nxt = f"next: referee live --calibration {written}"
    if not selftest:
        click.echo(nxt)
        return
    if audio_info is None or room:
        why = "no audio input" if audio_info is None else "one room microphone (no channel per seat to test)"
        click.echo(f"self-test skipped: {why}; {nxt}")
        return
    from referee.live.run import LiveOptions, run_live
    from referee.live.selftest import SelfTestParams, render_text

    click.echo("self-test: each seat says one word and raises the left hand, then the right", err=True)
    opts = LiveOptions(calibration=written, out=written.parent, camera=int(camera) if str(camera).isdigit() else camera,
                       audio_device=audio_info.get("device"), lang=lang, window=True, voice=False)
    check = run_live(opts, selftest=SelfTestParams(), say=lambda s: click.echo(s, err=True))
    result = check.figures["selftest"]
    click.echo("\n".join(render_text(result)[:-1]))
    click.echo(f"self-test {'passed' if result.passed else 'failed for ' + ', '.join(result.failed or ['the table'])}"
               f"; {nxt}" + ("" if result.passed else " (it runs the self-test again)"))


def _enroll_source(enroll_from, device, channels):
    from calibration.enrollment import open_source

    dev = int(device) if device is not None and str(device).isdigit() else device
    return open_source(enroll_from, dev, channels), enroll_from is None


def _terminal_ui(live: bool):
    """The step's terminal: a live table waits for each player's ENTER (when someone can press it)."""
    from calibration.enroll_ui import TerminalUI

    ready = None
    if live and sys.stdin.isatty():
        def ready(name, channel):
            click.prompt(f"{name}: press ENTER when ready", default="", show_default=False, prompt_suffix="")
    return TerminalUI(ready=ready)


def _say_enrolled(res) -> None:
    for w in res.warnings:
        click.echo(f"[WARN] {w}")
    kept = sum(res.kept.values())
    click.echo(f"voices: {kept} takes of {len(res.kept)} players in {res.folder} ({len(res.retakes)} asked again, "
               f"{len(res.warnings)} warnings; {res.seconds:.0f} s)" +
               (f"; the earlier takes are in {res.previous}" if res.previous else ""))


def _record_voices(game, seats, folder: Path, enroll_from, audio_info, takes, lang, room: bool = False) -> Path:
    """The voice-enrollment step of a new calibration (its seats' channels as just found; from
    a recording made at a room microphone, its one channel for every player, each in turn)."""
    from calibration.enrollment import enroll_table

    device = (audio_info or {}).get("device")
    pairs = [(s["name"], 0 if room else s.get("channel")) for s in seats]
    need = max((c for _, c in pairs if c is not None), default=0) + 1
    source, live = _enroll_source(enroll_from, device, need)
    _say_plan(game, pairs, takes, lang, enroll_from)
    res = enroll_table(game, pairs, folder, source, _terminal_ui(live), lang=lang, takes=takes)
    _say_enrolled(res)
    return res.folder


def _enroll_only(cal_file, enroll_from, audio_device, takes, lang) -> None:
    """``--enroll-only``: the voices of an existing calibration again (its enroll field set)."""
    from calibration.enrollment import load_for_enrollment, redo
    from session.errors import CalibrationError

    if cal_file is None:
        raise CalibrationError("--enroll-only: name the calibration with --calibration FILE")
    cal = load_for_enrollment(cal_file)
    device = audio_device if audio_device is not None else (cal.audio.device if cal.audio is not None else None)
    need = max((s.channel for s in cal.seats if s.channel is not None), default=0) + 1
    source, live = _enroll_source(enroll_from, device, need)
    _say_plan(cal.game, [(s.name, s.channel) for s in cal.seats], takes, lang, enroll_from)
    res = redo(cal_file, source, _terminal_ui(live), lang=lang, takes=takes)
    _say_enrolled(res)
    click.echo(f"updated {cal_file}: \"enroll\": {_json_text(res.folder, cal_file)} (nothing else changed)")


def _json_text(folder, cal_file) -> str:
    from calibration.enrollment import enroll_field

    return json.dumps(enroll_field(folder, cal_file))


def _say_plan(game, seats, takes, lang, enroll_from) -> None:
    """What the step will ask, before it asks it."""
    from calibration.enrollment import prompts

    plan = prompts(game, seats, lang, takes)
    calls = len(plan) // (len(seats) * takes)
    where = f"from {enroll_from}" if enroll_from is not None else "from the microphones"
    click.echo(f"voice enrollment ({where}): {len(seats)} players x {calls} calls x {takes} takes = {len(plan)} "
               f"takes, each player in turn on their own microphone. Say each word once it is shown; the meter "
               f"shows your level (a word should reach the middle, never the end); a take is asked again when "
               f"nothing was heard, it clipped, or it sounded like another call.")


def _write_reference(path: Path, image) -> None:
    """One captured reference as PNG; a write that fails (OpenCV only returns False: a full
    disk, a folder in the way) is said, not left for the first replay to find."""
    import cv2

    from session.errors import MediaError

    if not cv2.imwrite(str(path), image, [cv2.IMWRITE_PNG_COMPRESSION, 9]):
        raise MediaError(f"cannot write the reference image {path}")


def _read_back(cal) -> None:
    """The written calibration's card references, read as every replay and live session will
    (``vision.card_references.References.from_folder``): an image that cannot be read, or no
    image at all, raises its one-line error here."""
    if not cal.card_zones or cal.references is None:  # (a game without card zones never reads them)
        return
    from vision.cards import References

    References.from_folder(cal.references)


def _own_audio(video: Path):
    """The video's own audio track, when it has one."""
    import av

    try:
        with av.open(str(video)) as c:
            return video if c.streams.audio else None
    except Exception:  # noqa: BLE001 - probe() already reported an unreadable video
        return None

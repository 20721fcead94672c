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


def _names(players: str | None, n_channels: int | None) -> list[str]:
    from session.errors import CalibrationError

    if players is None:
        if n_channels is None:
            raise CalibrationError("--players: give the players left to right as the camera sees them "
                                   "(--players aki,ben,chie,dai) or their number (--players 4)")
        return [f"p{i + 1}" for i in range(n_channels)]
    if players.strip().isdigit():
        n = int(players)
        if not 1 <= n <= 12:
            raise CalibrationError(f"--players: 1..12 players, got {n}")
        return [f"p{i + 1}" for i in range(n)]
    names = [p.strip() for p in players.split(",") if p.strip()]
    if len(set(names)) != len(names) or not names:
        raise CalibrationError(f"--players: distinct names expected, got {players!r}")
    return names


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
@click.option("--game", required=True, type=click.Choice(rules.names()), help="The game the table will play.")
@click.option("--camera", default=None, help="Camera index or device (guided, in a window).")
@click.option("--from-video", "video", type=click.Path(dir_okay=False, path_type=Path),
              help="A calibration recording instead of the camera (non-interactive).")
@click.option("--audio", "audio", type=click.Path(dir_okay=False, path_type=Path),
              help="With --from-video: the seats' multi-channel WAV (default: the video's own audio track).")
@click.option("--audio-device", default=None, help="With --camera: the multi-channel input (index or name).")
@click.option("--players", default=None, help="Names left to right as the camera sees them, or a count.")
@click.option("--cards", "card_list", default=None, help="Card codes in the order shown (default: the game's deck).")
@click.option("--zone", "zone_opts", multiple=True, help="A zone given by hand: NAME=X1,Y1,X2,Y2 (repeatable).")
@click.option("--enroll", type=click.Path(file_okay=False, path_type=Path),
              help="A folder of per-player voice takes (DIR/<player>/<call>.wav) to reference.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("table"), show_default=True,
              help="Folder for calibration.json and refs/.")
@click.option("--force", is_flag=True, help="Write the file even when a check failed.")
@click.option("--json", "as_json", is_flag=True, help="Print the checks and the calibration as JSON.")
def calibrate_cmd(game, camera, video, audio, audio_device, players, card_list, zone_opts, enroll, out, force,
                  as_json) -> None:
    """Calibrate a table: seats, zones, card references and microphone channels."""
    from calibration import steps
    from session import calibration as schema
    from calibration.decks import deck_cards
    from session.errors import CalibrationError

    if (camera is None) == (video is None):
        raise CalibrationError("give either --camera N (guided) or --from-video VIDEO (a recording)")
    codes = tuple(c.strip() for c in card_list.split(",") if c.strip()) if card_list else deck_cards(game)
    zones = _zones(zone_opts)
    for z in zones:  # a wrong zone name is said before any work, not after
        if not rules.get(game).has_zone(z):
            raise CalibrationError(f"--zone {z}: not a zone of {game}")
    if camera is not None:
        from calibration.interactive import calibrate_camera, require_display

        require_display()
        n_ch = None
        if audio_device is not None:
            from audio.capture import device_info

            n_ch = device_info(int(audio_device) if str(audio_device).isdigit() else audio_device)[0]
        names = _names(players, n_ch)
        res = calibrate_camera(camera, game, names, codes, zones=zones,
                               audio_device=int(audio_device) if audio_device and audio_device.isdigit() else audio_device)
    else:
        from calibration.recording import calibrate_recording
        from vision.video import probe

        info = probe(video)
        n_ch = None
        if audio is not None:
            from audio.capture import FileSource

            n_ch = FileSource(audio).channels
        names = _names(players, n_ch)
        with click.progressbar(length=info.frames or 0, label="calibrating", file=sys.stderr) as bar:
            res = calibrate_recording(video, audio if audio is not None else _own_audio(video), game, names, codes,
                                      zones=zones, on_frame=lambda fr: bar.update(1))
    fails = steps.failed(res.checks)
    out.mkdir(parents=True, exist_ok=True)
    cal_obj = dict(res.calibration)
    if enroll is not None:
        cal_obj["enroll"] = str(enroll.resolve())
    written = None
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

"""``referee vision arms|cards``: check one still by hand (and for outside benchmarks)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from session.errors import MediaError


def _read_image(path: Path):
    import cv2

    if not path.is_file():
        raise MediaError(f"image {path} not found")
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise MediaError(f"image {path} is unreadable (not an image, or corrupt)")
    return img


def _parse_box(text: str, img) -> tuple[int, int, int, int]:
    from session.calibration import Box
    from session.errors import CalibrationError

    try:
        b = Box.from_value(text, "--box", (img.shape[1], img.shape[0]))
    except CalibrationError as exc:
        raise click.BadParameter(str(exc).removeprefix("--box: "), param_hint="--box") from None
    return b.x1, b.y1, b.x2, b.y2


@click.group("vision")
def vision_cmd() -> None:
    """Check the camera's view: raised arms of one person, cards in one image."""


@vision_cmd.command("arms")
@click.argument("image", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--box", required=True, metavar="X1,Y1,X2,Y2", help="The person's (seat) box in pixels.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--half-raise/--no-half-raise", default=True, show_default=True,
              help="A hand raised to head height counts as raised (the table rule half_raise).")
def arms_cmd(image: Path, box: str, as_json: bool, half_raise: bool) -> None:
    """Which arms the person in BOX raises (their own left/right; the image is not mirrored)."""
    from vision.hands import arms_in_image

    img = _read_image(image)
    res = arms_in_image(img, _parse_box(box, img), half_raise=half_raise)
    if as_json:
        click.echo(json.dumps(res))
    elif not res["found"]:
        click.echo("no person found in the box")
    else:
        yn = {True: "raised", False: "down"}
        click.echo(f"left arm: {yn[res['left_raised']]}, right arm: {yn[res['right_raised']]} (the person's own sides)")


@vision_cmd.command("cards")
@click.argument("image", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--refs", "refs_dir", required=True, type=click.Path(path_type=Path),
              help="Folder of reference images named by card code (2S.jpg, ika.png, 2S_1.jpg).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--debug", "debug_png", type=click.Path(dir_okay=False, path_type=Path), metavar="OUT.png",
              help="Draw every card outline found with its best code and score (green: read, orange: "
                   "uncertain, red: no reference fits, grey: not a card) into OUT.png.")
def cards_cmd(image: Path, refs_dir: Path, as_json: bool, debug_png: Path | None) -> None:
    """The cards recognised in IMAGE (top to bottom, left to right); look-alikes are counted
    as uncertain, never guessed."""
    from vision.cards import References, codes_of, recognise

    refs = References.from_folder(refs_dir)
    img = _read_image(image)
    matches = recognise(img, refs)
    codes, uncertain = codes_of(matches)
    if debug_png is not None:
        import cv2

        from vision.debug import draw_outlines

        if not cv2.imwrite(str(debug_png), draw_outlines(img, refs, matches)):
            raise MediaError(f"--debug: cannot write {debug_png} (a .png path in an existing folder)")
    if as_json:
        click.echo(json.dumps({"cards": codes, "uncertain": uncertain}))
    else:
        click.echo(f"cards: {' '.join(codes) if codes else '(none)'}; uncertain: {uncertain}")
        if debug_png is not None:
            click.echo(f"outlines drawn into {debug_png}")


@vision_cmd.command("zones")
@click.argument("calibration_file", metavar="CALIBRATION", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("source", metavar="VIDEO_OR_IMAGE", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--at", "at_s", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="For a video: the moment (seconds) whose frame is drawn on.")
@click.option("--out", "out_png", required=True, type=click.Path(dir_okay=False, path_type=Path), metavar="OUT.png",
              help="Where to write the picture.")
def zones_cmd(calibration_file: Path, source: Path, at_s: float, out_png: Path) -> None:
    """Draw CALIBRATION's seats and card zones on a frame of the table (an image, or a
    recording's frame at --at) into OUT.png: check that every box sits where it should."""
    import cv2

    from calibration import load
    from calibration.overlay import draw_setup

    cal = load(calibration_file)
    frame = _frame_of(source, at_s)
    if (frame.shape[1], frame.shape[0]) != (cal.width, cal.height):
        click.echo(f"warning: {source} is {frame.shape[1]}x{frame.shape[0]}, the calibration {cal.width}x"
                   f"{cal.height}: drawn on the frame scaled to the calibration's size", err=True)
    if not cv2.imwrite(str(out_png), draw_setup(frame, cal)):
        raise MediaError(f"cannot write {out_png} (is the folder there and writable, and the name a .png or .jpg?)")
    click.echo(f"the set-up drawn on {source}: {out_png}")


def _frame_of(source: Path, at_s: float):
    """An image's pixels, or a video's frame nearest ``at_s`` seconds."""
    if source.suffix.lower() in {".png", ".jpg", ".jpeg", ".bmp", ".webp"}:
        return _read_image(source)
    from vision.video import frames_at, probe

    if not source.is_file():
        raise MediaError(f"video {source} not found")
    info = probe(source)
    if info.duration is not None and at_s > info.duration:
        raise MediaError(f"--at {at_s:g} s is past the end of {source} ({info.duration:.1f} s)")
    got = frames_at(source, [at_s])
    if not got:
        raise MediaError(f"{source} has no frame near {at_s:g} s")
    return got[at_s]

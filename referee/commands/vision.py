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

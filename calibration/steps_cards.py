"""The calibration's card steps: a card shown alone found against the empty table, its reference
captured and re-identified at once, the look-alikes, the field zone (:mod:`calibration.steps`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import cv2
import numpy as np

from calibration.steps_check import Check


#: variance of the Laplacian (grey levels²) of a card warped to 150x225 below which its
#: image is too blurred for a reference. Measured: rendered demo cards 231-430, blurred 7x7
#: (a card moving during exposure) 58-80; real webcam cards (640x480, 48 images of
#: ../shared/data/cards/wmcnicho) 302 and up (median 1199) but for 2 (37, 67), all blurred 7x7 <= 116;
#: phone photos (52) >= 971. No latency cost (once per reference)
MIN_SHARPNESS = 150.0
#: a new card matching an already captured reference this well, the same way up, is that
#: card shown again (measured on the demo recording: the same card in two frames 0.78-1.0;
#: two different cards at most 0.83, the trouble cards sharing a frame). A repeat scoring
#: lower is not caught here but comes out as a look-alike warning of the two names
DUPLICATE_SCORE = 0.9
#: the field zone is the cards' extent widened by this many card widths on every side
FIELD_MARGIN = 0.35
#: a reference image is the card's bounding box widened by this fraction on every side
#: (vision.cards finds the outline again in it, against the table)
REF_MARGIN = 0.15
#: change detection: frames reduced by this factor; grey difference counting as change;
#: the changed area must be at least this fraction of the image to be a card
DIFF_SCALE = 4
DIFF_LEVEL = 30
MIN_BLOB_FRACTION = 0.002


def sharpness(image: np.ndarray, quad: np.ndarray) -> float:
    """Variance of the Laplacian of the card in ``quad``, warped to vision's canonical size
    (so the figure does not depend on how large the card is in the image)."""
    from vision.cards import warp_card

    face = cv2.cvtColor(warp_card(image, quad), cv2.COLOR_BGR2GRAY)
    return float(cv2.Laplacian(face, cv2.CV_64F).var())


def changed_box(image: np.ndarray, background: np.ndarray) -> tuple[int, int, int, int] | None:
    """The bounding box (full-image pixels) of the largest solid change against the empty
    table, or None. Thin changes (a person breathing, noise) are opened away."""
    s = DIFF_SCALE
    a = cv2.resize(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), None, fx=1 / s, fy=1 / s, interpolation=cv2.INTER_AREA)
    b = cv2.resize(cv2.cvtColor(background, cv2.COLOR_BGR2GRAY), None, fx=1 / s, fy=1 / s,
                   interpolation=cv2.INTER_AREA)
    diff = cv2.absdiff(a, b)
    mask = (diff > DIFF_LEVEL).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    if n <= 1:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h, area = stats[k]
    if area < MIN_BLOB_FRACTION * mask.size:
        return None
    return int(x * s), int(y * s), int((x + w) * s), int((y + h) * s)


def widen_box(box, frac: float, width: int, height: int, min_px: int = 0) -> tuple[int, int, int, int]:
    x1, y1, x2, y2 = box
    mx = max(min_px, int(round((x2 - x1) * frac)))
    my = max(min_px, int(round((y2 - y1) * frac)))
    return max(0, x1 - mx), max(0, y1 - my), min(width, x2 + mx), min(height, y2 + my)


def find_card(image: np.ndarray, background: np.ndarray) -> np.ndarray | None:
    """The outline (TL, TR, BR, BL, full-image pixels) of the one card that lies where the
    image differs from the empty table, or None."""
    from vision.cards import squareness, find_card_outlines

    box = changed_box(image, background)
    if box is None:
        return None
    h, w = image.shape[:2]
    x1, y1, x2, y2 = widen_box(box, 0.1, w, h, 8)
    quads = find_card_outlines(image[y1:y2, x1:x2], oblique=False)
    if not quads:
        return None
    area = (x2 - x1) * (y2 - y1)
    scored = [(cv2.contourArea(q) * squareness(q) ** 2, q) for q in quads if cv2.contourArea(q) < 0.9 * area]
    if not scored:
        return None
    best = max(scored, key=lambda sq: sq[0])[1]
    return (best + np.float32([x1, y1])).astype(np.float32)


def reference_crop(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The reference image of the card in ``quad``: its bounding box widened by
    :data:`REF_MARGIN` (the table around it lets vision find the outline again)."""
    h, w = image.shape[:2]
    x1, y1 = np.floor(quad.min(0)).astype(int)
    x2, y2 = np.ceil(quad.max(0)).astype(int)
    x1, y1, x2, y2 = widen_box((int(x1), int(y1), int(x2), int(y2)), REF_MARGIN, w, h, 6)
    return image[y1:y2, x1:x2].copy()


@dataclass
class CardCapture:
    code: str
    image: np.ndarray | None  # the reference image to save (None: nothing usable)
    quad: np.ndarray | None  # where the card lay (full image)
    sharpness: float
    checks: list[Check] = field(default_factory=list)


def capture_reference(code: str, image: np.ndarray, quad: np.ndarray | None, captured: dict[str, np.ndarray],
                      again: np.ndarray | None = None) -> CardCapture:
    """Take ``code``'s reference from ``image`` (the card at ``quad``) and check it: sharp
    enough, and re-identified by vision.cards among ``captured`` (+ this one) in ``again``
    (another image of the same showing; default: ``image``)."""
    from vision.cards import References, recognise

    step = f"card {code}"
    if quad is None:
        return CardCapture(code, None, None, 0.0, [Check(
            step, "fail", "no card found: lay it face up, alone, flat in the play area, on a surface darker than "
                          "the card, and hold still")])
    sharp = sharpness(image, quad)
    crop = reference_crop(image, quad)
    cap = CardCapture(code, crop, quad, sharp)
    if sharp < MIN_SHARPNESS:
        cap.checks.append(Check(step, "fail", f"image too blurred (sharpness {sharp:.0f} < {MIN_SHARPNESS:.0f}): "
                                              f"hold the card still, focus the camera or add light"))
        return cap
    probe = reference_crop(again, quad) if again is not None else crop
    if captured:
        same = [m for m in recognise(probe, References.from_images(dict(captured)))
                if m.status == "ok" and not m.rotated and m.score >= DUPLICATE_SCORE]
        if same:
            cap.checks.append(Check(step, "fail", f"the same picture as {same[0].code} (score {same[0].score:.2f}): "
                                                  f"was {same[0].code} shown again? show {code}"))
            return cap
    refs = References.from_images({**captured, code: crop})
    ms = recognise(probe, refs)
    ok = [m for m in ms if m.status == "ok"]
    unc = [m for m in ms if m.status == "uncertain"]
    if ok and ok[0].code == code:
        cap.checks.append(Check(step, "ok", f"sharpness {sharp:.0f}, re-identified (score {ok[0].score:.2f}, "
                                            f"lead {ok[0].margin:.2f} over {ok[0].runner_up or 'none'})"))
    elif unc and code in (unc[0].code, unc[0].runner_up):
        other = unc[0].runner_up if unc[0].code == code else unc[0].code
        cap.checks.append(Check(step, "warn", f"looks like {other} (score {unc[0].score:.2f}, lead "
                                              f"{unc[0].margin:.2f}): the referee will call such a card uncertain, "
                                              f"never guess; nothing to fix if the printed cards are alike"))
    elif ok:
        cap.checks.append(Check(step, "fail", f"recognised as {ok[0].code}, not {code}: was {code} the card shown? "
                                              f"show it again, alone"))
    else:
        cap.checks.append(Check(step, "fail", "not re-identified from its own reference: show it flat, alone, "
                                              "without glare"))
    return cap


def lookalike_checks(captured: dict[str, np.ndarray]) -> tuple[list[tuple[str, str, float]], list[Check]]:
    """Reference pairs vision may confuse, and a warning per pair."""
    from vision.cards import References

    if len(captured) < 2:
        return [], []
    pairs = References.from_images(dict(captured)).lookalikes()
    checks = [Check("look-alikes", "warn", f"{a} and {b} look alike (score {s:.2f}): such a card may be reported "
                                           f"uncertain") for a, b, s in pairs]
    if not pairs:
        checks.append(Check("look-alikes", "ok", f"no two of the {len(captured)} references look alike"))
    return pairs, checks


def field_zone(quads: Sequence[np.ndarray], width: int, height: int,
               margin: float = FIELD_MARGIN) -> tuple[int, int, int, int] | None:
    """The IKATAKO field: the extent of every card shown, widened by ``margin`` card widths."""
    if not quads:
        return None
    pts = np.concatenate([np.asarray(q, np.float32).reshape(-1, 2) for q in quads])
    card_w = float(np.median([min(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0])) for q in quads]))
    m = int(round(margin * card_w))
    x1, y1 = np.floor(pts.min(0)).astype(int) - m
    x2, y2 = np.ceil(pts.max(0)).astype(int) + m
    return max(0, int(x1)), max(0, int(y1)), min(width, int(x2)), min(height, int(y2))


#: a card whose short side is fewer pixels than this in the camera's picture is too small
#: for the deck. Measured: the demo's cards at 640x360 (about 35x50 px) are read 10/10 (after
#: the small-zone search); at 25 px the rank index is 3-4 px high
MIN_CARD_PX = 32
#: a camera picture narrower than this (pixels) is too coarse for faces and pose together
MIN_CAMERA_WIDTH = 640


def camera_checks(width: int, height: int, quads: Sequence[np.ndarray], sharp: Sequence[float]) -> list[Check]:
    """Whether the camera's resolution and sharpness suit the deck: the cards shown at
    calibration must be at least :data:`MIN_CARD_PX` on their short side, their median
    sharpness at least twice :data:`MIN_SHARPNESS` (a margin for the compression of a
    live stream), and the picture at least :data:`MIN_CAMERA_WIDTH` wide."""
    checks = []
    if width < MIN_CAMERA_WIDTH:
        checks.append(Check("camera", "warn", f"{width}x{height} is below {MIN_CAMERA_WIDTH} px wide: set the "
                                              f"camera to 640x480 or more (1280x720 is better)"))
    if quads:
        short = sorted(min(float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[3] - q[0]))) for q in quads)
        small = short[0]
        if small < MIN_CARD_PX:
            checks.append(Check("camera", "warn", f"the smallest card is {small:.0f} px across (< {MIN_CARD_PX}): "
                                                  f"move the camera closer, zoom in or raise the resolution"))
        else:
            checks.append(Check("camera", "ok", f"cards {small:.0f}-{short[-1]:.0f} px across at {width}x{height}"))
    if sharp:
        med = float(np.median(sharp))
        if med < 2 * MIN_SHARPNESS:
            checks.append(Check("camera", "warn", f"cards are barely sharp (median sharpness {med:.0f} < "
                                                  f"{2 * MIN_SHARPNESS:.0f}): focus the camera, add light, or "
                                                  f"raise the resolution; compression will blur them further"))
    return checks


"""One layout photo of the deck (:mod:`calibration.deck_rows`) into named, checked references.

:func:`capture_shot` separates the photo's cards, checks their number against the codes
asked for, names them in reading order and puts each through the one-card checks of
:func:`calibration.steps.capture_reference` (sharp, not a repeat of a reference taken,
re-identified as itself among the references so far); each reference is the card turned
upright on a plain dark border (:func:`upright`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import cv2
import numpy as np

from calibration import steps
from calibration.deck_rows import ROWS, RowsParams, reading_order, separate_cards
from calibration.deck_checks import card_checks
from calibration.steps import CardCapture, Check


@dataclass
class Shot:
    """What one layout photo gave: the captures in reading order (empty when the count was
    wrong), the outlines found (reading order), and the shot's own checks."""

    label: str
    codes: tuple[str, ...]
    quads: list[np.ndarray]
    captures: list[CardCapture] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)


#: the plain border around a reference turned upright (BGR): dark, so that the card's edge
#: stands out whatever the table (white cards photographed on white paper, the wmcnicho
#: webcam set, lost their edge against a border of the paper's own colour: a 6C read as 7C)
BORDER_BGR = (40, 40, 40)


def upright(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card in ``quad`` as its reference: turned upright at vision's canonical size on a
    plain dark border (:data:`BORDER_BGR`, :data:`calibration.steps.REF_MARGIN` of its long
    side), as a card shown alone, square to the camera, would be cut. Neither its neighbours
    nor its slant are kept: a layout's card lies a few degrees askew, and a face resampled
    askew blurs its printed lines, whose outline is then found on their outside on one card
    and their inside on another (the drawn deck's JS frame: 0.37 of the card against 0.33
    for JC, and a JS on the discards read JC)."""
    from vision.cards import CANON_H, CANON_W

    q = np.asarray(quad, np.float32)
    w, h = CANON_W, CANON_H
    m = max(6, int(round(steps.REF_MARGIN * max(w, h))))
    to = np.float32([[m, m], [m + w - 1, m], [m + w - 1, m + h - 1], [m, m + h - 1]])
    out = np.empty((h + 2 * m, w + 2 * m, 3), np.uint8)
    out[:] = BORDER_BGR
    warped = cv2.warpPerspective(image, cv2.getPerspectiveTransform(q, to), (w + 2 * m, h + 2 * m),
                                 flags=cv2.INTER_LINEAR)
    out[m:m + h, m:m + w] = warped[m:m + h, m:m + w]
    return out


def squared(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card's outline as a one-card showing would give it: found again, head-on, in its
    box widened by :data:`calibration.steps.REF_MARGIN` (:func:`vision.cards.reference_quads`),
    when that outline is the same card (covering each other by 85 %); else ``quad``. The
    layout's oblique search may fit a card loosely (a hull across its corner and its printed
    frame: the wmcnicho 6C, then read as 7C from its skewed reference)."""
    from vision.card_outlines import covered_share
    from vision.cards import reference_quads

    h, w = image.shape[:2]
    lo, hi = np.asarray(quad).min(0), np.asarray(quad).max(0)
    m = np.maximum(6, np.round((hi - lo) * steps.REF_MARGIN))
    x1, y1 = np.maximum(0, np.floor(lo - m)).astype(int)
    x2, y2 = np.minimum([w, h], np.ceil(hi + m)).astype(int)
    best, _ = reference_quads(image[y1:y2, x1:x2])
    if best is None:
        return quad
    best = (best + np.float32([x1, y1])).astype(np.float32)
    q = np.asarray(quad, np.float32)
    return best if min(covered_share(best, q), covered_share(q, best)) >= 0.85 else quad


def _where(q: np.ndarray) -> str:
    c = np.asarray(q).mean(0)
    return f"({c[0]:.0f}, {c[1]:.0f})"


def changed_region(image: np.ndarray, background: np.ndarray) -> tuple[int, int, int, int] | None:
    """The box around everything that changed against the empty table (every solid change,
    not only the largest as :func:`calibration.steps.changed_box`: a layout's cards lie
    apart), widened by :data:`calibration.steps.REF_MARGIN`; None when nothing changed."""
    s = steps.DIFF_SCALE
    a, b = (cv2.resize(cv2.cvtColor(x, cv2.COLOR_BGR2GRAY), None, fx=1 / s, fy=1 / s, interpolation=cv2.INTER_AREA)
            for x in (image, background))
    mask = (cv2.absdiff(a, b) > steps.DIFF_LEVEL).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    keep = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= steps.MIN_BLOB_FRACTION * mask.size / 4]
    if not keep:
        return None
    x1 = min(stats[k, 0] for k in keep) * s
    y1 = min(stats[k, 1] for k in keep) * s
    x2 = max(stats[k, 0] + stats[k, 2] for k in keep) * s
    y2 = max(stats[k, 1] + stats[k, 3] for k in keep) * s
    mx, my = int((x2 - x1) * steps.REF_MARGIN) + 8, int((y2 - y1) * steps.REF_MARGIN) + 8
    h, w = image.shape[:2]
    return max(0, x1 - mx), max(0, y1 - my), min(w, x2 + mx), min(h, y2 + my)


def capture_shot(image: np.ndarray, codes: Sequence[str], captured: dict[str, np.ndarray], label: str = "shot",
                 params: RowsParams = ROWS, background: np.ndarray | None = None) -> Shot:
    """Separate, order, name and check the cards of one layout photo (see the module
    docstring). ``captured`` (the references so far) is not changed: the caller keeps the
    captures that passed. ``background`` (the empty table, at the camera): the cards are
    looked for only where the picture changed (:func:`changed_region`), not among the
    players and the room; a photo is the layout alone."""
    codes = tuple(codes)
    region = changed_region(image, background) if background is not None else None
    if region is None:
        found, odd = separate_cards(image, params, expected=len(codes))
    else:
        x1, y1, x2, y2 = region
        found, odd = separate_cards(image[y1:y2, x1:x2], params, expected=len(codes))
        found, odd = ([(q + np.float32([x1, y1])).astype(np.float32) for q in qs] for qs in (found, odd))
    order = [k for row in reading_order(found, params) for k in row]
    quads = [found[k] for k in order]
    shot = Shot(label, codes, quads)
    step = f"{label}"
    for q in odd:
        shot.checks.append(Check(step, "warn", f"left out a card-shaped outline at {_where(q)}: not the size of "
                                               f"the other cards (a shadow, a box, the table's edge?)"))
    if len(quads) != len(codes):
        shot.checks.append(Check(step, "fail", f"found {len(quads)} cards, expected {len(codes)} ({codes[0]} ... "
                                               f"{codes[-1]}): lay exactly these cards face up, apart (a finger's "
                                               f"width), on a surface darker than the cards, and take it again"))
        return shot
    for k, (code, q) in enumerate(zip(codes, quads)):
        sharp = steps.sharpness(image, q)
        cap = CardCapture(code, upright(image, squared(image, q)), q, sharp)
        if sharp < steps.MIN_SHARPNESS:
            cap.checks.append(Check(f"card {code}", "fail", f"image too blurred (sharpness {sharp:.0f} < "
                                                            f"{steps.MIN_SHARPNESS:.0f}): focus the camera, add "
                                                            f"light, or bring the camera closer"))
        shot.captures.append(cap)
    crops = {c.code: c.image for c in shot.captures if not c.checks}
    verdicts = card_checks(crops, captured)
    for k, cap in enumerate(shot.captures):
        cap.checks = [Check(c.step, c.level, f"{label}, place {k + 1} at {_where(cap.quad)}: {c.message}")
                      for c in cap.checks + verdicts.get(cap.code, [])]
    rows = reading_order(quads, params)
    shot.checks.append(Check(step, "ok", f"{len(quads)} cards in {len(rows)} row(s) of "
                                         f"{', '.join(str(len(r)) for r in rows)}: {' '.join(codes)}"))
    return shot

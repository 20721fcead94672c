"""Standard playing-card faces drawn by this project (rank indices and suit pips), for the
TAKOYAKI demo and the tests.

Nothing here is copied from a photo or a published deck: every face is drawn with OpenCV
primitives (suits as polygons and circles, ranks with a Hershey font), so the demo and the
tests need no shared data. The layout follows a standard deck's: a rank index with a small
suit in two opposite corners (the face looks the same turned 180 degrees, as a real card
does), A-10 with their pips in the usual columns, J/Q/K a framed letter with the suit, the
joker a star and ``JOKER``. Red suits (hearts, diamonds) in red, black ones in black.

Decision (the spec is silent): the faces are drawn portrait at :data:`FACE_W` x
:data:`FACE_H` (the real cards' 63 x 88 mm ratio); the back is a blue lattice, so a
face-down card is never taken for a face (it matches no reference).
"""

from __future__ import annotations

import cv2
import numpy as np

FACE_W, FACE_H = 252, 352  # pixels, 63 x 88 mm at 4 px/mm
RED, BLACK = (30, 30, 200), (25, 25, 25)
SUIT_COLOUR = {"S": BLACK, "C": BLACK, "H": RED, "D": RED}

# pip centres (fractions of the pip area: x in 0..1 across, y in 0..1 down) of A..10
_PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.0), (0.5, 1.0)],
    3: [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    4: [(x, y) for x in (0.0, 1.0) for y in (0.0, 1.0)],
    5: [(x, y) for x in (0.0, 1.0) for y in (0.0, 1.0)] + [(0.5, 0.5)],
    6: [(x, y) for x in (0.0, 1.0) for y in (0.0, 0.5, 1.0)],
    7: [(x, y) for x in (0.0, 1.0) for y in (0.0, 0.5, 1.0)] + [(0.5, 0.25)],
    8: [(x, y) for x in (0.0, 1.0) for y in (0.0, 0.5, 1.0)] + [(0.5, 0.25), (0.5, 0.75)],
    9: [(x, y) for x in (0.0, 1.0) for y in (0.0, 1 / 3, 2 / 3, 1.0)] + [(0.5, 0.5)],
    10: [(x, y) for x in (0.0, 1.0) for y in (0.0, 1 / 3, 2 / 3, 1.0)] + [(0.5, 1 / 6), (0.5, 5 / 6)],
}


def draw_suit(img: np.ndarray, suit: str, centre: tuple[float, float], size: float, flip: bool = False) -> None:
    """One suit symbol of height ``size`` centred at ``centre`` (``flip``: upside down)."""
    cx, cy = centre
    s = size / 2.0
    sign = -1.0 if flip else 1.0
    col = SUIT_COLOUR[suit]

    def pt(dx: float, dy: float) -> tuple[int, int]:
        return int(round(cx + dx * s)), int(round(cy + sign * dy * s))

    if suit == "D":
        cv2.fillPoly(img, [np.array([pt(0, -1), pt(0.72, 0), pt(0, 1), pt(-0.72, 0)], np.int32)], col, cv2.LINE_AA)
        return
    r = int(round(0.48 * s))
    if suit == "H":
        for dx in (-0.45, 0.45):
            cv2.circle(img, pt(dx, -0.35), r, col, -1, cv2.LINE_AA)
        cv2.fillPoly(img, [np.array([pt(-0.92, -0.2), pt(0.92, -0.2), pt(0, 1)], np.int32)], col, cv2.LINE_AA)
        return
    if suit == "S":
        for dx in (-0.45, 0.45):
            cv2.circle(img, pt(dx, 0.2), r, col, -1, cv2.LINE_AA)
        cv2.fillPoly(img, [np.array([pt(-0.92, 0.05), pt(0.92, 0.05), pt(0, -1)], np.int32)], col, cv2.LINE_AA)
    else:  # clubs: three round leaves (wider apart than a spade's lobes)
        for dx, dy in ((0, -0.52), (-0.55, 0.1), (0.55, 0.1)):
            cv2.circle(img, pt(dx, dy), int(round(0.45 * s)), col, -1, cv2.LINE_AA)
    cv2.fillPoly(img, [np.array([pt(0, 0.2), pt(0.35, 1), pt(-0.35, 1)], np.int32)], col, cv2.LINE_AA)


def _text(img: np.ndarray, text: str, centre: tuple[int, int], scale: float, col, thick: int) -> None:
    font = cv2.FONT_HERSHEY_DUPLEX
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(img, text, (int(centre[0] - tw / 2), int(centre[1] + th / 2)), font, scale, col, thick, cv2.LINE_AA)


def _half(code: str) -> np.ndarray:
    """The top-left corner index (rank over suit) of a face, drawn upright on white."""
    img = np.full((FACE_H, FACE_W, 3), 255, np.uint8)
    if code == "JK":
        for k, ch in enumerate("JOKER"):
            _text(img, ch, (22, 30 + 24 * k), 0.7, BLACK, 2)
        return img
    rank, suit = code[:-1], code[-1]
    _text(img, rank, (28, 30), 0.9 if len(rank) == 1 else 0.75, SUIT_COLOUR[suit], 2)
    draw_suit(img, suit, (28, 70), 34)
    return img


def draw_face(code: str) -> np.ndarray:
    """The face of ``code`` (``AS``, ``10H``, ``QD``, ``JK``) as a BGR image, portrait."""
    img = _half(code)
    img = np.minimum(img, img[::-1, ::-1])  # the index again in the opposite corner, turned
    cv2.rectangle(img, (2, 2), (FACE_W - 3, FACE_H - 3), (160, 160, 160), 2)
    if code == "JK":
        star = [(np.cos(a) * (60 if i % 2 == 0 else 25), np.sin(a) * (60 if i % 2 == 0 else 25))
                for i, a in enumerate(np.linspace(-np.pi / 2, 1.5 * np.pi, 10, endpoint=False))]
        pts = np.array([(FACE_W / 2 + x, FACE_H / 2 + y) for x, y in star], np.int32)
        cv2.fillPoly(img, [pts], (20, 120, 220), cv2.LINE_AA)
        return img
    rank, suit = code[:-1], code[-1]
    if rank in ("J", "Q", "K"):
        cv2.rectangle(img, (62, 70), (FACE_W - 62, FACE_H - 70), SUIT_COLOUR[suit], 3)
        _text(img, rank, (FACE_W // 2, FACE_H // 2 - 30), 2.6, SUIT_COLOUR[suit], 5)
        draw_suit(img, suit, (FACE_W / 2, FACE_H / 2 + 50), 50)
        return img
    n = int(rank) if rank != "A" else 1
    x0, x1, y0, y1 = 84, FACE_W - 84, 74, FACE_H - 74
    size = 110 if n == 1 else 52
    for fx, fy in _PIPS[n]:
        draw_suit(img, suit, (x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)), size, flip=fy > 0.5)
    return img


def draw_back() -> np.ndarray:
    """A card's back: a blue lattice on a white border (matches no face)."""
    img = np.full((FACE_H, FACE_W, 3), 255, np.uint8)
    cv2.rectangle(img, (12, 12), (FACE_W - 13, FACE_H - 13), (150, 60, 20), -1)
    for k in range(-FACE_H, FACE_W + FACE_H, 18):
        cv2.line(img, (k, 12), (k + FACE_H, FACE_H + 12), (230, 200, 170), 2)
        cv2.line(img, (k, FACE_H + 12), (k + FACE_H, 12), (230, 200, 170), 2)
    cv2.rectangle(img, (0, 0), (FACE_W - 1, FACE_H - 1), (255, 255, 255), 12)
    return img


def deck_faces(codes) -> dict[str, np.ndarray]:
    """``{code: face}`` for the codes given (a group's references, as calibration takes them)."""
    return {c: draw_face(c) for c in codes}

"""Sea Salt & Paper faces drawn by this project (a symbol per kind, the card's colour), for the
Sea Salt & Paper demo and the tests (issue 34, item 2).

The real deck's art is not available (and not ours to copy): every face is drawn with OpenCV
primitives. A group's own deck is taken as references at calibration, exactly as TAKOYAKI's
standard cards are; these drawn faces are only the demo's "own deck".

A face (portrait, :data:`FACE_W` x :data:`FACE_H`, the 63 x 88 mm ratio) is white paper with:
a border band in the card's colour, the kind's name on top, the kind's symbol in the middle
(filled with the card's colour) and the colour's name at the bottom. A mermaid is white: a
thin grey border, ``MERMAID`` and her tail, no colour name.

Decision (the reading white-balances each card on its paper, :func:`vision.card_references.
normalise`): the colour is never only a tint. A face all in one colour would be turned white
by that balance, and two colours of one kind would differ only in hue, which the reading
compares in grey; so the colour is named in print (as a colour-blind player's deck marks it)
and drawn in the border and the symbol. Look-alikes left: none among the demo deck's faces
(the tests check every pair).

Card codes are the rules' ``kind:colour`` (``crab:blue``, ``mermaid``); a reference file
cannot carry ``:`` on every system, so its name writes ``kind-colour`` (:func:`file_code`;
the way back: :func:`vision.spread_watch.code_of_file`).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.synth import centred_text

FACE_W, FACE_H = 252, 352  # pixels, 63 x 88 mm at 4 px/mm
INK = (35, 35, 35)
#: BGR of each colour of the rules (:data:`rules.seasaltpaper.COLOURS`)
COLOUR_BGR = {
    "blue": (170, 70, 20), "lightblue": (235, 195, 120), "black": (30, 30, 30), "yellow": (30, 210, 240),
    "green": (60, 160, 60), "grey": (150, 150, 150), "purple": (150, 50, 130), "lightorange": (120, 190, 250),
    "pink": (185, 130, 245), "orange": (20, 120, 240),
}
WHITE_CARD = (200, 200, 200)  # a mermaid's thin border


def file_code(code: str) -> str:
    """``crab:blue`` -> ``crab-blue`` (a reference file's name)."""
    return code.replace(":", "-")


def _split(code: str) -> tuple[str, str | None]:
    kind, _, colour = code.partition(":")
    return kind, (colour or None)


def _poly(img, pts, fill, cx, cy, s) -> None:
    p = np.array([(cx + x * s, cy + y * s) for x, y in pts], np.int32)
    cv2.fillPoly(img, [p], fill, cv2.LINE_AA)
    cv2.polylines(img, [p], True, INK, 2, cv2.LINE_AA)


def _ellipse(img, cx, cy, ax, ay, fill, angle=0.0) -> None:
    c = (int(cx), int(cy))
    cv2.ellipse(img, c, (int(ax), int(ay)), angle, 0, 360, fill, -1, cv2.LINE_AA)
    cv2.ellipse(img, c, (int(ax), int(ay)), angle, 0, 360, INK, 2, cv2.LINE_AA)


def _star(n: int, outer: float, inner: float) -> list[tuple[float, float]]:
    a = np.linspace(-np.pi / 2, 1.5 * np.pi, 2 * n, endpoint=False)
    return [(float(np.cos(t)) * (outer if i % 2 == 0 else inner), float(np.sin(t)) * (outer if i % 2 == 0 else inner))
            for i, t in enumerate(a)]


def draw_symbol(img: np.ndarray, kind: str, fill, cx: float, cy: float, s: float = 50.0) -> None:
    """The kind's symbol centred at ``(cx, cy)``, about ``2 s`` pixels across."""
    if kind in ("crab", "crabcolony"):
        spots = [(0, 0)] if kind == "crab" else [(-0.6, 0.35), (0.6, 0.35), (0, -0.45)]
        r = 0.55 if kind == "crab" else 0.38
        for dx, dy in spots:
            _ellipse(img, cx + dx * s, cy + dy * s, r * s, r * 0.7 * s, fill)
            for side in (-1, 1):
                cv2.circle(img, (int(cx + (dx + side * r * 1.2) * s), int(cy + (dy - r * 0.8) * s)),
                           int(r * 0.35 * s), INK, 2, cv2.LINE_AA)
    elif kind == "boat":
        _poly(img, [(-1, 0.3), (1, 0.3), (0.6, 0.8), (-0.6, 0.8)], fill, cx, cy, s)
        _poly(img, [(0, -0.9), (0, 0.2), (0.7, 0.2)], fill, cx, cy, s)
    elif kind in ("fish", "shoal"):
        spots = [(0, 0, 1.0)] if kind == "fish" else [(-0.4, -0.5, 0.55), (0.35, 0.0, 0.55), (-0.4, 0.5, 0.55)]
        for dx, dy, k in spots:
            _ellipse(img, cx + dx * s, cy + dy * s, 0.6 * k * s, 0.32 * k * s, fill)
            _poly(img, [(0.55 * k, 0), (0.95 * k, -0.3 * k), (0.95 * k, 0.3 * k)], fill, cx + dx * s, cy + dy * s, s)
    elif kind == "swimmer":
        cv2.circle(img, (int(cx - 0.6 * s), int(cy - 0.2 * s)), int(0.25 * s), fill, -1, cv2.LINE_AA)
        cv2.line(img, (int(cx - 0.4 * s), int(cy)), (int(cx + 0.8 * s), int(cy - 0.1 * s)), INK, 6, cv2.LINE_AA)
        for k in range(3):
            y = int(cy + (0.35 + 0.2 * k) * s)
            cv2.line(img, (int(cx - 0.9 * s), y), (int(cx + 0.9 * s), y), fill, 4, cv2.LINE_AA)
    elif kind == "shark":
        _poly(img, [(-0.7, 0.4), (0.1, -0.9), (0.7, 0.4)], fill, cx, cy, s)
        cv2.line(img, (int(cx - s), int(cy + 0.55 * s)), (int(cx + s), int(cy + 0.55 * s)), INK, 4, cv2.LINE_AA)
    elif kind == "shell":
        cv2.ellipse(img, (int(cx), int(cy + 0.4 * s)), (int(0.9 * s), int(0.9 * s)), 0, 180, 360, fill, -1, cv2.LINE_AA)
        for a in np.linspace(np.pi, 2 * np.pi, 6):
            cv2.line(img, (int(cx), int(cy + 0.4 * s)),
                     (int(cx + 0.9 * s * np.cos(a)), int(cy + 0.4 * s + 0.9 * s * np.sin(a))), INK, 2, cv2.LINE_AA)
    elif kind == "octopus":
        _ellipse(img, cx, cy - 0.3 * s, 0.55 * s, 0.5 * s, fill)
        for k in range(5):
            x = cx + (-0.5 + 0.25 * k) * s
            cv2.line(img, (int(x), int(cy + 0.1 * s)), (int(x + (k - 2) * 0.15 * s), int(cy + 0.9 * s)), INK, 5,
                     cv2.LINE_AA)
    elif kind in ("penguin", "colony"):
        spots = [(0, 0, 1.0)] if kind == "penguin" else [(-0.55, 0.1, 0.6), (0.55, 0.1, 0.6), (0, -0.2, 0.6)]
        for dx, dy, k in spots:
            _ellipse(img, cx + dx * s, cy + dy * s, 0.45 * k * s, 0.8 * k * s, INK)
            _ellipse(img, cx + dx * s, cy + (dy + 0.15 * k) * s, 0.25 * k * s, 0.5 * k * s, fill)
    elif kind in ("sailor", "captain"):
        _poly(img, [(-0.8, 0.0), (0.8, 0.0), (0.5, -0.5), (-0.5, -0.5)], fill, cx, cy, s)
        cv2.circle(img, (int(cx), int(cy + 0.45 * s)), int(0.35 * s), INK, 3, cv2.LINE_AA)
        if kind == "captain":
            _poly(img, _star(5, 0.3, 0.13), (255, 255, 255), cx, cy - 0.25 * s, s)
    elif kind == "mermaid":
        _poly(img, [(-0.2, -0.9), (0.2, -0.9), (0.25, 0.3), (0.7, 0.9), (0, 0.6), (-0.7, 0.9), (-0.25, 0.3)],
              (200, 170, 90), cx, cy, s)
        cv2.circle(img, (int(cx), int(cy - 1.05 * s)), int(0.22 * s), INK, 2, cv2.LINE_AA)
    elif kind == "lighthouse":
        _poly(img, [(-0.35, 0.9), (0.35, 0.9), (0.2, -0.5), (-0.2, -0.5)], fill, cx, cy, s)
        _poly(img, [(-0.3, -0.5), (0.3, -0.5), (0, -0.95)], INK, cx, cy, s)
        for y in (0.0, 0.45):
            cv2.line(img, (int(cx - 0.3 * s), int(cy + y * s)), (int(cx + 0.3 * s), int(cy + y * s)), INK, 3)
    elif kind == "starfish":
        _poly(img, _star(5, 0.95, 0.4), fill, cx, cy, s)
    elif kind == "jellyfish":
        cv2.ellipse(img, (int(cx), int(cy)), (int(0.7 * s), int(0.6 * s)), 0, 180, 360, fill, -1, cv2.LINE_AA)
        for k in range(4):
            x = cx + (-0.45 + 0.3 * k) * s
            pts = np.array([(x + 0.1 * s * ((j % 2) * 2 - 1), cy + 0.15 * s * (j + 1)) for j in range(5)], np.int32)
            cv2.polylines(img, [pts], False, INK, 3, cv2.LINE_AA)
    elif kind == "lobster":
        _ellipse(img, cx, cy + 0.2 * s, 0.3 * s, 0.75 * s, fill)
        for side in (-1, 1):
            _ellipse(img, cx + side * 0.55 * s, cy - 0.7 * s, 0.22 * s, 0.32 * s, fill)
    elif kind == "seahorse":
        pts = np.array([(cx + 0.3 * s * np.sin(t * 2.2), cy - 0.9 * s + t * 1.8 * s / np.pi) for t in
                        np.linspace(0, np.pi, 12)], np.int32)
        cv2.polylines(img, [pts], False, fill, 16, cv2.LINE_AA)
        cv2.polylines(img, [pts], False, INK, 3, cv2.LINE_AA)
    else:
        raise ValueError(f"no symbol for the kind {kind!r}")


def draw_face(code: str) -> np.ndarray:
    """The face of ``code`` (``crab:blue``, ``mermaid``) as a BGR image, portrait."""
    kind, colour = _split(code)
    fill = COLOUR_BGR[colour] if colour else WHITE_CARD
    img = np.full((FACE_H, FACE_W, 3), 255, np.uint8)
    band = 14 if colour else 4
    cv2.rectangle(img, (0, 0), (FACE_W - 1, FACE_H - 1), fill, 2 * band)
    cv2.rectangle(img, (band, band), (FACE_W - 1 - band, FACE_H - 1 - band), INK, 1)
    centred_text(img, kind.upper(), (FACE_W // 2, 48), FACE_W - 60, INK)
    draw_symbol(img, kind, fill, FACE_W / 2, FACE_H / 2 + 4, 80)
    if colour:
        centred_text(img, colour.upper(), (FACE_W // 2, FACE_H - 48), FACE_W - 70, INK)
    return img


def draw_back() -> np.ndarray:
    """A card's back: waves on deep blue (matches no face)."""
    img = np.full((FACE_H, FACE_W, 3), (120, 60, 20), np.uint8)
    for y in range(20, FACE_H, 22):
        pts = np.array([(x, y + int(6 * np.sin(x / 14.0))) for x in range(0, FACE_W, 6)], np.int32)
        cv2.polylines(img, [pts], False, (230, 200, 160), 2, cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (FACE_W - 1, FACE_H - 1), (255, 255, 255), 10)
    return img


def deck_faces(codes) -> dict[str, np.ndarray]:
    """``{code: face}`` for the codes given (a group's references, as calibration takes them)."""
    return {c: draw_face(c) for c in codes}

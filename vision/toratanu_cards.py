"""TORATANU faces drawn by this project, for the TORATANU demo and the tests (issue 34, item 3).

The real deck's art is not available (and not ours to copy): every face is drawn with OpenCV
primitives. A group's own deck is taken as references at calibration (one photo per distinct
card, as for Sea Salt & Paper); these drawn faces are only the demo's "own deck".

A face (portrait, :data:`FACE_W` x :data:`FACE_H`, the 63 x 88 mm ratio) is white paper
with: a border band in the card's colour, the animal's name on top, the animal's glyph in
the middle (a polygon with a number of sides and of dots that differs from animal to animal,
filled with the card's colour), the colour points printed large in the top left corner, a
``WHITE`` badge on the White cards and the colour's name at the bottom. The tanuki has no
colour: a thin grey border, no points, no colour name.

Decision (as for Sea Salt & Paper's faces, :mod:`vision.ssp_cards`): the reading white-
balances each card on its paper and compares in grey, so the colour is never only a tint: it
is named in print and drawn in the border and the glyph. The tests check every pair of the
demo deck's faces for look-alikes.

Card codes are the rules' ``animal:colour:points[:white]`` (``owl:blue:5:white``,
``kangaroo:red:3``, ``tanuki``): what is printed on the card, so the colour points the
catalogue lacks come from the card itself. A reference file cannot carry ``:`` on every
system: its name writes ``owl-blue-5-white`` (:func:`file_code`; the way back,
:func:`vision.spread_watch.code_of_file`, turns every ``-`` into ``:``).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.synth import centred_text

INK = (35, 35, 35)

FACE_W, FACE_H = 252, 352  # pixels, 63 x 88 mm at 4 px/mm
#: BGR of each colour of the catalogue (``rules/data/toratanu.toml`` ``pack.colours``)
COLOUR_BGR = {"red": (40, 40, 210), "blue": (190, 90, 20), "yellow": (30, 200, 235), "green": (60, 150, 50),
              "black": (35, 35, 35)}
NO_COLOUR = (170, 170, 170)  # the tanuki's thin border
#: the animals in the catalogue's order: an animal's glyph follows from its place here
ANIMALS = ("rabbit", "seaotter", "koala", "chicken", "squirrel", "goat", "hedgehog", "catfish", "wolf", "turtle",
           "panda", "kangaroo", "alpaca", "horse", "giraffe", "owl", "walrus", "rhino", "buffalo", "bear",
           "chameleon", "gorilla", "tapir", "crocodile", "hippo", "dolphin", "lion", "elephant", "shoebill",
           "fennec", "tiger", "fox", "orangutan", "ragdoll", "komondor", "tanuki")


def file_code(code: str) -> str:
    """``owl:blue:5:white`` -> ``owl-blue-5-white`` (a reference file's name)."""
    return code.replace(":", "-")


def split_code(code: str) -> tuple[str, str | None, int | None, bool]:
    """``owl:blue:5:white`` -> ``("owl", "blue", 5, True)`` (the printed parts, none checked)."""
    animal, *rest = code.split(":")
    colour = next((r for r in rest if r in COLOUR_BGR), None)
    points = next((int(r) for r in rest if r.isdigit()), None)
    return animal, colour, points, "white" in rest


def draw_glyph(img: np.ndarray, animal: str, fill, cx: float, cy: float, s: float) -> None:
    """The animal's glyph centred at ``(cx, cy)``, about ``2 s`` pixels across: a polygon of
    3-7 sides turned by the animal's place, with 1-4 dots inside and 0-2 ears."""
    k = ANIMALS.index(animal) if animal in ANIMALS else len(ANIMALS)
    sides, dots, ears = 3 + k % 5, 1 + (k // 5) % 4, (k // 20) % 3
    turn = (k % 3) * np.pi / (3 * sides)
    a = np.linspace(-np.pi / 2, 1.5 * np.pi, sides, endpoint=False) + turn
    pts = np.array([(cx + s * np.cos(t), cy + s * np.sin(t)) for t in a], np.int32)
    cv2.fillPoly(img, [pts], fill, cv2.LINE_AA)
    cv2.polylines(img, [pts], True, INK, 3, cv2.LINE_AA)
    for j in range(dots):
        x = cx + (j - (dots - 1) / 2) * 0.34 * s
        cv2.circle(img, (int(x), int(cy)), int(0.11 * s), (255, 255, 255), -1, cv2.LINE_AA)
        cv2.circle(img, (int(x), int(cy)), int(0.11 * s), INK, 2, cv2.LINE_AA)
    for side in ((), (-1,), (-1, 1))[ears]:
        ex = int(cx + side * 0.75 * s)
        cv2.circle(img, (ex, int(cy - 0.95 * s)), int(0.2 * s), INK, -1, cv2.LINE_AA)


def draw_face(code: str) -> np.ndarray:
    """The face of ``code`` (``owl:blue:5:white``, ``tanuki``) as a BGR image, portrait."""
    animal, colour, points, white = split_code(code)
    fill = COLOUR_BGR[colour] if colour else NO_COLOUR
    img = np.full((FACE_H, FACE_W, 3), 255, np.uint8)
    band = 14 if colour else 4
    cv2.rectangle(img, (0, 0), (FACE_W - 1, FACE_H - 1), fill, 2 * band)
    cv2.rectangle(img, (band, band), (FACE_W - 1 - band, FACE_H - 1 - band), INK, 1)
    centred_text(img, animal.upper(), (FACE_W // 2 + 18, 52), FACE_W - 100, INK)
    draw_glyph(img, animal, fill, FACE_W / 2, FACE_H / 2 + 10, 70)
    if points is not None:
        cv2.circle(img, (44, 52), 24, INK, 2, cv2.LINE_AA)
        centred_text(img, str(points), (44, 52), 30, INK)
    if white:
        cv2.rectangle(img, (FACE_W - 96, FACE_H - 112), (FACE_W - 26, FACE_H - 82), INK, -1)
        centred_text(img, "WHITE", (FACE_W - 61, FACE_H - 97), 60, (255, 255, 255), 1)
    if colour:
        centred_text(img, colour.upper(), (FACE_W // 2, FACE_H - 46), FACE_W - 90, INK)
    return img


def draw_back() -> np.ndarray:
    """A card's back: rings on deep green (matches no face; not a reference: a card lying
    face down is no card to the reading)."""
    img = np.full((FACE_H, FACE_W, 3), (50, 90, 30), np.uint8)
    for r in range(20, 260, 24):
        cv2.circle(img, (FACE_W // 2, FACE_H // 2), r, (150, 200, 120), 3, cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (FACE_W - 1, FACE_H - 1), (255, 255, 255), 10)
    return img

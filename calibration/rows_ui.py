"""``referee calibrate --camera N --deck-rows``: the deck's layouts taken at the live table.

For each shot (:func:`calibration.deck_rows.deck_shots`) the window says which cards to lay
out, in which order; the frame is taken by itself once the layout has lain still for
``still_frames`` frames (the changed area against the empty table not moving), then the
picture is shown with each card's name written on it (:func:`calibration.rows_ui.annotate`)
and the checks: SPACE keeps the shot, R takes it again (a failed shot is always taken again).
The person's pace (an estimate, no camera here to time it): ~20 s to lay out a suit, 5 shots.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from calibration import steps
from calibration.deck_capture import DeckCapture, finish, keep_shot
from calibration.deck_rows import deck_shots
from calibration.deck_shot import Shot, capture_shot


def wait_still(scr, background: np.ndarray, lines: Sequence[str], still_frames: int) -> np.ndarray:
    """The first frame after the layout lay still for ``still_frames`` frames."""
    prev, still = None, 0
    while True:
        img = scr.read()
        box = steps.changed_box(img, background)
        moved = box is None or prev is None or max(abs(a - b) for a, b in zip(box, prev)) > 6
        still = 0 if moved else still + 1
        prev = box
        scr.show(lines)
        if still >= still_frames:
            return img


def capture_rows(scr, background: np.ndarray, codes: Sequence[str], per_shot: int, still_frames: int,
                 say=print) -> DeckCapture:
    """Every shot of the deck at the live table (see the module docstring)."""
    deck = DeckCapture()
    plan = deck_shots(codes, per_shot)
    for i, shot_codes in enumerate(plan):
        ask = [f"4/5 Shot {i + 1}/{len(plan)}: lay {' '.join(shot_codes)} face up in rows,",
               "in this order, left to right, rows top to bottom, a finger apart; then hands away"]
        while True:
            img = wait_still(scr, background, ask, still_frames)
            shot = capture_shot(img, shot_codes, deck.references, f"shot {i + 1}", background=background)
            lines = [str(c) for c in shot.checks + [c for cap in shot.captures for c in cap.checks] if c.level != "ok"]
            for line in lines:
                say(line)
            bad = not shot.captures or any(steps.failed(cap.checks) for cap in shot.captures)
            keys = (ord("r"),) if bad else (32, 13, ord("r"))
            k = _wait_on_picture(scr, annotate(img, shot), lines[-4:], keys, bad)
            if k != ord("r"):
                keep_shot(deck, shot)
                break
    h, w = background.shape[:2]
    return finish(deck, w, h)


def _wait_on_picture(scr, picture: np.ndarray, lines: Sequence[str], keys, bad: bool) -> int:
    """Show the annotated ``picture`` with ``lines`` until one of ``keys`` is pressed."""
    hint = "R: take it again" + ("" if bad else "; SPACE: keep it (is every name on its card?)")
    while True:
        k = scr.show(list(lines) + [hint], frame=picture)
        if k in keys:
            return k


def annotate(image: np.ndarray, shot: Shot) -> np.ndarray:
    """The photo with each card's outline and name (green: taken; red: a check failed):
    the group looks that every name is on its card (the tool reads no ranks)."""
    out = image.copy()
    caps = shot.captures or [None] * len(shot.quads)
    names = shot.codes if shot.captures else tuple("?" for _ in shot.quads)
    for q, name, cap in zip(shot.quads, names, caps):
        bad = cap is None or steps.failed(cap.checks)
        colour = (0, 0, 255) if bad else (0, 200, 0)
        pts = np.asarray(q, np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, colour, 2)
        x, y = np.asarray(q).mean(0).astype(int)
        size = max(0.5, min(2.0, (np.ptp(np.asarray(q)[:, 0]) / 80.0)))
        cv2.putText(out, name, (int(x) - 20, int(y)), cv2.FONT_HERSHEY_SIMPLEX, size, (0, 0, 0), 5, cv2.LINE_AA)
        cv2.putText(out, name, (int(x) - 20, int(y)), cv2.FONT_HERSHEY_SIMPLEX, size, colour, 2, cv2.LINE_AA)
    return out

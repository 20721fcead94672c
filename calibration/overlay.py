"""The set-up as the referee sees it: a calibration's seats and card zones drawn on a frame.

``referee vision zones`` writes this picture so that a group checks, before playing, that
each box sits where it should: every card zone whole inside the picture and around the place
its cards land, each seat's box around its player. Zones are labelled in the game's words
(:meth:`rules.base.Game.zone_label`: TAKOYAKI's "aki A" … "aki 10", "discards").
"""

from __future__ import annotations

import cv2
import numpy as np

#: BGR colours: the seats' boxes, the card zones, the labels' backing
SEAT = (230, 160, 40)
ZONE = (0, 215, 255)
BACKING = (25, 25, 25)


def draw_setup(frame: np.ndarray, calibration) -> np.ndarray:
    """A copy of ``frame`` (BGR, the calibration's size or scaled to it) with each seat's box
    (blue, its name at the top) and each card zone (yellow, its label inside)."""
    import rules

    game = rules.get(calibration.game)
    out = cv2.resize(frame, (calibration.width, calibration.height)) if frame.shape[:2] != (
        calibration.height, calibration.width) else frame.copy()
    scale = max(1.0, calibration.width / 1280)
    for seat in calibration.seats:
        b = seat.box
        cv2.rectangle(out, (b.x1 + 2, b.y1 + 2), (b.x2 - 3, b.y2 - 3), SEAT, max(2, int(2 * scale)))
        _label(out, f"seat: {seat.name}", (b.x1 + 8, b.y2 - 12), SEAT, 0.7 * scale)
    for zone, b in calibration.card_zones.items():
        cv2.rectangle(out, (b.x1, b.y1), (b.x2 - 1, b.y2 - 1), ZONE, max(1, int(2 * scale)))
        _label(out, game.zone_label(zone), (b.x1 + 6, b.y1 + int(22 * scale)), ZONE, 0.55 * scale)
    return out


def _label(img: np.ndarray, text: str, org: tuple[int, int], colour, font: float) -> None:
    """``text`` at ``org`` on a dark backing, readable on any table."""
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font, 1)
    x, y = org
    cv2.rectangle(img, (x - 3, y - h - 4), (x + w + 3, y + base + 1), BACKING, -1)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, font, colour, 1, cv2.LINE_AA)

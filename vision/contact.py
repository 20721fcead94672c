"""The moment a hand hits the table, on the video clock: half of the audio-video offset.

At calibration a player slaps the table (or claps) in view and in earshot; the frame of
contact against the audio onset of the slap gives the offset between the camera's clock
and the microphones' (:func:`calibration.steps.av_offset`). Why this way: the contact is
the one moment both senses see sharply (the hand stops dead; the sound starts with a sharp
attack), and it needs nothing but the table.

How: the hand is what differs from the first frame (the empty view) inside the box; its
lowest changed row is tracked frame by frame; it descends, then stops where the table is.
The contact is the first frame at that rest row; its time is interpolated between frames
by the hand's speed over the two frames before (a slap does not slow down before it
lands): a frame is 33 ms at 30 fps, the interpolation brings it to about a millisecond on
the generated clip (``benchmarks/bench_seeing.py``). Decisions: the first frame must show
no hand (it is the background); only the last descent to the rest row counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

#: grey-level difference to the first frame that counts as "the hand is here"
CONTACT_LEVEL = 25
#: a row belongs to the hand when at least this many of its pixels changed (noise is opened
#: away first)
CONTACT_ROW_PIXELS = 3
#: the hand is at rest when its lowest row is within this many pixels of the lowest it gets
CONTACT_REST_PX = 1.0


@dataclass(frozen=True)
class Contact:
    """``t``: the interpolated contact time; ``frame``: the first frame at rest;
    ``speed``: the hand's speed before contact in pixels per second (a slow one is a poor
    measurement: the calibration warns below :data:`calibration.steps.MIN_SLAP_SPEED`)."""

    t: float
    frame: int
    speed: float


def lowest_rows(frames: Sequence[tuple[float, np.ndarray]],
                box: tuple[int, int, int, int] | None = None) -> list[tuple[float, float | None]]:
    """``(t, lowest changed row)`` per frame against the first one (None: nothing changed)."""
    out: list[tuple[float, float | None]] = []
    bg = None
    kernel = np.ones((3, 3), np.uint8)
    for t, img in frames:
        if box is not None:
            img = img[box[1]:box[3], box[0]:box[2]]
        g = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img, (3, 3), 0)
        if bg is None:
            bg = g
            out.append((t, None))
            continue
        mask = cv2.morphologyEx((cv2.absdiff(g, bg) > CONTACT_LEVEL).astype(np.uint8), cv2.MORPH_OPEN, kernel)
        rows = np.nonzero(mask.sum(axis=1) >= CONTACT_ROW_PIXELS)[0]
        if not len(rows):
            out.append((t, None))
            continue
        r = int(rows[-1])
        # sub-pixel: the changed share of the row below the last full one (an edge between rows)
        below = float(mask[r + 1].sum()) / max(1.0, float(mask[r].sum())) if r + 1 < mask.shape[0] else 0.0
        out.append((t, r + min(1.0, below)))
    return out


def contact_time(frames: Sequence[tuple[float, np.ndarray]], box: tuple[int, int, int, int] | None = None) -> Contact | None:
    """When the hand hit the table (see the module docstring), or None (no hand seen, or it
    never came to rest after descending)."""
    ys = lowest_rows(frames, box)
    seen = [(k, t, y) for k, (t, y) in enumerate(ys) if y is not None]
    if len(seen) < 3:
        return None
    rest = max(y for _, _, y in seen)
    at_rest = [i for i, (_, _, y) in enumerate(seen) if y >= rest - CONTACT_REST_PX]
    i = at_rest[0]
    if i < 2:
        return None
    (k0, t0, y0), (k1, t1, y1), (k2, t2, y2) = seen[i - 2], seen[i - 1], seen[i]
    speed = (y1 - y0) / (t1 - t0) if t1 > t0 else 0.0
    if speed <= 0:
        return None
    t = t1 + (rest - y1) / speed
    return Contact(t=float(min(max(t, t1), t2)), frame=k2, speed=float(speed))


def slap_clip(t_contact: float, *, fps: int = 30, seconds: float = 2.0, size: tuple[int, int] = (640, 480),
              table_y: int = 330, fall_s: float = 0.25, fall_px: int = 220) -> list[tuple[float, np.ndarray]]:
    """A generated clip with known truth: a drawn hand (a skin-coloured ellipse) falls at
    constant speed onto a table edge and hits it at ``t_contact`` (between frames),
    then rests. ``(t, BGR image)`` per frame; for tests and the benchmark."""
    w, h = size
    out = []
    for k in range(int(round(seconds * fps))):
        t = k / fps
        img = np.full((h, w, 3), (40, 70, 40), np.uint8)
        cv2.rectangle(img, (0, table_y), (w, h), (30, 60, 100), -1)
        if t >= t_contact - fall_s:
            u = min(1.0, (t - (t_contact - fall_s)) / fall_s)
            bottom = table_y - fall_px * (1.0 - u)
            cy, ry = bottom - 30, 30
            s = 16  # sub-pixel drawing: 4 fractional bits
            cv2.ellipse(img, (int(round(w / 2 * s)), int(round(cy * s))), (int(45 * s), int(ry * s)), 0, 0, 360,
                        (120, 160, 210), -1, cv2.LINE_AA, 4)
        out.append((round(t, 6), img))
    return out

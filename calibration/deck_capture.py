"""The whole deck from its layout photos (:mod:`calibration.deck_rows`): the shots in the
deck's order, each checked (:func:`calibration.deck_shot.capture_shot`), the look-alikes and
the camera checks over every reference taken, as the one-card path ends.

Front ends: ``referee calibrate --deck-photos P1,P2,...`` (photos from files, a phone's or
stills of the camera), ``--deck-rows`` with ``--from-video`` (each still showing of the
recording is a layout) or with ``--camera`` (guided: :mod:`calibration.rows_ui`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from calibration import steps
from calibration.deck_rows import deck_shots
from calibration.deck_shot import Shot, capture_shot
from calibration.steps import Check


@dataclass
class DeckCapture:
    """The references taken (code -> image), every check, and what the camera checks need."""

    references: dict[str, np.ndarray] = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)
    quads: list[np.ndarray] = field(default_factory=list)
    sharpness: list[float] = field(default_factory=list)
    shots: list[Shot] = field(default_factory=list)
    pairs: list = field(default_factory=list)


def plan_lines(codes: Sequence[str], per_shot: int = 13) -> list[str]:
    """What the group lays out, shot by shot (printed before the first shot)."""
    return [f"shot {i + 1}: {' '.join(s)} ({len(s)} card{'s' if len(s) > 1 else ''}, in rows, in this order: "
            f"left to right, rows top to bottom)" for i, s in enumerate(deck_shots(codes, per_shot))]


def take_shot(deck: DeckCapture, image: np.ndarray, codes: Sequence[str], label: str,
              background: np.ndarray | None = None) -> Shot:
    """One shot into ``deck`` (``background``: the empty table, when the shot is a camera
    frame): its references that passed every check are kept."""
    return keep_shot(deck, capture_shot(image, codes, deck.references, label, background=background))


def keep_shot(deck: DeckCapture, shot: Shot) -> Shot:
    """A checked shot's references that passed every check into ``deck``, with its checks."""
    deck.shots.append(shot)
    deck.checks.extend(shot.checks)
    for cap in shot.captures:
        deck.checks.extend(cap.checks)
        if cap.image is not None and not steps.failed(cap.checks):
            deck.references[cap.code] = cap.image
            deck.quads.append(cap.quad)
            deck.sharpness.append(cap.sharpness)
    return shot


def finish(deck: DeckCapture, width: int, height: int) -> DeckCapture:
    """The look-alike warnings and camera checks over every reference taken."""
    deck.pairs, lchecks = steps.lookalike_checks(deck.references)
    deck.checks.extend(lchecks)
    deck.checks.extend(steps.camera_checks(width, height, deck.quads, deck.sharpness))
    return deck


def capture_deck(images: Sequence[tuple[str, np.ndarray]], codes: Sequence[str], per_shot: int = 13,
                 background: np.ndarray | None = None) -> DeckCapture:
    """The deck's references from ``images`` ((label, BGR image), one per shot of
    :func:`calibration.deck_rows.deck_shots`, in that order). A wrong number of images is
    one failed check (which shots are missing or extra), the shots that are there are read.
    ``background``: the empty table, when the images are the camera's frames."""
    plan = deck_shots(codes, per_shot)
    deck = DeckCapture()
    if len(images) != len(plan):
        deck.checks.append(Check("deck", "fail", f"{len(images)} layout photo(s) for {len(plan)} shots: "
                                                 + "; ".join(plan_lines(codes, per_shot))))
    for (label, image), shot_codes in zip(images, plan):
        take_shot(deck, image, shot_codes, label, background)
    h, w = images[0][1].shape[:2] if images else (0, 0)
    return finish(deck, w, h)


def read_photos(paths: Sequence[Path]) -> list[tuple[str, np.ndarray]]:
    """The layout photos, as (file name, image); one that cannot be read is its error."""
    import cv2

    from session.errors import MediaError

    out = []
    for p in paths:
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None:
            raise MediaError(f"the layout photo {p} cannot be read (not an image, or missing)")
        out.append((Path(p).name, img))
    return out

"""The calibration's seat steps: one column per player above the play area, its boundaries moved
to half-way between the neighbours' shoulders as pose finds them (:mod:`calibration.steps`)."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from calibration.steps_check import Check


PoseFn = Callable[[np.ndarray, tuple[int, int, int, int]], object]


def default_pose(image: np.ndarray, box: tuple[int, int, int, int]):
    """MediaPipe pose (still-image mode) on one seat box: landmarks or None."""
    from vision.hands import PoseEstimator

    est = PoseEstimator(box, video=False)
    try:
        return est.estimate(image)
    finally:
        est.close()


def seat_boxes(n: int, width: int, bottom: int) -> list[tuple[int, int, int, int]]:
    """``n`` equal columns from the top of the image down to ``bottom``."""
    edges = [int(round(width * i / n)) for i in range(n + 1)]
    return [(edges[i], 0, edges[i + 1], bottom) for i in range(n)]


def refine_seats(image: np.ndarray, names: Sequence[str], bottom: int,
                 pose: PoseFn = default_pose) -> tuple[list[tuple[int, int, int, int]], list[Check]]:
    """Seat boxes for ``names`` (left to right in the image) above row ``bottom``: pose on
    equal columns finds each person's shoulders; boundaries go half-way between neighbours;
    pose must find every person again in their final box."""
    h, w = image.shape[:2]
    boxes = seat_boxes(len(names), w, bottom)
    centres: list[float | None] = []
    for b in boxes:
        lm = pose(image, b)
        if lm is None:
            centres.append(None)
        else:
            centres.append((lm["left_shoulder"].x + lm["right_shoulder"].x) / 2)
    if all(c is not None for c in centres) and all(a < b for a, b in zip(centres, centres[1:])):
        edges = [0] + [int(round((a + b) / 2)) for a, b in zip(centres, centres[1:])] + [w]
        boxes = [(edges[i], 0, edges[i + 1], bottom) for i in range(len(names))]
    checks = []
    for name, b in zip(names, boxes):
        lm = pose(image, b)
        if lm is None:
            checks.append(Check(f"seat {name}", "fail", f"nobody found by pose in {list(b)}: sit facing the camera "
                                                        f"with head, shoulders and both hands in view"))
        else:
            checks.append(Check(f"seat {name}", "ok", f"person found in {list(b)} (shoulders at x "
                                                      f"{lm['left_shoulder'].x:.0f}/{lm['right_shoulder'].x:.0f})"))
    return boxes, checks


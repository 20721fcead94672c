"""The cameras this computer has: index, resolution, frame rate, and whether one fits a table.

``referee devices`` asks here (OpenCV is vision's). Each candidate is opened once, asked
for 1280×720 at 30 fps (what a table wants; a camera that cannot gives what it can), read
once (a node that opens but gives no frame — a V4L2 metadata node — is no camera) and
released. OpenCV's own log lines (``[ WARN:0@0.1] ... can't open camera by index``) are
silenced first: a missing camera is said once, by the caller, in words.

``opener`` is a seam for tests (this machine has no camera): it takes an index and returns
an object with ``isOpened``, ``read``, ``get`` and ``release``, as ``cv2.VideoCapture``.
"""

from __future__ import annotations

import glob
import re
import sys
from dataclasses import dataclass
from typing import Callable, Iterable

#: what a table wants of its camera (README "What a table needs")
WANT_WIDTH, WANT_HEIGHT, WANT_FPS = 1280, 720, 30.0
#: below this width card faces are too small to read (calibration's camera check)
MIN_WIDTH = 640


@dataclass(frozen=True)
class CameraInfo:
    index: int
    width: int
    height: int
    fps: float | None

    def to_dict(self) -> dict:
        return {"index": self.index, "width": self.width, "height": self.height, "fps": self.fps}

    def verdict(self) -> str:
        """Whether it fits a table, in words (the fps a driver reports may be 0: unknown)."""
        fps = "fps unknown" if not self.fps else f"{self.fps:g} fps"
        if self.width < MIN_WIDTH:
            return f"too small ({self.width}x{self.height}, {fps}): cards need at least {MIN_WIDTH} px width"
        if self.width >= WANT_WIDTH and (not self.fps or self.fps >= WANT_FPS - 1):
            return "fits a table"
        return f"usable ({self.width}x{self.height}, {fps}); 1280x720 at 30 fps is better"


def candidates() -> list[int]:
    """The indices worth trying: ``/dev/videoN`` on Linux (none there: no camera), else 0-4."""
    if sys.platform.startswith("linux"):
        nums = sorted(int(m.group(1)) for p in glob.glob("/dev/video*")
                      if (m := re.fullmatch(r"/dev/video(\d+)", p)))
        return nums
    return list(range(5))


def _cv2_opener(index: int):
    """The camera as the live referee opens it (:func:`vision.camera.cv2_opener`), asked for
    the size and rate a table wants."""
    from vision.camera import cv2_opener

    return cv2_opener(index, (WANT_WIDTH, WANT_HEIGHT), WANT_FPS)


def probe(index: int, opener: Callable[[int], object] | None = None) -> CameraInfo | None:
    """One camera's mode after asking for 1280×720 at 30 fps; None when it does not open or
    gives no frame."""
    import cv2

    cap = (opener or _cv2_opener)(index)
    try:
        if not cap.isOpened():
            return None
        ok, frame = cap.read()
        if not ok or frame is None:
            return None
        h, w = frame.shape[:2]
        fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
        return CameraInfo(index, int(w), int(h), round(fps, 2) if fps > 0 else None)
    finally:
        cap.release()


def list_cameras(indices: Iterable[int] | None = None,
                 opener: Callable[[int], object] | None = None) -> list[CameraInfo]:
    """Every camera that opens and gives a frame (see the module docstring)."""
    out = []
    for i in (candidates() if indices is None else indices):
        info = probe(i, opener)
        if info is not None:
            out.append(info)
    return out


def can_open(device, opener: Callable[[int], object] | None = None) -> bool:
    """Whether a live camera (index or device path) opens and gives a frame: the live
    self-test asks before it tells anyone to raise a hand."""
    if isinstance(device, str) and not device.isdigit():
        opener = opener or _path_opener
    return probe(int(device) if str(device).isdigit() else device, opener) is not None


def _path_opener(path):
    import cv2

    from vision.camera import quiet_opencv

    quiet_opencv(cv2)
    return cv2.VideoCapture(path)

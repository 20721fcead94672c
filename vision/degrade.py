"""What a real table's camera does to a picture, for benchmarks and tests: an oblique view of
the table plane, a webcam's size and compression, a video re-encoded at a low bit rate.

Why: the labelled real photos are mostly taken from above, while a camera at the edge of a
table sees the field at an angle (cards foreshortened, a card lying sideways can look
portrait), and webcams and phones deliver 640x480 or 640x360 at a few hundred kb/s. These
functions make such views from the real photos and the demo video, so recognition is
measured where it fails at a real table (``benchmarks/bench_seeing.py``), not only where
the photos happen to be easy. The geometry is a pinhole camera (53 degree field of view) at a fixed distance from
the centre of the plane, the plane turned about its horizontal (``"x"``) or vertical
(``"y"``) centre line: how a flat table looks from a camera that sees it that far from
head-on (the photo itself is taken as the plane seen head-on).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import cv2
import numpy as np

#: focal length of the simulated camera as a multiple of the image width (1.0 = a 53 degree
#: horizontal field of view, a typical webcam)
FOCAL_WIDTHS = 1.0


def tilt_homography(width: int, height: int, degrees: float, axis: str = "x") -> np.ndarray:
    """The homography that shows a ``width`` x ``height`` head-on picture of a plane as a
    camera would see it when the plane is turned by ``degrees`` about its centre line
    (``axis`` ``"x"``: the top edge goes away from the camera, as a table seen from its
    edge; ``"y"``: the right edge goes away), the camera keeping its distance and aim;
    translated and scaled so the result is as wide (x) or as high (y) as the picture: the
    camera's resolution spent on the table, as when it fills the frame. Returns the
    homography and the result's (width, height)."""
    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y', got {axis!r}")
    f = FOCAL_WIDTHS * width
    k = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]], np.float64)
    a = np.radians(degrees)
    c, s = np.cos(a), np.sin(a)
    r = (np.array([[1, 0, 0], [0, c, -s], [0, s, c]]) if axis == "x"
         else np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]))
    # plane point (X, Y) (pixels from the centre) -> camera: R (X, Y, 0) + (0, 0, f)
    centre = np.array([[1, 0, -width / 2], [0, 1, -height / 2], [0, 0, 1]], np.float64)
    h = k @ np.column_stack([r[:, 0], r[:, 1], [0, 0, f]]) @ centre
    corners = np.float64([[0, 0], [width, 0], [width, height], [0, height]]).reshape(-1, 1, 2)
    out = cv2.perspectiveTransform(corners, h).reshape(-1, 2)
    lo, hi = out.min(0), out.max(0)
    scale = width / (hi[0] - lo[0]) if axis == "x" else height / (hi[1] - lo[1])
    fit = np.array([[scale, 0, -lo[0] * scale], [0, scale, -lo[1] * scale], [0, 0, 1]])
    size = (int(round((hi[0] - lo[0]) * scale)), int(round((hi[1] - lo[1]) * scale)))
    return fit @ h, size


def oblique(image: np.ndarray, degrees: float, axis: str = "x") -> np.ndarray:
    """``image`` seen by a camera tilted ``degrees`` about ``axis`` (see :func:`tilt_homography`);
    what falls outside the picture is black."""
    h, w = image.shape[:2]
    m, size = tilt_homography(w, h, degrees, axis)
    return cv2.warpPerspective(image, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


def webcam(image: np.ndarray, longest: int = 640, quality: int = 40) -> np.ndarray:
    """``image`` as a webcam would deliver it: reduced to ``longest`` pixels on its longest
    side, JPEG-compressed at ``quality`` (MJPEG webcams run at 40-70)."""
    s = longest / max(image.shape[:2])
    small = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else image
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:  # pragma: no cover - OpenCV always encodes a BGR image
        raise ValueError("JPEG encoding failed")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def reencode(frames: Iterable[np.ndarray], path: str | Path, *, codec: str = "libx264", size: tuple[int, int] | None = None,
             bit_rate: int | None = None, crf: int | None = None, preset: str | None = None, fps: int = 30) -> None:
    """Encode BGR ``frames`` (resized to ``size`` = (width, height) when given) with
    :func:`vision.video.write_video`: ``codec`` ``mpeg4`` with ``bit_rate`` (bits/s) or
    ``libx264`` with ``crf``/``preset`` (None: the codec's own)."""
    from vision.video import write_video

    def resized():
        for img in frames:
            if size is not None and (img.shape[1], img.shape[0]) != tuple(size):
                img = cv2.resize(img, tuple(size), interpolation=cv2.INTER_AREA)
            yield img

    write_video(path, resized(), fps=fps, crf=crf, codec=codec, preset=preset, bit_rate=bit_rate)

"""What the dispute report draws its evidence with: embedded images, escaped text, the pose on
a seat's frame, a seat's crop and a seat's waveform. Shared by the report's card sections
(:mod:`referee.report`) and its unclear section (:mod:`referee.report_unclear`), which then
need not import each other."""

from __future__ import annotations

import base64
import bisect
import html
from typing import Any

import cv2
import numpy as np

#: JPEG quality of embedded frames (size vs detail; 80 ≈ 40 kB for a 640x360 frame)
JPEG_QUALITY = 80
#: seconds of audio shown before the card in a card's waveforms
WAVE_BEFORE_S = 0.3
#: width of a waveform strip and of the timeline, pixels
WAVE_W, TIMELINE_W = 760, 1200
#: the side colours (BGR): the person's own left = blue, right = orange
SIDE_BGR = {"left": (230, 130, 30), "right": (20, 140, 255)}
SIDE_CSS = {"left": "#1e82e6", "right": "#ff8c14"}

def img_tag(img: np.ndarray, png: bool = False) -> str:
    """An HTML ``<img>`` with ``img`` inline (JPEG at :data:`JPEG_QUALITY`, or PNG)."""
    ok, buf = cv2.imencode(".png" if png else ".jpg", img, [] if png else [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    kind = "png" if png else "jpeg"
    return f'<img src="data:image/{kind};base64,{base64.b64encode(buf.tobytes()).decode()}" alt="">'


def escape(s: Any) -> str:
    """``s`` as HTML text."""
    return html.escape(str(s))


def landmarks_at(result, player: str, t: float) -> dict | None:
    """``player``'s pose landmarks nearest ``t`` in a replay ``result`` (within 0.2 s), or None."""
    hist = result.landmarks.get(player) or []
    if not hist:
        return None
    ts = [h[0] for h in hist]
    i = bisect.bisect_left(ts, t)
    best = min((j for j in (i - 1, i) if 0 <= j < len(hist)), key=lambda j: abs(ts[j] - t))
    return hist[best][1] if abs(ts[best] - t) < 0.2 else None


def draw_pose(img: np.ndarray, lm: dict | None, box, label: str, colour=(255, 255, 255)) -> None:
    x1, y1, x2, y2 = box
    cv2.rectangle(img, (x1, y1), (x2 - 1, y2 - 1), colour, 2)
    cv2.putText(img, label, (x1 + 6, y1 + 26), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 4, cv2.LINE_AA)
    cv2.putText(img, label, (x1 + 6, y1 + 26), cv2.FONT_HERSHEY_SIMPLEX, 0.8, colour, 2, cv2.LINE_AA)
    if not lm:
        return
    pt = {k: (int(round(v[0])), int(round(v[1]))) for k, v in lm.items()}
    if "left_shoulder" in pt and "right_shoulder" in pt:
        cv2.line(img, pt["left_shoulder"], pt["right_shoulder"], (255, 255, 255), 2, cv2.LINE_AA)
        for side in ("left", "right"):  # the line the wrist must pass
            sy = pt[f"{side}_shoulder"][1]
            sx = pt[f"{side}_shoulder"][0]
            cv2.line(img, (sx - 40, sy), (sx + 40, sy), SIDE_BGR[side], 1, cv2.LINE_AA)
    for side in ("left", "right"):
        c = SIDE_BGR[side]
        chain = [pt.get(f"{side}_shoulder"), pt.get(f"{side}_elbow"), pt.get(f"{side}_wrist")]
        for a, b in zip(chain, chain[1:]):
            if a and b:
                cv2.line(img, a, b, c, 3, cv2.LINE_AA)
        for p in chain:
            if p:
                cv2.circle(img, p, 6, c, -1, cv2.LINE_AA)
                cv2.circle(img, p, 6, (0, 0, 0), 1, cv2.LINE_AA)


def crop_box(img: np.ndarray, box, margin: int = 20, width: int = 240) -> np.ndarray:
    """``box`` of ``img`` with ``margin`` pixels around it, scaled to ``width`` pixels wide."""
    h, w = img.shape[:2]
    x1, y1, x2, y2 = box
    c = img[max(0, y1 - margin):min(h, y2 + margin), max(0, x1 - margin):min(w, x2 + margin)]
    s = width / c.shape[1]
    return cv2.resize(c, (width, int(round(c.shape[0] * s))), interpolation=cv2.INTER_AREA)


def waveform(samples: np.ndarray, rate: int, t0: float, t1: float, card_t: float, onsets: list[tuple[float, float, str]],
             label: str, width: int = WAVE_W, height: int = 70) -> np.ndarray:
    """A seat's waveform over [t0, t1] (envelope per pixel column), the card time (grey) and
    each onset (red line, words above it, the utterance shaded)."""
    img = np.full((height, width, 3), 255, np.uint8)
    a, b = max(0, int(t0 * rate)), max(0, int(t1 * rate))
    x = samples[a:b]
    mid = height // 2 + 6
    amp = height // 2 - 10
    span = max(t1 - t0, 1e-6)
    tx = lambda t: int(round((t - t0) / span * (width - 1)))  # noqa: E731
    for s, e, _ in onsets:
        cv2.rectangle(img, (tx(s), 12), (tx(min(e, t1)), height - 1), (220, 225, 255), -1)
    if len(x):
        edges = np.linspace(0, len(x), width + 1).astype(int)
        peak = max(float(np.abs(samples).max()) if len(samples) else 1.0, 1e-6)
        for i in range(width):
            seg = x[edges[i]:max(edges[i + 1], edges[i] + 1)]
            if len(seg):
                lo, hi = float(seg.min()) / peak, float(seg.max()) / peak
                cv2.line(img, (i, int(mid - hi * amp)), (i, int(mid - lo * amp)), (90, 90, 90), 1)
    else:
        cv2.putText(img, "no audio here", (10, mid), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 200), 1, cv2.LINE_AA)
    cv2.line(img, (tx(card_t), 0), (tx(card_t), height), (150, 150, 150), 2)
    for s, _, words in onsets:
        cv2.line(img, (tx(s), 10), (tx(s), height), (0, 0, 220), 2)
        cv2.putText(img, words, (tx(s) + 4, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 200), 1, cv2.LINE_AA)
    cv2.putText(img, label, (4, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (0, 0, 0), 1, cv2.LINE_AA)
    return img

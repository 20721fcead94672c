"""The dispute report's evidence of cards read together in a player's spread
(``p:NAME:spread``, :mod:`vision.spread_watch`): each card's crop beside its code, or
"unclear" and why (issue 34 item 2). A game whose verdicts rest on such reads names
:func:`spread_evidence` as its judging module's ``report_evidence``."""

from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

from referee.report_media import escape, img_tag

#: a card's crop in the report, pixels wide
CROP_W = 96
#: pixels of table around a card's box in its crop
CROP_MARGIN = 6


def used_hands(verdict: dict, events: list[dict]) -> dict[str, dict]:
    """Per player, the last camera-read hand at or before the verdict: the one it scored."""
    t = float(verdict.get("t", 0.0))
    out: dict[str, dict] = {}
    for e in events:
        if e.get("type") == "choice" and e.get("action") == "hand" and e.get("source") == "camera" \
                and float(e["t"]) <= t + 1e-6 and e.get("player"):
            out[e["player"]] = e
    return out


def card_crop(frame: np.ndarray, box) -> np.ndarray:
    x1, y1, x2, y2 = (int(v) for v in box)
    h, w = frame.shape[:2]
    x1, y1 = max(0, x1 - CROP_MARGIN), max(0, y1 - CROP_MARGIN)
    x2, y2 = min(w, x2 + CROP_MARGIN), min(h, y2 + CROP_MARGIN)
    crop = frame[y1:y2, x1:x2]
    if crop.size == 0:
        return np.zeros((int(CROP_W * 1.4), CROP_W, 3), np.uint8)
    return cv2.resize(crop, (CROP_W, max(1, int(CROP_W * crop.shape[0] / crop.shape[1]))), interpolation=cv2.INTER_AREA)


def spread_times(verdict: dict, events: list[dict]) -> list[float]:
    """The frames :func:`spread_evidence` shows for this verdict (the report decodes them in
    its one pass over the video, with every other frame it needs)."""
    return sorted({float(e["t"]) for e in used_hands(verdict, events).values()})


def spread_evidence(verdict: dict, events: list[dict], frames_at: Callable[[list[float]], dict]) -> str:
    """HTML: for each player whose hand the camera read, the time, and every card's crop
    with its code (or *unclear* and the reason)."""
    hands = used_hands(verdict, events)
    if not hands:
        return ""
    frames = frames_at(spread_times(verdict, events))
    parts = ["<p><b>Each player's cards as the camera read them</b> (the frame the spread lay still):</p>"]
    for player, e in hands.items():
        frame = frames.get(float(e["t"]))
        figs = []
        for s in e.get("seen") or []:
            code = s.get("card")
            cap = f"<b class=ok>{escape(code)}</b>" if code else f"<b class=unclear>unclear</b>: {escape(s.get('why', ''))}"
            img = img_tag(card_crop(frame, s["box"])) if frame is not None else ""
            figs.append(f"<figure>{img}<figcaption>{cap}</figcaption></figure>")
        n_unclear = sum(1 for s in e.get("seen") or [] if not s.get("card"))
        head = (f"<p><b>{escape(player)}</b> at {float(e['t']):.3f} s ({escape(e.get('zone', ''))}): "
                f"{len(e.get('cards') or [])} read" + (f", <b class=unclear>{n_unclear} unclear</b> — no score "
                                                       "for this player" if n_unclear else "") + "</p>")
        parts.append(head + '<div class="ev">' + "".join(figs) + "</div>")
    return "\n".join(parts)

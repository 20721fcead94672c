"""What the card recogniser saw, drawn: every outline with its best code and score.

``referee vision cards IMAGE --refs DIR --debug OUT.png`` writes this picture so that a
person sees *why* a card was not read: no outline at all (light card on a light table, a
hand over its edge), an outline in the wrong place (a shadow corner), or an outline whose
best reference scores too low (not this deck, glare, too small). Thin lines are every
outline the binarisations gave (colour by what its face matched); thick lines and labels
are the cards recognise() kept.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards import MIN_SCORE, References, outline_matches

#: BGR colours by status: read, look-alikes, no reference fits, nothing like a card
COLOURS = {"ok": (0, 200, 0), "uncertain": (0, 165, 255), "none": (0, 0, 230), "low": (150, 150, 150)}
#: an outline scoring below this is drawn grey (most are table texture)
LOW_SCORE = 0.3


def draw_outlines(image: np.ndarray, refs: References, kept=()) -> np.ndarray:
    """A copy of ``image`` with every outline (thin, with its best code and score when it
    scores at least :data:`LOW_SCORE`) and the kept matches ``kept`` (thick, labelled)."""
    out = image.copy()
    scale = max(1.0, max(image.shape[:2]) / 800)
    thin, thick, font = max(1, int(round(scale))), max(2, int(round(3 * scale))), 0.5 * scale
    for m in sorted(outline_matches(image, refs, every=True), key=lambda m: m.score):
        key = "low" if m.score < LOW_SCORE else m.status
        pts = m.quad.astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, COLOURS[key], thin, cv2.LINE_AA)
        if key != "low":
            x, y = m.quad.mean(axis=0).astype(int)
            _label(out, f"{m.runner_up if m.code is None else m.code} {m.score:.2f}", (int(x) - 30, int(y)),
                   COLOURS[key], font)
    for m in kept:
        pts = m.quad.astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, COLOURS[m.status], thick, cv2.LINE_AA)
        x, y = m.quad.min(axis=0).astype(int)
        what = m.code if m.status == "ok" else f"{m.code}/{m.runner_up}?"
        _label(out, f"{what} {m.score:.2f}", (int(x), max(12, int(y) - 6)), COLOURS[m.status], font * 1.4)
    _label(out, f"thick: kept; thin: every outline (best code, score; accepted >= {MIN_SCORE})", (8, int(20 * scale)),
           (255, 255, 255), font)
    return out


def _label(img: np.ndarray, text: str, org: tuple[int, int], colour, size: float) -> None:
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, size, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, size, colour, 1, cv2.LINE_AA)

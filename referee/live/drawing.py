"""Text on the live views' images (OpenCV's Hershey font, ASCII): outlined so it reads on any
camera image, shrunk or wrapped to fit. Shared by :mod:`referee.live.window` and the views it
draws beside its own (:mod:`referee.live.griddles`)."""

from __future__ import annotations

BLACK = (0, 0, 0)
FONT = 0  # cv2.FONT_HERSHEY_SIMPLEX
BOLD = 2  # cv2.FONT_HERSHEY_DUPLEX


def outlined_text(cv2, img, s: str, org, scale: float, colour, thick: int = 1, font: int = FONT) -> int:
    """Draw ``s`` with a dark outline (readable on any camera image); returns its width."""
    s = s.encode("ascii", "replace").decode("ascii")
    cv2.putText(img, s, org, font, scale, BLACK, thick + 2, cv2.LINE_AA)
    cv2.putText(img, s, org, font, scale, colour, thick, cv2.LINE_AA)
    return cv2.getTextSize(s, font, scale, thick)[0][0]


def fit_scale(cv2, s: str, width: int, scale: float, thick: int = 1, font: int = FONT) -> float:
    """The largest scale ≤ ``scale`` at which ``s`` fits ``width`` pixels."""
    w = cv2.getTextSize(s.encode("ascii", "replace").decode("ascii"), font, scale, thick)[0][0]
    return scale if w <= width else max(0.4, scale * width / w)


def wrap_text(cv2, s: str, width: int, scale: float) -> list[str]:
    """``s`` in lines that fit ``width`` pixels at ``scale`` (cut at spaces)."""
    words, lines, cur = s.split(), [], ""
    for w in words:
        nxt = f"{cur} {w}".strip()
        if cur and cv2.getTextSize(nxt, FONT, scale, 1)[0][0] > width:
            lines.append(cur)
            cur = w
        else:
            cur = nxt
    return lines + ([cur] if cur else [])

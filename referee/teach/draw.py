"""The program's own cards, drawn with OpenCV (no card art): a coloured face per kind, the
name large, a count of pips where the count matters, readable at a glance from a metre.
Deterministic: the same card gives the same pixels (no randomness). Latin labels are OpenCV's
Hershey fonts; Japanese text (the window's questions and reasons with ``--lang ja``, the
cards' Japanese names under their Latin ones) is drawn with a TrueType font through
:mod:`referee.teach.fonts`, in romaji when no Japanese font is installed."""

from __future__ import annotations


import cv2
import numpy as np

from referee.teach.fonts import put_text, wrap

CARD_W, CARD_H = 200, 280
FONT = cv2.FONT_HERSHEY_DUPLEX
# BGR face colours of the kinds every game may show; a game's own kinds and how its cards
# read are its declaration (``CardLook`` in ``referee/teach/drills/<game>.py``)
FACES = {"number": (225, 240, 250), "plain": (235, 235, 235)}


def _look(game: str):
    """The game's :class:`~referee.teach.drills.base.CardLook` (a plain one for none or no drills)."""
    from referee.teach.drills import teaching
    from referee.teach.drills.base import CardLook

    declared = teaching(game) if game else None
    return declared.look if declared is not None else CardLook()


def _every_look() -> tuple[dict, dict]:
    """The face and label colours of every game's kinds (a kind's colour is the same whatever
    game draws it: the griddle's slots draw with no game)."""
    from referee.teach.drills import games, teaching

    faces, ink = dict(FACES), {}
    for g in games():
        faces.update(teaching(g).look.faces)
        ink.update(teaching(g).look.ink)
    return faces, ink


def _kind(card: str, game: str) -> tuple[str, str, int]:
    """(face kind, label, pips) of a card: the game's own reading, else a kind named by the
    card, a number, or a plain face."""
    look = _look(game)
    own = look.kind(card) if look.kind is not None else None
    if own is not None:
        return own
    if card in _every_look()[0]:
        return card, card.upper(), 0
    if card.isdigit():
        return "number", card, 0
    return "plain", card.upper(), 0


def _text_centered(img, label: str, y: int, scale: float, colour, thick: int = 2) -> None:
    (w, h), _ = cv2.getTextSize(label, FONT, scale, thick)
    while w > img.shape[1] - 16 and scale > 0.3:
        scale *= 0.9
        (w, h), _ = cv2.getTextSize(label, FONT, scale, thick)
    cv2.putText(img, label, ((img.shape[1] - w) // 2, y + h // 2), FONT, scale, colour, thick, cv2.LINE_AA)


def draw_card(card: str, game: str = "ikatako", w: int = CARD_W, h: int = CARD_H, sub: str = "") -> np.ndarray:
    """One card face, ``h`` × ``w`` BGR, white border on a dark table; ``sub`` (the card's
    Japanese name) is written small under the label."""
    kind, label, pips = _kind(card, game)
    img = np.full((h, w, 3), (40, 90, 40), np.uint8)
    faces, inks = _every_look()
    face = faces.get(kind, FACES["plain"])
    ink = inks.get(kind, (30, 30, 30))
    cv2.rectangle(img, (4, 4), (w - 5, h - 5), (250, 250, 250), -1, cv2.LINE_AA)
    cv2.rectangle(img, (12, 12), (w - 13, h - 13), face, -1, cv2.LINE_AA)
    k = w / CARD_W  # everything scales with the card
    big = (2.2 if len(label) <= 3 else (1.3 if len(label) <= 5 else 0.9)) * k
    thick = max(1, round(3 * k))
    _text_centered(img, label, h // 2 - (int(20 * k) if pips else 0), big, ink, thick)
    if w >= 150:  # the corner index only where it does not crowd the name
        cv2.putText(img, label[:4], (20, 40), FONT, 0.6, ink, 1, cv2.LINE_AA)
    if pips:
        r = max(4, int(12 * k))
        xs = [w // 2 + (i - (pips - 1) / 2) * (2 * r + max(3, int(6 * k))) for i in range(pips)]
        for x in xs:
            cv2.circle(img, (int(x), h - int(60 * k)), r, ink, -1, cv2.LINE_AA)
    if sub and sub != label:
        px = max(12, int(26 * k))
        from referee.teach.fonts import text_width
        put_text(img, sub, ((w - text_width(sub, px)) // 2, h - int(34 * k) if not pips else h - int(24 * k)), px, ink)
    return img


def draw_scene(card: str, field: tuple[str, ...], game: str, title: str, lines: tuple[str, ...],
               verdict: tuple[str, tuple[str, ...], tuple[int, int, int]] | None = None,
               size: tuple[int, int] = (640, 900), names: dict[str, str] | None = None) -> np.ndarray:
    """The window's frame: the title, the drawn card big, the field small beside it, the
    context lines, and (after an answer) the verdict and its reason lines in its colour.
    ``names``: a card's Japanese name to write under it (``--lang ja``)."""
    H, W = size
    names = names or {}
    img = np.full((H, W, 3), (30, 60, 30), np.uint8)
    put_text(img, title, (24, 44), 30, (255, 255, 255), bold=True)
    x = 24
    table = _look(game).table
    if table == "piles":  # the three pile tops are the question: all three big, side by side
        for i, c in enumerate(field[:3]):
            img[70:70 + CARD_H, x:x + CARD_W] = draw_card(c, game, sub=names.get(c, ""))
            if c == card and i == 2:  # the card just played
                cv2.rectangle(img, (x - 6, 64), (x + CARD_W + 5, 70 + CARD_H + 5), (80, 220, 240), 3, cv2.LINE_AA)
            x += CARD_W + 24
        card, field = "", ()
    if card:
        img[70:70 + CARD_H, x:x + CARD_W] = draw_card(card, game, sub=names.get(card, ""))
        x += CARD_W + 30
    if table == "griddle" and field:  # the griddle: slots face up (the rank) or face down (a back)
        for i, slot in enumerate(field[:10]):
            state, name = slot.split(":")
            sw, sh = 90, 126
            cx, cy = x + (i % 5) * (sw + 10), 70 + (i // 5) * (sh + 16)
            if state == "up":
                img[cy:cy + sh, cx:cx + sw] = draw_card(name, "", sw, sh)
            else:
                cv2.rectangle(img, (cx, cy), (cx + sw - 1, cy + sh - 1), (250, 250, 250), -1)
                cv2.rectangle(img, (cx + 5, cy + 5), (cx + sw - 6, cy + sh - 6), (140, 70, 30), -1)
                _text_centered(img[cy:cy + sh, cx:cx + sw], name, sh // 2, 0.8, (255, 255, 255), 2)
        field = ()
    small = [c for c in field if c != card][:9]
    sw, sh, cols = _small_grid(len(small), W - x - 24, CARD_H + 20)
    for i, c in enumerate(small):
        cx, cy = x + (i % cols) * (sw + 12), 70 + (i // cols) * (sh + 12)
        if cy + sh < H and cx + sw < W:
            img[cy:cy + sh, cx:cx + sw] = draw_card(c.split(":")[0], game, sw, sh, sub=names.get(c, ""))
    y = 70 + CARD_H + 36
    for line in lines[:4]:
        put_text(img, _ascii(line), (24, y), 18, (230, 230, 230))
        y += 26
    if verdict:
        head, reason, colour = verdict
        y += 10
        put_text(img, _ascii(head), (24, y + 20), 36, colour, bold=True)
        y += 56
        for line in reason:
            for part in (_wrap(_ascii(line), 70) if _ascii(line).isascii() else wrap(line, W - 48, 20)):
                put_text(img, part, (24, y), 18.6 if part.isascii() else 20, (255, 255, 255))
                y += 26 if part.isascii() else 28
    return img


def _small_grid(n: int, width: int, height: int) -> tuple[int, int, int]:
    """The small cards' size and columns: 100 x 140 pixels, as many to a row as ``width``
    holds, made smaller until ``n`` of them fit above the text lines (``height``) — a
    nine-card TORATANU hand once ran its third row into the lines and lost five cards."""
    for scale in (1.0, 0.85, 0.7, 0.6, 0.5):
        sw, sh = int(100 * scale), int(140 * scale)
        cols = max(1, (width + 12) // (sw + 12))
        rows = -(-max(n, 1) // cols)
        if rows * (sh + 12) - 12 <= height:
            break
    return sw, sh, cols


def _ascii(s: str) -> str:
    """Latin text with its few symbols in ASCII (Hershey has no arrow); Japanese kept as is."""
    t = s.replace("→", "->").replace("−", "-").replace("…", "...").replace("×", "x")
    return t if t.isascii() else s


def _wrap(s: str, n: int) -> list[str]:
    out, cur = [], ""
    for word in s.split(" "):
        if len(cur) + len(word) + 1 > n and cur:
            out.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}".strip()
    return out + ([cur] if cur else [])

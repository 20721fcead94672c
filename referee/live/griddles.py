"""The griddles as read, for the live window (TAKOYAKI, issue 34 item 6).

:func:`board_of` folds the verdict lines the window holds (``LiveState.judged``) into what
the table has in front of it: each player's griddle slot by slot (face up: the card the
camera read there, a joker too; face down: a back), the top of the discards, whose turn it
is, and the last thing said (the game's own words: :func:`referee.live.voice.game_words`).
It is pure — the same lines give the same board — and knows the griddles only from the
calibration's zones ``p:NAME:slotN`` (a game with such zones has griddles; any other game
gets None and the window draws its usual panel). :func:`draw_panel` draws the board in the
window's right-hand panel, :func:`draw_zones` outlines the slots and the discards on the
camera image.

A slot shows the card the judge accepted there, legal or not (the judge follows the table:
an illegal placement stays where it was put, flagged in red). A card the camera could not
read gives no verdict, so its slot stays face down: the view never shows a card it did not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

SLOT_ZONE = re.compile(r"^p:(?P<player>[^:]+):slot(?P<slot>\d+)$")
#: the calibration's zone of the discards (referee.judging.takoyaki.CAMERA_DISCARD)
DISCARD_ZONES = ("pile0", "discard")
#: slot labels as the table says them (slot 1 is the ace slot)
SLOT_LABELS = {1: "A"}

# colours (BGR), as the window's
WHITE, GREY, DIM, BLACK = (255, 255, 255), (170, 170, 170), (90, 90, 90), (0, 0, 0)
GREEN, RED, YELLOW = (90, 200, 60), (60, 60, 230), (60, 220, 230)
CARD_FACE, CARD_BACK, BACK_LINE = (245, 245, 245), (120, 70, 40), (170, 120, 80)
PIP_RED = (40, 40, 210)


@dataclass
class Griddle:
    player: str
    size: int
    #: face-up slots: slot number -> (card, legal)
    up: dict[int, tuple[str, bool]] = field(default_factory=dict)


@dataclass
class Board:
    griddles: list[Griddle]
    discard: str | None = None
    discards: int = 0
    #: who plays next (None before the first card, or once the game is won)
    turn: str | None = None
    winner: str | None = None
    #: the last thing said, as text, and its kind: "illegal", "end", "win" (None: nothing yet)
    said: str | None = None
    said_kind: str | None = None
    said_card: str | None = None
    #: every move judged, oldest first, one line each ("aki place 7H on slot 7: ok, aki plays on")
    moves: list[str] = field(default_factory=list)


#: what the griddle view's colours mean (the window's legend line for a griddle game)
LEGEND = ("green frame: a card read face up", "red frame: an illegal move (the card stays where it was put)",
          "blue: face down", "yellow: to play")


def griddle_sizes(calibration: Any) -> dict[str, int]:
    """``{player: slots}`` from the calibration's ``p:NAME:slotN`` zones (empty: no griddles)."""
    sizes: dict[str, int] = {}
    for name in (getattr(calibration, "zones", None) or {}):
        m = SLOT_ZONE.match(name)
        if m:
            sizes[m["player"]] = max(sizes.get(m["player"], 0), int(m["slot"]))
    return sizes


def board_of(state: Any) -> Board | None:
    """The griddles as the verdict lines of ``state`` (a :class:`referee.live.state.LiveState`)
    have them, or None when its calibration marks no griddle slots."""
    sizes = griddle_sizes(state.calibration)
    if not sizes:
        return None
    players = [p for p in state.players if p in sizes] + [p for p in sizes if p not in state.players]
    board = Board([Griddle(p, sizes[p]) for p in players])
    by_player = {g.player: g for g in board.griddles}
    from referee.live.voice import game_words

    words = game_words(state.game)
    lines = sorted((v for v in state.judged.values() if v.get("type") == "verdict"),
                   key=lambda v: v.get("t") if isinstance(v.get("t"), (int, float)) else float("inf"))
    for line in lines:
        zone, legal = line.get("zone") or "", line.get("legal", True) is not False  # (null: unclear, not red)
        m = SLOT_ZONE.match(zone)
        if m and m["player"] in by_player and line.get("action") == "place":
            by_player[m["player"]].up[int(m["slot"])] = (str(line.get("card")), legal)
        elif line.get("action") == "discard" or zone in DISCARD_ZONES:
            board.discard, board.discards = str(line.get("card")), board.discards + 1
        board.turn = line.get("next")
        board.moves.append(move_text(line))
        board.winner = line.get("winner") or board.winner
        said = words.text_of_line(line) if words is not None else None
        if said:
            board.said, board.said_card = said, str(line.get("card"))
            board.said_kind = "win" if line.get("winner") else "illegal" if not legal else "end"
    return board


def move_text(line: dict[str, Any]) -> str:
    """One judged move in words: "aki place 7H on slot 7: ok, aki plays on", "ben discard 6S:
    ok, aki to play", "aki place 7H on slot 6: ILLEGAL (wrong slot)"."""
    m = SLOT_ZONE.match(line.get("zone") or "")
    where = f" on slot {slot_label(int(m['slot']))}" if m and line.get("action") == "place" else ""
    head = f"{line.get('player') or '-'} {line.get('action')} {line.get('card')}{where}"
    if line.get("legal", True) is None:
        why = "; ".join((line.get("unclear") or {}).values()) or "not judged"
        return f"{head}: unclear ({why}; no penalty)"
    if not line.get("legal", True):
        return f"{head}: ILLEGAL ({str(line.get('why', '')).split(':')[0]})"
    nxt = line.get("next")
    tail = f"{line['winner']} wins" if line.get("winner") else (
        f"{nxt} plays on" if nxt == line.get("player") else f"{nxt} to play" if nxt else "")
    return f"{head}: ok" + (f", {tail}" if tail else "")


def board_result(board: Board) -> str | None:
    """The game's end in words: "aki wins: aki 10/10 face up, ben 8/10" (no winner: the counts)."""
    if not board.moves:
        return None
    counts = ", ".join(f"{g.player} {len(g.up)}/{g.size}" for g in board.griddles)
    return (f"{board.winner} wins: " if board.winner else "no winner: ") + counts + " face up"


# ---------------------------------------------------------------------- drawing
def slot_label(slot: int) -> str:
    return SLOT_LABELS.get(slot, str(slot))


def draw_zones(cv2, img, calibration: Any, scale: tuple[float, float], board: Board) -> None:
    """The slots (thin: face down grey, face up green, an illegal card red) and the discards
    (yellow) outlined on the camera image, drawn at ``scale`` (x, y) of the calibration's size."""
    from referee.live.drawing import outlined_text

    sx, sy = scale
    up = {(g.player, s): legal for g in board.griddles for s, (_, legal) in g.up.items()}
    for name, zone in (getattr(calibration, "zones", None) or {}).items():
        b = zone.to_list()
        p1, p2 = (int(b[0] * sx) + 1, int(b[1] * sy) + 1), (int(b[2] * sx) - 2, int(b[3] * sy) - 2)
        m = SLOT_ZONE.match(name)
        if m:
            legal = up.get((m["player"], int(m["slot"])))
            colour = GREY if legal is None else GREEN if legal else RED
            cv2.rectangle(img, p1, p2, colour, 1 if legal is None else 2)
            if legal is None:  # (a face-up card shows its own index there)
                outlined_text(cv2, img, slot_label(int(m["slot"])), (p1[0] + 4, p1[1] + 16), 0.5, colour, 1)
        elif name in DISCARD_ZONES:
            cv2.rectangle(img, p1, p2, YELLOW, 2)
            outlined_text(cv2, img, "discards", (p1[0] + 6, p1[1] + 20), 0.6, YELLOW, 2)


def draw_card(cv2, img, card: str | None, x: int, y: int, w: int, h: int, *, slot: int | None = None,
              legal: bool = True) -> None:
    """One card at (x, y), w×h: face up its rank and suit (a joker: "JOKER"), an illegal one
    framed red; face down (``card`` None) a back with the slot's label."""
    from referee.live.drawing import BOLD, FONT

    if card is None:
        cv2.rectangle(img, (x, y), (x + w, y + h), CARD_BACK, -1)
        cv2.rectangle(img, (x + 3, y + 3), (x + w - 3, y + h - 3), BACK_LINE, 1)
        if slot is not None:
            s = slot_label(slot)
            size = cv2.getTextSize(s, FONT, 0.6, 1)[0]
            cv2.putText(img, s, (x + (w - size[0]) // 2, y + (h + size[1]) // 2), FONT, 0.6, BACK_LINE, 1, cv2.LINE_AA)
        return
    cv2.rectangle(img, (x, y), (x + w, y + h), CARD_FACE, -1)
    cv2.rectangle(img, (x, y), (x + w, y + h), GREEN if legal else RED, 1 if legal else 3)
    if card == "JK":
        scale = min(0.5, w / 90)
        size = cv2.getTextSize("JOKER", BOLD, scale, 1)[0]
        cv2.putText(img, "JOKER", (x + (w - size[0]) // 2, y + (h + size[1]) // 2), BOLD, scale, (150, 40, 150), 1,
                    cv2.LINE_AA)
        return
    rank, suit = card[:-1], card[-1]
    colour = PIP_RED if suit in "HD" else BLACK
    scale = min(0.9, h / 70, w / (34 if len(rank) > 1 else 22))
    size = cv2.getTextSize(rank, BOLD, scale, 2)[0]
    cv2.putText(img, rank, (x + (w - size[0]) // 2, y + 6 + size[1]), BOLD, scale, colour, 2, cv2.LINE_AA)
    r = max(4, min(w, h) // 6)
    draw_pip(cv2, img, suit, x + w // 2, y + h - r - 6, r, colour)


def draw_pip(cv2, img, suit: str, cx: int, cy: int, r: int, colour) -> None:
    """A suit sign drawn with shapes (the window's font has none): ♥ ♦ ♠ ♣."""
    import numpy as np

    aa = cv2.LINE_AA
    if suit == "D":
        cv2.fillPoly(img, [np.array([(cx, cy - r), (cx + r * 3 // 4, cy), (cx, cy + r), (cx - r * 3 // 4, cy)])], colour, aa)
    elif suit in "HS":
        sgn = 1 if suit == "H" else -1  # a heart points down, a spade up
        for dx in (-r // 2, r // 2):
            cv2.circle(img, (cx + dx, cy - sgn * r // 3), r // 2 + 1, colour, -1, aa)
        cv2.fillPoly(img, [np.array([(cx - r, cy - sgn * r // 4), (cx + r, cy - sgn * r // 4), (cx, cy + sgn * r)])],
                     colour, aa)
        if suit == "S":
            cv2.fillPoly(img, [np.array([(cx, cy), (cx + r // 2, cy + r), (cx - r // 2, cy + r)])], colour, aa)
    else:  # clubs
        for dx, dy in ((0, -r // 2), (-r // 2, r // 6), (r // 2, r // 6)):
            cv2.circle(img, (cx + dx, cy + dy), r // 2, colour, -1, aa)
        cv2.fillPoly(img, [np.array([(cx, cy), (cx + r // 2, cy + r), (cx - r // 2, cy + r)])], colour, aa)


def draw_panel(cv2, img, board: Board, x: int, right: int, bottom: int) -> None:
    """The right-hand panel of a griddle game: the last call (red: an illegal move; yellow: the
    winner), whose turn, each griddle (the player to play framed yellow), the discards' top."""
    from referee.live.drawing import BOLD, fit_scale, outlined_text, wrap_text

    width, y = right - x, 20
    outlined_text(cv2, img, "LAST CALL" + (f" - card {board.said_card}" if board.said else ""), (x, y), 0.5, GREY, 1)
    colour = {"illegal": RED, "win": YELLOW}.get(board.said_kind or "", WHITE)
    said = wrap_text(cv2, board.said or "waiting for the first move", width, 0.8)[:2]
    for line in said:
        y += 30
        outlined_text(cv2, img, line, (x, y), fit_scale(cv2, line, width, 0.8, 2), colour if board.said else GREY, 2)
    y = 92
    # (the winner is the last call itself: not said twice)
    turn = "" if board.winner else f"to play: {board.turn}" if board.turn else ""
    if turn:
        outlined_text(cv2, img, turn, (x, y), fit_scale(cv2, turn, width - 70, 0.85, 2, BOLD), YELLOW, 2, BOLD)
    # the griddles share what is left above the discards' row
    top, disc_h = y + 14, 76
    n = max(1, len(board.griddles))
    block = (bottom - disc_h - top) // n
    gap = 4
    cols = max(5, max((g.size + 1) // 2 for g in board.griddles) if board.griddles else 5)
    ch = max(16, (block - 22 - gap) // 2)
    cw = min((width - gap * (cols - 1)) // cols, int(ch * 0.8))
    for i, g in enumerate(board.griddles):
        gy = top + i * block
        mine = g.player == (board.winner or board.turn)
        label = f"{g.player}  {len(g.up)}/{g.size} face up"
        outlined_text(cv2, img, label, (x, gy + 13), 0.55, YELLOW if mine else WHITE, 1 + mine)
        row_len = (g.size + 1) // 2
        for s in range(1, g.size + 1):
            r, c = divmod(s - 1, row_len)
            cx, cy = x + c * (cw + gap), gy + 22 + r * (ch + gap)
            card, legal = g.up.get(s, (None, True))
            draw_card(cv2, img, card, cx, cy, cw, ch, slot=s, legal=legal)
        if mine:
            cv2.rectangle(img, (x - 4, gy + 18), (x + row_len * (cw + gap), gy + 22 + 2 * ch + gap + 3), YELLOW, 2)
    # the discards: the top card and how many
    dy = bottom - disc_h + 6
    outlined_text(cv2, img, "DISCARDS", (x, dy + 16), 0.5, GREY, 1)
    dw = min(cw, int((disc_h - 10) * 0.8))
    if board.discard:
        draw_card(cv2, img, board.discard, x + 100, dy, dw, disc_h - 10)
    outlined_text(cv2, img, f"{board.discards} seen" if board.discards else "none yet", (x, dy + 40), 0.5, WHITE, 1)

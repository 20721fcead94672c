"""The live window (OpenCV HighGUI) as a pipeline sink: what the table looks at.

Split in two: :func:`render` draws a :class:`LiveState` into a BGR image — pure and
deterministic (same state, same pixels), so tests check it without a screen — and
:class:`LiveWindow` shows it. The window's HighGUI calls all run on one thread of its own,
redrawing at most :attr:`WindowParams.fps` times a second; the sink methods only update
the state under a lock, so a slow screen never holds up perception or judging. Keys go
through :class:`referee.live.controls.Controls`; what they produce waits in
:meth:`LiveWindow.drain` for the pipeline to merge.

Layout (1280×720, drawn at that size and scaled to the window's — a smaller screen gets a
smaller window, the same picture; ``f`` toggles full screen): the camera image on the left with each seat's box, name,
hands (L/R lit when up) and last words, and the field box with the card; on the right
the last verdict in large letters (green: someone was first; orange: a tie to settle;
grey: nobody), the notes under it (who was wrong and why), the field's trouble cards and
the expected reaction, and the scoreboard; along the bottom one level meter per seat, the
legend (what "+N ms", "score", "turns down" and "sunk" mean: :func:`referee.live.headlines.legend`),
the status line (camera fps, dropped and skipped frames, the voice on or off, warnings) and
the prompt or the key help. A griddle game (TAKOYAKI: the calibration marks ``p:NAME:slotN``)
gets the griddles as read instead of the field and the scoreboard, and its moves instead of
the recent verdicts (:mod:`referee.live.griddles`); a spread game (Sea Salt & Paper: ``p:NAME:spread``)
gets the round's call and each player's tally as read, and its rounds (:mod:`referee.live.tallies`). When the game ends its result stays on the window, with a banner,
until a key is pressed there or :attr:`WindowParams.hold_s` passes (``--hold-result``).
Text is OpenCV's Hershey font: ASCII (player names and the canonical tokens are).
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

import numpy as np

from session.errors import DeviceError
from session.params import check_ranges
from referee.live.controls import HELP, ControlledView, Controls, help_for
from referee.live.controls import Command
from referee.live.drawing import BOLD, FONT, outlined_text
from referee.live.drawing import fit_scale as _fit, wrap_text as _wrap
from referee.live.griddles import LEGEND as GRIDDLE_LEGEND, board_of, board_result, draw_panel, draw_zones
from referee.live.tallies import draw_spreads, draw_tally_panel, tallies_of, tallies_result
from referee.live.headlines import legend, result_text
from referee.live.state import LiveState, StateSink

# colours (BGR)
WHITE, GREY, DIM, BLACK = (255, 255, 255), (170, 170, 170), (90, 90, 90), (0, 0, 0)
GREEN, ORANGE, RED, BLUE, YELLOW = (90, 200, 60), (40, 160, 255), (60, 60, 230), (230, 160, 40), (60, 220, 230)
PANEL = (32, 32, 32)
#: level meter range (dBFS): below -60 is silence at a table; 0 is clipping
METER_FLOOR_DB, METER_WARN_DB = -60.0, -3.0


@dataclass(frozen=True)
class WindowParams:
    """The live window's picture and timing. Sizes chosen for 16:9 screens; the cost of a
    redraw: docs/settings.md, ``WindowParams``."""

    #: the picture drawn, width (px; 1280×720 scales without bars to 1366×768, 1920×1080 and
    #: full screen); the window shows it scaled to its own size.
    width: int = 1280
    #: ... and height (px).
    height: int = 720
    #: the camera image's share (px; 16:9 → 880×495; the right panel keeps the rest for the
    #: verdict and the scoreboard).
    camera_width: int = 880
    #: redraws per second. More: smoother, CPU (~4 ms a redraw on this machine).
    fps: float = 15.0
    #: the window's title.
    title: str = "table referee"
    #: how long the final result stays when nobody presses a key (s; 0: close at once). Long
    #: enough to read and photograph it; a run nobody watches still ends.
    hold_s: float = 120.0

    def __post_init__(self):
        check_ranges(self, at_least_one=("width", "height", "camera_width"), positive=("fps",),
                     non_negative=("hold_s",))



def render(state: LiveState, params: WindowParams = WindowParams(), *, prompt: str | None = None,
           help_text: str | None = None, closing: str | None = None) -> np.ndarray:
    """The window's image of ``state`` (BGR, ``params.height``×``params.width``);
    ``closing``: the line under the final result (how to close the window); ``help_text``:
    the key line (default: the keys of the game being played and the window's own)."""
    import cv2

    help_text = help_for(state.game) + WINDOW_KEYS if help_text is None else help_text

    img = np.full((params.height, params.width, 3), PANEL, np.uint8)
    cam_w = params.camera_width
    cam_h = cam_w * 9 // 16
    board = board_of(state)  # a griddle game (TAKOYAKI): the griddles as read, not the field
    # a spread game (Sea Salt & Paper): each player's tally as read, not the field
    tallies = tallies_of(state) if board is None else None
    _camera(cv2, img, state, cam_w, cam_h, board, tallies)
    if tallies is not None:
        draw_tally_panel(cv2, img, tallies, cam_w + 16, params.width - 12, cam_h)
    elif board is None:
        _panel(cv2, img, state, cam_w + 16, params.width - 12)
    else:
        draw_panel(cv2, img, board, cam_w + 16, params.width - 12, cam_h)
    _bottom(cv2, img, state, cam_h, params, prompt or state.prompt, help_text, board, tallies)
    if state.paused:
        outlined_text(cv2, img, "PAUSED", (cam_w // 2 - 110, cam_h // 2), 2.0, YELLOW, 4)
    if state.finished:
        _final(cv2, img, state, cam_w, cam_h, closing, board, tallies)
    return img


def _final(cv2, img, state: LiveState, cam_w: int, cam_h: int, closing: str | None, board=None,
           tallies=None) -> None:
    """The game's end over the camera image: GAME OVER, the result in words, how to close."""
    x0, y0, x1, y1 = 30, cam_h // 2 - 90, cam_w - 30, cam_h // 2 + 90
    cv2.rectangle(img, (x0, y0), (x1, y1), (20, 20, 20), -1)
    cv2.rectangle(img, (x0, y0), (x1, y1), YELLOW, 2)
    outlined_text(cv2, img, "GAME OVER", (x0 + 24, y0 + 56), 1.6, YELLOW, 3, BOLD)
    y = y0 + 96
    said = board_result(board) if board is not None else tallies_result(tallies) if tallies is not None else \
        result_text(state.result)
    for line in _wrap(cv2, said or "no result (nothing was judged)", x1 - x0 - 48, 0.8)[:2]:
        outlined_text(cv2, img, line, (x0 + 24, y), 0.8, WHITE, 2)
        y += 32
    if closing:
        outlined_text(cv2, img, closing, (x0 + 24, y1 - 14), _fit(cv2, closing, x1 - x0 - 48, 0.6), GREY, 1)


def fit_image(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``img`` scaled into ``size`` (width, height) keeping its 16:9 shape, centred on the
    panel colour: the window's own size, whatever the screen (a 1024×600 netbook shows
    the whole picture at 80 %, not its top-left corner)."""
    import cv2

    w, h = size
    if (w, h) == (img.shape[1], img.shape[0]) or w < 16 or h < 16:
        return img
    k = min(w / img.shape[1], h / img.shape[0])
    sw, sh = max(1, int(round(img.shape[1] * k))), max(1, int(round(img.shape[0] * k)))
    scaled = cv2.resize(img, (sw, sh), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
    out = np.full((h, w, 3), PANEL, np.uint8)
    x, y = (w - sw) // 2, (h - sh) // 2
    out[y:y + sh, x:x + sw] = scaled
    return out


def window_size(screen: tuple[int, int] | None, params: WindowParams = WindowParams(),
                margin: tuple[int, int] = (0, 64)) -> tuple[int, int]:
    """The window's first size: the picture's own size when the screen holds it (with
    ``margin`` left for a title bar and a panel), else the largest 16:9 size that fits."""
    if screen is None:
        return params.width, params.height
    room_w, room_h = screen[0] - margin[0], screen[1] - margin[1]
    k = min(1.0, room_w / params.width, room_h / params.height)
    return int(params.width * k), int(params.height * k)


def screen_size() -> tuple[int, int] | None:
    """The X screen's size (``xdpyinfo``; None when it cannot be asked: the window then
    opens at its own size and the window manager fits it)."""
    try:
        out = subprocess.run(["xdpyinfo"], capture_output=True, text=True, timeout=3).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        if "dimensions:" in line:
            try:
                w, h = line.split()[1].split("x")
                return int(w), int(h)
            except ValueError:
                return None
    return None


# ---------------------------------------------------------------------- parts
def _cut(cv2, s: str, width: int, scale: float) -> str:
    """``s`` cut at a word to fit ``width`` at ``scale``, ending in "..." (the lines of one
    list keep one size: a line shrunk to fit read as less important than its neighbours)."""
    if cv2.getTextSize(s, FONT, scale, 1)[0][0] <= width:
        return s
    words = s.split()
    while words and cv2.getTextSize(" ".join(words) + " ...", FONT, scale, 1)[0][0] > width:
        words.pop()
    return " ".join(words).rstrip(" ,;|") + " ..."


def _camera(cv2, img, state: LiveState, cam_w: int, cam_h: int, board=None, tallies=None) -> None:
    src_w, src_h = state.image_size or (1280, 720)
    sx, sy = cam_w / src_w, cam_h / src_h
    if state.image is not None:
        img[:cam_h, :cam_w] = cv2.resize(state.image, (cam_w, cam_h), interpolation=cv2.INTER_AREA)
    else:
        img[:cam_h, :cam_w] = (18, 18, 18)
        outlined_text(cv2, img, "no camera image", (cam_w // 2 - 120, cam_h // 2), 0.9, GREY, 2)

    def box(b):
        return (int(b[0] * sx), int(b[1] * sy)), (int(b[2] * sx) - 1, int(b[3] * sy) - 1)

    for i, seat in enumerate(state.seats[p] for p in state.players if p in state.seats):
        if seat.box is None:
            continue
        (x1, y1), (x2, y2) = box(seat.box)
        cv2.rectangle(img, (x1, y1), (x2, y2), BLUE, 2)
        if board is not None:  # a griddle game: the name under the griddle, no hands (not judged)
            outlined_text(cv2, img, f"{i + 1} {seat.name}", (x1 + 8, y2 - 12), 0.9, WHITE, 2)
            continue
        if tallies is not None:  # a spread game: the name and the words heard, no hands (not judged)
            outlined_text(cv2, img, f"{i + 1} {seat.name}", (x1 + 8, y1 + 30), 0.9, WHITE, 2)
            words = state.words_of(seat)
            if words:  # (a call heard while another player's call stands is ignored: said so, in grey)
                ignored = tallies.caller is not None and seat.name != tallies.caller
                text = f'"{words}"' + (f" - ignored: {tallies.caller} called first" if ignored else "")
                outlined_text(cv2, img, text, (x1 + 8, y1 + 66), _fit(cv2, text, x2 - x1 - 16, 1.0, 2),
                              GREY if ignored else YELLOW, 2)
            continue
        outlined_text(cv2, img, f"{i + 1} {seat.name}", (x1 + 8, y1 + 30), 0.9, WHITE, 2)
        for side, dx in (("left", 8), ("right", 78)):
            up = seat.hands[side]
            org = (x1 + dx, y1 + 42)
            cv2.rectangle(img, org, (org[0] + 64, org[1] + 26), GREEN if up else GREY, -1 if up else 1)
            label = ("L" if side == "left" else "R") + (" UP" if up else "")
            if not up:
                cv2.rectangle(img, (org[0] + 1, org[1] + 1), (org[0] + 63, org[1] + 25), (40, 40, 40), -1)
            cv2.putText(img, label, (org[0] + 6, org[1] + 19), FONT, 0.55, BLACK if up else GREY, 1 + up, cv2.LINE_AA)
        words = state.words_of(seat)
        if words:
            outlined_text(cv2, img, f'"{words}"', (x1 + 8, y1 + 100), _fit(cv2, f'"{words}"', x2 - x1 - 16, 1.0, 2), YELLOW, 2)
    if board is not None:
        draw_zones(cv2, img, state.calibration, (sx, sy), board)
    elif tallies is not None:
        draw_spreads(cv2, img, state.calibration, (sx, sy), tallies)
    elif state.field_box is not None:
        (x1, y1), (x2, y2) = box(state.field_box)
        cv2.rectangle(img, (x1, y1), (x2, y2), YELLOW, 2)
        outlined_text(cv2, img, "field" + (f": {state.card}" if state.card else ""), (x1 + 6, y1 - 8), 0.7, YELLOW, 2)


#: lines under the headline for the verdict's reasons (the field below moves down for them)
NOTE_LINES = 7


def _note_lines(cv2, notes: list[str], width: int) -> list[tuple[str, str]]:
    """``(note, line)`` to draw: every reason whole while :data:`NOTE_LINES` allow (a reason
    cut after two lines read "said tako," without what was expected); what does not fit
    ends with "…" and stays in the record and the RECENT lines."""
    out: list[tuple[str, str]] = []
    for note in notes:
        lines = _wrap(cv2, note, width, 0.62)
        room = NOTE_LINES - len(out)
        if room <= 0:
            if out:
                n, last = out[-1]
                out[-1] = (n, last.rstrip(" ,;") + " ...")
            break
        if len(lines) > room:
            lines = lines[:room]
            lines[-1] = lines[-1].rstrip(" ,;") + " ..."
        out += [(note, line) for line in lines]
    return out


def _panel(cv2, img, state: LiveState, x: int, right: int) -> None:
    width = right - x
    y = 44
    h = state.headline
    if h is None:
        outlined_text(cv2, img, "waiting for the first card", (x, y), 0.8, GREY, 2)
        y += 30
    else:
        colour = {"first": GREEN, "tie": ORANGE, "wrong": RED}.get(h.kind, GREY)
        label = "LAST VERDICT" + (f" - card {h.card}" if h.card else "")
        if h.provisional:
            label += " (so far)"
        outlined_text(cv2, img, label, (x, y - 14), _fit(cv2, label, width, 0.6), GREY, 1)
        scale = _fit(cv2, h.text, width, 1.6, 3, BOLD)
        outlined_text(cv2, img, h.text, (x, y + 34), scale, colour, 3, BOLD)
        y += 66
        for note, line in _note_lines(cv2, h.notes, width):
            outlined_text(cv2, img, line, (x, y), 0.62, RED if " wrong" in note or "missed" in note else WHITE, 1)
            y += 24
    y = max(y + 16, 230)
    outlined_text(cv2, img, "FIELD", (x, y), 0.55, GREY, 1)
    y += 28
    outlined_text(cv2, img, f"card: {state.card or '-'}", (x, y), 0.75, WHITE, 2)
    y += 28
    troubles = ", ".join(state.troubles) if state.troubles else "none"
    outlined_text(cv2, img, f"troubles: {troubles}", (x, y), _fit(cv2, f"troubles: {troubles}", width, 0.65), WHITE, 1)
    y += 28
    if state.expected:
        exp = f"expected: {state.expected}"
        outlined_text(cv2, img, exp, (x, y), _fit(cv2, exp, width, 0.75, 2), YELLOW, 2)
        y += 28
    y += 18
    outlined_text(cv2, img, "PLAYER", (x, y), 0.5, GREY, 1)
    outlined_text(cv2, img, "score  points  penalties", (x + 120, y), 0.5, GREY, 1)
    y += 30
    board = state.scoreboard()
    best = max((s for _, s, _, _ in board), default=None)
    for p, score, points, pens in board:
        colour = GREEN if score == best and score > 0 else WHITE
        outlined_text(cv2, img, p, (x, y), 0.75, colour, 2)
        outlined_text(cv2, img, f"{score:>4}", (x + 112, y), 0.75, colour, 2)
        outlined_text(cv2, img, f"{points:>3}", (x + 190, y), 0.65, GREY, 1)
        outlined_text(cv2, img, f"{pens:>3}", (x + 265, y), 0.65, RED if pens else GREY, 1)
        y += 30


def _bottom(cv2, img, state: LiveState, top: int, params: WindowParams, prompt: str | None, help_text: str,
            board=None, tallies=None) -> None:
    x, y = 12, top + 30
    # one level meter per seat (a griddle game without microphones: none, the moves get the rows)
    seats = [state.seats[p] for p in state.players if p in state.seats]
    if board is not None and all(seat.channel is None for seat in seats):
        seats, y = [], y - 30
    cell = (params.camera_width - 12) // max(1, len(seats))
    for i, seat in enumerate(seats):
        cx = x + i * cell
        outlined_text(cv2, img, f"{i + 1} {seat.name}", (cx, y), 0.6, WHITE, 1)
        bar_x, bar_w = cx + 90, cell - 100
        cv2.rectangle(img, (bar_x, y - 14), (bar_x + bar_w, y + 2), DIM, 1)
        if seat.level_db is not None:
            frac = min(1.0, max(0.0, (seat.level_db - METER_FLOOR_DB) / -METER_FLOOR_DB))
            colour = RED if seat.level_db > METER_WARN_DB else GREEN
            cv2.rectangle(img, (bar_x + 1, y - 13), (bar_x + 1 + int((bar_w - 2) * frac), y + 1), colour, -1)
            outlined_text(cv2, img, f"{seat.level_db:.0f} dB" if seat.level_db > METER_FLOOR_DB else "silent",
                          (bar_x + 4, y - 1), 0.42, WHITE, 1)
        else:
            outlined_text(cv2, img, "no mic", (bar_x + 6, y), 0.45, GREY, 1)
    # the legend: what the numbers and the game's words mean (one line, two at most), right
    # above the status lines; the history of verdicts gets the rows between
    meaning = GRIDDLE_LEGEND if board is not None else tallies.legend if tallies is not None else \
        legend(state.game, state.mode)
    words = _wrap(cv2, " | ".join(meaning), params.width - 24, 0.45)[:2]
    legend_y = params.height - 92 - 19 * (len(words) - 1)
    y += 30
    game_view = board if board is not None else tallies
    if game_view is not None:
        outlined_text(cv2, img, "MOVES (newest last)" if board is not None else tallies.moves_title, (x, y), 0.45,
                      GREY, 1)
        y += 22
    for line in (game_view.moves[-3:] if game_view is not None else list(state.history)[-3:]):
        if y > legend_y - 24:
            break
        outlined_text(cv2, img, _cut(cv2, line, params.width - 24, 0.5), (x, y), 0.5, GREY, 1)
        y += 22
    y = legend_y
    for line in words:
        outlined_text(cv2, img, line, (x, y), 0.45, (150, 150, 150), 1)
        y += 19
    # status and warnings
    y = params.height - 68
    if state.warnings:
        w = "WARNING: " + state.warnings[-1]
        outlined_text(cv2, img, w, (x, y), _fit(cv2, w, params.width - 24, 0.55), ORANGE, 1)
    y += 20
    outlined_text(cv2, img, state.status_line(), (x, y), _fit(cv2, state.status_line(), params.width - 24, 0.55), WHITE, 1)
    y += 22
    line = prompt or state.message
    if line:
        outlined_text(cv2, img, line, (x, y), _fit(cv2, line, params.width - 24, 0.6), YELLOW, 1)
    y += 20
    outlined_text(cv2, img, help_text, (x, y), _fit(cv2, help_text, params.width - 24, 0.48), GREY, 1)


# ---------------------------------------------------------------------- the window
def display_available() -> bool:
    """An X11 or Wayland display to open a window on (Qt aborts the process without one)."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


_KEYS = {32: "space", 13: "enter", 10: "enter", 27: "escape"}


#: the window's own key (not the table's: the terminal view has no full screen)
#: the window's own key, after the game's (:func:`referee.live.controls.help_for`)
WINDOW_KEYS = " | f full screen"
WINDOW_HELP = HELP + WINDOW_KEYS


class LiveWindow(ControlledView, StateSink):
    """The live window as a sink (``wants_frames``); keys → :meth:`drain` (see module doc).

    The picture is drawn at :class:`WindowParams`' size and scaled to the window's own
    (:func:`fit_image`): the window opens at the largest 16:9 size the screen holds
    (:func:`window_size`), the table may resize it, and ``f`` toggles full screen. At the end
    of a game (:meth:`close` after the judge's ``finish``) the result stays until a key is
    pressed in the window or ``hold_s`` passes — not after ``n n`` (the next game's window
    follows at once) nor for a view drawing another screen (the self-test's)."""

    wants_frames = True

    def __init__(self, state: LiveState, controls: Controls | None = None, params: WindowParams = WindowParams(),
                 renderer=None):
        super().__init__(state)
        #: what is drawn: :func:`render` of the state, or another screen (the self-test's)
        self.renderer = renderer
        self.controls = controls or Controls(state.players)
        self.params = params
        self._lock = threading.RLock()  # re-entrant: frame() passes its events on to seen()
        self._produced: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._dirty = True
        self.redraws = 0
        self.error: str | None = None
        self.fullscreen = False
        #: the window's size as last drawn (the picture is scaled to it)
        self.size: tuple[int, int] | None = None
        self._key_after_end = threading.Event()
        self._hold_until: float | None = None
        self._new_game = False

    def open(self) -> "LiveWindow":
        if not display_available():
            raise DeviceError("the live window needs a display (DISPLAY is not set): "
                              "run it on the table's screen, or pass --no-window for the terminal view")
        self._thread = threading.Thread(target=self._run, name="live-window", daemon=True)
        self._thread.start()
        return self

    def __enter__(self) -> "LiveWindow":
        return self.open()

    # the sink calls are ControlledView's (state updates under the lock, nothing else), and:
    def frame(self, frame, events):
        with self._lock:
            super().frame(frame, events)

    def changed(self) -> None:
        self._dirty = True

    def press(self, key: str) -> None:
        """A key: after the game's end any key closes the window; before, the table's."""
        if self._hold_until is not None:
            self._key_after_end.set()
            return
        before = self._produced.qsize()
        super().press(key)
        # (n n: the session ends for the next game's, whose window opens at once: no hold)
        self._new_game |= any(isinstance(item, Command) and item.name == "new_game"
                              for item in list(self._produced.queue)[before:])

    def closing_text(self) -> str | None:
        """The line under the final result while the window holds it."""
        if self._hold_until is None:
            return None
        left = max(0, int(round(self._hold_until - time.monotonic())))
        return f"press any key in this window to close it (it closes by itself in {left} s)"

    def snapshot(self) -> np.ndarray:
        with self._lock:
            self._tick()
            if self.renderer is not None:
                img = self.renderer(self.state)
            else:
                img = render(self.state, self.params, prompt=self.controls.prompt_text(self.state.now),
                             closing=self.closing_text())
        return fit_image(img, self.size) if self.size is not None else img

    def toggle_fullscreen(self, cv2) -> None:
        self.fullscreen = not self.fullscreen
        cv2.setWindowProperty(self.params.title, cv2.WND_PROP_FULLSCREEN,
                              cv2.WINDOW_FULLSCREEN if self.fullscreen else cv2.WINDOW_NORMAL)

    def _run(self) -> None:
        import cv2

        title = self.params.title
        try:
            # GUI_NORMAL: no Qt toolbar or status bar (zoom buttons mean nothing at a table);
            # NORMAL + KEEPRATIO: the table may resize it, the picture keeps its shape
            cv2.namedWindow(title, cv2.WINDOW_NORMAL | cv2.WINDOW_KEEPRATIO | cv2.WINDOW_GUI_NORMAL)
            first = window_size(screen_size(), self.params)
            cv2.resizeWindow(title, *first)
            self.size = first
            period = max(1, int(1000 / self.params.fps))
            while not self._stop.is_set():
                cv2.imshow(title, self.snapshot())
                self.redraws += 1
                code = cv2.waitKey(period)
                self._resized(cv2)
                if code >= 0:
                    code &= 0xFF
                    key = _KEYS.get(code) or (chr(code) if 32 < code < 127 else None)
                    if key in ("f", "F"):
                        self.toggle_fullscreen(cv2)
                    elif key:
                        self.press(key)
        except cv2.error as exc:  # the display went away
            self.error = f"the live window closed: {exc}"
        finally:
            self._key_after_end.set()  # (a hold waiting for this window ends with it)
            try:
                cv2.destroyWindow(title)
                cv2.waitKey(1)
            except Exception:
                pass

    def _resized(self, cv2) -> None:
        """The window's size now (the table resized it, or full screen): the next picture is
        scaled to it."""
        try:
            _, _, w, h = cv2.getWindowImageRect(self.params.title)
        except cv2.error:
            return
        if w > 16 and h > 16:
            self.size = (w, h)

    def hold(self) -> bool:
        """Keep the final result on the window until a key is pressed there or
        ``hold_s`` passes; True if it was held. Ctrl-C in the terminal ends it too."""
        alive = self._thread is not None and self._thread.is_alive() and self.error is None
        if not (alive and self.state.finished and self.params.hold_s > 0 and self.renderer is None
                and not self._new_game):
            return False
        self._hold_until = time.monotonic() + self.params.hold_s
        self.changed()
        print(f"referee: the result stays on the window: press a key there to close it "
              f"(or Ctrl-C here; at most {self.params.hold_s:.0f} s)", file=sys.stderr, flush=True)
        try:
            while not self._key_after_end.wait(0.2) and time.monotonic() < self._hold_until:
                pass
        except KeyboardInterrupt:
            pass
        return True

    def close(self) -> None:
        self.hold()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)

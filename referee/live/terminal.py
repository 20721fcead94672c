"""``--no-window``: the live view as text in the terminal, redrawn in place.

The same information as the window (:mod:`referee.live.window`): the last verdict, the
field (card, troubles, expected reaction), one row per seat (hands, words heard, level
meter, score), the recent verdicts, the status line, warnings, the prompt and the keys.
:func:`render_text` is pure (state → lines); :class:`TerminalView` draws it from a thread
of its own at most :attr:`TerminalParams.fps` times a second — cursor home, each line
cleared to its end, the rest of the screen cleared — so it works in any VT100 terminal,
tmux and screen included, and a slow terminal never holds up the pipeline. Keys are read
from the terminal in cbreak mode (no Enter needed) on another thread and go through the
shared :class:`referee.live.controls.Controls`; the terminal's settings are restored on
close. When stdout is not a terminal the view prints nothing but the closing summary.
"""

from __future__ import annotations

import os
import queue
import sys
import textwrap
import threading
from dataclasses import dataclass
from typing import IO

from referee.live.controls import ControlledView, Controls, help_for
from referee.live.tallies import tallies_of
from referee.live.headlines import legend, result_text
from referee.live.state import LiveState, StateSink
from referee.live.window import METER_FLOOR_DB
from session.closing import join_thread
from session.params import check_ranges

GREEN, ORANGE, RED, YELLOW, DIMC, RESET = "\x1b[32;1m", "\x1b[33m", "\x1b[31m", "\x1b[33;1m", "\x1b[2m", "\x1b[0m"


@dataclass(frozen=True)
class TerminalParams:
    """How the live terminal view is drawn."""

    #: redraws per second: live enough for people; each redraw writes ~2 KB, which tmux over ssh
    #: keeps up with. More: bandwidth and CPU.
    fps: float = 10.0
    #: the line width drawn (longer lines are cut, never wrapped, so the redraw stays in place).
    width: int = 100
    #: the terminal's rows (a redraw fills at most height - 1 of them: it must not scroll)
    height: int = 40
    #: colours on (ANSI escapes).
    colour: bool = True

    def __post_init__(self):
        check_ranges(self, positive=("fps",), at_least_one=("width", "height"))


def _meter(db: float | None, width: int = 10) -> str:
    if db is None:
        return "no mic".ljust(width + 8)
    frac = min(1.0, max(0.0, (db - METER_FLOOR_DB) / -METER_FLOOR_DB))
    n = int(round(frac * width))
    level = f"{db:4.0f} dB" if db > METER_FLOOR_DB else " silent"
    return "[" + "#" * n + "." * (width - n) + "]" + level.rjust(7)


def render_text(state: LiveState, params: TerminalParams = TerminalParams(), *, prompt: str | None = None,
                help_text: str | None = None, colour: bool = False) -> list[str]:
    """The terminal view of ``state`` as lines (no colour codes unless ``colour``), at most
    ``params.height - 1`` of them: a redraw longer than the terminal scrolls and no longer
    stays in place, so what must be seen (the verdict, the field, the seats, the legend, the
    status, the keys) comes first and the verdict's notes, the recent verdicts and the blank
    separators get the rows left (in that order). ``help_text``: the key line (default: the
    keys of the game being played, :func:`referee.live.controls.help_for`)."""
    help_text = help_for(state.game) if help_text is None else help_text

    def c(code: str, s: str) -> str:
        return f"{code}{s}{RESET}" if colour else s

    game = f"{(state.game or '?').upper()} {state.mode or ''}".strip()
    title = f"table referee | {game} | t {state.now:6.1f} s"
    if state.paused:
        title += "   [PAUSED]"
    h = state.headline
    tallies = tallies_of(state)  # a spread game (Sea Salt & Paper, TORATANU): each tally as read
    if state.finished and result_text(state.result):  # (wrapped: it is the line the table reads last)
        verdict = "\n".join(c(YELLOW, x) for x in _two_lines("GAME OVER: " + result_text(state.result), params.width))
    elif h is None:
        verdict = "LAST VERDICT: waiting for the first " + (tallies.unit.lower() if tallies is not None else "card")
    else:
        code = {"first": GREEN, "tie": ORANGE, "wrong": RED}.get(h.kind, DIMC)
        where = f" (card {h.card}{', so far' if h.provisional else ''})" if h.card else ""
        verdict = f"LAST VERDICT{where}:  " + c(code, h.text)
    notes = [part for n in h.notes[:4] for part in textwrap.wrap(n, params.width, initial_indent="    ",
                                                                  subsequent_indent="      ")] \
        if h is not None and not state.finished else []  # (wrapped: a long reason, e.g. a round's scoring)
    field = f"FIELD: card {state.card or '-'} | troubles: {', '.join(state.troubles) or 'none'}"
    if state.expected:
        field += " | expected: " + c(YELLOW, state.expected)
    if tallies is not None:  # a spread game (Sea Salt & Paper): the round's call and each tally as read
        field, table = tally_text(tallies, params.width, c)
    else:
        table = _seat_table(state)
    # each recent verdict wrapped, not cut: a person reads it whole (and drops it whole)
    entries = [[f"  {part}" for part in textwrap.wrap(line, max(20, params.width - 2), subsequent_indent="    ")]
               for line in list(state.history)[-3:]]
    meaning = tallies.legend if tallies is not None else legend(state.game, state.mode)
    foot = [c(DIMC, part) for part in textwrap.wrap(" | ".join(meaning), params.width)]
    foot += _wrap_parts(state.status_line().split("  "), params.width, "  ")
    if state.warnings:  # (two lines at most: the whole warning is in the record)
        foot += [c(ORANGE, part) for part in _two_lines("WARNING: " + state.warnings[-1], params.width)]
    line = prompt or state.message
    if line:
        foot.append(c(YELLOW, "> " + line))
    foot += [c(DIMC, part) for part in _wrap_help(help_text, params.width)]
    room = params.height - 1 - (2 + verdict.count("\n") + 1 + len(table) + len(foot))  # title, verdict, field
    notes = notes[:max(0, room)]
    room -= len(notes)
    recent: list[str] = []
    for entry in reversed(entries):  # the newest first, while they fit whole
        if len(entry) + len(recent) + 1 > room:
            break
        recent = entry + recent
    recent = ["RECENT:"] + recent if recent else []
    room -= len(recent)
    gaps = [""] * 5 if room >= 5 else [""] * max(0, room) + [None] * (5 - max(0, room))
    out = [title, gaps[0], *verdict.split("\n"), *notes, gaps[1], field, gaps[2], *table, gaps[3], *recent,
           gaps[4] if recent else None, *foot]
    return [x for x in out if x is not None]



def _seat_table(state: LiveState) -> list[str]:
    """The seats: hands, words heard, microphone level and the scoreboard."""
    table = [f"{'SEAT':<12} {'HANDS':<6} {'HEARD':<14} {'MIC':<19} {'SCORE':>5} {'POINTS':>6} {'PENALTIES':>9}"]
    for i, p in enumerate(state.players, 1):
        seat = state.seats.get(p)
        if seat is None:
            continue
        hands = ("L+" if seat.hands["left"] else "L-") + " " + ("R+" if seat.hands["right"] else "R-")
        words = state.words_of(seat)
        heard = f'"{words}"' if words else ""
        table.append(f"{i} {p:<10} {hands:<6} {heard[:14]:<14} {_meter(seat.level_db):<19} "
                     f"{seat.score:>5} {seat.points:>6} {seat.penalties:>9}")
    return table


def tally_text(tallies, width: int, c) -> tuple[str, list[str]]:
    """A spread game's round (``field``: the round in play, or what it waits for — the last
    round's outcome is the verdict above) and each player's tally as read
    (:attr:`referee.live.tallies.PlayerTally.lines`), wrapped to ``width``."""
    where = f"{tallies.unit} {tallies.round}: "
    field = where + (c(YELLOW, tallies.head_line or tallies.head) + " | " + tallies.head_note if tallies.head else tallies.waiting)
    rows: list[str] = []
    for t in tallies.players:
        rows.append(f"{t.player:<12} total {t.total:>3}")
        for text, kind in t.lines:
            code = {"ok": GREEN, "unclear": ORANGE}.get(kind, DIMC)
            rows += [c(code, part) for part in textwrap.wrap(text, max(20, width - 4), initial_indent="    ",
                                                             subsequent_indent="      ")[:2]]
    return field, rows

def _two_lines(text: str, width: int) -> list[str]:
    """``text`` wrapped to two lines at most, the second ending in "..." when cut."""
    lines = textwrap.wrap(text, width, subsequent_indent="  ")
    if len(lines) > 2:
        lines = lines[:2]
        lines[1] = lines[1][:width - 4].rstrip() + " ..."
    return lines


def _wrap_help(text: str, width: int) -> list[str]:
    """The key help in lines of at most ``width``, broken between keys (at ``|``)."""
    return _wrap_parts(text.split(" | "), width, " | ")


def _wrap_parts(parts: list[str], width: int, sep: str) -> list[str]:
    """``parts`` joined by ``sep`` in lines of at most ``width``, broken only between parts
    (a status such as "VOICE OFF" is never split)."""
    lines, cur = [], ""
    for part in parts:
        nxt = f"{cur}{sep}{part}" if cur else part
        if cur and len(nxt) > width:
            lines.append(cur)
            cur = "  " + part
        else:
            cur = nxt
    return lines + ([cur] if cur else [])


class TerminalView(ControlledView, StateSink):
    """The terminal view as a sink (see module doc); keys → :meth:`drain`."""

    def __init__(self, state: LiveState, controls: Controls | None = None, params: TerminalParams = TerminalParams(),
                 out: IO[str] | None = None, keys: IO[str] | None = None, renderer=None):
        super().__init__(state)
        #: the lines drawn: :func:`render_text` of the state, or another screen (the self-test's)
        self.renderer = renderer
        self.controls = controls or Controls(state.players)
        self.params = params
        self.out = out or sys.stdout
        self.keys = keys if keys is not None else (sys.stdin if sys.stdin and sys.stdin.isatty() else None)
        self.live = hasattr(self.out, "isatty") and self.out.isatty()
        self._lock = threading.RLock()  # re-entrant: frame() passes its events on to seen()
        self._produced: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._dirty = threading.Event()
        self._threads: list[threading.Thread] = []
        self._saved_tty = None
        self.redraws = 0

    def open(self) -> "TerminalView":
        if self.live:
            import dataclasses
            import shutil

            size = shutil.get_terminal_size((self.params.width, 24))
            self.params = dataclasses.replace(self.params, width=max(60, min(self.params.width, size.columns - 1)),
                                              height=max(16, size.lines))
            self._threads.append(threading.Thread(target=self._draw_loop, name="live-terminal", daemon=True))
            self.out.write("\x1b[?25l\x1b[2J")  # hide the cursor, clear once
        if self.keys is not None:
            self._cbreak()
            self._threads.append(threading.Thread(target=self._key_loop, name="live-keys", daemon=True))
        for t in self._threads:
            t.start()
        return self

    def __enter__(self) -> "TerminalView":
        return self.open()

    # the sink calls are ControlledView's: state updates under the lock
    def changed(self) -> None:
        self._dirty.set()

    def screen(self) -> str:
        """One frame of the view: cursor home, each line cleared to its end, the rest cleared."""
        with self._lock:
            self._tick()
            lines = (self.renderer(self.state) if self.renderer is not None else
                     render_text(self.state, self.params, prompt=self.controls.prompt_text(self.state.now),
                                 colour=self.params.colour))
        width = self.params.width
        body = "".join(f"{_cut(line, width)}\x1b[K\r\n" for line in lines)
        return "\x1b[H" + body + "\x1b[J"

    def _draw_loop(self) -> None:
        period = 1.0 / self.params.fps
        while not self._stop.is_set():
            self._dirty.wait(timeout=1.0)  # a redraw a second at least: the prompt counts down
            self._dirty.clear()
            try:
                self.out.write(self.screen())
                self.out.flush()
            except (OSError, ValueError):
                return
            self.redraws += 1
            self._stop.wait(period)

    def _cbreak(self) -> None:
        try:
            import termios
            import tty

            fd = self.keys.fileno()
            self._saved_tty = termios.tcgetattr(fd)
            tty.setcbreak(fd)
        except Exception:  # not a real terminal (tests pass a pipe): read it as it is
            self._saved_tty = None

    def _key_loop(self) -> None:
        import select

        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self.keys], [], [], 0.2)
            except (OSError, ValueError):
                return
            if not ready:
                continue
            ch = os.read(self.keys.fileno(), 1).decode("utf-8", "replace") if hasattr(self.keys, "fileno") else ""
            if not ch:
                return
            self.press(ch)

    def close(self) -> None:
        self._stop.set()
        self._dirty.set()
        for t in self._threads:
            join_thread(t, timeout=2.0)  # (one may not have started: open() failed after making it)
        if self._saved_tty is not None:
            import termios

            try:
                termios.tcsetattr(self.keys.fileno(), termios.TCSADRAIN, self._saved_tty)
            except Exception:
                pass
        if self.live:
            try:
                self.out.write(self.screen() + "\x1b[?25h")  # the final state stays on screen
                self.out.flush()
            except (OSError, ValueError):
                pass


def _cut(line: str, width: int) -> str:
    """Cut a line to ``width`` visible characters (colour codes do not count)."""
    visible, out, i = 0, [], 0
    while i < len(line):
        if line[i] == "\x1b":
            j = line.find("m", i)
            if j < 0:
                break
            out.append(line[i : j + 1])
            i = j + 1
            continue
        if visible >= width:
            i += 1
            continue
        out.append(line[i])
        visible += 1
        i += 1
    return "".join(out)

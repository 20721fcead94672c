"""The voice-enrollment step on a terminal: a prompt and a level meter on one line.

On a terminal the line is redrawn in place (carriage return, erase to its end) while the take
records::

    aki: say イカ   take 1/2  [██████████··········]  -18 dBFS

and then ends as ``... ok`` or ``... again: clipped (peak +0.0 dBFS)`` (the next attempt on
the next line). Not on a terminal (a pipe, a log, the tests) only the finished lines are
written. The meter shows the block's RMS level from :data:`METER_FLOOR_DB` to 0 dBFS; the
peak is marked ``!`` at its end once it reaches the clipping level, and ``voice heard`` follows
once the take has heard a voice (the take then ends half a second after it stops).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from audio.takes import Heard, Level, TakeParams

#: the meter's left end (dBFS): a quiet room's floor sits at its left, a shout near its right
METER_FLOOR_DB = -60.0
METER_WIDTH = 20
#: the meter is redrawn at most this often (s): a file-backed source reads faster than a
#: terminal can draw; live blocks come every 20 ms
REDRAW_S = 0.05


def meter(db: float, width: int = METER_WIDTH, floor: float = METER_FLOOR_DB) -> str:
    """``[████······]``: the level ``db`` (dBFS) from ``floor`` to 0 as a bar ``width`` wide."""
    filled = round(width * min(1.0, max(0.0, (db - floor) / -floor)))
    return "[" + "█" * filled + "·" * (width - filled) + "]"


class TerminalUI:
    """:class:`calibration.enrollment.EnrollUI` on a text stream (see the module docstring).

    ``ready(player, channel)``: called when a player's turn begins (a live table waits for
    ENTER there); None goes straight on (a recording)."""

    def __init__(self, out: TextIO | None = None, *, tty: bool | None = None,
                 ready: Callable[[str, int], None] | None = None, params: TakeParams | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.out = out or sys.stdout
        self.tty = self.out.isatty() if tty is None else tty
        self.ready, self.params, self._clock = ready, params or TakeParams(), clock
        self._line = ""
        self._drawn = 0.0
        self._peak = -120.0

    def _write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def player(self, name: str, channel: int, count: int) -> None:
        self._write(f"\n{name} (microphone channel {channel}): {count} takes — say each word as it is shown, "
                    "in your playing voice\n")
        if self.ready is not None:
            self.ready(name, channel)

    def prompt(self, p, attempt: int) -> None:
        again = f" (try {attempt})" if attempt > 1 else ""
        self._line = f"{p.player}: say {p.text}  take {p.take}/{p.of}{again}"
        self._peak = -120.0
        if self.tty:
            self._write(f"\r{self._line}  {meter(METER_FLOOR_DB)}\x1b[K")
            self._drawn = self._clock()

    def level(self, level: Level) -> None:
        self._peak = max(self._peak, level.peak_db)
        if not self.tty or self._clock() - self._drawn < REDRAW_S:
            return
        clip = "!" if self._peak >= self.params.clip_dbfs else " "
        heard = "  voice heard" if level.voiced else ""
        self._write(f"\r{self._line}  {meter(level.rms_db)}{clip} {level.rms_db:4.0f} dBFS{heard}\x1b[K")
        self._drawn = self._clock()

    def result(self, p, why: str | None, heard: Heard) -> None:
        said = "ok" if why is None else f"again: {why}"
        level = f"  (loudest {heard.loudest_db:.0f} dBFS)" if why is None else ""
        self._write(("\r" if self.tty else "") + f"{self._line}  {said}{level}" + ("\x1b[K" if self.tty else "") + "\n")

    def note(self, text: str) -> None:
        self._write(f"{text}\n")

"""Key presses with the time they arrived, on one monotonic clock.

The reaction time is measured on the input's own clock: a reader thread blocks on the
terminal and stamps each key with ``time.monotonic()`` the moment its byte arrives, so a
lesson busy judging or drawing never delays the stamp (a terminal gives no earlier,
hardware time stamp; the cost is the kernel's tty delivery, well under a millisecond).

Sources: :class:`TtyKeys` (a terminal in cbreak mode), :class:`StreamKeys` (any text
stream: a pipe, CliRunner's input; every character one key), :class:`ScriptedKeys` (tests
and benchmarks: presses at given offsets from each card, on a :class:`FakeClock`).
"""

from __future__ import annotations

import os
import queue
import threading
import time
from typing import IO, Callable, Sequence

SUBMIT = "enter"
QUIT = ("escape", "q-quit")

_NAMES = {"\r": "enter", "\n": "enter", " ": "space", "\x1b": "escape", "\x7f": "backspace", "\x03": "escape",
          "\x04": "escape"}


def key_name(ch: str) -> str:
    return _NAMES.get(ch, ch.lower())


class Clock:
    """The lesson's clock (monotonic seconds)."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, s: float) -> None:
        if s > 0:
            time.sleep(s)


class FakeClock(Clock):
    """A clock that moves only when told (tests: the same presses give the same times)."""

    def __init__(self, t: float = 1000.0):
        self.t = t

    def now(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.t += max(0.0, s)


class KeySource:
    """``get(deadline)``: the next key and its arrival time, or None at the deadline."""

    clock: Clock

    def get(self, deadline: float) -> tuple[str, float] | None:
        raise NotImplementedError

    def drain(self) -> None:
        """Forget keys pressed so far (between cards, after the feedback pause)."""

    def on_ready(self, t_show: float, situation) -> None:
        """The next card will be shown at ``t_show`` (scripted sources plan their presses)."""

    def close(self) -> None:
        pass


class _ThreadKeys(KeySource):
    def __init__(self, read: Callable[[], str], clock: Clock | None = None):
        self.clock = clock or Clock()
        self.q: queue.Queue = queue.Queue()
        self._read = read
        self._stop = False
        self.thread = threading.Thread(target=self._run, daemon=True, name="teach-keys")
        self.thread.start()

    def _run(self) -> None:
        while not self._stop:
            try:
                chunk = self._read()
            except (OSError, ValueError):
                chunk = ""
            stamp = self.clock.now()
            if not chunk:
                self.q.put(("eof", stamp))
                return
            i = 0
            while i < len(chunk):
                ch = chunk[i]
                if ch == "\x1b" and chunk[i + 1:i + 2] == "[":  # an arrow or function key: ignore it
                    i += 3
                    continue
                self.q.put((key_name(ch), stamp))
                i += 1

    def get(self, deadline: float) -> tuple[str, float] | None:
        wait = deadline - self.clock.now()
        try:
            item = self.q.get(timeout=max(0.0, wait)) if wait > 0 else self.q.get_nowait()
        except queue.Empty:
            return None
        if item[0] == "eof":
            self.q.put(item)  # stays at the end: every later get sees it
        return item

    def drain(self) -> None:
        kept = []
        while True:
            try:
                item = self.q.get_nowait()
            except queue.Empty:
                break
            if item[0] == "eof":
                kept.append(item)
        for item in kept:
            self.q.put(item)

    def close(self) -> None:
        self._stop = True


class TtyKeys(_ThreadKeys):
    """Keys of a terminal, one at a time (cbreak: no enter needed, no echo)."""

    def __init__(self, fd: int, clock: Clock | None = None):
        import termios
        import tty
        self.fd = fd
        self._saved = termios.tcgetattr(fd)
        tty.setcbreak(fd)
        new = termios.tcgetattr(fd)
        new[3] &= ~termios.ECHO
        termios.tcsetattr(fd, termios.TCSANOW, new)
        super().__init__(lambda: os.read(fd, 32).decode("utf-8", "replace"), clock)

    def close(self) -> None:
        import termios
        super().close()
        termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)


class StreamKeys(_ThreadKeys):
    """Every character of a text stream is one key (a pipe, a test's input)."""

    def __init__(self, stream: IO[str], clock: Clock | None = None):
        super().__init__(lambda: stream.read(1), clock)


class ScriptedKeys(KeySource):
    """Presses planned per card by ``policy(situation) -> [(offset_s, key), ...]`` (offsets
    from the card's appearance; negative: a false start), on a :class:`FakeClock`."""

    def __init__(self, policy: Callable[[object], Sequence[tuple[float, str]]], clock: FakeClock):
        self.clock = clock
        self.policy = policy
        self.pending: list[tuple[float, str]] = []

    def on_ready(self, t_show: float, situation) -> None:
        self.pending = sorted((t_show + off, key) for off, key in self.policy(situation))

    def get(self, deadline: float) -> tuple[str, float] | None:
        if self.pending and self.pending[0][0] <= deadline:
            t, key = self.pending.pop(0)
            self.clock.t = max(self.clock.t, t)
            return key, t
        self.clock.t = max(self.clock.t, deadline)
        return None

    def drain(self) -> None:
        self.pending = [p for p in self.pending if p[0] > self.clock.t]

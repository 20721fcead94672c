"""A video file behind the camera seam, released on the monotonic clock in real time: what
``referee live --from-video`` and ``referee demo --live`` read as their camera (through
:class:`vision.camera.Camera`, exactly as a table's), with faults to inject for the tests
(freeze, unplug, dropped frames) and a virtual clock to run them faster than real time."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from vision.camera import CAP_PROP_BUFFERSIZE, CAP_PROP_FPS, CAP_PROP_POS_MSEC


class PacedFakeCamera:
    """A video file released on the monotonic clock in real time, behind the camera seam.

    ``read()`` blocks until the next frame's moment (``t0 + frame.t + lag_s``) and returns
    it; ``get(CAP_PROP_POS_MSEC)`` gives the driver stamp of that frame — its capture moment
    ``t0 + frame.t`` in monotonic milliseconds — or 0 when ``driver_stamps`` is False (the
    OpenCV bug) or garbage when it is ``"garbage"``. Faults for tests: ``freeze=(at, for)``
    (no frame for ``for`` seconds from file time ``at``, then ``read`` fails as V4L2 does
    after its select timeout), ``unplug=(at, for)`` (``read`` fails at ``at`` and the device
    cannot be reopened for ``for`` seconds; frames of that stretch are lost, as on a real
    table). ``drop_every``: the driver skips every n-th frame (a gap in its stamps).

    Use :meth:`opener` as the :class:`Camera`'s ``opener``; the same fake serves each reopen.
    ``clock``/``sleep`` are seams: tests pass a virtual clock to run faster than real time
    with the same stamps.
    """

    def __init__(self, path: str | Path, *, lag_s: float = 0.0, driver_stamps: bool | str = True,
                 freeze: tuple[float, float] | None = None, unplug: tuple[float, float] | None = None,
                 drop_every: int = 0, loop: bool = False, t0: float | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        from vision.video import probe, read_frames

        self.path = Path(path)
        self._read_frames = read_frames
        info = probe(self.path)
        self.fps = info.fps or 30.0
        self.lag_s, self.driver_stamps = lag_s, driver_stamps
        self.freeze, self.unplug, self.drop_every, self.loop = freeze, unplug, drop_every, loop
        self._now, self._sleep = clock, sleep
        self.t0 = t0  # monotonic moment of the file's time 0 (set at the first open)
        self._frames = None
        self._duration = info.duration or 0.0
        self._pass = 0
        self.opens = 0
        self.unplugged_until: float | None = None
        self.frozen_done = False
        self.finished = False
        self._stamp = 0.0
        self.delivered = 0
        self.overwritten = 0  # frames a late reader never got (the driver kept the newer one)
        self._peek = None

    def opener(self, device: Any = None) -> "_FakeCapture":
        now = self._now()
        if self.unplugged_until is not None and now < self.unplugged_until:
            return _FakeCapture(self, opened=False)
        self.opens += 1
        if self.t0 is None:
            self.t0 = now
        if self._frames is None:
            self._frames = self._iterate()
        else:
            self._skip_until(now - self.t0)  # a camera reopened shows the present, not the past
        return _FakeCapture(self, opened=True)

    def _iterate(self):
        while True:
            for i, fr in enumerate(self._read_frames(self.path)):
                yield i, fr.t + self._pass * (self._duration or 0.0), fr.image
            self._pass += 1
            if not self.loop:
                return

    def _next(self):
        if self._peek is not None:
            item, self._peek = self._peek, None
            return item
        return next(self._frames)

    def read(self) -> tuple[bool, np.ndarray | None]:
        while True:
            try:
                i, t, image = self._next()
            except StopIteration:
                self.finished = True
                return False, None
            if self.drop_every and (i + 1) % self.drop_every == 0:
                continue
            # a driver with a buffer of one keeps the newest frame: a reader that comes late
            # gets the newest, the ones in between are gone (a gap in the stamps)
            if not self.unplug and not self.freeze:
                try:
                    self._peek = next(self._frames)
                except StopIteration:
                    self._peek = None
                if self._peek is not None and self.t0 + self._peek[1] + self.lag_s <= self._now():
                    self.overwritten += 1
                    continue
            capture = self.t0 + t
            if self.unplug and self.unplugged_until is None and t >= self.unplug[0]:
                self.unplugged_until = self.t0 + self.unplug[0] + self.unplug[1]
                self._skip_until(self.unplug[0] + self.unplug[1])
                return False, None
            if self.unplugged_until is not None and capture < self.unplugged_until:
                continue  # frames while unplugged are gone
            if self.freeze and not self.frozen_done and t >= self.freeze[0]:
                self.frozen_done = True
                self._wait_until(self.t0 + self.freeze[0] + self.freeze[1])
                self._skip_until(self.freeze[0] + self.freeze[1])
                return False, None  # V4L2: select() timed out
            self._wait_until(capture + self.lag_s)
            self._stamp = capture
            self.delivered += 1
            return True, image

    def _skip_until(self, t_file: float) -> None:
        """Throw away the frames up to file time ``t_file`` (not seen while the fault lasted)."""
        import itertools

        frames = self._frames if self._peek is None else itertools.chain([self._peek], self._frames)
        self._peek = None
        self._frames = iter(itertools.dropwhile(lambda item: item[1] < t_file, frames))

    def _wait_until(self, moment: float) -> None:
        delay = moment - self._now()
        if delay > 0:
            self._sleep(delay)

    def get(self, prop: int) -> float:
        if prop == CAP_PROP_FPS:
            return self.fps
        if prop == CAP_PROP_POS_MSEC:
            if self.driver_stamps is True:
                return self._stamp * 1000.0
            if self.driver_stamps == "garbage":
                return 1234.5  # a media position, not a monotonic stamp
            return 0.0
        return 0.0


class _FakeCapture:
    """One open of the fake device (OpenCV's VideoCapture interface)."""

    def __init__(self, owner: PacedFakeCamera, opened: bool):
        self.owner, self.opened = owner, opened
        self.buffer = None

    def isOpened(self) -> bool:
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        if prop == CAP_PROP_BUFFERSIZE:
            self.buffer = value
        return True

    def get(self, prop: int) -> float:
        return self.owner.get(prop)

    def read(self):
        if not self.opened:
            return False, None
        ok, image = self.owner.read()
        if not ok:
            self.opened = False
        return ok, image

    @property
    def finished(self) -> bool:
        return self.owner.finished

    def release(self) -> None:
        self.opened = False


class VirtualClock:
    """A monotonic clock that sleeping advances at once (tests: real stamps, no waiting)."""

    def __init__(self, start: float = 1000.0):
        self.now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.now += max(0.0, seconds)

    def advance(self, seconds: float) -> None:
        self.sleep(seconds)

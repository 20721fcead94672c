"""A live camera on the session clock: a reader thread that keeps the newest frame.

OpenCV's V4L2 backend buffers about four frames by default (~130 ms of lag at 30 fps), so
the reader asks for a buffer of one (``CAP_PROP_BUFFERSIZE``) and reads continuously on its
own thread; the caller always gets the newest frame and never falls behind: frames it had
no time for are skipped and counted, never queued.

Each frame is stamped on the **session clock** (``time.monotonic()`` minus the session
start). On V4L2 ``CAP_PROP_POS_MSEC`` is the driver's capture timestamp on the monotonic
clock; some OpenCV versions give 0 or garbage there. A driver stamp is used when it is
*plausible* — not after the grab, at most :attr:`CameraParams.plausible_s` before it, and
later than the previous frame's — else the frame is stamped with the grab time minus the
known buffer delay (:attr:`CameraParams.buffer_delay_s`). The first implausible stamp
switches the connection to grab time for good (one warning; a clock that flips back and
forth would jitter the reaction times); :attr:`Camera.clock` says which clock is in use
and :meth:`Camera.clock_info` is what the record header carries.

A camera that stops delivering (unplugged, frozen: no frame for ``stall_s``) is reported
as a :class:`session.events.WarningEvent` (``camera lost``), reopened every ``retry_s``
and reported again when frames return (``camera back``); :meth:`Camera.drain_events` hands
those to the pipeline. Frames come out as :class:`vision.video.Frame`, the type the file
reader yields; ``index`` is the camera's own frame count (gaps = frames not handed out).

The device is behind a seam: ``opener(device) -> capture`` with OpenCV's ``read/get/set/
release/isOpened``. :class:`vision.paced_camera.PacedFakeCamera` plays a video file through that seam on the
monotonic clock in real time (optional lag, freeze and unplug), so tests and the paced
replay (``referee live --from-video``) run the real reader code without a camera.
"""

from __future__ import annotations

import collections
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np

from session.errors import DeviceError
from session.events import WarningEvent
from session.params import check_ranges
from vision.video import Frame

# OpenCV property ids (the values of cv2.CAP_PROP_*; fixed by OpenCV's API, kept here so the
# fake camera and the tests need no cv2 import)
CAP_PROP_POS_MSEC = 0
CAP_PROP_FPS = 5
CAP_PROP_BUFFERSIZE = 38


@dataclass(frozen=True)
class CameraParams:
    """How the live camera reads, stamps and recovers."""

    #: the driver buffer asked for (1: the newest frame; each more adds one frame period of lag).
    buffer_frames: int = 1
    #: what the grab time is corrected by when the driver's stamp is unusable (s): exposure to
    #: ``read()`` returning is about one frame period at 30 fps. An error here shifts every
    #: video time alike (the calibration's audio–video offset, measured with a clap, absorbs it).
    buffer_delay_s: float = 0.033
    #: the oldest a driver stamp may be relative to the grab (s); older means a wrong clock, not
    #: a slow pipeline (with a buffer of one a real frame is < 100 ms old).
    plausible_s: float = 0.5
    #: no frame for this long (s) is a lost camera. Shorter: a hiccup called a loss; longer: a
    #: lost camera noticed later.
    stall_s: float = 2.0
    #: how often to reopen a lost camera (s).
    retry_s: float = 1.0
    #: recent frames kept (for walking back to a card's first clear frame). More: memory.
    ring: int = 8
    #: a driver stamp gap above this many frame periods counts the frames the camera dropped.
    gap_factor: float = 1.5

    def __post_init__(self):
        check_ranges(self, at_least_one=("buffer_frames", "ring"), non_negative=("buffer_delay_s",),
                     positive=("plausible_s", "stall_s", "retry_s", "gap_factor"))


def cv2_opener(device: Any, size: tuple[int, int] | None = None, fps: float | None = None) -> Any:
    """A real camera through OpenCV's V4L2 backend (an int index or a /dev/video path),
    asked for the calibration's ``size`` and ``fps`` (a camera that cannot give them sends
    what it can; the vision stage then names the mismatch)."""
    import cv2

    quiet_opencv(cv2)  # (a missing camera is said once, by Camera, not by OpenCV's log lines too)
    v4l2 = sys.platform.startswith("linux") and hasattr(cv2, "CAP_V4L2")
    cap = cv2.VideoCapture(device, cv2.CAP_V4L2) if v4l2 else cv2.VideoCapture(device)
    if not cap.isOpened():
        return cap  # (the caller says "cannot be opened"; nothing to ask of it)
    if size is not None:
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
    if fps:
        cap.set(cv2.CAP_PROP_FPS, fps)
    return cap


def quiet_opencv(cv2=None) -> None:
    """OpenCV's own log silenced: a camera that does not open otherwise prints
    ``[ WARN:0@7.8] global cap_v4l.cpp:913 open VIDEOIO(V4L2:/dev/video0): can't open camera
    by index`` on stderr beside the referee's one line (and again at every reconnection try),
    and a capture opened without a backend adds ``[ERROR:0@0.02] ... obsensor ... Camera index
    out of range`` lines, which the ERROR level still lets through. The referee says what
    went wrong in its own words (``camera 0 cannot be opened``), so nothing of OpenCV's log
    is for the user."""
    if cv2 is None:
        import cv2
    set_level = getattr(cv2, "setLogLevel", None)  # (cv2.utils.logging is absent in some wheels)
    if callable(set_level):
        try:
            set_level(0)  # LOG_LEVEL_SILENT
        except Exception:
            pass


class Camera:
    """The newest frames of a live camera, stamped on the session clock (see module doc).

    ``start`` is the session start on ``time.monotonic()``; ``clock`` (the monotonic clock,
    a seam for tests) must be the clock the driver stamps with. Use as a context manager or
    call :meth:`open` / :meth:`close`; iterate for frames (:meth:`frames`).
    """

    def __init__(self, device: Any = 0, *, start: float | None = None, params: CameraParams = CameraParams(),
                 opener: Callable[[Any], Any] = cv2_opener, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Any] | None = None):
        self.device, self.params, self.opener, self._now = device, params, opener, clock
        self._sleep = sleep
        self.start = clock() if start is None else start
        self.ring: collections.deque[Frame] = collections.deque(maxlen=params.ring)
        #: "driver" (the driver's capture stamps) or "grab" (grab time minus the buffer delay)
        self.clock = "driver"
        self.stamped = {"driver": 0, "grab": 0}
        self.captured = 0  # frames read from the device
        self.dropped = 0  # frames the device dropped (gaps in its stamps)
        self.skipped = 0  # frames read but never handed out (the caller was busy)
        self.handed = 0
        self.losses = 0
        #: False from a loss until the first frame after it
        self.online = True
        self._cap = None
        self._cond = threading.Condition()
        self._events: list[WarningEvent] = []
        self._last_driver: float | None = None  # last driver stamp, monotonic seconds
        self._last_t: float | None = None
        self._last_frame_at: float | None = None  # monotonic time of the last frame read
        self._taken = -1  # index of the last frame handed out
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._finished = False
        self._period: float | None = None
        self._times: collections.deque[float] = collections.deque(maxlen=30)

    # ------------------------------------------------------------------ connection
    def open(self) -> "Camera":
        """Open the device (one :class:`DeviceError` if it cannot) and start the reader."""
        if not self._connect():
            raise DeviceError(f"camera {self.device!r} cannot be opened (is it plugged in, or used by "
                              "another program? try --camera N or --from-video FILE)")
        self._thread = threading.Thread(target=self._run, name=f"camera-{self.device}", daemon=True)
        self._thread.start()
        return self

    def __enter__(self) -> "Camera":
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        self._release()

    def _connect(self) -> bool:
        try:
            cap = self.opener(self.device)
        except Exception:  # a missing device raises in some backends, returns closed in others
            return False
        if cap is None or not cap.isOpened():
            _release(cap)
            return False
        try:
            cap.set(CAP_PROP_BUFFERSIZE, self.params.buffer_frames)
        except Exception:
            pass  # a backend without the property keeps its buffer; grab stamps still work
        fps = _get(cap, CAP_PROP_FPS)
        self._period = 1.0 / fps if fps and 1.0 <= fps <= 240.0 else None
        self._cap = cap
        self.clock = "driver"
        self._last_driver = None
        return True

    def _release(self) -> None:
        cap, self._cap = self._cap, None
        _release(cap)

    # ------------------------------------------------------------------ reading
    def _run(self) -> None:
        while not self._stop.is_set():
            if not self.step():
                if self._finished:
                    break

    def step(self) -> bool:
        """Read one frame (the reader thread's loop body; tests call it directly).

        Returns False when no frame came (lost, reconnecting, or the fake file ended)."""
        if self._cap is None:
            if self._sleep is not None:
                self._sleep(self.params.retry_s)
            elif self._stop.wait(self.params.retry_s):
                return False
            self._connect()
            return False
        try:
            ok, image = self._cap.read()
        except Exception:
            ok, image = False, None
        grab = self._now()
        if not ok or image is None:
            if getattr(self._cap, "finished", False):
                self._finished = True
                with self._cond:
                    self._cond.notify_all()
                return False
            self._lost(grab, "stopped delivering frames")
            self._release()
            return False
        driver = _get(self._cap, CAP_PROP_POS_MSEC)
        t = self._stamp(grab, driver / 1000.0 if driver else 0.0)
        self._deliver(image, t, grab)
        return True

    def _stamp(self, grab: float, driver: float) -> float:
        """Session time of a frame grabbed at ``grab`` whose driver stamp is ``driver`` (s)."""
        p = self.params
        if self.clock == "driver":
            age = grab - driver
            ok = driver > 0 and 0.0 <= age <= p.plausible_s and (self._last_driver is None or driver > self._last_driver)
            if ok:
                if self._last_driver is not None and self._period:
                    gap = driver - self._last_driver
                    if gap > p.gap_factor * self._period:
                        self.dropped += int(round(gap / self._period)) - 1
                self._last_driver = driver
                self.stamped["driver"] += 1
                return self._monotone(driver - self.start)
            self.clock = "grab"
            why = "0" if driver <= 0 else f"{age * 1000:+.0f} ms from the grab time"
            self._warn(grab, f"camera {self.device!r}: the driver's frame timestamps are implausible ({why}); "
                             f"stamping frames with the grab time minus {p.buffer_delay_s * 1000:.0f} ms",
                       kind="camera_clock", clock="grab")
        self.stamped["grab"] += 1
        return self._monotone(grab - p.buffer_delay_s - self.start)

    def _monotone(self, t: float) -> float:
        """Stamps never go backwards (a clock switch or a jittery grab could)."""
        t = round(t, 6)
        if self._last_t is not None and t <= self._last_t:
            t = round(self._last_t + 1e-6, 6)
        self._last_t = t
        return t

    def _deliver(self, image: np.ndarray, t: float, grab: float) -> None:
        recovered = not self.online
        frame = Frame(self.captured, t, image)
        with self._cond:
            self.captured += 1
            self.ring.append(frame)
            self._last_frame_at = grab
            self._times.append(t)
            self._cond.notify_all()
        if recovered:
            self.online = True
            self._warn(grab, f"camera {self.device!r} is back", kind="camera", state="ok")

    def _lost(self, now: float, why: str) -> None:
        """Report a loss once, at the last frame's moment (no video from there on)."""
        if not self.online:
            return  # already reported
        self.online = False
        self.losses += 1
        seen = self._last_t if self._last_t is not None else now - self.start
        self._warn(seen + self.start, f"camera {self.device!r} lost: {why}; reconnecting every {self.params.retry_s:g} s; "
                        "judging goes on with what is left", kind="camera", state="lost")

    def promise(self) -> float:
        """Session time before which no warning not yet drained can be dated (the ``sources``
        stream's watermark, with the microphones'): while frames come, a loss is dated at the
        last frame's stamp, and a clock fallback or a return at a grab still to come; with the
        camera away, at a grab still to come. Call it *before* :meth:`drain_events`."""
        with self._cond:
            online, last = self.online, self._last_t
        now = self._now() - self.start
        if online and last is not None:
            return min(last, now)
        return now - self.params.buffer_delay_s  # (a grab under way: its stamp's margin)

    def check_stall(self) -> None:
        """Report a frozen camera (no frame for ``stall_s``) even while ``read`` blocks."""
        now = self._now()
        if self._last_frame_at is not None and now - self._last_frame_at > self.params.stall_s:
            self._lost(now, f"no frame for {self.params.stall_s:g} s (frozen or unplugged)")

    def _warn(self, now: float, message: str, **extra: Any) -> None:
        ev = WarningEvent(t=round(now - self.start, 6), message=message, extra={"source": "camera", **extra})
        with self._cond:
            self._events.append(ev)

    # ------------------------------------------------------------------ handing out
    def drain_events(self) -> list[WarningEvent]:
        """The warnings since the last call (camera lost/back, clock fallback), oldest first."""
        self.check_stall()
        with self._cond:
            out, self._events = self._events, []
        return out

    def latest(self) -> Frame | None:
        """The newest frame not yet handed out, or None; counts the ones it jumps over."""
        with self._cond:
            if not self.ring or self.ring[-1].index <= self._taken:
                return None
            frame = self.ring[-1]
            self.skipped += frame.index - self._taken - 1
            self._taken = frame.index
            self.handed += 1
            return frame

    def frames(self, timeout: float | None = None) -> Iterator[Frame]:
        """The newest frame each time the caller is ready; ends when the camera is closed
        (or the fake camera's file ends). ``timeout``: give up waiting after this long
        without a frame (None: wait through losses, reconnecting)."""
        while True:
            with self._cond:
                ready = self._cond.wait_for(
                    lambda: self._stop.is_set() or self._finished or (self.ring and self.ring[-1].index > self._taken),
                    timeout=timeout if timeout is not None else 0.25)
            frame = self.latest()
            if frame is not None:
                yield frame
                continue
            if self._stop.is_set() or self._finished:
                return
            self.check_stall()
            if not ready and timeout is not None:
                return

    def __iter__(self) -> Iterator[Frame]:
        return self.frames()

    def next(self, timeout: float) -> Frame | None:
        """The newest frame not handed out yet, waiting up to ``timeout`` s; None if none
        came (a caller with other work — the live loop — polls this way)."""
        with self._cond:
            self._cond.wait_for(
                lambda: self._stop.is_set() or self._finished or bool(self.ring and self.ring[-1].index > self._taken),
                timeout=timeout)
        return self.latest()

    @property
    def ended(self) -> bool:
        """The source has no more frames (a fake camera's file ended) and all were offered."""
        with self._cond:
            return self._finished and not (self.ring and self.ring[-1].index > self._taken)

    @property
    def fps(self) -> float:
        """Frames per second over the last ~30 frames read (capture stamps, not processing)."""
        with self._cond:
            ts = list(self._times)
        if len(ts) < 2 or ts[-1] <= ts[0]:
            return 0.0
        return (len(ts) - 1) / (ts[-1] - ts[0])

    def clock_info(self) -> dict[str, Any]:
        """What the session header records about the video clock."""
        return {"source": "camera", "device": str(self.device), "clock": self.clock,
                "stamped": dict(self.stamped), "buffer_frames": self.params.buffer_frames,
                "buffer_delay_s": self.params.buffer_delay_s}

    def status(self) -> dict[str, Any]:
        """The status line's camera part."""
        return {"fps": round(self.fps, 1), "captured": self.captured, "dropped": self.dropped,
                "skipped": self.skipped, "online": self.online, "clock": self.clock,
                "losses": self.losses}


def _get(cap: Any, prop: int) -> float:
    try:
        value = float(cap.get(prop))
    except Exception:
        return 0.0
    return value if np.isfinite(value) else 0.0


def _release(cap: Any) -> None:
    if cap is None:
        return
    try:
        cap.release()
    except Exception:
        pass

"""The adaptive pose rate: under overload the pose stride goes up, so the referee never falls
seconds behind the table; when the pose workers keep up it comes back down (a smaller
stride: a raise is confirmed sooner).

The signal is the pose workers' lag: the session clock now minus the capture time of the
newest frame whose hands are known (both on the monotonic clock). While its median over
``window_s`` is above ``behind_s`` the stride climbs one rung of :data:`LADDER`; while its
median over ``calm_s`` is below ``caught_up_s`` it steps one rung down. Each change waits
``hold_s`` for the queues to settle before the next. Frames the referee has no time for meanwhile are skipped
by the camera (counted), never queued.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Iterable, Sequence

#: the strides tried (pose on every n-th frame per seat): each rung about 1.5 times the last
LADDER = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)


@dataclass(frozen=True)
class PoseRateParams:
    """Bounds of the pose stride (pose on every n-th frame per seat) and the lag thresholds that
    move it: the live loop's answer to a machine too slow for every frame. How the ceiling was
    found: docs/settings.md, ``PoseRateParams``."""

    #: the smallest stride. Smaller: hands sooner (a raise needs two analysed frames), more CPU
    #: (four seats at every 4th frame: ~30 pose runs a second, ~0.7 core).
    min_every: int = 4
    #: the largest stride. Larger: a hand seen later, and one up for less than about a stride
    #: missed; overload beyond it is met by skipping frames.
    max_every: int = 8
    #: the median lag (s) over the last ``window_s`` above which the stride goes up. Lower:
    #: hands later on a machine that would have kept up.
    behind_s: float = 0.45
    #: ... over this long (s): a median, so one slow frame does not move it.
    window_s: float = 1.5
    #: the median lag (s) over the last ``calm_s`` below which the stride comes down.
    caught_up_s: float = 0.25
    #: ... over this long (s). Shorter: one quiet second on a loaded machine flips it back.
    calm_s: float = 4.0
    #: after a change, no other for this long (s): a stride's effect shows after a few periods.
    hold_s: float = 2.0
    #: a stride the workers fell behind at is not tried again for this long (s; doubled at each
    #: further failure). Shorter: the rate flaps between two rungs.
    retry_s: float = 30.0

    def __post_init__(self) -> None:
        if not (1 <= self.min_every <= self.max_every):
            raise ValueError(f"pose stride bounds must satisfy 1 <= min_every <= max_every, got "
                             f"{self.min_every}..{self.max_every}")
        if not (0 < self.caught_up_s < self.behind_s):
            raise ValueError(f"caught_up_s ({self.caught_up_s}) must be above 0 and below behind_s ({self.behind_s})")
        if self.window_s <= 0 or self.calm_s <= 0 or self.hold_s < 0 or self.retry_s < 0:
            raise ValueError("window_s and calm_s must be positive, hold_s and retry_s not negative")


class PoseRate:
    """``update(now, lag_s)`` with each lag reading → the new stride when it changes, else
    None (pure: the caller applies it and records it)."""

    def __init__(self, every: int, params: PoseRateParams = PoseRateParams()):
        self.params = params
        self.every = min(max(int(every), params.min_every), params.max_every)
        self._changed_at = float("-inf")
        self._readings: deque[tuple[float, float]] = deque()
        self._since = float("inf")  # the first reading since the last change
        self._failed: dict[int, tuple[float, int]] = {}  # stride -> (not before, failures)
        self.changes: list[tuple[float, int, float]] = []  # (session time, new stride, median lag that moved it)

    def rungs(self) -> list[int]:
        p = self.params
        return sorted({p.min_every, p.max_every, *(n for n in LADDER if p.min_every <= n <= p.max_every)})

    def _median(self, now: float, span: float) -> float | None:
        """The median lag over the last ``span`` s, once readings cover that span."""
        if now - self._since < span:
            return None
        xs = sorted(lag for t, lag in self._readings if t >= now - span)
        return xs[len(xs) // 2] if xs else None

    def update(self, now: float, lag_s: float) -> int | None:
        p = self.params
        self._readings.append((now, lag_s))
        self._since = min(self._since, now)
        while self._readings and self._readings[0][0] < now - max(p.window_s, p.calm_s):
            self._readings.popleft()
        if now - self._changed_at < p.hold_s:
            return None
        rungs = self.rungs()
        k = rungs.index(self.every) if self.every in rungs else 0
        new = None
        recent = self._median(now, p.window_s)
        calm = self._median(now, p.calm_s)
        if recent is not None and recent > p.behind_s and k + 1 < len(rungs):
            new, why = rungs[k + 1], recent
        elif calm is not None and calm < p.caught_up_s and (recent is None or recent < p.behind_s) and k > 0 \
                and now >= self._failed.get(rungs[k - 1], (float("-inf"), 0))[0]:
            new, why = rungs[k - 1], calm
        if new is None:
            return None
        if new > self.every:  # this stride could not keep up: not again for a while
            _, n = self._failed.get(self.every, (0.0, 0))
            self._failed[self.every] = (now + p.retry_s * 2 ** n, n + 1)
        self.every, self._changed_at = new, now
        self._readings.clear()
        self._since = float("inf")
        self.changes.append((round(now, 3), new, round(why, 3)))
        return new


def pose_lag(stage, frame_t: float, now: float) -> float:
    """How far the pose lags the clock: ``now`` minus the capture time of the newest frame
    whose hands are known (with workers, the last one collected from them; without, the
    frame just analysed)."""
    workers = stage.tw.workers
    known = getattr(workers, "collected_t", None) if workers is not None else frame_t
    return now - known if known is not None and known >= 0 else 0.0  # (< 0: a warm-up frame)


@dataclass(frozen=True)
class CatchUpParams:
    """What the live loop does after a stall: the frames the camera captured meanwhile go to
    the vision stage too, thinned, instead of only the newest, so that hands raised during
    the stall (right after a card's reveal, when the card zones are busiest) are still seen.
    Under a steady overload nothing is caught up. Why and what was lost without it:
    docs/settings.md, ``CatchUpParams``."""

    #: a frame handed over more than this (s, capture times) after the last one the stage took
    #: follows a stall; below, skipped frames stay skipped (the adaptive stride's business).
    gap_s: float = 0.25
    #: the stall's frames are taken one every this many seconds. Coarser: a short raise loses
    #: its two analysed frames; finer: more stage work after each stall (lag).
    step_s: float = 0.066
    #: how much video the camera keeps (s): the longest stall covered. Memory: ring_s x fps
    #: frames, 2.7 MB each at 1280x720.
    ring_s: float = 2.0
    #: a stall is caught up only while the stage's median time per frame is below this fraction
    #: of ``step_s``: catching up then takes at most that fraction of the stall. Higher: more
    #: hands recovered, more lag added.
    max_stage_fraction: float = 0.5
    #: ... that median over the last this many frames.
    window: int = 15
    #: nor while the pose workers' median lag (:func:`pose_lag`, s) is above this: starved
    #: workers would only fall further behind.
    max_lag_s: float = PoseRateParams.behind_s  # one notion of "the workers fell behind"

    def __post_init__(self) -> None:
        if not (0 < self.step_s <= self.gap_s <= self.ring_s):
            raise ValueError(f"catch-up needs 0 < step_s <= gap_s <= ring_s, got step_s={self.step_s}, "
                             f"gap_s={self.gap_s}, ring_s={self.ring_s}")
        if not (0 < self.max_stage_fraction < 1) or self.window < 1 or self.max_lag_s <= 0:
            raise ValueError(f"catch-up needs 0 < max_stage_fraction < 1 and window >= 1, got "
                             f"{self.max_stage_fraction} and {self.window} (and max_lag_s > 0)")

    def ring_frames(self, fps: float) -> int:
        """The camera ring's length for ``ring_s`` at ``fps``."""
        return max(1, int(math.ceil(self.ring_s * (fps or 30.0))))


def catch_up(kept: Iterable, last_t: float | None, frame, params: CatchUpParams = CatchUpParams(),
             stage_s: float = 0.0) -> list:
    """The frames to give the stage before ``frame`` (oldest first): none after a steady
    skip (``frame.t - last_t <= gap_s``); after a stall, the ``kept`` frames (the camera's
    ring) captured strictly between ``last_t`` (the last frame the stage took) and
    ``frame``, at least ``step_s`` apart from each other and from both ends — unless the
    stage's typical time per frame (``stage_s``, the median over the last ``window`` frames)
    is too slow to catch up (``max_stage_fraction``). Pure: the caller hands them over in
    this order."""
    if last_t is None or frame.t - last_t <= params.gap_s or stage_s >= params.max_stage_fraction * params.step_s:
        return []
    eps = 1e-6
    out: list = []
    prev = last_t
    for f in sorted((f for f in kept if last_t + eps < f.t < frame.t - eps), key=lambda f: f.t):
        if f.t - prev >= params.step_s - eps and frame.t - f.t >= params.step_s - eps:
            out.append(f)
            prev = f.t
    return out


def frames_for_stage(kept: Iterable, last_t: float | None, frame, params: CatchUpParams | None,
                     stage_s: Sequence[float] = (), lag_s: Sequence[float] = ()) -> list:
    """What the live loop gives the vision stage when the camera hands it ``frame``: the
    stall's frames (:func:`catch_up`, none with ``params`` None), then ``frame``.
    ``stage_s``: the stage's times per frame, ``lag_s``: the pose lag read after each, oldest
    first (the last ``window`` count)."""
    if params is None:
        return [frame]

    def median(xs: Sequence[float]) -> float:
        xs = sorted(list(xs)[-params.window:])
        return xs[len(xs) // 2] if xs else 0.0

    if median(lag_s) > params.max_lag_s:
        return [frame]
    return [*catch_up(kept, last_t, frame, params, median(stage_s)), frame]

"""Pose for several seats in worker processes (speed on 2 cores).

Two kinds: :class:`SeatWorkers` (whole seats per worker, frames in shared memory; what
``vision.table.TableWatcher`` and ``referee replay`` use) and :class:`PoseWorkers` (pose
only, crops pickled; kept for ``vision.bench``'s throughput figures).

Research: four seats at 30 fps do not fit one process on 2 cores (9–17 fps), two workers
reached 18–21 fps. Each worker owns the pose trackers of a group of seats (tracking state
stays in one process, so video mode works) and receives only the seat crops of each frame;
the main process decodes, watches the cards and runs the (cheap) state machines meanwhile.
``submit`` then ``collect`` lets the caller overlap its own work with the workers'.
Processes are started with ``spawn`` (mediapipe's threads do not survive ``fork``).
"""

from __future__ import annotations

import multiprocessing as mp
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from session.closing import close_all, stop_process
from session.errors import RefereeError
from vision.hands import Landmarks, pose_figures


def start_without_sigint(process) -> None:
    """Start a worker process that ignores Ctrl-C for its whole life: the terminal sends
    SIGINT to every process of the group, and the parent, not each worker, must handle it
    (stop the workers, keep the record, say one line) — otherwise each worker prints its
    own KeyboardInterrupt traceback. SIGINT is ignored around ``start()`` so the spawned
    interpreter inherits SIG_IGN (Python then installs no handler of its own); only the
    main thread can change it, elsewhere the process starts as it is."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        process.start()
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        process.start()
    finally:
        signal.signal(signal.SIGINT, old)


#: what a worker's pipe raises when the parent is gone (killed): the worker ends quietly
PARENT_GONE = (EOFError, ConnectionResetError, BrokenPipeError)


# ---- what the seat workers and the main process say to each other (small picklable types)
@dataclass(frozen=True)
class FrameInRing:
    """Frame ``index`` (capture time ``t``) waits in ring slot ``slot``: analyse it."""

    index: int
    t: float
    slot: int


@dataclass(frozen=True)
class PoseStride:
    """Pose on every ``every``-th frame from the next frame on (:func:`set_every`)."""

    every: int


@dataclass(frozen=True)
class NewSeats:
    """New seats for a new session (no tracking carried over), pose every ``every``-th frame
    (None: as first given)."""

    every: int | None = None


@dataclass(frozen=True)
class SeatResult:
    """One seat's answer for one frame."""

    #: pose ran on this frame (else ``landmarks`` is None)
    analysed: bool
    landmarks: Landmarks | None
    #: the hand events this frame completed
    events: list
    #: the earliest time a hand event still to come can carry (``SeatHands.earliest_event_t``)
    earliest: float


@dataclass(frozen=True)
class WorkerFigures:
    """A worker's last message: its CPU time, busy time and pose figures."""

    figures: dict


class _Pool:
    """Seats split round-robin over worker processes, one pipe each: start, gather a
    result per seat, stop (the part both kinds of workers share)."""

    def __init__(self, n_seats: int, n: int):
        n = max(1, min(n, n_seats))
        self.n_seats = n_seats
        self.groups = [list(range(i, n_seats, n)) for i in range(n)]
        self.procs, self.conns = [], []

    def _start(self, target, args_of_group) -> None:
        """One spawned process per group: ``target(conn, *args_of_group(group))``."""
        ctx = mp.get_context("spawn")
        for g in self.groups:
            parent, child = ctx.Pipe()
            p = ctx.Process(target=target, args=(child, *args_of_group(g)), daemon=True)
            try:
                start_without_sigint(p)
            except BaseException:
                parent.close()
                raise
            finally:
                child.close()
            self.procs.append(p)
            self.conns.append(parent)

    def _gather(self) -> list:
        """One reply per group, scattered back to the seats' order."""
        out: list = [None] * self.n_seats
        for g, conn in zip(self.groups, self.conns):
            try:
                res = conn.recv()
            except (EOFError, OSError):
                raise RefereeError("a pose worker process stopped") from None
            for i, r in zip(g, res):
                out[i] = r
        return out

    def _stop(self, last=None) -> None:
        """Ask every worker to stop, let ``last(conn)`` read what it sends before it ends,
        then join (terminate a worker that hangs) and close the pipes."""
        for conn in self.conns:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        if last is not None:
            for conn in self.conns:
                last(conn)
        for p in self.procs:
            stop_process(p, timeout=5)
        for conn in self.conns:
            conn.close()
        self.procs, self.conns = [], []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _worker(conn, boxes) -> None:
    from vision.hands import PoseEstimator

    ests = [PoseEstimator(b, video=True) for b in boxes]
    try:
        while True:
            msg = conn.recv()
            if msg is None:
                break
            conn.send([None if crop is None else est.estimate_crop(crop, box)
                       for est, (crop, box) in zip(ests, msg)])
    except PARENT_GONE:
        pass
    finally:
        for e in ests:
            e.close()
        conn.close()


class PoseWorkers(_Pool):
    """Seats split round-robin over ``n`` worker processes."""

    def __init__(self, boxes: Sequence[tuple[int, int, int, int]], n: int):
        super().__init__(len(boxes), n)
        self.boxes = [tuple(int(v) for v in b) for b in boxes]
        self._start(_worker, lambda g: ([self.boxes[i] for i in g],))

    def submit(self, frame: np.ndarray, due: Sequence[bool] | None = None) -> None:
        """Send the crops of the seats ``due`` on this frame (all by default)."""
        self._due = [True] * len(self.boxes) if due is None else list(due)
        for g, conn in zip(self.groups, self.conns):
            msg = []
            for i in g:
                x1, y1, x2, y2 = self.boxes[i]
                crop = np.ascontiguousarray(frame[y1:y2, x1:x2]) if self._due[i] else None
                msg.append((crop, self.boxes[i]))
            conn.send(msg)

    def collect(self) -> list[Landmarks | None]:
        """Landmarks per seat (None: not found, or not due)."""
        return self._gather()

    def close(self) -> None:
        self._stop()


# --- whole seats in workers -----------------------------------------------------------------

#: extra frame slots in the shared ring beyond the frames in flight (a margin, no latency)
RING_MARGIN = 2


def seat_region(boxes, shape: tuple[int, ...]) -> tuple[slice, slice]:
    """The rows and columns of a frame of ``shape`` that hold every seat's crop (as
    :class:`~vision.hands.SeatHands` cuts it: pose, the motion gate's thumbnail, the crops kept
    for re-analysis): the seat workers read nothing else of a frame, so only this part is
    copied into the shared ring (demo: rows 0-500 of 720, 69 % of each frame's bytes); the rest
    of a slot is never read. Same pixels, same crops: the seats' results are unchanged."""
    from vision.hands import seat_crop_box

    crops = [seat_crop_box(tuple(int(v) for v in b), shape) for b in boxes]
    if not crops:
        return slice(0, 0), slice(0, 0)
    return (slice(min(c[1] for c in crops), max(c[3] for c in crops)),
            slice(min(c[0] for c in crops), max(c[2] for c in crops)))


def set_every(seat, every: int) -> None:
    """Change a :class:`~vision.hands.SeatHands`' pose stride between two frames (the live
    referee's adaptive pose rate): what its constructor derives from ``every`` follows — the
    lowering confirmation in analysed frames, the re-analysis and the crop ring's length
    (the crops already kept stay). The arms' states and runs carry on."""
    from vision.hands import LOWER_FRAMES, RAISE_FRAMES, REANALYSIS_FRAMES

    every = max(1, int(every))
    if every == seat.every:
        return
    seat.every = every
    lower = max(RAISE_FRAMES, -(-LOWER_FRAMES // every)) if every > 1 else LOWER_FRAMES
    for arm in seat.arms.values():
        arm.lower_frames = lower
    seat.reanalyse = every > 1
    keep = max(REANALYSIS_FRAMES, (max(RAISE_FRAMES, lower) + 3) * every)
    seat.keep_crops(keep)


def _make_seats(specs, every: int | None = None):
    from vision.hands import SeatHands

    return [SeatHands(player, box, every=every or n, phase=phase, half_raise=half) for player, box, n, phase, half in specs]


def _seat_worker(conn, shm_name: str, shape: tuple[int, ...], slots: int, specs) -> None:
    """Own a group of :class:`~vision.hands.SeatHands` (tracking, crop ring, re-analysis);
    frames arrive as slots of the shared ring (:class:`FrameInRing`; each answered with a
    :class:`SeatResult` per seat). Between frames: :class:`PoseStride` changes the pose
    stride, :class:`NewSeats` starts new seats (a new session: no tracking state carried
    over) in the same process, with MediaPipe already loaded. ``None`` stops it; its last
    message is :class:`WorkerFigures`."""
    import resource
    import time
    from multiprocessing import shared_memory

    shm = shared_memory.SharedMemory(name=shm_name)
    ring = np.ndarray((slots, *shape), dtype=np.uint8, buffer=shm.buf)
    seats = _make_seats(specs)
    busy = 0.0
    try:
        while True:
            msg = conn.recv()
            if msg is None:
                break
            if isinstance(msg, PoseStride):
                for s in seats:
                    set_every(s, msg.every)
                continue
            if isinstance(msg, NewSeats):
                for s in seats:
                    s.close()
                seats = _make_seats(specs, msg.every)
                continue
            t0 = time.perf_counter()
            frame = ring[msg.slot]
            out = []
            for s in seats:
                due = s.due(msg.index)
                events = s.update(msg.index, msg.t, frame)
                out.append(SeatResult(due, s.landmarks if due else None, events, s.earliest_event_t()))
            busy += time.perf_counter() - t0
            conn.send(out)
        ru = resource.getrusage(resource.RUSAGE_SELF)
        conn.send(WorkerFigures({"cpu": ru.ru_utime + ru.ru_stime, "busy": busy, **pose_figures(seats)}))
    except PARENT_GONE:
        pass
    finally:
        for s in seats:
            s.close()
        del ring
        frame = None
        shm.close()
        conn.close()


class SeatWorkers(_Pool):
    """Whole seats (:class:`~vision.hands.SeatHands`: pose, arm state, the crop ring and the
    full-rate re-analysis) in ``n`` worker processes, frames passed through a ring of
    ``slots`` frames in shared memory.

    Why (measured on the 4-seat demo): with :class:`PoseWorkers` the re-analysis around
    each hand change ran in the main process, beside decoding, the card zones and the
    audio, while the workers waited; whole seats in the workers balance the cores, and a
    frame costs one copy into the ring instead of four pickled crops. Results are those of
    the same ``SeatHands`` run in one process (same inputs, same order per seat).

    ``submit(frame_index, t, image)`` then ``collect()`` (oldest first) lets the caller keep
    up to ``slots - 1`` frames in flight; a slot is reused only after its frame was
    collected, which the caller guarantees by collecting before submitting more.
    """

    def __init__(self, seats: Sequence[tuple[str, tuple[int, int, int, int], int, int]], n: int,
                 shape: tuple[int, int, int], slots: int):
        from multiprocessing import shared_memory

        super().__init__(len(seats), n)
        self.players = [s[0] for s in seats]
        self.shape, self.slots = tuple(shape), max(2, slots)
        self.shm = shared_memory.SharedMemory(create=True, size=int(np.prod(self.shape)) * self.slots)
        self.ring = np.ndarray((self.slots, *self.shape), dtype=np.uint8, buffer=self.shm.buf)
        self.stats: list[dict] = []
        self._next = 0
        #: the part of each frame the seats read (:func:`seat_region`): only it is copied into the ring
        self.region = seat_region([box for _, box, *_ in seats], self.shape)
        from collections import deque

        self._in_flight: deque[float] = deque()
        #: the capture time of the newest frame collected (the pose workers' progress: the
        #: live referee compares it with the clock)
        self.collected_t = float("-inf")
        specs = [(p, tuple(int(v) for v in box), int(every), int(phase), bool(half)) for p, box, every, phase, half in seats]
        try:
            self._start(_seat_worker, lambda g: (self.shm.name, self.shape, self.slots, [specs[i] for i in g]))
        except BaseException:
            self.close()
            raise

    def submit(self, index: int, t: float, image: np.ndarray) -> None:
        if image.shape != self.shape:
            raise RefereeError(f"frame {index} is {image.shape[1]}x{image.shape[0]}, the pose workers expect "
                               f"{self.shape[1]}x{self.shape[0]}")
        slot = self._next % self.slots
        self._next += 1
        rows, cols = self.region
        np.copyto(self.ring[slot, rows, cols], image[rows, cols])
        for conn in self.conns:
            conn.send(FrameInRing(index, t, slot))
        self._in_flight.append(t)

    def collect(self) -> list[SeatResult]:
        """Per seat (in the order given), its answer for the oldest frame in flight."""
        out = self._gather()
        if self._in_flight:
            self.collected_t = self._in_flight.popleft()
        return out

    def ready(self) -> bool:
        """Whether the oldest frame in flight has been answered by every worker (collecting
        it now does not wait): the live referee takes results as soon as they are there
        instead of when the next frames push them out."""
        if not self._in_flight:
            return False
        try:
            return all(conn.poll() for conn in self.conns)
        except (EOFError, OSError):
            return True  # collect() then raises the worker's loss

    def set_every(self, every: int) -> None:
        """Pose on every ``every``-th frame from the next frame submitted on (see
        :func:`set_every`)."""
        for conn in self.conns:
            conn.send(PoseStride(int(every)))

    def reset(self, every: int | None = None) -> None:
        """New seats in the running workers (a new session), pose every ``every``-th frame
        (None: as first given). Every frame submitted must have been collected."""
        if self._in_flight:
            raise RefereeError("the pose workers were reset with frames still in flight")
        for conn in self.conns:
            conn.send(NewSeats(None if every is None else int(every)))
        self.collected_t = float("-inf")

    def close(self) -> None:
        """Stop the workers (their CPU figures land in :attr:`stats`) and free the ring."""
        def figures(conn) -> None:
            try:
                while conn.poll(10):  # results still in flight, then the figures
                    msg = conn.recv()
                    if isinstance(msg, WorkerFigures):
                        self.stats.append(msg.figures)
                        break
            except (EOFError, OSError):
                pass

        try:
            self._stop(figures)
        finally:  # (the ring is freed even when stopping a worker failed)
            if self.shm is not None:
                self.ring = None
                shm, self.shm = self.shm, None
                close_all(shm.close, shm.unlink)

"""Pose for several seats in worker processes (speed on 2 cores).

Research: four seats at 30 fps do not fit one process on 2 cores (9–17 fps), two workers
reached 18–21 fps. Each worker owns the pose trackers of a group of seats (tracking state
stays in one process, so video mode works) and receives only the seat crops of each frame;
the main process decodes, watches the cards and runs the (cheap) state machines meanwhile.
``submit`` then ``collect`` lets the caller overlap its own work with the workers'.
Processes are started with ``spawn`` (mediapipe's threads do not survive ``fork``).
"""

from __future__ import annotations

import multiprocessing as mp
from typing import Sequence

import numpy as np

from referee.errors import RefereeError
from vision.hands import Landmarks


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
    finally:
        for e in ests:
            e.close()
        conn.close()


class PoseWorkers:
    """Seats split round-robin over ``n`` worker processes."""

    def __init__(self, boxes: Sequence[tuple[int, int, int, int]], n: int):
        n = max(1, min(n, len(boxes)))
        self.groups = [list(range(i, len(boxes), n)) for i in range(n)]
        self.boxes = [tuple(int(v) for v in b) for b in boxes]
        ctx = mp.get_context("spawn")
        self.procs, self.conns = [], []
        for g in self.groups:
            parent, child = ctx.Pipe()
            p = ctx.Process(target=_worker, args=(child, [self.boxes[i] for i in g]), daemon=True)
            p.start()
            child.close()
            self.procs.append(p)
            self.conns.append(parent)

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
        out: list[Landmarks | None] = [None] * len(self.boxes)
        for g, conn in zip(self.groups, self.conns):
            try:
                res = conn.recv()
            except EOFError:
                raise RefereeError("a pose worker process stopped") from None
            for i, lm in zip(g, res):
                out[i] = lm
        return out

    def close(self) -> None:
        for conn in self.conns:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
        for conn in self.conns:
            conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

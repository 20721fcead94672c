"""The watermark merge: events from several stages released in canonical order as soon as no
earlier event can still arrive.

Each stage (vision, hearing, the table's controls) pushes its events — not necessarily in
order — and says how far it has got: its *watermark*, a time before which it will emit
nothing more (a stage knows how late its events can be: vision's walk-back over the ring of
frames, hearing's open utterances). The merge holds every event until the smallest
watermark of the open streams has passed it, then releases it; so the record is written in
time order while the session runs, and what is written never has to be taken back.

A stage that breaks its promise (an event earlier than its own watermark, or earlier than
what was already released) does not lose the event: it is released at once, out of order,
and counted in :attr:`late` (the pipeline warns; the record reader then judges in time
order). Events at the same instant are ordered by :func:`session.order.sort_key`.
"""

from __future__ import annotations

import heapq
import math
from typing import Iterable

from session.events import Event
from session.order import sort_key


class WatermarkMerge:
    """``push`` events per stream, ``advance`` each stream's watermark, ``release`` in order."""

    def __init__(self, streams: Iterable[str]):
        self._marks: dict[str, float] = {s: -math.inf for s in streams}
        self._heap: list[tuple[tuple, int, Event]] = []
        self._seq = 0
        self._released_key: tuple | None = None
        #: events pushed after their place was already released (a stage's broken promise)
        self.late: list[tuple[str, Event]] = []

    @property
    def streams(self) -> list[str]:
        return list(self._marks)

    def watermark(self) -> float:
        """The time before which every event has arrived (``inf`` once every stream closed)."""
        return min(self._marks.values(), default=math.inf)

    def push(self, stream: str, events: Iterable[Event]) -> None:
        if stream not in self._marks:
            raise KeyError(f"unknown stream {stream!r}")
        for ev in events:
            key = sort_key(ev)
            if ev.t < self._marks[stream] or (self._released_key is not None and key < self._released_key):
                self.late.append((stream, ev))
            heapq.heappush(self._heap, (key, self._seq, ev))
            self._seq += 1

    def advance(self, stream: str, t: float) -> None:
        """``stream`` will emit nothing earlier than ``t`` (a watermark never goes back)."""
        if t > self._marks[stream]:
            self._marks[stream] = t

    def close(self, stream: str) -> None:
        self._marks[stream] = math.inf

    def release(self) -> list[Event]:
        """Every held event that no later push can precede: ``t`` before the watermark (all,
        once every stream closed), plus the late ones, in canonical order."""
        mark = self.watermark()
        out: list[Event] = []
        while self._heap and (self._heap[0][2].t < mark or mark == math.inf
                              or (self._released_key is not None and self._heap[0][0] < self._released_key)):
            key, _, ev = heapq.heappop(self._heap)
            if self._released_key is None or key > self._released_key:
                self._released_key = key
            out.append(ev)
        return out

    @property
    def held(self) -> int:
        return len(self._heap)

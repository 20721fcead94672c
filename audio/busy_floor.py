"""The *busy floor* of :mod:`audio.onset`: a noise floor for a channel that is never quiet.

The onset detector's own floor (the *trough floor*) follows the energy down fast and creeps
up slowly, so it sits on the quiet between sounds. Under babble (other people talking in the
room) there is no quiet: the trough floor sits on the babble's troughs, 6-11 dB under its
typical level, every babble syllable stands over ``start_db`` and ``trigger_db`` and a
babble segment holds the channel open until ``max_utterance_s`` — a shout said in it is
swallowed (docs/hearing.md, 2026-12-06).

The busy floor is an order statistic (``OnsetParams.busy_quantile``, the median by default)
of the channel's energy in consecutive ``busy_chunk_s`` chunks over the trailing
``busy_window_s``. Chunks are cut at fixed frame indices of the stream and the order
statistic is taken from a sorted list of exact values, so the result does not depend on how
the audio was cut into blocks (a live stream and a file give the same onsets). The detector
feeds a chunk only while the channel has no utterance open (``OnsetDetector``: frozen while
the seat speaks, so its own voice does not lift the floor; not before the floor has its first
value, or a channel busy from its start would hold a babble utterance open and never learn), and uses it only where it stands
``busy_gate_db`` over the trough floor: under steady noise (white, pink, hiss) the two lie
1-3 dB apart and nothing changes.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections import deque


class BusyFloor:
    """One channel's busy floor: feed :meth:`add` one frame's linear energy at a time."""

    __slots__ = ("chunk", "size", "rank", "min_chunks", "_acc", "_n", "_fifo", "_sorted", "value_db")

    def __init__(self, chunk_frames: int, window_chunks: int, quantile: float, min_chunks: int):
        if chunk_frames < 1 or window_chunks < 1 or not 1 <= min_chunks <= window_chunks:
            raise ValueError(f"BusyFloor: chunk {chunk_frames} frames, window {window_chunks} chunks, "
                             f"min {min_chunks} chunks: each >= 1, min <= window expected")
        if not 0.0 <= quantile <= 1.0:
            raise ValueError(f"BusyFloor: quantile must be in [0, 1], got {quantile!r}")
        self.chunk, self.size, self.rank, self.min_chunks = chunk_frames, window_chunks, quantile, min_chunks
        self._acc, self._n = 0.0, 0
        self._fifo: deque[float] = deque()
        self._sorted: list[float] = []
        #: the busy floor (dB), or None while fewer than ``min_chunks`` chunks were fed
        self.value_db: float | None = None

    def add(self, energy: float, frame: int, frozen: bool) -> None:
        """Frame ``frame``'s linear energy. A chunk ends at every frame index that is a multiple
        of ``chunk`` minus one; it joins the window unless ``frozen`` at that frame."""
        self._acc += energy
        self._n += 1
        if (frame + 1) % self.chunk:
            return
        mean, self._acc, n, self._n = self._acc / self._n, 0.0, self._n, 0
        if frozen or n < self.chunk:  # (a partial first chunk: the stream began inside it)
            return
        self._fifo.append(mean)
        insort(self._sorted, mean)
        if len(self._fifo) > self.size:
            del self._sorted[bisect_left(self._sorted, self._fifo.popleft())]
        m = len(self._sorted)
        if m >= self.min_chunks:
            v = self._sorted[int(self.rank * (m - 1) + 0.5)]
            self.value_db = 10 * math.log10(max(v, 1e-20))

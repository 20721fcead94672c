"""What the live referee loads once and hands from the self-test to the session and on to
the next game: the pose worker processes (MediaPipe loaded in each, several seconds under
load). The speech model is cached per process by its engine (``audio.whisper``,
``audio.recognize``), and hearing runs in this process live, so it loads once too."""

from __future__ import annotations


class LiveEngines:
    """The pose workers, started by the first session that needs them and reset (new seats,
    no tracking state carried over) for every later one; :meth:`close` at the very end."""

    def __init__(self):
        self._pool = None
        self._key = None
        self.started = 0  # worker pools started (a figure: 1 across self-test and games)
        self.reused = 0

    def lend(self, tw, workers: int):
        """Seat workers for the table watcher ``tw`` (created with ``workers=0``): the running
        pool reset for its seats, or a new one; the watcher gets a loan whose ``close`` leaves
        the pool running."""
        from vision.parallel import RING_MARGIN, SeatWorkers

        specs = [(s.player, tuple(s.box), s.every, s.phase, tw.half_raise) for s in tw.seats]
        key = (tuple(specs), (tw.height, tw.width, 3), tw.pipeline + RING_MARGIN, workers)
        if self._pool is not None and key != self._key:
            self.close()
        if self._pool is None:
            self._pool = SeatWorkers(specs, workers, key[1], key[2])
            self._key = key
            self.started += 1
        else:
            self._pool.reset(specs[0][2] if specs else None)
            self.reused += 1
        return _Loan(self._pool)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None


class _Loan:
    """The pool as a table watcher uses it; closing the watcher returns it instead."""

    def __init__(self, pool):
        self._pool = pool

    def __getattr__(self, name):
        return getattr(self._pool, name)

    def close(self) -> None:
        pass

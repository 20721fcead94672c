"""When each utterance passed each step of hearing: the live latency's parts before the merge.

The listener (:class:`audio.listen.Listener`) marks an utterance when the onset detector
decides its end (``decided``; with the capture time the audio had been read to then,
``heard_to``), when no other seat can still start a word before it and it is handed to
the recogniser (``ready``), and when its words are read (``read``), with the CPU time
its enrolled voices (``prepare_cpu_ms``) and the speech engine (``decode_cpu_ms``) took
and what decided the words (``by``: ``enrollment``, ``early`` — a decoding made before the
end was decided, ``ListenParams.early_s`` — or the engine's name). Times are
``time.monotonic()`` seconds (one clock for every thread and process of the machine): the
live figures put them on the session clock. A shout's row is handed over with its event
(:meth:`take`, the hearing job's ``HeardEvents.timings``); nothing here changes what is
heard.
"""

from __future__ import annotations

import time

#: rows kept for shouts not yet taken (a replay never takes them): the oldest are dropped
MAX_ROWS = 256


class StageTimes:
    """Per utterance ``(channel, start sample)``: the moments it passed each step."""

    def __init__(self):
        self._open: dict[tuple[int, int], dict] = {}
        self._rows: list[dict] = []

    def mark(self, key: tuple[int, int], step: str, **extra) -> None:
        row = self._open.setdefault(key, {})
        row.setdefault(step, time.monotonic())
        if len(self._open) > MAX_ROWS:  # (never done: not expected; bounded all the same)
            del self._open[next(iter(self._open))]
        row.update(extra)

    def done(self, key: tuple[int, int], events: list[dict], **extra) -> None:
        """The utterance's events are made: its row goes with each shout among them (keyed by
        the shout's player and onset ``t``)."""
        row = self._open.pop(key, None)
        if row is None:
            return
        row["read"] = time.monotonic()
        row.update(extra)
        for ev in events:
            if ev.get("type") == "shout":
                self._rows.append(dict(row, player=ev.get("player"), t=ev.get("t"), t_end=ev.get("t_end")))
        if len(self._rows) > MAX_ROWS:
            del self._rows[: len(self._rows) - MAX_ROWS]

    def drop(self, keys) -> None:
        """Utterances that ended as no shout (the detector's, never handed over)."""
        for key in keys:
            self._open.pop(key, None)

    def take(self) -> list[dict]:
        rows, self._rows = self._rows, []
        return rows


class CpuClock:
    """Wall and this thread's CPU time of a step, in ms (``with CpuClock() as c: ...; c.cpu_ms``)."""

    def __enter__(self):
        self._c0, self._t0 = time.thread_time(), time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.cpu_ms = (time.thread_time() - self._c0) * 1000
        self.wall_ms = (time.perf_counter() - self._t0) * 1000
        return False

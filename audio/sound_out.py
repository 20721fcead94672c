"""Sound out, timed: a player for :class:`audio.voice.Voice` that keeps one output stream
open and records, for every utterance, when its first sample was handed to the stream
(``time.monotonic()``) and the latency the stream reports (PortAudio's output latency: the
time from a sample handed over to it leaving the device).

Why a stream kept open: ``sounddevice.play`` opens a stream per utterance (tens of ms each,
more under load) — the table would hear that on every verdict. Why blocking writes (no
callback): a device that is not paced by a clock (ALSA's ``null`` PCM, how the benchmark
measures on a machine without a sound card) would spin a callback at full speed; the write
is followed by a sleep to the utterance's end, so utterances follow each other as on a real
device (which blocks in the write anyway).
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np


class TimedOutput:
    """``player(x, rate)`` for :class:`audio.voice.Voice`; :attr:`handed` lists ``(monotonic
    time the first sample was handed to the stream, reported output latency in s, the
    utterance's duration in s)``."""

    def __init__(self, device=None, pace: bool = True, opener: Callable | None = None):
        self.device, self.pace = device, pace
        self._opener = opener
        self.stream = None
        self.rate: int | None = None
        self.handed: list[tuple[float, float, float]] = []  # (monotonic t, latency s, duration s)
        self.on_handed: Callable[[float, float, float], None] | None = None

    def _open(self, rate: int):
        if self._opener is not None:
            return self._opener(rate)
        import sounddevice as sd

        stream = sd.OutputStream(samplerate=rate, channels=1, dtype="float32", device=self.device, latency="low")
        stream.start()
        return stream

    def __call__(self, x: np.ndarray, rate: int) -> None:
        if self.stream is None or self.rate != rate:
            self.close()
            self.stream, self.rate = self._open(rate), rate
        data = np.ascontiguousarray(np.asarray(x, dtype=np.float32).reshape(-1, 1))
        t = time.monotonic()
        latency = float(self.stream.latency)
        duration = len(data) / rate
        self.handed.append((t, latency, duration))
        if self.on_handed is not None:
            self.on_handed(t, latency, duration)
        self.stream.write(data)
        if self.pace:
            rest = t + len(data) / rate - time.monotonic()
            if rest > 0:
                time.sleep(rest)

    def close(self) -> None:
        if self.stream is not None:
            try:
                self.stream.stop()
                self.stream.close()
            except Exception:
                pass
            self.stream = None


def timed_output(device=None) -> tuple[TimedOutput | None, str | None]:
    """A :class:`TimedOutput` on the default (or given) output device, or None and why."""
    try:
        import sounddevice as sd

        sd.query_devices(device if device is not None else None, kind="output")
    except Exception as exc:
        return None, f"no sound output ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
    return TimedOutput(device), None

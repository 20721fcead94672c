"""Speech heard by WebRTC's voice-activity detector, per channel, as sample runs: the onset
detector's second opinion on a run too soft to reach its trigger in noise
(``audio.onset.OnsetParams.vad_trigger_db``).

Why WebRTC's: measured beside the project's energy detector and silero's ONNX model on the
240 real digit shouts at white noise 10 dB (``benchmarks/bench_vad.py``, docs/hearing.md), it
found 239 (the energy detector 224), gave no detection on a minute of noise alone, and costs
0.0002 CPU-s per second of audio. It is fixed-point C: the same flags on every computer.
Aggressiveness 2 (of 0-3), 30 ms frames of 16-bit PCM at 8/16/32/48 kHz.
"""

from __future__ import annotations

import numpy as np

#: WebRTC's frame (s): 10, 20 or 30 ms; 30 gives its surest decisions
FRAME_S = 0.030
#: 0 (least) to 3 (most aggressive at calling a frame not speech); 2 found 239 of 240
AGGRESSIVENESS = 2
RATES = (8000, 16000, 32000, 48000)


def available() -> bool:
    try:
        import webrtcvad  # noqa: F401
    except ImportError:
        return False
    return True


class SpeechRuns:
    """Per channel, which of the samples fed so far WebRTC's VAD calls speech (30 ms frames).
    ``speech(k, a, b)``: how many samples of ``a..b`` (absolute sample indices from the first
    block) lie in frames called speech; what has not yet filled a frame is not known (counted
    as not speech: at most 30 ms late)."""

    def __init__(self, channels: int, rate: int):
        import webrtcvad

        if rate not in RATES:
            raise ValueError(f"WebRTC VAD takes 8, 16, 32 or 48 kHz, not {rate} Hz")
        self.rate, self.frame = rate, int(round(FRAME_S * rate))
        self._vads = [webrtcvad.Vad(AGGRESSIVENESS) for _ in range(channels)]
        self._left = np.zeros((0, channels), np.int16)
        self._start: int | None = None  # the first sample's index
        self._done = 0  # frames decided
        self._flags = [bytearray() for _ in range(channels)]  # 1 per decided frame (speech)

    def feed(self, index: int, x: np.ndarray) -> None:
        """Samples ``x[n, channels]`` (float, full scale 1) starting at sample ``index``."""
        if self._start is None:
            self._start = index
        pcm = (np.clip(x, -1.0, 1.0) * 32767.0).astype(np.int16)
        buf = np.concatenate([self._left, pcm])
        n = len(buf) // self.frame
        for m in range(n):
            part = buf[m * self.frame : (m + 1) * self.frame]
            for k, vad in enumerate(self._vads):
                self._flags[k].append(1 if vad.is_speech(part[:, k].tobytes(), self.rate) else 0)
        self._done += n
        self._left = buf[n * self.frame :]

    def speech(self, k: int, a: int, b: int) -> int:
        """Samples of ``a..b`` in frames of channel ``k`` called speech."""
        if self._start is None or b <= a:
            return 0
        fa = max(0, (a - self._start) // self.frame)
        fb = min(self._done, -(-(b - self._start) // self.frame))
        total = 0
        for m in range(fa, fb):
            if self._flags[k][m]:
                lo = self._start + m * self.frame
                total += max(0, min(b, lo + self.frame) - max(a, lo))
        return total

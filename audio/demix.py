"""Cross-talk cancellation for close microphones: each seat's channel without its neighbours.

Why: at a reaction game everybody shouts within a few hundred milliseconds. Each close mic
also picks up the other seats (about -10 dB, a few ms late), so a seat's channel carries
its own word *plus* the neighbours' words: the onset detector starts a second player's word
late under the first player's leakage, and the recogniser hears two words at once.

How: the leakage is linear. In the short-time Fourier domain, channel ``i`` is
``X_i(f) = S_i(f) + sum_j A_ij(f) S_j(f)`` where ``A_ij(f)`` is the transfer from seat ``j``'s
mouth to mic ``i`` relative to mic ``j`` (a delay of 2-4 ms and an attenuation fit easily
inside one STFT frame). ``A_ij`` is measured where seat ``j`` speaks alone (its channel far
above every other, see :class:`DemixParams`): ``A_ij = sum X_i X_j* / sum |X_j|^2``. Then
``S = A^-1 X`` per frequency bin. The estimate comes from the recording itself (replay) or
from the calibration recording, where every seat speaks alone in turn.

A seat that never speaks alone gets no estimate (its leakage is left in the others); a
table whose "leakage" is louder than ``max_leak_db`` is not a close-mic table (one room
microphone, or mics that are swapped) and is not demixed at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator

import numpy as np
from scipy.signal import istft, stft

from audio.capture import Block
from referee.errors import MediaError


@dataclass(frozen=True)
class DemixParams:
    """Named thresholds of the leakage estimate and the demixing."""

    #: STFT frame in samples; the leakage delay must be well inside it (512 = 32 ms at 16 kHz).
    nperseg: int = 512
    #: STFT hop in samples (75 % overlap: exact reconstruction with the Hann window).
    hop: int = 128
    #: a frame is seat j's solo when its channel is this many dB above every other channel.
    solo_db: float = 8.0
    #: ... and this many dB above the channel's median frame level (speech, not room noise).
    active_db: float = 10.0
    #: fewer solo frames than this (about 0.1 s at 16 kHz) leaves a seat's leakage unestimated.
    min_solo_frames: int = 12
    #: a median leakage louder than this is not a close-mic table: no demixing.
    max_leak_db: float = -3.0
    #: samples per processing chunk (bounded memory on long sessions; latency of the offline pass).
    chunk: int = 16000 * 20


@dataclass(frozen=True)
class Leakage:
    """The measured transfer ``A[f, i, j]`` from seat j to mic i (``A[f, j, j] = 1``)."""

    matrix: np.ndarray
    solo_frames: tuple[int, ...]
    params: DemixParams = field(default_factory=DemixParams)

    @property
    def channels(self) -> int:
        return self.matrix.shape[1]

    def leak_db(self) -> np.ndarray:
        """Median leakage per (mic, seat) pair in dB over frequency (0 on the diagonal)."""
        mag = np.median(np.abs(self.matrix), axis=0)
        return 20 * np.log10(np.maximum(mag, 1e-9))

    @property
    def usable(self) -> bool:
        """At least one seat measured, and every measured leak below ``max_leak_db``."""
        if not any(n >= self.params.min_solo_frames for n in self.solo_frames):
            return False
        off = self.leak_db()[~np.eye(self.channels, dtype=bool)]
        return bool(np.all(off <= self.params.max_leak_db))

    def demix(self, x: np.ndarray) -> np.ndarray:
        """``x[samples, channels]`` -> the seats' own voices, same shape and dtype."""
        inv = np.linalg.inv(self.matrix)  # (F, C, C)
        p = self.params

        def run(seg: np.ndarray) -> np.ndarray:
            X = _stft(seg, p)
            Y = np.einsum("fij,jft->ift", inv, X)
            _, y = istft(Y, nperseg=p.nperseg, noverlap=p.nperseg - p.hop)
            return y.T[: len(seg)]

        return _chunked(x, p, run).astype(x.dtype, copy=False)


def _stft(x: np.ndarray, p: DemixParams) -> np.ndarray:
    _, _, X = stft(x.T.astype(np.float64), nperseg=p.nperseg, noverlap=p.nperseg - p.hop)
    return X  # (C, F, T)


def _chunked(x: np.ndarray, p: DemixParams, run) -> np.ndarray:
    """Apply ``run`` to overlapping chunks and keep each chunk's middle (no seams)."""
    n = len(x)
    if n <= p.chunk:
        return run(x)
    pad = 2 * p.nperseg
    out = np.empty_like(x, dtype=np.float64)
    for a in range(0, n, p.chunk):
        b = min(n, a + p.chunk)
        lo, hi = max(0, a - pad), min(n, b + pad)
        y = run(x[lo:hi])
        out[a:b] = y[a - lo : a - lo + (b - a)]
    return out


def estimate(x: np.ndarray, params: DemixParams | None = None) -> Leakage:
    """Measure the leakage of ``x[samples, channels]`` from the frames where one seat speaks alone."""
    p = params or DemixParams()
    c = x.shape[1]
    f_bins = p.nperseg // 2 + 1
    cross = np.zeros((f_bins, c, c), complex)
    power = np.zeros((f_bins, c))
    solo = np.zeros(c, int)
    for a in range(0, len(x), p.chunk):
        X = _stft(x[a : a + p.chunk], p)
        level = 10 * np.log10((np.abs(X) ** 2).sum(axis=1) + 1e-12)  # (C, T)
        floor = np.median(level, axis=1, keepdims=True)
        for j in range(c):
            others = np.delete(level, j, axis=0).max(axis=0) if c > 1 else np.full(level.shape[1], -np.inf)
            mask = (level[j] - others >= p.solo_db) & (level[j] - floor[j] >= p.active_db)
            solo[j] += int(mask.sum())
            xj = X[j][:, mask]
            power[:, j] += (np.abs(xj) ** 2).sum(axis=1)
            for i in range(c):
                cross[:, i, j] += (X[i][:, mask] * xj.conj()).sum(axis=1)
    matrix = np.zeros_like(cross)
    for j in range(c):
        if solo[j] >= p.min_solo_frames:
            matrix[:, :, j] = cross[:, :, j] / np.maximum(power[:, j], 1e-12)[:, None]
        matrix[:, j, j] = 1.0
    return Leakage(matrix=matrix, solo_frames=tuple(int(n) for n in solo), params=p)


class DemixedSource:
    """A recording's blocks with cross-talk cancelled (offline: reads the file, then demixes).

    Keeps the source's clock: blocks carry the same sample ``index``, ``rate`` and ``offset``.
    ``leakage`` tells what was measured; when it is not usable the audio passes unchanged.
    """

    def __init__(self, source, params: DemixParams | None = None):
        self.rate = source.rate
        self.channels = source.channels
        self._source = source
        self.error: MediaError | None = None
        blocks: list[Block] = []
        try:
            for b in source:
                blocks.append(b)
        except MediaError as exc:  # keep what was readable; the error comes after those blocks
            self.error = exc
        self._first = blocks[0].index if blocks else 0
        self._offset = blocks[0].offset if blocks else 0.0
        self._block = len(blocks[0].data) if blocks else 1
        data = np.concatenate([b.data for b in blocks]) if blocks else np.zeros((0, self.channels), np.float32)
        self.leakage = estimate(data, params) if len(data) and self.channels > 1 else None
        self.applied = bool(self.leakage is not None and self.leakage.usable)
        self._data = self.leakage.demix(data) if self.applied else data
        #: the loudest leak left after demixing (dB, measured on the demixed audio): what the
        #: onset detector must still allow for; None when nothing was demixed or measured.
        self.residual_db: float | None = None
        if self.applied:
            residual = estimate(self._data, params)
            measured = [j for j, n in enumerate(residual.solo_frames) if n >= residual.params.min_solo_frames]
            leak = residual.leak_db()
            values = [leak[i, j] for j in measured for i in range(self.channels) if i != j]
            self.residual_db = float(max(values)) if values else None

    @property
    def warning(self) -> str | None:
        """The wrapped source's warning (e.g. a truncated file), known once it was read."""
        return getattr(self._source, "warning", None)

    def __iter__(self) -> Iterator[Block]:
        for k in range(0, len(self._data), self._block):
            yield Block(self._first + k, self._data[k : k + self._block], self.rate, self._offset)
        if self.error is not None:
            raise self.error


def blocks_of(x: np.ndarray, rate: int, block: int, index: int = 0, offset: float = 0.0) -> Iterable[Block]:
    """Blocks of an array on the session clock (tests, benchmarks)."""
    for k in range(0, len(x), block):
        yield Block(index + k, x[k : k + block], rate, offset)

"""Cross-talk cancellation for close microphones: each seat's channel without its neighbours.

Why: at a reaction game everybody shouts within a few hundred milliseconds. Each close mic
also picks up the other seats (about -10 dB, a few ms late), so a seat's channel carries
its own word *plus* the neighbours' words: the onset detector starts a second player's word
late under the first player's leakage, and the recogniser hears two words at once.

How: the leakage is linear. Mic ``i`` hears ``x_i = s_i + sum_j h_ij * s_j`` where ``h_ij`` is
a short impulse response (the path from seat ``j``'s mouth to mic ``i`` relative to mic ``j``:
a delay of a few ms and an attenuation, plus early reflections).

1. *Measure* ``h_ij`` where seat ``j`` speaks alone (its channel far above every other, see
   :class:`DemixParams`): least squares of ``x_i`` on the last ``taps`` samples of ``x_j``,
   in the time domain; then refit on the solo frames where every other mic is the
   predicted leak plus little else (``clean_db``), on the taps around the strongest one
   (``before_peak``/``after_peak``; default: that tap alone, the direct path). (The earlier
   per-frequency-bin estimate in 32 ms STFT frames left -11 dB of leakage on the demo's
   worst channel: a 4 ms delay is too long for the one-multiplication-per-bin model of a
   32 ms frame; this leaves about -21 dB.)
2. *Invert* ``x = (I + H) s`` exactly, per frequency of one long FFT per ``block`` (a
   convolution is a multiplication there when the FFT is long enough; ``pad`` covers the
   inverse's ringing). Iterating ``s = x - H s`` instead converges too slowly: three
   neighbours at -10 dB sum to a loop gain near 1.

The estimate comes from the recording itself (replay) or from the calibration recording,
where every seat speaks alone in turn. A seat that never speaks alone gets no estimate (its
leakage is left in the others); a table whose "leakage" is louder than ``max_leak_db`` is not
a close-mic table (one room microphone, or mics that are swapped) and is not demixed at all.
Synthetic voices of the same word are correlated with each other, which biases step 1 low
by 1-2 dB on the demo; real voices much less.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, NamedTuple

import numpy as np
from scipy.signal import stft

from audio import kernels
from audio.capture import Block
from session.errors import MediaError
from session.params import check_ranges


@dataclass(frozen=True)
class DemixParams:
    """Named thresholds of the leakage estimate and the demixing (sample counts at 16 kHz).
    How some were chosen: docs/settings.md, ``DemixParams``."""

    #: frame (samples) of the solo test; 512 = 32 ms at 16 kHz. Longer: fewer, coarser solo frames.
    nperseg: int = 512
    #: step (samples) between solo-test frames; each solo frame lends its middle ``hop`` samples.
    hop: int = 128
    #: a frame is seat j's solo when its channel is this many dB above every other channel.
    solo_db: float = 8.0
    #: ... and this many dB above the channel's median frame level (speech, not room noise).
    active_db: float = 10.0
    #: fewer solo frames than this (about 0.1 s at 16 kHz) leaves a seat's leakage unestimated.
    min_solo_frames: int = 12
    #: a median leakage louder than this is not a close-mic table: no demixing.
    max_leak_db: float = -3.0
    #: length of each measured impulse response (96 = 6 ms at 16 kHz: seats up to ~2 m apart).
    taps: int = 96
    #: samples per inversion block (one FFT each) and per estimation pass (bounded memory).
    chunk: int = 1 << 16
    #: context on each side of an inversion block: the inverse filter's ringing dies within it.
    pad: int = 8192
    #: each response is refitted on taps from this many before its strongest tap (the direct
    #: path)...
    before_peak: int = 0
    #: ... to this many after it (early reflections). More: reflections cancelled too, but with
    #: little solo speech the free taps fit other seats' words and leave them on the channel.
    after_peak: int = 0
    #: refits keeping only the solo frames where every other mic is the measured leak (another
    #: seat's own word under the solo test spoils a fit). Each pass: one more estimation pass.
    clean_passes: int = 2
    #: ... within this many dB of anything else. Lower: cleaner frames, fewer of them.
    clean_db: float = 10.0
    #: least-squares regularisation, relative to the mean regressor power (keeps silence at 0).
    ridge: float = 1e-6

    def __post_init__(self):
        check_ranges(self, at_least_one=("nperseg", "hop", "min_solo_frames", "taps", "chunk"),
                     non_negative=("pad", "before_peak", "after_peak", "clean_passes", "solo_db", "active_db",
                                   "ridge"),
                     positive=("clean_db",), finite=("max_leak_db",))


@dataclass(frozen=True)
class Leakage:
    """The measured impulse responses ``fir[i, j]`` from seat j to mic i (zero on the diagonal)."""

    fir: np.ndarray  # (C, C, taps)
    solo_frames: tuple[int, ...]
    params: DemixParams = field(default_factory=DemixParams)

    @property
    def channels(self) -> int:
        return self.fir.shape[0]

    @property
    def matrix(self) -> np.ndarray:
        """The transfer ``A[f, i, j]`` (``A[f, j, j] = 1``) on the ``nperseg``-point frequency grid."""
        a = np.moveaxis(np.fft.rfft(self.fir, self.params.nperseg, axis=2), 2, 0)
        return a + np.eye(self.channels)[None]

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

    def transfer(self, size: int) -> np.ndarray:
        """The transfer ``A[f, i, j]`` (``A[f, j, j] = 1``) on the ``size``-point FFT grid."""
        return np.moveaxis(np.fft.rfft(self.fir, size, axis=2), 2, 0) + np.eye(self.channels)[None]

    def demix(self, x: np.ndarray) -> np.ndarray:
        """``x[samples, channels]`` -> the seats' own voices, same shape and dtype."""
        p, c, n = self.params, self.channels, len(x)
        out = np.empty(x.shape, np.float64)
        # The transfer's inverse per FFT size (the blocks share one but the ends), computed
        # once and applied per block: one solve per block against the same matrices cost ~10x
        # the product (the cancelled audio equal to the solve's to ~1e-15, float32 out). Both
        # elementwise (audio.kernels): the same bits on every CPU, BLAS's would not be.
        # scipy's FFT: numpy's took ~2x as long on these (size, C) blocks.
        from scipy import fft as sfft

        inverse: dict[int, np.ndarray] = {}
        for a in range(0, n, p.chunk):
            b = min(n, a + p.chunk)
            lo, hi = max(0, a - p.pad), min(n, b + p.pad)
            seg = x[lo:hi].astype(np.float64)
            size = 1 << int(np.ceil(np.log2(len(seg) + p.taps)))
            X = sfft.rfft(seg, size, axis=0)  # (F, C)
            if size not in inverse:
                inverse[size] = kernels.inverse(self.transfer(size))
            S = kernels.apply(inverse[size], X)
            y = sfft.irfft(S, size, axis=0)
            out[a:b] = y[a - lo : b - lo]
        return out.astype(x.dtype, copy=False)


def _frame_power(x: np.ndarray, p: DemixParams) -> np.ndarray:
    """Per channel and frame, the power summed over the frequencies of :func:`scipy.signal.stft`
    (``nperseg``, Hann window, ``hop`` apart, zero-padded ends, one-sided, scaled by the window
    sum): ``(C, T)``. Without the FFTs by Parseval: over the one-sided bins it is half of
    ``nperseg`` times the windowed frame's energy plus the DC and Nyquist bins' powers,
    each a windowed sum of the frame — three products of each ``hop``-sample stretch with the
    window's quarters (equal to the STFT's sum to ~1e-15 relative; the solo test only
    compares levels in dB against its thresholds). Where ``hop`` does not divide an even
    ``nperseg``, or the recording is shorter than one frame, the STFT itself."""
    n_, hop = p.nperseg, p.hop
    xt = x.T.astype(np.float64)
    if n_ % 2 or n_ % hop or len(x) < n_:  # (scipy shortens the frame to a shorter recording)
        _, _, X = stft(xt, nperseg=n_, noverlap=n_ - hop)
        return (np.abs(X) ** 2).sum(axis=1)
    from scipy.signal import get_window

    win = get_window("hann", n_)
    scale = 1.0 / win.sum()
    c, n = xt.shape
    half = n_ // 2
    frames = (n + 2 * half - n_) // hop + 1 + (1 if (n + 2 * half - n_) % hop else 0)
    total = (frames - 1) * hop + n_
    padded = np.zeros((c, total))
    padded[:, half : half + n] = xt
    q = n_ // hop
    sign = np.where(np.arange(n_) % 2, -1.0, 1.0)
    weights = np.stack([win * win, win, win * sign])  # (3, nperseg): energy, DC, Nyquist
    parts = weights.reshape(3, q, hop)  # each frame = q stretches of hop samples
    stretches = padded.reshape(c, -1, hop)
    sq = stretches * stretches
    energy = sum(sq[:, m : m + frames] @ parts[0, m] for m in range(q))
    dc = sum(stretches[:, m : m + frames] @ parts[1, m] for m in range(q))
    nyq = sum(stretches[:, m : m + frames] @ parts[2, m] for m in range(q))
    return scale * scale * (n_ * energy + dc * dc + nyq * nyq) / 2


def _solo_frames(x: np.ndarray, p: DemixParams) -> list[np.ndarray]:
    """Per seat: the STFT frames (centred on ``t * hop``) where its channel stands above all others."""
    c = x.shape[1]
    level = 10 * np.log10(_frame_power(x, p) + 1e-12)  # (C, T)
    floor = np.median(level, axis=1, keepdims=True)
    out = []
    for j in range(c):
        others = np.delete(level, j, axis=0).max(axis=0) if c > 1 else np.full(level.shape[1], -np.inf)
        out.append(np.flatnonzero((level[j] - others >= p.solo_db) & (level[j] - floor[j] >= p.active_db)))
    return out


def solo_frames(x: np.ndarray, params: DemixParams | None = None) -> list[np.ndarray]:
    """Per seat of ``x[samples, channels]``: the frames where it speaks alone (the test of
    :func:`estimate`, :func:`speech_levels` and :func:`fit_report`; give it to them as
    ``solo`` when several look at the same recording: one STFT instead of one each)."""
    return _solo_frames(x, params or DemixParams())


def _samples_of(frames: np.ndarray, p: DemixParams, n: int) -> np.ndarray:
    """The middle ``hop`` samples of each frame (frames overlap: each sample counted once)."""
    idx = (frames[:, None] * p.hop + np.arange(-(p.hop // 2), p.hop - p.hop // 2)[None]).ravel()
    return idx[(idx >= p.taps) & (idx < n)]


def _fit(xf: np.ndarray, j: int, idx: np.ndarray, p: DemixParams) -> np.ndarray:
    """Least-squares responses (C, taps) from seat j to every mic over samples ``idx``."""
    c, k = xf.shape[1], p.taps
    gram, cross = np.zeros((k, k)), np.zeros((k, c))
    for a in range(0, len(idx), p.chunk):
        i = idx[a : a + p.chunk]
        lagged = xf[i[:, None] - np.arange(k)[None], j]  # (n, taps): x_j[n - tap]
        gram += lagged.T @ lagged
        cross += lagged.T @ xf[i]
    gram += p.ridge * max(np.trace(gram) / k, 1e-20) * np.eye(k)
    h = np.linalg.solve(gram, cross)  # every tap free
    out = np.zeros((c, k))
    for i in range(c):
        if i == j:
            continue
        peak = int(np.argmax(np.abs(h[:, i])))
        keep = np.arange(max(0, peak - p.before_peak), min(k, peak + p.after_peak + 1))
        out[i, keep] = np.linalg.solve(gram[np.ix_(keep, keep)], cross[keep, i])
    return out


def _clean(xf: np.ndarray, j: int, frames: np.ndarray, h: np.ndarray, p: DemixParams) -> np.ndarray:
    """The frames of ``frames`` where every other mic is seat j's predicted leak and little else."""
    n, c = xf.shape
    ok = np.ones(len(frames), bool)
    half = p.nperseg // 2
    starts = frames * p.hop - half
    inside = (starts >= 0) & (starts + p.nperseg <= n)  # whole frames: summed as views, below
    for i in range(c):
        if i == j:
            continue
        pred = _predicted(xf[:, j], h[i])
        res = xf[:, i] - pred
        leak, left = _frame_sums(pred * pred, starts, inside, p), _frame_sums(res * res, starts, inside, p)
        ok &= left <= leak * 10 ** (-p.clean_db / 10)
    return frames[ok]


def _predicted(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``np.convolve(x, h)[:len(x)]``; a response of one tap (the default refit keeps only the
    direct path) as a shifted product: the same numbers (a sum of one product and zeros),
    without the 96-tap convolution's cost."""
    taps = np.flatnonzero(h)
    if len(taps) > 1:
        return np.convolve(x, h)[: len(x)]
    out = np.zeros(len(x))
    if len(taps):
        k = int(taps[0])
        out[k:] = x[: max(0, len(x) - k)] * h[k]
    return out


def _predicted_at(x: np.ndarray, h: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``np.convolve(x, h)[idx]`` for ``idx >= len(h) - 1``: only the samples asked for (the fit
    check reads the solo samples alone) and only the response's nonzero taps (the default
    refit keeps one: the direct path) — a gather per tap instead of a convolution of the whole
    recording (the fit check's 12 of them cost ~0.3 CPU-s on the demo)."""
    out = np.zeros(len(idx))
    for k in np.flatnonzero(h):
        out += h[k] * x[idx - k]
    return out


def _frame_sums(sq: np.ndarray, starts: np.ndarray, inside: np.ndarray, p: DemixParams) -> np.ndarray:
    """``np.sum(sq[a:b])`` over each frame (``starts``, ``nperseg`` long, cut at the ends): the
    whole frames summed as rows of a strided view (numpy sums each row pairwise, as it sums a
    slice: the same numbers), the cut ones one by one."""
    out = np.empty(len(starts))
    n = len(sq)
    if inside.any():
        view = np.lib.stride_tricks.sliding_window_view(sq, p.nperseg)
        out[inside] = view[starts[inside]].sum(axis=1)
    for m in np.flatnonzero(~inside):
        a, b = max(0, int(starts[m])), min(n, int(starts[m]) + p.nperseg)
        out[m] = float(np.sum(sq[a:b]))
    return out


def estimate(x: np.ndarray, params: DemixParams | None = None, solo: list[np.ndarray] | None = None) -> Leakage:
    """Measure the leakage of ``x[samples, channels]`` from the samples where one seat speaks
    alone (``solo``: :func:`solo_frames` of ``x`` with these params, when already known)."""
    p = params or DemixParams()
    n, c = x.shape
    xf = x.astype(np.float64)
    fir = np.zeros((c, c, p.taps))
    solo = _solo_frames(x, p) if solo is None else solo
    counts = []
    for j in range(c):
        frames = solo[j]
        if len(frames) >= p.min_solo_frames:
            fir[:, j] = _fit(xf, j, _samples_of(frames, p, n), p)
            for _ in range(p.clean_passes):
                clean = _clean(xf, j, solo[j], fir[:, j], p)
                if len(clean) < p.min_solo_frames or len(clean) == len(frames):
                    break
                frames = clean
                fir[:, j] = _fit(xf, j, _samples_of(frames, p, n), p)
        counts.append(int(len(frames)))
    return Leakage(fir=fir, solo_frames=tuple(counts), params=p)


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
        self._params = params
        self._raw = np.concatenate([b.data for b in blocks]) if blocks else np.zeros((0, self.channels), np.float32)
        #: where the leakage was measured: "session" (this recording) or a calibration recording
        self.measured_on = "session"
        self._measure = bool(len(self._raw)) and self.channels > 1
        self._solo: tuple[DemixParams, list[np.ndarray]] | None = None
        # The session's own leakage and speech levels are measured when first asked for: a
        # calibration recording's (audio.hearing.use_calibration_leakage) usually replaces
        # them before, and then they are never needed (the same values either way).
        self._session_leakage = True
        self._speech_db: list[float | None] | None | bool = False
        self._data = None
        self._residual: float | None | bool = False
        #: channel -> the samples it was moved earlier by (:meth:`realign`)
        self.realigned: dict[int, int] = {}

    def solo_frames(self, params: DemixParams | None = None) -> list[np.ndarray]:
        """:func:`solo_frames` of the raw samples (computed once per ``params``: the leakage,
        the speech levels and every fit check of a calibration's leakage look at the same)."""
        p = params or self._params or DemixParams()
        if self._solo is None or self._solo[0] != p:
            self._solo = (p, _solo_frames(self._raw, p))
        return self._solo[1]

    @property
    def leakage(self) -> Leakage | None:
        """The leakage cancelled (None: nothing measured)."""
        if self._session_leakage:
            self._use(estimate(self._raw, self._params, solo=self.solo_frames()) if self._measure else None)
        return self._leakage

    @property
    def applied(self) -> bool:
        """Whether the cross-talk is cancelled (a usable leakage)."""
        if self._session_leakage:
            self.leakage
        return self._applied

    @property
    def speech_db(self) -> list[float | None] | None:
        """Each seat's speech level at its microphone (:func:`speech_levels`), measured where
        the leakage is (the calibration recording's replaces this session's estimate)."""
        if self._speech_db is False:
            self._speech_db = speech_levels(self._raw, self._params, solo=self.solo_frames()) if self._measure else None
        return self._speech_db

    @speech_db.setter
    def speech_db(self, levels: list[float | None] | None) -> None:
        self._speech_db = levels

    def _use(self, leakage: Leakage | None) -> None:
        self._session_leakage = False
        self._leakage = leakage
        self._applied = bool(leakage is not None and leakage.usable)
        self._data = None  # demixed on first use (a leakage measured elsewhere may replace this one)
        self._residual = False

    def cancel_unreferenced(self, fingerprint: Leakage, seats: list[tuple[int, np.ndarray | None]],
                            cancel: Callable) -> None:
        """After cancelling, also subtract each ``(seat, where)``'s voice from the other
        channels by its leak paths in ``fingerprint`` (the calibration's, before any pair was
        dropped): a seat whose own channel is dead (``where``: those samples) or unfit
        (``where`` None: everywhere), with ``cancel``
        (:func:`audio.unreferenced.cancel_unreferenced`, given by the caller so this module
        does not import that one, which builds on it); a third item ``own``: where the seat's
        channel carries its estimated voice instead (its dead samples)."""
        self._unreferenced = (fingerprint, list(seats), cancel)
        self._data = None
        self._residual = False

    def use_leakage(self, leakage: Leakage, measured_on: str) -> None:
        """Cancel with ``leakage`` measured elsewhere (the calibration recording) instead."""
        if leakage.channels != self.channels:
            raise MediaError(f"the calibration recording has {leakage.channels} channel(s), the session {self.channels}")
        self.measured_on = measured_on
        self._use(leakage)

    @property
    def raw(self) -> np.ndarray:
        """The samples as read (before cancellation)."""
        return self._raw

    def scale(self, corrections_db: list[float]) -> None:
        """Each channel of :attr:`raw` scaled by its correction (dB, ``audio.gains``: the
        microphones brought to one speech level) before anything is measured or cancelled."""
        self._raw = scaled(self._raw, corrections_db)
        self._solo = None
        self._data = None
        self._residual = False
        self._speech_db = False

    def realign(self, k: int, lag: int) -> None:
        """Channel ``k`` moved ``lag`` samples earlier in :attr:`raw` (:func:`shifted`) before
        anything is cancelled: it was that late against the others (:func:`realign_unfit`)."""
        self._raw = shifted(self._raw, k, lag)
        self.realigned[k] = lag
        self._solo = None
        self._data = None
        self._residual = False

    @property
    def data(self) -> np.ndarray:
        if self._data is None:
            data = self.leakage.demix(self._raw) if self.applied else self._raw
            fingerprint, seats, cancel = getattr(self, "_unreferenced", (None, (), None))
            for seat, where, *own in seats if self.applied else ():
                data = cancel(data, fingerprint, seat, where, used=self.leakage, own=own[0] if own else None)
            self._data = data
        return self._data

    @property
    def residual_db(self) -> float | None:
        """The loudest leak left after demixing (dB, measured on the demixed audio): what the
        onset detector must still allow for; None when nothing was demixed or measured."""
        if self._residual is False:
            self._residual = residual_db(self.data, self._params) if self.applied else None
        return self._residual

    @residual_db.setter
    def residual_db(self, value: float | None) -> None:
        """The residual measured elsewhere (the calibration recording cancelled with its own
        leakage, ``audio.hearing.use_calibration_leakage``): not refitted on this session."""
        self._residual = value

    @property
    def noise_ratio_db(self) -> float | None:
        """The seats' median speech-to-noise ratio (dB, :func:`noise_ratio_db`) of the
        cancelled audio, or None (nothing cancelled, no speech level known)."""
        if not self.applied:
            return None
        return noise_ratio_db(self.data, self.speech_db)

    @property
    def warning(self) -> str | None:
        """The wrapped source's warning (e.g. a truncated file), known once it was read."""
        return getattr(self._source, "warning", None)

    def __iter__(self) -> Iterator[Block]:
        data = self.data
        for k in range(0, len(data), self._block):
            yield Block(self._first + k, data[k : k + self._block], self.rate, self._offset)
        if self.error is not None:
            raise self.error


class StreamingDemixer:
    """Live cross-talk cancellation, one block at a time (``update(block) -> block``).

    Why a recursion: live input cannot wait for a long FFT. Each leak arrives at least
    ``step`` samples late (the shortest measured delay), so within a run of ``step`` samples
    the seats' voices follow from the mics and the voices already recovered:
    ``s[n] = (I + H_0)^-1 (x[n] - sum_k H_k s[n - k])`` — exact, causal, no added latency.
    The leakage comes from a recording where each seat spoke alone (the calibration
    recording). Cost: one small matrix product per measured delay per ``step`` samples.
    """

    def __init__(self, leakage: Leakage, max_step: int = 1024):
        fir = leakage.fir
        c, k = fir.shape[0], fir.shape[2]
        self.channels, self.k = c, k
        self.taps = [(lag, fir[:, :, lag].T.copy()) for lag in range(1, k) if np.any(fir[:, :, lag])]
        self.inv0 = np.linalg.inv(np.eye(c) + fir[:, :, 0]).T
        self.step = min([lag for lag, _ in self.taps] + [max_step])
        self._past = np.zeros((k, c))  # the last k recovered samples

    def update(self, block: Block, dead: Iterable[int] = ()) -> Block:
        """``dead``: channels whose microphone hears nothing in this block (muted, unplugged):
        the leaks into them are not cancelled (their output stays silent, and no made-up
        negative copy of the neighbours' leak is fed back into the others), as the replay's
        fit check drops the leak pairs into a muted channel (:func:`check_fit`)."""
        x = np.asarray(block.data, np.float64)
        n, k = len(x), self.k
        buf = np.concatenate([self._past, np.empty((n, self.channels))])
        keep = None
        dead = [d for d in dead if 0 <= d < self.channels]
        if dead:
            keep = np.ones(self.channels)
            keep[dead] = 0.0
        for pos in range(0, n, self.step):
            m = min(self.step, n - pos)
            acc = x[pos : pos + m].copy()
            for lag, h in self.taps:
                acc -= buf[k + pos - lag : k + pos - lag + m] @ h
            buf[k + pos : k + pos + m] = acc @ self.inv0 if keep is None else (acc @ self.inv0) * keep
        self._past = buf[-k:]
        return Block(block.index, buf[k:].astype(block.data.dtype, copy=False), block.rate, block.offset)


def live(source: Iterable, leakage: Leakage, unreferenced=None) -> Iterator:
    """``source``'s blocks with cross-talk cancelled as they come (device statuses pass through).
    With ``unreferenced`` (:class:`audio.unreferenced.StreamingUnreferenced`), a seat whose raw channel is dead is
    also cancelled from the others by its fingerprint (its blocks may then come later, and
    the last ones after the source ends)."""
    demixer = StreamingDemixer(leakage)
    for item in source:
        if not isinstance(item, Block):
            yield item
        elif unreferenced is None:
            yield demixer.update(item)
        else:
            yield from unreferenced.update(item, demixer.update(item, unreferenced.silent(item)))
    if unreferenced is not None:
        yield from unreferenced.flush()


#: dB added to the leak measured after cancellation (the measure is an estimate)
RESIDUAL_MARGIN_DB = 3.0
#: after cancellation, a seat's run may be this far below the others' median and still be its
#: own (the residual leak is 16-22 dB down on the demo; -10 and 0 misplaced more onsets there)
DEMIXED_DOMINANCE_DB = -6.0
#: after cancellation, the onset walk back judges a frame the seat's own sound against what the
#: neighbours can *leave* on its channel (``OnsetParams.refine_leak_db``): this many dB over the
#: loudest other channel minus the allowed leak (``crosstalk_db``: the measured residual and its
#: margin), and over the median of the others not speaking. Measured on the demo
#: (``benchmarks/bench_demo_audio.py --variants``, onsets within 5 ms of the truth, unchanged /
#: babble 20 dB): off (the others' median) 27 / 22 of 35; 0 dB 32 / 25; **1 dB 32 / 26**; 2 dB
#: 32 / 25 (and one more onset moved with ben muted); 4 dB 32 / 27 but aki card 2 6 ms late;
#: 6 dB aki card 2 20 ms late. With ``OnsetParams.refine_from_level`` (also set here, on
#: cancelled audio only) at 1 dB: 33 / 30 of 35, ben muted 0 of 26 onsets moved > 5 ms from the
#: unchanged demo's (was 4). Measured and not kept: the loudest other taken over the last 3 ms
#: (the leak's delay between mics): chie card イカタコ mended but aki card 2 6 ms late, ben muted 1 moved.
DEMIXED_LEAK_DB = 1.0


@dataclass(frozen=True)
class NoisyTriggerParams:
    """The onset detector's trigger lowered in a noisy room (offline replay, where the whole
    recording is known): with noise 10 dB under the speech a word's soft start never reaches
    ``OnsetParams.trigger_db``. Each seat's speech-to-noise ratio is its calibration speech
    level (:func:`speech_levels`) over a low percentile of its cancelled channel's 32 ms frame
    levels; with the seats' median ratio below ``trigger_db - margin_db`` the trigger comes
    down to ``ratio + margin_db``. Latency: none; cost: a noise burst reaching the lower
    trigger is heard as a run. Measurements: docs/settings.md, ``NoisyTriggerParams``."""

    #: the percentile of the session's frame levels taken as the noise. Higher: the room reads
    #: noisier (speech counted as noise), the trigger lowered more often.
    noise_percentile: float = 10.0
    #: the trigger is lowered to the ratio plus this (dB). Lower: softer starts found, more
    #: noise bursts heard as runs.
    margin_db: float = 2.0
    #: ... never below ``start_db`` plus this (dB).
    min_above_start_db: float = 2.0
    #: and the onset walk goes on in 16 ms means (``OnsetParams.noise_walk_db``; None: not)
    walk_db: float | None = 1.5

    def __post_init__(self):
        check_ranges(self, non_negative=("margin_db", "min_above_start_db"), positive=("walk_db",))
        if not 0 <= self.noise_percentile <= 100:
            raise ValueError(f"NoisyTriggerParams.noise_percentile must be in [0, 100], got {self.noise_percentile!r}")


def noise_ratio_db(demixed: np.ndarray, speech_db, params: NoisyTriggerParams | None = None) -> float | None:
    """The median over the seats of speech level (calibration) minus noise level (session;
    :class:`NoisyTriggerParams`), dB; None when no seat's speech level is known."""
    p = params or NoisyTriggerParams()
    if speech_db is None or not len(demixed):
        return None
    ratios = [level - float(np.percentile(frame_levels(demixed[:, k]), p.noise_percentile))
              for k, level in enumerate(speech_db[: demixed.shape[1]]) if level is not None]
    return float(np.median(ratios)) if ratios else None


def onset_params(residual_db: float, noise_ratio_db: float | None = None,
                 noisy: NoisyTriggerParams | None = None):
    """The onset detector's parameters for cancelled audio whose loudest leak left is
    ``residual_db`` (measured on the demixed audio): subtract that leak plus
    :data:`RESIDUAL_MARGIN_DB` (it is an estimate), and let a seat's run stand only
    :data:`DEMIXED_DOMINANCE_DB` against the others' median — the raw-audio test (+3 dB)
    dropped a soft word said while two neighbours shouted (demo card 8: aki's ニ came 59 ms
    late and unrecognised). ``noise_ratio_db`` (:func:`noise_ratio_db`, offline): a noisy
    room lowers the trigger (:class:`NoisyTriggerParams`)."""
    from audio.onset import OnsetParams

    allow = float(max(1.0, -residual_db - RESIDUAL_MARGIN_DB))
    params = OnsetParams(crosstalk_db=allow, dominance_db=DEMIXED_DOMINANCE_DB, refine_leak_db=DEMIXED_LEAK_DB,
                          refine_from_level=True)
    n = noisy or NoisyTriggerParams()
    if noise_ratio_db is not None and noise_ratio_db + n.margin_db < params.trigger_db:
        from dataclasses import replace

        trigger = max(params.start_db + n.min_above_start_db, round(noise_ratio_db + n.margin_db, 1))
        params = replace(params, trigger_db=float(trigger), noise_walk_db=n.walk_db)
    return params


def residual_db(demixed: np.ndarray, params: DemixParams | None = None) -> float | None:
    """The loudest leak left in ``demixed`` (dB), measured where a seat speaks alone."""
    return worst_leak_db(residual_leaks_db(demixed, params))


def residual_leaks_db(demixed: np.ndarray, params: DemixParams | None = None) -> np.ndarray:
    """The leak left in ``demixed`` per (mic, seat) pair (dB; NaN on the diagonal and for a
    seat never heard alone), measured where a seat speaks alone."""
    residual = estimate(demixed, params)
    leak = residual.leak_db().astype(np.float64)
    for j, n in enumerate(residual.solo_frames):
        if n < residual.params.min_solo_frames:
            leak[:, j] = np.nan
    np.fill_diagonal(leak, np.nan)
    return leak


def worst_leak_db(leaks: np.ndarray | None) -> float | None:
    """The loudest of :func:`residual_leaks_db`'s pairs (None: none measured)."""
    if leaks is None or not np.isfinite(leaks).any():
        return None
    return float(np.nanmax(leaks))


#: a pair's leak allowance (:func:`leak_allowances`) is never under this (dB): a cancellation
#: measured 40-77 dB deep on the calibration recording (the demo's quiet pairs) is not trusted
#: so deep in a session (a voice louder or nearer than at calibration leaves more)
PAIR_LEAK_FLOOR_DB = -40.0


def leak_allowances(leaks: np.ndarray | None) -> np.ndarray | None:
    """What each seat's voice may leave on each mic after cancellation, per (mic, seat) pair
    (dB; ``audio.onset.OnsetDetector(leak_db=...)``, the onset walk's leak test): the pair's
    measured leak (:func:`residual_leaks_db`) plus :data:`RESIDUAL_MARGIN_DB`, no lower than
    :data:`PAIR_LEAK_FLOOR_DB`, no higher than the one allowance for every pair
    (:func:`onset_params`' ``crosstalk_db``); a pair not measured: that one allowance. Why per
    pair: the loudest pair's allowance (demo: aki into chie, 22 dB down) let the walk judge
    every other pair's leftover (40-77 dB down) as that loud, and a soft start under a
    neighbour's word came late (aki card 2, ``OnsetParams.refine_leak_delay_s``)."""
    worst = worst_leak_db(leaks)
    if worst is None:
        return None
    one = -float(max(1.0, -worst - RESIDUAL_MARGIN_DB))
    out = np.where(np.isfinite(leaks), np.clip(leaks + RESIDUAL_MARGIN_DB, PAIR_LEAK_FLOOR_DB, one), one)
    np.fill_diagonal(out, 0.0)
    return out


def blocks_of(x: np.ndarray, rate: int, block: int, index: int = 0, offset: float = 0.0) -> Iterable[Block]:
    """Blocks of an array on the session clock (tests, benchmarks)."""
    for k in range(0, len(x), block):
        yield Block(index + k, x[k : k + block], rate, offset)


#: a measured leak that cancels less than this (dB, median over the frames) of mic i where
#: seat j speaks alone in the session does not fit the session: it is not cancelled. A channel
#: delayed, swapped or moved since calibration makes the prediction unrelated to what mic i
#: carries, and subtracting it *raises* mic i (by up to 3 dB); a reverberant room the
#: calibration did not hear still lowers it 3-7 dB (bench_fairness 'reverb': the direct leak
#: cancels, the tail is left), and leaving such a pair uncancelled left the whole leak instead.
FIT_MIN_DB = 1.5
#: ... judged only on at least this many of the session's solo frames of seat j
FIT_MIN_FRAMES = 12
#: a solo frame where mic i's mean power is below this (``audio.watch.WatchParams.dead_db``,
#: -90 dB: digital silence) says nothing of the pair: mic i was dead there (unplugged or muted
#: part of the session). Counted, the silence "did not fit" and the pair went uncancelled for
#: the whole session, also before the microphone was unplugged.
DEAD_POWER = 10 ** (-90.0 / 10)
#: ... nor a solo frame where the leak the calibration predicts on mic i is less than this (dB)
#: above mic i's floor (the 10th percentile of its frames in the session): there mic i carries
#: its noise (a fan, the room at 10 dB) as much as the leak, and subtracting the leak can only
#: lower it by the leak's small share — the pair would be judged on the noise, not the path
FIT_ABOVE_FLOOR_DB = 10.0
#: a pair cancelled less deeply than this (dB) in the session cancels shallower than a table
#: heard as calibrated (the demo: 10-30 dB deep, the floor's limit; a reverberant room the
#: calibration heard dry: 3-7 dB, the tail is not in the leak path) ...
FIT_DEEP_DB = 8.0
#: ... and when at least this share of the judged pairs does, the session is not in the room
#: that was calibrated: what each pair leaves is measured on the session
#: (:attr:`FitReport.left_db`) and allowed for (:func:`session_leaks_db`). One pair shallow
#: (the demo's aki into chie, 7-11 dB deep depending on the excerpt) is the table's own
#: weak path, already in the calibration's measure: a decision per pair would make a cut
#: of a recording hear otherwise than the whole (issue 13).
OTHER_ROOM_SHARE = 0.5
#: ... of at least this many judged pairs (a table of 3 seats each heard alone has 6): on fewer
#: (a muted seat, a seat never alone) one odd pair would decide for the whole table
OTHER_ROOM_MIN_PAIRS = 6


class FitReport(NamedTuple):
    """What :func:`fit_report` found of a calibration's leakage on a session."""

    #: the leakage with the pairs that do not fit removed (zero responses)
    fitted: Leakage
    #: the pairs ``(mic, seat)`` left uncancelled
    dropped: list[tuple[int, int]]
    #: the pairs the session gave enough frames to judge
    judged: list[tuple[int, int]]
    #: per judged pair: how much cancelling lowered mic i (dB, median; negative: lowered)
    change_db: dict[tuple[int, int], float]
    #: per judged pair: what seat j leaves on mic i after this cancellation (a dropped pair:
    #: its whole leak), against seat j's level on its own mic (dB, median over the frames)
    left_db: dict[tuple[int, int], float]


def check_fit(leakage: Leakage, x: np.ndarray,
              solo: list[np.ndarray] | None = None) -> tuple[Leakage, list[tuple[int, int]]]:
    """``leakage`` (measured elsewhere: the calibration recording) with the pairs that do not
    fit the session ``x`` removed: where seat j speaks alone in ``x``, cancelling its measured
    leak from mic i must lower mic i by :data:`FIT_MIN_DB`; when it does not (a channel delayed
    by seconds, swapped or moved since calibration), subtracting it would *add* that seat's
    voice to mic i, so the pair is left uncancelled. Nothing is fitted: a pair is only kept
    or dropped, and a pair the session gives too few solo frames to judge is kept. ``solo``:
    :func:`solo_frames` of ``x`` with ``leakage.params``, when already known."""
    report = fit_report(leakage, x, solo)
    return report.fitted, report.dropped


def _hop_floor(x: np.ndarray, hop: int) -> float:
    """Mic power's 10th percentile over the session's ``hop``-sample stretches (its floor)."""
    m = len(x) // hop * hop
    return float(np.percentile((x[:m] ** 2).reshape(-1, hop).sum(axis=1), 10)) if m else 0.0


def fit_report(leakage: Leakage, x: np.ndarray, solo: list[np.ndarray] | None = None) -> FitReport:
    """:func:`check_fit`, and what it measured (:class:`FitReport`)."""
    p = leakage.params
    n, c = x.shape
    solo = _solo_frames(x, p) if solo is None else solo
    fir = leakage.fir.copy()
    dropped, judged, change_db, left_db = [], [], {}, {}
    xf = x.astype(np.float64)
    floors = [_hop_floor(xf[:, i], p.hop) * 10 ** (FIT_ABOVE_FLOOR_DB / 10) for i in range(c)]
    for j in range(c):
        if len(solo[j]) < FIT_MIN_FRAMES:
            continue
        idx = _samples_of(solo[j], p, n)
        idx = idx[: len(idx) // p.hop * p.hop]
        own = (xf[idx, j] ** 2).reshape(-1, p.hop).sum(axis=1)
        for i in range(c):
            if i == j or not np.any(fir[i, j]):
                continue
            pred = _predicted_at(xf[:, j], fir[i, j], idx)
            # per solo frame (the median: a frame where seat i also speaks does not decide)
            before = (xf[idx, i] ** 2).reshape(-1, p.hop).sum(axis=1)
            after = ((xf[idx, i] - pred) ** 2).reshape(-1, p.hop).sum(axis=1)
            # mic i dead there (unplugged, muted), or the leak predicted under its noise: no evidence
            live = (before > p.hop * DEAD_POWER) & ((pred.reshape(-1, p.hop) ** 2).sum(axis=1) > floors[i])
            if live.sum() < FIT_MIN_FRAMES:
                continue
            change = float(np.median(10 * np.log10((after[live] + 1e-20) / (before[live] + 1e-20))))
            judged.append((i, j))
            change_db[(i, j)] = change
            kept = change <= -FIT_MIN_DB
            left = after[live] if kept else before[live]
            left_db[(i, j)] = float(np.median(10 * np.log10((left + 1e-20) / (own[live] + 1e-20))))
            if not kept:
                fir[i, j] = 0.0
                dropped.append((i, j))
    return FitReport(Leakage(fir=fir, solo_frames=leakage.solo_frames, params=p), dropped, judged, change_db, left_db)


def other_room(report: FitReport) -> bool:
    """Whether the session was recorded in another room than the calibration (or with other
    microphones): at least :data:`OTHER_ROOM_SHARE` of the judged pairs cancel less than
    :data:`FIT_DEEP_DB` deep (the dropped ones count as not cancelled at all), of at least
    :data:`OTHER_ROOM_MIN_PAIRS`."""
    if len(report.judged) < OTHER_ROOM_MIN_PAIRS:
        return False
    shallow = sum(1 for pr in report.judged if pr in report.dropped or report.change_db[pr] > -FIT_DEEP_DB)
    return shallow >= OTHER_ROOM_SHARE * len(report.judged)


@dataclass(frozen=True)
class SelfFitParams:
    """Whether cancelling is worth it at all, judged on the calibration recording itself:
    its own leak paths subtracted from it (:func:`fit_report`). In a reverberant room the leak
    between close microphones a metre apart is mostly the room's echo, which the measured
    paths (the direct path: ``DemixParams.before_peak``/``after_peak``) cannot cancel: on
    simulated tables (``table_sim``, RT60 0.3–0.7 s) pairs lowered their microphone by 0–1.4 dB
    (median), where the rendered demo's lower theirs 10–30 dB. Cancelling that little removes
    nothing and drops pairs as unfit in the session, so such a table is heard uncancelled."""

    #: the judged pairs' median lowering (dB; a dropped pair counts as 0) below which the
    #: table is not cancelled. Higher: more tables heard uncancelled (their leak left in,
    #: allowed for by the onset walk); lower: shallow cancellations kept.
    min_depth_db: float = 3.0
    #: fewer judged pairs than this: not enough evidence, the table is cancelled as before.
    #: Higher: tables with few seats heard alone keep a cancellation that may do nothing;
    #: lower: one pair's depth decides the whole table.
    min_pairs: int = 2

    def __post_init__(self):
        check_ranges(self, non_negative=("min_depth_db",), at_least_one=("min_pairs",))


def cancels_on_itself(leakage: Leakage, samples: np.ndarray, params: SelfFitParams | None = None) -> bool:
    """Whether ``leakage`` lowers the neighbours' microphones of the recording it was measured
    on (the calibration recording ``samples``) by ``min_depth_db`` at the median of the judged
    pairs (:class:`SelfFitParams`); True when too few pairs can be judged."""
    p = params or SelfFitParams()
    report = fit_report(leakage, samples)
    if len(report.judged) < p.min_pairs:
        return True
    changes = [0.0 if pr in report.dropped else report.change_db[pr] for pr in report.judged]
    return round(float(np.median(changes)), 2) <= -p.min_depth_db


def raw_leaks_db(x: np.ndarray, params: DemixParams | None = None,
                 solo: list[np.ndarray] | None = None) -> np.ndarray:
    """The leak per (mic, seat) pair of uncancelled ``x`` (dB; NaN on the diagonal and for a
    seat with fewer than ``min_solo_frames`` solo frames): the median over seat j's solo
    frames of mic i's energy against mic j's — the whole leak, echo and all (a fitted path's
    gain, :func:`residual_leaks_db`, is only the part that path explains)."""
    p = params or DemixParams()
    n, c = x.shape
    solo = _solo_frames(x, p) if solo is None else solo
    xf = x.astype(np.float64)
    out = np.full((c, c), np.nan)
    for j in range(c):
        if len(solo[j]) < p.min_solo_frames:
            continue
        idx = _samples_of(solo[j], p, n)
        idx = idx[: len(idx) // p.hop * p.hop]
        own = (xf[idx, j] ** 2).reshape(-1, p.hop).sum(axis=1)
        for i in range(c):
            if i != j:
                mic = (xf[idx, i] ** 2).reshape(-1, p.hop).sum(axis=1)
                out[i, j] = float(np.median(10 * np.log10((mic + 1e-20) / (own + 1e-20))))
    return out


def session_leaks_db(report: FitReport, leaks: np.ndarray | None, channels: int) -> np.ndarray | None:
    """The per-pair leaks after cancellation (:func:`residual_leaks_db`, measured on the
    calibration recording; None: not measured) with what this session leaves where it leaves
    more: a pair left uncancelled (its whole leak), and, in another room than the calibration's
    (:func:`other_room`), every judged pair, is allowed what the session measured
    (:attr:`FitReport.left_db`) when that is louder. Why: allowed only the calibration's -22 to
    -79 dB, a neighbour's reverberant leftover 11-17 dB down (bench_fairness 'reverb') started
    every seat's word at the neighbour's onset, and their words ran together."""
    room = other_room(report)
    more = {pr: left for pr, left in report.left_db.items() if room or pr in report.dropped}
    if not more:
        return leaks  # (None stays None: every pair is allowed the loudest pair's leak)
    out = np.full((channels, channels), np.nan) if leaks is None else np.array(leaks, dtype=np.float64)
    for (i, j), left in more.items():
        out[i, j] = left if not np.isfinite(out[i, j]) else max(out[i, j], left)
    return out


def unfit_channels(leakage: Leakage, x: np.ndarray, solo: list[np.ndarray] | None = None,
                   report: FitReport | None = None) -> list[int]:
    """Channels of the session ``x`` none of whose leak paths fit the calibration's, into it
    and out of it, each way judged on at least :data:`UNFIT_MIN_PAIRS` pairs: the channel's
    sound is not where and when the calibration heard it — delayed by more than the leak
    paths (a channel seconds late), or another microphone. Its seat's timing cannot be
    trusted: it is not heard (``audio.hearing``). A muted channel is not one (nothing leaves
    it to judge; the raw input's watch says it is dead); a swapped pair is found before
    (:func:`find_swap`). ``solo``: as for :func:`check_fit`; ``report``: :func:`fit_report` of
    the same, when already known (:func:`find_swap` judged the same pairs)."""
    report = fit_report(leakage, x, solo) if report is None else report
    dropped, judged = report.dropped, report.judged
    out = []
    for k in range(leakage.channels):
        into = [pr for pr in judged if pr[0] == k]
        out_of = [pr for pr in judged if pr[1] == k]
        if (len(into) >= UNFIT_MIN_PAIRS and len(out_of) >= UNFIT_MIN_PAIRS
                and all(pr in dropped for pr in into + out_of)):
            out.append(k)
    return out


#: pairs each way (into the channel, out of it) that must all fail to fit for :func:`unfit_channels`
UNFIT_MIN_PAIRS = 2


@dataclass(frozen=True)
class LagParams:
    """Finding how late an unfit channel is (:func:`channel_lag`): a channel seconds late (a
    second interface's buffer, a recorder started late) fits none of the calibration's leak
    paths, but its seat's voice reaches the other mics at the true time and its own channel
    ``lag`` later. Cost: one long FFT per channel and, per candidate lag, one solo test and fit
    check (offline, once). Why it matters: docs/settings.md, ``LagParams``."""

    #: lags searched, either way (s): longer costs nothing but makes a chance peak likelier
    max_lag_s: float = 10.0
    #: the correlation's strongest peaks tried per other mic (more: more fit checks, CPU)
    peaks: int = 2

    def __post_init__(self):
        check_ranges(self, positive=("max_lag_s",), at_least_one=("peaks",))


def scaled(samples: np.ndarray, corrections_db: list[float]) -> np.ndarray:
    """``samples[samples, channels]`` with each channel scaled by its correction (dB: the
    microphones evened out, ``audio.gains.gains_db``); the same array when every correction is
    0. (Here beside :func:`shifted`, not in ``audio.gains``, which reads :func:`frame_levels`:
    no import cycle.)"""
    if not any(corrections_db):
        return samples
    factor = np.array([10 ** (g / 20) for g in corrections_db], dtype=np.float64)
    return (np.asarray(samples, np.float64) * factor[None, :]).astype(samples.dtype, copy=False)


def shifted(x: np.ndarray, k: int, lag: int) -> np.ndarray:
    """``x`` with channel ``k`` moved ``lag`` samples earlier (``out[t, k] = x[t + lag, k]``;
    negative: later), zeros where nothing is known (a dead stretch, as a muted channel)."""
    out = x.copy()
    col = np.zeros(len(x), x.dtype)
    if abs(lag) >= len(x):
        pass  # moved past the recording: nothing of it is known
    elif lag >= 0:
        col[: len(x) - lag] = x[lag:, k]
    else:
        col[-lag:] = x[: len(x) + lag, k]
    out[:, k] = col
    return out


def channel_lag(leakage: Leakage, x: np.ndarray, k: int, rate: int, params: LagParams | None = None,
                solo: list[np.ndarray] | None = None) -> int | None:
    """How many samples channel ``k`` of the session ``x`` is late (negative: early) against
    the others, found from the calibration's leak paths; None when no lag makes them fit.

    Candidates: the peaks of the phase-transform cross-correlation of channel ``k`` with
    each other mic it leaks into (its seat's voice arrives there ``lag`` minus the path's
    delay earlier; the others' voices leak into it as late), within ``max_lag_s``. Each is
    checked as :func:`unfit_channels` judged the channel: with channel ``k`` moved by the
    lag, every pair into it and out of it that the session can judge (at least
    :data:`UNFIT_MIN_PAIRS` each way) must fit; of those that do, the one leaving the fewest
    pairs dropped. A lag within the leak paths' own length is no candidate (those fit
    already). ``solo``: :func:`solo_frames` of ``x``, when known."""
    p = params or LagParams()
    n, c = x.shape
    mics = [i for i in range(c) if i != k and np.any(leakage.fir[i, k])]
    if not mics or n < 2:
        return None
    size = 1 << int(np.ceil(np.log2(2 * n)))
    X = np.fft.rfft(x.astype(np.float64), size, axis=0)
    top = min(int(p.max_lag_s * rate), n - 1)
    taps = leakage.params.taps
    cands: list[int] = []
    for i in mics:
        cross = np.conj(X[:, i]) * X[:, k]
        r = np.fft.irfft(cross / np.maximum(np.abs(cross), 1e-20), size)
        lags = np.concatenate([np.arange(-top, 0), np.arange(0, top + 1)])
        vals = np.abs(np.concatenate([r[size - top :], r[: top + 1]]))
        d = int(np.argmax(np.abs(leakage.fir[i, k])))  # the path's own delay
        for m in np.argsort(vals)[::-1][: p.peaks]:
            lag = int(lags[m]) + d
            if abs(lag) > taps and lag not in cands:
                cands.append(lag)
    best = None
    for lag in cands:
        y = shifted(x, k, lag)
        fit = fit_report(leakage, y, _solo_frames(y, leakage.params))
        dropped, judged = fit.dropped, fit.judged
        into = [pr for pr in judged if pr[0] == k]
        out_of = [pr for pr in judged if pr[1] == k]
        if (len(into) < UNFIT_MIN_PAIRS or len(out_of) < UNFIT_MIN_PAIRS
                or any(pr in dropped for pr in into + out_of)):
            continue
        if best is None or len(dropped) < best[1]:
            best = (lag, len(dropped))
    return None if best is None else best[0]


def realign_unfit(source, leakage: Leakage, warnings: list[str],
                  params: LagParams | None = None) -> tuple[Leakage, list[tuple[int, int]]] | None:
    """Each unfit channel of ``source`` (a :class:`DemixedSource`; its ``unfit``) whose lag
    :func:`channel_lag` finds is moved back onto the others' clock (``source.realign``) and
    cancelled with the calibration's leak paths as usual (the stretch its moved channel
    does not cover is dead: cancelled by its fingerprint, ``audio.hearing.unreferenced``).
    Its seat stays not heard (``unfit``): the lag is the session's word, not the user's.
    Returns the leakage to cancel with and its dropped pairs after the move (None: no
    channel moved), and says each move in ``warnings``."""
    moved = {}
    for k in getattr(source, "unfit", ()):
        lag = channel_lag(leakage, source.raw, k, source.rate, params, solo=None)
        if lag is not None:
            moved[k] = lag
    if not moved:
        return None
    for k, lag in moved.items():
        source.realign(k, lag)
        warnings.append(f"audio: channel {k} is {abs(lag) / source.rate:.3f} s {'late' if lag > 0 else 'early'} "
                        "against the others (found from the calibration's leak paths); moved back by that much "
                        "to cancel the cross-talk, its seat is still not heard")
    return check_fit(leakage, source.raw, source.solo_frames(leakage.params))


def permuted(leakage: Leakage, order: list[int]) -> Leakage:
    """``leakage`` for a recording whose channel k carries what the measured channel
    ``order[k]`` carried (e.g. two cables exchanged): ``fir'[i, j] = fir[order[i], order[j]]``."""
    o = np.asarray(order)
    return Leakage(fir=leakage.fir[np.ix_(o, o)].copy(),
                   solo_frames=tuple(leakage.solo_frames[k] for k in order), params=leakage.params)


def swap_order(swap: tuple[int, int], channels: int) -> list[int]:
    """The channel order (for :func:`permuted`) with the two channels of ``swap`` exchanged."""
    order = list(range(channels))
    order[swap[0]], order[swap[1]] = swap[1], swap[0]
    return order


def find_swap(leakage: Leakage, x: np.ndarray, solo: list[np.ndarray] | None = None,
              report: FitReport | None = None) -> tuple[tuple[int, int] | None, Leakage, list[tuple[int, int]]]:
    """Are two channels of the session ``x`` exchanged since ``leakage`` was measured? The
    leak paths (each seat's delay and level into every other mic) are a fingerprint of where
    the microphones stand: when the measured leakage fits the session (:func:`check_fit`)
    better with channels a and b exchanged — fewer pairs left uncancelled, and none of the
    pairs of a or b — the cables (or microphones) of a and b were swapped. Returns ``(a, b)``
    or None, the leakage to cancel with (fitted pairs only: the exchanged one when swapped),
    and its dropped pairs. Nothing is fitted on the session: each candidate is only checked.
    Cost: one :func:`check_fit` per pair of channels (6 for 4 seats); ``solo``: as there
    (the channels' solo frames do not depend on the order tried); ``report``: :func:`fit_report`
    of ``leakage`` on ``x``, when already known. Of several exchanges that fit equally well
    the first (in channel order) is returned: :func:`find_swaps` gives them all."""
    return find_swaps(leakage, x, solo, report)[0]


def find_swaps(leakage: Leakage, x: np.ndarray, solo: list[np.ndarray] | None = None,
               report: FitReport | None = None
               ) -> list[tuple[tuple[int, int] | None, Leakage, list[tuple[int, int]]]]:
    """:func:`find_swap`, with every exchange that fits as well as the best one: ``[(None,
    fitted, dropped)]`` when none fits better than the channels as they are, else one
    ``((a, b), leakage, dropped)`` per equally good exchange, the first the one
    :func:`find_swap` returns. Why: on a table whose seats stand symmetrically (the demo's
    square: aki-dai mirror ben-chie) the leak paths cannot tell ben↔chie from aki↔dai — both
    exchanges cancel the session as well — so the hearing must say both, not name one pair
    for sure (``audio.listen.Listener.swapped``'s ``alternatives``)."""
    solo = _solo_frames(x, leakage.params) if solo is None else solo
    report = fit_report(leakage, x, solo) if report is None else report
    fitted, dropped = report.fitted, report.dropped
    if not dropped:
        return [(None, fitted, dropped)]
    c = leakage.channels
    tried = []
    for a in range(c):
        for b in range(a + 1, c):
            lk, dr = check_fit(permuted(leakage, swap_order((a, b), c)), x, solo)
            if len(dr) < len(dropped) and not any(a in pair or b in pair for pair in dr):
                tried.append(((a, b), lk, dr))
    if not tried:
        return [(None, fitted, dropped)]
    least = min(len(dr) for _, _, dr in tried)
    return [(ab, lk, dr) for ab, lk, dr in tried if len(dr) == least]


def frame_levels(x: np.ndarray, params: DemixParams | None = None) -> np.ndarray:
    """Mean-square level (dB) of ``x[samples]`` in frames of ``nperseg`` every ``hop``
    samples, frame t centred on sample ``t * hop`` (the solo test's frames)."""
    p = params or DemixParams()
    x = np.asarray(x, np.float64)
    half = p.nperseg // 2
    padded = np.pad(x, (half, half))
    n = 1 + len(x) // p.hop
    c2 = np.concatenate([[0.0], np.cumsum(padded * padded)])
    a = np.arange(n) * p.hop
    b = np.minimum(a + p.nperseg, len(padded))
    return 10 * np.log10((c2[b] - c2[a]) / p.nperseg + 1e-20)


def speech_levels(x: np.ndarray, params: DemixParams | None = None,
                  solo: list[np.ndarray] | None = None) -> list[float | None]:
    """Each seat's speech level at its own microphone (dB, the median frame level where it
    speaks alone, :func:`frame_levels`), measured on a recording where each seat spoke (the
    calibration recording); None for a seat with too few solo frames. Why: a close
    microphone hears its seat's voice loud; a burst far below that level is not that seat
    speaking (room babble, a far voice) — :attr:`audio.listen.ListenParams.own_level_db`.
    ``solo``: :func:`solo_frames` of ``x``, when already known (:func:`estimate` uses the same)."""
    p = params or DemixParams()
    solo = _solo_frames(x, p) if solo is None else solo
    out: list[float | None] = []
    for j in range(x.shape[1]):
        if len(solo[j]) < p.min_solo_frames:
            out.append(None)
            continue
        lv = frame_levels(x[:, j], p)
        out.append(round(float(np.median(lv[solo[j][solo[j] < len(lv)]])), 2))
    return out

"""A seat whose own channel is no reference (dead: muted, unplugged; or unfit: seconds late,
another microphone) cancelled from the other channels by its leak fingerprint — offline
(:func:`cancel_unreferenced`, used by :meth:`audio.demix.DemixedSource.cancel_unreferenced`)
and live, block by block (:class:`StreamingUnreferenced`). The leak paths and their estimate
are :mod:`audio.demix`'s; the why, the how and the measurements: docs/settings.md,
``UnreferencedParams``, and docs/hearing.md."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.signal import stft

from audio.capture import Block
from audio.demix import Leakage
from session.params import check_ranges


@dataclass(frozen=True)
class UnreferencedParams:
    """Cancelling a seat whose own channel is no reference (dead: muted, unplugged; or unfit:
    seconds late, another microphone) from the other channels, by its leak fingerprint: where
    two other mics' estimates of its voice agree, per time-frequency cell, that voice is
    subtracted through its measured paths. Live (:class:`StreamingUnreferenced`) a dead
    channel delays the cancelled audio by ``nperseg / 2 + hop + delay + live_frame_s`` (at most
    64 ms at 16 kHz); with every channel alive nothing is held back. The why, the how and the
    measurements: docs/settings.md, ``UnreferencedParams``."""

    #: STFT frame (samples; 64 ms at 16 kHz): the fingerprint's cells. Longer: finer in
    #: frequency, coarser in time, more live latency while a seat is dead.
    nperseg: int = 1024
    #: STFT hop (samples; 16 ms at 16 kHz). Shorter: more CPU; live latency includes it.
    hop: int = 256
    #: two mics' estimates agree when ``|a - b| / (|a| + |b|)`` is below this (subtraction
    #: weighted ``1 - d / agree``). Larger: more of the lost seat removed, more of a neighbour's
    #: own word taken with it.
    agree: float = 0.35
    #: a fingerprint needs paths into at least this many other mics (one mic alone cannot
    #: tell the lost seat's voice from its own seat's)
    min_mics: int = 2
    #: a dead stretch is widened by this (s) on each side (the paths' delays, the frames)
    margin_s: float = 0.05
    #: samples of each path after cancellation kept when subtracting (1024 = 64 ms: the
    #: inverse's ringing is 40 dB down well before). Longer: CPU.
    paths: int = 1024
    #: the dead seat's own channel carries its voice estimated in frames this long (samples;
    #: 0: the cancellation's ``nperseg``). Longer frames smear a word's end for the onset detector.
    own_nperseg: int = 256
    #: live: the raw channel's level is judged dead or not in frames this long (s; latency
    #: while a seat is dead: up to this)
    live_frame_s: float = 0.01

    def __post_init__(self):
        check_ranges(self, at_least_one=("nperseg", "hop", "min_mics", "paths"), positive=("agree", "live_frame_s"),
                     non_negative=("margin_s", "own_nperseg"))


def _advance(x: np.ndarray, d: int) -> np.ndarray:
    """``x`` advanced by ``d`` samples (``out[n] = x[n + d]``, zeros past the end)."""
    if d <= 0:
        return x.copy()
    out = np.zeros_like(x)
    out[:-d] = x[d:]
    return out


def unreferenced_paths(fingerprint: Leakage, seat: int, used: Leakage | None, size: int = 4096) -> np.ndarray:
    """Seat ``seat``'s paths into every channel *as they are after cancelling* with ``used``
    (C, size impulse responses; zero for ``seat`` itself): the cancellation of the other
    seats' leaks also filters the lost seat's leak (mic a's copy of it is in mic c's
    sound, which is subtracted from mic a): ``G = (I + H_others)^-1 h_seat``. Subtracting
    the measured path ``h_seat`` instead left it only 7 dB down on the demo."""
    c = fingerprint.channels
    others = [i for i in range(c) if i != seat]
    h = np.fft.rfft(fingerprint.fir[others, seat], size, axis=1).T  # (F, C-1)
    if used is not None:
        sub = used.fir[np.ix_(others, others)]
        A = np.moveaxis(np.fft.rfft(sub, size, axis=2), 2, 0) + np.eye(len(others))[None]
        h = np.linalg.solve(A, h[:, :, None])[:, :, 0]
    g = np.zeros((c, size))
    g[others] = np.fft.irfft(h.T, size, axis=1)
    return g


def _fingerprint(leakage: Leakage, seat: int, used: Leakage | None, p: UnreferencedParams):
    """Seat ``seat``'s fingerprint: ``(mics, g, delays, H)`` — the other channels it has a path
    into, its paths after cancellation (:func:`unreferenced_paths`), each path's direct delay
    (samples) and its response after that delay on the ``nperseg`` grid; None with paths into
    fewer than ``min_mics`` channels."""
    c = leakage.channels
    mics = [i for i in range(c) if i != seat and np.any(leakage.fir[i, seat])]
    if len(mics) < p.min_mics:
        return None
    g = unreferenced_paths(leakage, seat, used)
    delays, paths = [], []
    for i in mics:
        d = int(np.argmax(np.abs(leakage.fir[i, seat])))  # the direct path's delay
        H = np.fft.rfft(np.roll(g[i], -d)[: p.nperseg], p.nperseg)  # the path after its delay
        delays.append(d)
        paths.append(np.where(np.abs(H) < 1e-6, 1e-6, H))
    return mics, g, delays, paths


def cancel_unreferenced(y: np.ndarray, leakage: Leakage, seat: int, where: np.ndarray | None = None,
                        params: UnreferencedParams | None = None, used: Leakage | None = None,
                        own: np.ndarray | None = None) -> np.ndarray:
    """``y[samples, channels]`` (audio cancelled with ``used``) with seat ``seat``'s voice,
    which leaks into the other channels but whose own channel is no reference, subtracted
    from them by its fingerprint (:class:`UnreferencedParams`): ``leakage.fir[:, seat]`` are
    its paths as the calibration measured them, :func:`unreferenced_paths` what the
    cancellation made of them. ``where`` (weight per sample): only there (a dead stretch);
    None: everywhere. Channel ``seat`` itself is returned unchanged, except where ``own``
    (weight per sample: where its microphone is dead) — there it carries the seat's voice as
    the fingerprint estimates it at its own microphone, as if the microphone were there: the
    onset detector compares every seat's channel with the others' (the walk back's "others'
    median"), and a dead channel's silence made a neighbour's leak pass as a seat's own
    sound (demo, ben muted: chie's onset 47 ms early); the seat itself is not heard (its
    channel is dead: ``audio.listen``). A seat with paths into fewer than ``min_mics`` other
    channels is left as it was."""
    from scipy.signal import fftconvolve

    p = params or UnreferencedParams()
    n, c = y.shape
    fp = _fingerprint(leakage, seat, used, p)
    if fp is None or n < p.nperseg:
        return y
    mics, g, delays, paths = fp
    voice = _voice_estimate(y, mics, delays, paths, p)
    estimate = voice
    if where is not None:
        voice = voice * where
    out = y.astype(np.float64, copy=True)
    for i in mics:
        out[:, i] -= fftconvolve(voice, g[i, : p.paths])[:n]
    if own is not None:
        if p.own_nperseg and p.own_nperseg != p.nperseg:
            from dataclasses import replace

            q = replace(p, nperseg=p.own_nperseg, hop=p.own_nperseg // 4)
            fq = _fingerprint(leakage, seat, used, q)
            estimate = _voice_estimate(y, fq[0], fq[2], fq[3], q) if fq is not None and n >= q.nperseg else estimate
        out[:, seat] = estimate * own + out[:, seat] * (1.0 - own)
    return out.astype(y.dtype, copy=False)


def _agreed(est: list[np.ndarray], agree: float) -> np.ndarray:
    """Per cell, the mean of the pair of estimates that agree best, weighted by how well they
    agree (1 where equal, 0 from ``agree`` apart: :class:`UnreferencedParams`); ``est``: one
    estimate of the lost seat's voice per other mic (the offline STFT's cells, or one frame's)."""
    best_w = np.zeros(est[0].shape)
    best = np.zeros(est[0].shape, complex)
    for u in range(len(est)):
        for v in range(u + 1, len(est)):
            dist = np.abs(est[u] - est[v]) / (np.abs(est[u]) + np.abs(est[v]) + 1e-20)
            w = np.clip(1.0 - dist / agree, 0.0, 1.0)
            take = w > best_w
            best_w = np.where(take, w, best_w)
            best = np.where(take, 0.5 * (est[u] + est[v]), best)
    return best * best_w


def _voice_estimate(y: np.ndarray, mics, delays, paths, p: UnreferencedParams) -> np.ndarray:
    """The unreferenced seat's voice at its own microphone, from the cells where two other
    mics (advanced by its delays, divided by its paths) agree (:class:`UnreferencedParams`)."""
    from scipy.signal import istft

    n = len(y)
    est = []
    for i, d, H in zip(mics, delays, paths):
        z = _advance(y[:, i].astype(np.float64), d)
        _, _, Z = stft(z, nperseg=p.nperseg, noverlap=p.nperseg - p.hop)
        est.append(Z / H[:, None])
    # est[i] (F, T): the lost seat's voice + mic i's own seat / its path
    _, voice = istft(_agreed(est, p.agree), nperseg=p.nperseg, noverlap=p.nperseg - p.hop)
    return np.pad(voice, (0, max(0, n - len(voice))))[:n]


def live_dead_where(raw: np.ndarray, rate: int, params: UnreferencedParams | None = None,
                    dead_db: float | None = None, widen: bool = True) -> np.ndarray:
    """Per sample and channel of a whole recording ``raw``: the weight (0/1) with which
    :class:`StreamingUnreferenced` cancels that channel's seat from the others — its raw
    ``live_frame_s`` frames below ``dead_db`` (the watch's), widened by ``margin_s`` after them
    (``widen=False``: where its channel carries its estimated voice). The live stage's own
    :class:`_DeadFrames`, fed the recording at once. Offline, :func:`cancel_unreferenced`
    with this ``where`` (and, not widened, this ``own``) is what the live stage computes."""
    watch = _DeadFrames(raw.shape[1], rate, params or UnreferencedParams(), dead_db)
    where, quiet = watch.update(np.asarray(raw), final=True)
    return where if widen else quiet


class _DeadFrames:
    """Live: which samples of each raw channel are dead (``update(raw, final) -> (where,
    quiet)`` for the new complete ``live_frame_s`` frames, the last partial one at the end):
    ``quiet`` 1 in a frame below the watch's ``dead_db``, ``where`` that widened by
    ``margin_s`` after it (:class:`UnreferencedParams`)."""

    def __init__(self, channels: int, rate: int, p: UnreferencedParams, dead_db: float | None = None):
        from audio.watch import WatchParams

        self.channels = channels
        self.frame = max(1, int(round(p.live_frame_s * rate)))
        self.grow = int(p.margin_s * rate)
        self.floor = 10 ** ((WatchParams().dead_db if dead_db is None else dead_db) / 20)
        self.end = 0  # samples judged so far
        self.tail = np.zeros((0, channels))
        self.last_quiet: list[int | None] = [None] * channels

    def update(self, raw: np.ndarray, final: bool) -> tuple[np.ndarray, np.ndarray]:
        tail = np.concatenate([self.tail, np.asarray(raw, np.float64)[:, : self.channels]])
        f = self.frame
        whole = len(tail) if final else len(tail) // f * f
        where, quiet = np.zeros((whole, self.channels)), np.zeros((whole, self.channels))
        for a in range(0, whole, f):
            b = min(whole, a + f)
            rms = np.sqrt(np.mean(tail[a:b] ** 2, axis=0))
            for k in range(self.channels):
                if rms[k] < self.floor:
                    where[a:b, k] = quiet[a:b, k] = 1.0
                    self.last_quiet[k] = self.end + b - 1
                elif self.last_quiet[k] is not None and self.grow:
                    idx = np.arange(self.end + a, self.end + b)
                    where[a:b, k] = (idx - self.last_quiet[k] <= self.grow).astype(np.float64)
        self.end += whole
        self.tail = tail[whole:]
        return where, quiet


class _Bank:
    """One STFT of :class:`StreamingUnreferenced`: its frames, each dead seat's fingerprint on
    its grid, and the overlap-added voice (numerator) and window power (denominator)."""

    def __init__(self, fingerprint: Leakage, used: Leakage | None, p: UnreferencedParams):
        from scipy.signal import get_window

        self.p = p
        self.seats = {}
        for k in range(fingerprint.channels):
            fp = _fingerprint(fingerprint, k, used, p)
            if fp is not None:
                self.seats[k] = fp
        self.win = get_window("hann", p.nperseg)
        self.half = p.nperseg // 2
        self.dmax = max([max(fp[2]) for fp in self.seats.values()] + [0])
        self.m = 0  # the next frame
        self.num = {k: np.zeros(0) for k in self.seats}
        self.den = np.zeros(0)


class StreamingUnreferenced:
    """:func:`cancel_unreferenced`, live: each seat whose raw channel is dead is cancelled from
    the other channels by its fingerprint as the blocks come (``update(raw, cancelled) ->
    [blocks]``, ``flush() -> [blocks]`` at the end), frame by frame with the offline STFT's
    frames, so a muted seat's leak no longer becomes its neighbours' words live; its own
    channel carries its estimated voice there (``own_nperseg`` frames), as offline. Latency:
    none while every channel is alive (the cancelled blocks pass through unchanged); while
    one is dead, the output is held back until its frames are known (at most ``nperseg / 2 +
    hop + delay + live_frame_s``, :class:`UnreferencedParams`), then goes back to none once
    the channel is alive again and its last frames are out. Blocks keep the session clock
    (their sample ``index``): only when they are handed on changes. Several seats dead at
    once are each estimated from the same cancelled audio (offline: one after another)."""

    def __init__(self, fingerprint: Leakage, used: Leakage | None, rate: int,
                 params: UnreferencedParams | None = None, dead_db: float | None = None):
        from dataclasses import replace

        p = self.p = params or UnreferencedParams()
        self.channels = fingerprint.channels
        self.cancel = _Bank(fingerprint, used, p)
        self.own = self.cancel
        if p.own_nperseg and p.own_nperseg != p.nperseg:
            self.own = _Bank(fingerprint, used, replace(p, nperseg=p.own_nperseg, hop=p.own_nperseg // 4))
        self.banks = [self.cancel] + ([self.own] if self.own is not self.cancel else [])
        self.seats = self.cancel.seats
        self.dead = _DeadFrames(self.channels, rate, p, dead_db)
        self.floor = self.dead.floor
        self.origin: int | None = None
        self.rate, self.offset, self.dtype = rate, 0.0, np.float32
        self.held_max = 0  # the longest hold seen (samples): what the latency cost was

    # buffers, all on the absolute sample index, starting at self.b0
    def _start(self, block: Block) -> None:
        c = self.channels
        self.origin = self.b0 = self.t = self.q_end = self.emitted = block.index
        self.y = np.zeros((0, c))
        self.where = np.zeros((0, c))  # the seat is cancelled from the others (dead, widened)
        self.quiet = np.zeros((0, c))  # the seat's channel is dead: it carries the estimate
        self.rate, self.offset, self.dtype = block.rate, block.offset, block.data.dtype

    def _grow(self, arr: np.ndarray, upto: int) -> np.ndarray:
        need = upto - self.b0 - len(arr)
        if need <= 0:
            return arr
        return np.concatenate([arr, np.zeros((need,) + arr.shape[1:])])

    def silent(self, raw: Block) -> list[int]:
        """The channels of ``raw`` below the watch's ``dead_db`` over the whole block (for
        :meth:`StreamingDemixer.update`'s ``dead``)."""
        x = np.asarray(raw.data, np.float64)
        if x.ndim != 2 or not len(x):
            return []
        rms = np.sqrt(np.mean(x[:, : self.channels] ** 2, axis=0))
        return [int(k) for k in np.flatnonzero(rms < self.floor)]

    def update(self, raw: Block, cancelled: Block) -> list[Block]:
        if self.origin is None:
            self._start(cancelled)
        if not self.seats:
            return [cancelled]
        self.y = np.concatenate([self.y, np.asarray(cancelled.data, np.float64)])
        self.t = cancelled.index + len(cancelled.data)
        self._quiet(np.asarray(raw.data, np.float64), final=False)
        for bank in self.banks:
            self._frames(bank, final=False)
        return self._emit(final=False)

    def flush(self) -> list[Block]:
        """The samples still held back (the end of the source)."""
        if self.origin is None or not self.seats:
            return []
        self._quiet(np.zeros((0, self.channels)), final=True)
        for bank in self.banks:
            self._frames(bank, final=True)
        return self._emit(final=True)

    def _quiet(self, raw: np.ndarray, final: bool) -> None:
        """The dead weight of every new complete frame of the raw input (the last partial one
        at the end): :class:`_DeadFrames`, the seats with a fingerprint only."""
        where, quiet = self.dead.update(raw, final)
        if not len(where):
            return
        self.where = self._grow(self.where, self.q_end + len(where))
        self.quiet = self._grow(self.quiet, self.q_end + len(where))
        s0, seats = self.q_end - self.b0, list(self.seats)
        self.where[s0 : s0 + len(where), seats] = where[:, seats]
        self.quiet[s0 : s0 + len(where), seats] = quiet[:, seats]
        self.q_end += len(where)

    def _frames(self, bank: _Bank, final: bool) -> None:
        """Every frame of ``bank`` now known: its contribution to each dead seat's voice
        (skipped where the seat's weight is 0 over the whole frame)."""
        p, half = bank.p, bank.half
        weight = self.where if bank is self.cancel else self.quiet
        last = self.origin + (-(-(self.t - self.origin) // p.hop)) * p.hop  # frames to ceil(n / hop)
        while True:
            a = self.origin + bank.m * p.hop - half  # the frame's first sample
            if final:
                if a + half > last:  # past the offline STFT's last frame (centred on ceil(n / hop))
                    break
            elif a + p.nperseg + bank.dmax > self.q_end:
                break
            upto = a + p.nperseg
            bank.den = self._grow(bank.den, upto)
            lo = a - self.b0
            bank.den[max(0, lo) : lo + p.nperseg] += (bank.win ** 2)[max(0, -lo):]
            for k, (mics, g, delays, paths) in bank.seats.items():
                if not np.any(weight[max(0, lo) : lo + p.nperseg, k]):
                    continue
                est = []
                for i, d, H in zip(mics, delays, paths):
                    seg = self._y(i, a + d, a + d + p.nperseg)
                    est.append(np.fft.rfft(bank.win * seg) / H)
                part = np.fft.irfft(_agreed(est, p.agree), p.nperseg) * bank.win
                bank.num[k] = self._grow(bank.num[k], upto)
                bank.num[k][max(0, lo) : lo + p.nperseg] += part[max(0, -lo):]
            bank.m += 1

    def _y(self, ch: int, a: int, b: int) -> np.ndarray:
        """Cancelled samples [a, b) of channel ``ch``, zeros outside what arrived."""
        out = np.zeros(b - a)
        lo, hi = max(a, self.b0), min(b, self.t)
        if lo < hi:
            out[lo - a : hi - a] = self.y[lo - self.b0 : hi - self.b0, ch]
        return out

    def _emit(self, final: bool) -> list[Block]:
        from scipy.signal import fftconvolve

        p = self.p
        known = self.t if final else self.q_end  # the dead weights are known up to here
        voiced = self.t if final else min(self.origin + b.m * b.p.hop - b.half for b in self.banks)
        voiced = max(min(voiced, known), self.b0)  # every frame of the samples before is in
        # nothing dead: all that arrived goes on at once (a frame still being judged too: if it
        # turns out dead, at most ``live_frame_s`` of it went on uncancelled)
        target = self.t
        pending = self.where[max(0, voiced - self.b0) : known - self.b0]
        if not final and pending.size and np.any(pending[:, list(self.seats)]):
            target = voiced  # a dead seat's frames are still to come: hold back
        target = max(target, self.emitted)
        out: list[Block] = []
        if target > self.emitted:
            a, b = self.emitted, target
            y = self.y[a - self.b0 : b - self.b0].copy()
            for k, (mics, g, delays, paths) in self.seats.items():
                v = self._voice(self.cancel, self.where, k, a - p.paths + 1, b)
                if np.any(v):
                    for i in mics:
                        y[:, i] -= fftconvolve(v, g[i, : p.paths], mode="valid")
            for k in self.own.seats:
                q = self._weights(self.quiet, k, a, b)
                if np.any(q):
                    y[:, k] = self._voice(self.own, None, k, a, b) * q + y[:, k] * (1.0 - q)
            out.append(Block(a, y.astype(self.dtype, copy=False), self.rate, self.offset))
            self.emitted = b
        self.held_max = max(self.held_max, self.t - self.emitted)
        self._trim()
        return out

    def _weights(self, weights: np.ndarray, k: int, a: int, b: int) -> np.ndarray:
        out = np.zeros(b - a)
        lo, hi = max(a, self.b0), min(b, self.b0 + len(weights))
        if lo < hi:
            out[lo - a : hi - a] = weights[lo - self.b0 : hi - self.b0, k]
        return out

    def _voice(self, bank: _Bank, weights: np.ndarray | None, k: int, a: int, b: int) -> np.ndarray:
        """Seat k's estimated voice in ``bank`` on samples [a, b), times ``weights`` (None: 1);
        zero where no frame said anything, or before the start."""
        out = np.zeros(b - a)
        lo, hi = max(a, self.b0), min(b, self.b0 + len(bank.num[k]), self.b0 + len(bank.den))
        if lo < hi:
            num = bank.num[k][lo - self.b0 : hi - self.b0]
            den = bank.den[lo - self.b0 : hi - self.b0]
            out[lo - a : hi - a] = np.where(den > 1e-10, num / np.where(den > 1e-10, den, 1.0), 0.0)
        return out if weights is None else out * self._weights(weights, k, a, b)

    def _trim(self) -> None:
        """Forget what no frame and no subtraction can need any more."""
        keep = min([self.emitted - self.p.paths] + [self.origin + b.m * b.p.hop - b.half for b in self.banks])
        drop = keep - self.b0
        if drop <= 0:
            return
        self.y = self.y[drop:]
        self.where = self.where[drop:]
        self.quiet = self.quiet[drop:]
        for bank in self.banks:
            bank.den = bank.den[drop:]
            for k in bank.seats:
                bank.num[k] = bank.num[k][drop:]
        self.b0 = keep

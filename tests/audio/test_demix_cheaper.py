"""The cheaper forms of the cancellation, the solo test and the fit check give what the plain
computations gave: the inverse applied per block against ``np.linalg.solve``, the solo test's
levels by Parseval against the STFT's, the fit check's gathered prediction against a
convolution of the whole recording."""

from __future__ import annotations

import numpy as np
from scipy.signal import fftconvolve, stft

from audio import demix
from audio.demix import DemixParams, Leakage

from tests.audio.test_demix import _table


def _solved(leakage: Leakage, x: np.ndarray) -> np.ndarray:
    """The cancellation as it was: one ``np.linalg.solve`` per block, numpy's FFT."""
    p, n = leakage.params, len(x)
    out = np.empty(x.shape, np.float64)
    for a in range(0, n, p.chunk):
        b = min(n, a + p.chunk)
        lo, hi = max(0, a - p.pad), min(n, b + p.pad)
        seg = x[lo:hi].astype(np.float64)
        size = 1 << int(np.ceil(np.log2(len(seg) + p.taps)))
        S = np.linalg.solve(leakage.transfer(size), np.fft.rfft(seg, size, axis=0)[:, :, None])[:, :, 0]
        out[a:b] = np.fft.irfft(S, size, axis=0)[a - lo : b - lo]
    return out


def test_the_inverse_applied_per_block_equals_the_solve():
    """Random leak paths (every tap free, leaks up to -6 dB) over several blocks and a short
    end block (two FFT sizes): the cancelled audio within 1e-9 of the solve's, float64 in."""
    rng = np.random.default_rng(3)
    c, p = 4, DemixParams(chunk=1 << 13, pad=1024)
    fir = rng.standard_normal((c, c, p.taps)) * 0.5 / p.taps ** 0.5 * 10 ** (-6 / 20)
    for i in range(c):
        fir[i, i] = 0.0
    leakage = Leakage(fir=fir, solo_frames=(100,) * c, params=p)
    x = rng.standard_normal((5 * p.chunk + 1234, c)) * 0.2
    got, want = leakage.demix(x), _solved(leakage, x)
    assert got.dtype == x.dtype and got.shape == x.shape
    assert np.max(np.abs(got - want)) < 1e-9
    # and on float32 in (as read), equal up to the float32 rounding of the output
    x32 = x.astype(np.float32)
    assert np.max(np.abs(leakage.demix(x32).astype(np.float64) - _solved(leakage, x32))) < 1e-6


def test_the_solo_test_levels_by_parseval_are_the_stft_s():
    """The per-frame power the solo test thresholds equals the sum over the STFT's bins (to
    1e-12 relative), ends padded alike and a recording of any length; the solo frames of a
    table recording are the same frames."""
    p = DemixParams()
    rng = np.random.default_rng(8)
    for n in (512, 513, 640, 1000, 4097, 12345):
        x = (rng.standard_normal((n, 3)) * rng.uniform(0.01, 1, 3)).astype(np.float32)
        _, _, X = stft(x.T.astype(np.float64), nperseg=p.nperseg, noverlap=p.nperseg - p.hop)
        want = (np.abs(X) ** 2).sum(axis=1)
        got = demix._frame_power(x, p)
        assert got.shape == want.shape
        assert np.max(np.abs(got - want) / (want + 1e-30)) < 1e-12
    mix, _ = _table(np.random.default_rng(1))
    _, _, X = stft(mix.T.astype(np.float64), nperseg=p.nperseg, noverlap=p.nperseg - p.hop)
    level = 10 * np.log10((np.abs(X) ** 2).sum(axis=1) + 1e-12)
    floor = np.median(level, axis=1, keepdims=True)
    solo = demix.solo_frames(mix)
    for j in range(mix.shape[1]):
        others = np.delete(level, j, axis=0).max(axis=0)
        want = np.flatnonzero((level[j] - others >= p.solo_db) & (level[j] - floor[j] >= p.active_db))
        assert len(want) >= p.min_solo_frames and np.array_equal(solo[j], want)


def test_the_fit_check_s_gathered_prediction_is_the_convolution_s():
    """``_predicted_at`` (only the solo samples, only the nonzero taps) equals the whole
    recording's convolution read there, for one tap, several and none; the fit report of a
    table judges and drops what it did with the convolution."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal(9000) * 0.3
    idx = np.sort(rng.choice(np.arange(96, 9000), 700, replace=False))
    for taps in ([0], [7], [95], [], [3, 4, 20], list(range(96))):
        h = np.zeros(96)
        h[taps] = rng.standard_normal(len(taps))
        want = fftconvolve(x, h)[: len(x)][idx] if taps else np.zeros(len(idx))
        assert np.max(np.abs(demix._predicted_at(x, h, idx) - want)) < 1e-12
    mix, _ = _table(np.random.default_rng(1), n_seats=4)
    leakage = demix.estimate(mix)
    late = demix.shifted(mix, 2, 3000)  # one channel seconds late: its pairs do not fit
    for rec in (mix, late):
        report = demix.fit_report(leakage, rec)
        dropped, judged = report.dropped, report.judged
        assert judged
        p, n = leakage.params, len(rec)
        solo = demix.solo_frames(rec, p)
        want = []
        for i, j in judged:
            ix = demix._samples_of(solo[j], p, n)
            ix = ix[: len(ix) // p.hop * p.hop]
            xf = rec.astype(np.float64)
            pred = fftconvolve(xf[:, j], leakage.fir[i, j])[:n]
            before = (xf[ix, i] ** 2).reshape(-1, p.hop).sum(axis=1)
            after = ((xf[ix, i] - pred[ix]) ** 2).reshape(-1, p.hop).sum(axis=1)
            m = n // p.hop * p.hop
            floor = np.percentile((xf[:m, i] ** 2).reshape(-1, p.hop).sum(axis=1), 10)
            live = (pred[ix] ** 2).reshape(-1, p.hop).sum(axis=1) > floor * 10 ** (demix.FIT_ABOVE_FLOOR_DB / 10)
            if np.median(10 * np.log10((after[live] + 1e-20) / (before[live] + 1e-20))) > -demix.FIT_MIN_DB:
                want.append((i, j))
        assert dropped == want
    assert demix.fit_report(leakage, late)[1]  # (the late channel's pairs are dropped)

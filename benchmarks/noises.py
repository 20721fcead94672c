"""Seeded noises the hearing benchmarks lay under speech (``bench_vad.py``, ``table_sim.py``):
one definition, so that their "white" and "pink" are the same noise."""

from __future__ import annotations

import numpy as np


def unit(x: np.ndarray) -> np.ndarray:
    """``x`` scaled to unit RMS."""
    return x / np.sqrt(np.mean(x ** 2))


def white(n: int, rng: np.random.Generator) -> np.ndarray:
    return unit(rng.standard_normal(n))


def pink(n: int, rng: np.random.Generator, rate: int = 16000) -> np.ndarray:
    """1/f power: white shaped by 1/sqrt(f) in one FFT (DC dropped), unit RMS."""
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / rate)
    spec[1:] /= np.sqrt(f[1:])
    spec[0] = 0
    return unit(np.fft.irfft(spec, n))

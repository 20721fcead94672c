"""``audio.kernels``: the cancellation's algebra and Whisper's log-mel give the same bits
whatever kernels the computer's libraries take (another OpenBLAS core, numpy without its
widest SIMD loops) — the values are computed in a process of its own under
``other_kernels_env()`` and compared byte for byte with this process's."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _inputs():
    rng = np.random.default_rng(7)
    a = rng.normal(size=(513, 4, 4)) + 1j * rng.normal(size=(513, 4, 4)) + 3 * np.eye(4)
    x = rng.normal(size=(513, 4)) + 1j * rng.normal(size=(513, 4))
    sound = (rng.standard_normal(24_000) * 0.05).astype(np.float32)
    return a, x, sound


def digests() -> dict[str, str]:
    """sha256 of each value whose bits must not depend on the kernels."""
    from audio import kernels
    from audio.whisper import log_mel

    a, x, sound = _inputs()
    inv = kernels.inverse(a)
    values = {"inverse": inv, "apply": kernels.apply(inv, x), "log_mel": log_mel(sound, 300),
              "product": kernels.product(a.real[0], a.imag[:, 0].T), "log10": kernels.log10(np.abs(x) + 1e-3)}
    return {k: hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest() for k, v in values.items()}


def test_inverse_and_apply_are_numpys_to_rounding():
    from audio import kernels

    a, x, _ = _inputs()
    inv = kernels.inverse(a)
    assert np.allclose(inv, np.linalg.inv(a), rtol=1e-12, atol=1e-12)
    assert np.allclose(kernels.apply(inv, x), (inv @ x[:, :, None])[:, :, 0], rtol=1e-12, atol=1e-12)
    real = a.real + 5 * np.eye(4)
    assert np.allclose(kernels.inverse(real), np.linalg.inv(real), rtol=1e-12, atol=1e-12)
    swap = np.array([[[0.0, 2.0], [4.0, 0.0]]])  # a zero on the diagonal: the pivot is the other row
    assert np.array_equal(kernels.inverse(swap), np.linalg.inv(swap))


def test_the_same_bits_under_other_kernels():
    from audio.kernels import other_kernels_env

    here = digests()
    code = "import json; from tests.audio.test_kernels import digests; print(json.dumps(digests()))"
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={**os.environ, **other_kernels_env()})
    assert res.returncode == 0, res.stderr
    there = json.loads(res.stdout.strip().splitlines()[-1])
    assert there == here, f"differ under {other_kernels_env()}: {[k for k in here if here[k] != there[k]]}"

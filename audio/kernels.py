"""Arithmetic whose result does not depend on the computer's kernels.

Why: a recording must give the same record on every computer. The BLAS library (OpenBLAS
picks SkylakeX kernels on AVX-512, Haswell's on AVX2) and numpy's own SIMD paths (SVML's
logarithm on AVX-512) add and round in another order on another CPU, and the last bits of
the cancelled audio or of a log-mel then differ. Whisper's int8 layers turn such a last-bit
difference into another score — and a word at the edge of a gate into another verdict
(measured: ``referee demo --no-enroll`` wrote another record under ``OPENBLAS_CORETYPE=Haswell``).

Two ways round it, each used where it is cheap:

- :func:`inverse` and :func:`apply`: small batched matrix algebra written as elementwise
  float64 additions and multiplications in a fixed order — IEEE rounds each one exactly, so the
  result is the same bits on every x86-64 CPU (no BLAS, no LAPACK, no fused multiply-add).
- :func:`product` and :func:`log10`: the BLAS product or the logarithm in float64, handed on as
  float32. The kernels differ by a few float64 units (~1e-16 relative); float32 keeps 24 bits
  (~6e-8), so a value lands on another float32 only when it lies within ~1e-16 of a float32
  rounding midpoint: odds of about 1e-8 per value, once in ~50 demo replays' log-mels.
"""

from __future__ import annotations

import numpy as np


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` computed in float64 and rounded to float32 (see the module's odds)."""
    return (np.asarray(a, np.float64) @ np.asarray(b, np.float64)).astype(np.float32)


def log10(x: np.ndarray) -> np.ndarray:
    """``log10(x)`` computed in float64 and rounded to float32 (SVML's float32 logarithm on
    AVX-512 and numpy's own on AVX2 differ in the last bit; in float64 both are within a unit)."""
    return np.log10(np.asarray(x, np.float64)).astype(np.float32)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    a = np.asarray(a)
    if np.iscomplexobj(a):
        return a.real.astype(np.float64), a.imag.astype(np.float64)
    return a.astype(np.float64), None


def _mul(ar, ai, br, bi):
    """(ar + i ai)(br + i bi) by real operations (numpy's complex loops may fuse them)."""
    if ai is None and bi is None:
        return ar * br, None
    if ai is None:
        return ar * br, ar * bi
    if bi is None:
        return ar * br, ai * br
    return ar * br - ai * bi, ar * bi + ai * br


def _div(ar, ai, br, bi):
    """(ar + i ai) / (br + i bi) by real operations."""
    if bi is None:
        return ar / br, None if ai is None else ai / br
    d = br * br + bi * bi
    if ai is None:
        return ar * br / d, -(ar * bi) / d
    return (ar * br + ai * bi) / d, (ai * br - ar * bi) / d


def _join(re: np.ndarray, im: np.ndarray | None) -> np.ndarray:
    if im is None:
        return re
    out = np.empty(re.shape, np.complex128)
    out.real, out.imag = re, im
    return out


def inverse(a: np.ndarray) -> np.ndarray:
    """The inverses of a stack of small square matrices ``a[..., n, n]`` (real or complex), by
    Gauss-Jordan elimination with partial pivoting, elementwise: the same bits on every CPU.
    Meant for the few-channel matrices of the cancellation (n = seats); costs O(n³) numpy
    operations on the stack. A singular matrix gives inf/NaN, as a division by zero does."""
    re, im = _split(a)
    n = re.shape[-1]
    eye = np.broadcast_to(np.eye(n), re.shape)
    re = np.concatenate([re, eye], axis=-1)
    im = None if im is None else np.concatenate([im, np.zeros(eye.shape)], axis=-1)
    rows = np.arange(re.shape[-2])
    for k in range(n):
        size = re[..., k:, k] ** 2 + (0 if im is None else im[..., k:, k] ** 2)
        pivot = k + np.argmax(size, axis=-1)  # the largest on ties: argmax takes the first
        for m in (re, im):
            if m is not None:
                pk = np.take_along_axis(m, pivot[..., None, None], axis=-2)
                mk = m[..., k : k + 1, :].copy()
                np.put_along_axis(m, pivot[..., None, None], mk, axis=-2)
                m[..., k : k + 1, :] = pk
        pr, pi = re[..., k, k].copy(), None if im is None else im[..., k, k].copy()
        rr, ri = _div(re[..., k, :], None if im is None else im[..., k, :], pr[..., None], None if pi is None else pi[..., None])
        re[..., k, :] = rr
        if im is not None:
            im[..., k, :] = ri
        for i in rows:
            if i == k:
                continue
            fr, fi = re[..., i, k].copy(), None if im is None else im[..., i, k].copy()
            sr, si = _mul(fr[..., None], None if fi is None else fi[..., None], re[..., k, :], None if im is None else im[..., k, :])
            re[..., i, :] = re[..., i, :] - sr
            if im is not None:
                im[..., i, :] = im[..., i, :] - si
    return _join(re[..., n:], None if im is None else im[..., n:])


def apply(m: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``m[f] @ x[f]`` for a stack of matrices ``m[f, i, j]`` and vectors ``x[f, j]``, each sum
    taken over ``j`` in order: the same bits on every CPU (no BLAS)."""
    mr, mi = _split(m)
    xr, xi = _split(x)
    out_r = out_i = None
    for j in range(mr.shape[-1]):
        pr, pi = _mul(mr[..., :, j], None if mi is None else mi[..., :, j], xr[..., j, None], None if xi is None else xi[..., j, None])
        out_r = pr if out_r is None else out_r + pr
        if pi is not None:
            out_i = pi if out_i is None else out_i + pi
    return _join(out_r, out_i)


#: numpy's AVX-512 dispatch targets (NPY_DISABLE_CPU_FEATURES)
_NUMPY_AVX512 = "AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL AVX512_SPR"


def other_kernels_env() -> dict[str, str]:
    """Environment variables that make this computer's libraries take other kernels than they
    take by default — what another computer would run. With AVX-512: OpenBLAS Haswell's
    (AVX2) kernels, CTranslate2's AVX2 path, numpy without its AVX-512 loops; without it:
    OpenBLAS Sandy Bridge's (AVX), CTranslate2's AVX path, numpy without its AVX2 loops. A
    recording replayed under it must give the same record (``benchmarks/same_records.py``)."""
    if "avx512f" in _cpu_flags():
        return {"OPENBLAS_CORETYPE": "Haswell", "CT2_FORCE_CPU_ISA": "AVX2", "NPY_DISABLE_CPU_FEATURES": _NUMPY_AVX512}
    return {"OPENBLAS_CORETYPE": "SandyBridge", "CT2_FORCE_CPU_ISA": "AVX", "NPY_DISABLE_CPU_FEATURES": "AVX2 FMA3"}


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()

"""One BLAS thread in every process of the referee, whatever was imported first (and oneDNN
at its AVX2 kernels, :data:`ONEDNN_ISA`).

Why: the cancellation's least-squares fits and filters (``audio.demix``) run on numpy's and
SciPy's OpenBLAS, whose multi-threaded reductions add in another order than the one-threaded
ones. The last bits of the cancelled audio then differ, and Whisper, which scores those
samples, can hear another word: measured on a 3-s cut of the demo, the same replay wrote a
different record (call scores in the second decimal, another transcription) when numpy had
been imported before ``vision`` set ``OPENBLAS_NUM_THREADS`` — as a test module or a script
that starts with ``import numpy`` does. So the limit is set here, at the ground floor that
every package imports: the environment for libraries not loaded yet, and threadpoolctl for
those already loaded. A user's own ``OPENBLAS_NUM_THREADS`` is overridden on purpose: the
same recording and options must give the same record byte for byte. Cost: none measured —
the matrices are small, and research measured 100 ms stalls of tiny products under load with
the threads on (``vision/__init__``'s reason, kept).
"""

from __future__ import annotations

import os
import sys

#: the BLAS threads of every referee process
BLAS_THREADS = 1

#: oneDNN's widest instruction set in every referee process. Whisper's int8 products run on
#: oneDNN (inside CTranslate2), whose AVX-512 VNNI kernels add int8 products in 32 bits while
#: its AVX2 kernels add pairs of them in 16 bits first: another computer's CPU gave other call
#: scores (``referee demo --no-enroll``: all 35 shout lines of its 90 differed, in the second decimal).
#: Held at AVX2, every x86-64 computer with AVX2 runs the same int8 arithmetic; measured on an
#: AVX-512 VNNI host, the demo's hearing cost the same (9.4–10.1 CPU-s either way). A user's
#: own ``ONEDNN_MAX_CPU_ISA`` is overridden on purpose, as the BLAS threads are.
ONEDNN_ISA = "AVX2"


def one_blas_thread() -> None:
    """Limit every BLAS library of this process, loaded or not, to :data:`BLAS_THREADS`, and
    oneDNN (loaded later, with the speech model) to :data:`ONEDNN_ISA`."""
    os.environ["ONEDNN_MAX_CPU_ISA"] = ONEDNN_ISA
    for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = str(BLAS_THREADS)
    if "numpy" in sys.modules or "scipy" in sys.modules:  # loaded already: the environment came too late
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=BLAS_THREADS, user_api="blas")


one_blas_thread()

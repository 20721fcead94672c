"""One BLAS thread in every process of the referee, whatever was imported first.

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


def one_blas_thread() -> None:
    """Limit every BLAS library of this process, loaded or not, to :data:`BLAS_THREADS`."""
    for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = str(BLAS_THREADS)
    if "numpy" in sys.modules or "scipy" in sys.modules:  # loaded already: the environment came too late
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=BLAS_THREADS, user_api="blas")


one_blas_thread()

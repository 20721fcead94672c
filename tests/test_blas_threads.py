"""One BLAS thread in every referee process, whatever was imported first (session/threads.py).

The replay's record depends on the last bits of the cancelled audio, and multi-threaded
OpenBLAS adds in another order: a script or test module that imports numpy before the
referee got another record (tests/referee/test_replay_speed.py caught it). Each case runs in
a fresh interpreter, because the limit is about what a process loaded before it.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import json, sys
for name in sys.argv[1:]:
    __import__(name)
from threadpoolctl import threadpool_info
print(json.dumps([(i["internal_api"], i["filepath"].rsplit("/", 1)[-1], i["num_threads"])
                  for i in threadpool_info() if i["user_api"] == "blas"]))
"""


@pytest.mark.parametrize("first", [["numpy", "scipy.linalg"], ["scipy.signal"], []])
@pytest.mark.parametrize("package", ["audio", "vision", "referee", "session"])
def test_every_blas_library_runs_one_thread_after_a_referee_package_is_imported(first, package):
    env = {"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "2"}  # a user's own setting is overridden too
    run = subprocess.run([sys.executable, "-c", PROBE, *first, package, "scipy.linalg"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    blas = json.loads(run.stdout)
    assert len(blas) >= 2, blas  # numpy's and SciPy's own OpenBLAS
    assert all(threads == 1 for _, _, threads in blas), blas


def test_without_the_limit_numpy_first_would_run_more_threads():
    """The probe can see the difference this file is about (two cores or more)."""
    import os

    if (os.cpu_count() or 1) < 2:
        pytest.skip("one CPU: OpenBLAS starts with one thread anyway")
    run = subprocess.run([sys.executable, "-c", PROBE, "numpy", "scipy.linalg"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    assert any(threads > 1 for _, _, threads in json.loads(run.stdout))


def test_onednn_runs_its_avx2_kernels_in_every_referee_process():
    """Whisper's int8 products (oneDNN inside CTranslate2) are held at the AVX2 kernels every
    supported computer has (session.threads.ONEDNN_ISA), a user's own setting overridden."""
    code = "import os, audio, ctranslate2; print(os.environ['ONEDNN_MAX_CPU_ISA'])"
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "ONEDNN_MAX_CPU_ISA": "AVX512_CORE_VNNI"})
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["AVX2"]

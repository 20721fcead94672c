"""Same recording, same record, whatever kernels the computer runs.

Replays the bundled demo (with enrolled voices and without, ``referee demo --no-enroll``) once
with this computer's default kernels and once with the others another computer would take
(``audio.kernels.other_kernels_env``: another OpenBLAS core, CTranslate2's other ISA path,
numpy without its widest SIMD loops), and compares the two session records line by line (the
``said_t`` lines, when a verdict was spoken, are dated by the clock and left out). With
``--tests``, it then runs ``tests/audio`` under the other kernels too: their expectations must
hold on either.

Prints one line per comparison and exits 1 on any difference, naming the first differing line.
``.ci/run`` runs it; a user checks a computer with ``.venv/bin/python benchmarks/same_records.py``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from audio.kernels import other_kernels_env  # noqa: E402

DEMOS = {"demo": [], "demo --no-enroll": ["--no-enroll"]}
#: tests/audio files not run again under the other kernels: they assert no value a kernel
#: computes (the synthetic benchmark's printed labels; the model files' joining, checksums and
#: errors), and CI's 20 minutes are better spent on the ones that do
KERNEL_FREE = ("tests/audio/test_bench.py", "tests/audio/test_whisper_files.py")


def _start(args: list[str], out: Path, env: dict[str, str]) -> subprocess.Popen:
    out.mkdir(parents=True)
    with open(out.with_suffix(".stderr"), "w", encoding="utf-8") as err:  # a file: two pipes could fill
        return subprocess.Popen([sys.executable, "-m", "referee", "demo", *args, "--out", str(out)], cwd=ROOT,
                                env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=err)


def _record(proc: subprocess.Popen, args: list[str], out: Path) -> list[str]:
    """The record the finished ``referee demo ARGS`` wrote, without its ``said_t`` lines."""
    if proc.wait():
        err = out.with_suffix(".stderr").read_text(encoding="utf-8")
        raise SystemExit(f"same_records: referee demo {' '.join(args)} failed ({proc.returncode}): {err[-2000:]}")
    return [line for line in (out / "session.jsonl").read_text(encoding="utf-8").splitlines() if '"said_t"' not in line]


def replays(args: list[str], folder: Path, other: dict[str, str]) -> tuple[list[str], list[str]]:
    """The records ``referee demo ARGS`` writes under this computer's kernels and under
    ``other``, the two replays run side by side (one per core: the records do not depend on
    the pace, and CI's budget does)."""
    a, b = folder / "default", folder / "other"
    procs = _start(args, a, {}), _start(args, b, other)
    return _record(procs[0], args, a), _record(procs[1], args, b)


def first_difference(a: list[str], b: list[str]) -> str | None:
    """'line N: …' naming the first line where the records differ, or None."""
    for i, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            return f"line {i}:\n  default: {x}\n  other:   {y}"
    if len(a) != len(b):
        return f"line {min(len(a), len(b)) + 1}: one record has {len(a)} lines, the other {len(b)}"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tests", action="store_true", help="also run tests/audio under the other kernels")
    opts = ap.parse_args(argv)
    other = other_kernels_env()
    print("other kernels:", " ".join(f"{k}={v!r}" for k, v in other.items()), flush=True)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in DEMOS.items():
            t0 = time.monotonic()
            a, b = replays(args, Path(tmp) / str(len(args)), other)
            diff = first_difference(a, b)
            took = time.monotonic() - t0
            if diff:
                failed += 1
                print(f"{name}: the records DIFFER at {diff}", flush=True)
            else:
                print(f"{name}: the same record, {len(a)} lines ({took:.0f} s for both)", flush=True)
    if opts.tests:
        cmd = [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadfile", "-p", "no:cacheprovider", "tests/audio",
               *(f"--ignore={path}" for path in KERNEL_FREE)]
        print("tests/audio under the other kernels:", flush=True)
        failed += subprocess.run(cmd, cwd=ROOT, env={**os.environ, **other}).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

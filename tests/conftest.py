"""Shared test helpers: the repo root, the shared data folder (read in place), the CLI."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
FIXTURES = ROOT / "fixtures"


def shared_path(*parts: str) -> Path:
    """A path inside ../shared, or skip the test saying the folder is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared test data not found at {path} (it lives beside the repo as ../shared)")
    return path


_MADE: dict = {}


#: A value that passed through BLAS, FFT, resampling or int8 kernels differs between machines in
#: its last bits (numpy's OpenBLAS picks SkylakeX kernels on AVX-512, Haswell's on AVX2): such
#: values are compared with these tolerances, never ``==``. ``KERNEL_REL``: a float64 (a level
#: in dB, a filter tap) within 1e-9 of its size; ``KERNEL_ABS32``: a float32 sample (full scale
#: 1.0) within 1e-6, some eight of its last bits at half scale.
KERNEL_REL = 1e-9
KERNEL_ABS32 = 1e-6


def assert_close(a, b, where: str = "value") -> None:
    """Assert ``a`` and ``b`` are equal, floats and float arrays within the kernel tolerances
    (:data:`KERNEL_REL`, :data:`KERNEL_ABS32`; NaN equals NaN), through dataclasses, tuples,
    lists and dicts; ints, strings, None and the shapes compared exactly. The message names
    where they differ."""
    import dataclasses
    import math

    import numpy as np

    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), f"{where}: {type(a).__name__} against {type(b).__name__}"
        for f in dataclasses.fields(a):
            assert_close(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, f"{where}: {a.shape} {a.dtype} against {b.shape} {b.dtype}"
        if a.dtype.kind == "f":
            tol = dict(rtol=0, atol=KERNEL_ABS32) if a.dtype == np.float32 else dict(rtol=KERNEL_REL, atol=1e-12)
            assert np.allclose(a, b, equal_nan=True, **tol), f"{where}: max difference {np.nanmax(np.abs(a - b))}"
        else:
            assert np.array_equal(a, b), f"{where} differs"
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{where}: keys differ"
        for k in a:
            assert_close(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), f"{where}: {a!r} against {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_close(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and not isinstance(b, (bool, str, type(None))):
        assert math.isclose(a, b, rel_tol=KERNEL_REL, abs_tol=1e-12) or (math.isnan(a) and math.isnan(b)), f"{where}: {a!r} against {b!r}"
    else:
        assert a == b, f"{where}: {a!r} against {b!r}"


def load_benchmark(name: str):
    """The module ``benchmarks/NAME.py`` (benchmarks are scripts, not a package), registered
    under its name first: its dataclasses look their module up there."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, mod)
    spec.loader.exec_module(mod)
    return mod


def two_seat_calibration(folder: Path) -> Path:
    """The demo's calibration cut to its first two seats, without voices, written into
    ``folder`` beside a copy of its card references (for short clips of the demo)."""
    import json
    import shutil

    shutil.copytree(FIXTURES / "demo" / "refs", folder / "refs")
    cal = json.loads((FIXTURES / "demo" / "calibration.json").read_text(encoding="utf-8"))
    cal["seats"] = cal["seats"][:2]
    cal.pop("enroll", None)
    (folder / "calibration.json").write_text(json.dumps(cal), encoding="utf-8")
    return folder / "calibration.json"


def once(key: str, make):
    """``make()`` once per test process: for a module or session fixture that replays or
    renders something heavy. pytest-xdist tears a worker's fixtures down whenever its queue
    runs dry and makes them again for the next test (the demo's replay was made twice per
    run: 50 s of a 2-GHz core each time); their folders live as long as the session."""
    if key not in _MADE:
        _MADE[key] = make()
    return _MADE[key]


@pytest.fixture
def run_cli():
    """Run the referee CLI in-process: ``run_cli("judge", path, "--json")`` -> click Result."""
    from referee.cli import cli

    runner = CliRunner()

    def run(*args: str, input: str | None = None):
        return runner.invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)

    return run


def start_xvfb(screen: str = "1000x720x24") -> tuple[subprocess.Popen, str]:
    """An Xvfb on a display number it picks itself (``-displayfd``: no two tests, on two test
    workers, race for one number), once it is ready: (process, ":N")."""
    r, w = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", screen, "-nolisten", "tcp"],
                            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    with os.fdopen(r) as f:
        number = f.readline().strip()
    if not number:
        proc.kill()
        pytest.skip("Xvfb did not start")
    return proc, f":{number}"

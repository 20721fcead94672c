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

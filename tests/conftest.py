"""Shared test helpers: the repo root, the shared data folder (read in place), the CLI."""

from __future__ import annotations

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


@pytest.fixture
def run_cli():
    """Run the referee CLI in-process: ``run_cli("judge", path, "--json")`` -> click Result."""
    from referee.cli import cli

    runner = CliRunner()

    def run(*args: str, input: str | None = None):
        return runner.invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)

    return run

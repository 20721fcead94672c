"""The calibration recording of the demo table, rendered once per test session."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import once

CHANNELS = (2, 0, 3, 1)  # seat i speaks on channel CHANNELS[i]: the map must be found, not assumed


@pytest.fixture(scope="session")
def recording(tmp_path_factory):
    """(folder, truth) of ``fixtures/demo/make_calibration.py``'s recording (~20 s to render)."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install -y espeak-ng): the test voices need it")
    from fixtures.demo import make_calibration

    def make():
        out = tmp_path_factory.mktemp("calrec")
        return out, make_calibration.write(out, CHANNELS)

    return once("calibration.recording", make)

"""A channel seconds late is moved back onto the others' clock by its leak paths: the demo
with dai's channel 3 s late is cancelled as the unchanged demo is (``audio.demix.realign_unfit``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"


def _cancelled(tmp_path: Path, x: np.ndarray, rate: int, name: str):
    from scipy.io import wavfile

    from audio import hearing

    wav = tmp_path / f"{name}.wav"
    wavfile.write(wav, rate, (np.clip(x, -1, 1) * 32767).astype(np.int16))
    warnings: list[str] = []
    source, _ = hearing.open_source(DEMO / "session.mp4", wav, warnings, demix=True,
                                    leakage_from=DEMO / "seats.wav", rate=rate)
    return source, warnings


def test_the_demo_with_a_channel_3_s_late_is_cancelled_as_the_unchanged_one(tmp_path):
    from audio.capture import read_all

    if not (DEMO / "seats.wav").is_file():
        pytest.skip(f"{DEMO / 'seats.wav'} not found")
    x, rate = read_all(DEMO / "seats.wav")
    x = x.astype(np.float64)
    d = 3 * rate
    late = x.copy()
    late[d:, 3], late[:d, 3] = x[:-d, 3], 0.0
    base, _ = _cancelled(tmp_path, x, rate, "unchanged")
    moved, warnings = _cancelled(tmp_path, late, rate, "late")
    assert getattr(base, "realigned", {}) == {}
    assert moved.unfit == [3] and moved.realigned == {3: d}  # found, moved back; dai still not heard
    assert any("channel 3 is 3.000 s late" in w for w in warnings)
    assert not any("not cancelled" in w for w in warnings)  # every leak pair fits again
    # the other seats' cancelled channels: those of the unchanged demo, up to where dai's moved
    # channel ends (after it, his voice is cancelled by its fingerprint, as a muted seat's)
    end = len(x) - d - int(0.1 * rate)
    a, b = np.asarray(base.data, np.float64)[:end, :3], np.asarray(moved.data, np.float64)[:end, :3]
    left = 10 * np.log10(np.sum((a - b) ** 2, axis=0) / np.sum(a ** 2, axis=0))
    assert np.all(left < -40), left

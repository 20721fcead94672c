"""The moment of a slap on the video clock, and the audio-video offset it gives with the
slap's sound (generated clip with known truth, contact between frames)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration import steps
from vision.contact import contact_time, slap_clip

RATE = 16000


def _take(onset: float, seconds: float = 2.0, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).normal(0, 0.002, int(seconds * RATE))
    n = int(round(onset * RATE))
    x[n:n + 300] += 0.5 * np.exp(-np.arange(300) / 50)
    return x


@pytest.mark.parametrize("t_contact", [1.0, 1.0123, 1.0251])
def test_contact_is_found_between_frames(t_contact):
    c = contact_time(slap_clip(t_contact))
    assert c is not None
    assert abs(c.t - t_contact) < 0.003  # a frame is 33 ms: the interpolation does better than 3 ms
    assert c.speed > steps.MIN_SLAP_SPEED


@pytest.mark.parametrize("offset", [0.0837, -0.021])
def test_av_offset_recovered_within_5_ms(offset):
    t_contact = 1.0123
    got, checks = steps.av_offset(slap_clip(t_contact), _take(t_contact - offset), RATE)
    assert got is not None and abs(got - offset) <= 0.005
    assert [c.level for c in checks] == ["ok"]
    assert f"{abs(offset) * 1000:.0f} ms" in checks[0].message


def test_no_slap_or_no_sound_is_a_warning_not_an_offset():
    still = [(t, slap_clip(5.0)[0][1]) for t, _ in slap_clip(5.0)]  # the hand never comes
    got, checks = steps.av_offset(still, _take(1.0), RATE)
    assert got is None and checks[0].level == "warn" and "no slap seen" in checks[0].message
    got, checks = steps.av_offset(slap_clip(1.0), np.zeros(2 * RATE), RATE)
    assert got is None and "not heard" in checks[0].message


def test_an_implausible_offset_is_warned_about():
    assert steps.av_offset_checks(0.6)[0].level == "warn"
    assert steps.av_offset_checks(None)[0].level == "warn"
    assert steps.av_offset_checks(0.08)[0].level == "ok"

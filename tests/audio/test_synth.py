"""The test-audio generator: known onsets, cross-talk and noise where they are asked for."""

import shutil

import numpy as np
import pytest

from audio import synth


def test_mix_puts_the_seat_at_0_db_and_cross_talk_10_db_lower_and_later():
    clip = np.zeros(1600, np.float32)
    clip[100:] = np.cos(np.arange(1500) / 5).astype(np.float32) * 0.5
    mix = synth.mix_table(3, 1.0, [synth.Shout(1, clip, 0.25)], snr_db=80, seed=0)
    onsets = [int(np.flatnonzero(np.abs(mix[:, ch]) > 0.01)[0]) for ch in range(3)]
    assert onsets[1] == 4000 + 100
    assert all(32 <= onsets[ch] - onsets[1] <= 64 + 2 for ch in (0, 2))  # 2-4 ms later
    ratio = np.abs(mix[:, 0]).max() / np.abs(mix[:, 1]).max()
    assert ratio == pytest.approx(10 ** (-10 / 20), rel=0.05)
    assert synth.Shout(1, clip, 0.25).onset == pytest.approx(0.25 + 100 / synth.RATE)


def test_same_seed_same_recording():
    clip = np.ones(800, np.float32) * 0.1
    a = synth.mix_table(2, 0.5, [synth.Shout(0, clip, 0.1)], snr_db=20, seed=4)
    b = synth.mix_table(2, 0.5, [synth.Shout(0, clip, 0.1)], snr_db=20, seed=4)
    assert np.array_equal(a, b)


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="Debian espeak-ng not installed")
def test_espeak_fallback_voice_reads_kana():
    x = synth.say("いか", "ja", engine="espeak")
    assert len(x) > 0.2 * synth.RATE and synth.true_onset(x) <= 0.02 * synth.RATE + 1  # leading silence trimmed

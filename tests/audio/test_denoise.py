"""The front end that takes the room's steady noise out of an utterance's mel power."""

import numpy as np
import pytest

from audio.denoise import DenoiseParams, noise_estimate, suppress, worth_denoising
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
    # the noise alone (a band far from the tone, and the pre-roll) goes down relative to the
    # tone's peak, which stays the loudest band (the floor, 0.2 of the noise's mean, leaves
    # the noise's frames ~5 dB under where they were)
    rel = lambda m, band, frames: float((m[band, frames] - m[tone_band, word].mean()).mean())  # noqa: E731
    assert rel(clean, far, word) < rel(plain, far, word) - 0.1  # features are log10 / 4: 0.1 = 4 dB
    assert rel(clean, tone_band, slice(5, 40)) < rel(plain, tone_band, slice(5, 40)) - 0.1
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


def test_a_word_like_burst_in_the_pre_roll_leaves_the_word_as_it_was():
    """Another seat's word in the first 0.4 s (not steady noise): the estimate would be the
    burst; nothing is subtracted, so the word's bands keep their power."""
    rng = np.random.default_rng(4)
    mel = (np.abs(rng.standard_normal((80, 150))) * 0.1 + 1.0).astype(np.float32)  # steady noise
    mel[:20, 10:30] += 100.0  # a word-like burst in the pre-roll's low bands
    mel[:40, 60:140] += 30.0  # the word, filling more than half the utterance (the cap misses)
    p = DenoiseParams()
    assert noise_estimate(mel, 150, p, HOP / RATE)[:20].min() > 2 * 1.5  # what would have come off
    assert not worth_denoising(mel, 150, p, HOP / RATE)
    out = suppress(mel, 150, p, HOP / RATE)
    assert np.array_equal(out[:40, 60:140], mel[:40, 60:140])


def test_steady_noise_is_still_subtracted_however_loud_the_word():
    """The steadiness gate does not refuse steady noise, 15 dB or 50 dB under the word."""
    rng = np.random.default_rng(5)
    noise = (np.abs(rng.standard_normal((80, 150))) * 0.1 + 1.0).astype(np.float32)
    for word_db in (15.0, 50.0):
        mel = noise.copy()
        mel[:40, 60:140] += 10 ** (word_db / 10) * 2  # the word's total power word_db over the noise's
        assert worth_denoising(mel, 150, DenoiseParams(), HOP / RATE)
        assert (suppress(mel, 150, DenoiseParams(), HOP / RATE)[60:, 60:140] < mel[60:, 60:140]).all()


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
                                 {"floor": 2.0}, {"max_swing_db": 0.0}])
def test_params_are_validated(bad):
    with pytest.raises(ValueError):
        DenoiseParams(**bad)


def test_the_window_step_rounds_the_utterance_up_and_stays_within_the_window():
    from types import SimpleNamespace

    from audio.whisper import WhisperParams, WhisperRecognizer

    frames = lambda n, **kw: WhisperRecognizer.frames(SimpleNamespace(p=WhisperParams(**kw)), n)  # noqa: E731
    assert frames(RATE, window_step_s=None) == 300  # the full 3 s window without a step
    assert frames(int(1.2 * RATE), window_step_s=0.5, window_min_s=None) == 150
    assert frames(int(1.5 * RATE), window_step_s=0.5, window_min_s=None) == 150
    assert frames(10 * RATE, window_step_s=0.5, window_min_s=None) == 300
    assert frames(10, window_step_s=0.5, window_min_s=None) == 50
    # the shortest of 2.0 / 2.5 / 3.0 s that holds the utterance
    assert frames(int(1.2 * RATE), window_step_s=0.5, window_min_s=2.0) == 200
    assert frames(int(2.1 * RATE), window_step_s=0.5, window_min_s=2.0) == 250
    assert frames(int(2.6 * RATE), window_step_s=0.5, window_min_s=2.0) == 300
    assert frames(10 * RATE, window_step_s=0.5, window_min_s=2.0) == 300


def test_the_noise_margin_tells_a_noisy_room_from_a_quiet_one():
    """``noise_margin_db``: a word's loud frames over the pre-roll's steady noise (what
    ``WhisperParams.views_noise_db`` reads)."""
    from audio.denoise import DenoiseParams, noise_margin_db
    from audio.whisper import mel_power

    rng = np.random.default_rng(3)
    t = np.arange(int(0.6 * 16000)) / 16000
    word = np.concatenate([np.zeros(int(0.6 * 16000)), 0.1 * np.sin(2 * np.pi * 300 * t), np.zeros(8000)])
    margins = {}
    for db in (10, 50):
        x = word + rng.standard_normal(len(word)) * 0.1 / np.sqrt(2) * 10 ** (-db / 20)
        margins[db] = noise_margin_db(*mel_power(x, 300), DenoiseParams(), 0.01)
    assert 5 < margins[10] < 18 and margins[50] > 40

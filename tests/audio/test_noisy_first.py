"""The utterance brought to a level before the denoised features (``DenoiseParams.level_db``): the
last of the second looks in a noisy room, or (``WhisperParams.noisy_first``, off) the first look."""

import numpy as np
import pytest

from audio.denoise import DenoiseParams, to_level
from rules import vocabulary


def _word(n=16000, level=0.05, seed=0):
    """A 0.6 s pre-roll of microphone hiss, then a 300 Hz burst (the utterance)."""
    rng = np.random.default_rng(seed)
    t = np.arange(n) / 16000
    burst = np.where(t >= 0.6, np.sin(2 * np.pi * 300 * t), 0.0) * level * np.sqrt(2)
    return burst + rng.standard_normal(n) * 10 ** (-65 / 20)


def test_the_loudest_frame_reaches_the_level():
    x = _word(level=0.01)
    y = to_level(x, 0.0)
    frames = (y[: len(y) // 160 * 160].reshape(-1, 160) ** 2).mean(axis=1)
    assert np.isclose(10 * np.log10(frames.max()), 0.0, atol=1e-6)
    # a plain scaling (the same waveform), whatever the input's level
    assert np.allclose(y / y[10000], x / x[10000])
    assert np.allclose(to_level(x * 30, -6.0), to_level(x, -6.0))


def test_no_level_and_silence_are_left_as_they_are():
    x = _word()
    assert to_level(x, None) is x
    silent = np.zeros(8000)
    assert np.array_equal(to_level(silent, 0.0), silent)
    assert np.array_equal(to_level(np.ones(10), 0.0), np.ones(10))  # shorter than a frame


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 40.0])
def test_the_level_is_validated(bad):
    with pytest.raises(ValueError):
        DenoiseParams(level_db=bad)


def test_noisy_first_is_validated():
    from audio.whisper import WhisperParams

    for bad in ("loud", 0.0, (DenoiseParams(),)):
        with pytest.raises(ValueError):
            WhisperParams(noisy_first=bad)
    WhisperParams(noisy_first=None)


def _noisy(word, snr_db, seed=1):
    rng = np.random.default_rng(seed)
    level = np.sqrt(np.mean(word[9600:] ** 2))
    return word + rng.standard_normal(len(word)) * level * 10 ** (-snr_db / 20)


def test_with_noisy_first_a_noisy_room_looks_first_through_the_levelled_view(english):
    from dataclasses import replace

    from audio.whisper import WhisperRecognizer

    levelled = DenoiseParams(level_db=0.0)
    on = WhisperRecognizer(vocabulary("ikatako", "coop"), "en", replace(english.p, noisy_first=levelled))
    quiet = _word(level=0.01)
    noisy = _noisy(quiet, 10.0)
    enc, view = on._first_look(noisy, 16000)
    assert view == levelled
    enc_q, view_q = on._first_look(quiet, 16000)
    assert view_q == "first"  # a quiet room: the features of ``denoise``, as ``encode`` gives them
    assert np.array_equal(np.asarray(enc_q), np.asarray(english.encode(quiet, 16000)))
    # the levelled look is another input than the plain denoised one
    assert not np.array_equal(np.asarray(enc), np.asarray(english.encode(noisy, 16000)))
    # by default (``noisy_first`` None) the noisy room's first look is ``denoise``'s, as before
    enc_off, view_off = english._first_look(noisy, 16000)
    assert view_off == "first" and np.array_equal(np.asarray(enc_off), np.asarray(english.encode(noisy, 16000)))


def test_the_levelled_view_is_the_last_look_where_the_others_refused(english):
    """In white noise 10 dB under a word whose call stands nowhere, the last look is the
    levelled one (its features are not those of the first look)."""
    from dataclasses import replace

    from audio.whisper import WhisperRecognizer

    assert english.p.second_views[-1] == DenoiseParams(level_db=0.0)
    strict = WhisperRecognizer(vocabulary("ikatako", "coop"), "en", replace(english.p, min_prompted=10.0))
    noisy = _noisy(_word(level=0.01), 10.0)
    heard = strict.decode(noisy, 16000)
    last = f"view{len(english.p.second_views) + 1}"
    assert heard.parsed.tokens == () and last in heard.extra
    assert "view2" not in strict.decode(_word(level=0.01), 16000).extra  # a quiet room: one look


def test_a_quiet_room_hears_the_same_with_and_without_the_noisy_look(english):
    from dataclasses import replace

    from audio.whisper import WhisperRecognizer

    x = _word(level=0.05, seed=3)
    off = WhisperRecognizer(vocabulary("ikatako", "coop"), "en", replace(english.p, noisy_first=None))
    a, b = english.decode(x, 16000), off.decode(x, 16000)
    assert (a.text, a.parsed, a.conf, a.extra) == (b.text, b.parsed, b.conf, b.extra)

"""The look averaged inside the model (``audio.whisper.ShiftedMean``): the mean of the encoder
outputs of one front-end's features with the utterance started a few ms later, tried only in a
noisy room where the first look refused the call."""

import numpy as np
import pytest

from rules import vocabulary


def _noisy_word(snr_db=10.0, n=20000, seed=0):
    """0.6 s of microphone hiss, then a 300 Hz burst; white noise ``snr_db`` under the burst
    (``snr_db`` None: a quiet room)."""
    rng = np.random.default_rng(seed)
    t = np.arange(n) / 16000
    burst = np.where(t >= 0.6, np.sin(2 * np.pi * 300 * t), 0.0) * 0.03
    x = burst + rng.standard_normal(n) * 10 ** (-65 / 20)
    if snr_db is not None:
        x = x + rng.standard_normal(n) * 0.03 / np.sqrt(2) * 10 ** (-snr_db / 20)
    return x


@pytest.mark.parametrize("bad", [{"shifts_s": ()}, {"shifts_s": [0.0, 0.005]}, {"shifts_s": (-0.01,)},
                                 {"shifts_s": (0.5,)}, {"shifts_s": ("5 ms",)}, {"denoise": "raw"}])
def test_shifted_mean_is_validated(bad):
    from audio.whisper import ShiftedMean

    with pytest.raises(ValueError):
        ShiftedMean(**bad)


def test_second_views_take_a_shifted_mean():
    from audio.whisper import ShiftedMean, WhisperParams

    p = WhisperParams()
    assert isinstance(p.second_views[0], ShiftedMean)
    WhisperParams(second_views=(ShiftedMean(), None))
    with pytest.raises(ValueError):
        WhisperParams(second_views=(ShiftedMean, None))  # the class, not a look


def test_the_look_is_the_mean_of_the_shifted_encodings(english):
    from audio.whisper import ShiftedMean, log_mel

    look = ShiftedMean(None, (0.0, 0.005, 0.015))
    x = _noisy_word()
    got = np.asarray(english.encode_view(x, 16000, look))
    each = [np.asarray(english._encode_features(log_mel(x[int(t * 16000):], english.frames(len(x)), None)))
            for t in look.shifts_s]
    assert np.allclose(got, np.mean(each, axis=0), atol=1e-6)
    # the shifts matter: the mean is not the unshifted look
    assert not np.allclose(got, each[0], atol=1e-4)
    # one shift of 0: the look through that front-end itself
    assert np.allclose(np.asarray(english.encode_view(x, 16000, ShiftedMean(None, (0.0,)))), each[0], atol=1e-6)


def test_no_shifted_look_in_a_quiet_room(english):
    from audio.whisper import ShiftedMean

    assert english.encode_view(_noisy_word(None), 16000, ShiftedMean()) is None


def test_its_prior_is_that_of_its_front_end(english):
    from audio.whisper import ShiftedMean

    assert english.prior(("2",), ShiftedMean(None)) == english.prior(("2",), None)

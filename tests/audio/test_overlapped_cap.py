"""A word said under a neighbour's voice in another room: the embedding's wider cap
(``CombinedEnrollment.overlapped_max_distance``, ``audio.rooms.OVERLAPPED_MAX_DISTANCE``; stop 52)
— taken only when a neighbour spoke over the word and the templates lean to the same call, and
the listener tells the verifier whether one did (``Listener.neighbour_speaks``: the measured
leaks' test, not the level test)."""

import rules

import numpy as np
import pytest

from audio import embedding, rooms, voices
from audio.demix import frame_levels
from audio.enroll import Verdict
from audio.listen import Listener, listen
from tests.audio.conftest import tone_burst
from tests.audio.test_listen_attribution import RATE, SEATS, SaysIka, _Source, _table


def _unit(cos: float) -> np.ndarray:
    """One 96-dim vector at cosine ``cos`` from the first axis, in the plane of the first two."""
    v = np.zeros((1, embedding.EMBED_DIM))
    v[0, 0], v[0, 1] = cos, np.sqrt(1 - cos * cos)
    return v


def _embedding_templates(rate=RATE) -> embedding.EmbeddingEnrollment:
    """Takes of "5" on the first axis and of "8" on the third: an utterance at cosine 0.83 from
    "5" lies (1 - 0.83) / 2 = 0.085 from it (one vector each: the cosine DTW over 2 steps)."""
    e = embedding.EmbeddingEnrollment(rate)
    eight = np.zeros((1, embedding.EMBED_DIM))
    eight[0, 2] = 1.0
    e.templates["aki"] = [(("5",), _unit(1.0)), (("8",), eight)]
    return e


def test_the_embedding_takes_a_cap_for_one_reading():
    e = _embedding_templates()
    feats = _unit(0.83)
    assert e.verify("aki", feats=feats).tokens is None  # 0.085 is past its own cap, 0.075
    assert e.verify("aki", feats=feats, max_distance=0.1).tokens == ("5",)
    assert e.verify("aki", feats=feats, max_distance=0.08).tokens is None


class _Templates:
    """A stand-in for the DTW templates: every utterance gets ``verdict``."""

    def __init__(self, verdict):
        self.verdict, self.rate = verdict, RATE

    def verify(self, player, samples=None, *, feats=None):
        return self.verdict


def _combined(dtw_nearest, cap=0.1, distance_cos=0.83):
    dtw = Verdict(None, 5.03, 0.007, (dtw_nearest,), by="dtw")
    verifier = voices.CombinedEnrollment(_Templates(dtw), _embedding_templates(), overlapped_max_distance=cap)
    return verifier, voices.Heard(None, _unit(distance_cos))


@pytest.mark.parametrize("overlapped, dtw_nearest, cap, cos, tokens", [
    (True, "5", 0.1, 0.83, ("5",)),    # under a neighbour's voice, the templates lean to 5: taken
    (False, "5", 0.1, 0.83, None),     # no neighbour speaking: the embedding's own cap
    (True, "8", 0.1, 0.83, None),      # the templates lean elsewhere: not taken
    (True, "5", None, 0.83, None),     # off (a session heard as calibrated)
    (True, "5", 0.1, 0.78, None),      # 0.11 from "5": past the wider cap too
])
def test_a_word_under_a_neighbours_voice_is_allowed_the_wider_cap(overlapped, dtw_nearest, cap, cos, tokens):
    verifier, heard = _combined(dtw_nearest, cap, cos)
    got = verifier.verify("aki", feats=heard, overlapped=overlapped)
    assert got.tokens == tokens
    assert got.overlapped is (tokens is not None)
    if tokens:
        assert got.by == "embedding" and got.distance == pytest.approx(0.085)


def test_a_word_the_templates_decide_is_left_as_it_was():
    sure = Verdict(("5",), 2.0, 1.6, ("5",), by="dtw")
    verifier = voices.CombinedEnrollment(_Templates(sure), _embedding_templates(), overlapped_max_distance=0.1)
    got = verifier.verify("aki", feats=voices.Heard(None, _unit(0.83)), overlapped=True)
    assert (got.tokens, got.by, got.overlapped) == (("5",), "dtw", False)


def test_from_folder_sets_the_cap_only_when_asked(monkeypatch):
    monkeypatch.setattr(voices, "read_takes", lambda folder, rate_hint=None: (RATE, []))
    monkeypatch.setattr(embedding, "available", lambda: True)
    assert voices.from_folder("x").overlapped_max_distance is None
    assert voices.from_folder("x", overlapped_max_distance=rooms.OVERLAPPED_MAX_DISTANCE).overlapped_max_distance \
        == rooms.OVERLAPPED_MAX_DISTANCE


class _Asked:
    """A stand-in for the enrolled voices that widens its cap: records what it was told."""

    rate, noise, max_distance, overlapped_max_distance = RATE, None, 5.0, 0.1

    def __init__(self):
        self.told = []

    def knows(self, player):
        return player is not None

    def features(self, samples, before=None, after=None):
        return samples

    def verify(self, player, samples=None, *, feats=None, overlapped=False):
        self.told.append((player, overlapped))
        return Verdict(None, 5.0, 0.0, None, by="neither")

    def voice_distances(self, tokens, samples=None, *, feats=None):
        return {}


#: every pair's measured leak (mic row, seat column), as make_listener sets ``Listener.leaks_db``
LEAKS = np.full((3, 3), -20.0)


def _told(neighbour: bool, leaks=LEAKS, leak_of_ben_db=None):
    x = _table()
    word = tone_burst(0.3, RATE, seed=2)
    x[8000 : 8000 + 4800, 1] += word
    if neighbour:
        x[8800 : 8800 + 4800, 2] += tone_burst(0.3, RATE, seed=5)
    if leak_of_ben_db is not None:  # ben's word and its echo on chie's microphone, no voice of hers
        tail = np.random.default_rng(9).standard_normal(1600) * np.exp(-np.arange(1600) / 400.0)
        tail[0] = 2.0  # the direct path, then a room's noise-like tail
        echo = np.convolve(word, tail / np.sqrt(np.sum(tail ** 2))) * 10 ** (leak_of_ben_db / 20)
        x[8000 : 8000 + len(echo), 2] += echo
    asked = _Asked()
    level = round(float(np.max(frame_levels(word))), 1)
    lis = Listener(SEATS, 3, RATE, SaysIka(), verifier=asked, speech_db=[level] * 3)
    lis.leaks_db = leaks
    events = list(listen(_Source(x), lis))
    return asked.told, [e["player"] for e in events if e["type"] == "shout"]


def test_the_listener_tells_the_verifier_whether_a_neighbour_spoke_over_the_word():
    told, shouts = _told(neighbour=True)
    assert shouts == ["ben", "chie"]
    assert ("ben", True) in told and ("chie", True) in told
    told, shouts = _told(neighbour=False)
    assert shouts == ["ben"] and told and all(o is False for _, o in told)


def test_the_seats_own_leak_and_echo_on_a_neighbours_microphone_is_no_neighbour_speaking():
    # ben's word reaches chie's microphone 5 dB down with a tail, as the pair's measured leak
    # says: within own_level_db (-10 dB) of her speech level, but not own_db (6 dB) above the leak
    told, shouts = _told(neighbour=False, leaks=np.full((3, 3), -5.0), leak_of_ben_db=-5.0)
    assert "ben" in shouts and all(o is False for p, o in told if p == "ben")


def test_without_measured_leaks_no_neighbour_is_said_to_speak():
    told, shouts = _told(neighbour=True, leaks=None)
    assert shouts == ["ben", "chie"] and all(o is False for _, o in told)
    told, _ = _told(neighbour=True, leaks=np.full((3, 3), np.nan))
    assert all(o is False for _, o in told)


def test_a_verifier_without_the_wider_cap_is_not_asked():
    # the listener's other verifiers (the templates alone, a stand-in) take no ``overlapped``
    class Plain(_Asked):
        overlapped_max_distance = None

        def verify(self, player, samples=None, *, feats=None):
            self.told.append((player, None))
            return Verdict(None, 5.0, 0.0, None, by="neither")

    x = _table()
    x[8000 : 8000 + 4800, 1] += tone_burst(0.3, RATE, seed=2)
    x[8800 : 8800 + 4800, 2] += tone_burst(0.3, RATE, seed=5)
    plain = Plain()
    lis = Listener(SEATS, 3, RATE, SaysIka(), verifier=plain)
    lis.leaks_db = LEAKS
    list(listen(_Source(x), lis))
    assert plain.told and all(o is None for _, o in plain.told)


def test_the_cap_is_wider_than_the_embeddings_own():
    assert rooms.OVERLAPPED_MAX_DISTANCE > embedding.EmbeddingEnrollment(RATE).max_distance

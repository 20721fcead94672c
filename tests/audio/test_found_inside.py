"""The word found inside its span (audio.found_inside, issue 31 item 6): babble taken into an
utterance before the word made the enrolled voices abstain; read again from where the seat's
voice rises out of the babble, the call is found and the shout's onset is re-anchored there."""

import functools

import numpy as np
import pytest

from audio import enroll, synth
from audio.capture import Block
from audio.found_inside import FoundParams, find_inside, voiced_rise
from audio.lexicon import Parsed
from audio.listen import Listener, ListenParams, listen
from audio.onset import Segment
from audio.whisper import Heard

R = synth.RATE
BABBLE_S = 1.5  # the word comes after this much babble


@functools.lru_cache(maxsize=None)
def voices() -> enroll.Enrollment:
    """dai's takes of four calls (two speeds each), the DTW templates alone."""
    v = enroll.Enrollment(R)
    for text, token in [("イカ", "ika"), ("タコ", "tako"), ("サルベージ", "salvage"), ("イカタコ", "ikatako")]:
        for speed in (0.9, 1.1):
            v.add("dai", (token,), enroll.trim(synth.say(text, "ja", 1, speed=speed), R))
    return v


@functools.lru_cache(maxsize=None)
def table() -> tuple[np.ndarray, int, int]:
    """dai's タコ after 1.5 s of other voices' babble 12 dB under it (the babble stops at the
    word), then quiet: the channel, the word's true onset and its end (samples)."""
    talk = [synth.say(t, "ja", v) for t, v in [("きょうはいいてんきですね", 2), ("あしたはあめがふるでしょう", 3),
                                               ("どこへいきますか", 4), ("おなかがすいた", 2)]]
    word = synth.say("タコ", "ja", 1)
    babble = synth.babble(2.0, np.random.default_rng(5), talk) * synth.active_rms(word) * 10 ** (-12 / 20)
    x = np.concatenate([babble, np.zeros(int(0.4 * R))]).astype(np.float32)
    at = int(BABBLE_S * R)
    x[at: at + len(word)] += word
    return x, at + synth.true_onset(word), at + len(word)


class Deaf:
    """A word engine that hears nothing: the enrolled voices alone decide."""

    def decode(self, window, rate):
        return Heard("", (), None, Parsed(()), {})


def reader(x: np.ndarray):
    """``(samples, read)`` over one channel, a span read as the listener reads one."""
    pre = int(ListenParams().verify_pre_roll_s * R)

    def samples(channel, a, b):
        return x[max(0, a): max(0, b)]

    def read(seg):
        a = max(seg.start - pre, 0)
        feats = voices().features(x[a: seg.end], x[max(0, a - int(0.3 * R)): a], x[seg.end: seg.end + int(0.1 * R)])
        return voices().verify("dai", feats=feats), feats

    return samples, read


def shouts(params: ListenParams) -> list[dict]:
    x, _, _ = table()
    listener = Listener(["dai"], 1, R, Deaf(), verifier=voices(), params=params)
    blocks = [Block(i, x[i: i + 320, None], R) for i in range(0, len(x), 320)]
    return [e for e in listen(blocks, listener) if e["type"] == "shout" and e["t"] > BABBLE_S - 0.3]


def test_a_word_after_babble_is_heard_with_its_onset_re_anchored():
    """The detector took ~160 ms of babble into dai's utterance: the enrolled voices abstained on
    it (without the search: a shout without words, its onset in the babble). With it: タコ, its
    onset within 15 ms of the word's true onset, and the record names the onset it replaced."""
    _, onset, _ = table()
    off = shouts(ListenParams(found=None))
    assert len(off) == 1 and off[0]["words"] == [] and off[0]["t"] < onset / R - 0.1
    on = shouts(ListenParams())
    assert len(on) == 1 and on[0]["words"] == ["tako"]
    assert on[0]["t"] == pytest.approx(onset / R, abs=0.015)
    assert on[0]["found_inside"] == {"onset_from": off[0]["t"]}


@pytest.mark.parametrize("lead_s", [0.1, 0.25])
def test_the_call_is_read_from_where_the_voice_rises(lead_s):
    x, onset, end = table()
    samples, read = reader(x)
    seg = Segment(0, onset - int(lead_s * R), end, R)
    assert read(seg)[0].tokens is None  # the span with the babble: no call
    found, verdict, _ = find_inside(seg, samples, read, ListenParams().own_db, FoundParams())
    assert verdict.tokens == ("tako",)
    assert abs(found.start - onset) <= 0.015 * R and found.end == end  # the end is never moved


def test_a_span_that_starts_with_its_voice_is_not_searched():
    """The word alone, handed from its onset: nothing before the rise to drop, no second reading."""
    x, onset, end = table()
    quiet = x.copy()
    quiet[: onset] = 0.0
    samples, read = reader(quiet)
    calls = []
    assert find_inside(Segment(0, onset, end, R), samples, lambda s: calls.append(s) or read(s),
                       ListenParams().own_db, FoundParams()) is None
    assert calls == []


def test_the_rise_crosses_a_stops_closure_not_a_longer_quiet():
    level = np.full(200, -40.0)
    level[150:] = 0.0  # the loud core
    level[110:140] = -20.0  # the word's soft start, 10 ms of closure (140-149) before the core
    assert voiced_rise(level, floor_db=-30.0, own_db=6.0, voice_db=6.0, gap=20) == 110
    level[60:80] = -20.0  # a babble burst 30 ms before the soft start: not crossed
    assert voiced_rise(level, floor_db=-30.0, own_db=6.0, voice_db=6.0, gap=20) == 110

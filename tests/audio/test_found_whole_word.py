"""The whole word's take (audio.found_whole, issue 31 item 6): a word that ends with another
call (イカタコ ends with タコ) after a babble burst that opened the utterance; the free start's
best take is a タコ that matched the word's second half, refused by the loud-core rule — the
whole word's take, whose reading holds the loud core, is tried instead."""

import functools

import numpy as np

from audio import enroll, synth
from audio.found_inside import FoundParams, find_inside
from audio.found_start import best_start, find_from_start, mel_power
from audio.listen import ListenParams
from audio.onset import Segment
from tests.audio.test_found_inside import R, reader

QUIET_S = 1.0


@functools.lru_cache(maxsize=None)
def word() -> np.ndarray:
    return synth.say("イカタコ", "ja", 1)


@functools.lru_cache(maxsize=None)
def voices() -> enroll.Enrollment:
    """dai's takes: イカタコ said more slowly and faster than the shout, and a タコ that is the
    shout's own second half (so it matches the word's end better than any イカタコ take matches
    the whole: what a タコ take did to aki's イカタコ under the demo's babble)."""
    v = enroll.Enrollment(R)
    for text, token, speeds in [("イカ", "ika", (0.9, 1.1)), ("サルベージ", "salvage", (0.9, 1.1)),
                                ("イカタコ", "ikatako", (0.85, 1.2))]:
        for speed in speeds:
            v.add("dai", (token,), enroll.trim(synth.say(text, "ja", 1, speed=speed), R))
    v.add("dai", ("tako",), enroll.trim(word()[int(0.4 * len(word())):], R))
    v.add("dai", ("tako",), enroll.trim(synth.say("タコ", "ja", 1), R))
    return v


@functools.lru_cache(maxsize=None)
def table() -> tuple[np.ndarray, int, int]:
    """Quiet, a 0.4 s babble burst 10 dB under the word, 50 ms of quiet, イカタコ, quiet: the
    channel, the word's true onset and its end (samples)."""
    talk = [synth.say(t, "ja", v) for t, v in [("きょうはいいてんきですね", 2), ("あしたはあめがふるでしょう", 3)]]
    burst = synth.babble(0.4, np.random.default_rng(5), talk) * synth.active_rms(word()) * 10 ** (-10 / 20)
    at = int(QUIET_S * R) + len(burst) + int(0.05 * R)
    x = np.zeros(at + len(word()) + int(0.5 * R), np.float32)
    x[int(QUIET_S * R): int(QUIET_S * R) + len(burst)] += burst
    x[at: at + len(word())] += word()
    return x, at + synth.true_onset(word()), at + len(word())


def read_with(x):
    pre = int(ListenParams().verify_pre_roll_s * R)

    def read(seg):
        a = max(seg.start - pre, 0)
        feats = voices().features(x[a: seg.end], x[max(0, a - int(0.3 * R)): a], x[seg.end: seg.end + int(0.1 * R)])
        return voices().verify("dai", feats=feats), feats

    return read


def search(whole_word: bool):
    x, _, end = table()
    samples, _ = reader(x)
    seg = Segment(0, int(QUIET_S * R), end, R)
    return find_from_start(seg, samples, read_with(x), voices().templates["dai"], R, ListenParams().own_db,
                           FoundParams(whole_word=whole_word))


def test_the_best_take_is_the_words_end_and_neither_the_span_nor_the_rise_decides():
    x, onset, end = table()
    samples, _ = reader(x)
    seg = Segment(0, int(QUIET_S * R), end, R)
    assert read_with(x)(seg)[0].tokens is None
    assert find_inside(seg, samples, read_with(x), ListenParams().own_db, FoundParams()) is None
    call, first, _ = best_start(voices().templates["dai"], np.log(mel_power(x[seg.start: end], R) + 1e-10))
    assert call == ("tako",) and seg.start + first * 0.01 * R > onset + 0.2 * R  # matched inside the word
    assert search(whole_word=False) is None  # refused by the loud-core rule: the search ended there


def test_the_whole_words_take_is_tried_where_the_best_take_was_refused():
    _, onset, end = table()
    found, verdict, _ = search(whole_word=True)
    assert verdict.tokens == ("ikatako",)
    assert abs(found.start - onset) <= 0.015 * R and found.end == end


def test_no_match_the_holds_test_refuses_is_taken():
    rng = np.random.default_rng(1)
    take = rng.normal(size=(20, 4))
    span = np.concatenate([rng.normal(size=(30, 4)) + 3.0, take, rng.normal(size=(10, 4)) - 3.0])
    assert best_start([(("a",), take)], span)[1:] == (30, 49)
    assert best_start([(("a",), take)], span, holds=lambda first, last: first < 30) is None

"""The word found with a free start (audio.found_start, issue 31 item 6): a babble burst opened
the utterance on a channel quiet before it, so the rise (audio.found_inside) has nothing to
rise out of and abstains; the enrolled takes slid along the span find where the word starts,
the word is read from there and the shout's onset is re-anchored."""

import functools

import numpy as np
import pytest

from audio import synth
from audio.capture import Block
from audio.found_inside import FoundParams, find_inside
from audio.found_start import find_from_start, open_begin
from audio.listen import Listener, ListenParams, listen
from audio.onset import Segment
from tests.audio.test_found_inside import Deaf, R, reader, voices

QUIET_S = 1.0  # the channel is quiet this long, then the burst opens the utterance


@functools.lru_cache(maxsize=None)
def table(word_text: str | None = "タコ") -> tuple[np.ndarray, int, int]:
    """Quiet, then 0.4 s of two other voices' babble 10 dB under dai's word, 50 ms of quiet,
    then the word (none: ``word_text`` None), then quiet: the channel, the word's true onset
    and its end (samples)."""
    talk = [synth.say(t, "ja", v) for t, v in [("きょうはいいてんきですね", 2),
                                               ("あしたはあめがふるでしょう", 3)]]
    word = synth.say(word_text or "タコ", "ja", 1)
    burst = synth.babble(0.4, np.random.default_rng(5), talk) * synth.active_rms(word) * 10 ** (-10 / 20)
    at = int(QUIET_S * R) + len(burst) + int(0.05 * R)
    x = np.zeros(at + len(word) + int(0.5 * R), np.float32)
    x[int(QUIET_S * R): int(QUIET_S * R) + len(burst)] += burst
    if word_text:
        x[at: at + len(word)] += word
    return x, at + synth.true_onset(word), at + len(word)


def takes():
    return voices().templates["dai"]


def test_a_take_is_found_where_it_starts_inside_a_longer_span():
    rng = np.random.default_rng(1)
    take = rng.normal(size=(20, 4))
    span = np.concatenate([rng.normal(size=(30, 4)) + 3.0, take, rng.normal(size=(10, 4)) - 3.0])
    cost, start, end = open_begin(take, span)
    assert (start, end, cost) == (30, 49, 0.0)
    slow = np.concatenate([span[:30], np.repeat(take, 2, axis=0)[:-1], span[50:]])  # said twice as slowly
    assert open_begin(take, slow)[1] in (30, 31)  # its first frame said twice: either is its start


def test_the_word_after_a_burst_that_opened_the_utterance_is_found_where_it_starts():
    x, onset, end = table()
    samples, read = reader(x)
    seg = Segment(0, int(QUIET_S * R), end, R)
    assert read(seg)[0].tokens is None  # the span with the burst: no call
    assert find_inside(seg, samples, read, ListenParams().own_db, FoundParams()) is None  # nothing to rise out of
    found, verdict, _ = find_from_start(seg, samples, read, takes(), R, ListenParams().own_db, FoundParams())
    assert verdict.tokens == ("tako",)
    assert abs(found.start - onset) <= 0.015 * R and found.end == end  # the end is never moved


def test_a_burst_without_a_word_is_no_call():
    x, _, end = table(None)
    samples, read = reader(x)
    seg = Segment(0, int(QUIET_S * R), int(QUIET_S * R) + int(0.4 * R), R)
    assert find_from_start(seg, samples, read, takes(), R, ListenParams().own_db, FoundParams()) is None


def shouts(params: ListenParams) -> list[dict]:
    x, _, _ = table()
    listener = Listener(["dai"], 1, R, Deaf(), verifier=voices(), params=params)
    blocks = [Block(i, x[i: i + 320, None], R) for i in range(0, len(x), 320)]
    return [e for e in listen(blocks, listener) if e["type"] == "shout"]


def test_the_listener_re_anchors_the_onset_where_the_word_was_found():
    """Without the free start: a shout without words, its onset at the burst. With it: タコ,
    its onset within 15 ms of the word's, and the record names the onset it replaced."""
    _, onset, _ = table()
    off = shouts(ListenParams(found=FoundParams(free_start=False)))
    assert len(off) == 1 and off[0]["words"] == [] and off[0]["t"] == pytest.approx(QUIET_S, abs=0.01)
    on = shouts(ListenParams())
    assert len(on) == 1 and on[0]["words"] == ["tako"]
    assert on[0]["t"] == pytest.approx(onset / R, abs=0.015)
    assert on[0]["found_inside"] == {"onset_from": off[0]["t"]}


def test_the_word_is_read_to_where_the_take_ends_when_babble_held_the_span_open():
    """The burst before the word and 0.5 s of babble after it in one utterance: read from the
    word's start to the span's end, no call; read to where the matching take ends, タコ."""
    x, onset, end = table()
    y = x.copy()
    talk = [synth.say("どこへいきますか", "ja", 4), synth.say("おなかがすいた", "ja", 2)]
    y[end: end + int(0.5 * R)] += synth.babble(0.5, np.random.default_rng(15), talk) * np.sqrt(np.mean(
        x[onset:end] ** 2)) * 10 ** (-10 / 20)
    samples, read = reader(y)
    seg = Segment(0, int(QUIET_S * R), end + int(0.5 * R), R)
    assert find_from_start(seg, samples, read, takes(), R, ListenParams().own_db, FoundParams(free_end=False)) is None
    found, verdict, _ = find_from_start(seg, samples, read, takes(), R, ListenParams().own_db, FoundParams())
    assert verdict.tokens == ("tako",)
    assert abs(found.start - onset) <= 0.015 * R and abs(found.end - end) <= 0.03 * R

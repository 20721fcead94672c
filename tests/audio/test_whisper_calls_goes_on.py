"""The call must end where it is scored: the model's expectation that the speech goes on as a
word after the call (``audio.whisper_calls.goes_on``, gate ``WhisperParams.max_goes_on``)."""

import math

import numpy as np
import pytest

from audio import whisper_calls as wc

# a toy vocabulary: 0 end, 1 ",", 2 "1", 3 "2", 4 "分" (a word), 5 "one" (begins a call), 6 " "
TEXT = {0: "", 1: ",", 2: "1", 3: "2", 4: "分", 5: "one", 6: " "}


class Tok:
    def decode(self, ids):
        return "".join(TEXT[i] for i in ids)


def _trie():
    return wc.CallTrie(None, "ja", lambda s: {"1": [2]}.get(s, []), [0, 1], only=[("1",)]), None


def _dist(**p):
    """A log-distribution over the toy vocabulary (the rest of the mass on " ")."""
    v = np.full(len(TEXT), 1e-6)
    for tok, q in p.items():
        v[{"end": 0, "comma": 1, "one": 2, "two": 3, "fun": 4, "word_call": 5}[tok]] = q
    v[6] = max(1e-6, 1 - v.sum())
    return np.log(v / v.sum())


def test_word_tokens_are_letters_kana_kanji_not_digits_punctuation_or_specials():
    words = wc.word_tokens(Tok(), len(TEXT), text_below=6)
    assert words.tolist() == [False, False, False, False, True, True, False]


def test_a_word_after_the_call_goes_on_an_end_does_not():
    trie, _ = _trie()
    words = np.array([False, False, False, False, True, False, False])
    on = wc.goes_on(_dist(end=0.1, fun=0.8), words, trie, (2,))
    off = wc.goes_on(_dist(end=0.8, comma=0.1, fun=0.02), words, trie, (2,))
    assert on == pytest.approx(math.log(0.8 / 0.1), abs=1e-3)
    assert off == pytest.approx(math.log(0.02 / 0.9), abs=1e-3)


def test_a_token_that_begins_or_continues_a_call_is_no_word_going_on():
    """After "1", a "one" (a spelling of a call: a Repeat said twice) is a call, not more talk."""
    trie = wc.CallTrie(None, "en", lambda s: {"1": [2], "one": [5]}.get(s.strip().lower(), []), [0, 1], only=[("1",)])
    words = np.array([False, False, False, False, True, True, False])
    assert 5 in trie.children[()]
    with_call = wc.goes_on(_dist(end=0.2, word_call=0.7, fun=0.01), words, trie, (2,))
    assert with_call == pytest.approx(math.log(0.01 / 0.2), abs=1e-2)


def test_the_gate_is_validated():
    from audio.whisper import WhisperParams

    for bad in (float("inf"), float("nan")):
        with pytest.raises(ValueError):
            WhisperParams(max_goes_on=bad)
    assert WhisperParams(max_goes_on=None).max_goes_on is None


def test_a_real_word_that_begins_with_a_number_is_refused_where_it_goes_on():
    """Real 午前 (ごぜん) and 睡眠 (すいみん): their first sound is a number ("5", "3") and the
    scored call stands with this gate off; after the call the model expects the rest of the
    word, so with the gate it is no call. A real English digit ends where it is scored."""
    import csv
    from pathlib import Path

    from audio.capture import read_all
    from rules import vocabulary
    from audio.whisper import WhisperParams, WhisperRecognizer
    from session.errors import ModelMissing

    root = Path(__file__).resolve().parents[2]
    speech = next((p / "shared" / "data" / "speech" for p in root.parents if (p / "shared" / "data" / "speech").is_dir()),
                  root.parent / "shared" / "data" / "speech")
    if not speech.is_dir():
        pytest.skip(f"{speech} not found (the shared real-speech data)")
    try:
        on = WhisperRecognizer(vocabulary("ikatako", "coop"), "ja")
    except ModelMissing as exc:
        pytest.skip(str(exc))
    off = WhisperRecognizer(vocabulary("ikatako", "coop"), "ja", WhisperParams(max_goes_on=None))
    rows = list(csv.DictReader(open(speech / "labels.csv", encoding="utf-8")))

    def clip(row):
        x, rate = read_all(speech / row["file"])
        pad = np.zeros(int(0.6 * rate))
        return np.concatenate([pad, x.mean(axis=1), pad]), rate

    refused = 0
    for word in ("午前【ごぜん】", "睡眠【すいみん】"):
        x, rate = clip(next(r for r in rows if r["text"] == word))
        free, gated = off.decode(x, rate), on.decode(x, rate)
        assert gated.parsed.tokens == ()
        if free.parsed.tokens:  # heard as a call without the gate: refused by it
            assert gated.extra["goes_on"] > on.p.max_goes_on and gated.extra["rejected"] == "not a call"
            refused += 1
    assert refused >= 1
    english = WhisperRecognizer(vocabulary("ikatako", "coop"), "en")
    digit = next(r for r in rows if r["kind"] == "keyword")
    heard = english.decode(*clip(digit))
    assert heard.parsed.tokens == (digit["token"],) and heard.extra["goes_on"] <= english.p.max_goes_on

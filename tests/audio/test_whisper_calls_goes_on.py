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


def _noisy_talk(word: str, index: int, snr_db: float = 10.0):
    """A real Japanese word (no call) as ``benchmarks/bench_hearing.py`` lays it on a seat's
    channel — 0.8 s of silence either side, a microphone's hiss, white noise ``snr_db`` under
    the speech, seeded by the clip's ``index`` among the non-game clips — cut to the window the
    listener hands the engine (``onset`` s: its segment's start, 0.6 s pre-roll; ``window_s``)."""
    import csv
    from pathlib import Path

    from audio.capture import read_all

    root = Path(__file__).resolve().parents[2]
    speech = next((p / "shared" / "data" / "speech" for p in root.parents if (p / "shared" / "data" / "speech").is_dir()),
                  root.parent / "shared" / "data" / "speech")
    if not speech.is_dir():
        pytest.skip(f"{speech} not found (the shared real-speech data)")
    rows = [r for r in csv.DictReader(open(speech / "labels.csv", encoding="utf-8"))
            if r["kind"] in ("other", "sentence") and r["text"] != "one"]
    row = rows[index]
    assert row["text"].startswith(word)
    x, rate = read_all(speech / row["file"])
    assert rate == 16000
    x = np.concatenate([np.zeros(12800), x.mean(axis=1).astype(np.float64), np.zeros(12800)])
    n = len(x) // 160
    e = (x[: n * 160].reshape(n, 160) ** 2).mean(axis=1)
    level = float(np.sqrt(e[e >= e.max() * 1e-3].mean()))
    rng = np.random.default_rng(index)
    x = x + rng.standard_normal(len(x)) * 10 ** (-65 / 20)
    x = x + rng.standard_normal(len(x)) * level * 10 ** (-snr_db / 20)
    return x, rate


def test_a_look_that_hears_the_word_go_on_ends_the_search():
    """Real 出獄 (しゅつごく, no call) under white noise 10 dB below it, the window the listener
    read (onset 1.034 s, 1.406 s long): the second look hears "7" and the model expecting the
    word to go on (0.29); the raw-feature look after it hears "7" end there and took it as a sure
    call (conf 0.78, over the judge's word_conf). With ``goes_on_stops_looks`` the first look
    that hears the word go on ends the search: no call, whatever a later look hears."""
    from rules import vocabulary
    from audio.whisper import WhisperParams, WhisperRecognizer
    from session.errors import ModelMissing

    x, rate = _noisy_talk("出獄", 84)
    start = int(round((1.034 - 0.6) * rate))
    window = x[start:start + int(round(1.406 * rate))]
    vocab = vocabulary("ikatako", "coop")
    try:
        shipped = WhisperRecognizer(vocab, "ja")
    except ModelMissing as exc:
        pytest.skip(str(exc))
    assert shipped.p.goes_on_stops_looks
    heard = shipped.decode(window, rate)
    assert heard.parsed.tokens == () and heard.conf is None
    each_look = WhisperRecognizer(vocab, "ja", WhisperParams(goes_on_stops_looks=False)).decode(window, rate)
    assert each_look.parsed.tokens == ("7",) and each_look.extra["goes_on"] <= shipped.p.max_goes_on
    assert each_look.extra["view"] > 2  # a later look took the call the earlier one heard go on

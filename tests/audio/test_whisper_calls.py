"""Closed-set scoring: every call of every game is spelled, in both languages, and reachable."""

import pytest

from audio import whisper_calls as wc
from audio.calls import calls
from rules import vocabularies, vocabulary
from session.errors import ModelMissing

IKATAKO = vocabulary("ikatako", "coop")


def test_kanji_numbers_are_written_as_in_words():
    assert [wc.kanji_number(n) for n in (1, 8, 10, 12, 28, 100, 154)] == ["一", "八", "十", "十二", "二十八", "百", "百五十四"]


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("key", sorted(vocabularies()))
def test_every_call_of_every_game_has_spellings(key, lang):
    vocab = vocabularies()[key]
    every = calls(vocab)
    assert all(wc.spellings(vocab, c, lang) for c in every)
    if vocab.totals:  # co-op: every total up to 154, alone and after every name
        assert {("154",), ("ika", "154"), ("salvage", "1")} <= set(every)


def test_spellings_cover_the_scripts_a_model_may_write():
    assert {"8", "八", "はち", "ハチ"} <= set(wc.spellings(IKATAKO, ("8",), "ja"))
    assert {"イカ", "いか"} <= set(wc.spellings(IKATAKO, ("ika",), "ja"))
    assert {"イカ、12", "イカ12"} <= set(wc.spellings(IKATAKO, ("ika", "12"), "ja"))
    assert {" 4", " four", " Four"} <= set(wc.spellings(IKATAKO, ("4",), "en"))
    assert {" squid", " Squid", " ika"} <= set(wc.spellings(IKATAKO, ("ika",), "en"))  # RULES.md: "squid" -> ika
    assert " twenty-eight" in wc.spellings(IKATAKO, ("28",), "en")


@pytest.fixture(scope="module")
def tokenizer():
    from audio import whisper

    try:
        _, tok = whisper.load()
    except ModelMissing as exc:
        pytest.skip(str(exc))
    return tok


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_trie_reaches_every_call(tokenizer, lang):
    encode = lambda s: tokenizer.encode(s, add_special_tokens=False).ids  # noqa: E731
    for key in ("ikatako/coop", "mokochaka/default", "seasaltpaper/default"):
        vocab = vocabularies()[key]
        trie = wc.CallTrie(vocab, lang, encode, [0])
        assert {call for call, _ in trie.leaves.values()} == set(calls(vocab))
        for ids in trie.leaves:  # every prefix of a spelling leads to it
            assert all(ids[d] in trie.children[ids[:d]] for d in range(len(ids)))


def _voice(seed: int):
    import numpy as np

    rng = np.random.default_rng(seed)
    t = np.arange(16000) / 16000
    return np.sin(2 * np.pi * (180 + 40 * seed) * t) * np.hanning(16000) * 0.3 + rng.standard_normal(16000) * 0.01


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_look_ahead_gives_the_same_scores_in_fewer_passes(english, seed):
    enc = english.encode(_voice(seed), 16000)
    plain = wc.search(english.model, enc, english.prompt_ids, english.trie, 3, 4.0, lookahead=0)
    ahead = wc.search(english.model, enc, english.prompt_ids, english.trie, 3, 4.0, lookahead=3)
    assert ahead[0].tokens == plain[0].tokens and ahead[0].score == pytest.approx(plain[0].score, abs=1e-4)
    assert ahead[1] <= plain[1] and ahead[2] == pytest.approx(plain[2])


@pytest.mark.parametrize("seed", [0, 3])
def test_one_batched_pass_scores_every_spelling_as_the_search_does(english, seed):
    enc = english.encode(_voice(seed), 16000)
    for call in (("4",), ("28",)):
        one = english.call_trie(call)
        each = wc.score_all(english.model, enc, english._plain, list(one.leaves), one.end_ids)
        assert each is not None and len(each) == len(one.leaves)
        exhaustive = wc.search(english.model, enc, english._plain, one, beam=len(one.leaves), prune=float("inf"))[0]
        assert max(each) == pytest.approx(exhaustive.score, abs=1e-3)

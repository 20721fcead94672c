"""Closed-set scoring: every call of every game is spelled, in both languages, and reachable."""

import pytest

from audio import whisper_calls as wc
from audio.calls import calls
from audio.lexicon import VOCABULARIES
from session.errors import ModelMissing


def test_kanji_numbers_are_written_as_in_words():
    assert [wc.kanji_number(n) for n in (1, 8, 10, 12, 28, 100, 154)] == ["一", "八", "十", "十二", "二十八", "百", "百五十四"]


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("key", sorted(VOCABULARIES))
def test_every_call_of_every_game_has_spellings(key, lang):
    vocab = VOCABULARIES[key]
    every = calls(vocab)
    assert all(wc.spellings(c, lang) for c in every)
    if vocab.totals:  # co-op: every total up to 154, alone and after every name
        assert {("154",), ("ika", "154"), ("salvage", "1")} <= set(every)


def test_spellings_cover_the_scripts_a_model_may_write():
    assert {"8", "八", "はち", "ハチ"} <= set(wc.spellings(("8",), "ja"))
    assert {"イカ", "いか"} <= set(wc.spellings(("ika",), "ja"))
    assert {"イカ、12", "イカ12"} <= set(wc.spellings(("ika", "12"), "ja"))
    assert {" 4", " four", " Four"} <= set(wc.spellings(("4",), "en"))
    assert {" squid", " Squid", " ika"} <= set(wc.spellings(("ika",), "en"))  # RULES.md: "squid" -> ika
    assert " twenty-eight" in wc.spellings(("28",), "en")


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
    for key in ("ikatako/coop", "mokochaka", "seasaltpaper"):
        vocab = VOCABULARIES[key]
        trie = wc.CallTrie(vocab, lang, encode, [0])
        assert {call for call, _ in trie.leaves.values()} == set(calls(vocab))
        for ids in trie.leaves:  # every prefix of a spelling leads to it
            assert all(ids[d] in trie.children[ids[:d]] for d in range(len(ids)))

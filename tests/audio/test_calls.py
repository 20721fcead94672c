"""Every call of a game as sounds, and the nearest call to what a model wrote."""

import pytest

from audio.calls import CallMatcher, calls, english_number
from rules import vocabulary

pytest.importorskip("pyopenjtalk")


def test_coop_calls_reach_the_totals():
    c = calls(vocabulary("ikatako", "coop"))
    assert ("154",) in c and ("ika", "154") in c and ("1",) in c and ("ika", "ika") in c
    assert ("155",) not in c


def test_english_numbers_are_spelled_as_said():
    assert english_number(28) == "twenty eight"
    assert english_number(154) == "one hundred fifty four"
    assert english_number(13) == "thirteen"


@pytest.mark.parametrize("text, want", [
    ("イカ", ("ika",)), ("いか", ("ika",)), ("タコ。", ("tako",)), ("イカタコ", ("ikatako",)),
    ("8", ("8",)), ("八", ("8",)), ("ハチハチ", ("8", "8")), ("サルベージ", ("salvage",)),
])
def test_japanese_text_in_any_script_is_the_call_it_sounds_like(text, want):
    assert CallMatcher(vocabulary("ikatako"), "ja").match(text).tokens == want


def test_japanese_coop_totals():
    m = CallMatcher(vocabulary("ikatako", "coop"), "ja")
    assert m.match("イカ、12").tokens == ("ika", "12")
    assert m.match("百五十四").tokens == ("154",)


@pytest.mark.parametrize("text, want", [("eight", ("8",)), ("Eight.", ("8",)), ("28", ("28",)),
                                        ("twenty-eight", ("28",)), ("tako", ("tako",)), ("squid", ("ika",)),
                                        ("Octopus, 12.", ("tako", "12")), ("whirlpool", ("uzushio",))])
def test_english_text(text, want):
    assert CallMatcher(vocabulary("ikatako", "coop"), "en").match(text).tokens == want


def test_talk_is_no_call():
    m = CallMatcher(vocabulary("ikatako"), "ja")
    for text in ("いくら", "こんにちは", "温度"):
        assert m.match(text).tokens == (), text
    assert CallMatcher(vocabulary("seasaltpaper"), "en").match("hello there").tokens == ()


def test_other_games():
    assert CallMatcher(vocabulary("mokochaka"), "ja").match("モコチャカ").tokens == ("mokochaka",)
    assert CallMatcher(vocabulary("seasaltpaper"), "en").match("Stop!").tokens == ("stop",)
    assert CallMatcher(vocabulary("seasaltpaper"), "ja").match("ラストチャンス").tokens == ("lastchance",)

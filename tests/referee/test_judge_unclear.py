"""The pieces of ``referee.judging.unclear``: the thresholds (named, validated), the table's
answers (``--decide`` text and ``decision`` lines with ``card_index``), the readings."""

from __future__ import annotations

import json

import pytest

from referee.judging import unclear as uc
from session.errors import EventError, OptionError
from session.events import Event
from session.record import parse_lines


def test_thresholds_are_validated_and_parsed():
    assert uc.Clarity() == uc.Clarity(card_conf=0.5, hand_conf=0.5, word_conf=uc.WORD_CONF)
    assert uc.Clarity.parse(["card=0.7", "hand=0.25"]) == uc.Clarity(card_conf=0.7, hand_conf=0.25)
    assert uc.Clarity.parse(["word=0.8"]) == uc.Clarity(word_conf=0.8)
    for name in uc.THRESHOLDS:
        for bad in (-0.1, 1.01, float("nan"), True, "0.5"):
            with pytest.raises(OptionError, match=name):
                uc.Clarity(**{name: bad})
    with pytest.raises(OptionError, match="word_conf"):
        uc.Clarity.parse(["word=1.5"])
    for bad in (["eye=0.5"], ["card"], ["hand=x"]):
        with pytest.raises(OptionError, match="--min-conf"):
            uc.Clarity.parse(bad)


def test_a_word_below_word_conf_is_unclear_and_says_so():
    def sh(words, conf):
        return Event.from_dict({"t": 1.5, "type": "shout", "player": "ben", "words": words,
                                **({} if conf is None else {"conf": conf})})

    sure = uc.Clarity(word_conf=0.8)
    assert uc.shout_unclear(sh(["2"], 0.62), sure) and not uc.shout_unclear(sh(["2"], 0.8), sure)
    assert not uc.shout_unclear(sh(["2"], None), sure)  # decided by an enrolled voice: no conf
    assert uc.shout_unclear(sh([], None), uc.Clarity(word_conf=0.0))  # no word made out, whatever the threshold
    assert uc.shout_reason(sh(["ni"], 0.62), 1.0, sure) == "heard a shout at +0.500 s: 'ni' at confidence 0.62, below 0.8 — unclear"
    assert uc.shout_reason(sh([], None), 1.0, sure) == "heard a shout at +0.500 s, the word was unclear"


def test_decide_text():
    assert uc.Answer.parse("3:ben=correct") == uc.Answer(3, "ben", "correct")
    assert uc.Answer.parse(" 12 : chie = wrong ") == uc.Answer(12, "chie", "wrong")
    assert uc.Answer.parse("4:first=aki") == uc.Answer(4, first="aki")
    for bad in ("ben=correct", "0:ben=correct", "x:ben=correct", "3:ben", "3:=correct", "3:ben=maybe"):
        with pytest.raises(OptionError):
            uc.Answer.parse(bad)


def test_decision_lines_the_old_form_and_the_answers():
    tie = Event.from_dict({"t": 1.0, "type": "decision", "first": "ben"})
    assert tie.first == "ben" and not tie.is_answer and tie.to_dict() == {"t": 1.0, "type": "decision", "first": "ben"}
    answer = {"t": 9.0, "type": "decision", "card_index": 3, "player": "ben", "verdict": "correct"}
    ev = Event.from_dict(answer)
    assert ev.is_answer and (ev.card_index, ev.player, ev.verdict, ev.first) == (3, "ben", "correct", None)
    assert ev.to_dict() == answer  # written back as read
    first = Event.from_dict({"t": 9.0, "type": "decision", "card_index": 3, "first": "aki"})
    assert first.is_answer and first.first == "aki" and first.player is None


@pytest.mark.parametrize("bad,field", [
    ({"card_index": 0, "player": "ben", "verdict": "correct"}, "card_index"),
    ({"card_index": True, "player": "ben", "verdict": "correct"}, "card_index"),
    ({"card_index": 2, "player": "ben", "verdict": "right"}, "verdict"),
    ({"card_index": 2, "verdict": "wrong"}, "player"),
    ({"card_index": 2, "first": "aki", "player": "ben", "verdict": "wrong"}, "not both"),
    ({}, "first"),
])
def test_a_bad_decision_line_is_an_issue_naming_the_field(bad, field):
    with pytest.raises(EventError, match=field):
        Event.from_dict({"t": 1.0, "type": "decision", **bad})
    header = {"t": 0.0, "type": "session", "game": "ikatako", "players": ["aki", "ben"]}
    record = parse_lines([json.dumps(header), json.dumps({"t": 1.0, "type": "decision", **bad})])
    assert [i.line for i in record.errors] == [2]


def test_readings_start_with_the_favourable_one_and_cover_every_combination():
    rs = list(uc.readings(2, 1))
    assert len(rs) == uc.count(2, 1) == 18 and rs[0].favourable and rs[0] == uc.Reading(("right", "right"), (True,))
    assert len(set(rs)) == 18 and sum(r.favourable for r in rs) == 1


def test_readings_agree_when_they_all_penalise():
    assert uc.agree(["wrong", "missed", "wrong"])  # the same penalty either way
    assert uc.agree(["correct", "correct"]) and uc.agree(["idle", "idle"])
    assert not uc.agree(["correct", "wrong"]) and not uc.agree(["idle", "wrong"])


def test_answers_per_card_the_last_one_counts_and_untaken_ones_are_kept():
    answers = uc.Answers([uc.Answer(1, "ben", "correct"), uc.Answer(1, "ben", "wrong"), uc.Answer(1, first="aki"),
                          uc.Answer(5, "chie", "wrong")])
    one = answers.card(1)
    assert one.verdicts["ben"].verdict == "wrong" and one.first.first == "aki" and bool(one)
    assert not answers.card(2)
    assert [a.card_index for a in answers.untaken()] == [5]


def test_a_game_that_takes_no_answers_warns_about_them():
    from referee.judge import judge
    from session.record import read_record
    from tests.conftest import FIXTURES

    j = judge(read_record(FIXTURES / "sessions" / "takoyaki_two_players.jsonl"), answers=[uc.Answer(1, "aki", "correct")])
    assert any("takoyaki verdicts take no answers" in n.message for n in j.notes)

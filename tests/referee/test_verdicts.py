"""The typed verdicts (referee.judging.verdicts) keep the JSON contract: every verdict and
result line the judge writes — every game, every mode, clear or unclear, with the table's
answers — reads back into its typed value and writes back byte for byte; docs/record.md's
field lists are the code's."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from referee.judge import judge
from referee.judging.unclear import Answer
from referee.judging.verdicts import ABSENT, Line, fields_markdown, types_of, verdict_of
from referee.judging.verdicts.ikatako import CoopResult, CoopVerdict, VersusResult, VersusVerdict
from referee.judging.verdicts.mokochaka import MokochakaResult, PlayVerdict
from referee.judging.verdicts.seasaltpaper import RoundVerdict
from referee.judging.verdicts.takoyaki import TakoyakiResult
from session.record import dumps, read_record
from tests.referee.render import games, render

ROOT = Path(__file__).resolve().parents[2]
RECORDS = sorted(p for d in ("tests/referee/scenarios", "fixtures") for p in (ROOT / d).rglob("*.jsonl")
                 if not p.name.endswith(".expected.jsonl"))
#: the table's answers about the unclear scenarios' items (some settle one, some are ignored)
ANSWERS = {"ikatako/unclear.jsonl": ["1:ben=correct", "2:ben=wrong", "3:ben=correct", "1:first=ben"],
           "mokochaka/unclear.jsonl": ["1:aki=correct", "3:ben=wrong", "3:first=aki", "4:aki=wrong"]}


def _assert_round_trip(game: str, lines) -> None:
    for line in lines:
        if line["type"] not in ("verdict", "result"):
            continue
        typed = verdict_of(game, line)
        assert dumps(typed.to_dict()) == dumps(line), type(typed).__name__
        assert type(verdict_of(None, line)) is type(typed)  # a bare line finds its game's type


@pytest.mark.parametrize("path", RECORDS, ids=[str(p.relative_to(ROOT)) for p in RECORDS])
def test_every_recorded_line_reads_back_and_writes_back_byte_for_byte(path):
    record = read_record(path)
    if record.header is None:
        pytest.skip("not a session record")
    _assert_round_trip(record.header.game, judge(record).lines)
    for key, answers in ANSWERS.items():
        if str(path).endswith(key):
            for text in answers:
                _assert_round_trip(record.header.game, judge(record, answers=[Answer.parse(text)]).lines)


@pytest.mark.parametrize("game,mode", games(), ids=[f"{g}-{m}" for g, m in games()])
def test_every_game_and_mode_reads_back_byte_for_byte(game, mode):
    for seed in range(4):
        _assert_round_trip(game, judge(render(game, mode, seed).record()).lines)


UNCLEAR = {"ben": "heard a shout at +0.300 s, the word was unclear"}
CASES = [
    VersusVerdict(t=2.0, card="ika", expected={"hands": "right", "say": ["ika"]}, correct=["aki"], times={"aki": 0.4},
                  first="aki", unclear=UNCLEAR, decided={"chie": "wrong"}),
    VersusVerdict(t=2.0, card="ika", first_unknown=["ben"], unjudged={"ben": "not heard: x"},
                  unclear={"ben": "not heard: x"}, first_unclear=True,
                  card_time_uncertain={"earliest": 1.5, "seen": 2.0, "counted_from": 1.5}),
    CoopVerdict(t=1.0, card="3", player="ben", why=UNCLEAR["ben"], unclear=UNCLEAR, card_unclear="card not read"),
    PlayVerdict(t=3.0, card="moko1", pile=0, caller="ben", unclear=UNCLEAR, first_unclear=True),
    VersusResult(scores={"aki": 3, "ben": 0}, unclear={"aki": 0, "ben": 1}),
    CoopResult(mode="solo", unclear={"ben": 2}),
    MokochakaResult(note="Gabu count not given for ben: winners by hand size", unclear={"ben": 1}),
]


@pytest.mark.parametrize("value", CASES, ids=[type(c).__name__ for c in CASES])
def test_a_line_with_unclear_players_round_trips(value):
    line = value.to_dict()
    assert line["unclear"] and list(line)[0] == "type"
    assert type(value).from_dict(line) == value and verdict_of(None, line) == value
    status = [k for k in line if k in ("unjudged", "first_unknown", "unclear", "first_unclear", "decided",
                                       "card_unclear", "card_time_uncertain")]
    assert list(line)[-len(status):] == status  # the status fields come last, in their order


@pytest.mark.parametrize("cls", [c for g in ("ikatako", "mokochaka", "takoyaki", "seasaltpaper", "toratanu")
                                 for c in types_of(g)], ids=lambda c: c.__name__)
def test_to_dict_omits_the_empty_optional_fields(cls: type[Line]):
    line = cls().to_dict()
    for f in dataclasses.fields(cls):
        assert (f.name in line) is not f.metadata["optional"], f.name
        assert f.metadata["doc"], f"{cls.__name__}.{f.name} says nothing"


def test_fields_that_may_be_present_and_false_are_written_when_given():
    assert "caller_won" not in RoundVerdict().to_dict() and RoundVerdict(caller_won=False).to_dict()["caller_won"] is False
    line = TakoyakiResult(finished=False, turns_needed=None).to_dict()
    assert line["finished"] is False and line["turns_needed"] is None and "champion" not in line
    assert TakoyakiResult().turns_needed is ABSENT


def test_typed_values_replace_key_sniffing():
    assert isinstance(verdict_of("ikatako", CoopVerdict(player="ben").to_dict()), CoopVerdict)
    assert isinstance(verdict_of("ikatako", VersusVerdict().to_dict()), VersusVerdict)
    assert isinstance(verdict_of("mokochaka", PlayVerdict(ok=True).to_dict()), PlayVerdict)  # has ok, not co-op
    late = VersusVerdict(card_time_uncertain={"earliest": 4.6, "seen": 5.9, "counted_from": 5.0})
    assert late.counted_from == 5.0 and VersusVerdict().counted_from is None
    assert VersusVerdict(tie=["chie", "ben"], first_unknown=["ben"]).fastest_heard == ["chie"]


def test_a_mokochaka_play_with_an_unclear_player_says_so_live():
    from referee.live.headlines import verdict_headline

    h = verdict_headline(PlayVerdict(t=3.0, card="moko1", caller="aki", unclear={"aki": "unclear"}).to_dict(),
                         "mokochaka")
    assert "unclear, no penalty: aki" in h.notes


def test_record_md_lists_the_fields_the_code_writes():
    text = (ROOT / "docs" / "record.md").read_text(encoding="utf-8")
    begin, end = "<!-- verdict-fields:begin -->\n", "<!-- verdict-fields:end -->"
    assert text.count(begin) == 1 and text.count(end) == 1
    assert text[text.index(begin) + len(begin):text.index(end)] == fields_markdown()

"""Judging a TAKOYAKI record from deal to win (fixtures/sessions/takoyaki_two_players.jsonl).

The expected verdicts are reasoned from docs/rules.md, TAKOYAKI card by card (see the comments), not
copied from the program's output.
"""

from __future__ import annotations

import json

from referee.judge import judge
from session.record import parse_lines, read_record
from tests.conftest import FIXTURES

SESSION = FIXTURES / "sessions" / "takoyaki_two_players.jsonl"

# (time, player, action, legal, reason prefix or None, next player)
EXPECTED = [
    (2, "aki", "draw", True, None, "aki"),
    (3, "aki", "place", True, None, "aki"),  # 3C on slot 3: turn the card under it
    (4, "aki", "place", True, None, "aki"),  # 10H (from under slot 3) on slot 10
    (5, "aki", "discard", True, None, "ben"),  # KS has no slot: turn ends
    (8, "ben", "draw", True, None, "ben"),
    (9, "ben", "place", True, None, "ben"),  # 7D on slot 7
    (10, "ben", "place", False, "J/Q/K placed", "aki"),  # JH on slot A: should be discarded
    (11, "ben", "place", False, "turn should have ended", "aki"),  # chain went on after JH
    (12, "ben", "discard", True, None, "aki"),
    (15, "aki", "draw", True, None, "aki"),
    (16, "aki", "place", True, None, "aki"),  # 9C on 9
    (17, "aki", "place", True, None, "aki"),  # AH on A
    (18, "aki", "discard", True, None, "ben"),  # 3S: slot 3 already face up
    (21, "ben", "draw", True, None, "ben"),
    (22, "ben", "place", False, "wrong slot", "ben"),  # 4H onto slot 6; 4 was free: turn goes on
    (23, "ben", "place", True, None, "ben"),  # 8C on 8
    (24, "ben", "discard", True, None, "aki"),  # QH
    (27, "aki", "draw", True, None, "aki"),
    (28, "aki", "discard", False, "placeable card discarded", "ben"),  # 6H could go on 6
    (31, "ben", "draw", True, None, "ben"),
    (32, "ben", "place", False, "slot already face up", "aki"),  # 7S onto the 7D
    (33, "ben", "discard", True, None, "aki"),
    (36, "aki", "draw", True, None, "aki"),
    (37, "aki", "place", True, None, "aki"),  # joker on face-down slot 8
    (38, "aki", "place", True, None, "aki"),  # 2D
    (39, "aki", "place", True, None, "aki"),  # 6D
    (40, "aki", "discard", True, None, "ben"),  # 8H: slot 8 holds the joker
    (43, "ben", "draw", True, None, "ben"),
    (44, "ben", "discard", True, None, "aki"),  # QC
    (47, "aki", "draw", True, None, "aki"),
    (48, "aki", "place", True, None, "aki"),  # 5D
    (49, "aki", "place", True, None, "aki"),  # 4C
    (50, "aki", "discard", True, None, "ben"),  # 10S: slot 10 face up
    (53, "ben", "draw", True, None, "ben"),
    (54, "ben", "discard", True, None, "aki"),  # KD
    (57, "aki", "draw", True, None, "aki"),
    (58, "aki", "place", True, None, None),  # 7C fills aki's last slot: aki wins
]


def test_takoyaki_session_from_deal_to_win():
    j = judge(read_record(SESSION))
    verdicts = [o for o in j.lines if o["type"] == "verdict"]
    got = [(v["t"], v["player"], v["action"], v["legal"], v["next"]) for v in verdicts]
    assert got == [(float(t), p, a, ok, n) for t, p, a, ok, _, n in EXPECTED]
    for v, (*_, reason, _n) in zip(verdicts, EXPECTED):
        if reason:
            assert v["why"].startswith(reason), v
    assert verdicts[-1]["winner"] == "aki"
    result = j.lines[-1]
    assert result["type"] == "result"
    assert result["winners"] == ["aki"]
    assert result["face_up"] == {"aki": 10, "ben": 5}  # ben: A (JH), 5, 6, 7, 8
    assert result["ranking"] == [["aki"], ["ben"]]
    assert result["turns"] == {"aki": 6, "ben": 5}
    assert result["illegal"] == {"aki": 1, "ben": 4}


def _judge(*events, options=None):
    header = {"t": 0, "type": "session", "game": "takoyaki", "players": ["aki", "ben"],
              "options": options or {}}
    return judge(parse_lines([json.dumps(header)] + [json.dumps(e) for e in events]))


def test_out_of_turn_draw_and_six_card_griddle():
    j = _judge({"t": 1, "type": "card", "card": "7H", "zone": "p:aki:draw"},
               {"t": 2, "type": "card", "card": "7H", "zone": "discard"},  # 6-card griddle: 7 ends
               {"t": 3, "type": "card", "card": "2H", "zone": "p:aki:draw"},  # ben's turn
               options={"griddle": 6})
    v = [o for o in j.lines if o["type"] == "verdict"]
    assert v[1]["legal"] and v[1]["next"] == "ben"
    assert not v[2]["legal"] and v[2]["why"].startswith("turn should have ended")
    assert j.lines[-1]["winners"] == [] and j.lines[-1]["finished"] is False


def test_take_discard_needs_the_option():
    events = [{"t": 1, "type": "card", "card": "KH", "zone": "p:aki:draw"},
              {"t": 2, "type": "card", "card": "KH", "zone": "discard"},
              {"t": 3, "type": "card", "card": "3C", "zone": "p:ben:draw"},
              {"t": 4, "type": "card", "card": "3C", "zone": "p:ben:slot3"},
              {"t": 5, "type": "card", "card": "3D", "zone": "discard"},
              {"t": 6, "type": "card", "card": "3D", "zone": "p:aki:take"}]
    off = [o for o in _judge(*events).lines if o["type"] == "verdict"]
    assert not off[-1]["legal"] and "take_discard" in off[-1]["why"]
    on = [o for o in _judge(*events, options={"take_discard": True}).lines if o["type"] == "verdict"]
    assert on[-1]["legal"]


def test_unknown_zone_and_card_warn_not_crash():
    j = _judge({"t": 1, "type": "card", "card": "ZZ", "zone": "p:aki:draw"},
               {"t": 2, "type": "card", "card": "3C", "zone": "field"})
    assert [o["type"] for o in j.lines] == ["result"]
    assert len(j.notes) == 2 and "unknown card" in j.notes[0].message


def test_judge_cli_table(run_cli):
    r = run_cli("judge", SESSION)
    assert r.exit_code == 0
    assert "winner: aki" in r.output and "J/Q/K placed" in r.output


def test_rules_takoyaki_place_cli(run_cli):
    # README examples
    r = run_cli("rules", "takoyaki", "place", "--griddle", "x.x.......", "7H", "--json")
    assert r.exit_code == 0
    assert json.loads(r.output) == {"card": "7H", "slots": [7], "continues": True, "wins": False,
                                    "why": "7H goes on slot 7; turn the card that was there and go on"}
    r = run_cli("rules", "takoyaki", "place", "--griddle", "x.x.......", "3S")
    assert r.exit_code == 0 and "already face up" in r.output and "turn: ends" in r.output
    r = run_cli("rules", "takoyaki", "place", "--griddle", "xxxxxx.xxx", "JK", "--json")
    assert json.loads(r.output)["slots"] == [7] and json.loads(r.output)["wins"] is True
    r = run_cli("rules", "takoyaki", "place", "--griddle", "x.x...", "QH", "--json")
    assert json.loads(r.output)["continues"] is False


def test_rules_takoyaki_place_bad_input(run_cli):
    r = run_cli("rules", "takoyaki", "place", "--griddle", "x.x..?", "7H")
    assert r.exit_code == 2 and "malformed griddle 'x.x..?'" in r.output
    r = run_cli("rules", "takoyaki", "place", "--griddle", "x.x...", "7Z")
    assert r.exit_code == 2 and "unknown card '7Z'" in r.output


def test_solo_counts_turns_and_bad_sizes_are_one_clear_error():
    header = {"t": 0, "type": "session", "game": "takoyaki", "mode": "solo", "players": ["aki"],
              "options": {"kachinuki": True, "sizes": {"aki": 1}}}
    events = [{"t": 1, "type": "card", "card": "KS", "zone": "p:aki:draw"},
              {"t": 2, "type": "card", "card": "KS", "zone": "discard"},
              {"t": 3, "type": "card", "card": "AD", "zone": "p:aki:draw"},
              {"t": 4, "type": "card", "card": "AD", "zone": "p:aki:slot1"}]  # a 1-card griddle: full
    j = judge(parse_lines([json.dumps(header)] + [json.dumps(e) for e in events]))
    res = j.lines[-1]
    assert res["winners"] == ["aki"] and res["turns_needed"] == 2
    assert res["next_sizes"] == {"aki": 0} and res["champion"] == "aki"
    header["options"] = {"sizes": {"aki": "nine"}}
    import pytest
    from session.errors import RulesError
    with pytest.raises(RulesError, match="sizes"):
        judge(parse_lines([json.dumps(header)]))

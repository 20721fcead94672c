"""Judging Sea Salt & Paper from choice events (calls and revealed hands).

Expected scores worked out by hand from docs/rules.md, Sea Salt & Paper.
"""

from __future__ import annotations

import json

from referee.judge import judge
from session.record import parse_lines

# aki: duos crab, boat, fish (3) + 2 shells (2) + lighthouse x2 boats (2) = 7 card points; blue 9
AKI = ["crab:blue"] * 2 + ["boat:blue"] * 2 + ["fish:blue"] * 2 + ["shell:blue"] * 2 + ["lighthouse:blue"]
# ben: swimmer+shark (1) + 3 penguins (5) = 6 card points; yellow 3
BEN = ["swimmer:pink", "shark:pink"] + ["penguin:yellow"] * 3


def _record(*events, options=None):
    header = {"t": 0, "type": "session", "game": "seasaltpaper", "players": ["aki", "ben"], "options": options or {}}
    return parse_lines([json.dumps(header)] + [json.dumps({"type": "choice", **e}) for e in events])


def _round(t, caller, call, aki=AKI, ben=BEN):
    return [{"t": t, "player": caller, "action": "call", "call": call},
            {"t": t + 1, "player": "aki", "action": "hand", "cards": aki},
            {"t": t + 1, "player": "ben", "action": "hand", "cards": ben}]


def test_rounds_to_the_end_of_the_game():
    events = (_round(10, "aki", "stop")  # 7 / 6
              + _round(20, "aki", "lastchance")  # aki 7 >= 6: 7 + 9 / ben colour bonus 3
              + [{"t": 30, "player": "ben", "action": "emptydeck"}]  # no points
              + _round(40, "ben", "lastchance")  # ben 6 (< 7: illegal) loses: ben 3 / aki 7
              + _round(50, "aki", "lastchance")  # 16 / 3 -> aki 46 >= 40: game over
              + _round(60, "ben", "stop"))  # after the end: ignored
    j = judge(_record(*events))
    verdicts = [o for o in j.lines if o["type"] == "verdict"]
    assert [(v["call"], v["caller"], v["legal"]) for v in verdicts] == [
        ("stop", "aki", True), ("lastchance", "aki", True), ("emptydeck", "ben", True),
        ("lastchance", "ben", False), ("lastchance", "aki", True)]
    assert [v["totals"] for v in verdicts] == [
        {"aki": 7, "ben": 6}, {"aki": 23, "ben": 9}, {"aki": 23, "ben": 9}, {"aki": 30, "ben": 12},
        {"aki": 46, "ben": 15}]
    assert verdicts[1]["caller_won"] is True and verdicts[3]["caller_won"] is False
    assert "7 are needed" in verdicts[3]["why"]
    assert j.lines[-1] == {"type": "result", "scores": {"aki": 46, "ben": 15}, "target": 40, "rounds": 5,
                           "winners": ["aki"], "finished": True}
    assert any("after the game ended" in n.message for n in j.notes)


def test_double_points_target_and_unfinished_round():
    j = judge(_record(*_round(10, "aki", "stop"), {"t": 20, "player": "aki", "action": "call", "call": "stop"},
                      options={"double": True}))
    res = j.lines[-1]
    assert res["target"] == 80 and res["winners"] == [] and res["finished"] is False
    assert any("not complete" in n.message for n in j.notes)


def test_four_mermaids_win_at_once():
    j = judge(_record({"t": 5, "player": "ben", "action": "hand", "cards": ["mermaid"] * 4}))
    v = j.lines[0]
    assert v["call"] == "mermaids" and v["caller"] == "ben"
    assert j.lines[-1]["winners"] == ["ben"]


def test_bad_hand_is_a_warning_naming_the_card():
    j = judge(_record({"t": 5, "player": "ben", "action": "hand", "cards": ["whale:blue"]}))
    assert [o["type"] for o in j.lines] == ["result"]
    assert "whale" in j.notes[0].message


def test_a_tie_goes_to_who_played_last_in_the_final_round():
    rich = ["shell:blue"] * 6 + ["octopus:pink"] * 5  # 10 + 12 = 22 card points
    # after STOP the caller played last (LAST CHANCE order: tests/rules/test_seasaltpaper.py)
    for caller, winner in (("aki", "aki"), ("ben", "ben")):
        events = _round(10, caller, "stop", rich, rich) + _round(20, caller, "stop", rich, rich)
        res = judge(_record(*events)).lines[-1]
        assert res["scores"]["aki"] == res["scores"]["ben"] >= 40
        assert res["winners"] == [winner], caller

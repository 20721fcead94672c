"""Judging TORATANU at the tally from choice events; expected scores worked out by hand."""

from __future__ import annotations

import json

from referee.judge import judge
from session.record import parse_lines


def _record(*events, games=2):
    header = {"t": 0, "type": "session", "game": "toratanu", "players": ["aki", "ben"], "options": {"games": games}}
    return parse_lines([json.dumps(header)] + [json.dumps({"type": "choice", **e}) for e in events])


NIGHT1 = [
    {"t": 1, "player": None, "action": "special", "card": "owl:blue"},
    # tiger herd 100; owl herd (red, yellow, green) 30 + 50 special animal; Komondor: rabbit:white 25
    {"t": 100, "player": "aki", "action": "tally",
     "hand": ["tiger", "tiger", "tiger", "owl:red", "owl:yellow", "owl:green", "komondor", "rabbit:white", "fox"]},
    # captured rabbits 20/2 = 10, wolf herd 20, Orangutan 2 x 30 (both are 20-point herds)
    {"t": 101, "player": "ben", "action": "tally", "hand": ["wolf", "wolf", "wolf", "orangutan", "kangaroo", "kangaroo"],
     "captured": [["rabbit", "rabbit", "rabbit"]], "sets": [["wolf", "wolf", "wolf"]]},
]
NIGHT2 = [
    {"t": 200, "player": None, "action": "special", "card": "tanuki"},
    # best: owl herd 30 + chicken herd 20 + Orangutan 30 = 80; aki laid out only the chickens: 50
    {"t": 300, "player": "aki", "action": "tally",
     "hand": ["owl:red", "owl:yellow", "owl:green", "kangaroo:red:2", "orangutan:red:3", "chicken", "chicken",
              "chicken", "fox"], "sets": [["chicken", "chicken", "chicken"]]},
    # wolf herd 20 + horse herd 30 + Komondor 2 x 25 (the two marked White cards)
    {"t": 301, "player": "ben", "action": "tally",
     "hand": ["komondor", "wolf:white", "wolf", "wolf", "horse", "horse", "horse", "dolphin:white", "fox"]},
]


def test_two_games_scored_at_the_tally():
    j = judge(_record(*NIGHT1, *NIGHT2))
    v1, v2, result = j.lines
    assert v1["scores"] == {"aki": 205, "ben": 90} and v1["declared"] == {"aki": None, "ben": 90}
    assert v2["scores"] == {"aki": 50, "ben": 100} and v2["missed"] == {"aki": 30, "ben": 0}
    assert v2["best"]["aki"]["total"] == 80
    assert result == {"type": "result", "scores": {"aki": 255, "ben": 190}, "games": 2, "of": 2,
                      "winners": ["aki"], "finished": True}


def test_incomplete_match_and_bad_tally():
    j = judge(_record(*NIGHT1, {"t": 400, "player": "aki", "action": "tally", "hand": ["kangaroo:red", "owl:red", "fox:red:1"]},
                      games=5))
    assert j.lines[-1]["finished"] is False and j.lines[-1]["winners"] == []
    assert any("animals.kangaroo.colours.red" in n.message for n in j.notes)


def test_table_for_people(run_cli, tmp_path):
    path = tmp_path / "t.jsonl"
    header = {"t": 0, "type": "session", "game": "toratanu", "players": ["aki", "ben"], "options": {"games": 1}}
    path.write_text("\n".join(json.dumps(e) for e in [header] + [{"type": "choice", **e} for e in NIGHT1]) + "\n")
    r = run_cli("judge", path)
    assert r.exit_code == 0 and "winner: aki" in r.output and "+50 special animal" in r.output


def test_malformed_tally_fields_warn_not_crash():
    j = judge(_record({"t": 1, "player": None, "action": "special", "card": "owl:blue"},
                      {"t": 2, "player": "aki", "action": "tally", "hand": ["owl:red"], "captured": 3},
                      {"t": 3, "player": "ben", "action": "tally", "hand": "owl:red"}))
    assert [o["type"] for o in j.lines] == ["result"]
    assert ["captured" in j.notes[0].message, "hand" in j.notes[1].message] == [True, True]

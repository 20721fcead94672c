"""Game-independent parts of judging: corrections, canonical order, CLI errors."""

from __future__ import annotations

import json

from session.events import CardEvent, HandEvent
from referee.judge import apply_corrections
from session.order import sort_key
from referee.options import parse_option_args
from session.record import parse_lines

HEADER = {"t": 0.0, "type": "session", "game": "ikatako", "mode": "versus", "players": ["aki", "ben"]}


def _rec(*objs):
    return parse_lines([json.dumps(o) for o in objs])


def test_correction_replaces_the_referenced_line():
    rec = _rec(HEADER,
               {"t": 1.0, "type": "card", "card": "tako"},                                   # line 2
               {"t": 1.3, "type": "hand", "player": "aki", "side": "right", "state": "up"},  # line 3
               {"t": 9.0, "type": "correction", "ref": 3,
                "replace": {"t": 1.3, "type": "hand", "player": "aki", "side": "left", "state": "up"}})
    events, notes = apply_corrections(rec)
    assert notes == []
    assert events == [CardEvent(t=1.0, card="tako"), HandEvent(t=1.3, player="aki", side="left", state="up")]


def test_correction_with_null_deletes_and_last_correction_wins():
    rec = _rec(HEADER,
               {"t": 1.0, "type": "card", "card": "tako"},
               {"t": 1.3, "type": "card", "card": "ika"},
               {"t": 9.0, "type": "correction", "ref": 3, "replace": {"t": 1.3, "type": "card", "card": "2"}},
               {"t": 9.5, "type": "correction", "ref": 3, "replace": None})
    events, _ = apply_corrections(rec)
    assert [e.card for e in events] == ["tako"]


def test_correction_of_a_missing_line_is_a_warning():
    rec = _rec(HEADER, {"t": 1.0, "type": "card", "card": "tako"}, {"t": 2, "type": "correction", "ref": 40})
    events, notes = apply_corrections(rec)
    assert [e.card for e in events] == ["tako"]
    assert len(notes) == 1 and notes[0].line == 3 and "40" in notes[0].message


def test_malformed_correction_is_reported_on_its_own_line():
    rec = _rec(HEADER, {"t": 2, "type": "correction", "ref": 2, "replace": {"t": 1, "type": "hand"}})
    assert rec.errors and rec.errors[0].line == 2 and "player" in rec.errors[0].message


def test_sort_key_orders_cards_before_reactions_at_equal_time():
    card = CardEvent(t=1.0, card="ika")
    hand = HandEvent(t=1.0, player="aki", side="right", state="up")
    assert sorted([hand, card], key=sort_key) == [card, hand]


def test_option_arguments_parse_json_values():
    assert parse_option_args(["window=2.5", "penalty=lowest", "three_count=true"]) == {
        "window": 2.5, "penalty": "lowest", "three_count": True}


def test_cli_judge_missing_file_is_one_clear_error(run_cli, tmp_path):
    result = run_cli("judge", tmp_path / "nope.jsonl")
    assert result.exit_code == 2
    assert "no such session record" in result.output and "Traceback" not in result.output


def test_cli_judge_without_header_is_one_clear_error(run_cli, tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"t": 1.0, "type": "card", "card": "2"}) + "\n")
    result = run_cli("judge", path)
    assert result.exit_code == 2
    assert "session header" in result.output


def test_cli_bad_option_is_one_clear_error(run_cli, tmp_path):
    result = run_cli("judge", tmp_path / "x.jsonl", "-o", "window")
    assert result.exit_code == 2 and "NAME=VALUE" in result.output

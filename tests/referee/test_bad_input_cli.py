"""Issue 15's bad inputs through ``referee judge`` (in-process, as a person runs it): each is
one clear line (or a warning and a right result), exit status 0, 1 or 2, no traceback."""

from __future__ import annotations

import json

import pytest

from tests.conftest import FIXTURES

SOLO = FIXTURES / "sessions" / "ikatako_solo.jsonl"
VERSUS = FIXTURES / "sessions" / "demo_ikatako_versus.jsonl"


def _lines(path=VERSUS) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _write(tmp_path, lines, name="s.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


@pytest.mark.parametrize("value, message", [
    ("-1", "option 'window' must be > 0 and ≤ 60, got -1"),
    ("0", "option 'window' must be > 0 and ≤ 60, got 0"),
    ("1e999", "option 'window' must be a finite number, got inf"),
    ("NaN", "option 'window' must be a finite number, got nan"),
    ("9" * 400, "option 'window' must be > 0 and ≤ 60, got an integer of 400 digits"),
    ("9" * 5000, "option 'window': the value is too long or nested too deeply"),
    ("[" * 5000, "option 'window': the value is too long or nested too deeply"),
])
def test_bad_window_options_are_one_line(run_cli, value, message):
    res = run_cli("judge", SOLO, "-o", f"window={value}")
    assert res.exit_code == 2 and res.output == f"referee: error: {message}\n"


def test_negative_tie_and_games_are_refused(run_cli):
    res = run_cli("judge", SOLO, "-o", "tie_ms=-3")
    assert res.exit_code == 2 and res.output == "referee: error: option 'tie_ms' must be ≥ 0 and ≤ 1000, got -3\n"
    res = run_cli("judge", FIXTURES / "sessions" / "mokochaka_4p_game.jsonl", "-o", "grab_slack=-0.1")
    assert res.exit_code == 2 and "option 'grab_slack' must be ≥ 0 and ≤ 10, got -0.1" in res.output


def test_a_negative_window_in_the_header_is_refused_not_judged(run_cli, tmp_path):
    lines = _lines(SOLO)
    header = json.loads(lines[0])
    header["options"]["window"] = -5
    res = run_cli("judge", _write(tmp_path, [json.dumps(header)] + lines[1:]))
    assert res.exit_code == 2 and res.output == "referee: error: option 'window' must be > 0 and ≤ 60, got -5\n"


def test_nan_in_the_header_names_the_line(run_cli, tmp_path):
    lines = _lines()
    path = _write(tmp_path, [lines[0].replace('"window": 3.0', '"window": NaN')] + lines[1:])
    res = run_cli("judge", path)
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert f"{path}:line 1: error: not a JSON object (NaN is not a JSON number)" in res.output
    assert res.output.rstrip().splitlines()[-1] == (
        "referee: error: cannot judge a record without a valid session header on its first line")


@pytest.mark.parametrize("header, missing", [
    ('{"type": "session"}', "field 't'"),
    ('{"type": "session", "t": 0, "game": "ikatako", "mode": "versus"}', "field 'players'"),
])
def test_a_header_with_a_field_missing_names_the_field_not_a_missing_header(run_cli, tmp_path, header, missing):
    path = _write(tmp_path, [header] + _lines()[1:])
    res = run_cli("judge", path)
    assert res.exit_code == 2 and "Traceback" not in res.output
    first = res.output.splitlines()[0]
    assert first.startswith(f"{path}:line 1: error: the session header is not valid: ") and missing in first
    assert "no session header" not in res.output


@pytest.mark.parametrize("field, value, message", [
    ("t", "1e308", "field 't' must be a session time within ±86400 s (one day), got 1e+308"),
    ("t", "9" * 400, "field 't' must be a session time within ±86400 s (one day), got an integer of 400 digits"),
    ("t", "-1e308", "field 't' must be a session time within ±86400 s (one day), got -1e+308"),
    ("conf", "9" * 400, "field 'conf' must be in 0..1, got an integer of 400 digits"),
    ("conf", "1.5", "field 'conf' must be in 0..1, got 1.5"),
    ("conf", "-0.1", "field 'conf' must be in 0..1, got -0.1"),
])
def test_numbers_at_the_edges_are_a_line_issue_and_the_rest_is_judged(run_cli, tmp_path, field, value, message):
    lines = _lines()
    card = json.loads(lines[1])
    assert card["type"] == "card" and field in card
    bad = lines[1].replace(f'"{field}": {json.dumps(card[field])}', f'"{field}": {value}')
    assert bad != lines[1]
    path = _write(tmp_path, [lines[0], bad] + lines[2:])
    res = run_cli("judge", path, "--json")
    assert res.exit_code == 0, res.output
    assert f"{path}:line 2: error: {message}\n" in res.stderr
    verdicts = [json.loads(x) for x in res.stdout.splitlines() if json.loads(x)["type"] == "verdict"]
    assert len(verdicts) == 27  # the demo's 28 cards but the refused one


def test_a_correction_replacing_with_a_header_is_refused_and_the_card_kept(run_cli, tmp_path):
    lines = _lines()
    n = len(lines) + 1
    corr = json.dumps({"t": 99.0, "type": "correction", "ref": 2, "replace": json.loads(lines[0])})
    path = _write(tmp_path, lines + [corr])
    res = run_cli("judge", path, "--json")
    assert res.exit_code == 0
    assert res.stderr == (f"{path}:line {n}: error: field 'replace' cannot be a 'session' event: a correction "
                          "replaces an observation (card, hand, shout, ...) or deletes it (null)\n")
    plain = run_cli("judge", VERSUS, "--json")
    assert res.stdout == plain.stdout  # the card on line 2 is judged as before


def test_lone_surrogates_and_control_characters_are_shown_escaped(run_cli, tmp_path):
    text = "\n".join(_lines()).replace('"aki"', '"a\\ud800ki"').replace('"ben"', '"b\\u001b[2Jen"')
    path = tmp_path / "names.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    res = run_cli("judge", path)
    assert res.exit_code == 0, res.output
    assert "a\\ud800ki" in res.stdout and "b\\x1b[2Jen" in res.stdout and "\x1b" not in res.stdout
    res = run_cli("judge", path, "--json")
    assert res.exit_code == 0
    result = json.loads(res.stdout.splitlines()[-1])  # backslash escapes in JSON read back as the same name
    assert set(result["scores"]) == {"a\ud800ki", "b\x1b[2Jen", "chie", "dai"}


@pytest.mark.parametrize("args, message", [
    (["judge", "--bogus"], "referee: error: No such option '--bogus' (see 'referee judge --help')"),
    (["jduge"], "referee: error: No such command 'jduge' (see 'referee --help')"),
    (["judge"], "referee: error: Missing argument 'SESSION' (see 'referee judge --help')"),
    (["replay", "x.mp4", "--calibration", "c.json", "--workers", "99"],
     "referee: error: Invalid value for '--workers': 99 is not in the range 0<=x<=16 (see 'referee replay --help')"),
])
def test_usage_errors_are_one_line(run_cli, args, message):
    res = run_cli(*args)
    assert res.exit_code == 2
    assert res.output == message + "\n"

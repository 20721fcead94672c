"""``referee teach explain SESSION.jsonl`` for every game: each mistake of the recorded game
becomes a due FSRS card in the learner's progress, and the next drill of that game brings it
back first."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.teach import drills
from referee.teach.progress import Progress

ROOT = Path(__file__).resolve().parents[3]
START = "2026-03-01T09:00:00"
NOW = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def _write(path: Path, header: dict, events: list[dict]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in [header] + events), encoding="utf-8")
    return path


def _seasaltpaper(tmp_path: Path) -> Path:
    aki = ["crab:blue"] * 2 + ["boat:blue"] * 2 + ["fish:blue"] * 2 + ["shell:blue"] * 2 + ["lighthouse:blue"]
    ben = ["swimmer:pink", "shark:pink"] + ["penguin:yellow"] * 3  # 6 card points: may not call
    ev = [{"t": 10, "type": "choice", "player": "ben", "action": "call", "call": "lastchance"},
          {"t": 11, "type": "choice", "player": "aki", "action": "hand", "cards": aki},
          {"t": 11, "type": "choice", "player": "ben", "action": "hand", "cards": ben}]
    return _write(tmp_path / "ssp.jsonl", {"t": 0, "type": "session", "game": "seasaltpaper", "players": ["aki", "ben"]}, ev)


def _toratanu(tmp_path: Path) -> Path:
    ev = [{"t": 200, "type": "choice", "player": None, "action": "special", "card": "tanuki"},
          {"t": 300, "type": "choice", "player": "aki", "action": "tally",  # laid out only the chickens: 30 below
           "hand": ["owl:red", "owl:yellow", "owl:green", "kangaroo:red:2", "orangutan:red:3", "chicken", "chicken",
                    "chicken", "fox"], "sets": [["chicken", "chicken", "chicken"]]},
          {"t": 301, "type": "choice", "player": "ben", "action": "tally",
           "hand": ["komondor", "wolf:white", "wolf", "wolf", "horse", "horse", "horse", "dolphin:white", "fox"]}]
    return _write(tmp_path / "tora.jsonl", {"t": 0, "type": "session", "game": "toratanu", "players": ["aki", "ben"],
                                            "options": {"games": 1}}, ev)


CASES = {
    "ikatako": lambda tmp: ROOT / "fixtures" / "demo" / "truth.jsonl",
    "ikatako-coop": lambda tmp: ROOT / "fixtures" / "sessions" / "ikatako_coop.jsonl",
    "mokochaka": lambda tmp: ROOT / "fixtures" / "sessions" / "mokochaka_4p_game.jsonl",
    "takoyaki": lambda tmp: ROOT / "fixtures" / "sessions" / "takoyaki_two_players.jsonl",
    "seasaltpaper": _seasaltpaper,
    "toratanu": _toratanu,
}


def _explain(session: Path, data: Path, *extra: str):
    res = CliRunner().invoke(cli, ["teach", "explain", str(session), "--data", str(data), "--start", START,
                                   "--learner", "mia", "-o", str(data / "drills.txt"), *extra], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res


@pytest.mark.parametrize("game", sorted(CASES))
def test_each_explained_mistake_is_a_due_fsrs_card(game, tmp_path):
    res = _explain(CASES[game](tmp_path), tmp_path)
    lines = [x for x in (tmp_path / "drills.txt").read_text().splitlines() if x.strip()]
    assert lines and all(x.startswith(game + " ") for x in lines), res.output
    drill = drills.get(game)
    posable = {drill.make(x.split()[1]).key for x in lines if drill.make(x.split()[1]) is not None}
    assert posable, lines
    prog = Progress.open("mia", tmp_path)
    cards = prog.cards[game]
    assert set(cards) == posable
    assert all(c.due <= NOW for c in cards.values())
    assert f"{len(posable)} drill(s) due now for learner mia" in res.output


@pytest.mark.parametrize("game,wanted", [("takoyaki", "x.x.....xx/6H"), ("seasaltpaper", None), ("toratanu", None),
                                         ("mokochaka", None), ("ikatako", "tako|mirror")])
def test_the_next_drill_brings_the_recorded_mistake_back_first(game, wanted, tmp_path):
    _explain(CASES[game](tmp_path), tmp_path)
    due = set(Progress.open("mia", tmp_path).cards[game])
    if wanted:
        assert wanted in due
    res = CliRunner().invoke(cli, ["teach", game, "--script", "oracle", "--cards", "1", "--no-placement", "--seed", "1",
                                   "--no-voice", "--data", str(tmp_path), "--learner", "mia", "--start", START])
    assert res.exit_code == 0, res.output
    answers = [json.loads(x) for x in Progress.open("mia", tmp_path).path.read_text().splitlines()]
    first = next(a for a in answers if a["type"] == "answer")
    assert first["situation"] in due and first["verdict"] == "correct"


def test_the_seat_option_keeps_one_players_mistakes(tmp_path):
    _explain(ROOT / "fixtures" / "demo" / "truth.jsonl", tmp_path, "--seat", "aki")
    lines = (tmp_path / "drills.txt").read_text().splitlines()
    assert lines and all("# aki:" in x for x in lines)
    res = CliRunner().invoke(cli, ["teach", "explain", str(ROOT / "fixtures" / "demo" / "truth.jsonl"), "--seat", "zoe",
                                   "--data", str(tmp_path)])
    assert res.exit_code == 2 and "zoe" in res.output and "Traceback" not in res.output

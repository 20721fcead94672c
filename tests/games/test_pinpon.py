"""The sixth test game plugs in without a change to shared code (issue 32, item 3): its one
module (``tests/games/pinpon.py``) is named by ``rules.PLUGINS``, and then it passes the
games' conformance tests and ``referee rules``, ``referee judge`` and ``referee teach`` work for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rules
from tests.rules.test_conformance import SEEDS, _play
from tests.rules import test_declarations as declarations

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = "tests.games.pinpon"
RECORD = [{"type": "session", "t": 0.0, "game": "pinpon", "players": ["aki", "ben"]},
          {"type": "card", "t": 1.0, "card": "ping"},
          {"type": "shout", "t": 1.4, "player": "ben", "words": ["ping"]},
          {"type": "shout", "t": 1.5, "player": "aki", "words": ["ping"]},
          {"type": "card", "t": 3.0, "card": "pong"},
          {"type": "shout", "t": 3.3, "player": "aki", "words": ["ping"]},
          {"type": "end", "t": 6.0}]


@pytest.fixture
def plugged(monkeypatch):
    """The registry with PINPON plugged in, for this test only."""
    monkeypatch.setenv(rules.PLUGINS, PLUGIN)
    rules.refresh()
    yield
    monkeypatch.delenv(rules.PLUGINS)
    rules.refresh()


def _referee(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, rules.PLUGINS: PLUGIN, "PYTHONPATH": str(ROOT), "TABLE_REFEREE_DATA": str(tmp_path / "data")}
    return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)


def test_no_shared_code_names_the_sixth_game():
    for package in ("audio", "calibration", "referee", "rules", "session", "vision"):
        for path in (ROOT / package).rglob("*.py"):
            assert "pinpon" not in path.read_text(encoding="utf-8").lower(), path


def test_it_registers_and_passes_the_conformance_tests(plugged):
    assert rules.names()[-1] == "pinpon"
    declarations.test_every_game_declares_what_the_rest_needs("pinpon")
    for seed in SEEDS:
        state, trace = _play("pinpon", seed)
        assert state.is_over and _play("pinpon", seed)[1] == trace
        json.dumps(state.result())


def test_referee_rules_judge_and_teach_work_for_it(tmp_path):
    rules_out = _referee("rules", "pinpon", "expect", "pong", tmp_path=tmp_path)
    assert rules_out.returncode == 0 and rules_out.stdout == "pong: say pong\n", rules_out.stderr
    record = tmp_path / "pinpon.jsonl"
    record.write_text("".join(json.dumps(line) + "\n" for line in RECORD), encoding="utf-8")
    judged = _referee("judge", str(record), "--json", tmp_path=tmp_path)
    assert judged.returncode == 0, judged.stderr
    lines = [json.loads(x) for x in judged.stdout.splitlines()]
    assert [x.get("first") for x in lines[:2]] == ["ben", None]
    assert lines[-1] == {"type": "result", "scores": {"aki": 0, "ben": 1}}
    taught = _referee("teach", "pinpon", "--script", "oracle", "--cards", "3", "--no-voice", "--seed", "1",
                      "--no-placement", tmp_path=tmp_path)
    assert taught.returncode == 0, taught.stderr
    assert "3 cards, 3 right" in taught.stdout

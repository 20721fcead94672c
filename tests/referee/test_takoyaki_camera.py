"""TAKOYAKI from the camera (issue 34): the rendered demo (fixtures/takoyaki) and its truth, the
judge's implied draws (a camera never sees a draw), and the replay of the video giving the
truth's verdicts (every placement right, 0 wrong)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.judge import judge
from session.record import parse_lines, read_record
from tests.conftest import FIXTURES

DEMO = FIXTURES / "takoyaki"
KEY = ("player", "card", "zone", "action", "legal", "why", "next", "face_up", "winner")


def _load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _verdicts(lines) -> list[tuple]:
    return [tuple(v.get(k) for k in KEY) for v in lines if v.get("type") == "verdict"]


def _camera(events: list[tuple[str, str]], players=("aki", "ben")) -> list[str]:
    """A camera record: ``(card, zone)`` one second apart."""
    head = {"t": 0.0, "type": "session", "game": "takoyaki", "mode": "versus", "players": list(players), "options": {}}
    return [json.dumps(head)] + [json.dumps({"t": float(i + 1), "type": "card", "card": c, "zone": z})
                                 for i, (c, z) in enumerate(events)]


# ----------------------------------------------------------------------------- the truth
def test_truth_judges_to_the_committed_verdicts():
    j = judge(read_record(DEMO / "truth.jsonl"))
    assert j.lines == _load(DEMO / "expected.jsonl")


def test_the_game_is_interesting_and_every_move_legal():
    lines = _load(DEMO / "expected.jsonl")
    verdicts = [v for v in lines if v["type"] == "verdict"]
    assert all(v["legal"] for v in verdicts)
    assert lines[-1]["winners"] == ["aki"] and lines[-1]["face_up"] == {"aki": 10, "ben": 8}
    assert any(v["card"] == "JK" and v["action"] == "place" for v in verdicts)  # a joker
    assert sum(v["action"] == "discard" for v in verdicts) >= 10
    chain = best = 0
    for v in verdicts:
        chain = chain + 1 if v["action"] == "place" else 0
        best = max(best, chain)
    assert best >= 5  # a chain of five placements


def test_the_fixture_is_what_the_maker_writes(tmp_path):
    from fixtures import make_takoyaki_demo as mk

    mk.write(tmp_path, video=False)
    for name in ("truth.jsonl", "expected.jsonl", "calibration.json"):
        assert (tmp_path / name).read_text(encoding="utf-8") == (DEMO / name).read_text(encoding="utf-8"), name
    committed = sorted(p.name for p in (DEMO / "refs").iterdir())
    assert committed == sorted(p.name for p in (tmp_path / "refs").iterdir()) and len(committed) == 53
    assert sum(p.stat().st_size for p in DEMO.rglob("*") if p.is_file()) < 3_000_000  # small


# ----------------------------------------------------------------------------- implied draws
def test_a_camera_record_judges_as_the_typed_record_with_its_draws():
    """The truth with every draw typed in (a ``p:NAME:draw`` event just before the first card
    of each turn) gives the same place and discard verdicts as the camera's record."""
    truth = _load(DEMO / "truth.jsonl")
    typed, holder = [truth[0]], None
    for v in _load(DEMO / "expected.jsonl"):
        if v["type"] != "verdict":
            continue
        if holder is None:
            typed.append({"t": round(v["t"] - 0.5, 3), "type": "card", "card": v["card"], "zone": f"p:{v['player']}:draw"})
        typed.append({"t": v["t"], "type": "card", "card": v["card"],
                      "zone": "discard" if v["zone"] == "pile0" else v["zone"]})
        holder = None if v["action"] == "discard" else v["player"]
    j = judge(parse_lines([json.dumps(e) for e in typed]))
    got = [x for x in _verdicts(j.lines) if x[3] != "draw"]
    want = [(*x[:2], "discard" if x[2] == "pile0" else x[2], *x[3:]) for x in _verdicts(_load(DEMO / "expected.jsonl"))]
    assert got == want


def test_implied_draws_keep_the_turn_order():
    lines = _camera([("3S", "p:aki:slot3"), ("KD", "pile0"),  # aki: 3S, then the card under it, KD
                     ("QH", "pile0"),  # ben drew QH and discarded it at once
                     ("5C", "p:ben:slot5"),  # out of turn: aki plays now
                     ])
    v = [x for x in judge(parse_lines(lines)).lines if x["type"] == "verdict"]
    assert [(x["player"], x["legal"], x["next"]) for x in v[:3]] == [("aki", True, "aki"), ("aki", True, "ben"),
                                                                     ("ben", True, "aki")]
    assert v[3]["player"] == "ben" and not v[3]["legal"] and v[3]["why"].startswith("turn should have ended")


def test_a_missed_discard_passes_the_turn_with_a_warning():
    lines = _camera([("3S", "p:aki:slot3"), ("7D", "p:ben:slot7")])  # aki's discard was not seen
    j = judge(parse_lines(lines))
    v = [x for x in j.lines if x["type"] == "verdict"]
    assert [(x["player"], x["legal"]) for x in v] == [("aki", True), ("ben", True)]
    assert any("no discard seen for aki" in str(n) for n in j.notes)


def test_a_wrong_slot_from_the_camera_is_named():
    v = [x for x in judge(parse_lines(_camera([("7H", "p:aki:slot6")]))).lines if x["type"] == "verdict"]
    assert not v[0]["legal"] and v[0]["why"] == "wrong slot: 7H goes on slot 7, not slot 6"


# ----------------------------------------------------------------------------- the replay
def test_the_replayed_video_gives_the_truths_verdicts(tmp_path):
    """The camera reads every card where and when it lands (within 2 frames: a hand over the
    card's edge), and the judge gives the truth's verdicts: every placement right, 0 wrong."""
    from referee.replay import ReplaySettings, replay

    result = replay(DEMO / "session.mp4", DEMO / "calibration.json", out=tmp_path,
                    settings=ReplaySettings(game="takoyaki", mode="versus", workers=0, no_enroll=True))
    want = _load(DEMO / "expected.jsonl")
    assert _verdicts(result.judgement.lines) == _verdicts(want)
    assert result.judgement.lines[-1] == want[-1]
    cards = [e for e in _load(tmp_path / "session.jsonl") if e.get("type") == "card"]
    truth = [e for e in _load(DEMO / "truth.jsonl") if e.get("type") == "card"]
    assert [(e["card"], e["zone"]) for e in cards] == [(e["card"], e["zone"]) for e in truth]
    assert max(abs(a["t"] - b["t"]) for a, b in zip(cards, truth)) <= 2 / 15 + 1e-6
    # a game without spoken calls, replayed without a seats' recording: nothing about sound
    # ("no audio: shouts are not heard" would only puzzle the table)
    said = [w for w in result.warnings if "audio" in w or "shout" in w]
    assert not said, said
    assert not any(e.get("type") == "skipped" for e in _load(tmp_path / "session.jsonl"))
    # no TAKOYAKI verdict uses the hands (rules.Game.uses_hands): no pose ran, so the record
    # has no seat's status ("no person found") and no hand event
    assert not [e for e in _load(tmp_path / "session.jsonl") if e.get("type") in ("seat_status", "hand", "grab")]


def test_demo_takoyaki_refuses_events(run_cli):
    res = run_cli("demo", "--game", "takoyaki", "--events")
    assert res.exit_code == 2 and "read by the camera" in res.output


@pytest.mark.parametrize("game", ["takoyaki"])
def test_the_takoyaki_calibration_asks_for_the_discards(game):
    from calibration.decks import game_zones

    zones = game_zones(game, ["aki", "ben"])
    assert zones[-1] == "pile0" and "p:ben:slot10" in zones and len(zones) == 21


# ----------------------------------------------------------------------------- said aloud
def test_an_illegal_placement_a_chains_end_and_the_winner_are_said():
    from referee.judging.takoyaki import announcement, phrases

    lines = _camera([("3S", "p:aki:slot3"), ("7H", "p:aki:slot6"), ("KD", "pile0")])
    v = [x for x in judge(parse_lines(lines)).lines if x["type"] == "verdict"]
    said = [announcement(x) for x in v]
    assert said == [(), ("7 of hearts", "on the 6 slot", "wrong slot"), ("aki", "turn ends", "ben", "to play")]
    win = [x for x in _load(DEMO / "expected.jsonl") if x.get("winner")]
    assert announcement(win[0]) == ("aki", "wins")
    every = phrases(["aki", "ben"])
    for x in _load(DEMO / "expected.jsonl") + v:
        assert set(announcement(x)) <= every


@pytest.mark.parametrize("game,where", [("ikatako", "DEMO"), ("takoyaki", "TAKOYAKI_DEMO")])
def test_a_demo_whose_files_are_missing_is_one_clear_error(tmp_path, monkeypatch, game, where):
    from click.testing import CliRunner

    from referee.cli import cli
    from referee.commands import demo_files, replay

    monkeypatch.setattr(demo_files, where, tmp_path)
    if where == "DEMO":
        monkeypatch.setattr(replay, "DEMO", tmp_path)
    result = CliRunner().invoke(cli, ["demo", "--game", game, "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert f"the demo file {tmp_path / 'session.mp4'} is missing" in result.output
    assert "Traceback" not in result.output


def test_a_card_the_camera_did_not_read_makes_later_illegal_moves_unclear_never_a_penalty():
    """Each card of the demo's truth in turn replaced by the card zone's "card not recognised"
    warning (``unread``): without it the judge, implying the draws around the gap, found 5
    illegal moves in 31 such records (the next move looked out of turn or onto a filled slot);
    now none, the moves it would call illegal are unclear (``legal`` null, the player in
    ``unclear`` with the card not read), and the illegal counts stay 0."""
    from referee.judging.takoyaki import format_table
    from referee.live.griddles import move_text

    lines = (DEMO / "truth.jsonl").read_text(encoding="utf-8").splitlines()
    unclear = 0
    for i, raw in enumerate(lines):
        ev = json.loads(raw)
        if ev.get("type") != "card":
            continue
        gap = {"t": ev["t"], "type": "warning", "message": "card not recognised", "zone": ev.get("zone") or "pile0",
               "unread": True}
        j = judge(parse_lines([*lines[:i], json.dumps(gap), *lines[i + 1:]]))
        verdicts = [v for v in j.lines if v.get("type") == "verdict"]
        assert not any(v["legal"] is False for v in verdicts), (ev, [v for v in verdicts if v["legal"] is False])
        assert set(j.lines[-1]["illegal"].values()) == {0}
        for v in (v for v in verdicts if v["legal"] is None):
            unclear += 1
            (why,) = v["unclear"].values()
            assert list(v["unclear"]) == [v["player"]]
            assert why.startswith("a card on ") and f"at {ev['t']:.1f} s was not read" in why
            assert "unclear" in move_text(v) and "no penalty" in move_text(v)
        if any(v["legal"] is None for v in verdicts):
            assert " ?  " in format_table(j, None) and "unclear, no penalty: a card on " in format_table(j, None)
    assert unclear >= 5
    clean = judge(read_record(DEMO / "truth.jsonl"))
    assert all(v.get("legal") is True and "unclear" not in v for v in clean.lines if v.get("type") == "verdict")

"""Judging MOKOCHAKA records: hand-reasoned scenarios, the full fixture game, the CLI,
and the properties every judge keeps (order invariance at equal times, time shifts)."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from referee.judge import judge
from session.record import parse_lines, read_record

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = Path(__file__).with_name("scenarios") / "mokochaka"
GAME_FIXTURE = ROOT / "fixtures" / "sessions" / "mokochaka_4p_game.jsonl"
NAMES = sorted(p.stem for p in SCENARIOS.glob("*.jsonl"))


def _judge_path(path: Path):
    record = read_record(path)
    assert record.issues == []
    return judge(record)


def _subset_mismatches(expected, actual, where: str) -> list[str]:
    out = []
    for key, want in expected.items():
        if key not in actual:
            out.append(f"{where}: missing {key!r}")
        elif actual[key] != want:
            out.append(f"{where}: {key} = {actual[key]!r}, expected {want!r}")
    return out


def test_there_are_scenarios():
    assert len(NAMES) >= 5


@pytest.mark.parametrize("name", NAMES)
def test_scenario(name):
    expected = json.loads((SCENARIOS / f"{name}.expected.json").read_text())
    judgement = _judge_path(SCENARIOS / f"{name}.jsonl")
    verdicts = [o for o in judgement.lines if o["type"] == "verdict"]
    results = [o for o in judgement.lines if o["type"] == "result"]
    assert judgement.lines[-1] is results[0] and len(results) == 1
    assert len(verdicts) == len(expected["verdicts"]), [v["card"] for v in verdicts]
    problems = []
    for i, (want, got) in enumerate(zip(expected["verdicts"], verdicts)):
        problems += _subset_mismatches(want, got, f"verdict {i + 1} ({got['card']} at t={got['t']})")
    problems += _subset_mismatches(expected["result"], results[0], "result")
    assert problems == []
    notes = [n.message for n in judgement.notes]
    for fragment in expected["warnings"]:
        assert any(fragment in n for n in notes), f"no warning containing {fragment!r} in {notes}"
    assert len(notes) == len(expected["warnings"]), notes


def test_every_verdict_has_the_contract_fields():
    judgement = _judge_path(GAME_FIXTURE)
    for v in judgement.lines[:-1]:
        assert {"t", "card", "caller", "call", "accepted", "ok", "late", "grab_winner", "penalties", "why"} <= set(v)
    assert {"hands", "winners"} <= set(judgement.lines[-1])


def _load_generator():
    spec = importlib.util.spec_from_file_location("make_mokochaka", ROOT / "fixtures" / "sessions" / "make_mokochaka.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_full_game_fixture_is_what_the_script_writes_and_the_judge_agrees():
    gen = _load_generator()
    seed = gen.choose_seed()
    events, state, seen = gen.play_game(seed)
    assert gen.render(events) == GAME_FIXTURE.read_text(encoding="utf-8")
    assert seen["penalty"] >= gen.WANTED and seen["token"] >= 2 and seen["chakamokochaka"] >= 1
    # the judge sees only events (hands hidden) and must reach the simulation's standing
    judgement = _judge_path(GAME_FIXTURE)
    assert judgement.notes == []
    result = judgement.lines[-1]
    truth = state.result()
    assert result["over"] and result["ended_by"] == truth["ended_by"]
    assert result["hands"] == truth["hands"]
    assert result["gabu"] == truth["gabu"] and result["winners"] == truth["winners"]
    verdicts = judgement.lines[:-1]
    assert len(verdicts) == state.plays
    assert any(v["special"] and v["grab_winner"] for v in verdicts)
    assert any(not v["ok"] for v in verdicts)


def test_unfinished_record_without_gabu_counts_says_so():
    judgement = _judge_path(SCENARIOS / "normal_calls.jsonl")
    result = judgement.lines[-1]
    assert result["over"] is False and "hand size" in result["note"]


def test_setup_count_mismatch_is_a_warning_not_a_crash():
    lines = [
        json.dumps({"t": 0, "type": "session", "game": "mokochaka", "players": ["aki", "ben", "chie"]}),
        json.dumps({"t": 1.0, "type": "card", "card": "moko1", "zone": "pile0", "by": "aki"}),
        json.dumps({"t": 1.5, "type": "shout", "player": "aki", "words": ["moko"]}),
        json.dumps({"t": 3.0, "type": "card", "card": "pome2", "zone": "pile1", "by": "ben"}),
        json.dumps({"t": 3.5, "type": "shout", "player": "ben", "words": ["pomemoko"]}),
    ]
    judgement = judge(parse_lines(lines))
    assert any("setup card" in n.message for n in judgement.notes)
    v1, v2, result = judgement.lines
    assert v1["accepted"] == ["moko"] and v1["ok"] and v2["accepted"] == ["pomemoko"] and v2["ok"]
    assert sum(result["hands"].values()) + sum(result["piles"]) == 32


def test_out_of_turn_play_is_followed_with_a_warning():
    lines = SCENARIOS.joinpath("normal_calls.jsonl").read_text().splitlines()
    lines = [ln.replace('"by": "ben"}', '"by": "chie"}', 1) if '"t": 4.0' in ln else ln for ln in lines]
    judgement = judge(parse_lines(lines))
    assert any("out of turn" in n.message for n in judgement.notes)
    assert judgement.lines[1]["caller"] == "chie"


def test_table_for_people(run_cli):
    res = run_cli("judge", SCENARIOS / "special_token.jsonl")
    assert res.exit_code == 0
    out = res.output
    assert "chakamokochaka" in out and "token: chie" in out
    assert "penalty: chie gives 1 card(s) to ben" in out
    assert "bonus: chie takes pile(s) 0, 1 (3 cards) + 1 card from each of aki, ben" in out
    assert "Winners: aki, chie" in out


def test_judge_json_cli(run_cli):
    res = run_cli("judge", SCENARIOS / "two_players.jsonl", "--json")
    assert res.exit_code == 0
    objs = [json.loads(line) for line in res.output.splitlines()]
    assert [o["type"] for o in objs] == ["verdict"] * 3 + ["result"]
    assert objs[0]["penalties"][0]["cards"] == 2


def test_rules_option_on_the_command_line(run_cli):
    # with a 4 s window chie's call at 3.2 s is in time
    res = run_cli("judge", SCENARIOS / "normal_calls.jsonl", "--json", "-o", "window=4")
    v3 = json.loads(res.output.splitlines()[2])
    assert v3["card"] == "pome1" and v3["ok"] and not v3["late"] and v3["penalties"] == []


# ---------------------------------------------------------------- CLI: referee rules mokochaka call

@pytest.mark.parametrize("cards,accepted,special", [
    (["moko1", "paka2", "pome2"], ["chakamoko", "mokochaka"], True),
    (["moko4", "paka3", "gabu1"], ["mokochaka"], True),
    (["pome2", "paka2", "moko2"], ["chakamokochaka"], True),
    (["moko2", "paka4"], ["pakamoko"], False),
    (["moko3", "moko3", "moko2"], ["mokomoko"], False),
])
def test_call_cli_json(run_cli, cards, accepted, special):
    res = run_cli("rules", "mokochaka", "call", *cards, "--json")
    assert res.exit_code == 0
    obj = json.loads(res.output)
    assert obj["accepted"] == accepted and obj["special"] is special


def test_call_cli_for_people(run_cli):
    res = run_cli("rules", "mokochaka", "call", "moko4", "paka3", "gabu1")
    assert res.exit_code == 0
    assert "call: mokochaka" in res.output and "gabu eats moko: moko counts 3" in res.output


@pytest.mark.parametrize("args,message", [
    (["moko7"], "unknown MOKOCHAKA card 'moko7'"),
    (["moko1", "moko2", "moko3", "moko4"], "at most 3 cards"),
])
def test_call_cli_errors(run_cli, args, message):
    res = run_cli("rules", "mokochaka", "call", *args)
    assert res.exit_code == 2
    assert message in res.output
    assert "Traceback" not in res.output


# ---------------------------------------------------------------- properties

def _fixture_objs():
    lines = GAME_FIXTURE.read_text().splitlines()
    return [json.loads(x) for x in lines]


BASE = _fixture_objs()
SCENARIO_OBJS = {n: [json.loads(x) for x in (SCENARIOS / f"{n}.jsonl").read_text().splitlines()] for n in NAMES}


def _judge_objs(objs):
    return judge(parse_lines([json.dumps(o) for o in objs]))


def _canon(judgement):
    return judgement.jsonl()


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(NAMES), seed=st.integers(0, 2**32 - 1), collide=st.integers(0, 6))
def test_order_of_events_with_equal_timestamps_does_not_matter(name, seed, collide):
    objs = [dict(o) for o in SCENARIO_OBJS[name]]
    rng = random.Random(seed)
    body = objs[1:]
    # make some reactions share a timestamp with their neighbour, then shuffle within equal times
    for _ in range(collide):
        i = rng.randrange(len(body) - 1)
        if body[i]["type"] in ("shout", "grab") and body[i + 1]["type"] in ("shout", "grab"):
            body[i + 1]["t"] = body[i]["t"]
    base = _canon(_judge_objs([objs[0]] + sorted(body, key=lambda o: o["t"])))
    shuffled = sorted(body, key=lambda o: (o["t"], rng.random()))
    assert _canon(_judge_objs([objs[0]] + shuffled)) == base


@settings(max_examples=20, deadline=None)
@given(name=st.sampled_from(NAMES + ["__game__"]), shift_ms=st.integers(-500, 10**7))
def test_shifting_every_timestamp_changes_nothing(name, shift_ms):
    objs = BASE if name == "__game__" else SCENARIO_OBJS[name]
    shift = shift_ms / 1000
    moved = [dict(o) for o in objs]
    for o in moved[1:]:
        o["t"] = round(o["t"] + shift, 3)
    a = [dict(x) for x in _judge_objs(objs).lines]
    b = [dict(x) for x in _judge_objs(moved).lines]
    for v in a + b:
        if v["type"] == "verdict":
            v.pop("t")
            for p in v["penalties"]:
                p.pop("t")
    assert a == b
    for va, vb in zip(_judge_objs(objs).lines, _judge_objs(moved).lines):
        if va["type"] == "verdict":
            assert vb["t"] == pytest.approx(va["t"] + shift, abs=1e-6)


def test_full_game_on_the_command_line(run_cli):
    res = run_cli("judge", GAME_FIXTURE)
    assert res.exit_code == 0
    assert "Result (game over, chie played their last card)" in res.output and "Winners: aki" in res.output


_NAMES = st.sampled_from(["aki", "ben", "chie", "zed"])
_EVENT = st.one_of(
    st.fixed_dictionaries({"type": st.just("card"), "card": st.sampled_from(["moko1", "paka2", "pome3", "gabu4", "moko9", "ika"]),
                           "zone": st.sampled_from(["pile0", "pile1", "pile2", "pile3", "field"]),
                           "by": st.one_of(st.none(), _NAMES)}),
    st.fixed_dictionaries({"type": st.just("shout"), "player": st.one_of(st.none(), _NAMES),
                           "words": st.lists(st.sampled_from(["moko", "paka", "chakamoko", "mokochaka", "chakamokochaka",
                                                              "pakamoko", "gabu", "stop", "8"]), min_size=1, max_size=3)}),
    st.fixed_dictionaries({"type": st.just("grab"), "player": _NAMES}),
    st.fixed_dictionaries({"type": st.just("decision"), "first": _NAMES}),
    st.fixed_dictionaries({"type": st.just("choice"), "player": _NAMES,
                           "action": st.sampled_from(["penalty", "piles", "gabu", "uzushio"]),
                           "to": st.one_of(_NAMES, st.integers()), "piles": st.lists(st.integers(-1, 3), max_size=3),
                           "count": st.one_of(st.integers(-2, 40), st.text(max_size=2))}),
    st.just({"type": "end"}),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 400), _EVENT), max_size=40))
def test_any_well_formed_record_is_judged_without_crashing(items):
    objs = [{"t": 0, "type": "session", "game": "mokochaka", "players": ["aki", "ben", "chie"]}]
    objs += [{"t": t / 10, **ev} for t, ev in sorted(items, key=lambda x: x[0])]
    judgement = _judge_objs(objs)
    result = judgement.lines[-1]
    assert result["type"] == "result"
    assert sum(result["hands"].values()) + sum(result["piles"]) == 32

"""``referee replay`` / ``referee demo``: the bundled recording replayed end to end.

One full replay of fixtures/demo (module fixture, through the CLI) is checked against the
demo's expected verdicts (fixtures/demo/expected.jsonl: who was first, correct / wrong /
missed per card), then re-judged with hand-made corrections, and its report inspected.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from session.record import read_record
from tests.conftest import FIXTURES, once

DEMO = FIXTURES / "demo"


def _expected() -> list[dict]:
    return [json.loads(x) for x in (DEMO / "expected.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.fixture(scope="module")
def demo_out(tmp_path_factory):
    from click.testing import CliRunner

    from referee.cli import cli

    def make():
        out = tmp_path_factory.mktemp("demo")
        res = CliRunner().invoke(cli, ["demo", "--out", str(out), "--json"], catch_exceptions=False)
        assert res.exit_code == 0, res.output
        return out, res

    return once("test_replay.demo_out", make)


def _verdict_view(v: dict) -> dict:
    return {"card": v["card"], "first": v["first"], "tie": sorted(v["tie"]), "unsettled": v["unsettled"],
            "correct": sorted(v["correct"]), "wrong": sorted(v["wrong"]), "missed": sorted(v["missed"])}


@pytest.mark.parametrize("k", range(1, 11))
def test_demo_replay_reproduces_the_expected_verdict(demo_out, k):
    """Every card's verdict from perception alone (benchmarks/bench_demo_audio.py prints the
    hearing half: 35/35 shouts with the right words, onsets within 50 ms)."""
    out, res = demo_out
    got = [_verdict_view(v) for v in map(json.loads, res.stdout.splitlines()) if v["type"] == "verdict"]
    want = [_verdict_view(v) for v in _expected() if v["type"] == "verdict"]
    assert [v["card"] for v in got] == [v["card"] for v in want]
    assert got[k - 1] == want[k - 1]


def test_demo_replay_sees_every_card_and_hand_of_the_truth(demo_out):
    """The vision half of the demo, event by event against truth.jsonl."""
    out, _ = demo_out
    truth = [json.loads(x) for x in (DEMO / "truth.jsonl").read_text(encoding="utf-8").splitlines()]
    got = [json.loads(x) for x in (out / "session.jsonl").read_text(encoding="utf-8").splitlines()]
    for kind in ("card", "hand"):
        want = [e for e in truth if e["type"] == kind]
        seen = [e for e in got if e["type"] == kind]
        assert len(seen) == len(want), kind
        for e in want:
            assert any(all(g.get(f) == e.get(f) for f in ("card", "player", "side", "state"))
                       and abs(g["t"] - e["t"]) <= 0.07 for g in seen), e


def test_demo_replay_reproduces_the_expected_result(demo_out):
    out, res = demo_out
    result = [x for x in map(json.loads, res.stdout.splitlines()) if x["type"] == "result"][0]
    want = [x for x in _expected() if x["type"] == "result"][0]
    assert result["scores"] == want["scores"] and result["winners"] == want["winners"]


def test_demo_writes_record_and_self_contained_report(demo_out):
    out, res = demo_out
    record = read_record(out / "session.jsonl")
    assert not record.errors
    assert record.header.game == "ikatako" and list(record.header.players) == ["aki", "ben", "chie", "dai"]
    times = [e.event.t for e in record.entries]
    assert times == sorted(times)
    # every stage kept its watermark's promise (vision's tight bound included): nothing late
    assert "later than their stage promised" not in res.stderr
    kinds = {e.event.type for e in record.entries}
    assert {"card", "hand", "shout"} <= kinds
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count('<section class="card"') == 10
    assert not re.search(r'(src|href)="(https?:|//)', page), "the report must not load anything from a network"
    assert page.count("data:image/") >= 10 * 3
    assert "report.html" in res.stderr


def test_rejudging_with_corrections_changes_only_the_corrected_card(demo_out, run_cli, tmp_path):
    """``referee judge session.jsonl`` gives the replay's verdicts; a hand-made correction
    (a person says: that shout was really "uzushio") changes that card and nothing else
    (later cards may only differ in which point card a penalty turns down)."""
    out, res = demo_out
    lines = (out / "session.jsonl").read_text(encoding="utf-8").splitlines()
    base = run_cli("judge", out / "session.jsonl", "--json")
    assert base.exit_code == 0
    before = [json.loads(x) for x in base.stdout.splitlines()]
    assert before == [json.loads(x) for x in res.stdout.splitlines()]  # the same verdicts as the replay printed
    k, v = next((k, v) for k, v in enumerate(before) if v.get("type") == "verdict" and v.get("correct"))
    player = v["correct"][0]
    events = [json.loads(x) for x in lines]
    line = next(i for i, e in enumerate(events, 1) if e.get("type") == "shout" and e.get("player") == player
                and v["t"] - 0.001 <= e["t"] <= v["t"] + 3.0)
    fixed = dict(events[line - 1], words=["uzushio"])
    corrected = tmp_path / "corrected.jsonl"
    corrected.write_text("\n".join(lines + [json.dumps({"t": fixed["t"], "type": "correction", "ref": line,
                                                          "replace": fixed})]) + "\n", encoding="utf-8")
    res2 = run_cli("judge", corrected, "--json")
    assert res2.exit_code == 0
    after = [json.loads(x) for x in res2.stdout.splitlines()]
    assert len(after) == len(before)
    assert player in after[k]["wrong"] and player not in after[k]["correct"]
    assert "said uzushio" in after[k]["why"][player]
    keys = ("card", "t", "first", "tie", "correct", "wrong", "missed", "why")
    for i, (a, b) in enumerate(zip(after, before)):
        if i != k and a["type"] == "verdict":
            assert {x: a.get(x) for x in keys} == {x: b.get(x) for x in keys}, i


def test_a_replay_killed_half_way_leaves_a_valid_record_up_to_the_watermark(demo_out, tmp_path):
    """``kill -9`` in the middle of a replay: every line of the session record is whole and
    valid, and the record is exactly a prefix of the complete one — the merge releases events
    in canonical order once no earlier one can arrive, and the writer flushes each at once,
    so what is on disk is every event up to the watermark at the moment of the kill. The run
    writes into its staging folder (``referee.outdir``): the killed run's record is there,
    and ``--out`` itself never holds half a run."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "referee", "replay", str(DEMO / "session.mp4"), "--audio",
                             str(DEMO / "seats.wav"), "--calibration", str(DEMO / "calibration.json"), "--out",
                             str(out)], cwd=DEMO.parents[1], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    full = (demo_out[0] / "session.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)

    def staged() -> list[Path]:  # a run writes into .killed.staging-<run>/ until it completes
        return sorted(out.parent.glob(".killed.staging-*/session.jsonl"))

    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            found = staged()
            if found and len(found[0].read_bytes().splitlines()) >= len(full) // 3:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the replay ended before it could be killed half-way"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert not out.exists(), "a killed run must not look like a finished one"
    (record,) = staged()
    text = record.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    assert text.endswith("\n"), "the last line was cut"
    assert len(full) // 3 <= len(lines) < len(full)
    assert read_record(record).issues == []
    assert lines == full[: len(lines)]


@pytest.mark.parametrize("version", [1, 2])
def test_the_calibrations_enrolled_voices_are_heard_with(version, tmp_path):
    """``referee calibrate --enroll DIR`` writes a version 2 file whose ``enroll`` is a field:
    the replay and live hearing take the voices from it (they read only a version 1 file's
    key before, and heard a calibrated table's players with the speech model alone, silently);
    ``--no-enroll`` still leaves them out."""
    import shutil

    from calibration import load
    from referee.replay import ReplaySettings, hearing_plan

    demo = FIXTURES / "demo"
    shutil.copytree(demo / "enroll", tmp_path / "voices")
    shutil.copytree(demo / "refs", tmp_path / "refs")
    cal = load(demo / "calibration.json")
    obj = json.loads((demo / "calibration.json").read_text(encoding="utf-8"))
    if version == 2:
        obj = cal.to_dict(base=demo)
        obj["references"] = "refs"
    obj["enroll"] = "voices"
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    cal = load(path)
    assert Path(hearing_plan(cal, cal.game, "versus", ReplaySettings(), path).enroll).resolve() == (tmp_path / "voices").resolve()
    assert hearing_plan(cal, cal.game, "versus", ReplaySettings(no_enroll=True), path).enroll is None

"""``referee vision arms|cards`` and ``referee watch`` end to end (a generated video)."""

from __future__ import annotations

import json

import cv2
import pytest

from tests.vision.helpers import card_rows, link_refs, pose_rows
from vision import synth
from vision.video import write_video


def test_vision_arms_json(run_cli):
    r = [p for p in pose_rows() if p["file"] == "r05_demo.jpg"][0]
    res = run_cli("vision", "arms", r["path"], "--box", ",".join(map(str, r["box"])), "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output) == {"left_raised": False, "right_raised": True, "found": True}


def test_vision_cards_json(run_cli, tmp_path):
    refs = link_refs("USPCC-bicycle-like", tmp_path / "refs")
    scene = [r for r in card_rows() if r["file"] == "eepong_scenes/green_close.jpg"][0]
    res = run_cli("vision", "cards", scene["path"], "--refs", refs, "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output) == {"cards": ["9D"], "uncertain": 0}


def test_vision_errors_are_one_line(run_cli, tmp_path):
    bad = tmp_path / "x.jpg"
    bad.write_bytes(b"garbage")
    res = run_cli("vision", "arms", bad, "--box", "0,0,10,10")
    assert res.exit_code == 2 and "unreadable" in res.output and "Traceback" not in res.output
    res = run_cli("vision", "cards", bad, "--refs", tmp_path / "none")
    assert res.exit_code == 2 and "reference folder" in res.output


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A 2.4 s generated table video (two cards, two drawn players raising) + calibration."""
    d = tmp_path_factory.mktemp("table")
    clip = synth.demo_clip(640, 480, seconds=2.4)
    write_video(d / "table.mp4", clip.frames(), fps=clip.fps)
    clip.write_refs(d / "refs")
    (d / "cal.json").write_text(json.dumps(clip.calibration("refs")))
    return d, clip


def test_watch_prints_the_events_of_a_recording(run_cli, recorded):
    d, clip = recorded
    res = run_cli("watch", d / "table.mp4", "--calibration", d / "cal.json", "--json")
    assert res.exit_code == 0, res.output
    events = [json.loads(line) for line in res.output.splitlines() if line.startswith("{")]
    assert [e["t"] for e in events] == sorted(e["t"] for e in events)
    cards = [e for e in events if e["type"] == "card"]
    assert [c["card"] for c in cards] == [dr.code for dr in clip.drops]
    for c, dr in zip(cards, clip.drops):
        assert abs(c["t"] - dr.frame / clip.fps) <= 1.01 / clip.fps
    ups = [(e["player"], e["side"]) for e in events if e["type"] == "hand" and e["state"] == "up"]
    truth = [(clip.names[r.seat], r.side) for r in sorted(clip.raises, key=lambda r: r.crossing())]
    assert ups == truth
    downs = [(e["player"], e["side"]) for e in events if e["type"] == "hand" and e["state"] == "down"]
    assert downs == [(clip.names[r.seat], r.side) for r in clip.raises if r.off is not None]


def test_watch_same_input_same_output(run_cli, recorded):
    d, _ = recorded
    a = run_cli("watch", d / "table.mp4", "--calibration", d / "cal.json")
    b = run_cli("watch", d / "table.mp4", "--calibration", d / "cal.json", "--workers", "2")
    assert a.exit_code == b.exit_code == 0
    lines = lambda out: [l for l in out.splitlines() if " s  " in l]
    assert lines(a.output) == lines(b.output) and lines(a.output)


def test_watch_bad_inputs(run_cli, recorded, tmp_path):
    d, clip = recorded
    corrupt = tmp_path / "broken.mp4"
    corrupt.write_bytes(b"\x00" * 1000)
    res = run_cli("watch", corrupt, "--calibration", d / "cal.json")
    assert res.exit_code == 2 and "unreadable" in res.output
    cal = clip.calibration("refs")
    cal["seats"][0]["box"] = [0, 0, 9999, 10]
    (d / "bad.json").write_text(json.dumps(cal))
    res = run_cli("watch", d / "table.mp4", "--calibration", d / "bad.json")
    assert res.exit_code == 2 and "seats[0].box" in res.output
    cal = clip.calibration("norefs")
    (d / "norefs.json").write_text(json.dumps(cal))
    res = run_cli("watch", d / "table.mp4", "--calibration", d / "norefs.json")
    assert res.exit_code == 2 and "references" in res.output
    cal = clip.calibration("refs")
    cal["camera"] = {"width": 1280, "height": 720}
    (d / "res.json").write_text(json.dumps(cal))
    res = run_cli("watch", d / "table.mp4", "--calibration", d / "res.json")
    assert res.exit_code == 2 and "1280x720" in res.output


def test_watch_at_reduced_rates_keeps_cards_exact_and_hands_in_order(run_cli, recorded):
    d, clip = recorded
    res = run_cli("watch", d / "table.mp4", "--calibration", d / "cal.json", "--json",
                  "--pose-every", "2", "--card-every", "3")
    assert res.exit_code == 0, res.output
    events = [json.loads(line) for line in res.output.splitlines() if line.startswith("{")]
    cards = [(e["card"], e["frame"]) for e in events if e["type"] == "card"]
    assert cards == [(dr.code, dr.frame) for dr in clip.drops]
    ups = [e["player"] for e in events if e["type"] == "hand" and e["state"] == "up"]
    assert ups == [clip.names[r.seat] for r in sorted(clip.raises, key=lambda r: r.crossing())]


def test_watch_reduced_rate_pipelined_workers_same_output(run_cli, recorded):
    # pose every 3rd frame, frames in flight to 2 workers, re-analysis in this process:
    # the same events, to the microsecond, as all in one process
    d, clip = recorded
    args = ("watch", d / "table.mp4", "--calibration", d / "cal.json", "--json", "--pose-every", "3")
    a = run_cli(*args)
    b = run_cli(*args, "--workers", "2")
    assert a.exit_code == b.exit_code == 0, a.output + b.output
    lines = lambda out: [l for l in out.splitlines() if l.startswith("{")]
    assert lines(a.output) == lines(b.output)
    ups = [json.loads(l)["player"] for l in lines(a.output) if '"up"' in l]
    assert ups == [clip.names[r.seat] for r in sorted(clip.raises, key=lambda r: r.crossing())]


def test_vision_cards_debug_draws_every_outline(run_cli, tmp_path):
    refs = link_refs("USPCC-bicycle-like", tmp_path / "refs")
    scene = [r for r in card_rows() if r["file"] == "eepong_scenes/green_close.jpg"][0]
    out = tmp_path / "debug.png"
    res = run_cli("vision", "cards", scene["path"], "--refs", refs, "--debug", out)
    assert res.exit_code == 0, res.output
    assert "cards: 9D" in res.output and f"outlines drawn into {out}" in res.output
    drawn, plain = cv2.imread(str(out)), cv2.imread(str(scene["path"]))
    assert drawn.shape == plain.shape and (drawn != plain).any()
    res = run_cli("vision", "cards", scene["path"], "--refs", refs, "--debug", tmp_path / "no" / "dir.png")
    assert res.exit_code != 0 and "cannot write" in res.output

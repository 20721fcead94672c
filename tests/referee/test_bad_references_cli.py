"""Issue 36: a damaged card reference is one clear error, not a traceback, in ``referee
replay``, ``referee live`` and ``referee calibrate`` — and nothing is left running.

The references are the calibration's folder of card photos. Three kinds of damage: a PNG cut
to 100 bytes; an image that cannot be read at all; a folder without any image. The tests run
as root, who reads a ``chmod 000`` file all the same, so "cannot be read" is made two other
ways: ``2.png`` is a folder, or a symlink to nothing.

Before the fix the replay raised the clear ``MediaError``, then its clean-up joined the frame
reader's thread, never started, and Python's ``RuntimeError`` buried it (a traceback); the
hearing process was left running. Each test fails on the error, the exit status, a second
line, or what is left running. Cheap: every error comes before a frame is decoded.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

DEMO = FIXTURES / "demo"


def _truncated(refs: Path) -> Path:
    """``2.png`` cut to its first 100 bytes (a copy interrupted, a full disk)."""
    data = (DEMO / "refs" / "2.png").read_bytes()[:100]
    (refs / "2.png").write_bytes(data)
    return refs / "2.png"


def _a_folder(refs: Path) -> Path:
    """``2.png`` is a folder: no image can be read from it (root reads a chmod 000 file)."""
    (refs / "2.png").unlink(missing_ok=True)
    (refs / "2.png").mkdir()
    return refs / "2.png"


def _a_broken_link(refs: Path) -> Path:
    """``2.png`` is a symlink to nothing (a photo moved away): unreadable, even for root."""
    (refs / "2.png").unlink(missing_ok=True)
    os.symlink(refs.parent / "moved-away.png", refs / "2.png")
    return refs / "2.png"


def _emptied(refs: Path) -> Path:
    """No image at all in the folder."""
    for p in refs.iterdir():
        p.unlink()
    return refs


DAMAGE = {"truncated": _truncated, "a folder": _a_folder, "a broken link": _a_broken_link, "empty": _emptied}


def _error_line(case: str, damaged: Path) -> str:
    if case == "empty":
        return f"referee: error: reference folder {damaged} holds no images (CODE.jpg, CODE_1.png, ...)"
    return f"referee: error: reference image {damaged} is unreadable"


def _calibration(tmp_path: Path, case: str) -> tuple[Path, Path]:
    """The demo's calibration with a references folder of its own, damaged as ``case``
    says: (calibration.json, the damaged image or folder)."""
    refs = tmp_path / "refs"
    shutil.copytree(DEMO / "refs", refs)
    damaged = DAMAGE[case](refs)
    cal = json.loads((DEMO / "calibration.json").read_text(encoding="utf-8"))
    cal.update(references=str(refs), enroll=str(DEMO / "enroll"))
    cal["audio"]["file"] = str(DEMO / "seats.wav")
    (tmp_path / "calibration.json").write_text(json.dumps(cal), encoding="utf-8")
    return tmp_path / "calibration.json", damaged


def _running() -> set:
    return {t.ident for t in threading.enumerate()} | {p.pid for p in multiprocessing.active_children()}


def _left_running(before: set, wait_s: float = 5.0) -> list[str]:
    """Threads and child processes started since ``before`` that are still alive after up to
    ``wait_s`` (a stage being stopped may take a moment; one never stopped stays)."""
    deadline = time.monotonic() + wait_s
    while True:
        left = [f"thread {t.name}" for t in threading.enumerate() if t.ident not in before and t.is_alive()]
        left += [f"process {p.name}" for p in multiprocessing.active_children() if p.pid not in before]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def _assert_one_clear_error(res, expected: str, before: set) -> None:
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and "RuntimeError" not in res.output, res.output
    assert [x for x in lines if x.startswith("referee: error:")] == [expected], res.stderr
    assert lines[-1] == expected, res.stderr
    assert not [x for x in lines if x.startswith("referee: warning:")], res.stderr  # (no "no image for card 2")
    assert _left_running(before) == []


@pytest.mark.parametrize("case", list(DAMAGE))
def test_replay_says_the_damaged_reference_in_one_line(run_cli, tmp_path, case):
    """Pose workers and the hearing process as by default (--workers 2): the hearing process,
    started before the references are read, must be stopped too."""
    cal, damaged = _calibration(tmp_path, case)
    before = _running()
    res = run_cli("replay", DEMO / "session.mp4", "--audio", DEMO / "seats.wav", "--calibration", cal,
                  "--out", tmp_path / "out")
    _assert_one_clear_error(res, _error_line(case, damaged), before)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case", list(DAMAGE))
def test_live_from_a_recording_says_the_damaged_reference_in_one_line(run_cli, tmp_path, case):
    """The live path paced from the demo recording: the error comes before the session
    starts, the hearing thread is not left waiting for a session that never comes, and no
    empty output folder stays behind."""
    cal, damaged = _calibration(tmp_path, case)
    before = _running()
    res = run_cli("live", "--from-video", DEMO / "session.mp4", "--audio", DEMO / "seats.wav", "--calibration", cal,
                  "--no-window", "--no-voice", "--out", tmp_path / "live")
    _assert_one_clear_error(res, _error_line(case, damaged), before)
    assert not (tmp_path / "live").exists()


def _canned_calibration(references: dict, failed: bool):
    """What ``calibration.recording.calibrate_recording`` gives for the demo table (its
    seats and field), with ``references`` captured: the command's own work after the steps is
    what is tested, not the steps (tests/calibration/test_calibrate.py runs them)."""
    from calibration.recording import Result
    from calibration.steps import Check

    demo = json.loads((DEMO / "calibration.json").read_text(encoding="utf-8"))
    cal = {"version": 2, "game": "ikatako", "deck": "ikatako",
           "camera": {"id": None, "width": 1280, "height": 720, "fps": 30.0}, "zones": demo["zones"],
           "seats": [{"name": s["name"], "box": s["box"], "channel": None} for s in demo["seats"]],
           "references": "refs", "cards": sorted(references), "lookalikes": []}
    checks = [Check("cards", "fail", "saw 0 cards shown still")] if failed else \
        [Check("cards", "ok", f"{len(references)} cards")]
    return Result(cal, references, checks, 0.1, 1)


@pytest.mark.parametrize("case", list(DAMAGE))
def test_calibrate_reads_its_references_back_and_says_a_damaged_one(run_cli, tmp_path, monkeypatch, case):
    """``referee calibrate`` reads the references it leaves in ``OUT/refs`` as a replay will:
    an earlier calibration's ``2.png`` damaged there (this one did not show card 2), or —
    with --force after no card was captured — a folder without any image, is one clear error
    now instead of at the first replay. (Before the fix it said nothing and exited 0.)"""
    import cv2

    from calibration import recording

    out = tmp_path / "table"
    (out / "refs").mkdir(parents=True)
    if case == "empty":
        captured, force = {}, ["--force"]
        damaged = out / "refs"
    else:
        captured, force = {c: cv2.imread(str(DEMO / "refs" / f"{c}.png")) for c in ("ika", "tako")}, []
        shutil.copy(DEMO / "refs" / "2.png", out / "refs" / "2.png")
        damaged = DAMAGE[case](out / "refs")
    monkeypatch.setattr(recording, "calibrate_recording",
                        lambda *a, **k: _canned_calibration(captured, failed=not captured))
    before = _running()
    res = run_cli("calibrate", "--game", "ikatako", "--from-video", DEMO / "session.mp4", "--audio",
                  DEMO / "seats.wav", "--players", "aki,ben,chie,dai", "--out", out, *force)
    _assert_one_clear_error(res, _error_line(case, damaged), before)

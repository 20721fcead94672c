"""``referee calibrate --game ikatako --camera 0``, the README's example, as written and
in-process: the players are asked for (with what ``--players`` does), the audio input is
picked by itself (a 4-input interface: a channel per seat; a laptop's one microphone: the
room), each player's channel is found, and the guided calibration ends with the live
self-test. The camera is the demo table's calibration recording, the interface plays its
seats' takes; highgui, PortAudio and the live self-test's run are faked (no camera, sound
card or display here); the steps and their checks are the real ones."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest
from click.testing import CliRunner

from tests.calibration.test_interactive import FakeCamera, FakeSoundDevice, fake_highgui, seat_takes  # noqa: F401


@pytest.fixture
def table(recording, fake_highgui, monkeypatch):  # noqa: F811 (the fixture imported above)
    """The demo table as the camera; the self-test's live run replaced by one that records
    what it was asked and says every seat passed."""
    from referee.live import run as live_run
    from referee.live.selftest import SeatCheck, SelfTestResult

    rec, truth = recording
    monkeypatch.setattr(cv2, "VideoCapture", lambda index, *backend: FakeCamera(rec / "calibration.mp4"))
    asked = []

    def fake_run_live(opts, selftest=None, say=None, **kw):
        asked.append((opts, selftest))
        seats = [SeatCheck(n, -20.0, "ika", True, True) for n in truth["players"]]
        return type("Result", (), {"figures": {"selftest": SelfTestResult(seats)}})()

    monkeypatch.setattr(live_run, "run_live", fake_run_live)
    return rec, truth, asked


def _invoke(args, input=None):
    from referee.cli import cli

    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


def test_the_readme_example_asks_for_the_players_and_finds_their_channels(table, monkeypatch, tmp_path):
    """``referee calibrate --game ikatako --camera 0`` exactly as the README writes it, in a
    fresh folder: players asked, input 0 taken, channels found, the voices recorded on them
    (the recording itself is tests/referee/test_calibrate_enroll_cli.py's), then the self-test."""
    from audio import capture
    from referee.commands import calibrate

    rec, truth, asked = table
    takes, rate = seat_takes(rec, truth)
    monkeypatch.setattr(capture, "import_sounddevice", lambda: FakeSoundDevice(takes, rate))
    voices = []

    def record_voices(game, seats, folder, enroll_from, audio_info, takes, lang, room=False):
        voices.append(([(s["name"], s["channel"]) for s in seats], audio_info["device"], room))
        folder.mkdir(parents=True)
        return folder

    monkeypatch.setattr(calibrate, "_record_voices", record_voices)
    monkeypatch.chdir(tmp_path)
    res = _invoke(["calibrate", "--game", "ikatako", "--camera", "0"], input="aki,ben,chie,dai\n")
    assert res.exit_code == 0, res.output
    assert "Players: give the players' names left to right as the camera sees them" in res.output
    assert "--players aki,ben,chie,dai gives them on the command line" in res.output
    assert "microphones: input 0 'USB Audio 4-in' (4 channel(s))" in res.output
    out = tmp_path / "table"
    cal = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    found = dict(zip(truth["players"], truth["channels"]))
    assert {s["name"]: s["channel"] for s in cal["seats"]} == found
    assert cal["audio"]["device"] == 0 and cal["audio"]["channels"] == 4 and cal["enroll"] == "enroll"
    assert voices == [(list(found.items()), 0, False)]
    (opts, params), = asked  # the self-test ran once, on the table just written, camera 0, input 0
    assert opts.calibration == Path("table") / "calibration.json" and opts.camera == 0 and opts.audio_device == 0
    assert params is not None
    assert "self-test passed; next: referee live --calibration table/calibration.json" in res.output


def test_nobody_to_ask_is_one_line_saying_what_players_wants(table, monkeypatch, tmp_path):
    from audio import capture

    monkeypatch.setattr(capture, "import_sounddevice", lambda: FakeSoundDevice([], 16000))
    res = _invoke(["calibrate", "--game", "ikatako", "--camera", "0", "--out", tmp_path / "t"], input="")
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    last = res.output.strip().splitlines()[-1]
    assert last.startswith("referee: error: --players: give the players' names left to right")
    assert not (tmp_path / "t").exists()


def test_one_laptop_microphone_is_offered_as_the_room_microphone(table, monkeypatch, tmp_path):
    from audio import capture

    rec, truth, asked = table
    monkeypatch.setattr(capture, "import_sounddevice",
                        lambda: FakeSoundDevice([], 48000, channels=1, name="Built-in Microphone"))
    out = tmp_path / "laptop"
    res = _invoke(["calibrate", "--game", "ikatako", "--camera", "0", "--players", "aki,ben", "--out", out])
    assert res.exit_code == 0, res.output
    assert "input 0 has 1 channel(s) for 2 seats: one-laptop mode (one room microphone cannot tell" in res.output
    cal = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    assert [s["channel"] for s in cal["seats"]] == [None, None]
    assert cal["extra"] == {"room_microphone": True, "lang": "ja"}  # (the calls said in the default language)
    assert asked == []  # no channel per seat to test
    assert "voices: not recorded: with one room microphone a word is credited to a seat by its hands or mouth" in res.output
    assert "enroll" not in cal
    assert "self-test skipped: one room microphone" in res.output


def test_no_camera_is_said_before_anything_is_asked(monkeypatch, tmp_path):
    from calibration import interactive

    class Closed:
        def isOpened(self):
            return False

        def release(self):
            pass

    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setattr(interactive, "display_problem", lambda env=None: None)
    monkeypatch.setattr(cv2, "namedWindow", lambda *a, **k: None)
    monkeypatch.setattr(cv2, "VideoCapture", lambda *a: Closed())
    res = _invoke(["calibrate", "--game", "ikatako", "--camera", "0", "--out", tmp_path / "t"], input="aki\n")
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        "referee: error: camera '0' cannot be opened (not plugged in, another program using it, or another index: "
        "referee devices lists the cameras)"]

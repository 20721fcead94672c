"""``referee calibrate`` and the voice enrollment, in-process (CliRunner): ``--enroll-only``
records the voices of an existing calibration again from a recording of the prompted takes and
changes only its ``enroll`` field; a new calibration records them too (``--enroll-from``); a
missing audio input is one line, no traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.calibration import enroll_voices
from tests.conftest import once

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
SEATS = ["aki", "ben", "chie", "dai"]
needs_espeak = pytest.mark.skipif(not enroll_voices.available(), reason="espeak-ng is not installed (the test voices)")


@pytest.fixture(scope="module")
def voices_wav(tmp_path_factory):
    """The demo table (4 seats, IKATAKO, 2 takes) saying its prompts, one silent and one clipped
    take among them, as a 4-channel 48 kHz WAV."""
    if not enroll_voices.available():
        pytest.skip("espeak-ng is not installed (the test voices)")

    def make():
        path = tmp_path_factory.mktemp("voices") / "voices.wav"
        enroll_voices.main([str(path)])
        return path

    return once("test_calibrate_enroll_cli.voices_wav", make)


def _table(tmp_path: Path, enroll: str | None) -> Path:
    """A copy of the demo calibration (its ``enroll`` field set to ``enroll``, or without one)."""
    shutil.copytree(DEMO / "refs", tmp_path / "refs")
    text = (DEMO / "calibration.json").read_text(encoding="utf-8")
    if enroll is None:
        text = text.replace(' "enroll": "enroll",\n', "")
    else:
        text = text.replace('"enroll": "enroll"', f'"enroll": "{enroll}"')
        (tmp_path / enroll / "aki").mkdir(parents=True)
        (tmp_path / enroll / "aki" / "ika.wav").write_bytes(b"")
    (tmp_path / "calibration.json").write_text(text, encoding="utf-8")
    return tmp_path / "calibration.json"


@pytest.mark.parametrize("before", [None, "old-voices"])
def test_enroll_only_changes_the_enroll_field_and_nothing_else(run_cli, voices_wav, tmp_path, before):
    from audio import enroll

    cal = _table(tmp_path, before)
    original = cal.read_bytes()
    res = run_cli("calibrate", "--enroll-only", "--calibration", cal, "--enroll-from", voices_wav)
    assert res.exit_code == 0, res.output
    assert "4 players x 11 calls x 2 takes = 88 takes" in res.output
    assert "aki: say ウズシオ  take 1/2  again: no speech heard" in res.output
    assert "aki: say 3  take 1/2  again: clipped" in res.output
    folder = tmp_path / (before or "enroll")
    assert f"voices: 88 takes of 4 players in {folder} (2 asked again, 0 warnings" in res.output
    written = cal.read_bytes()
    if before is None:  # added after the last field, on its own line
        assert written == original.replace(b"\n }\n}\n", b'\n },\n "enroll": "enroll"\n}\n')
    else:  # the earlier takes kept aside, the field as it was
        assert written == original and (tmp_path / "old-voices.previous" / "aki" / "ika.wav").exists()
    voices = enroll.from_folder(folder)
    assert sorted(voices.templates) == SEATS and all(len(t) == 22 for t in voices.templates.values())
    verdict = voices.verify("chie", enroll.trim(enroll_voices.fresh("tako", 2), 16000))
    assert verdict.tokens == ("tako",)
    from calibration import load

    assert load(cal).enroll == folder


@needs_espeak
def test_a_new_calibration_records_the_voices_and_names_the_folder(run_cli, voices_wav, tmp_path, monkeypatch):
    import cv2

    from calibration import recording
    from tests.referee.test_bad_references_cli import _canned_calibration

    def canned(*a, **k):
        res = _canned_calibration({"ika": cv2.imread(str(DEMO / "refs" / "ika.png"))}, failed=False)
        for i, seat in enumerate(res.calibration["seats"]):
            seat["channel"] = i
        return res

    monkeypatch.setattr(recording, "calibrate_recording", canned)
    res = run_cli("calibrate", "--game", "ikatako", "--from-video", DEMO / "session.mp4", "--audio",
                  DEMO / "seats.wav", "--players", ",".join(SEATS), "--out", tmp_path / "table",
                  "--enroll-from", voices_wav)
    assert res.exit_code == 0, res.output
    cal = json.loads((tmp_path / "table" / "calibration.json").read_text())
    assert cal["enroll"] == "enroll" and len(list((tmp_path / "table" / "enroll").glob("*/*.wav"))) == 88


def test_a_missing_audio_input_is_one_clear_error(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from audio import capture
    from referee.cli import cli

    cal = _table(tmp_path, None)

    class NoDevices:
        def query_devices(self, device=None, kind=None):
            if kind is None:
                return []
            raise ValueError(f"Error querying device {device if device is not None else -1}")

    monkeypatch.setattr(capture, "import_sounddevice", lambda: NoDevices())
    for extra in ([], ["--audio-device", "7"]):
        res = CliRunner().invoke(cli, ["calibrate", "--enroll-only", "--calibration", str(cal), *extra])
        assert res.exit_code == 2 and res.exception is None or isinstance(res.exception, SystemExit)
        lines = res.output.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in res.output, res.output
        assert ("no default audio input" if not extra else "audio device 7 not found") in lines[0]
        assert "this computer has no audio input" in lines[0]
    assert cal.read_text(encoding="utf-8").count('"enroll"') == 0 and not (tmp_path / "enroll").exists()


def test_the_options_that_do_not_go_together_are_said(run_cli, tmp_path):
    cal = _table(tmp_path, None)
    res = run_cli("calibrate", "--enroll-only")
    assert res.exit_code == 2 and "--enroll-only: name the calibration with --calibration FILE" in res.output
    res = run_cli("calibrate", "--enroll-only", "--calibration", cal, "--enroll", tmp_path)
    assert res.exit_code == 2 and "give one or the other" in res.output
    res = run_cli("calibrate", "--calibration", cal, "--game", "ikatako", "--camera", "0")
    assert res.exit_code == 2 and "--calibration FILE goes with --enroll-only" in res.output
    res = run_cli("calibrate", "--camera", "0")
    assert res.exit_code == 2 and "--game: which game the table will play" in res.output
    res = run_cli("calibrate", "--enroll-only", "--calibration", cal, "--enroll-takes", "5")
    assert res.exit_code == 2 and "--enroll-takes" in res.output

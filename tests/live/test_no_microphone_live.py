"""A table with no microphone (issue 34 item 6): a calibration that gives no seat an audio
channel (TAKOYAKI, TORATANU, a teaching camera) runs the live path on silence — no audio
interface is opened or required, the camera is checked alone, and the self-test (voices and
hands) is off by default for a card-only game."""

from __future__ import annotations

import json

import pytest

from session import calibration as cal_mod
from session.errors import DeviceError
from session.record import read_record
from referee.commands.demo_files import SEASALTPAPER_DEMO, TAKOYAKI_DEMO, TORATANU_DEMO


def test_a_card_only_game_runs_live_from_a_camera_without_any_audio_input(tmp_path, monkeypatch):
    """No --audio and no --audio-device on the TAKOYAKI calibration: no input is queried (the
    machine's PortAudio would say none is there) and the session is judged as with one."""
    from audio import capture
    from referee.live.run import LiveOptions, run_live
    from referee.live.terminal import TerminalView

    def no_input(device):
        raise DeviceError("no default audio input")

    monkeypatch.setattr(capture, "device_info", no_input)
    opts = LiveOptions(calibration=TAKOYAKI_DEMO / "calibration.json", out=tmp_path / "o",
                       from_video=TAKOYAKI_DEMO / "session.mp4", window=False, voice=False, no_enroll=True,
                       max_seconds=6.0)
    res = run_live(opts, say=lambda s: None, view_factory=lambda state, controls: TerminalView(state, controls, keys=None))
    record = read_record(tmp_path / "o" / "session.jsonl")
    assert record.header.extra["source"]["audio"] == "none (no seat has a microphone)"
    assert [e for e in record.events if e.type == "card"], "the griddles were read"
    assert not [e for e in record.events if e.type in ("shout", "audio_status")]
    truth = [json.loads(s) for s in (TAKOYAKI_DEMO / "expected.jsonl").read_text().splitlines() if s.strip()]
    said = [(v.get("player"), v.get("card"), v.get("zone")) for v in res.lines if v.get("type") == "verdict"]
    assert said and said == [(v.get("player"), v.get("card"), v.get("zone")) for v in truth][:len(said)]


def test_the_silent_input_gives_zeros_on_true_capture_stamps():
    from audio import capture

    factory = capture.silence(16000)
    got = []
    stream = factory(None, 1, 16000, 320, lambda data, n, info, status: got.append((data.copy(), info)))
    stream.start()
    try:
        import time

        time.sleep(0.3)
    finally:
        stream.stop()
    assert 5 <= len(got) <= 40 and all(d.shape == (320, 1) and not d.any() for d, _ in got)
    firsts = [info.inputBufferAdcTime for _, info in got]
    assert firsts[1] - firsts[0] == pytest.approx(320 / 16000)  # (as a microphone's blocks, on its clock)
    with pytest.raises(DeviceError):
        factory(None, 2, 16000, 320, lambda *a: None)


def test_the_sources_check_needs_no_input_for_a_table_without_microphones():
    from referee.live.selftest import check_sources

    check_sources(0, None, None, camera_opens=lambda c: True, list_inputs=lambda: [])
    with pytest.raises(DeviceError, match="camera 0 cannot be opened") as err:
        check_sources(0, None, None, camera_opens=lambda c: False, list_inputs=lambda: [])
    assert "audio" not in str(err.value)
    with pytest.raises(DeviceError, match="no audio input"):  # (seats with microphones still need one)
        check_sources(0, None, 2, camera_opens=lambda c: True, list_inputs=lambda: [])


def test_the_self_test_is_off_by_default_only_for_a_card_only_table_without_microphones():
    from referee.commands.live import _default_selftest

    assert not _default_selftest(TAKOYAKI_DEMO / "calibration.json")
    assert not _default_selftest(TORATANU_DEMO / "calibration.json")
    assert _default_selftest(SEASALTPAPER_DEMO / "calibration.json")  # (the calls are heard)
    assert cal_mod.load(SEASALTPAPER_DEMO / "calibration.json").seat_channels is not None


def test_live_from_a_recording_of_a_table_with_microphones_still_needs_its_seats_recording(run_cli, tmp_path):
    res = run_cli("live", "--calibration", SEASALTPAPER_DEMO / "calibration.json", "--from-video",
                  SEASALTPAPER_DEMO / "session.mp4", "--out", tmp_path / "x")
    assert res.exit_code == 2 and "--audio SEATS.wav" in res.output

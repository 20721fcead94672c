"""Faults as a person meets them through the CLI (in-process): a run stopped by Ctrl-C or
SIGTERM keeps its record, a recording with more channels than the table's seats, a video at
half the frame rate, no audio input, an empty file. One clear line each, never a traceback,
never a silently wrong verdict, never a lost record."""

from __future__ import annotations

import json
import os
import signal
import wave

import numpy as np
import pytest

from tests.conftest import FIXTURES
from tests.referee.test_replay_bad_input import clip  # noqa: F401  (the 2-seat, 2-second demo clip)

DEMO = FIXTURES / "demo"


def _replay(run_cli, clip, out, *args, video=None):
    return run_cli("replay", video or clip / "clip.mp4", "--calibration", clip / "calibration.json",
                   "--workers", "0", "--pose-every", "3", "--out", out, *args)


def _lines(path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def _seats_wav(path, channels) -> None:
    """The demo's seats' audio under the clip (26.0-28.0 s), ``channels`` picked from it."""
    with wave.open(str(DEMO / "seats.wav")) as w:
        rate = w.getframerate()
        w.setpos(26 * rate)
        x = np.frombuffer(w.readframes(2 * rate), "<i2").reshape(-1, w.getnchannels())
    y = np.ascontiguousarray(x[:, channels])
    with wave.open(str(path), "wb") as f:
        f.setnchannels(y.shape[1])
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(y.tobytes())


def test_sigterm_mid_replay_keeps_the_record_and_says_where(run_cli, clip, tmp_path, monkeypatch):
    from referee.pipeline import recording

    update, seen = recording.VisionStage.update, [0]

    def update_then_term(self, frame):
        seen[0] += 1
        if seen[0] == 40:  # a real SIGTERM, as `kill PID` sends it, in the middle of the clip
            os.kill(os.getpid(), signal.SIGTERM)
        return update(self, frame)

    monkeypatch.setattr(recording.VisionStage, "update", update_then_term)
    out = tmp_path / "out"
    res = _replay(run_cli, clip, out)
    assert res.exit_code == 143 and "Traceback" not in res.output
    record = out / "session.jsonl"
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("referee: stopped (SIGTERM): the record up to ") and str(record) in last
    assert f"referee judge {record}" in last
    lines = _lines(record)
    assert lines[0]["type"] == "session"
    stop = [e for e in lines if e["type"] == "skipped" and e["reason"] == "stopped by SIGTERM"]
    assert [e["what"] for e in stop] == ["video", "audio"] and stop[0]["to"] >= 1.9 and stop[0]["from"] < 1.9
    assert lines[-2:] == stop  # (the record ends there)
    assert json.loads((out / ".referee-run.json").read_text())["stopped"] == "SIGTERM"
    assert not (out / "report.html").exists()
    judged = run_cli("judge", record)
    assert judged.exit_code == 0 and "Traceback" not in judged.output
    assert signal.getsignal(signal.SIGTERM) is not None  # (the CLI put the earlier handler back)


def test_ctrl_c_into_a_folder_with_an_earlier_run_keeps_both(run_cli, clip, tmp_path, monkeypatch):
    from referee.pipeline import recording
    from session.errors import Stopped

    out = tmp_path / "out"
    out.mkdir()
    (out / "session.jsonl").write_text('{"t": 0, "type": "session", "game": "ikatako", "mode": "versus", '
                                       '"players": ["aki", "ben"]}\n', encoding="utf-8")
    before = (out / "session.jsonl").read_bytes()
    update, seen = recording.VisionStage.update, [0]

    def update_then_stop(self, frame):
        seen[0] += 1
        if seen[0] == 40:
            raise Stopped("Ctrl-C")
        return update(self, frame)

    monkeypatch.setattr(recording.VisionStage, "update", update_then_stop)
    res = _replay(run_cli, clip, out)
    assert res.exit_code == 130
    kept = tmp_path / "out.stopped" / "session.jsonl"
    assert f"referee: stopped (Ctrl-C): the record up to " in res.stderr and str(kept) in res.stderr
    assert (out / "session.jsonl").read_bytes() == before  # the earlier run's complete folder untouched
    assert _lines(kept)[0]["type"] == "session"


def _report_sigint(conn):
    conn.send(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)
    conn.close()


def test_worker_processes_leave_ctrl_c_to_the_parent():
    """The terminal sends Ctrl-C to every process of the group: each pose or hearing worker
    used to print its own KeyboardInterrupt traceback."""
    import multiprocessing as mp

    from vision.parallel import start_without_sigint

    before = signal.getsignal(signal.SIGINT)  # default_int_handler, or SIG_IGN where a shell started the tests in the background
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_report_sigint, args=(child,), daemon=True)
    start_without_sigint(p)
    child.close()
    assert parent.poll(60) and parent.recv() is True
    p.join(10)
    assert signal.getsignal(signal.SIGINT) is before  # (this process's handler is back)


def test_a_recording_with_more_channels_than_seats_hears_only_the_seats(run_cli, clip, tmp_path):
    two, four = tmp_path / "two.wav", tmp_path / "four.wav"
    _seats_wav(two, [0, 1])
    _seats_wav(four, [0, 1, 1, 0])  # an interface recorded whole: two more inputs (here: leaked copies)
    res2 = _replay(run_cli, clip, tmp_path / "o2", "--audio", two)
    res4 = _replay(run_cli, clip, tmp_path / "o4", "--audio", four)
    assert res2.exit_code == 0 and res4.exit_code == 0, res4.output
    assert ("referee: warning: audio: four.wav has 4 channels but the calibration's seats are on channels 0-1: "
            "channel(s) 2, 3 are not heard and take no part in the cross-talk cancellation") in res4.stderr
    shouts = [[(e["player"], e["words"], e["t"]) for e in _lines(o / "session.jsonl") if e["type"] == "shout"]
              for o in (tmp_path / "o2", tmp_path / "o4")]
    assert shouts[0] and shouts[1] == shouts[0]


def test_a_video_at_half_the_frame_rate_is_analysed_at_the_same_times(run_cli, clip, tmp_path):
    import itertools

    from vision.video import read_frames, write_video

    slow = tmp_path / "clip15.mp4"
    frames = [f.image for f in itertools.islice(read_frames(clip / "clip.mp4"), 0, 60, 2)]
    write_video(slow, iter(frames), fps=15, crf=30)
    res = run_cli("replay", slow, "--calibration", clip / "calibration.json", "--workers", "0",
                  "--pose-every", "8", "--out", tmp_path / "o")
    assert res.exit_code == 0, res.output
    assert ("referee: warning: video: clip15.mp4 is 15 fps, not 30: each seat's pose on every 4th frame "
            "(not every 8th frame) and the cards on every frame (not every 2nd frame)") in res.stderr
    header = _lines(tmp_path / "o" / "session.jsonl")[0]
    assert (header["source"]["pose_every"], header["source"]["card_every"]) == (4, 1)


def test_no_audio_input_names_what_is_there_and_leaves_no_folder(run_cli, tmp_path, monkeypatch):
    from audio import capture

    class NoInput:
        @staticmethod
        def query_devices(device=None, kind=None):
            if kind == "input":
                raise ValueError("Error querying device -1")
            return []

    monkeypatch.setattr(capture, "import_sounddevice", lambda: NoInput)
    monkeypatch.setattr("vision.devices.can_open", lambda device, opener=None: True)  # a camera, no input
    out = tmp_path / "live"
    res = run_cli("live", "--calibration", DEMO / "calibration.json", "--no-window", "--no-voice", "--out", out)
    assert res.exit_code == 2 and "Traceback" not in res.output
    # said before the self-test tells anyone to speak (its instructions never came)
    assert res.stderr.strip().splitlines() == [
        "referee: error: no audio input: plug in the seats' audio interface (referee devices lists the inputs)"]
    assert not out.exists()


def test_no_camera_and_no_input_are_said_before_the_self_test_in_one_line(run_cli, tmp_path, monkeypatch):
    """This machine as it is (no camera, no sound card), OpenCV's log included: one line."""
    out = tmp_path / "live"
    res = run_cli("live", "--calibration", DEMO / "calibration.json", "--camera", "0", "--no-window", "--no-voice",
                  "--out", out)
    assert res.exit_code == 2 and "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: camera 0 cannot be opened"), lines
    assert "self-test" not in res.stderr and not out.exists()


def test_an_input_with_too_few_channels_is_said_before_the_self_test(monkeypatch):
    from audio.devices import AudioInput
    from referee.live.selftest import check_sources
    from session.errors import DeviceError

    laptop = [AudioInput(0, "Built-in Microphone", 2, 48000, default=True)]
    with pytest.raises(DeviceError, match=r"^audio input 0 'Built-in Microphone' has 2 channel\(s\); the "
                                          r"calibration's seats use 4: name the interface with --audio-device N$"):
        check_sources(0, None, 4, camera_opens=lambda d: True, list_inputs=lambda: laptop)
    check_sources(0, None, 2, camera_opens=lambda d: True, list_inputs=lambda: laptop)  # two seats: fine
    with pytest.raises(DeviceError, match=r"^camera 1 cannot be opened .*; audio device '5' is not an input here"):
        check_sources(1, "5", 2, camera_opens=lambda d: False, list_inputs=lambda: laptop)


@pytest.mark.parametrize("content, reason", [
    (b"", "an empty file, 0 bytes"),
    (b"RIFF\x24\x00\x00\x00WAVEfmt ", "invalid data found when processing input"),
])
def test_an_empty_or_cut_wav_is_one_line_without_ffmpegs_numbers(run_cli, clip, tmp_path, content, reason):
    bad = tmp_path / "seats.wav"
    bad.write_bytes(content)
    res = _replay(run_cli, clip, tmp_path / "o", "--audio", bad)
    assert res.exit_code == 2
    assert res.stderr.strip().splitlines() == [f"referee: error: {bad}: not a readable audio or video file ({reason})"]


def test_an_8_khz_recording_says_what_resampling_cannot_give_back(tmp_path):
    from referee.preflight import check_audio
    from session.calibration import load

    from audio.synth import write_wav

    wav = write_wav(tmp_path / "s8k.wav", np.zeros((8000, 4)), rate=8000)  # 1 s of 4 silent seats
    warnings: list[str] = []
    assert check_audio(wav, wav, load(DEMO / "calibration.json"), warnings) == (16000, 8000)
    assert warnings == ["audio: s8k.wav is recorded at 8000 Hz, the calibration at 16000 Hz: resampled to 16000 Hz; "
                        "a recording at 8000 Hz holds nothing above 4000 Hz, so words may be misheard: record at "
                        "16000 Hz"]


@pytest.mark.parametrize("content, message", [
    (b"", "calibration file {p} is empty: write it with referee calibrate"),
    (b"\x00\x01garbage\xff", "calibration file {p} is not text (byte 9 is not UTF-8): not a calibration; write one "
                             "with referee calibrate"),
    (None, "{p}: not JSON (line 10: a string never closed): the file ends in the middle (written only in part?); "
           "calibrate the table again (referee calibrate)"),
])
def test_an_empty_garbled_or_half_written_calibration_is_one_line(run_cli, tmp_path, content, message):
    p = tmp_path / "calibration.json"
    p.write_bytes(content if content is not None else (DEMO / "calibration.json").read_bytes()[:120])
    res = run_cli("replay", DEMO / "session.mp4", "--calibration", p, "--out", tmp_path / "o")
    assert res.exit_code == 2
    assert res.stderr.strip().splitlines() == [f"referee: error: {message.format(p=p)}"]


def test_judging_a_wav_by_mistake_is_a_few_lines_not_one_per_line(run_cli, tmp_path):
    res = run_cli("judge", DEMO / "seats.wav")
    assert res.exit_code == 2 and "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) <= 4, lines[:8]  # (before: one "not UTF-8 text" line per line of the WAV, ~30000)
    assert lines[-2].endswith("more line(s) are not record lines either: is it a session record (the session.jsonl "
                              "referee replay or referee live writes)?")
    assert lines[-1] == "referee: error: cannot judge a record without a valid session header on its first line"


def test_a_mono_recording_says_the_seat_heard_may_take_a_neighbours_word(run_cli, clip, tmp_path):
    mono = tmp_path / "mono.wav"
    _seats_wav(mono, [0])
    res = _replay(run_cli, clip, tmp_path / "o", "--audio", mono)
    assert res.exit_code == 0, res.output
    assert ("audio has 1 channel(s); seat(s) ben (channels 1) are not heard, and their voices leaking into the "
            "channels heard cannot be cancelled: a word of theirs may be heard as a word of the seat heard") in res.stderr


def test_what_the_hearing_warns_of_is_said_on_the_terminal_and_in_the_report(run_cli, clip, tmp_path):
    # the clip's audio 8x louder: both microphones clip. The hearing's warning (a record event
    # timed where it clips) must reach the person replaying, not only the record
    loud = tmp_path / "loud.wav"
    _seats_wav(loud, [0, 1])
    with wave.open(str(loud)) as w:
        params, x = w.getparams(), np.frombuffer(w.readframes(w.getnframes()), "<i2")
    with wave.open(str(loud), "wb") as f:
        f.setparams(params)
        f.writeframes(np.clip(x.astype(np.int32) * 8, -32768, 32767).astype("<i2").tobytes())
    res = _replay(run_cli, clip, tmp_path / "o", "--audio", loud)
    assert res.exit_code == 0, res.output
    recorded = [e["message"] for e in _lines(tmp_path / "o" / "session.jsonl")
                if e["type"] == "warning" and "clips" in e["message"]]
    assert recorded, "the record says the microphones clip"
    said = [line for line in res.stderr.splitlines() if line.startswith("referee: warning: at ") and "clips" in line]
    assert len(said) == len(recorded)
    assert all(any(m in line for line in said) for m in recorded)
    import html

    report = (tmp_path / "o" / "report.html").read_text(encoding="utf-8")
    assert all(html.escape(m) in report for m in recorded)


def test_live_takes_the_calibrations_camera_and_input_unless_told(run_cli, tmp_path, monkeypatch):
    """A table calibrated on camera 2 and input 5 is refereed on them (`referee live
    --calibration table/calibration.json`, the README's line); --camera/--audio-device win."""
    from referee.live import selftest
    from session.errors import DeviceError

    text = json.loads((DEMO / "calibration.json").read_text(encoding="utf-8"))
    text["camera"]["id"], text["audio"]["device"] = 2, 5
    text["references"], text["enroll"] = str(DEMO / "refs"), str(DEMO / "enroll")
    cal = tmp_path / "calibration.json"
    cal.write_text(json.dumps(text), encoding="utf-8")
    asked = []

    def check(camera, device, channels, **kw):
        asked.append((camera, device, channels))
        raise DeviceError("stop here")

    monkeypatch.setattr(selftest, "check_sources", check)
    res = run_cli("live", "--calibration", cal, "--no-window", "--no-voice")
    assert res.exit_code == 2, res.output
    assert run_cli("live", "--calibration", cal, "--camera", "0", "--audio-device", "1", "--no-window").exit_code == 2
    assert asked == [(2, 5, 4), (0, 1, 4)], res.output


def test_a_slow_video_of_a_game_without_hands_names_the_cards_only():
    """TAKOYAKI's camera watches no seat's pose: the 15 fps warning speaks of the cards alone."""
    from referee.preflight import strides_for

    pose, card, said = strides_for(15.0, 8, 2, "s.mp4", pose=False)
    assert (pose, card) == (4, 1)
    assert said.startswith("video: s.mp4 is 15 fps, not 30: the cards on every frame (not every 2nd frame), ")
    assert "pose" not in said
    assert strides_for(15.0, 8, 1, "s.mp4", pose=False)[2] is None  # (only pose changed: nothing to say)

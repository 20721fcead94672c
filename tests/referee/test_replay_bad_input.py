"""``referee replay`` on bad input: one clear message each; it goes on where it can and the
record says what was skipped (``skipped`` / ``warning`` events, which the judge ignores).

Kept cheap: a 2-second clip of the demo (60 frames around card 8), two seats, pose in this
process on every 3rd frame.
"""

from __future__ import annotations

import itertools
import json
import shutil
import wave

import numpy as np
import pytest

from tests.conftest import FIXTURES, two_seat_calibration

DEMO = FIXTURES / "demo"


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    from vision.video import read_frames, write_video

    d = tmp_path_factory.mktemp("clip")
    frames = [f.image for f in itertools.islice(read_frames(DEMO / "session.mp4"), 780, 840)]
    write_video(d / "clip.mp4", iter(frames), fps=30, crf=30)
    two_seat_calibration(d)
    return d


def _replay(run_cli, clip, *args, video=None):
    return run_cli("replay", video or clip / "clip.mp4", "--calibration", clip / "calibration.json",
                   "--workers", "0", "--pose-every", "3", "--out", clip / "out", *args)


def _record(clip) -> list[dict]:
    return [json.loads(x) for x in (clip / "out" / "session.jsonl").read_text(encoding="utf-8").splitlines()]


def _write_wav(path, seconds: float, rate: int = 16000) -> None:
    x = (np.random.default_rng(0).normal(0, 0.002, int(seconds * rate)) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(x.tobytes())


def test_video_without_audio_is_replayed_without_shouts(run_cli, clip):
    res = _replay(run_cli, clip)
    assert res.exit_code == 0, res.output
    assert res.stderr.count("no audio") >= 1 and "has no audio track" in res.stderr
    rec = _record(clip)
    skipped = [e for e in rec if e["type"] == "skipped"]
    assert skipped and skipped[0]["what"] == "audio" and skipped[0]["from"] == 0.0 and skipped[0]["to"] >= 1.9
    assert any(e["type"] == "card" for e in rec)  # vision went on (card 2 at 26.633 s = 0.633 s here)
    assert not any(e["type"] == "shout" for e in rec)
    assert (clip / "out" / "report.html").is_file()


def test_audio_shorter_than_video_is_said_and_recorded(run_cli, clip, tmp_path):
    wav = tmp_path / "short.wav"
    _write_wav(wav, 0.8)
    res = _replay(run_cli, clip, "--audio", wav)
    assert res.exit_code == 0, res.output
    assert "ends at 0.80 s, the video at 2.00 s" in res.stderr
    skipped = [e for e in _record(clip) if e["type"] == "skipped"]
    assert [(e["what"], e["from"], e["to"]) for e in skipped] == [("audio", 0.8, 2.0)]


def test_calibration_for_another_game_is_one_clear_error(run_cli, clip):
    res = _replay(run_cli, clip, "--game", "mokochaka")
    assert res.exit_code == 2
    assert res.stderr.strip().splitlines() == [
        "referee: error: the calibration is for ikatako, not mokochaka: calibrate this table for mokochaka "
        "(referee calibrate --game mokochaka) or replay with --game ikatako"]


def test_calibration_for_another_resolution_is_one_clear_error(run_cli, clip, tmp_path):
    cal = json.loads((clip / "calibration.json").read_text(encoding="utf-8"))
    cal["camera"] = {"width": 640, "height": 480}
    cal["zones"] = {"field": [250, 250, 390, 358]}
    cal["seats"][0]["box"], cal["seats"][1]["box"] = [0, 0, 160, 250], [160, 0, 320, 250]
    cal["references"] = str(clip / "refs")
    path = tmp_path / "cal640.json"
    path.write_text(json.dumps(cal), encoding="utf-8")
    res = run_cli("replay", clip / "clip.mp4", "--calibration", path, "--out", tmp_path / "o")
    assert res.exit_code == 2
    assert "is 1280x720 but the calibration is for 640x480" in res.stderr
    assert "Traceback" not in res.output


def test_missing_reference_image_is_a_warning_and_the_rest_is_seen(run_cli, clip, tmp_path):
    refs = tmp_path / "refs"
    shutil.copytree(clip / "refs", refs)
    (refs / "tako.png").unlink()
    cal = json.loads((clip / "calibration.json").read_text(encoding="utf-8"))
    cal["references"] = str(refs)
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(cal), encoding="utf-8")
    res = run_cli("replay", clip / "clip.mp4", "--calibration", path, "--workers", "0", "--pose-every", "3",
                  "--out", tmp_path / "o")
    assert res.exit_code == 0, res.output
    assert "no image for card(s) tako" in res.stderr
    rec = [json.loads(x) for x in (tmp_path / "o" / "session.jsonl").read_text(encoding="utf-8").splitlines()]
    assert any(e["type"] == "warning" and "tako" in e["message"] for e in rec)
    assert "2" in [e["card"] for e in rec if e["type"] == "card"]  # the rest of the deck is still seen


def test_corrupt_frames_in_the_middle_are_skipped_and_recorded(run_cli, clip, tmp_path):
    data = bytearray((clip / "clip.mp4").read_bytes())
    mid = len(data) // 2
    for i in range(mid, mid + 4000):
        data[i] = (data[i] * 7 + 13) % 256
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(bytes(data))
    res = _replay(run_cli, clip, video=bad)
    assert res.exit_code == 0, res.output
    assert "skipped an undecodable packet" in res.stderr
    rec = _record(clip)
    skipped = [e for e in rec if e["type"] == "skipped" and e["what"] == "video" and "player" not in e]
    # undecodable packets, and (a fragmented MP4 whose fragment index was hit) the frames lost after them
    assert skipped and all("undecodable" in e["reason"] or "read as far as it goes" in e["reason"] for e in skipped)
    # a seat whose frames were lost for longer than POSE_GAP_S has that stretch recorded as its own
    # (the judge gives no verdict resting on its hands there), and its reason does not blame the referee
    unseen = [e for e in rec if e["type"] == "skipped" and e["what"] == "video" and "player" in e]
    assert all("not analysed" in e["reason"] and "fell behind" not in e["reason"] for e in unseen)
    assert any("undecodable" in e["reason"] for e in skipped)
    # the judge ignores them: judging the record works and warns about nothing of theirs
    res = run_cli("judge", clip / "out" / "session.jsonl", "--json")
    assert res.exit_code == 0 and "skipped" not in res.stderr


def test_several_sessions_each_into_its_own_folder(run_cli, clip, tmp_path):
    """``referee replay A.mp4 B.mp4``: one process per session, OUT/<name>/ each."""
    for name in ("a", "b"):
        shutil.copy(clip / "clip.mp4", tmp_path / f"{name}.mp4")
    res = run_cli("replay", tmp_path / "a.mp4", tmp_path / "b.mp4", "--calibration", clip / "calibration.json",
                  "--pose-every", "3", "--out", tmp_path / "out", "--json")
    assert res.exit_code == 0, res.output
    assert res.stdout.count("== ") == 2
    a = (tmp_path / "out" / "a" / "session.jsonl").read_text(encoding="utf-8")
    b = (tmp_path / "out" / "b" / "session.jsonl").read_text(encoding="utf-8")
    assert a.replace("a.mp4", "b.mp4") == b  # same input, same record (but the name)
    assert (tmp_path / "out" / "a" / "report.html").is_file() and (tmp_path / "out" / "b" / "report.html").is_file()


def test_several_sessions_replay_one_process_each_and_a_bad_one_is_named(run_cli, clip, tmp_path):
    """``referee replay A.mp4 B.mp4 ...`` (``referee.replay.replay_many``): each session into
    OUT/<stem>/ in a process of its own; one that cannot be replayed is one line naming it,
    the others are judged, and the exit status says that one failed."""
    good = tmp_path / "good.mp4"
    shutil.copy(clip / "clip.mp4", good)
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"not a video at all")
    res = run_cli("replay", good, bad, "--calibration", clip / "calibration.json", "--pose-every", "3",
                  "--jobs", "2", "--out", tmp_path / "many")
    assert res.exit_code == 2
    assert f"== {good}" in res.stdout and "card" in res.stdout
    assert f"referee: error: {bad}:" in res.stderr and "1 of 2 sessions could not be replayed" in res.stderr
    assert (tmp_path / "many" / "good" / "session.jsonl").is_file()
    assert not (tmp_path / "many" / "broken").exists()


def test_the_calibrations_audio_video_offset_moves_every_shout_onto_the_video_clock(run_cli, clip, tmp_path):
    """``av_offset`` (measured at calibration: video time minus audio time of one slap) is
    added to every shout's onset and end before they meet the cards and hands; nothing else
    moves."""
    from audio.capture import read_all

    samples, rate = read_all(DEMO / "seats.wav")
    part = samples[int(26.0 * rate):int(28.0 * rate), :2]
    wav = tmp_path / "seats.wav"
    with wave.open(str(wav), "wb") as f:
        f.setnchannels(2)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes((np.clip(part, -1, 1) * 32767).astype("<i2").tobytes())
    records = {}
    for offset in (0.0, 0.05):
        cal = json.loads((clip / "calibration.json").read_text(encoding="utf-8"))
        cal.update(version=2, av_offset=offset) if offset else None
        path = tmp_path / f"cal{offset}.json"
        path.write_text(json.dumps(cal), encoding="utf-8")
        shutil.copytree(clip / "refs", tmp_path / "refs", dirs_exist_ok=True)
        res = run_cli("replay", clip / "clip.mp4", "--audio", wav, "--calibration", path, "--workers", "0",
                      "--pose-every", "3", "--out", tmp_path / f"out{offset}", "--no-demix")
        assert res.exit_code == 0, res.output
        records[offset] = [json.loads(x) for x in (tmp_path / f"out{offset}" / "session.jsonl").read_text(
            encoding="utf-8").splitlines()[1:]]
    plain, moved = records[0.0], records[0.05]
    shouts = [(a, b) for a, b in zip([e for e in plain if e["type"] == "shout"],
                                     [e for e in moved if e["type"] == "shout"])]
    assert shouts, "the clip's audio has shouts"
    for a, b in shouts:
        assert b["t"] == pytest.approx(a["t"] + 0.05, abs=1e-6) and b["t_end"] == pytest.approx(a["t_end"] + 0.05, abs=1e-6)
    seen = lambda rec: [e for e in rec if e["type"] in ("card", "hand")]  # noqa: E731
    assert seen(plain) == seen(moved)

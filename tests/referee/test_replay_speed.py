"""The replay's parallel parts give what the one-process replay gives.

Speed itself is measured by ``benchmarks/bench_replay.py`` (it prints the figures); these
tests check that running the seats in worker processes (``vision.parallel.SeatWorkers``,
frames through shared memory, several in flight) and the audio in a process of its own
changes nothing in the output, and that the report's frame picker picks the frames a full
pass would. Kept cheap: 2-3 s clips cut from the demo.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import shutil
import wave

import numpy as np
import pytest

from tests.conftest import FIXTURES

DEMO = FIXTURES / "demo"


def _cut_wav(src, dst, start_s: float, seconds: float) -> None:
    with wave.open(str(src), "rb") as f:
        rate, ch, width = f.getframerate(), f.getnchannels(), f.getsampwidth()
        f.setpos(int(start_s * rate))
        data = f.readframes(int(seconds * rate))
    with wave.open(str(dst), "wb") as g:
        g.setnchannels(ch)
        g.setsampwidth(width)
        g.setframerate(rate)
        g.writeframes(data)


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """Frames 165-255 of the demo (5.5-8.5 s: card 2 'tako', all four players raise a hand
    and shout, two lower it), with the same stretch of the seats' recording."""
    from vision.video import read_frames, write_video

    d = tmp_path_factory.mktemp("speedclip")
    frames = [f.image for f in itertools.islice(read_frames(DEMO / "session.mp4"), 165, 255)]
    write_video(d / "clip.mp4", iter(frames), fps=30, crf=23)
    _cut_wav(DEMO / "seats.wav", d / "seats.wav", 165 / 30, 90 / 30)
    shutil.copytree(DEMO / "refs", d / "refs")
    cal = json.loads((DEMO / "calibration.json").read_text(encoding="utf-8"))
    cal.pop("enroll", None)
    (d / "calibration.json").write_text(json.dumps(cal), encoding="utf-8")
    return d


def test_seat_workers_see_what_one_process_sees(clip):
    """Same events (hands re-timed by the full-rate re-analysis in the workers) and the same
    landmarks, in the same order, with 2 seat workers and 3 frames in flight as in-process."""
    from session.calibration import load
    from vision.table import TableWatcher
    from vision.video import read_frames

    cal = load(clip / "calibration.json")
    runs = []
    for workers, pipeline in ((0, 0), (2, 3)):
        tw = TableWatcher(cal, workers=workers, pose_every=4, card_every=2, pipeline=pipeline, keep_landmarks=True)
        events, seen = [], []
        try:
            for fr in read_frames(clip / "clip.mp4"):
                events += [e.to_dict() for e in tw.update(fr)]
                seen += [(t, p, lm.to_dict()) for t, p, lm in tw.seen]
                tw.seen.clear()
            events += [e.to_dict() for e in tw.finish()]
            seen += [(t, p, lm.to_dict()) for t, p, lm in tw.seen]
        finally:
            tw.close()
        runs.append((events, seen, tw.pose_stats()))
    (ev0, seen0, st0), (ev2, seen2, st2) = runs
    hands = [e for e in ev0 if e["type"] == "hand"]
    assert len(hands) >= 4 and any(e["type"] == "card" for e in ev0)  # the clip has something to see
    key = lambda e: (e["t"], e["type"], json.dumps(e, sort_keys=True))  # noqa: E731 - order within a frame differs
    assert sorted(ev2, key=key) == sorted(ev0, key=key)
    assert seen2 == seen0 and len(seen0) > 50
    # every due frame (4 seats, every 4th of 90) either ran pose or was skipped as still
    assert st2["inferences"] + st2["skipped"] == st0["inferences"] + st0["skipped"] == 4 * 90 // 4
    assert st2["inferences"] == st0["inferences"] and st2["skipped"] == st0["skipped"]
    assert st2["reanalysed"] == st0["reanalysed"] > 0  # the re-analysis ran, in the workers
    assert len(st2["worker_cpu"]) == 2
    assert not multiprocessing.active_children()


def test_replay_record_is_the_same_with_worker_processes_and_in_one_process(run_cli, clip, tmp_path):
    """Byte for byte (record, verdicts, report): seats in 2 workers + audio in its own
    process vs everything here."""
    out = {}
    for workers in (0, 2):
        res = run_cli("replay", clip / "clip.mp4", "--audio", clip / "seats.wav", "--calibration",
                      clip / "calibration.json", "--workers", str(workers), "--pose-every", "4",
                      "--out", tmp_path / f"w{workers}", "--json")
        assert res.exit_code == 0, res.output
        d = tmp_path / f"w{workers}"
        out[workers] = ((d / "session.jsonl").read_text(encoding="utf-8"), res.stdout,
                        (d / "report.html").read_text(encoding="utf-8"))
    assert out[2][0] == out[0][0]
    assert out[2][1] == out[0][1]
    assert out[2][2] == out[0][2]  # the report's landmarks and evidence frames too
    kinds = {json.loads(x)["type"] for x in out[0][0].splitlines()}
    assert {"card", "hand", "shout"} <= kinds
    assert not multiprocessing.active_children()


def test_audio_setup_failure_in_its_process_is_one_clear_error(run_cli, clip, tmp_path):
    res = run_cli("replay", clip / "clip.mp4", "--audio", clip / "seats.wav", "--calibration",
                  clip / "calibration.json", "--workers", "1", "--model", "no-such-model",
                  "--out", tmp_path / "o")
    assert res.exit_code == 2
    assert "referee: error: model 'no-such-model' is not installed" in res.stderr
    assert "Traceback" not in res.output
    assert not multiprocessing.active_children()


def test_frames_at_picks_the_frames_a_full_pass_picks(clip):
    from vision.video import frames_at, read_frames

    times = [0.0, 0.51, 0.5167, 1.2, 2.98, 3.4, 9.0]  # 3.4: past the end but near; 9.0: nothing near
    got = frames_at(clip / "clip.mp4", times, tolerance=0.5)
    frames = list(read_frames(clip / "clip.mp4"))
    assert set(got) == {0.0, 0.51, 0.5167, 1.2, 2.98, 3.4}
    for t, img in got.items():
        nearest = min(frames, key=lambda f: (abs(f.t - t), f.index))
        assert np.array_equal(img, nearest.image), t

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


def test_seat_region_bounds_every_seat_crop():
    """Only the part of a frame holding the seats' crops is copied into the pose workers' ring."""
    from vision.hands import seat_crop_box
    from vision.parallel import seat_region

    shape = (720, 1280, 3)
    boxes = [(100, 40, 420, 400), (700, 10, 1000, 380), (1100, 300, 1400, 800)]  # the last runs off the frame
    rows, cols = seat_region(boxes, shape)
    assert (rows.start, rows.stop, cols.start, cols.stop) == (10, 720, 100, 1280)
    for b in boxes:
        x1, y1, x2, y2 = seat_crop_box(b, shape)
        assert rows.start <= y1 and y2 <= rows.stop and cols.start <= x1 and x2 <= cols.stop
    assert seat_region([], shape) == (slice(0, 0), slice(0, 0))


def test_seat_workers_copy_only_the_seats_and_see_the_same(clip):
    """Seats in the top half of the frame: the ring's rows below them are never written (the
    copy is the seats' region only), and the workers' landmarks and events are those of the
    same seats in this process."""
    from vision.hands import SeatHands
    from vision.parallel import SeatWorkers
    from vision.video import read_frames

    boxes = [("aki", (0, 0, 320, 300)), ("ben", (320, 0, 640, 300))]  # rows 0-300 of 720
    frames = list(itertools.islice(read_frames(clip / "clip.mp4"), 40))
    here = [SeatHands(p, b, every=4, phase=i) for i, (p, b) in enumerate(boxes)]
    want = []
    try:
        for f in frames:
            want.append([(s.update(f.index, f.t, f.image), s.landmarks if s.due(f.index) else None) for s in here])
    finally:
        for s in here:
            s.close()
    sw = SeatWorkers([(p, b, 4, i, True) for i, (p, b) in enumerate(boxes)], 2, frames[0].image.shape, 3)
    got = []
    try:
        assert sw.region == (slice(0, 300), slice(0, 640))
        for f in frames:
            sw.submit(f.index, f.t, f.image)
            got.append([(r.events, r.landmarks) for r in sw.collect()])
        assert not sw.ring[:, 300:].any() and not sw.ring[:, :, 640:].any()  # never copied
        assert sw.ring[:, :300, :640].any()
    finally:
        sw.close()
    as_dicts = lambda runs: [[([e.to_dict() for e in ev], None if lm is None else lm.to_dict())  # noqa: E731
                              for ev, lm in seats] for seats in runs]
    assert as_dicts(got) == as_dicts(want)
    assert sum(lm is not None for seats in want for _, lm in seats) >= 10
    assert not multiprocessing.active_children()


def test_pose_loads_without_matplotlib():
    """MediaPipe's plotting helpers import matplotlib.pyplot (0.3 CPU-s in each pose worker):
    pose is loaded without it, and a later ``import matplotlib`` is the real package."""
    import os
    import subprocess
    import sys

    root = str(FIXTURES.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    code = ("import sys\nfrom vision.hands import PoseEstimator\nimport numpy as np\n"
            "e = PoseEstimator((0, 0, 64, 64), video=False)\ne.estimate(np.zeros((64, 64, 3), np.uint8))\ne.close()\n"
            "print('matplotlib' in sys.modules, 'matplotlib.pyplot' in sys.modules)\n"
            "from mediapipe.python.solutions import drawing_utils\n"
            "try:\n    drawing_utils.plt.figure\nexcept AttributeError as exc:\n    print('placeholder:', exc)\n"
            "try:\n    import matplotlib\n    print('real', hasattr(matplotlib, '__version__'))\nexcept ImportError:\n"
            "    print('real', True)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=root, env=env)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == "False False"
    assert lines[1].startswith("placeholder: matplotlib.pyplot.figure")
    assert lines[2] == "real True"

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


# ---- the report's frames kept during the replay's own pass (referee.pipeline.vision.EvidenceFrames)
def _fed(clip, times, ring_s=2.0, kinds=("card",)):
    """An EvidenceFrames fed the clip's frames in order, with an event released at each of
    ``times`` as the frame after it comes (the earliest a release can happen)."""
    from referee.pipeline.vision import EvidenceFrames
    from session.events import CardEvent
    from vision.video import read_frames

    keep = EvidenceFrames(30.0, ring_s=ring_s)
    waiting = sorted(times)
    for fr in read_frames(clip / "clip.mp4"):
        keep.frame(fr, [])
        while waiting and waiting[0] < fr.t:
            keep.event(CardEvent(t=waiting.pop(0), card="tako", zone="field", conf=1.0))
    for w in waiting:
        keep.event(CardEvent(t=w, card="tako", zone="field", conf=1.0))
    keep.finish(None)
    return keep


def test_kept_frames_are_the_frames_a_second_pass_picks(clip):
    """Every time the kept frames settle — an event's own time, the same time rounded to the
    ms as a verdict writes it, a time on a frame, half-way between two frames, before the
    first frame and after the last — gets the very frame frames_at decodes for it."""
    from vision.video import frames_at

    events = [0.0, 0.5, 0.516667, 1.2345, 1.25, 2.9, 2.9667]
    asked = events + [round(t, 3) for t in events] + [-0.01, 1.2341, 1.2349, 2.99, 3.2]
    known = _fed(clip, events).known(asked)
    assert set(known) == set(asked)
    full = frames_at(clip / "clip.mp4", asked, tolerance=0.5)
    for t, fr in known.items():
        assert np.array_equal(fr.to_ndarray(format="bgr24"), full[t]), t
    assert 1.7 not in _fed(clip, events).known([1.7])  # no event near it: its frames were not kept


def test_frames_at_decodes_only_what_was_not_kept(clip, tmp_path):
    """With every time known, the video is not opened at all (a missing file would be an
    error); a time whose frames left the ring is decoded, and gets the same frame."""
    from vision.video import frames_at

    keep = _fed(clip, [0.6, 1.8])
    known = keep.known([0.6, 1.8])
    assert set(known) == {0.6, 1.8}
    got = frames_at(tmp_path / "no-such.mp4", [0.6, 1.8], known=known)
    full = frames_at(clip / "clip.mp4", [0.6, 1.8, 2.5])
    assert all(np.array_equal(got[t], full[t]) for t in (0.6, 1.8))
    mixed = frames_at(clip / "clip.mp4", [0.6, 1.8, 2.5], known=known)
    assert all(np.array_equal(mixed[t], full[t]) for t in (0.6, 1.8, 2.5))


def test_an_event_released_after_its_frames_left_the_ring_is_left_to_the_second_pass(clip):
    from referee.pipeline.vision import EvidenceFrames
    from session.events import CardEvent, HandEvent
    from vision.video import read_frames

    keep = EvidenceFrames(30.0, ring_s=0.5)
    for fr in read_frames(clip / "clip.mp4"):
        keep.frame(fr, [])
    keep.event(CardEvent(t=0.8, card="tako", zone="field", conf=1.0))  # 2 s late: 0.5 s kept
    keep.event(HandEvent(t=2.9, player="aki", side="left", state="down", conf=1.0))  # no reaction
    keep.finish(None)
    assert keep.lost == 1
    assert keep.known([0.8, 2.9]) == {}


def test_camera_frames_keep_nothing():
    """Frames without a decoded source (a camera) give nothing: the report decodes as before."""
    from referee.pipeline.vision import EvidenceFrames
    from session.events import CardEvent
    from vision.video import Frame

    keep = EvidenceFrames(30.0)
    for k in range(5):
        keep.frame(Frame(k, k / 30, np.zeros((4, 4, 3), np.uint8)), [])
    keep.event(CardEvent(t=0.05, card="tako", zone="field", conf=1.0))
    keep.finish(None)
    assert keep.known([0.05]) == {}


def test_the_report_from_kept_frames_is_the_report_from_a_second_pass(clip, tmp_path):
    """A whole replay of the clip: its report (frames kept during the pass) is byte for byte
    the report drawn again with every frame decoded a second time."""
    from referee import report
    from referee.replay import ReplaySettings, replay

    r = replay(clip / "clip.mp4", clip / "calibration.json", audio=clip / "seats.wav", out=tmp_path / "o",
               settings=ReplaySettings(workers=0, no_enroll=True))
    assert r.evidence_frames is not None and r.evidence_frames.known([e["t"] for e in r.events if e["type"] == "card"])
    kept_html = (tmp_path / "o" / "report.html").read_text(encoding="utf-8")
    r.evidence_frames = None
    assert report.build_html(r) == kept_html

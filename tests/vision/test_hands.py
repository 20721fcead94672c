"""Raised hands: real photos per arm (floors below the measured figures), the state machine
and its sub-frame onset on landmark sequences, and a drawn player in video mode."""

from __future__ import annotations

import cv2
import pytest

from tests.vision.helpers import pose_rows
from vision import hands, synth


def test_real_photos_per_arm():
    right = total = false_raises = found = 0
    rows = pose_rows()
    for r in rows:
        res = hands.arms_in_image(cv2.imread(str(r["path"])), r["box"])
        found += res["found"]
        for side in ("left", "right"):
            label = r[f"{side}_raised"]
            if label not in ("0", "1"):
                continue
            total += 1
            right += res[f"{side}_raised"] == (label == "1")
            false_raises += res[f"{side}_raised"] and label == "0"
    # measured: 62/63 arms right (61/63 before the upright-forearm rule), 0 false raises,
    # 34/34 labelled people found
    assert total == 63
    assert right >= 61
    assert false_raises <= 1
    assert found >= 32


def _lm(lift_left: float, lift_right: float = -1.5, vis: float = 0.9) -> hands.Landmarks:
    # shoulders 100 px apart at y=200; a lift of L puts the wrist L*100 px above the shoulder
    return hands.Landmarks.from_dict({
        "left_shoulder": (350, 200), "right_shoulder": (250, 200),
        "left_wrist": (380, 200 - lift_left * 100, vis), "right_wrist": (220, 200 - lift_right * 100, vis),
    })


def _arm(lift: float, forearm_deg: float, elbow_in_box: bool = True) -> hands.Landmarks:
    """Left arm with the wrist ``lift`` shoulder widths above the shoulder (shoulders 100 px
    apart at y=200) and the forearm at ``forearm_deg`` above horizontal, 80 px long."""
    import math

    wx, wy = 380.0, 200 - lift * 100
    ex = wx - 80 * math.cos(math.radians(forearm_deg))
    ey = wy + 80 * math.sin(math.radians(forearm_deg))
    if not elbow_in_box:
        ex = -20.0
    return hands.Landmarks.from_dict({
        "left_shoulder": (350, 200), "right_shoulder": (250, 200), "left_elbow": (ex, ey, 0.9),
        "left_wrist": (wx, wy, 0.9), "right_elbow": (230, 280, 0.9), "right_wrist": (220, 350, 0.9)})


def test_bent_elbow_raise_counts_but_a_horizontal_arm_does_not():
    box = (0, 0, 600, 400)
    # a seated player's bent raise: hand a little above the shoulder, forearm upright
    assert _arm(0.15, 80).raised("left", box)
    # the same wrist height with the forearm held out sideways or reaching forward
    assert not _arm(0.15, 10).raised("left", box)
    assert not _arm(0.15, 45).raised("left", box)
    # chin resting on a hand: forearm upright, wrist at the shoulder line
    assert not _arm(0.02, 80).raised("left", box)
    # an elbow outside the seat crop is MediaPipe's guess: its forearm direction does not count
    assert not _arm(0.15, 80, elbow_in_box=False).raised("left", box)
    # high enough, any forearm: raised
    assert _arm(0.3, 0).raised("left", box) and _arm(0.3, 0, elbow_in_box=False).raised("left", box)
    assert not _arm(0.15, 80).raised("right", box)


def test_bent_elbow_raise_in_video_is_timed_at_the_shoulder_line():
    seat = hands.SeatHands("aki", (0, 0, 600, 400))
    events = []
    for k, (lift, deg) in enumerate([(-1.0, 80), (-0.3, 80), (0.06, 80), (0.15, 80), (0.16, 80), (0.16, 80)]):
        events += seat.observe(k / 30, _arm(lift, deg))
    assert [(e.side, e.state) for e in events] == [("left", "up")]
    assert events[0].t == pytest.approx(1 / 30 + (0.3 / 0.36) / 30, abs=1e-6)
    flat = hands.SeatHands("ben", (0, 0, 600, 400))
    assert [e for k in range(6) for e in flat.observe(k / 30, _arm(0.16, 20))] == []


def test_onset_is_interpolated_between_frames():
    seat = hands.SeatHands("aki", (0, 0, 600, 400))
    lifts = [-1.5, -1.5, -0.6, 0.3, 0.9, 1.2, 1.2]  # crosses 0 between frame 2 and 3
    events = []
    for k, l in enumerate(lifts):
        events += seat.observe(k / 30, _lm(l))
    assert len(events) == 1
    e = events[0]
    assert (e.player, e.side, e.state) == ("aki", "left", "up")
    assert e.t == pytest.approx(2 / 30 + (0.6 / 0.9) / 30, abs=1e-6)


def test_horizontal_arm_is_not_raised_and_down_is_reported():
    seat = hands.SeatHands("ben", (0, 0, 600, 400))
    events = []
    for k, l in enumerate([-1.5, 0.1, 0.2, 0.15, 0.2]):  # held at shoulder height
        events += seat.observe(k / 30, _lm(l))
    assert events == []
    for k, l in enumerate([0.5, 0.6, 0.6, -0.3, -0.9, -1.2, -1.4, -1.4, -1.4], start=5):
        events += seat.observe(k / 30, _lm(l))
    assert [(e.side, e.state) for e in events] == [("left", "up"), ("left", "down")]
    assert events[1].t == pytest.approx(7 / 30 + (0.6 / 0.9) / 30, abs=1e-6)


def test_a_single_glitch_frame_does_not_move_the_onset():
    seat = hands.SeatHands("aki", (0, 0, 600, 400))
    lifts = [-1.5, -1.2, -0.4, -2.5, 0.4, 1.0, 1.2]  # frame 3 is a tracking glitch
    events = []
    for k, l in enumerate(lifts):
        events += seat.observe(k / 30, _lm(l))
    assert events[0].t == pytest.approx(2 / 30 + 0.5 * 2 / 30, abs=1e-6)


def test_right_side_is_the_persons_own():
    seat = hands.SeatHands("aki", (0, 0, 600, 400))
    events = []
    for k, l in enumerate([-1.5, 1.0, 1.0]):
        events += seat.observe(k / 30, _lm(-1.5, l))
    assert [(e.side, e.state) for e in events] == [("right", "up")]


def test_drawn_players_raise_in_order():
    clip = synth.demo_clip(640, 480, seconds=1.6)
    seats = [hands.SeatHands(n, b) for n, b in zip(clip.names, clip.seats)]
    events = []
    for k in range(clip.n_frames):
        img = clip.frame(k)
        for s in seats:
            events += s.update(k, k / clip.fps, img)
    for s in seats:
        assert s.found >= 0.9 * s.frames, f"pose lost the drawn player {s.player}"
        s.close()
    ups = sorted((e.t, e.player) for e in events if e.state == "up")
    truth = sorted((r.crossing(), clip.names[r.seat]) for r in clip.raises)
    assert [p for _, p in ups] == [p for _, p in truth]
    # drawn figures lose the arm near horizontal for a few frames: the onset error is
    # measured by the benchmark (median and spread); here it must stay within 4 frames
    for (t, _), (tt, _) in zip(ups, truth):
        assert abs(t - tt) < 4 / clip.fps


class _LiftFromPixels:
    """A stand-in pose tracker for re-analysis: the lift is written in the crop's first
    pixel (tests the re-timing logic without MediaPipe)."""

    def __init__(self):
        self.calls = 0

    def estimate_crop(self, crop, box):
        self.calls += 1
        return _lm(float(crop[0, 0, 0]))


def _lift_at(k: int) -> float:
    # down at -1.5, rising faster and faster from frame 6: -1.02, -0.42, 0.42, 1.5 at 8..11
    return min(1.5, -1.5 + 0.12 * max(0, k - 6) ** 2)


def test_reduced_rate_reanalyses_the_frames_around_the_crossing():
    import numpy as np

    seat = hands.SeatHands("aki", (0, 0, 8, 8), every=4, phase=0)
    seat._refiner = fake = _LiftFromPixels()
    events = []
    for k in range(24):
        frame = np.full((8, 8, 3), _lift_at(k), np.float32)
        seat.remember(k, k / 30, frame)
        if seat.due(k):
            events += seat.observe(k / 30, _lm(_lift_at(k)))
    ups = [e for e in events if e.state == "up"]
    assert len(ups) == 1
    # analysed frames 8 (-1.02) and 12 (1.5) only; the full-rate crossing is at 9.5
    full_rate = 9.5 / 30
    assert ups[0].t == pytest.approx(full_rate, abs=1e-6)
    assert fake.calls == 2  # bisection: frame 10 (up), then 9 (down); the crossing is between them
    coarse = hands.SeatHands("aki", (0, 0, 8, 8), every=4, reanalyse=False)
    t = [e.t for k in range(0, 24, 4) for e in coarse.observe(k / 30, _lm(_lift_at(k)))]
    assert t[0] == pytest.approx(8 / 30 + (1.02 / 2.52) * 4 / 30, abs=1e-6)  # the coarse one differs
    assert abs(t[0] - full_rate) > 0.002


def test_reanalysis_without_bisection_runs_every_frame_between_and_agrees(monkeypatch):
    import numpy as np

    monkeypatch.setattr(hands, "BISECT_REANALYSIS", False)
    seat = hands.SeatHands("aki", (0, 0, 8, 8), every=4, phase=0)
    seat._refiner = fake = _LiftFromPixels()
    events = []
    for k in range(24):
        seat.remember(k, k / 30, np.full((8, 8, 3), _lift_at(k), np.float32))
        if seat.due(k):
            events += seat.observe(k / 30, _lm(_lift_at(k)))
    assert [e.t for e in events if e.state == "up"] == [pytest.approx(9.5 / 30, abs=1e-6)]
    assert fake.calls == 5  # frames 8..12


def test_reduced_rate_without_buffered_frames_keeps_the_coarse_time():
    seat = hands.SeatHands("aki", (0, 0, 8, 8), every=4, phase=0)
    seat._refiner = fake = _LiftFromPixels()
    events = []
    for k in range(0, 24, 4):  # nothing remembered (frames not buffered)
        events += seat.observe(k / 30, _lm(_lift_at(k)))
    assert events[0].t == pytest.approx(8 / 30 + (1.02 / 2.52) * 4 / 30, abs=1e-6)
    assert fake.calls == 0


def test_drawn_players_at_reduced_rate_are_retimed_at_full_rate():
    clip = synth.demo_clip(640, 480, seconds=1.6)
    seats = [hands.SeatHands(n, b, every=3, phase=i) for i, (n, b) in enumerate(zip(clip.names, clip.seats))]
    events = []
    for k in range(clip.n_frames):
        img = clip.frame(k)
        for s in seats:
            events += s.update(k, k / clip.fps, img)
    assert sum(s.reanalysed for s in seats) > 0
    for s in seats:
        s.close()
    ups = sorted((e.t, e.player) for e in events if e.state == "up")
    truth = sorted((r.crossing(), clip.names[r.seat]) for r in clip.raises)
    assert [p for _, p in ups] == [p for _, p in truth]
    for (t, _), (tt, _) in zip(ups, truth):
        assert abs(t - tt) < 3 / clip.fps


def test_fast_raises_of_the_demo_figure_are_timed_within_a_few_ms():
    """Four seats of the demo's articulated figure raise an arm in 0.3 s (left and right),
    onsets 60-140 ms apart at sub-frame times: every raise found, none invented, and the
    interpolated onset within a few ms (measured: 24 raises, median 2.3 ms, max 4.2 ms)."""
    import statistics

    try:
        clip = synth.figure_clip(seed=1, raise_s=0.3)
    except ImportError as exc:  # pragma: no cover - the repository always has fixtures/demo
        pytest.skip(f"fixtures/demo not importable: {exc}")
    seats = [hands.SeatHands(n, b) for n, b in zip(clip.names, clip.seats)]
    ups = {}
    for k in range(clip.n_frames):
        img = clip.frame(k)
        for s in seats:
            for e in s.update(k, k / clip.fps, img):
                if e.state == "up":
                    ups.setdefault((e.player, e.side), e.t)
    for s in seats:
        s.close()
    truth = {(clip.names[r.seat], r.side): r.cross for r in clip.raises}
    assert set(ups) == set(truth)
    errs = [abs(ups[k] - truth[k]) * 1000 for k in truth]
    assert statistics.median(errs) <= 5.0
    assert max(errs) < 10.0
    # the order of the four players is right
    assert sorted(ups, key=ups.get) == sorted(truth, key=truth.get)


class _PoseFromFrame:
    """A stand-in tracker for ``update``: the lift is written in the grey level at (60, 70)."""

    def __init__(self):
        self.calls = 0

    def estimate(self, frame):
        self.calls += 1
        return _lm(float(frame[60, 70].mean()) / 50 - 2)


def _still_then_raising(seed: int = 0):
    """40 frames of a 160x160 seat with camera noise; from frame 20 an arm-sized block brightens."""
    import numpy as np

    rng = np.random.default_rng(seed)
    for k in range(40):
        frame = np.clip(np.full((160, 160, 3), 20.0) + rng.normal(0, 3, (160, 160, 3)), 0, 255).astype(np.uint8)
        if k >= 20:
            frame[20:100, 40:100] = min(255, 20 + 40 * (k - 19))
        yield k, frame


def _gate_run():
    fake = _PoseFromFrame()
    seat = hands.SeatHands("aki", (0, 0, 160, 160), estimator=fake, every=1)
    events = [e for k, frame in _still_then_raising() for e in seat.update(k, k / 30, frame)]
    return fake, seat, events


def test_motion_gate_skips_pose_on_still_frames_and_never_misses_a_raise(monkeypatch):
    fake, seat, events = _gate_run()
    assert seat.skipped >= 15  # still frames (noise only): the landmarks stand
    assert fake.calls + seat.skipped == 40
    ups = [e for e in events if e.state == "up"]
    assert len(ups) == 1 and 20 / 30 <= ups[0].t <= 24 / 30  # the raise is seen as it happens
    # without the gate every due frame runs pose, and the events are the same
    monkeypatch.setattr(hands, "MOTION_FRACTION", None)
    fake2, seat2, events2 = _gate_run()
    assert fake2.calls == 40 and seat2.skipped == 0
    assert [(e.state, e.side, e.t) for e in events2] == [(e.state, e.side, e.t) for e in events]


def _head_arm(lift: float, below_nose: float) -> hands.Landmarks:
    """Left wrist ``lift`` shoulder widths above the shoulder and ``below_nose`` below the
    nose (shoulders 100 px apart at y=200), forearm flat (the upright rule does not apply)."""
    wy = 200 - lift * 100
    return hands.Landmarks.from_dict({
        "nose": (300, wy - below_nose * 100, 0.99), "left_shoulder": (350, 200), "right_shoulder": (250, 200),
        "left_elbow": (300, wy, 0.9), "left_wrist": (380, wy, 0.9), "right_elbow": (230, 280, 0.9),
        "right_wrist": (220, 350, 0.9)})


def test_half_raise_to_head_height_counts_by_the_table_rule():
    box = (0, 0, 600, 400)
    # hands behind the head / at the ear: wrist 0.15 above the shoulder, at the nose's height
    assert _head_arm(0.15, 0.0).raised("left", box)
    assert _head_arm(0.15, 0.0).raised("left", box, half_raise=True)
    assert not _head_arm(0.15, 0.0).raised("left", box, half_raise=False)  # a table that wants arms up high
    # an arm held out sideways a little above the shoulder, well below the head: no raise
    assert not _head_arm(0.2, 0.3).raised("left", box)
    # a chin resting on a hand: the wrist at the shoulder line is no raise, however near the head
    assert not _head_arm(0.02, 0.0).raised("left", box)
    # the default follows the rulebook ("raise your hand", no height): the half-raise counts
    assert hands.HALF_RAISE is True


def test_half_raise_in_video_is_an_up_event_timed_at_the_shoulder_line():
    arm = hands.ArmTracker()
    assert arm.observe(0.0, -0.5) is None
    assert arm.observe(1 / 30, 0.05, at_head=True) is None
    assert arm.observe(2 / 30, 0.15, at_head=True) is None
    change = arm.observe(3 / 30, 0.16, at_head=True)
    assert change is not None and change[0] == "up"
    assert abs(change[1] - (1 / 30 - (1 / 30) * 0.05 / 0.55)) < 1e-6  # crossing between 0 and 1/30
    off = hands.ArmTracker(half_raise=False)
    assert all(off.observe(k / 30, lift, at_head=True) is None for k, lift in enumerate((-0.5, 0.15, 0.16, 0.17)))


def test_an_arm_promises_the_last_frame_still_on_its_side_of_the_onset_level():
    """The pipeline's watermark for hands: a change not yet reported is timed at the crossing
    after the last analysed frame on this side of the onset level (one frame earlier for a
    glitch), so an arm at rest promises its last frame and a rising arm its rise."""
    from vision.hands import ONSET_LEVEL, RAISE_FRACTION, ArmTracker

    arm = ArmTracker()
    assert arm.earliest_event_t() is None
    low, mid, high = ONSET_LEVEL - 0.2, (ONSET_LEVEL + RAISE_FRACTION) / 2, RAISE_FRACTION + 0.3
    for k in range(5):
        arm.observe(k / 30, low)
    assert arm.earliest_event_t() == pytest.approx(4 / 30)  # at rest: its last frame
    arm.observe(5 / 30, mid)  # rising, not yet up: the crossing lies after frame 4
    assert arm.earliest_event_t() == pytest.approx(4 / 30)
    got = [arm.observe(k / 30, high) for k in (6, 7)]
    up = next(c for c in got if c is not None)
    assert up[0] == "up" and up[1] >= 4 / 30  # the promise held


def test_a_reading_that_may_yet_be_dropped_as_a_glitch_holds_the_arms_promise_a_frame_back():
    """The last frame on this side jumped more than GLITCH_JUMP from the one before: if the
    next one jumps back, it is dropped as a glitch and the crossing lies before it — so the
    arm promises the frame before (and the event then indeed comes before the glitch)."""
    from vision.hands import GLITCH_JUMP, ONSET_LEVEL, RAISE_FRACTION, ArmTracker

    arm = ArmTracker()
    low, high = ONSET_LEVEL - 0.05, RAISE_FRACTION + 0.3
    for k in range(3):
        arm.observe(k / 30, low)
    arm.observe(3 / 30, low - GLITCH_JUMP - 0.2)  # a dip: may be a glitch
    assert arm.earliest_event_t() == pytest.approx(2 / 30)
    got = [arm.observe(k / 30, high) for k in (4, 5, 6)]
    up = next(c for c in got if c is not None)
    assert up[0] == "up" and 2 / 30 <= up[1] < 3 / 30  # timed before the dropped frame: the promise was needed


def test_a_seat_without_a_person_for_half_a_second_is_reported_lost_then_ok():
    """No person found at a seat for ``UNSEEN_S`` (0.5 s) of analysed frames: one
    ``seat_status`` lost timed at the first such frame, then ok when one is found again; a
    single missed detection says nothing; the seat's watermark stays at or before the gap's
    start while a lost may still follow."""
    seat = hands.SeatHands("dai", (0, 0, 600, 400))
    out = []
    for k in range(3):
        out += seat.observe(k / 30, _lm(-1.5))
    out += seat.observe(3 / 30, None)  # one blink: nothing
    out += seat.observe(4 / 30, _lm(-1.5))
    assert out == []
    gap = [k / 30 for k in range(5, 5 + 16)]  # 15/30 s after the first: just 0.5 s
    for t in gap[:-1]:
        out += seat.observe(t, None)
    assert out == [] and seat.earliest_event_t() <= gap[0]
    out += seat.observe(gap[-1], None)
    assert [(e.type, e.player, e.state, e.t) for e in out] == [("seat_status", "dai", "lost", round(gap[0], 6))]
    out += seat.observe(gap[-1] + 1 / 30, None)
    out += seat.observe(gap[-1] + 2 / 30, _lm(-1.5))
    assert [(e.state, e.t) for e in out[1:]] == [("ok", round(gap[-1] + 2 / 30, 6))]
    with pytest.raises(ValueError, match="unseen_s"):
        hands.SeatHands("dai", (0, 0, 600, 400), unseen_s=0)


def _analysed(indices, every=8, phase=1):
    """The frame indices a seat runs pose on when only ``indices`` are handed to it."""
    import numpy as np

    seat = hands.SeatHands("aki", (0, 0, 160, 160), estimator=_PoseFromFrame(), every=every, phase=phase)
    frame = np.zeros((160, 160, 3), np.uint8)
    out = []
    for k in indices:
        due = seat.due(k)
        seat.update(k, k / 30, frame)
        if due:
            out.append(k)
    return out


def test_every_frame_given_the_seat_runs_on_its_stride_and_skipped_frames_never_starve_it(monkeypatch):
    monkeypatch.setattr(hands, "MOTION_FRACTION", None)
    assert _analysed(range(64)) == list(range(7, 64, 8))  # (k + phase) % every == 0, as always
    assert _analysed(range(5, 64)) == list(range(7, 64, 8))  # (from a later frame on too)
    # live, behind: only even frames reach the seat; phase 1 is never on an even frame, yet the
    # seat runs on every 8th frame that arrives, in turn with the others
    assert _analysed(range(0, 128, 2)) == list(range(14, 128, 16))
    assert _analysed(range(0, 128, 2), phase=0) == list(range(0, 128, 16))
    # irregular skips: the frames analysed are still every 8th that arrived
    arrived = [k for k in range(200) if k % 3 and k % 7]
    assert _analysed(arrived) == arrived[6::8]  # (the first, index 1, counts as frame 1)


def test_a_seat_analysed_after_a_long_stretch_records_it_as_video_not_seen():
    seat = hands.SeatHands("aki", (0, 0, 600, 400), every=8)
    events = []
    for t in (0.0, 0.267, 0.533, 0.8 + hands.POSE_GAP_S + 0.01, 1.9):
        events += seat.observe(t, _lm(-1.5))
    gaps = [e for e in events if e.type == "skipped"]
    assert len(gaps) == 1
    g = gaps[0]
    assert (g.what, g.start, g.stop, g.extra["player"]) == ("video", 0.533, round(0.8 + hands.POSE_GAP_S + 0.01, 6), "aki")
    assert g.t == g.start >= 0.533  # not before what the seat had promised (its last analysed frame)

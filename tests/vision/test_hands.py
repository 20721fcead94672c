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
    # measured: 61/63 arms right, 0 false raises, 34/34 labelled people found
    assert total == 63
    assert right >= 58
    assert false_raises <= 1
    assert found >= 32


def _lm(lift_left: float, lift_right: float = -1.5, vis: float = 0.9) -> hands.Landmarks:
    # shoulders 100 px apart at y=200; a lift of L puts the wrist L*100 px above the shoulder
    return hands.Landmarks.from_dict({
        "left_shoulder": (350, 200), "right_shoulder": (250, 200),
        "left_wrist": (380, 200 - lift_left * 100, vis), "right_wrist": (220, 200 - lift_right * 100, vis),
    })


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

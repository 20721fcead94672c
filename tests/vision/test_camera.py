"""The live camera: stamps on the session clock, drops counted, reconnecting by itself.

Most tests run the reader's loop body (:meth:`Camera.step`) on a virtual clock, so the
stamps are exact and nothing waits; one runs the real reader thread on the real clock
and asserts counts and stamps (never speed)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from session.errors import DeviceError
from session.events import WarningEvent
from vision.camera import CAP_PROP_BUFFERSIZE, Camera, CameraParams
from vision.paced_camera import PacedFakeCamera, VirtualClock
from vision.video import Frame, write_video

FPS = 30


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """2 s at 30 fps; frame i is filled with the value i (to know which frame came)."""
    path = tmp_path_factory.mktemp("cam") / "clip.mp4"
    write_video(path, (np.full((48, 64, 3), i * 4, np.uint8) for i in range(2 * FPS)), fps=FPS, crf=0)
    return path


def _camera(clip, clock, params=CameraParams(), **fake):
    fake_cam = PacedFakeCamera(clip, clock=clock, sleep=clock.sleep, **fake)
    cam = Camera("fake", start=clock(), params=params, opener=fake_cam.opener, clock=clock, sleep=clock.sleep)
    assert cam._connect()
    return cam, fake_cam


def _run(cam, limit=1000):
    """Step until the fake file ends; every frame read is handed out (a fast consumer)."""
    frames = []
    for _ in range(limit):
        if cam.step():
            frames.append(cam.latest())
        elif cam._finished:
            break
    return frames


def test_plausible_driver_stamps_are_the_frame_times_on_the_session_clock(clip):
    clock = VirtualClock()
    cam, fake = _camera(clip, clock, lag_s=0.05)
    frames = _run(cam)
    assert len(frames) == 2 * FPS and all(isinstance(f, Frame) for f in frames)
    assert cam.clock == "driver" and cam.stamped == {"driver": 60, "grab": 0}
    # the driver stamp is the capture moment, not the (50 ms later) grab
    assert [f.t for f in frames] == pytest.approx([i / FPS for i in range(60)], abs=1e-6)
    assert cam.drain_events() == []
    assert cam.clock_info()["clock"] == "driver"


def test_the_camera_is_asked_for_a_buffer_of_one_frame(clip):
    clock = VirtualClock()
    fake = PacedFakeCamera(clip, clock=clock, sleep=clock.sleep)
    caps = []
    cam = Camera("fake", start=clock(), opener=lambda d: caps.append(fake.opener(d)) or caps[-1], clock=clock)
    assert cam._connect() and caps[0].buffer == 1


@pytest.mark.parametrize("stamps", [False, "garbage"])
def test_zero_or_garbage_driver_stamps_fall_back_to_grab_time_minus_the_buffer_delay(clip, stamps):
    clock = VirtualClock()
    params = CameraParams(buffer_delay_s=0.02)
    cam, fake = _camera(clip, clock, params, lag_s=0.05, driver_stamps=stamps)
    frames = _run(cam)
    assert cam.clock == "grab" and cam.stamped == {"driver": 0, "grab": 60}
    # grab = capture + 50 ms lag; minus the 20 ms known delay
    assert [f.t for f in frames] == pytest.approx([i / FPS + 0.03 for i in range(60)], abs=1e-6)
    events = cam.drain_events()
    assert len(events) == 1 and isinstance(events[0], WarningEvent)
    assert "implausible" in events[0].message and events[0].extra["clock"] == "grab"
    assert cam.clock_info()["clock"] == "grab"


def test_a_driver_stamp_far_older_than_the_grab_is_not_believed(clip):
    clock = VirtualClock()
    cam, fake = _camera(clip, clock, CameraParams(plausible_s=0.5), lag_s=0.8)
    frames = _run(cam)
    assert cam.clock == "grab" and frames[0].t == pytest.approx(0.8 - 0.033, abs=1e-6)


def test_gaps_in_the_driver_stamps_count_the_frames_the_camera_dropped(clip):
    clock = VirtualClock()
    cam, fake = _camera(clip, clock, drop_every=5)
    frames = _run(cam)
    assert len(frames) == 60 - 12
    assert cam.dropped == 12 - 1  # the last dropped frame (59) leaves no gap behind it
    assert cam.skipped == 0


def test_a_busy_caller_gets_the_newest_frame_and_the_skipped_ones_are_counted(clip):
    clock = VirtualClock()
    cam, fake = _camera(clip, clock)
    got = []
    for _ in range(10):
        for _ in range(3):  # three frames arrive while the caller works on one
            cam.step()
        got.append(cam.latest())
    assert [f.index for f in got] == [2, 5, 8, 11, 14, 17, 20, 23, 26, 29]
    assert cam.skipped == 20 and cam.handed == 10 and cam.captured == 30
    assert cam.latest() is None  # nothing new: no frame handed out twice
    assert len(cam.ring) == CameraParams().ring and cam.ring[-1].index == 29


def test_an_unplugged_camera_is_reported_lost_and_back_and_reconnects_by_itself(clip):
    clock = VirtualClock()
    cam, fake = _camera(clip, clock, CameraParams(retry_s=0.25), unplug=(0.5, 0.6))
    frames = _run(cam)
    events = cam.drain_events()
    assert [e.extra["state"] for e in events] == ["lost", "ok"]
    assert "lost" in events[0].message and "back" in events[1].message
    assert events[0].t == pytest.approx(frames[14].t, abs=1e-6)  # the last frame seen
    assert fake.opens >= 2 and cam.losses == 1
    times = [f.t for f in frames]
    assert not [t for t in times if 0.5 <= t < 1.1]  # nothing while unplugged
    assert times[-1] == pytest.approx(59 / FPS, abs=1e-6) and times == sorted(times)
    assert cam.online


def test_a_frozen_camera_is_reported_and_reopened(clip):
    clock = VirtualClock()
    cam, fake = _camera(clip, clock, CameraParams(stall_s=1.0, retry_s=0.2), freeze=(1.0, 0.5))
    frames = _run(cam)
    events = cam.drain_events()
    assert [e.extra["state"] for e in events] == ["lost", "ok"]
    assert fake.opens == 2
    assert not [f for f in frames if 1.0 <= f.t < 1.5]
    assert frames[-1].t == pytest.approx(59 / FPS, abs=1e-6)


def test_a_freeze_is_reported_while_read_still_blocks(clip):
    clock = VirtualClock()
    cam, fake = _camera(clip, clock, CameraParams(stall_s=1.0))
    for _ in range(3):
        cam.step()
    assert cam.drain_events() == []
    clock.advance(1.5)  # read() hangs: no frame for 1.5 s
    events = cam.drain_events()
    assert len(events) == 1 and events[0].extra["state"] == "lost" and "frozen" in events[0].message
    assert cam.drain_events() == []  # reported once


def test_a_camera_that_cannot_be_opened_is_one_device_error():
    class Closed:
        def isOpened(self):
            return False

        def release(self):
            pass

    with pytest.raises(DeviceError, match="cannot be opened"):
        Camera(7, opener=lambda d: Closed()).open()


def test_the_reader_thread_paces_a_file_in_real_time_and_hands_out_the_newest(clip):
    """Real clock, real thread: a caller that takes 100 ms per frame falls no frame behind."""
    fake = PacedFakeCamera(clip)
    with Camera("fake", opener=fake.opener) as cam:
        got = []
        for frame in cam.frames():
            got.append((frame, cam.captured))
            time.sleep(0.1)
    frames = [f for f, _ in got]
    # each frame handed out was the newest read at that moment (``captured`` is read just after
    # the hand-out, so a loaded machine may let the reader run a few frames on in between; a
    # queue instead of the newest would fall ~30 frames behind by the end)
    assert all(f.index >= captured - 5 for f, captured in got)
    # every frame of the file was read, or overwritten in the driver's one-frame buffer while
    # the reader thread was late (a loaded machine: CI lost 2 of 60 that way)
    assert cam.captured + fake.overwritten == 60 and fake.overwritten <= 5
    assert cam.handed == len(frames) and cam.skipped > 0
    assert cam.handed + cam.skipped <= cam.captured
    times = [f.t for f in frames]
    assert times == sorted(times)
    offset = times[0] - frames[0].index / FPS  # open time vs session start
    # each stamp is its frame's own time in the file (on the 30 fps grid); the index counts the
    # frames read, so a frame the driver overwrote (a loaded machine) puts the later stamps one
    # frame ahead of their index, never behind
    since = [t - offset for t in times]
    assert since == pytest.approx([round(x * FPS) / FPS for x in since], abs=1e-6)
    ahead = [round((x - f.index / FPS) * FPS) for x, f in zip(since, frames)]
    assert ahead == sorted(ahead) and min(ahead) == 0 and max(ahead) <= fake.overwritten
    assert cam.clock == "driver"


def test_next_waits_for_a_new_frame_and_ended_says_when_the_file_is_over(clip):
    clock = VirtualClock()
    cam, fake = _camera(clip, clock)
    assert cam.next(timeout=0.01) is None and not cam.ended
    cam.step()
    assert cam.next(timeout=0.01).index == 0
    while cam.step() or not cam._finished:
        pass
    assert not cam.ended and cam.next(timeout=0.01).index == 59 and cam.ended


def test_a_late_reader_gets_the_newest_frame_as_from_a_driver_with_a_buffer_of_one(clip):
    clock = VirtualClock()
    cam, fake = _camera(clip, clock)
    cam.step()
    clock.advance(0.2)  # the reader was busy 200 ms: frames 1-6 were captured meanwhile
    cam.step()
    f = cam.latest()
    assert f.index == 1 and f.t == pytest.approx(6 / FPS, abs=1e-6)  # frame 6, the newest at that moment
    assert fake.overwritten == 5 and cam.dropped == 5 and cam.clock == "driver"

"""Each pipeline stage started on a failing input: the error that comes out is the first one
(never one raised by stopping the stage), and stopping works whether or not the stage
started (issue 36). Cheap: every input fails at once; the worker processes never load a
pose model (the seats' estimators are made at their first due frame)."""

from __future__ import annotations

import functools
import itertools
import json
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from session.errors import DeviceError, MediaError, RefereeError
from tests.conftest import FIXTURES

DEMO = FIXTURES / "demo"


def _ended(thread_name: str, wait_s: float = 5.0) -> bool:
    """Whether no thread called ``thread_name`` is alive within ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while any(t.name == thread_name and t.is_alive() for t in threading.enumerate()):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _garbage(tmp_path: Path) -> Path:
    path = tmp_path / "session.mp4"
    path.write_bytes(b"not a video at all" * 10)
    return path


def _layout(tmp_path: Path, truncated: bool = True):
    """The demo table, its references in a folder of their own, ``2.png`` cut to 100 bytes."""
    from session.calibration import load
    from vision.table import TableLayout

    refs = tmp_path / "refs"
    shutil.copytree(DEMO / "refs", refs)
    if truncated:
        (refs / "2.png").write_bytes((DEMO / "refs" / "2.png").read_bytes()[:100])
    cal = json.loads((DEMO / "calibration.json").read_text(encoding="utf-8"))
    cal.update(references=str(refs), enroll=str(DEMO / "enroll"))
    cal["audio"]["file"] = str(DEMO / "seats.wav")
    (tmp_path / "cal.json").write_text(json.dumps(cal), encoding="utf-8")
    return TableLayout.of(load(tmp_path / "cal.json")), refs / "2.png"


def _recording(video: Path, layout):
    from referee.pipeline import recording
    from vision.video import probe

    return recording.Recording(video=video, audio=None, layout=layout, hearing=None, info=probe(DEMO / "session.mp4"),
                               workers=0, pose_every=8, keep_landmarks=False)


def _run(rec):
    from referee.pipeline import recording
    from session.events import SessionHeader

    header = SessionHeader(t=0.0, game="ikatako", players=("aki", "ben", "chie", "dai"))
    return recording.run(rec, [], lambda run: header, judge=False)


def test_the_frame_reader_stops_before_it_started_and_hands_on_an_unreadable_videos_error(tmp_path):
    from referee.pipeline.vision import FrameReader

    FrameReader(DEMO / "session.mp4").stop()  # never started: before the fix, RuntimeError
    reader = FrameReader(_garbage(tmp_path)).start()
    try:
        got = reader.get()
    finally:
        reader.stop()
    assert isinstance(got, MediaError) and "is unreadable" in str(got)
    assert _ended("referee-reader")


def test_a_recording_whose_reference_is_damaged_raises_that_error_not_the_clean_ups(tmp_path):
    """The issue's own path: the vision stage fails while the reader has not started yet."""
    layout, damaged = _layout(tmp_path)
    with pytest.raises(MediaError, match=f"^reference image {damaged} is unreadable$") as info:
        _run(_recording(DEMO / "session.mp4", layout))
    assert info.value.__context__ is None  # nothing was raised while stopping
    assert _ended("referee-reader")


def test_a_recording_whose_video_is_unreadable_raises_the_readers_error(tmp_path):
    layout, _ = _layout(tmp_path, truncated=False)
    with pytest.raises(MediaError, match="session.mp4 is unreadable"):
        _run(_recording(_garbage(tmp_path), layout))
    assert _ended("referee-reader")


@pytest.mark.parametrize("process", [False, True], ids=["thread", "process"])
def test_the_hearing_job_reports_its_setup_error_first_and_stops_started_or_not(tmp_path, process):
    """A seats' recording that does not exist: the job's first message is that error;
    closing it raises nothing and leaves no process."""
    import multiprocessing

    from referee.pipeline.hearing import HearingJob
    from referee.pipeline.recording import open_audio

    job = HearingJob(process, functools.partial(open_audio, DEMO / "session.mp4", tmp_path / "gone.wav", False), None)
    try:
        messages = job.wait()
    finally:
        job.close()
    assert [m.kind for m in messages] == ["fatal"]
    assert isinstance(messages[0].error, MediaError) and "gone.wav: no such file" in str(messages[0].error)
    assert multiprocessing.active_children() == []
    assert _ended("referee-hearing")


class _Endless:
    """A source that never ends (a microphone), and a listener that hears nothing."""

    def __iter__(self):
        from audio.capture import Block

        for i in itertools.count():
            time.sleep(0.005)
            yield Block(i * 160, np.zeros((160, 1), np.float32), 16000, 0.0)

    def update(self, block):
        return []

    def watermark(self):
        return 0.0

    def close_window(self):
        return []


def test_a_hearing_thread_closed_before_its_end_stops_instead_of_hearing_on(monkeypatch):
    """A thread cannot be terminated: closing the job tells it to stop at its next block
    (before, it went on hearing the whole recording after a replay had failed)."""
    from audio import hearing
    from referee.pipeline.hearing import HearingJob

    endless = _Endless()
    monkeypatch.setattr(hearing, "make_listener", lambda plan, source, warnings: endless)
    job = HearingJob(False, lambda warnings: (endless, None), None)
    assert [m.kind for m in job.wait_one(timeout=10)] == ["setup"]
    job.close()
    assert _ended("referee-hearing")


def test_the_card_thread_raises_its_zones_error_and_closes():
    from vision.table import CardThread

    class BrokenZone:
        every = 1
        warnings: list = []

        def update(self, index, t, image):
            raise MediaError("zone field: the first error")

        def earliest_event_t(self):
            return 0.0

    cards = CardThread([BrokenZone()])
    try:
        cards.submit(0, 0.0, np.zeros((4, 4, 3), np.uint8))
        with pytest.raises(MediaError, match="the first error"):
            cards.drain()
    finally:
        cards.close()
    cards.close()  # twice: still nothing raised
    assert _ended("card-zones")


def test_pose_workers_given_a_wrong_frame_raise_that_error_and_stop(tmp_path):
    import multiprocessing

    from vision.parallel import SeatWorkers

    workers = SeatWorkers([("aki", (0, 0, 320, 500), 8, 0, True), ("ben", (320, 0, 640, 500), 8, 1, True)], 2,
                          (720, 1280, 3), 4)
    try:
        with pytest.raises(RefereeError, match="frame 0 is 640x480, the pose workers expect 1280x720"):
            workers.submit(0, 0.0, np.zeros((480, 640, 3), np.uint8))
    finally:
        workers.close()
    workers.close()  # twice: still nothing raised
    assert multiprocessing.active_children() == []


def test_the_camera_that_cannot_open_says_so_and_closes_opened_or_not():
    from vision.camera import Camera

    cam = Camera("nowhere", opener=lambda device: None)
    cam.close()  # never opened
    try:
        with pytest.raises(DeviceError, match="camera 'nowhere' cannot be opened"):
            cam.open()
    finally:
        cam.close()


def test_the_video_writer_closes_unstarted_and_after_its_write_failed(tmp_path):
    from referee.live.media import VideoWriter
    from vision.video import Frame

    VideoWriter(tmp_path / "v.mp4").close()  # no frame ever came: nothing started
    writer = VideoWriter(tmp_path / "no-such-folder" / "v.mp4")
    writer.frame(Frame(0, 0.0, np.zeros((64, 64, 3), np.uint8)), [])
    writer.close()
    assert writer.error is not None and "writing stopped" in writer.error
    assert _ended("video-writer")


def test_the_live_audio_tap_closed_before_the_session_lets_the_hearing_end():
    """Live: the hearing thread waits at the session's gate for the microphones; a session
    that fails before its start closes the tap and the thread ends instead of waiting."""
    import queue

    from referee.live.run import _Tap

    class Source:
        rate, channels = 16000, 4

        def __iter__(self):
            raise AssertionError("a closed tap reads nothing")

    tap = _Tap(Source(), threading.Event(), queue.Queue())
    heard: list = []
    t = threading.Thread(target=lambda: heard.extend(tap), name="test-tap-reader", daemon=True)
    t.start()
    tap.close()
    t.join(timeout=5)
    assert not t.is_alive() and heard == [] and tap.ended

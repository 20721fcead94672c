"""The live sources (``referee.live.sources``) against stand-ins for the devices, without a
paced recording: every source of a round dates what it says at the round's moment, the keys
become events on the session clock, and the devices' status keeps its promise."""

import queue
from types import SimpleNamespace

from audio.capture import Status
from referee.live.controls import Command
from referee.live.sources import DeviceStatus, Keys, Pacing, RoundClock
from session.events import DecisionEvent, SkippedEvent, WarningEvent


class Clock(RoundClock):
    """A round clock whose moment the test sets."""

    def __init__(self, t):
        super().__init__(0.0)
        self.at = t

    def now(self):
        return self.at


def test_pacing_takes_the_cameras_next_frame_and_dates_the_round_after_it():
    clock = Clock(2.0)
    asked = []

    class Camera:
        def next(self, timeout):
            asked.append(timeout)
            clock.at = 2.5  # the wait for the frame took time
            return "frame"

    pacing = Pacing(Camera(), clock, wait_s=0.05)
    assert pacing.poll() == [] and pacing.frame == "frame"
    assert asked == [0.05] and clock.t == 2.5 and not pacing.done


def test_pacing_stops_waiting_for_the_frame_when_hearing_has_a_shout():
    from referee.live.sources import WAKE_SLICE_S

    clock = Clock(2.0)
    asked, woken = [], iter([False, False, True])

    class Camera:
        def next(self, timeout):
            asked.append(timeout)
            return None  # no frame yet

    pacing = Pacing(Camera(), clock, wait_s=0.05, woken=lambda: next(woken))
    assert pacing.poll() == [] and pacing.frame is None
    # three slices, then the shout: the round goes on without waiting out the 0.05 s
    assert len(asked) == 3 and all(t <= WAKE_SLICE_S for t in asked)
    # nothing to hear: the whole wait, in slices
    import time

    class WaitingCamera:
        def next(self, timeout):
            asked.append(timeout)
            time.sleep(timeout)
            return None

    asked.clear()
    t0 = time.monotonic()
    Pacing(WaitingCamera(), clock, wait_s=0.02, woken=lambda: False).poll()
    assert all(t <= WAKE_SLICE_S for t in asked) and time.monotonic() - t0 >= 0.02 - 1e-3


def test_a_shout_is_sent_at_once_live_and_with_the_batch_in_a_replay(monkeypatch):
    import numpy as np

    import audio.hearing as hearing
    from audio.capture import Block
    from referee.pipeline.hearing import HeardEvents, hear

    class Listener:  # a shout completed by the second block (20 ms each); promises what it was fed
        def __init__(self):
            self.end = 0.0

        def update(self, block):
            self.end = (block.index + len(block.data)) / block.rate
            return [{"type": "shout", "t": 0.0, "player": "aki"}] if block.index == 320 else []

        def watermark(self):
            return self.end

        def close_window(self):
            return []

    class Sink:
        def __init__(self):
            self.msgs = []

        def send(self, msg):
            self.msgs.append(msg)

    monkeypatch.setattr(hearing, "make_listener", lambda plan, source, warnings: Listener())
    blocks = [Block(k * 320, np.zeros((320, 1), np.float32), 16000) for k in range(10)]
    sent_with = {}
    for at_once in (False, True):
        sink = Sink()
        hear(sink, lambda warnings: (blocks, None), None, batch_s=0.1, at_once=at_once)
        (msg,) = [m for m in sink.msgs if isinstance(m, HeardEvents) and m.events]
        sent_with[at_once] = msg.watermark  # the audio fed when it was sent
    assert sent_with[True] == 0.04  # at once: after the block that completed it
    assert sent_with[False] >= 0.1  # with the batch (0.1 s after the first message)


class View:
    def __init__(self, *items):
        self.items = list(items)

    def drain(self):
        out, self.items = self.items, []
        return out


def test_keys_pause_and_resume_record_the_pause_as_skipped_and_promise_just_before_the_round():
    clock = Clock(3.0)
    keys = Keys(View(Command("pause")), clock)
    clock.tick()
    (batch,) = keys.poll()
    assert batch.stream == "table" and batch.watermark == 3.0 - 0.01
    assert batch.events == [WarningEvent(t=3.0, message="paused by the table")]
    keys.view.items = [Command("resume")]
    clock.at = 7.5
    clock.tick()
    (batch,) = keys.poll()
    assert batch.events == [SkippedEvent(t=3.0, what=w, start=3.0, stop=7.5, reason="paused by the table")
                            for w in ("video", "audio")]
    assert keys.paused_at is None and not keys.quit_asked


def test_a_table_answer_is_dated_at_the_round_and_new_game_ends_the_session():
    clock = Clock(4.12341)
    answer = DecisionEvent(t=0.0, first="aki")
    keys = Keys(View(answer, Command("new_game")), clock)
    clock.tick()
    (batch,) = keys.poll()
    assert [e.t for e in batch.events] == [4.1234] and batch.events[0].first == "aki"
    assert keys.new_game and keys.quit_asked


def test_device_status_promises_no_more_than_the_camera_the_microphones_and_the_clock():
    clock = Clock(10.0)
    clock.tick()
    statuses = queue.Queue()
    camera = SimpleNamespace(promise=lambda: 9.0, drain_events=lambda: [])
    tap = SimpleNamespace(ended=False, heard_until=8.0)
    audio = SimpleNamespace(stall_s=0.5)
    hearing = SimpleNamespace(done=False)
    marks, warned = {}, []
    status = DeviceStatus(camera, tap, audio, statuses, clock, warned.append, hearing, marks)
    (batch,) = status.poll()
    assert batch.stream == "sources" and batch.events == [] and batch.watermark == 8.0 - 1e-4
    assert marks["sources"] == batch.watermark


def test_microphones_lost_say_so_and_hearings_promise_then_follows_the_clock():
    clock = Clock(10.0)
    clock.tick()
    statuses = queue.Queue()
    statuses.put(Status(t=9.5, state="lost", detail="no audio for 0.5 s"))
    camera = SimpleNamespace(promise=lambda: 9.9, drain_events=lambda: [])
    tap = SimpleNamespace(ended=False, heard_until=5.0)
    status = DeviceStatus(camera, tap, SimpleNamespace(stall_s=0.5), statuses, clock, lambda w: None,
                          SimpleNamespace(done=False), {})
    sources, hearing = status.poll()
    assert [(e.type, e.state, e.t) for e in sources.events] == [("audio_status", "lost", 9.5)]
    # the promise was taken before the news (the microphones still counted as heard to 5.0)
    assert sources.watermark == 5.0 - 1e-4
    assert hearing.stream == "hearing" and hearing.watermark == 10.0 - 0.5 - 1.0 and hearing.events == []
    # next round: lost, so the microphones' bound follows the clock too
    (sources, _) = status.poll()
    assert sources.watermark == 10.0 - 0.5 - 1.0 - 1e-4

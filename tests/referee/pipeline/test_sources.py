"""The sources every mode shares (``referee.pipeline.sources``), each against a stand-in for
what feeds it: what a poll gives, the promise, the close, and the errors."""

from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

from referee.pipeline.hearing import HeardEvents, HearingDone, HearingFailed, HearingReady
from referee.pipeline.sources import FixedSource, HearingSource, ListenerSource, Unheard, VideoFileSource
from referee.pipeline.driver import Batch
from session.errors import MediaError, RefereeError
from session.events import SkippedEvent, WarningEvent


def shout(t, player="aki"):
    return {"t": t, "type": "shout", "player": player, "words": ["tako"]}


def test_a_fixed_source_gives_its_batches_once_then_is_done():
    batches = [Batch("setup", [WarningEvent(t=0.0, message="no token zone")], closed=True)]
    src = FixedSource(batches)
    assert not src.done
    assert src.poll() == batches and src.done
    assert src.poll() == []


# ---------------------------------------------------------------- hearing
class Job:
    """The hearing job: ``poll`` gives the messages of one step, ``wait`` all that are left."""

    def __init__(self, *steps):
        self.steps = [list(s) for s in steps]
        self.waited = 0

    def poll(self):
        return self.steps.pop(0) if self.steps else []

    def wait(self):
        self.waited += 1
        out = [m for s in self.steps for m in s]
        self.steps = []
        return out


def test_hearing_gives_setup_then_events_on_the_video_clock_then_closes():
    warned, heard = [], []
    job = Job([HearingReady(warnings=("channel 2 is silent",))],
              [HeardEvents([shout(1.0), {"t": 1.5, "type": "warning", "message": "clipping"}], watermark=2.0)],
              [HearingDone(events=[shout(3.0, "ben")], end=4.0)])
    src = HearingSource(job, warned.append, av_offset=0.25, setup=[], on_heard=lambda ev, mark: heard.append(mark))
    setup = src.poll()
    assert [(b.stream, b.closed) for b in setup] == [("setup", True)]
    assert [e.message for e in setup[0].events] == ["channel 2 is silent"] and src.ready is not None
    (batch,) = src.poll()
    assert batch.stream == "hearing" and batch.watermark == 2.25 and not batch.closed
    assert [e.t for e in batch.events] == [1.25, 1.75]  # moved by the audio-video offset
    assert heard == [2.25]
    assert warned == ["channel 2 is silent", "at 1.75 s: clipping"]  # said as they come
    (end,) = src.poll()
    assert end.closed and [e.t for e in end.events] == [3.25] and src.done and src.finished.end == 4.0


def test_hearing_keeps_only_what_is_perceived_and_waits_only_when_asked():
    job = Job([HeardEvents([shout(0.5), shout(2.0)], watermark=2.5)], [HearingDone(end=3.0)])
    src = HearingSource(job, lambda w: None, keep=lambda e: e.t >= 1.0)
    assert [e.t for e in src.poll()[0].events] == [2.0]  # live: the warm-up's shout dropped
    assert job.waited == 0
    (end,) = src.poll(wait=True)
    assert end.closed and job.waited == 1 and src.done


def test_hearing_that_could_not_start_raises_its_own_error():
    error = MediaError("seats.wav: no such file")
    src = HearingSource(Job([HearingFailed(error)]), lambda w: None)
    with pytest.raises(MediaError) as raised:
        src.poll()
    assert raised.value is error


def test_unheard_says_the_audio_ended_before_the_video():
    warned = []
    src = HearingSource(Job(), warned.append, av_offset=0.0)
    src.ready = HearingReady()
    skipped = Unheard(src, expected_end=10.0, heard_from=lambda: "seats.wav")(HearingDone(end=6.0))
    assert skipped == [SkippedEvent(t=6.0, what="audio", start=6.0, stop=10.0, reason=warned[0])]
    assert "ends at 6.00 s, the video at 10.00 s" in warned[0]


def test_unheard_keeps_the_events_so_far_after_a_media_error_and_raises_any_other():
    warned = []
    src = HearingSource(Job(), warned.append, av_offset=0.0)
    (skip,) = Unheard(src, 10.0, lambda: "x")(HearingDone(end=4.0, error=MediaError("bad packet")))
    assert (skip.start, skip.stop, skip.what) == (4.0, 10.0, "audio") and "bad packet" in warned[0]
    with pytest.raises(ZeroDivisionError):
        Unheard(src, 10.0, lambda: "x")(HearingDone(end=4.0, error=ZeroDivisionError()))


# ---------------------------------------------------------------- the video file
@dataclass
class Item:
    index: int
    t: float


class Reader:
    def __init__(self, items, skipped_at=None):
        self.items, self.skipped, self.skipped_at = list(items), [], skipped_at or {}

    def get(self):
        item = self.items.pop(0) if self.items else None
        if isinstance(item, Item) and item.index in self.skipped_at:
            self.skipped.append(self.skipped_at[item.index])
        return item


@dataclass
class Stage:
    """The vision stage: a card per frame, a promise one frame behind, a warning once."""

    new_warnings: list = field(default_factory=list)
    fail_at: int | None = None

    def update(self, item):
        if item.index == self.fail_at:
            raise BrokenPipeError("pose worker gone")
        if item.index == 1:
            self.new_warnings.append("the card zone is dark")
        return [WarningEvent(t=item.t, message=f"frame {item.index}")]

    def take_warnings(self):
        out, self.new_warnings = self.new_warnings, []
        return out

    def watermark(self, t):
        return t - 0.1

    def finish(self):
        return [WarningEvent(t=9.0, message="last")]


INFO = SimpleNamespace(fps=10.0, frames=3, duration=1.0)


def test_a_video_gives_one_frame_per_poll_then_its_last_events_and_closes():
    warned, progress = [], []
    src = VideoFileSource(Reader([Item(0, 0.0), Item(1, 0.1), Item(2, 0.2)]), Stage(), INFO, warned.append,
                          on_progress=lambda n, total: progress.append((n, total)))
    polls = [src.poll() for _ in range(4)]
    assert [[(b.stream, b.watermark, b.closed) for b in p] for p in polls] == [
        [("vision", -0.1, False)], [("vision", 0.0, False)], [("vision", pytest.approx(0.1), False)],
        [("vision", None, True)]]
    assert [e.message for e in polls[3][0].events] == ["last"]
    assert src.done and src.frames == 3 and progress == [(1, 3), (2, 3), (3, 3)]
    assert warned == ["the card zone is dark"]


def test_packets_the_reader_could_not_decode_are_skipped_stretches_in_time():
    warned = []
    src = VideoFileSource(Reader([Item(0, 0.0), Item(1, 0.5)], skipped_at={1: "bad packet"}), Stage(), INFO,
                          warned.append)
    src.poll()
    (batch,) = src.poll()
    skip = batch.events[0]
    assert isinstance(skip, SkippedEvent) and (skip.start, skip.stop, skip.what) == (0.0, 0.5, "video")
    assert warned[0] == "bad packet"


def test_a_decoding_error_after_some_frames_skips_the_rest_and_before_any_is_raised():
    warned = []
    src = VideoFileSource(Reader([Item(0, 0.0), MediaError("broken stream")]), Stage(), INFO, warned.append)
    src.poll()
    (end,) = src.poll()
    assert end.closed and src.done
    rest = end.events[0]
    assert isinstance(rest, SkippedEvent) and (rest.start, rest.stop) == (0.0, 1.0)
    assert warned == ["broken stream; the rest of the video is skipped"]
    with pytest.raises(MediaError):
        VideoFileSource(Reader([MediaError("not a video")]), Stage(), INFO, warned.append).poll()


def test_a_pose_worker_that_stopped_is_one_clear_error():
    src = VideoFileSource(Reader([Item(0, 0.0)]), Stage(fail_at=0), INFO, lambda w: None)
    with pytest.raises(RefereeError, match="pose worker process stopped at frame 0.*--workers 0"):
        src.poll()


# ---------------------------------------------------------------- referee listen
class Listener:
    def __init__(self):
        self.t = 0.0

    def update(self, block):
        self.t += 1.0
        return [shout(self.t - 0.5)] if block == "loud" else []

    def watermark(self):
        return self.t - 0.2

    def close_window(self):
        return [shout(self.t, "ben")]


def test_a_listener_gives_one_block_per_poll_and_at_the_end_the_words_still_open():
    src = ListenerSource(["quiet", "loud"], Listener())
    first, second, end = src.poll(), src.poll(), src.poll()
    assert (first[0].events, first[0].watermark) == ([], 0.8)
    assert [e.t for e in second[0].events] == [1.5] and second[0].watermark == 1.8
    assert end[0].closed and [e.player for e in end[0].events] == ["ben"] and src.done


def test_a_listener_stopped_early_still_gives_the_words_still_open():
    src = ListenerSource(iter(["loud", "loud", "loud"]), Listener())
    src.poll()
    (end,) = src.end()
    assert end.closed and src.done and [e.t for e in end.events] == [1.0]

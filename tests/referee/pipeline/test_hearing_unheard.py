"""The hearing job with no seat to hear (a calibration without seat channels: one room
microphone, one laptop). A live input is still read to its end and the watermark follows it:
unread, the live referee's audio clock stayed at 0 s and every verdict waited for the end of
the game. A recording is not read for nothing (the replay does not wait on it)."""

from __future__ import annotations

import rules
import numpy as np

from audio.capture import Block
from audio.hearing import HearingPlan
from referee.pipeline.hearing import hear

RATE = 16000


class Sink:
    def __init__(self):
        self.messages = []

    def send(self, msg):
        self.messages.append(msg)


class LiveInput:
    """3 s of a one-channel input in 0.1-s blocks, as the live tap gives them."""

    def __init__(self):
        self.read = 0

    def __iter__(self):
        for k in range(30):
            self.read += 1
            yield Block(k * 1600, np.zeros((1600, 1), np.float32), RATE)


def _plan():
    return HearingPlan(game="ikatako", mode="versus", channels={}, names=("aki", "ben"), vocab=rules.vocabulary("ikatako", "versus"))


def test_a_live_input_nobody_is_heard_on_is_read_and_its_watermark_moves():
    sink, source = Sink(), LiveInput()
    hear(sink, lambda warnings: (source, "mic"), _plan(), batch_s=0.5)
    kinds = [m.kind for m in sink.messages]
    assert kinds[0] == "setup" and kinds[-1] == "done"
    assert sink.messages[0].listened is False
    assert "calibration: no seat has an audio channel; shouts are not heard" in sink.messages[0].warnings
    marks = [m.watermark for m in sink.messages if m.kind == "events"]
    assert all(m.events == [] for m in sink.messages if m.kind == "events")
    assert marks == sorted(marks) and marks[0] <= 0.5 and marks[-1] >= 2.5
    assert source.read == 30 and sink.messages[-1].end == 3.0


def test_a_recording_nobody_is_heard_on_is_not_read():
    sink, source = Sink(), LiveInput()
    source.offline = True
    hear(sink, lambda warnings: (source, "seats.wav"), _plan())
    assert [m.kind for m in sink.messages] == ["setup", "done"] and source.read == 0


def test_a_game_without_spoken_calls_heard_on_no_microphone_says_nothing_about_shouts():
    """TAKOYAKI or TORATANU live needs no microphone: "shouts are not heard" would only puzzle
    the table (a game with calls still says it)."""
    sink, source = Sink(), LiveInput()
    plan = HearingPlan(game="toratanu", mode=None, channels={}, names=("aki", "ben"), vocab=None)
    hear(sink, lambda warnings: (source, "mic"), plan, batch_s=0.5)
    assert sink.messages[0].kind == "setup" and sink.messages[0].listened is False
    assert not [w for w in sink.messages[0].warnings if "shouts are not heard" in w]

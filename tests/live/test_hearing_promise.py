"""The hearing job keeps its watermark's promise on the demo: no shout (or status) it sends
is earlier than a watermark it sent before, with the live batch (the tight walk-back bound
of :meth:`audio.onset.OnsetDetector.walk_back_bound`), and asking for the watermark changes
nothing that is heard (byte for byte)."""

from __future__ import annotations

import functools
import json

import pytest

from tests.live.helpers import DEMO

CAL = DEMO / "calibration.json"


class _Sink:
    def __init__(self):
        self.msgs = []

    def send(self, msg):
        self.msgs.append(msg)


def _hear(batch_s: float, ends: list | None = None) -> list:
    from audio.listen import Listener
    from calibration import load
    from referee.pipeline.hearing import hear
    from referee.pipeline.recording import open_audio
    from referee.replay import ReplaySettings, hearing_plan

    cal = load(CAL)
    plan = hearing_plan(cal, "ikatako", "versus", ReplaySettings(), CAL)
    sink = _Sink()
    watermark = Listener.watermark

    def seen(self):  # the audio fed when the watermark was given, beside it
        mark = watermark(self)
        if ends is not None:
            ends.append((self.offset + self._end / self.rate, mark))
        return mark

    Listener.watermark = seen
    try:
        hear(sink, functools.partial(open_audio, DEMO / "session.mp4", DEMO / "seats.wav", True,
                                 rate=cal.audio.rate if cal.audio else None, leakage_from=plan.leakage_from), plan, batch_s)
    finally:
        Listener.watermark = watermark
    return sink.msgs


@pytest.fixture(scope="module")
def heard():
    if not (DEMO / "seats.wav").is_file():
        pytest.skip("the demo recording is missing")
    from referee.live.run import HEARING_BATCH_S

    ends: list = []
    return _hear(HEARING_BATCH_S, ends), _hear(1000.0), ends


def _events(msgs) -> list[dict]:
    out = []
    for m in msgs:
        if m.kind in ("events", "done"):
            out += m.events
    return out


def test_no_event_is_earlier_than_a_watermark_sent_before_it(heard):
    msgs, _, _ = heard
    mark, broken, marks = float("-inf"), [], 0
    for m in msgs:
        if m.kind not in ("events", "done"):
            continue
        for e in m.events:
            if e["t"] < mark:
                broken.append((e["type"], e["t"], mark))
        if m.kind == "events":
            mark, marks = max(mark, m.watermark), marks + 1
    shouts = [e for e in _events(msgs) if e["type"] == "shout"]
    assert len(shouts) >= 30 and marks > 300  # the demo's 35 shouts, a watermark every 0.04 s
    assert broken == []


def test_the_watermark_is_tight_where_nobody_speaks(heard):
    """Outside speech the promise is about the last sample fed, not ``refine_max_s`` (and the
    smoothing) behind it as before; during speech it holds at the utterance."""
    _, _, ends = heard
    behind = sorted(end - mark for end, mark in ends)
    assert len(behind) > 300
    assert behind[len(behind) // 2] < 0.01  # median: within 10 ms of the audio fed (was 0.256 s)
    assert behind[0] >= 0  # never a promise about audio not heard yet
    assert behind[-1] < 3.5  # at most an utterance (max_utterance_s) and its walk-back


def test_asking_for_the_watermark_changes_nothing_heard(heard):
    a, b, _ = heard
    assert json.dumps(_events(a), sort_keys=True) == json.dumps(_events(b), sort_keys=True)

"""The enrolled voices read a live word before its end is decided (``ListenParams.early_voice_s``,
:mod:`audio.early_voice`): the same events as reading it at release, on the demo's recording
fed block by block as live audio, and an early reading is used only on the very same samples."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from audio.early_voice import EarlyVoices, uses_after
from audio.enroll import Said
from tests.live.helpers import DEMO

CAL = DEMO / "calibration.json"


def _heard_live(early_voice_s):
    from audio import hearing
    from calibration import load
    from referee.pipeline.recording import open_audio
    from referee.replay import ReplaySettings, hearing_plan

    cal = load(CAL)
    plan = hearing_plan(cal, "ikatako", "versus", ReplaySettings(), CAL)
    warnings: list[str] = []
    source, _ = open_audio(DEMO / "session.mp4", DEMO / "seats.wav", True, warnings,
                           rate=cal.audio.rate if cal.audio else None, leakage_from=plan.leakage_from)
    listener = hearing.make_listener(plan, source, warnings)
    # (a live listener's settings, fed the recording's blocks in order)
    listener.p = replace(listener.p, hold_s=0.0, early_s=hearing.LIVE_EARLY_S, early_voice_s=early_voice_s)
    events = [e for block in source for e in listener.update(block)]
    return events + listener.close_window(), listener


def test_the_demo_heard_live_gives_the_same_events_with_the_early_reading():
    if not (DEMO / "seats.wav").is_file():
        pytest.skip("the demo recording is missing")
    from audio.hearing import LIVE_EARLY_VOICE_S

    late, _ = _heard_live(None)
    early, listener = _heard_live(LIVE_EARLY_VOICE_S)
    assert early == late
    shouts = sum(e["type"] == "shout" for e in early)
    counts = listener.early_voices.counts
    # most words were read before their end was decided (measured: 28 of 35)
    assert counts["used"] >= shouts // 2, counts
    assert counts["made"] >= counts["used"] + counts["wasted"]


def _said(n=1600, after=0.0):
    rng = np.random.default_rng(1)
    return rng.standard_normal(n), rng.standard_normal(800), np.full(160, after)


def test_an_early_reading_is_used_only_on_the_same_samples():
    quiet, noisy = Said(np.zeros((3, 2))), Said(np.zeros((3, 2)), noise=np.ones(2))
    assert not uses_after(quiet) and uses_after(noisy)
    ev = EarlyVoices()
    assert ev.first_try((0, 10, 20)) and not ev.first_try((0, 10, 20))
    ev.keep((0, 10, 20), _said(), quiet, "v")
    # a quiet room: the stretch after the word is not compared, more of it arrived changes nothing
    assert ev.take((0, 10, 20), _said(after=1.0)) == ("v", quiet)
    ev.keep((0, 10, 20), _said(), noisy, "v")
    assert ev.take((0, 10, 20), _said(after=1.0)) is None  # in noise it is
    ev.keep((0, 10, 20), _said(), quiet, "v")
    assert ev.take((0, 10, 20), _said(n=1700)) is None  # another utterance's samples
    assert ev.take((0, 10, 21), _said()) is None  # never read early
    assert ev.counts == {"made": 3, "used": 1, "wasted": 2}

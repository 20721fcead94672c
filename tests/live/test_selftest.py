"""The pre-game self-test: a pure pass/fail per seat over events and levels."""

from __future__ import annotations

import numpy as np
import pytest

from session.errors import DeviceError
from session.events import HandEvent, ShoutEvent
from referee.live.selftest import SelfTestParams, evaluate, render, render_text, require_pass

PLAYERS = ["aki", "ben"]


def _good(player, t=1.0, word="ika"):
    return [ShoutEvent(t=t, player=player, words=(word,)),
            HandEvent(t=t + 1, player=player, side="left", state="up"),
            HandEvent(t=t + 2, player=player, side="right", state="up")]


def test_a_seat_that_speaks_and_raises_both_hands_passes():
    r = evaluate(PLAYERS, _good("aki") + _good("ben"), {"aki": [-60, -22.0], "ben": [-30.5]})
    assert r.passed and r.failed == []
    assert [(s.level_db, s.word, s.left, s.right) for s in r.seats] == [(-22.0, "ika", True, True),
                                                                       (-30.5, "ika", True, True)]
    assert require_pass(r) == []


def test_each_missing_check_fails_the_seat_with_a_reason():
    events = _good("aki") + [HandEvent(t=1, player="ben", side="left", state="up")]
    r = evaluate(PLAYERS, events, {"aki": [-55.0]})
    aki, ben = r.seats
    assert aki.problems == ["microphone too quiet (-55 dB < -40): is it plugged in and near the mouth?"]
    assert ben.problems == ["no microphone signal", "no word heard", "pose did not see the right arm go up"]
    assert not r.passed and r.failed == ["aki", "ben"]


def test_clipping_and_a_wrong_word_fail():
    r = evaluate(["aki"], _good("aki", word="tako"), {"aki": [0.0]}, params=SelfTestParams(word="ika"))
    assert r.seats[0].problems == ["microphone clipping: turn its gain down", "heard 'tako', expected 'ika'"]
    r = evaluate(["aki"], _good("aki", word="tako") + _good("aki", 5, "ika"), {"aki": [-20]},
                 params=SelfTestParams(word="ika"))
    assert r.passed  # the second try said it


def test_the_offset_is_pending_until_measured_and_a_wild_one_fails_the_table():
    good = _good("aki")
    assert evaluate(["aki"], good, {"aki": [-20]}).passed
    assert "pending" in "\n".join(render_text(evaluate(["aki"], good, {"aki": [-20]})))
    r = evaluate(["aki"], good, {"aki": [-20]}, offset_ms=450.0)
    assert not r.passed and r.failed == [] and "+450 ms apart" in r.table_problems[0]
    assert "+450 ms" in "\n".join(render_text(r))


def test_a_failed_seat_refuses_to_start_unless_forced():
    r = evaluate(PLAYERS, _good("aki"), {"aki": [-20]})
    with pytest.raises(DeviceError, match="ben: no microphone signal.*--force"):
        require_pass(r)
    warnings = require_pass(r, force=True)
    assert len(warnings) == 1 and warnings[0].startswith("started despite a failed self-test: ben")


def test_the_text_and_the_image_show_each_seat():
    r = evaluate(PLAYERS, _good("aki"), {"aki": [-20]})
    text = render_text(r)
    assert any(line.startswith("aki") and line.endswith("PASS") for line in text)
    assert any(line.startswith("ben") and line.endswith("FAIL") for line in text)
    a, b = render(r), render(r)
    assert a.shape == (768, 1360, 3) and np.array_equal(a, b)
    assert not np.array_equal(render(evaluate(PLAYERS, _good("aki") + _good("ben"), {"aki": [-20], "ben": [-20]})), a)


def test_the_live_self_test_sink_maps_channel_peaks_to_seats_and_waits_to_be_seen():
    from referee.live.selftest_sink import SELFTEST_SHOW_S, SelfTestSink

    sink = SelfTestSink(PLAYERS, {"aki": 1, "ben": 0}, SelfTestParams())
    for ev in _good("aki") + _good("ben"):
        sink.event(ev)
    sink.status({"now": 5.0, "peaks": [-25.0, -60.0]})
    assert [s.level_db for s in sink.result().seats] == [-60.0, -25.0] and not sink.result().passed
    sink.status({"now": 6.0, "peaks": [-25.0, -20.0]})
    assert sink.result().passed and not sink.done(6.0) and sink.done(6.0 + SELFTEST_SHOW_S)
    assert sink.text(None)[-1].startswith("all seats pass")

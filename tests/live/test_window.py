"""The live window: a pure, deterministic render of the live state, and the window sink."""

from __future__ import annotations

import numpy as np
import pytest

from session.errors import DeviceError
from session.events import CardEvent, HandEvent, SessionHeader, ShoutEvent, WarningEvent
from vision.video import Frame
from referee.live.state import LiveState, StateSink
from referee.live.window import GREEN, LiveWindow, WindowParams, render
from tests.live.helpers import demo_calibration, demo_record, drive

P = WindowParams()


def _state(until=None, **status):
    state = LiveState(demo_calibration())
    drive(StateSink(state), until=until, status=status or None)
    return state


def test_render_is_deterministic_and_the_window_size():
    a, b = render(_state(until=12.0)), render(_state(until=12.0))
    assert a.shape == (P.height, P.width, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)


def test_render_changes_with_what_the_table_must_see():
    base = _state(until=12.0)
    img = render(base)
    hand = _state(until=12.0)
    hand.event(HandEvent(t=12.0, player="aki", side="left", state="up"))
    assert not np.array_equal(render(hand), img)
    paused = _state(until=12.0)
    paused.paused = True
    assert not np.array_equal(render(paused), img)
    # a verdict is drawn in the panel right of the camera image
    assert not np.array_equal(render(_state(until=30.0))[:220, P.camera_width:], img[:220, P.camera_width:])


def test_the_headline_is_green_when_someone_was_first():
    state = _state(until=5.6)  # card 3's verdict (final at the next card, 5.53 s): ben first
    assert state.headline is not None and state.headline.text.startswith("ben +")
    panel = render(state)[40:110, P.camera_width + 16:]
    green = np.all(np.abs(panel.astype(int) - GREEN) < 30, axis=2)
    assert green.sum() > 200


def test_the_seat_hands_and_words_are_drawn_inside_the_seat_box():
    state = _state(until=1.0)
    quiet = render(state)
    state.event(ShoutEvent(t=1.0, player="ben", words=("tako",)))
    state.event(HandEvent(t=1.0, player="ben", side="right", state="up"))
    img = render(state)
    diff = np.any(img != quiet, axis=2)
    ys, xs = np.nonzero(diff)
    # ben's box is x 320..640 of a 1280 wide camera image, scaled to the window's camera area
    k = P.camera_width / 1280
    assert xs.min() >= 320 * k and xs.max() < 640 * k and ys.max() < P.camera_width * 9 // 16


def test_a_camera_frame_is_shown_scaled_into_the_left_area():
    state = _state(until=1.0)
    state.frame(Frame(0, 1.0, np.full((720, 1280, 3), (10, 200, 10), np.uint8)))
    img = render(state)
    assert tuple(img[300, 700]) == (10, 200, 10)  # inside the camera area, away from the boxes


def test_the_status_line_counts_and_warnings_reach_the_image():
    a = render(_state(until=1.0, camera={"fps": 30.0, "dropped": 0, "skipped": 0}))
    s = _state(until=1.0, camera={"fps": 30.0, "dropped": 4, "skipped": 9})
    assert s.status_line() == "camera 30 fps  dropped 4  skipped 9"
    s.event(WarningEvent(t=1.0, message="camera 0 lost: stopped delivering frames"))
    b = render(s)
    assert not np.array_equal(a[P.height - 80:], b[P.height - 80:])


def test_level_meters_follow_the_seat_channels():
    s = _state(until=1.0)
    s.status({"levels": [-20.0, -120.0, -60.0, -3.5]})
    assert [s.seats[p].level_db for p in s.players] == [-20.0, -120.0, -60.0, -3.5]


def test_without_a_display_the_window_is_one_clear_error(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(DeviceError, match="--no-window"):
        LiveWindow(LiveState()).open()


def test_keys_pressed_in_the_window_come_out_as_events_for_the_pipeline():
    win = LiveWindow(LiveState(demo_calibration()))
    drive(win, until=10.0)
    win.press("space")
    win.press("x")
    win.press("1")
    out = win.drain()
    assert out[0].name == "pause" and win.state.paused
    assert out[1:] and all(e.type == "correction" for e in out[1:])
    assert win.drain() == []
    assert win.snapshot().shape == (P.height, P.width, 3)


def test_the_running_scoreboard_is_the_judges_state():
    """The demo's record through the pipeline (one stream, verdicts when final): after each
    verdict the seats show the judge's own state — score, points and penalties as values, the
    three columns of the terminal table's scoreboard (score = points - penalties) — and at
    the end the result line's; nothing is recomputed from the verdict lines."""
    from referee.live.state import scoreboard
    from referee.pipeline.core import Pipeline
    from rules import ikatako as rk

    record = demo_record()
    state = LiveState(demo_calibration())
    sink = StateSink(state)
    pipe = Pipeline(["record"], [sink])
    state.scores_from = lambda: scoreboard(pipe.judge)
    seen = []
    sink.verdicts = lambda lines: (StateSink.verdicts(sink, lines), seen.append(
        ({p: (s.score, s.points, s.penalties) for p, s in state.seats.items()}, pipe.judge.state.snapshot())))
    pipe.start(record.header)
    for ev in record.events:
        pipe.push("record", [ev])
        pipe.advance("record", ev.t)
    judgement = pipe.finish()
    assert len(seen) > 5
    for shown, snap in seen:
        for p, (score, points, pens) in shown.items():
            assert points == sum(rk.value(c) for c in snap["points"][p])
            assert pens == sum(rk.value(c) for c in snap["penalties"][p])
            assert score == points - pens
    assert any(t or pn for shown, _ in seen for _, t, pn in shown.values())  # not all zero
    assert any(pn for shown, _ in seen for _, _, pn in shown.values())  # a penalty shown
    result = next(v for v in judgement.lines if v["type"] == "result")
    for key in ("scores", "points", "penalties"):  # the table's scoreboard columns, the same numbers
        attr = "score" if key == "scores" else key
        assert {p: getattr(state.seats[p], attr) for p in state.players} == result[key]
    assert state.finished


def test_a_final_verdict_after_its_preview_counts_once_and_a_revision_is_marked():
    state = LiveState(demo_calibration())
    state.start(demo_record().header)
    v = {"type": "verdict", "t": 2.0, "card": "3", "first": "ben", "times": {"ben": 0.52}, "tie": [],
         "wrong": [], "missed": [], "why": {}, "taken_by": "ben", "penalties": {}}
    state.verdicts_in([dict(v, provisional=True)])
    state.verdicts_in([v])
    assert state.verdicts == 1 and len(state.history) == 1
    state.verdicts_in([dict(v, first="aki", taken_by="aki", times={"aki": 0.6})])
    assert state.verdicts == 2 and state.headline.text == "revised: aki +600 ms"


def test_announcements_show_the_first_player_then_the_wrong_ones_under_it():
    state = LiveState(demo_calibration())
    state.start(demo_record().header)
    base = {"type": "announce", "card": "tako", "card_t": 5.533}
    state.announce([dict(base, what="first", player="chie", time=0.62, margin=0.1, t=6.3)])
    assert state.headline.text == "chie +620 ms" and state.headline.provisional
    state.announce([dict(base, what="wrong", player="aki", why="raised right hand, expected left hand", t=8.6)])
    assert state.headline.text == "chie +620 ms" and state.headline.notes == ["aki wrong: raised right hand, expected left hand"]
    state.announce([dict(base, card="2", card_t=26.6, what="tie", players=["ben", "dai"], time=0.5, t=27.2)])
    assert state.headline.text == "tie: ben, dai" and state.headline.kind == "tie"


def test_events_seen_early_show_at_once_and_an_older_released_one_does_not_turn_them_back():
    state = LiveState(demo_calibration())
    sink = StateSink(state)
    sink.start(demo_record().header)
    up = HandEvent(t=10.0, player="aki", side="left", state="up")
    down = HandEvent(t=11.0, player="aki", side="left", state="down")
    sink.seen([up])
    assert state.seats["aki"].hands["left"]
    sink.seen([down])
    sink.event(up)  # the merge releases the older event later
    assert not state.seats["aki"].hands["left"]
    sink.seen([CardEvent(t=12.0, card="ika")])
    sink.event(CardEvent(t=9.0, card="tako"))
    assert state.card == "ika"


def test_the_window_sink_takes_a_frame_with_its_events_without_deadlocking():
    import threading

    win = LiveWindow(LiveState(demo_calibration()))
    win.start(demo_record().header)
    done = threading.Event()

    def feed():
        win.frame(Frame(0, 1.0, np.zeros((720, 1280, 3), np.uint8)), [HandEvent(t=1.0, player="aki", side="left", state="up")])
        done.set()

    threading.Thread(target=feed, daemon=True).start()
    assert done.wait(5.0) and win.state.seats["aki"].hands["left"]


def test_a_first_unknown_reads_as_such_not_as_a_tie():
    from referee.live.headlines import announce_headline, verdict_headline

    v = {"card": "ika", "t": 5.0, "first": None, "tie": ["chie", "ben"], "unsettled": True,
         "first_unknown": ["ben"], "wrong": [], "missed": [], "why": {}, "times": {"chie": 0.6}}
    h = verdict_headline(v)
    assert h.text == "first unknown: ben not heard" and h.kind == "tie"
    assert h.notes[0] == "ben could have been first; chie fastest heard: t+seat settles"
    a = announce_headline({"what": "tie", "players": ["chie", "ben"], "first_unknown": ["ben"], "card": "ika", "t": 5.6})
    assert a.text == "first unknown: ben not heard" and a.notes == ["chie, ben: settle with the tie key"]
    plain = dict(v, first_unknown=None)
    assert verdict_headline(plain).text == "tie: chie, ben (unsettled)"


def test_a_coop_player_not_heard_reads_as_not_judged_not_as_a_miss():
    from referee.live.headlines import verdict_headline

    why = "not heard: audio missing from 4.50 s to 8.50 s (device unplugged); no miss"
    v = {"card": "2", "t": 5.0, "player": "ben", "ok": False, "why": "said nothing, expected 5",
         "unjudged": {"ben": why}, "miss_piles": 0}
    h = verdict_headline(v)
    assert h.text == "ben not heard" and h.kind == "tie"
    assert h.notes == ["no miss, no score: play on", "audio missing from 4.50 s to 8.50 s (device unplugged)"]
    heard = {k: x for k, x in v.items() if k != "unjudged"}  # heard saying nothing: a miss, as before
    h = verdict_headline(heard)
    assert h.text == "ben MISS" and h.kind == "wrong" and h.notes == ["said nothing, expected 5"]


def test_the_adaptive_pose_rate_is_status_not_a_warning():
    """A stride change is the referee keeping up, not a fault: "WARNING: pose every 6 frames:
    the pose workers keep up" in orange made a table wonder what was wrong."""
    from referee.live.terminal import render_text

    s = _state(until=1.0, camera={"fps": 30.0, "dropped": 0, "skipped": 0})
    s.event(WarningEvent(t=1.0, message="pose every 6 frames: the pose workers keep up (lag 41 ms)",
                         extra={"source": "pose", "pose_every": 6, "lag_ms": 41}))
    assert not s.warnings and s.status_line() == "camera 30 fps  dropped 0  skipped 0  pose every 6 frames"
    assert not any("WARNING" in line for line in render_text(s))
    s.event(WarningEvent(t=1.5, message="camera 0 lost: stopped delivering frames"))
    assert list(s.warnings) == ["camera 0 lost: stopped delivering frames"]


def test_a_verdicts_reasons_are_drawn_whole_not_cut_mid_sentence():
    import cv2

    from referee.live.window import NOTE_LINES, _note_lines

    notes = ["chie wrong: raised left hand, expected right hand; said tako, expected ika",
             "ben wrong: raised right hand, expected left hand; said ika, expected tako"]
    lines = _note_lines(cv2, notes, 340)
    assert 4 < len(lines) <= NOTE_LINES  # (two lines each cut "said tako," off before)
    assert " ".join(line for note, line in lines if note == notes[0]).split() == notes[0].split()
    many = _note_lines(cv2, notes * 4, 340)
    assert len(many) == NOTE_LINES and many[-1][1].endswith(" ...")

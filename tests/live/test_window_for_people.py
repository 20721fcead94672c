"""The live window and the terminal view as a table reads them (issue 33, item 5): a picture
that scales to any window, one meaning of "+N ms" and of "score" in every view, a legend for
the game's words, the final result held until a key, and the voice's state on screen."""

from __future__ import annotations

import threading
import time

import numpy as np

from referee.judging.ikatako_words import _first_cell, _first_text
from referee.judging.verdicts import verdict_of
from referee.live.state import LiveState, StateSink, legend, result_text, verdict_headline
from referee.live.terminal import TerminalParams, render_text
from referee.live.window import PANEL, LiveWindow, WindowParams, fit_image, render, window_size
from tests.live.helpers import demo_calibration, drive

P = WindowParams()
#: card 2 of the demo record: chie first at 620 ms, 190 ms before the next correct player
LINE = {"type": "verdict", "t": 6.268, "card": "tako", "troubles": [], "expected": {"hands": "left", "say": ["tako"]},
        "first": "chie", "correct": ["chie", "ben"], "times": {"chie": 0.62, "ben": 0.81}, "margin": 0.19,
        "wrong": ["aki"], "why": {"aki": "raised right hand, expected left hand"}, "missed": [],
        "penalties": {"aki": "3"}}


def _state(until=None, **kw):
    state = LiveState(demo_calibration(), **kw)
    drive(StateSink(state), until=until)
    return state


def test_the_picture_fits_a_720p_screen_and_scales_to_a_smaller_window():
    img = render(_state(until=12.0))
    assert img.shape[:2] == (720, 1280)
    small = fit_image(img, (1024, 600))
    assert small.shape[:2] == (600, 1024)
    # 16:9 kept: 1024 wide is 576 high, the 24 rows left are bars of the panel colour
    assert (small[:12] == PANEL).all() and (small[-12:] == PANEL).all()
    assert not (small[12:588] == PANEL).all()
    assert fit_image(img, (1280, 720)) is img


def test_the_window_opens_at_the_largest_16_9_size_the_screen_holds():
    assert window_size(None) == (1280, 720)
    assert window_size((1920, 1080)) == (1280, 720)
    w, h = window_size((1024, 600))
    assert w <= 1024 and h <= 600 - 64 and abs(w / h - 16 / 9) < 0.01


def test_plus_ms_is_the_reaction_time_and_the_lead_is_by_ms_everywhere():
    h = verdict_headline(LINE, "ikatako")
    assert h.text == "chie +620 ms"  # the reaction time (RULES.md), as in the window before
    assert "by 190 ms over the next correct player" in h.notes
    assert "aki turns down 3" in h.notes
    v = verdict_of("ikatako", LINE)
    assert _first_cell(v) == "chie +620 ms, by 190 ms"  # the verdict table (before: "chie +0.190 s", the lead)
    assert _first_text(v) == "chie +620 ms, by 190 ms over the next correct player"  # the report


def test_score_means_the_net_score_in_both_views():
    state = _state()
    result = state.result
    assert result is not None
    lines = render_text(state, TerminalParams(width=79, height=40))
    header = next(line for line in lines if line.startswith("SEAT"))
    assert header.split()[-3:] == ["SCORE", "POINTS", "PENALTIES"]
    for p in state.players:
        row = next(line for line in lines if line.startswith(f"{state.players.index(p) + 1} {p} "))
        score, points, pens = map(int, row.split()[-3:])
        assert (score, points, pens) == (result["scores"][p], result["points"][p], result["penalties"][p])
        assert score == points - pens


def test_the_legend_explains_the_games_words_in_both_views():
    words = " | ".join(legend("ikatako", "versus"))
    for w in ("+N ms: reaction time", "by N ms: lead", "score = points - penalties", "turns down:", "sunk:"):
        assert w in words
    assert "sunk" not in " ".join(legend("mokochaka"))  # IKATAKO's words only where they are met
    state = _state(until=12.0)
    text = "\n".join(render_text(state, TerminalParams(width=79, height=24)))
    assert "turns down: a point card face down (penalty)" in text.replace("\n", " ") and "sunk:" in text
    assert sum("sunk:" in x or "+N ms" in x for x in text.splitlines()) == 2  # two lines of 80 columns
    # the window draws it just above the status lines: no legend, another picture there
    a = render(state)[P.height - 120:P.height - 70]
    state.game = "mokochaka"
    b = render(state)[P.height - 120:P.height - 70]
    assert not np.array_equal(a, b)


def test_the_terminal_view_never_outgrows_an_80x24_terminal():
    state = _state(until=30.0)
    state.warnings.append("camera: ben's seat not seen - hands not judged")
    state.message = "press q again to quit"
    lines = render_text(state, TerminalParams(width=79, height=24))
    assert len(lines) <= 23  # a 24th line would scroll the redraw out of place
    assert lines[0].startswith("table referee") and any(line.startswith("LAST VERDICT") for line in lines)
    assert any(line.startswith("keys:") for line in lines) and any("WARNING" in line for line in lines)
    tall = render_text(state, TerminalParams(width=79, height=40))
    assert len(tall) > len(lines) and any(line == "RECENT:" for line in tall)


def test_the_result_in_words_and_on_the_window():
    state = _state()
    text = result_text(state.result)
    assert text.startswith("winner aki | score: aki 18,") and "sunk: ben, chie, dai" in text
    assert "(the game ended with 18 card(s) left)" in text
    before = render(state)
    state.finished = True
    after = render(state, closing="press any key")
    assert not np.array_equal(before[:495, :880], after[:495, :880])  # the banner over the camera image
    lines = render_text(state, TerminalParams(width=79, height=24))
    assert "GAME OVER: winner aki" in "\n".join(lines)
    assert "sunk: ben, chie, dai" in " ".join(" ".join(lines).split())  # wrapped, not cut at the edge
    assert all(len(line) <= 79 for line in lines) and len(lines) <= 23


def test_voice_off_is_on_the_screen_not_only_on_stderr():
    state = LiveState(demo_calibration(), voice="off: no sound output device")
    assert state.status_line().endswith("VOICE OFF: no sound output device")
    said = ["on"]
    state.voice = lambda: said[0]  # read when drawn: the voice finds its device only when it starts
    assert state.status_line().endswith("voice on")
    said[0] = "off: no sound output device"
    assert "VOICE OFF" in state.status_line()
    assert LiveState(demo_calibration()).status_line() == "camera - fps  dropped 0  skipped 0"


def _held_window(hold_s: float) -> LiveWindow:
    """A window whose drawing thread is a stand-in (no display in the tests): what the hold
    waits for is the key, the time, or that thread's end."""
    state = _state()
    state.finished = True
    win = LiveWindow(state, params=WindowParams(hold_s=hold_s))
    stop = threading.Event()
    win._thread = threading.Thread(target=stop.wait, daemon=True)
    win._thread.start()
    win._stand_in_stop = stop
    return win


def test_the_result_stays_until_a_key_is_pressed():
    win = _held_window(hold_s=30.0)
    threading.Timer(0.3, lambda: win.press("space")).start()
    t0 = time.monotonic()
    assert win.hold() is True
    assert 0.25 < time.monotonic() - t0 < 5.0
    assert win.drain() == []  # the key closed the window: no pause went to the pipeline
    win._stand_in_stop.set()


def test_the_result_closes_by_itself_after_the_hold_and_not_after_n_n():
    win = _held_window(hold_s=0.4)
    assert "closes by itself" not in (win.closing_text() or "")
    t0 = time.monotonic()
    assert win.hold() is True and 0.35 < time.monotonic() - t0 < 3.0
    assert "press any key in this window" in win.closing_text()
    win._stand_in_stop.set()
    again = _held_window(hold_s=30.0)
    again.press("n")
    again.press("n")  # a new game: its window opens at once
    assert again.hold() is False
    again._stand_in_stop.set()
    unopened = LiveWindow(_state(), params=WindowParams(hold_s=30.0))  # never opened: nothing to hold
    assert unopened.hold() is False


def test_no_report_for_a_session_that_never_started(tmp_path):
    """A live start that failed before its record (no judgement) draws no report, and says
    nothing about one; a session that ran gets one (tests/live/test_live_cli.py)."""
    from types import SimpleNamespace

    from referee.live.report import write_live_report
    from tests.live.helpers import DEMO

    res = SimpleNamespace(judgement=None, record=tmp_path / "session.jsonl", out=tmp_path)
    assert write_live_report(res, DEMO / "calibration.json") is None
    assert not (tmp_path / "report.html").exists()

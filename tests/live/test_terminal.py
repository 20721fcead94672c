"""The --no-window terminal view: pure text of the live state, redrawn in place."""

from __future__ import annotations

import io
import os
import time

from session.events import HandEvent, ShoutEvent, WarningEvent
from referee.live.state import LiveState, StateSink
from referee.live.terminal import TerminalParams, TerminalView, _cut, render_text
from tests.live.helpers import demo_calibration, drive


def _state(until=None, **status):
    state = LiveState(demo_calibration())
    drive(StateSink(state), until=until, status=status or None)
    return state


def test_the_text_holds_what_the_window_shows():
    s = _state(until=24.5, camera={"fps": 29.8, "dropped": 2, "skipped": 5}, levels=[-18.0, -42.0, -75.0, -30.0])
    text = "\n".join(render_text(s))
    assert "LAST VERDICT (card salvage):  chie +600 ms" in text
    assert "FIELD: card ika | troubles: mirror | expected: left hand + tako" in text
    rows = [line for line in render_text(s) if line[:1].isdigit()]
    assert [r.split()[1] for r in rows] == ["aki", "ben", "chie", "dai"]
    assert "[#######...] -18 dB" in rows[0] and "silent" in rows[2]
    assert "camera 30 fps  dropped 2  skipped 5" in text
    assert "RECENT:" in text and "card mirror: no point | ben wrong" in text
    assert "\x1b" not in text  # no colour unless asked


def test_hands_and_words_of_the_current_card_are_on_the_seat_row():
    s = _state(until=3.0)
    s.event(HandEvent(t=3.0, player="chie", side="right", state="up"))
    s.event(ShoutEvent(t=3.0, player="chie", words=("ika",)))
    row = next(r for r in render_text(s) if r.startswith("3 chie"))
    assert "L- R+" in row and '"ika"' in row


def test_the_text_is_deterministic_and_colour_only_on_request():
    a, b = render_text(_state(until=12.0)), render_text(_state(until=12.0))
    assert a == b
    coloured = render_text(_state(until=12.0), colour=True)
    assert any("\x1b[32;1m" in line for line in coloured)


def test_cut_counts_visible_characters_only():
    assert _cut("\x1b[31mabcdef\x1b[0m", 3) == "\x1b[31mabc\x1b[0m"
    assert _cut("abc", 10) == "abc"


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_the_view_redraws_in_place_on_a_terminal_and_the_keys_reach_the_pipeline():
    out = _Tty()
    r, w = os.pipe()
    keys = os.fdopen(r, "r")
    view = TerminalView(LiveState(demo_calibration()), params=TerminalParams(fps=50), out=out, keys=keys)
    with view:
        drive(view, until=10.0)
        os.write(w, b" x1")
        deadline = time.monotonic() + 5
        while len(view._produced.queue) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        got = view.drain()
    os.close(w)
    assert got[0].name == "pause" and got[1].type == "correction"
    screen = out.getvalue()
    assert screen.count("\x1b[H") >= 2 and "\x1b[K\r\n" in screen and screen.rstrip().endswith("\x1b[?25h")
    assert "[PAUSED]" in screen.split("\x1b[H")[-1]


def test_not_a_terminal_prints_nothing_while_running():
    out = io.StringIO()
    with TerminalView(LiveState(demo_calibration()), out=out, keys=None) as view:
        drive(view, until=10.0)
        view.event(WarningEvent(t=10.0, message="camera lost"))
    assert out.getvalue() == ""


def test_a_long_recent_verdict_is_wrapped_whole_not_cut():
    """The view cuts every line at its width; a verdict in RECENT longer than that is wrapped
    onto indented lines, so its end ("no reaction was due") is still read."""
    s = _state(until=24.5)
    long = "card mirror: no point | ben wrong: reacted to the trouble card mirror (raised left hand, said tako); no reaction was due"
    s.history.append(long)
    lines = render_text(s, TerminalParams(width=60))
    at = next(i for i, line in enumerate(lines) if line.startswith("  card mirror: no point | ben wrong: reacted"))
    assert all(len(line) <= 60 for line in lines[at:at + 3])
    words = " ".join(line.strip() for line in lines[at:at + 3])
    assert long in words


def test_a_seat_the_camera_lost_is_said_at_once_in_the_text():
    """A ``seat_status`` lost shows as it comes: the table knows that player's hands are not
    judged (and when the seat is seen again)."""
    from session.events import SeatStatusEvent

    s = _state(until=10.0)
    s.event(SeatStatusEvent(t=10.0, player="dai", state="lost", detail="no person found at dai's seat"))
    assert "camera: dai's seat not seen — hands not judged" in "\n".join(render_text(s))
    s.event(SeatStatusEvent(t=12.0, player="dai", state="ok"))
    assert "camera: dai's seat seen again" in "\n".join(render_text(s))

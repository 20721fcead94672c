"""TAKOYAKI live (issue 34 item 6): the griddles drawn as read in the live window
(referee.live.griddles), and ``referee demo --game takoyaki --live`` through the live path."""

from __future__ import annotations

import json

import numpy as np
import pytest

from session import calibration as cal_mod
from session.events import CardEvent, SessionHeader
from referee.commands.demo_files import TAKOYAKI_DEMO
from referee.live.griddles import CARD_BACK, CARD_FACE, board_of, move_text
from referee.live.state import LiveState, StateSink
from referee.live.window import WindowParams, render
from tests.conftest import once

HEADER = SessionHeader(t=0.0, game="takoyaki", mode="versus", players=("aki", "ben"))


def _lines():
    return [json.loads(s) for s in (TAKOYAKI_DEMO / "expected.jsonl").read_text().splitlines() if s.strip()]


def _state(until: float = float("inf"), extra=()):
    state = LiveState(cal_mod.load(TAKOYAKI_DEMO / "calibration.json"), voice="on")
    sink = StateSink(state)
    sink.start(HEADER)
    for line in [v for v in _lines() if v.get("type") == "verdict" and v["t"] <= until] + list(extra):
        sink.event(CardEvent(t=line["t"], card=line["card"], zone=line["zone"]))
        sink.verdicts([line])
    return state


def test_the_griddles_are_the_verdicts_as_read():
    board = board_of(_state(until=10.9))
    aki, ben = board.griddles
    assert (aki.player, aki.size, ben.size) == ("aki", 10, 10)
    assert aki.up == {1: ("AC", True), 3: ("3S", True)}
    assert ben.up == {9: ("9H", True), 1: ("AD", True), 10: ("10H", True), 5: ("5C", True)}
    assert (board.discard, board.discards, board.turn, board.winner) == ("KS", 3, "ben", None)
    assert board.said == "aki's turn ends, ben to play" and board.said_kind == "end"
    assert board.moves[-1] == "ben place 5C on slot 5: ok, ben plays on"


def test_the_end_of_the_demo_shows_the_winner():
    board = board_of(_state())
    assert len(board.griddles[0].up) == 10 and len(board.griddles[1].up) == 8
    assert (board.winner, board.turn, board.said, board.said_kind) == ("aki", None, "aki wins", "win")


def test_an_illegal_placement_is_shown_where_it_was_put_and_said_in_red():
    bad = {"type": "verdict", "t": 11.0, "player": "ben", "card": "7H", "zone": "p:ben:slot6", "action": "place",
           "legal": False, "why": "wrong slot: 7H goes on slot 7", "next": "ben", "face_up": 5}
    board = board_of(_state(until=10.9, extra=[bad]))
    assert board.griddles[1].up[6] == ("7H", False)
    assert board.said == "7 of hearts on the 6 slot: wrong slot" and board.said_kind == "illegal"
    assert move_text(bad) == "ben place 7H on slot 6: ILLEGAL (wrong slot)"


def test_the_headline_and_the_history_say_each_move_in_the_game_s_words_never_nobody():
    """The terminal view and the window's headline (``verdict_headline``) of a TAKOYAKI move: the
    call the voice says, or the move itself; the rule's reason under it; an illegal move in red."""
    state = _state(until=10.9)
    assert state.headline.text == "ben places 5C" and state.headline.kind == "first"
    assert state.headline.notes == ["5C goes on slot 5; turn the card that was there and go on"]
    assert not any("nobody" in h for h in state.history), state.history
    assert any("aki's turn ends, ben to play" in h for h in state.history)
    bad = {"type": "verdict", "t": 11.0, "player": "ben", "card": "7H", "zone": "p:ben:slot6", "action": "place",
           "legal": False, "why": "wrong slot: 7H goes on slot 7", "next": "ben", "face_up": 5}
    state = _state(until=10.9, extra=[bad])
    assert (state.headline.text, state.headline.kind) == ("7 of hearts on the 6 slot: wrong slot", "wrong")
    assert _state().headline.text == "aki wins"
    doubt = dict(bad, legal=None, unclear={"ben": "a card on ben's slot 5 at 10.8 s was not read"})
    state = _state(until=10.9, extra=[doubt])
    assert state.headline.text == "unclear, no penalty: ben place 7H" and state.headline.kind != "wrong"
    assert state.headline.notes == ["a card on ben's slot 5 at 10.8 s was not read"]
    assert board_of(state).griddles[1].up[6] == ("7H", True)  # (not framed red: not judged illegal)


def test_a_game_without_griddle_zones_has_no_board():
    from tests.live.helpers import demo_calibration

    assert board_of(LiveState(demo_calibration())) is None


def test_the_key_line_lists_only_the_keys_of_the_game_played():
    """TAKOYAKI has no reaction to strike, no tie to settle and no prompt: the terminal and
    the window list neither; IKATAKO lists them all; MOKOCHAKA no tie."""
    from referee.live.controls import GAME_KEYS, HELP, help_for
    from referee.live.terminal import TerminalParams, render_text

    tako = help_for("takoyaki")
    assert tako == "keys: space pause | u undo last verdict | n n new game | q q quit"
    assert help_for("ikatako") == HELP and all(w in HELP for w in ("strike a reaction", "settle a tie", "1-9"))
    assert "strike a reaction" in help_for("mokochaka") and "tie" not in help_for("mokochaka")
    assert len(GAME_KEYS) == 3
    text = "\n".join(render_text(_state(), TerminalParams(width=200, height=60)))
    assert "u undo last verdict" in text and "strike" not in text and "settle a tie" not in text


def test_the_window_draws_the_game_s_key_line(monkeypatch):
    """The window's key line is the game's (its text as drawn: recorded at the call)."""
    from referee.live import window

    drawn = []
    real = window.outlined_text
    monkeypatch.setattr(window, "outlined_text", lambda cv2, img, text, *a, **k: (drawn.append(text), real(cv2, img, text, *a, **k)))
    render(_state(until=3.0), WindowParams())
    keys = [t for t in drawn if t.startswith("keys:")]
    assert keys == ["keys: space pause | u undo last verdict | n n new game | q q quit | f full screen"]


def _panel_slot(img, player_row: int, slot: int, params=WindowParams()):
    """The centre pixel row of slot ``slot`` of griddle ``player_row`` in the right-hand panel
    (as draw_panel lays it out for two griddles at 1280×720)."""
    x0, right, bottom = params.camera_width + 16, params.width - 12, params.camera_width * 9 // 16
    top, block = 106, (bottom - 76 - 106) // 2
    ch = (block - 22 - 4) // 2
    cw = min((right - x0 - 16) // 5, int(ch * 0.8))
    r, c = divmod(slot - 1, 5)
    x, y = x0 + c * (cw + 4), top + player_row * block + 22 + r * (ch + 4)
    return img[y + 3:y + ch - 3, x + 3:x + cw - 3]


def test_the_window_draws_each_slot_face_up_or_face_down():
    img = render(_state(until=10.9))
    assert img.shape == (720, 1280, 3)
    face = np.array(CARD_FACE, np.uint8)
    back = np.array(CARD_BACK, np.uint8)

    def share(patch, colour):
        return float(np.mean(np.all(patch == colour, axis=2)))

    assert share(_panel_slot(img, 0, 1), face) > 0.4  # aki's A slot: AC face up
    assert share(_panel_slot(img, 0, 2), back) > 0.4  # aki's 2 slot: face down
    assert share(_panel_slot(img, 1, 9), face) > 0.4 and share(_panel_slot(img, 1, 8), back) > 0.4
    assert np.array_equal(img, render(_state(until=10.9)))  # same lines, same pixels


# ---------------------------------------------------------------------- paced, in real time
SECONDS = 12.0


@pytest.fixture(scope="module")
def demo_clip(tmp_path_factory):
    """The TAKOYAKI demo's first 12 s as a demo folder of its own (the calibration and the
    references of the repo's fixture, the video cut)."""
    def make():
        from vision.video import read_frames, write_video

        folder = tmp_path_factory.mktemp("takoyaki-demo")
        (folder / "calibration.json").write_text((TAKOYAKI_DEMO / "calibration.json").read_text())
        (folder / "refs").symlink_to(TAKOYAKI_DEMO / "refs")
        write_video(folder / "session.mp4", (f.image for f in read_frames(TAKOYAKI_DEMO / "session.mp4")
                                             if f.t < SECONDS - 1e-6), fps=15)
        return folder
    return once("test_takoyaki_live.clip", make)


def _verdicts(lines):
    keys = ("player", "card", "zone", "action", "legal", "why", "next", "face_up")
    return [{k: v.get(k) for k in keys} for v in lines if v.get("type") == "verdict"]


def test_demo_takoyaki_live_gives_the_replays_verdicts(demo_clip, run_cli, monkeypatch, tmp_path):
    monkeypatch.setattr("referee.commands.demo_files.TAKOYAKI_DEMO", demo_clip)
    out = tmp_path / "out"
    res = run_cli("demo", "--game", "takoyaki", "--live", "--no-window", "--no-voice", "--hold-result", "0",
                  "--out", str(out))
    assert res.exit_code == 0, res.output
    lines = [json.loads(s) for s in (out / "session.jsonl").read_text().splitlines()]
    # the first 10 moves, as the replay judged them (a card in the clip's last second, QD at
    # 11.8 s, may or may not be confirmed before the clip ends: not compared)
    want = [v for v in _lines() if v.get("type") == "verdict" and v["t"] < SECONDS - 1.0]
    assert _verdicts([v for v in lines if v.get("t", 0) < SECONDS - 1.0]) == _verdicts(want)
    assert lines[0]["game"] == "takoyaki" and all("said_t" in v for v in lines if v.get("type") == "verdict")
    # no pose for a game whose verdicts use no hands (rules.Game.uses_hands), as replay
    assert not any(v.get("type") in ("hand", "seat_status") for v in lines)
    assert not any("pose every" in v.get("message", "") for v in lines)
    figures = json.loads((out / "live-figures.json").read_text())
    assert figures["pose_workers"]["started"] == 0, figures["pose_workers"]


def test_the_final_banner_names_the_winner_and_the_griddles():
    from referee.live.griddles import board_result

    assert board_result(board_of(_state())) == "aki wins: aki 10/10, ben 8/10 face up"
    assert board_result(board_of(_state(until=10.9))) == "no winner: aki 2/10, ben 4/10 face up"

"""Sea Salt & Paper live (issue 34 item 6): each player's tally as read (referee.live.tallies)
in the live window and the terminal view, the round's outcome in words, and ``referee demo
--game seasaltpaper --live`` through the live path with the replay's verdicts."""

from __future__ import annotations

import json

import numpy as np

from session import calibration as cal_mod
from referee.commands.demo_files import SEASALTPAPER_DEMO
from tests.live.helpers import demo_state
from referee.live.tallies import tallies_of, tallies_result
from referee.live.window import WindowParams, render


def _expected():
    return [json.loads(s) for s in (SEASALTPAPER_DEMO / "expected.jsonl").read_text().splitlines() if s.strip()]


def _state(until: float = float("inf"), extra=(), verdicts: bool = True):
    return demo_state(SEASALTPAPER_DEMO, until, extra, verdicts)


def test_before_any_call_the_tallies_wait_for_it():
    tallies = tallies_of(_state(until=2.0))
    assert (tallies.round, tallies.call, tallies.said) == (1, None, None)
    assert [t.player for t in tallies.players] == ["aki", "ben"]
    assert all(t.cards is None for t in tallies.players)  # (the duos played are not the hand)


def test_the_call_heard_then_each_hand_as_it_is_read():
    tallies = tallies_of(_state(until=3.0))
    assert (tallies.call, tallies.caller, tallies.call_t) == ("STOP", "aki", 3.0)
    assert [t.cards for t in tallies.players] == [None, None]
    tallies = tallies_of(_state(until=4.0))
    aki, ben = tallies.players
    assert (aki.card_points, aki.color_bonus, ben.cards) == (9, 3, None)
    assert len(aki.cards) == 8 and aki.unclear is None


def test_the_round_s_outcome_and_the_totals_after_its_verdict():
    tallies = tallies_of(_state(until=4.8))
    assert tallies.call is None and tallies.round == 2
    assert tallies.said == "aki called STOP: round scored" and tallies.said_kind == "scored"
    assert [t.total for t in tallies.players] == [9, 8]
    assert tallies.players[0].last == "scored 9 (card points 9, colour bonus 3)"
    tallies = tallies_of(_state())
    assert tallies.said == "ben called LAST CHANCE and won the bet"
    assert [t.total for t in tallies.players] == [11, 20] and len(tallies.moves) == 2
    assert tallies_result(tallies) == "no winner yet: aki 11, ben 20"


def test_an_unclear_card_is_shown_unclear_with_why_never_as_another_card():
    from session.events import ChoiceEvent

    covered = ChoiceEvent(t=4.0, player="aki", action="hand", extra={
        "source": "camera", "zone": "p:aki:spread", "cards": ["crab:blue", "crab:pink"],
        "seen": [{"card": "crab:blue", "box": [30, 400, 130, 540]}, {"card": "crab:pink", "box": [140, 400, 240, 540]},
                 {"card": None, "box": [250, 400, 350, 540], "why": "covered in part"}],
        "unclear": ["covered in part"]})
    state = _state(until=3.5, verdicts=False, extra=[covered])
    aki = tallies_of(state).players[0]
    assert aki.unclear == "1 card not read: covered in part" and aki.card_points is None
    from referee.live.tallies import tally_lines

    assert tally_lines(aki, "STOP") == [("UNCLEAR, not scored: 1 card not read: covered in part", "unclear")]


def test_the_window_draws_the_tallies_and_the_key_line(monkeypatch):
    from referee.live import window

    drawn = []
    real = window.outlined_text
    monkeypatch.setattr(window, "outlined_text", lambda cv2, img, text, *a, **k: (drawn.append(text), real(cv2, img, text, *a, **k)))
    img = render(_state(until=4.0), WindowParams())
    assert img.shape == (720, 1280, 3)
    assert [t for t in drawn if t.startswith("keys:")] == \
        ["keys: space pause | u undo last verdict | n n new game | q q quit | f full screen"]
    assert np.array_equal(img, render(_state(until=4.0), WindowParams()))  # same state, same pixels


def test_the_terminal_shows_each_tally():
    from referee.live.terminal import TerminalParams, render_text

    text = "\n".join(render_text(_state(until=4.0), TerminalParams(width=80, height=24)))
    assert "ROUND 1: aki called STOP" in text and "card points 9, colour bonus 3" in text
    assert "waiting for the cards" in text and "strike" not in text
    text = "\n".join(render_text(_state(), TerminalParams(width=80, height=24)))
    assert "ben called LAST CHANCE and won the bet" in text and "total  20" in text


# ---------------------------------------------------------------------- paced, in real time
#: a round verdict's fields compared with the replay's (its time is the last hand's read,
#: which depends on the frames the live loop took)
ROUND_KEYS = ("round", "call", "caller", "legal", "why", "scores", "caller_won", "totals", "unclear")


def _rounds(lines):
    return [{k: v.get(k) for k in ROUND_KEYS} for v in lines if v.get("type") == "verdict"]


def test_demo_seasaltpaper_live_gives_the_replays_verdicts(run_cli, tmp_path):
    """The calls heard live and credited as in replay, each spread read after its call, the
    rounds scored as the replay scores them (fixtures/seasaltpaper/expected.jsonl); no pose."""
    out = tmp_path / "out"
    res = run_cli("demo", "--game", "seasaltpaper", "--live", "--no-window", "--no-voice", "--hold-result", "0",
                  "--out", str(out))
    assert res.exit_code == 0, res.output
    lines = [json.loads(s) for s in (out / "session.jsonl").read_text().splitlines()]
    assert _rounds(lines) == _rounds(_expected()) and len(_rounds(lines)) == 2
    result = [v for v in lines if v.get("type") == "result"]
    assert [r["scores"] for r in result] == [v["scores"] for v in _expected() if v.get("type") == "result"]
    calls = [(v["player"], v["words"]) for v in lines if v.get("type") == "shout"]
    assert calls[0] == ("aki", ["stop"]) and ("ben", ["lastchance"]) in calls
    assert all("said_t" in v for v in lines if v.get("type") == "verdict")
    assert not any(v.get("type") in ("hand", "seat_status") for v in lines)  # (no pose: uses_hands False)
    assert "round 2: lastchance by ben" in res.output


def test_the_voice_says_each_round_in_phrases_it_rendered_at_the_start():
    from referee.live.voice import game_words

    words = game_words("seasaltpaper")
    first, second = [v for v in _expected() if v.get("type") == "verdict"]
    assert words.keys(first) == ("g:seasaltpaper:aki", "g:seasaltpaper:STOP", "g:seasaltpaper:round scored")
    assert words.text_of_line(second) == "ben called LAST CHANCE and won the bet"
    unsettled = dict(second, scores={}, unclear={"aki": "1 card not read: covered in part",
                                                 "ben": "the LAST CHANCE bet needs every hand: aki's cards were not all read"})
    assert words.text_of_line(unsettled) == "LAST CHANCE not settled: aki's cards not all read"
    every = set(words.all_keys(["aki", "ben"]))
    for line in (first, second, unsettled):
        assert set(words.keys(line)) <= every
    assert words.text("STOP", "ja") == "ストップ" and words.text("aki", "ja") == "aki"


def test_a_spread_read_from_frames_only_kept_writes_what_every_frame_analysed_writes():
    """Live, under load, the card zones' thread only *keeps* most frames; a spread zone still
    reads one when a read is due (before, it read nothing from them, and ben's last hand of the
    live demo was never written at load 18). Its event comes out of the next analysed frame, at
    its own time, and the zone's bound never passes it meanwhile."""
    from vision.card_references import References
    from vision.spread_watch import SpreadWatcher
    from vision.video import read_frames

    cal = cal_mod.load(SEASALTPAPER_DEMO / "calibration.json")
    refs = References.from_folder(SEASALTPAPER_DEMO / "refs")
    frames = [f for f in read_frames(SEASALTPAPER_DEMO / "session.mp4") if 2.5 <= f.t <= 7.0]
    box = cal.zones["p:aki:spread"]
    every, kept = SpreadWatcher("p:aki:spread", box, refs), SpreadWatcher("p:aki:spread", box, refs)
    want, got, bounds_ok = [], [], True
    for k, f in enumerate(frames):
        want += every.update(k, f.t, f.image)
        if k % 10 == 9:  # one analysed frame in ten, the rest only kept
            out = kept.update(k, f.t, f.image)
            bounds_ok &= all(e.t >= bound for e in out)
            got += out
        else:
            kept.keep(k, f.t, f.image)
        bound = kept.earliest_event_t()
    got += kept.update(len(frames), frames[-1].t + 0.01, frames[-1].image)
    assert [(e.t, e.get("cards")) for e in got] == [(e.t, e.get("cards")) for e in want]
    assert len(want) == 1 and len(want[0].get("cards")) == 8 and bounds_ok


def test_the_terminal_view_fits_80_columns_with_the_game_s_legend():
    from referee.live.terminal import TerminalParams, render_text

    for until in (4.0, 20.0):
        lines = render_text(_state(until=until), TerminalParams(width=80, height=24))
        assert max(len(x) for x in lines) <= 80 and len(lines) <= 23
        assert "green: a card read" in "\n".join(lines) and "reaction time" not in "\n".join(lines)

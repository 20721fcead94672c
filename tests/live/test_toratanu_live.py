"""TORATANU live (issue 34 item 6): the night's special card and each player's revealed hand as
read, with its best arrangement (referee.live.nights), in the live window and the terminal
view; the night's outcome in words and said; and ``referee demo --game toratanu --live``
through the live path with the replay's verdicts."""

from __future__ import annotations

import json

import numpy as np

from session import calibration as cal_mod
from session.events import ChoiceEvent
from session.record import read_record
from referee.commands.demo_files import TORATANU_DEMO
from referee.live.state import LiveState, StateSink
from tests.live.helpers import demo_state
from referee.live.tallies import tallies_of, tallies_result
from referee.live.window import WindowParams, render


def _expected():
    return [json.loads(s) for s in (TORATANU_DEMO / "expected.jsonl").read_text().splitlines() if s.strip()]


def _state(until: float = float("inf"), extra=(), verdicts: bool = True):
    return demo_state(TORATANU_DEMO, until, extra, verdicts)


def test_before_the_special_card_every_hand_is_awaited():
    tallies = tallies_of(_state(until=0.3))
    assert (tallies.unit, tallies.round, tallies.head, tallies.waiting) == ("NIGHT", 1, None, "waiting for the special card")
    assert [t.player for t in tallies.players] == ["aki", "ben", "chie"]
    assert all(t.cards is None and t.lines[0][1] == "wait" and "all 9 cards" in t.lines[0][0] for t in tallies.players)


def test_each_hand_as_it_is_read_with_its_best_arrangement_so_far():
    tallies = tallies_of(_state(until=4.0))
    assert tallies.head == "special card: tiger yellow 1"
    aki, ben, chie = tallies.players
    assert len(aki.cards) == 9 and aki.unclear is None
    assert aki.lines[1] == ("best 185: red set 10, tiger x3 150, komondor +25", "ok")
    assert ben.cards is None and chie.cards is None
    # the preview is the verdict's own score once the night is scored
    night = [v for v in _expected() if v.get("type") == "verdict"][0]
    assert night["scores"]["aki"] == 185


def test_the_night_s_outcome_and_the_totals_after_its_verdict():
    tallies = tallies_of(_state(until=6.0))
    assert tallies.head is None and tallies.waiting == "waiting for the next night's special card"
    assert tallies.said == "night 1 scored: aki 185, ben 130, chie 100" and tallies.said_kind == "scored"
    assert [t.total for t in tallies.players] == [185, 130, 100]
    assert tallies.players[1].lines == [("night 1: scored 130", "ok"),
                                        ("chameleon x3 30, panda x3 20, walrus x3 30, full colour +50", "info")]
    tallies = tallies_of(_state(until=10.0))  # night 2's special card: the hands awaited again
    assert (tallies.round, tallies.head) == (2, "special card: owl green 3")
    assert [t.cards for t in tallies.players] == [None, None, None] and [t.total for t in tallies.players] == [185, 130, 100]
    tallies = tallies_of(_state())
    assert [t.total for t in tallies.players] == [274, 194, 187] and len(tallies.moves) == 2


def test_an_unclear_card_is_shown_unclear_with_why_never_scored_as_another_card():
    cards = ["fox:red:4", "goat:green:1", "kangaroo:red:3", "komondor:yellow:2", "owl:red:3", "tiger:blue:1",
             "tiger:green:2", "tiger:red:2"]
    covered = ChoiceEvent(t=3.6, player="aki", action="hand", extra={
        "source": "camera", "zone": "p:aki:spread", "cards": cards,
        "seen": [{"card": c, "box": [10 * i, 0, 10 * i + 9, 20]} for i, c in enumerate(cards)]
        + [{"card": None, "box": [90, 0, 99, 20], "why": "covered in part"}],
        "unclear": ["covered in part"]})
    state = _state(until=3.55, verdicts=False, extra=[covered])
    aki = tallies_of(state).players[0]
    assert aki.unclear == "1 not read: covered in part"
    assert aki.lines == [("UNCLEAR, not scored: 1 not read: covered in part", "unclear")]
    assert [s["card"] for s in aki.seen].count(None) == 1  # (drawn as "?", not as a card)


def test_a_hand_still_face_down_is_awaited_and_its_boxes_are_not_drawn():
    face_down = ChoiceEvent(t=2.0, player="chie", action="hand", extra={
        "source": "camera", "zone": "p:chie:spread", "cards": [],
        "seen": [{"card": None, "box": [0, 0, 300, 300], "why": "no card recognised"}], "unclear": ["no card recognised"]})
    chie = tallies_of(_state(until=2.5, extra=[face_down])).players[2]
    assert chie.cards is None and chie.seen == [] and chie.lines[0][1] == "wait"


def test_the_window_draws_the_night_and_the_terminal_shows_it_in_80_columns(monkeypatch):
    from referee.live import drawing, window
    from referee.live.terminal import TerminalParams, render_text

    drawn = []
    real = window.outlined_text
    spy = lambda cv2, img, text, *a, **k: (drawn.append(text), real(cv2, img, text, *a, **k))  # noqa: E731
    monkeypatch.setattr(window, "outlined_text", spy)
    monkeypatch.setattr(drawing, "outlined_text", spy)  # (the night panel's text: referee.live.tallies)
    img = render(_state(until=4.5), WindowParams())
    assert img.shape == (720, 1280, 3)
    assert "NIGHT 1" in drawn and "special card: tiger yellow 1" in drawn and "NIGHTS (newest last)" in drawn
    assert np.array_equal(img, render(_state(until=4.5), WindowParams()))  # same state, same pixels
    for until, want in ((4.5, "NIGHT 1: special card: tiger yellow 1"), (20.0, "night 2 scored: aki 89")):
        lines = render_text(_state(until=until), TerminalParams(width=80, height=24))
        text = "\n".join(lines)
        assert want in text and "a hand is read once all its cards lie face up" in text
        assert max(len(x) for x in lines) <= 80 and len(lines) <= 23


def test_the_voice_says_each_night_in_phrases_it_rendered_at_the_start():
    from referee.live.voice import game_words

    words = game_words("toratanu")
    first, second = [v for v in _expected() if v.get("type") == "verdict"]
    assert words.keys(first) == ("g:toratanu:night scored",)
    assert words.text_of_line(second) == "night 2 scored: aki 89, ben 64, chie 87"
    one_unclear = dict(first, scores={"aki": 185, "ben": 130}, unclear={"chie": "1 not read: glare"})
    assert words.keys(one_unclear) == ("g:toratanu:night scored", "g:toratanu:chie", "g:toratanu:not scored")
    assert words.text_of_line(one_unclear) == "night 1 scored: aki 185, ben 130 (chie not scored: unclear)"
    why = "the special card was not read (at 0.5 s): its bonuses are unknown"
    unread = dict(first, special=None, scores={}, unclear={p: why for p in ("aki", "ben", "chie")})
    assert words.keys(unread) == ("g:toratanu:special card not read",)
    every = set(words.all_keys(["aki", "ben", "chie"]))
    assert all(set(words.keys(line)) <= every for line in (first, second, one_unclear, unread))
    assert words.text("night scored", "ja") != "night scored" and words.text("aki", "ja") == "aki"


# ---------------------------------------------------------------------- paced, in real time
#: a night verdict's fields compared with the replay's (its time is the last hand's read,
#: which depends on the frames the live loop took)
NIGHT_KEYS = ("game", "special", "scores", "declared", "missed", "best", "totals", "unclear")


def _nights(lines):
    return [{k: v.get(k) for k in NIGHT_KEYS} for v in lines if v.get("type") == "verdict"]


def test_demo_toratanu_live_gives_the_replays_verdicts(run_cli, tmp_path):
    """The special cards and each revealed hand read live, the nights scored as the replay
    scores them (fixtures/toratanu/expected.jsonl), each said; no pose, no microphones."""
    out = tmp_path / "out"
    res = run_cli("demo", "--game", "toratanu", "--live", "--no-window", "--no-voice", "--hold-result", "0",
                  "--out", str(out))
    assert res.exit_code == 0, res.output
    lines = [json.loads(s) for s in (out / "session.jsonl").read_text().splitlines()]
    assert _nights(lines) == _nights(_expected()) and len(_nights(lines)) == 2
    result = [v for v in lines if v.get("type") == "result"]
    assert [r["winners"] for r in result] == [["aki"]]
    assert all("said_t" in v for v in lines if v.get("type") == "verdict")
    assert not any(v.get("type") in ("hand", "seat_status", "shout") for v in lines)
    assert "winner: aki" in res.output
    tallies = tallies_of(_replayed(out / "session.jsonl"))
    assert tallies_result(tallies) == "aki wins: aki 274, ben 194, chie 187"


def _replayed(path):
    """The live state after every line of a live record (its verdicts and result included)."""
    record = read_record(path)
    state = LiveState(cal_mod.load(TORATANU_DEMO / "calibration.json"), voice="on")
    sink = StateSink(state)
    sink.start(record.header)
    lines = [json.loads(s) for s in path.read_text().splitlines()]
    for ev in record.events:
        sink.event(ev)
        sink.verdicts([v for v in lines if v.get("type") == "verdict" and v["t"] == ev.t])
    sink.verdicts([v for v in lines if v.get("type") == "result"])
    return state

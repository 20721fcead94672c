"""The camera drills of TAKOYAKI, Sea Salt & Paper and TORATANU (``referee teach GAME
--calibration CAL --from-video V``): the questions are about the cards the live referee
reads (each fixture's true cards), answered with keys, judged and explained by the game's
keyboard drill; a card not clearly read is said and never drilled."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from referee.judge import judge
from referee.teach import drills
from referee.teach.core import Press
from referee.teach.drills.cards_sensed import CardsSensedDrill
from referee.teach.keys import FakeClock, ScriptedKeys
from referee.teach.progress import Progress
from referee.teach.terminal import TerminalView
from session.events import CardEvent, ChoiceEvent, WarningEvent
from session.record import Entry, Record, read_record

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures"
GAMES = ("takoyaki", "seasaltpaper", "toratanu")


def _expected_lines(game):
    return [json.loads(x) for x in (FIXTURES / game / "expected.jsonl").read_text().splitlines() if x.strip()]


def true_situations(game: str, seat: str = "aki") -> list[str]:
    """The situations the drill must ask ``seat``, from the fixture's truth and expected
    verdicts, written here without the drill's readers."""
    rec = read_record(FIXTURES / game / "truth.jsonl")
    if game == "takoyaki":
        out, up = [], set()
        for v in _expected_lines(game):
            if v.get("player") != seat or v.get("action") not in ("place", "discard"):
                continue
            out.append("".join("x" if i in up else "." for i in range(1, 11)) + "/" + v["card"])
            if v["action"] == "place":
                up.add(int(v["zone"].rsplit("slot", 1)[1]))
        return out
    hands = [e for e in rec.events if isinstance(e, ChoiceEvent) and e.action == "hand" and e.player == seat]
    if game == "seasaltpaper":  # before the round's call: may it say STOP; after it: its points
        calls = [e.t for e in rec.events if e.type == "shout"]
        rounds = [v["t"] for v in _expected_lines(game) if v.get("type") == "verdict"]
        out = []
        for h in hands:
            called = any(c < h.t and not any(c < r < h.t for r in rounds) for c in calls)
            out.append(("score=" if called else "stop=") + ",".join(sorted(h.extra["cards"])))
        return out
    specials = [e for e in rec.events if isinstance(e, CardEvent) and e.zone == "pile0"]
    return ["best=" + ";".join(sorted(h.extra["cards"])) + "@" + [s.card for s in specials if s.t < h.t][-1]
            for h in hands]


def oracle_keys(drill):
    return ScriptedKeys(lambda sit: [(0.4 + 0.1 * i, k) for i, k in enumerate(drill.oracle(sit))], FakeClock())


def wrong_keys(drill):
    """A wrong answer to every question: the turn's end flipped (TAKOYAKI), one point more or
    the STOP answer flipped (Sea Salt & Paper), the first three cards as the only set (TORATANU)."""
    def policy(sit):
        right = drill.oracle(sit)
        if drill.game == "takoyaki":
            keys = [{"c": "e", "e": "c"}.get(k, k) for k in right]
        elif drill.game == "seasaltpaper" and sit.rule == "score":
            keys = list(str(int("".join(right[:-1])) + 1)) + ["enter"]
        elif drill.game == "seasaltpaper":
            keys = [{"y": "n", "n": "y"}[right[0]], "enter"]
        else:
            keys = ["1", "2", "3", "enter"]
        return [(0.5 + 0.1 * i, k) for i, k in enumerate(keys)]
    return ScriptedKeys(policy, FakeClock())


def drive(drill: CardsSensedDrill, rec: Record) -> CardsSensedDrill:
    """The record's events to the drill as the merge releases them, each verdict line once
    everything up to its time is out (as the live judge gives them)."""
    lines = [x for x in judge(rec).lines if x.get("type") == "verdict"]
    drill.start(rec.header)
    for ev in rec.events:
        drill.verdicts([x for x in lines if x["t"] < ev.t])
        lines = [x for x in lines if x["t"] >= ev.t]
        drill.event(ev)
    drill.verdicts(lines)
    drill.finish(None)
    drill.answer_rest()
    return drill


def _drill(game, keys_of, out=None, progress=None, seat="aki"):
    d = drills.get(game)
    return CardsSensedDrill(d, seat, TerminalView(out or io.StringIO(), game=game), keys_of(d), paced=True,
                            progress=progress)


@pytest.mark.parametrize("game", GAMES)
def test_the_fixtures_true_cards_are_asked_and_a_right_answer_is_right(game, tmp_path):
    out = io.StringIO()
    progress = Progress.open("learner", tmp_path)
    drill = drive(_drill(game, oracle_keys, out, progress), read_record(FIXTURES / game / "truth.jsonl"))
    asked = [a.seen.situation.key for a in drill.done_cards]
    assert asked == true_situations(game) and asked
    assert all(a.fb.verdict == "correct" for a in drill.done_cards)
    # judged and explained as the keyboard drill judges and explains the same keys
    kb = drills.get(game)
    for a in drill.done_cards:
        same = kb.feedback(a.seen.situation, a.presses, a.info["level"], "en", learner="aki")
        assert (same.verdict, same.rule, same.fact) == (a.fb.verdict, a.fb.rule, a.fb.fact)
    answers = [json.loads(x) for x in progress.path.read_text().splitlines() if '"answer"' in x]
    assert [a["situation"] for a in answers] == asked and all(a["sensed"] for a in answers)


@pytest.mark.parametrize("game", GAMES)
def test_a_wrong_answer_about_the_read_cards_is_wrong_and_says_why(game):
    out = io.StringIO()
    drill = drive(_drill(game, wrong_keys, out), read_record(FIXTURES / game / "truth.jsonl"))
    assert [a.seen.situation.key for a in drill.done_cards] == true_situations(game)
    assert {a.fb.verdict for a in drill.done_cards} == {"wrong"}
    assert all(a.fb.did for a in drill.done_cards)  # what the learner did, beside the rule and the fact
    assert "WRONG" in out.getvalue() and "CORRECT" not in out.getvalue()


def test_another_seats_cards_are_not_the_learners_questions():
    drill = drive(_drill("toratanu", oracle_keys, seat="ben"), read_record(FIXTURES / "toratanu" / "truth.jsonl"))
    assert [a.seen.situation.key for a in drill.done_cards] == true_situations("toratanu", "ben")
    assert all("chameleon" in k or "dolphin" in k for k in (a.seen.situation.key for a in drill.done_cards))


@pytest.mark.parametrize("game", ("seasaltpaper", "toratanu"))
def test_a_hand_with_a_card_not_read_is_unclear_never_drilled(game):
    """The spread read with one card found but not recognised: the drill says why and asks
    to show it again; no question, no answer judged; the hand shown again is asked."""
    rec = read_record(FIXTURES / game / "truth.jsonl")
    first = next(e for e in rec.events if isinstance(e, ChoiceEvent) and e.action == "hand" and e.player == "aki"
                 and len(e.extra["cards"]) >= 3)
    why = "its face fits no card well: covered or glare?"
    blurred = replace(first, extra={**first.extra, "cards": first.extra["cards"][1:], "unclear": [why]})
    events = [blurred if e is first else e for e in rec.events]
    again = replace(first, t=round(first.t + 0.2, 3))
    events.insert(events.index(blurred) + 1, again)
    out = io.StringIO()
    drill = drive(_drill(game, oracle_keys, out), Record(rec.header, [Entry(i + 2, e) for i, e in enumerate(events)]))
    assert len(drill.unclear) == 1 and why in out.getvalue() and "show the cards again" in out.getvalue()
    asked = [a.seen for a in drill.done_cards]
    assert [s.situation.key for s in asked] == true_situations(game)  # the blurred hand is not among them
    assert first.t not in [s.t for s in asked] and again.t in [s.t for s in asked]


def test_a_takoyaki_card_not_recognised_is_unclear_and_an_illegal_move_at_the_table_is_judged():
    rec = read_record(FIXTURES / "takoyaki" / "truth.jsonl")
    events = list(rec.events)
    # the camera saw a card land on aki's slot 3 but could not tell 3S from 3C ...
    i = next(k for k, e in enumerate(events) if isinstance(e, CardEvent) and e.card == "3S")
    events[i] = WarningEvent(t=events[i].t, message="card in the p:aki:slot3 not recognised at 2.0 s (uncertain "
                             "between 3C and 3S)", extra={"zone": "p:aki:slot3", "unread": True})
    # ... and aki put 8D on slot 9 (illegal: the judge follows the table)
    j = next(k for k, e in enumerate(events) if isinstance(e, CardEvent) and e.card == "8D")
    events[j] = replace(events[j], zone="p:aki:slot9")
    out = io.StringIO()
    drill = drive(_drill("takoyaki", oracle_keys, out),
                  Record(rec.header, [Entry(k + 2, e) for k, e in enumerate(events)]))
    assert len(drill.unclear) == 1 and "uncertain between 3C and 3S" in out.getvalue()
    keys = [a.seen.situation.key for a in drill.done_cards]
    assert not any(k.endswith("/3S") for k in keys)  # never drilled on a guessed card
    eight = next(a for a in drill.done_cards if a.seen.situation.key.endswith("/8D"))
    assert eight.fb.verdict == "correct"  # the question: where 8D goes (slot 8)
    assert "at the table: 8D on slot 9: ILLEGAL" in eight.fb.reason()


def test_the_drill_waits_for_the_keys_of_a_real_learner():
    """Real keys arrive while the recording plays on: the questions wait in line and the
    next is asked only after the feedback's pause (on the keys' clock)."""
    from referee.teach.keys import Clock, KeySource

    class Clocked(Clock):
        t = 50.0

        def now(self):
            return self.t

    class Typed(KeySource):
        def __init__(self):
            self.clock, self.q = Clocked(), []

        def get(self, deadline):
            if self.q and self.q[0][1] <= min(deadline, self.clock.t):
                return self.q.pop(0)
            return None

    keys = Typed()
    d = drills.get("seasaltpaper")
    drill = CardsSensedDrill(d, "aki", TerminalView(io.StringIO(), game="seasaltpaper"), keys, paced=True)
    rec = read_record(FIXTURES / "seasaltpaper" / "truth.jsonl")
    drill.start(rec.header)
    for ev in rec.events:
        drill.event(ev)
    assert drill.asked is not None and len(drill.waiting) == 3 and not drill.done_cards
    shown = drill.asked.shown
    keys.q = [("1", 51.0), ("enter", 51.5)]  # crab duo: 1 point... asked "may it say STOP?": "1" is no answer
    keys.clock.t = 52.0
    drill.status({})
    fb = drill.done_cards[0].fb
    assert drill.done_cards[0].presses == [Press("1", round(51.0 - shown, 4)), Press("enter", round(51.5 - shown, 4))]
    assert fb.verdict == "missed" and drill.asked is None  # the pause before the next question
    keys.clock.t = 52.0 + drill.params.pause
    drill.status({})
    assert drill.asked is not None and len(drill.waiting) == 2


# ----------------------------------------------------------------- the whole path, from the CLI
def _run_cli(game, tmp_path, video, script="oracle", extra=()):
    from click.testing import CliRunner

    from referee.cli import cli
    audio = FIXTURES / game / "seats.wav"
    args = ["teach", game, "--calibration", str(FIXTURES / game / "calibration.json"), "--from-video", str(video),
            *(["--audio", str(audio)] if audio.is_file() and video.parent == FIXTURES / game else []),
            "--script", script, "--data", str(tmp_path / "data"), "--no-voice", "--out", str(tmp_path / "out"),
            "--lang", "en", "--start", "2026-03-01T09:00:00", *extra]
    res = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    answers = [json.loads(x) for x in (tmp_path / "data" / "learners" / "you.jsonl").read_text().splitlines()]
    return res, [a for a in answers if a["type"] == "answer"]


TAKOYAKI_CLIP_S = 15.0  # aki's AC, 3S, QS, KS, 8D, JC


@pytest.fixture(scope="module")
def takoyaki_clip(tmp_path_factory):
    from vision.video import read_frames, write_video
    video = tmp_path_factory.mktemp("clip") / "clip.mp4"
    write_video(video, (f.image for f in read_frames(FIXTURES / "takoyaki" / "session.mp4")
                        if f.t < TAKOYAKI_CLIP_S - 1e-6), fps=30)
    return video


@pytest.mark.parametrize("game", GAMES)
def test_the_fixture_through_the_live_sources_asks_its_true_cards(game, tmp_path, takoyaki_clip):
    """The whole path: the recording paced in real time by the live sources, read by the
    live vision stage, judged by the live judge; the drill asks about the cards it reads
    (the fixture's true cards: a reading the camera was unsure of is asked later or not at
    all, never as another card) and judges the scripted right answers right."""
    video = takoyaki_clip if game == "takoyaki" else FIXTURES / game / "session.mp4"
    res, answers = _run_cli(game, tmp_path, video)
    asked = [a["situation"] for a in answers]
    truth = true_situations(game)
    if game == "takoyaki":
        truth = truth[:6]
    assert asked and set(asked) <= set(truth) and len(asked) >= len(truth) - 1, (asked, truth)
    assert {a["verdict"] for a in answers} == {"correct"}
    assert f"aki: {len(asked)} card(s), {len(asked)} right" in res.output and "Traceback" not in res.output


def test_a_wrong_scripted_answer_from_the_cli_is_wrong(tmp_path):
    tape = tmp_path / "wrong.json"
    tape.write_text(json.dumps([[[0.5, "1"], [0.6, "2"], [0.7, "3"], [0.8, "enter"]]]))
    res, answers = _run_cli("toratanu", tmp_path, FIXTURES / "toratanu" / "session.mp4", script=str(tape))
    assert [a["situation"] for a in answers] == true_situations("toratanu")
    assert {a["verdict"] for a in answers} == {"wrong"} and "✗ WRONG" in res.output


def test_a_camera_drill_without_a_calibration_or_on_another_games_table_is_one_clear_error(tmp_path):
    from click.testing import CliRunner

    from referee.cli import cli
    res = CliRunner().invoke(cli, ["teach", "toratanu", "--from-video", str(FIXTURES / "toratanu" / "session.mp4")])
    assert res.exit_code == 2 and "--calibration" in res.output and "Traceback" not in res.output
    res = CliRunner().invoke(cli, ["teach", "takoyaki", "--from-video", str(FIXTURES / "toratanu" / "session.mp4"),
                                   "--calibration", str(FIXTURES / "toratanu" / "calibration.json"),
                                   "--data", str(tmp_path), "--no-voice", "--script", "oracle"])
    assert res.exit_code == 2 and "toratanu" in res.output and "Traceback" not in res.output
    res = CliRunner().invoke(cli, ["teach", "toratanu", "--from-video", str(FIXTURES / "toratanu" / "session.mp4"),
                                   "--calibration", str(FIXTURES / "toratanu" / "calibration.json"), "--seat", "zoe",
                                   "--data", str(tmp_path), "--no-voice", "--script", "oracle"])
    assert res.exit_code == 2 and "zoe" in res.output and "aki, ben, chie" in res.output


_WINDOW_CHECK = """
import json, numpy as np
from referee.teach import drills
from referee.teach.window import WindowView
out = {}
for game, key in (("takoyaki", "x.x......./8D"), ("seasaltpaper", "score=crab:blue,crab:pink,mermaid")):
    d = drills.get(game)
    sit = d.make(key)
    view = WindowView(lang="en")
    view.show(d.screen(sit, "en"), {"n": 1, "of": None, "level": d.level_of(sit.rule), "index": 0})
    view.camera(np.full((720, 1280, 3), 255, np.uint8))
    out[game] = int((view.frame != view.base).any(axis=2).sum())
    view.close()
view = WindowView(lang="en")
view.unclear("Not clearly read: show the cards again.", "covered in part")
out["unclear"] = int((view.frame > 200).all(axis=2).sum())
view.close()
print(json.dumps(out))
"""


def test_the_window_insets_the_camera_beside_the_cards_but_not_over_the_griddle_and_says_unclear(tmp_path):
    import os
    import shutil
    import subprocess
    import sys

    if not (shutil.which("Xvfb")):
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    from tests.conftest import start_xvfb
    proc, display = start_xvfb("1000x720x24")
    try:
        res = subprocess.run([sys.executable, "-c", _WINDOW_CHECK], cwd=ROOT, env={**os.environ, "DISPLAY": display},
                             capture_output=True, text=True, timeout=120)
    finally:
        proc.terminate()
        proc.wait(5)
    assert res.returncode == 0, res.stderr
    seen = json.loads(res.stdout.strip().splitlines()[-1])
    assert seen["takoyaki"] == 0  # the griddle's slots stay visible
    assert seen["seasaltpaper"] > 300 * 160  # the camera image, 300 px wide, beside the hand
    assert seen["unclear"] > 1000  # the notice's white text


def test_a_camera_drill_stops_at_its_cards_and_on_a_quit_key():
    rec = read_record(FIXTURES / "takoyaki" / "truth.jsonl")
    d = drills.get("takoyaki")
    drill = CardsSensedDrill(d, "aki", TerminalView(io.StringIO(), game="takoyaki"), oracle_keys(d), paced=False,
                             cards=3)
    drive(drill, rec)  # (answer_rest returns with questions still waiting)
    assert len(drill.done_cards) == 3 and drill.done and drill.waiting
    from referee.teach.drills.ikatako_sensed import SensedView
    assert SensedView(drill).drain()[0].name == "quit"
    quitter = ScriptedKeys(lambda sit: [(0.5, "escape")], FakeClock())
    drill = CardsSensedDrill(d, "aki", TerminalView(io.StringIO(), game="takoyaki"), quitter, paced=True)
    drive(drill, rec)
    assert drill.quit and not drill.done_cards

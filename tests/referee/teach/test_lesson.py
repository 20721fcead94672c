"""Keyboard sessions driven in-process: scripted presses on a fake clock give the same
verdicts, FSRS state and progress file every time; the ladder moves up; mistakes come back."""

import io
import json
from datetime import datetime, timezone

import fsrs
import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.teach import drills
from referee.teach.core import Feedback
from referee.teach.keys import FakeClock, ScriptedKeys
from referee.teach.lesson import Lesson, LessonParams
from referee.teach.progress import Progress
from referee.teach.scheduler import Scheduler, rating
from referee.teach.terminal import TerminalView

START = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def learner(drill, wrong_every=0, delay=0.45):
    n = [0]

    def policy(sit):
        n[0] += 1
        keys = drill.oracle(sit)
        if wrong_every and n[0] % wrong_every == 0:
            keys = ["f", "enter"] if drill.game == "ikatako" else ["enter"]
        return [(delay + 0.1 * i, k) for i, k in enumerate(keys)]
    return policy


def run(tmp_path, name="ikatako", seed=7, wrong_every=0, cards=20, **kw):
    d = drills.get(name)
    prog = Progress.open("aki", tmp_path)
    out = io.StringIO()
    lesson = Lesson(d, prog, ScriptedKeys(learner(d, wrong_every), FakeClock()), TerminalView(out, game=d.game),
                    learner="aki", seed=seed, start=START, params=LessonParams(cards=cards), **kw)
    return lesson, lesson.run(), out.getvalue(), prog


def test_same_seed_same_session_byte_for_byte(tmp_path):
    _, s1, out1, p1 = run(tmp_path / "a", wrong_every=4, rival=True)
    _, s2, out2, p2 = run(tmp_path / "b", wrong_every=4, rival=True)
    assert out1 == out2
    assert p1.path.read_bytes() == p2.path.read_bytes()
    _, _, out3, _ = run(tmp_path / "c", seed=8, wrong_every=4, rival=True)
    assert out3 != out1  # another seed, other cards


def test_twenty_cards_with_feedback_and_a_level_up(tmp_path):
    lesson, s, out, prog = run(tmp_path, placement=False)
    assert s["cards"] == 20 and s["right"] == 20
    # 10 right and fast on a level unlock the next: two levels in 20 cards
    assert s["level_start"] == "numbers" and s["level_ups"] == ["creatures", "one_trouble"]
    assert out.count("✓ CORRECT") == 20 and "LEVEL UP" in out
    lines = [json.loads(x) for x in prog.path.read_text().splitlines()]
    assert sum(x["type"] == "answer" for x in lines) == 20
    assert [x["level"] for x in lines if x["type"] == "level"] == ["creatures", "one_trouble"]
    # the FSRS cards in the file are the scheduler's
    again = Progress.open("aki", tmp_path)
    assert again.cards["ikatako"].keys() == lesson.scheduler.cards.keys()


def test_no_level_up_below_ninety_percent(tmp_path):
    _, s, _, _ = run(tmp_path, placement=False, wrong_every=5)  # 80 % right
    assert s["level_ups"] == []


def test_placement_starts_a_good_learner_higher(tmp_path):
    _, s, _, prog = run(tmp_path, cards=4)
    assert s["level_start"] == "numbers" and s["level_ups"][0] == "fast"
    placed = [a for a in prog.answers if a["placement"]]
    assert len(placed) == 2 * 5  # two per level, every level passed


def test_a_mistake_comes_back_soon(tmp_path):
    lesson, _, _, prog = run(tmp_path, placement=False, wrong_every=3, cards=12)
    answers = prog.answers
    wrong = [a for a in answers if a["verdict"] != "correct"]
    assert wrong
    first = wrong[0]
    later = [a["n"] for a in answers if a["situation"] == first["situation"] and a["n"] > first["n"]]
    assert later and later[0] - first["n"] <= 5  # relearn gap 3: back within a few cards


def test_slow_answers_come_back_sooner_than_fast():
    sched = Scheduler()
    d = drills.get("ikatako")
    lv = d.level_of("numbers")
    a, b = lv.situations[0], lv.situations[1]
    sched.review(a, Feedback("correct", 1.7, "", "", "", ()), lv.target_s, START)
    sched.review(b, Feedback("correct", 0.9, "", "", "", ()), lv.target_s, START)
    assert sched.cards[a.key].due < sched.cards[b.key].due
    assert rating(Feedback("wrong", 0.5, "", "", "", ()), 1.5) == fsrs.Rating.Again
    assert rating(Feedback("false_start", None, "", "", "", ()), 1.5) == fsrs.Rating.Again


def test_confusion_drives_new_picks(tmp_path):
    d = drills.get("ikatako")
    lv = d.level_of("one_trouble")
    from collections import Counter
    conf = Counter({("tako|mirror", "ika|mirror"): 3})
    picks = Counter()
    for seed in range(40):
        s = Scheduler(confusion=conf, seed=seed)
        picks[s.pick(lv.situations, START).key] += 1
    others = [picks[x.key] for x in lv.situations if x.key not in ("tako|mirror", "ika|mirror")]
    assert (picks["tako|mirror"] + picks["ika|mirror"]) / 2 > 2 * sum(others) / len(others)  # weight 3


@pytest.mark.parametrize("game", ["ikatako", "mokochaka", "takoyaki", "seasaltpaper", "toratanu"])
def test_cli_runs_a_drill_of_every_game(tmp_path, game):
    r = CliRunner().invoke(cli, ["teach", game, "--script", "oracle", "--seed", "1", "--no-voice", "--cards", "3",
                                 "--data", str(tmp_path), "--start", "2026-03-01T09:00:00"])
    assert r.exit_code == 0, r.output
    assert "CORRECT" in r.output and "session 1:" in r.output
    assert (tmp_path / "learners" / "you.jsonl").exists()


def test_cli_report_and_bad_input(tmp_path):
    runner = CliRunner()
    runner.invoke(cli, ["teach", "ikatako", "--script", "oracle", "--no-voice", "--cards", "3", "--data", str(tmp_path)])
    r = runner.invoke(cli, ["teach", "--report", "--data", str(tmp_path), "-o", str(tmp_path / "r.html")])
    assert r.exit_code == 0, r.output
    page = (tmp_path / "r.html").read_text()
    assert "<svg" in page and "accuracy per level" in page and "http" not in page.replace("http://www.w3.org/2000/svg", "")
    r = runner.invoke(cli, ["teach", "chess"])
    assert r.exit_code == 2 and "unknown game" in r.output
    r = runner.invoke(cli, ["teach", "ikatako", "--learner", "../x", "--data", str(tmp_path)])
    assert r.exit_code == 2 and "learner name" in r.output and "Traceback" not in r.output


def test_a_damaged_progress_file_is_warned_about_not_a_crash(tmp_path):
    runner = CliRunner()
    runner.invoke(cli, ["teach", "takoyaki", "--script", "oracle", "--no-voice", "--cards", "2", "--data", str(tmp_path)])
    path = tmp_path / "learners" / "you.jsonl"
    path.write_text(path.read_text() + "{not json\n" + '{"type": "fsrs", "drill": "takoyaki"}\n')
    r = runner.invoke(cli, ["teach", "takoyaki", "--script", "oracle", "--no-voice", "--cards", "2", "--data", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert r.output.count("progress line skipped") == 2 and "Traceback" not in r.output


def test_report_is_the_same_page_for_the_same_progress(tmp_path):
    from referee.teach.report import build_report
    _, _, _, prog = run(tmp_path, wrong_every=3, cards=12)
    page = build_report(Progress.open("aki", tmp_path))
    assert page == build_report(Progress.open("aki", tmp_path))
    assert "one_trouble" in page or "numbers" in page
    assert page.count("<svg") == 2 and "still due" in page

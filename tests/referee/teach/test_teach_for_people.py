"""What a learner reads and presses (issue 33, item 7): the answer time counted down and the
quit keys shown, Esc quitting at any moment, false starts counted as false starts, one level
header, a summary in words, and one default language for teach and live."""

from __future__ import annotations

import io
import json
import re
from datetime import datetime, timezone

from click.testing import CliRunner

from referee.cli import cli
from referee.language import table_language
from referee.teach import drills
from referee.teach.keys import FakeClock, ScriptedKeys
from referee.teach.lesson import Lesson, LessonParams
from referee.teach.progress import Progress
from referee.teach.terminal import TerminalView, head_text, summary_text

START = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


class Recorder(TerminalView):
    """The terminal view (ANSI on, into a string) that also keeps every countdown call."""

    def __init__(self, game="ikatako"):
        super().__init__(io.StringIO(), ansi=True, game=game)
        self.ticks: list[float] = []

    def countdown(self, left, presses):
        self.ticks.append(left)
        super().countdown(left, presses)


def lesson(tmp_path, policy, cards=3, view=None, name="ikatako", **kw):
    d = drills.get(name)
    view = view or Recorder(d.game)
    les = Lesson(d, Progress.open("aki", tmp_path), ScriptedKeys(policy, FakeClock()), view, learner="aki",
                 seed=5, start=START, params=LessonParams(cards=cards), placement=False, **kw)
    return les, view


def test_the_answer_time_counts_down_on_screen_and_the_quit_keys_are_shown(tmp_path):
    les, view = lesson(tmp_path, lambda sit: [], cards=1)  # nobody answers: the 3 s run out
    s = les.run()
    assert s["cards"] == 1
    ticks = view.ticks
    assert ticks[0] == 3.0 and ticks[-1] <= 0.1 and ticks == sorted(ticks, reverse=True)
    assert len(ticks) >= 29  # every 0.1 s of the 3 s
    out = view.out.getvalue()
    assert "answer within 3 s" in out and "esc or q: quit" in out
    assert "[2.5 s left]" in out and "[0.1 s left]" in out


def test_the_countdown_changes_no_reaction_time(tmp_path):
    """The same presses give the same reaction with and without a view that counts down."""
    d = drills.get("ikatako")

    def policy(sit):
        return [(0.4 + 0.1 * i, k) for i, k in enumerate(d.oracle(sit))]

    counted, _ = lesson(tmp_path / "a", policy, cards=4)
    plain, _ = lesson(tmp_path / "b", policy, cards=4, view=TerminalView(io.StringIO(), game="ikatako"))
    a, b = counted.run(), plain.run()
    assert a["median_reaction"] == b["median_reaction"] and a["right"] == b["right"] == 4
    assert [x["reaction"] for x in counted.answers] == [x["reaction"] for x in plain.answers]


def test_escape_quits_even_during_the_feedback_pause(tmp_path):
    d = drills.get("ikatako")

    def policy(sit):  # a right answer, then Esc while its feedback is on screen
        keys = d.oracle(sit)
        return [(0.4 + 0.1 * i, k) for i, k in enumerate(keys)] + [(0.4 + 0.1 * len(keys) + 0.3, "escape")]

    les, _ = lesson(tmp_path, policy, cards=10)
    s = les.run()
    assert les.quit and s["cards"] == 1  # before: Esc only skipped the pause and the next card came


def test_a_false_start_is_counted_as_one_never_as_a_confusion(tmp_path):
    les, view = lesson(tmp_path, lambda sit: [(-0.2, "f"), (0.5, "enter")], cards=3)
    s = les.run()
    assert [a["verdict"] for a in les.answers] == ["false_start"] * 3
    assert all(a["answered_as"] is None for a in les.answers)
    assert s["false_starts"] == 3 and s["confused"] == []
    text = summary_text(s)
    assert "false starts (pressed before the card appeared): 3" in text and "mixed up" not in text
    assert "FALSE START" in view.out.getvalue()


def test_old_progress_files_no_longer_count_a_false_start_as_a_confusion(tmp_path):
    prog = Progress.open("aki", tmp_path)
    for verdict in ("false_start", "wrong"):
        prog.append({"type": "answer", "session": 1, "n": 1, "drill": "ikatako", "rule": "creatures",
                     "situation": "ikatako|", "verdict": verdict, "reaction": None, "answered": "none:",
                     "answered_as": "mirror|", "placement": False, "at": START.isoformat()})
    assert Progress.open("aki", tmp_path).confusion("ikatako") == {("ikatako|", "mirror|"): 1}


def test_the_summary_says_the_mix_ups_in_words_with_the_rule(tmp_path):
    d = drills.get("ikatako")

    def policy(sit):  # the answer the card would need with Mirror in the field
        keys = d.oracle(d.make(sit.data["card"] + "|mirror"))
        return [(0.5 + 0.1 * i, k) for i, k in enumerate(keys)]

    les, _ = lesson(tmp_path, policy, cards=6, level="creatures")
    s = les.run()
    assert s["confused"], "ika and tako answered as with Mirror are confusions"
    text = summary_text(s)
    mixed = text.split("mixed up:")[1]
    assert "|" not in mixed and "+" not in mixed  # no internal ids
    assert re.search(r"(ika|tako), nothing in the field: you gave the answer for (ika|tako) with Mirror in the "
                     r"field \((RIGHT|LEFT) hand, say (ika|tako)\)", mixed), mixed
    assert "The rule: No trouble in the field" in mixed
    for (a, b, n), line in zip(s["confused_keys"], s["confused"]):
        assert d.words(a, "en") in line and f"({n} time" in line
    narrow = summary_text(s, width=60).split("mixed up:")[1]  # a terminal 61 wide: wrapped at words
    assert all(len(x) <= 60 for x in narrow.splitlines()) and narrow.split() == mixed.split()


def test_mokochaka_mix_ups_name_the_call_given_and_the_right_one():
    d = drills.get("mokochaka")
    line = d.confusion_text("moko2+paka3+paka4", "call:pome", 2, "en")
    assert line.startswith("the tops moko 2, paka 3, paka 4: you called pome (2 times)")
    assert "The right call: pakamoko" in line and "the most first" in line
    assert "+" not in line.split(":")[0] and "call:pome" not in line


def test_one_level_header_and_the_start_level_say_the_same_words(tmp_path):
    d = drills.get("ikatako")
    levels = d.levels()
    placement = head_text({"n": 3, "of": None, "level": levels[1], "index": 1, "placement": True,
                           "levels": len(levels)})
    assert placement == f"placement: testing level 2 of 5 ({levels[1].title['en']}) · card 3"
    normal = head_text({"n": 4, "of": 20, "level": levels[0], "index": 0, "at": 1, "levels": 5,
                        "current": levels[1]})
    # a review card of level 1 while the learner is at level 2: the header keeps the learner's level
    assert normal == f"level 2 of 5: {levels[1].title['en']} · card 4/20 · review of level 1"
    # the placement's closing message says the level the header then shows
    out = io.StringIO()
    les = Lesson(d, Progress.open("aki", tmp_path), ScriptedKeys(lambda sit: [(0.5, "enter")], FakeClock()),
                 TerminalView(out, game="ikatako"), learner="aki", seed=1, start=START, params=LessonParams(cards=1))
    les.run()
    text = out.getvalue()
    start = re.search(r"Start level: (\d) of 5: (.*)", text)
    assert start is not None
    assert f"level {start.group(1)} of 5: {start.group(2)} · card 1/1" in text


def test_one_default_language_the_tables_then_the_locale(tmp_path):
    cal = tmp_path / "cal.json"
    cal.write_text(json.dumps({"version": 2, "extra": {"lang": "en"}}))
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"version": 2}))
    assert table_language("ja", cal) == "ja"  # --lang wins
    assert table_language(None, cal, env={"LANG": "ja_JP.UTF-8"}) == "en"  # the table's
    assert table_language(None, bare, env={"LANG": "en_US.UTF-8"}) == "ja"  # calibrated in Japanese
    assert table_language(None, None, env={"LANG": "ja_JP.UTF-8"}) == "ja"
    assert table_language(None, None, env={"LC_ALL": "C", "LANG": "ja_JP.UTF-8"}) == "en"
    assert table_language(None, None, env={}) == "en"


def test_teach_follows_the_locale_when_no_table_is_named(tmp_path):
    args = ["teach", "ikatako", "--script", "oracle", "--cards", "1", "--no-placement", "--no-voice",
            "--data", str(tmp_path), "--seed", "1"]
    ja = CliRunner().invoke(cli, args, env={"LC_ALL": "", "LC_MESSAGES": "", "LANG": "ja_JP.UTF-8"})
    en = CliRunner().invoke(cli, args, env={"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"})
    assert ja.exit_code == en.exit_code == 0, ja.output + en.output
    assert "反応して" in ja.output and "React!" in en.output


def test_the_progress_page_says_levels_and_mix_ups_in_the_summarys_words(tmp_path):
    from referee.teach.report import build_report

    d = drills.get("ikatako")

    def policy(sit):
        keys = d.oracle(d.make(sit.data["card"] + "|mirror"))
        return [(0.5 + 0.1 * i, k) for i, k in enumerate(keys)]

    les, _ = lesson(tmp_path, policy, cards=6, level="creatures")
    les.run()
    page = build_report(Progress.open("aki", tmp_path))
    assert "level reached: <b>2 of 5: ika and tako: the hand and the name</b>" in page  # --level is the level
    assert "level 2: ika and tako: the hand and the name</text>" in page  # the accuracy bars: levels, not ids
    assert ">creatures<" not in page
    mixed = page.split("<h3>mixed up</h3>")[1]
    assert "you gave the answer for" in mixed and "with Mirror in the field" in mixed
    assert "|" not in re.sub(r"<[^>]+>", "", mixed.split("</table>")[0])

"""Every drill's right answer is judged right by the referee's judge, and typical mistakes are
judged wrong with the reason naming the rule, the fact and what the learner did."""

import pytest

from referee.teach import drills
from referee.teach.core import Press


def presses(keys, start=0.35, step=0.1):
    return [Press(k, round(start + step * i, 4)) for i, k in enumerate(keys)]


@pytest.mark.parametrize("name", drills.names())
def test_the_oracle_is_right_on_every_situation(name):
    d = drills.get(name)
    n = 0
    for lv in d.levels():
        assert lv.situations, f"{name} level {lv.rule} has no situation"
        for s in lv.situations:
            fb = d.feedback(s, presses(d.oracle(s)), lv, "en")
            assert fb.verdict == "correct", (s.key, fb.reason())
            n += 1
    assert n >= 40


def test_ikatako_mirror_reason_is_the_issue_example():
    d = drills.get("ikatako")
    s, lv = d.situation("tako|mirror"), d.level_of("one_trouble")
    fb = d.feedback(s, presses(["f", "i", "enter"]), lv, "en")
    assert fb.verdict == "wrong"
    assert fb.reason() == "Mirror is in the field: tako → RIGHT hand, say ika; you raised LEFT"
    assert fb.spoken == ("wrong", "r:mirror", "hand:right", "w:ika")
    # the judge decided: the record holds the learner's raise and the verdict names them wrong
    v = [x for x in fb.lines if x.get("type") == "verdict"][-1]
    assert v["wrong"] == ["you"] and "left hand" in v["why"]["you"]
    ja = d.feedback(s, presses(["f", "i", "enter"]), lv, "ja")
    assert ja.reason() == "場にミラー: タコ → 右手、「イカ」; あなたは左手を上げた"


def test_ikatako_stacked_rulebook_example_and_confusion():
    d = drills.get("ikatako")
    s = d.situation("ika|mirror+number+repeat")
    lv = d.level_of("stacked")
    assert d.oracle(s) == ["f", "8", "8", "enter"]  # Repeat + Mirror + Number, ika -> LEFT, 8 8
    fb = d.feedback(s, presses(["j", "i", "enter"]), lv, "en")
    assert fb.verdict == "wrong" and "you raised RIGHT" in fb.did and "you said ika" in fb.did
    assert fb.answered_as == "ika|"  # answered as if nothing lay in the field


def test_false_start_and_missed_and_reaction_time_from_press():
    d = drills.get("ikatako")
    s, lv = d.situation("ika|"), d.level_of("creatures")
    early = [Press("j", -0.2)] + presses(["j", "i", "enter"])
    assert d.feedback(s, early, lv, "en").verdict == "false_start"
    assert d.feedback(s, [], lv, "en").verdict == "missed"
    # reaction = the later of the hand and the word, as the judge times it
    fb = d.feedback(s, [Press("j", 0.61), Press("i", 0.42), Press("enter", 0.9)], lv, "en")
    assert fb.verdict == "correct" and fb.reaction == pytest.approx(0.61)
    # an answer after the window is missed (the judge's window)
    slow = d.feedback(s, [Press("j", 3.2), Press("i", 3.3)], lv, "en")
    assert slow.verdict == "missed"


def test_ikatako_trouble_card_wants_nothing():
    d = drills.get("ikatako")
    s, lv = d.situation("mirror|"), d.level_of("one_trouble")
    assert d.feedback(s, presses(["enter"]), lv, "en").verdict == "correct"
    fb = d.feedback(s, presses(["f", "t", "enter"]), lv, "en")
    assert fb.verdict == "wrong" and "nobody reacts" in fb.fact


def test_rival_in_the_record():
    from referee.teach.drills.base import RivalAnswer
    d = drills.get("ikatako")
    s, lv = d.situation("tako|"), d.level_of("creatures")
    fb = d.feedback(s, presses(["f", "t", "enter"], start=0.6), lv, "en", rival=RivalAnswer(0.5))
    v = [x for x in fb.lines if x.get("type") == "verdict"][-1]
    assert v["first"] == "rival" and fb.verdict == "correct" and "rival was first" in fb.rival
    fb = d.feedback(s, presses(["f", "t", "enter"], start=0.3), lv, "en", rival=RivalAnswer(0.5))
    assert "you beat the rival" in fb.rival


def test_coop_total_and_uzushio():
    d = drills.get("ikatako-coop")
    s, lv = d.situation("12+ika"), d.level_of("total")
    assert d.oracle(s) == ["j", "i", "2", "2", "enter"]
    fb = d.feedback(s, presses(["j", "i", "2", "1", "enter"]), lv, "en")
    assert fb.verdict == "wrong" and "= 22" in fb.fact and "you said ika 21" in fb.did
    u = d.level_of("uzushio")
    fwd = d.situation("uzushio6@1>")  # ben flips uzushio going forwards -> the order turns: 'you' next
    assert d.oracle(fwd) == ["1", "enter"]
    back = d.situation("3@1<")  # a 3 while the order runs backwards: 'you' next too
    assert d.oracle(back) == ["1", "enter"]
    assert d.feedback(fwd, presses(["3", "enter"]), u, "en").verdict == "wrong"


def test_mokochaka_calls():
    d = drills.get("mokochaka")
    lv = d.level_of("gabu")
    s = next(x for x in lv.situations if x.key == "gabu1+moko4+pome1")
    fb = d.feedback(s, presses(["m", "o", "enter"]), lv, "en")
    assert fb.verdict == "wrong" and "Gabu eats Moko (moko 4 − gabu 1 = 3)" in fb.rule and "pomemoko" in fb.fact
    grab = d.level_of("grab")
    g = grab.situations[0]
    call_only = [k for k in d.oracle(g) if k != "space"]
    fb = d.feedback(g, presses(call_only), grab, "en")
    assert fb.verdict == "wrong" and "you did not grab" in fb.did


def test_takoyaki_seasaltpaper_toratanu_mistakes():
    t = drills.get("takoyaki")
    lv = t.level_of("slots")
    s = next(x for x in lv.situations if x.key == "x.x......./3H")
    fb = t.feedback(s, presses(["3", "c", "enter"]), lv, "en")
    assert fb.verdict == "wrong" and "slot already face up" in fb.did
    ssp = drills.get("seasaltpaper")
    lv = ssp.level_of("score")
    s = lv.situations[0]
    right = "".join(k for k in ssp.oracle(s) if k != "enter")
    fb = ssp.feedback(s, presses(list(str(int(right) + 1)) + ["enter"]), lv, "en")
    assert fb.verdict == "wrong" and f"= {right}" in fb.fact
    tor = drills.get("toratanu")
    lv = tor.level_of("best")
    s = lv.situations[0]
    fb = tor.feedback(s, presses(["1", "2", "enter"]), lv, "en")
    assert fb.verdict == "wrong" and "not legal" in fb.did


def test_mokochaka_rival_races_for_the_token():
    from referee.teach.drills.base import RivalAnswer
    d = drills.get("mokochaka")
    lv = d.level_of("grab")
    s = lv.situations[0]
    keys = d.oracle(s)
    slow = d.feedback(s, presses(keys, start=0.9), lv, "en", rival=RivalAnswer(0.5))
    v = [x for x in slow.lines if x.get("type") == "verdict"][-1]
    assert v["grab_winner"] == "rival" and slow.verdict == "correct" and "rival grabbed" in slow.rival
    fast = d.feedback(s, presses(keys, start=0.2), lv, "en", rival=RivalAnswer(0.9))
    assert "before the rival" in fast.rival


def test_cli_same_seed_same_progress_file(tmp_path):
    from click.testing import CliRunner
    from referee.cli import cli
    args = ["teach", "mokochaka", "--script", "oracle", "--seed", "4", "--no-voice", "--cards", "6",
            "--start", "2026-03-01T09:00:00", "--rival"]
    r1 = CliRunner().invoke(cli, args + ["--data", str(tmp_path / "a")])
    r2 = CliRunner().invoke(cli, args + ["--data", str(tmp_path / "b")])
    assert r1.exit_code == 0 and r1.output.replace(str(tmp_path / "a"), "") == r2.output.replace(str(tmp_path / "b"), "")
    a = (tmp_path / "a" / "learners" / "you.jsonl").read_bytes()
    assert a == (tmp_path / "b" / "learners" / "you.jsonl").read_bytes() and a.count(b'"type": "answer"') == 6 + 10


@pytest.mark.parametrize("name", drills.names())
def test_every_spoken_phrase_has_words_in_both_languages(name):
    from referee.teach.phrases import LANGS, spoken_text
    d = drills.get(name)
    for lv in d.levels():
        for s in lv.situations[:12]:
            for keys in (["enter"], ["f", "2", "enter"], ["m", "1", "d", "y", "enter"]):
                fb = d.feedback(s, presses(keys), lv, "en")
                for k in fb.spoken:
                    for lang in LANGS:
                        assert spoken_text(k, lang), (name, s.key, k)

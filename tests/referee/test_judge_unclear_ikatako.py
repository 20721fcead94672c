"""IKATAKO never penalises or awards on what the referee did not clearly perceive (issue 30,
docs/rules.md "The referee's own uncertainty"): an unclear word, an unclear hand, a card not
read, a dead channel or a seat not seen makes the player unclear — no penalty, no point, no
card taken on it — unless every reading of it gives the same verdict; a first that rests on
an unclear observation is nobody's; the table's answers (``--decide``, ``decision`` lines with
``card_index``) re-judge the card as if it had been clear. Versus, co-op and solo."""

from __future__ import annotations

import json

import pytest
from referee.judge import IncrementalJudge, judge
from referee.judging.ikatako import format_table
from referee.judging.unclear import Answer, Clarity
from session.events import Event, SessionHeader
from session.record import parse_lines

VERSUS = {"t": 0.0, "type": "session", "game": "ikatako", "mode": "versus", "players": ["aki", "ben", "chie"],
          "options": {"tie_ms": 33, "window": 3.0}}


def card(t, cid, **kw):
    return {"t": t, "type": "card", "card": cid, "zone": "field", **kw}


def shout(t, player, *words):
    return {"t": t, "type": "shout", "player": player, "words": list(words)}


def hand(t, player, side, state="up", conf=None):
    return {"t": t, "type": "hand", "player": player, "side": side, "state": state,
            **({} if conf is None else {"conf": conf})}


def lost(t, player, detail="device unplugged"):
    return {"t": t, "type": "audio_status", "state": "lost", "player": player, "detail": detail}


def judged(header, *events, **kw):
    events = sorted(events, key=lambda e: e["t"])  # (a stable sort: the test's order at one instant)
    record = parse_lines([json.dumps(header)] + [json.dumps(e) for e in events])
    assert record.issues == []
    return judge(record, **kw)


def verdicts(header, *events, **kw):
    return [x for x in judged(header, *events, **kw).lines if x["type"] == "verdict"]


# ----------------------------------------------------------------------------- versus

#: card 3 at 1.0 s: aki right at +0.5 s, chie says nothing; ``ben`` is what the test adds
def three(*ben):
    return [card(1.0, "3"), shout(1.5, "aki", "3"), *ben, card(5.0, "2")]


def test_versus_an_unclear_word_is_no_penalty_and_no_point():
    v = verdicts(VERSUS, *three(shout(1.7, "ben")))[0]
    assert v["first"] == "aki" and v["correct"] == ["aki"] and v["taken_by"] == "aki"
    assert "ben" not in v["wrong"] + v["missed"] + v["correct"] and "ben" not in v["penalties"]
    assert v["unclear"] == {"ben": "heard a shout at +0.700 s, the word was unclear"}
    assert v["missed"] == ["chie"]  # heard saying nothing, channel live: missed as ever
    assert "first_unclear" not in v  # ben's onset came after aki's + tie_ms


def test_versus_a_word_below_word_conf_is_unclear_not_wrong():
    unsure = dict(shout(1.7, "ben", "2"), conf=0.62)
    v = verdicts(VERSUS, *three(unsure), clarity=Clarity(word_conf=0.8))[0]
    assert "ben" not in v["wrong"] + v["missed"] + v["correct"] and "ben" not in v["penalties"]
    assert v["unclear"] == {"ben": "heard a shout at +0.700 s: '2' at confidence 0.62, below 0.8 — unclear"}
    assert v["first"] == "aki" and v["correct"] == ["aki"]
    assert verdicts(VERSUS, *three(unsure), clarity=Clarity(word_conf=0.6))[0]["wrong"] == ["ben"]  # sure enough


def test_versus_an_unclear_word_before_the_fastest_makes_the_first_unclear():
    v = verdicts(VERSUS, *three(shout(1.3, "ben")))[0]
    assert v["first"] is None and v["first_unclear"] is True and v["taken_by"] is None
    assert v["correct"] == ["aki"] and v["times"] == {"aki": 0.5}  # the other verdicts stand
    assert v["missed"] == ["chie"] and "ben" in v["unclear"] and v["tie"] == []


def test_versus_an_unclear_word_within_the_tie_tolerance_makes_the_first_unclear():
    assert verdicts(VERSUS, *three(shout(1.533, "ben")))[0]["first_unclear"] is True  # inclusive
    late = verdicts(VERSUS, *three(shout(1.534, "ben")))[0]
    assert late["first"] == "aki" and "first_unclear" not in late and "ben" in late["unclear"]


def test_versus_an_unclear_word_cannot_rescue_a_clear_wrong_hand():
    v = verdicts(VERSUS, card(1.0, "ika"), hand(1.4, "ben", "left"), shout(1.45, "ben"), card(5.0, "2"))[0]
    assert v["wrong"] == ["ben"] and "ben" not in v.get("unclear", {}) and "ben" in v["penalties"]
    assert v["why"]["ben"] == "raised left hand, expected right hand"  # not "said an unclear word"


def test_versus_an_unclear_sound_and_no_hand_is_missed_not_wrong():
    """No hand where one was required, and a sound whose word was not made out: every reading
    penalises (the word and no hand: wrong; no utterance: missed), so the penalty stands — but
    the only thing that would make it *wrong* is the unclear sound, perhaps cross-talk: the
    clearly perceived reaction is none, so the player is missed (docs/rules.md, "Only when it
    matters")."""
    v = verdicts(VERSUS, card(1.0, "ika"), shout(1.4, "aki", "ika"), hand(1.45, "aki", "right"),
                 shout(1.6, "ben"), card(5.0, "2"))[0]
    assert v["missed"] == ["ben", "chie"] and v["wrong"] == [] and "ben" not in v.get("unclear", {})
    assert "ben" in v["penalties"]  # the same penalty as before: only the name of it changes
    assert v["why"]["ben"].startswith("no clear reaction within 3 s") and "+0.600 s" in v["why"]["ben"]


def test_versus_an_unclear_hand_alone_where_a_word_was_due_is_missed():
    v = verdicts(VERSUS, card(1.0, "ika"), shout(1.4, "aki", "ika"), hand(1.45, "aki", "right"),
                 hand(1.6, "ben", "right", conf=0.2), card(5.0, "2"))[0]
    assert "ben" in v["missed"] and "ben" not in v["wrong"] and "ben" in v["penalties"]


def test_versus_an_unclear_word_on_a_trouble_card_is_unclear():
    v = verdicts(VERSUS, card(1.0, "mirror"), shout(1.4, "ben"), card(5.0, "2"))[0]
    assert v["wrong"] == [] and "ben" in v["unclear"] and v["penalties"] == {}


def test_versus_an_unclear_word_before_a_clear_right_one_is_unclear():
    """The first utterance counts: when it was not made out, a right word after it is no proof."""
    v = verdicts(VERSUS, *three(shout(1.3, "ben"), shout(1.6, "ben", "3")))[0]
    assert "ben" in v["unclear"] and "ben" not in v["correct"] and v["first_unclear"] is True


def test_versus_an_unclear_hand_is_unclear_and_the_threshold_is_a_parameter():
    events = [card(1.0, "tako"), hand(1.3, "ben", "left", conf=0.3), shout(1.35, "ben", "tako"), card(5.0, "2")]
    v = verdicts(VERSUS, *events)[0]
    assert "ben" in v["unclear"] and v["unclear"]["ben"].startswith("hand unclear: left hand up at +0.300 s")
    assert v["first"] is None and v["first_unclear"] is True and "ben" not in v["penalties"]
    sure = verdicts(VERSUS, *events, clarity=Clarity(hand_conf=0.2))[0]
    assert sure["first"] == "ben" and "unclear" not in sure
    with pytest.raises(Exception, match="hand_conf"):
        Clarity(hand_conf=1.5)


def test_versus_an_unclear_hand_that_changes_nothing_is_no_doubt():
    # a doubtful "down" of a hand that was not up, and a doubtful raise after the window: every reading agrees
    v = verdicts(VERSUS, card(1.0, "3"), shout(1.4, "ben", "3"), hand(1.6, "ben", "left", "down", conf=0.2),
                 hand(4.5, "aki", "right", conf=0.2), card(5.0, "2"))[0]
    assert v["first"] == "ben" and "unclear" not in v
    # but a doubtful lowering of a hand left up from before decides whether it was an extra hand
    stale = verdicts(VERSUS, hand(0.5, "chie", "left"), card(1.0, "3"), hand(1.6, "chie", "left", "down", conf=0.2),
                     shout(1.7, "chie", "3"), card(5.0, "2"))[0]
    assert "chie" in stale["unclear"] and stale["unclear"]["chie"].startswith("hand unclear: left hand down")


def test_versus_a_card_not_read_judges_nobody_and_its_reading_moves_the_game_on():
    events = [card(1.0, "mirror", conf=0.3), hand(1.3, "aki", "right"), shout(1.4, "aki", "ika"),
              card(5.0, "tako"), hand(5.3, "ben", "right"), shout(5.4, "ben", "ika"), card(9.0, "2")]
    first, second = verdicts(VERSUS, *events)[:2]
    assert first["card_unclear"].startswith("card not read: mirror at confidence 0.30 (below 0.5)")
    assert set(first["unclear"]) == {"aki", "ben", "chie"} and first["wrong"] == [] and first["penalties"] == {}
    assert second["troubles"] == ["mirror"] and second["first"] == "ben"  # the best reading stays in the field
    assert verdicts(VERSUS, *events, clarity=Clarity(card_conf=0.2))[0]["wrong"] == ["aki"]


def test_versus_missed_needs_a_live_channel():
    v = verdicts(VERSUS, lost(0.5, "chie"), *three())[0]
    assert v["missed"] == ["ben"] and v["unclear"]["chie"].startswith("not heard: audio missing from 0.50 s")
    assert v["unjudged"] == {"chie": v["unclear"]["chie"]}  # the older field keeps its meaning
    assert verdicts(VERSUS, *three())[0]["missed"] == ["ben", "chie"]  # heard silent: missed


def test_versus_a_dead_channel_before_the_fastest_makes_the_first_unclear():
    v = verdicts(VERSUS, lost(0.5, "ben"), *three())[0]
    assert v["first"] is None and v["first_unknown"] == ["ben"] and v["first_unclear"] is True


def test_versus_a_seat_not_seen_is_not_missed():
    skipped = {"t": 4.0, "type": "skipped", "what": "video", "from": 4.0, "to": 9.0, "player": "chie",
               "reason": "out of view"}
    v = verdicts(VERSUS, card(1.0, "3"), skipped, card(5.0, "tako"), hand(5.3, "aki", "left"),
                 shout(5.35, "aki", "tako"), shout(5.5, "chie", "tako"), card(9.0, "2"))[1]
    assert v["first"] == "aki" and "chie" not in v["wrong"] and v["unclear"]["chie"].startswith("not seen")


def test_versus_decide_applies_the_tables_answer():
    events = three(shout(1.3, "ben"))
    right = verdicts(VERSUS, *events, answers=[Answer.parse("1:ben=correct")])[0]
    assert right["first"] == "ben" and right["times"] == {"ben": 0.3, "aki": 0.5} and right["taken_by"] == "ben"
    assert right["decided"] == {"ben": "correct"} and "unclear" not in right.get("unclear", {}).get("ben", "")
    wrong = verdicts(VERSUS, *events, answers=[Answer.parse("1:ben=wrong")])[0]
    assert wrong["first"] == "aki" and wrong["wrong"] == ["ben"] and "ben" in wrong["penalties"]
    assert wrong["why"]["ben"].startswith("the table's answer: wrong (heard a shout")


def test_versus_a_decision_line_is_the_same_answer_and_the_last_one_counts():
    answer = {"t": 9.0, "type": "decision", "card_index": 1, "player": "ben", "verdict": "correct"}
    again = dict(answer, t=9.5, verdict="wrong")
    by_line = judged(VERSUS, *three(shout(1.3, "ben")), answer, again)
    by_cli = judged(VERSUS, *three(shout(1.3, "ben")), answers=[Answer.parse("1:ben=wrong")])
    assert by_line.jsonl() == by_cli.jsonl()
    # the command line's answer comes after the record's: it wins
    overridden = judged(VERSUS, *three(shout(1.3, "ben")), answer, answers=[Answer.parse("1:ben=wrong")])
    assert overridden.jsonl() == by_cli.jsonl()


def test_versus_an_answer_about_a_clear_verdict_or_no_card_is_a_warning():
    j = judged(VERSUS, *three(), answers=[Answer.parse("1:aki=wrong"), Answer.parse("7:ben=correct")])
    v = j.lines[0]
    assert v["first"] == "aki" and "decided" not in v
    notes = [n.message for n in j.notes]
    assert any("aki was judged on card 1 on what the referee clearly perceived" in n for n in notes)
    assert any("there is no verdict 7" in n for n in notes)


def test_versus_first_decision_by_card_index_settles_an_unclear_first():
    v = verdicts(VERSUS, *three(shout(1.3, "ben")), answers=[Answer.parse("1:first=aki")])[0]
    assert v["first"] == "aki" and "first_unclear" not in v and "ben" in v["unclear"]


def test_versus_a_live_answer_rejudges_like_the_batch():
    events = [*three(shout(1.3, "ben")), {"t": 9.0, "type": "decision", "card_index": 1, "player": "ben",
                                           "verdict": "correct"}]
    inc = IncrementalJudge(SessionHeader.from_dict(VERSUS))
    said = []
    for e in events:
        said += inc.feed(Event.from_dict(e))
    assert inc.finish().jsonl() == judged(VERSUS, *events).jsonl()
    assert [v["first"] for v in said if v["type"] == "verdict"] == [None, "ben"]  # the revised verdict follows


def test_versus_the_result_and_the_table_mark_unclear_items():
    j = judged(VERSUS, *three(shout(1.3, "ben")))
    assert j.lines[-1]["unclear"] == {"aki": 0, "ben": 1, "chie": 0}
    text = format_table(j, SessionHeader.from_dict(VERSUS))
    assert "unclear: nobody takes it" in text and "unclear: ben (heard a shout at +0.300 s" in text
    assert "unclear" in text.splitlines()[text.splitlines().index("Scoreboard (record ends with 26 card(s) left)") + 1]
    assert "--decide N:PLAYER=correct|wrong" in text
    clear = judged(VERSUS, *three())
    assert "unclear" not in clear.lines[-1]  # a clear record's result is as it was


def test_versus_no_first_is_announced_while_an_unclear_word_may_be_faster():
    events = three(shout(1.3, "ben"))
    inc = IncrementalJudge(SessionHeader.from_dict(VERSUS))
    heard = []
    for e in events[:-1]:
        inc.feed(Event.from_dict(e))
    heard += inc.announce(4.5)
    assert not [a for a in heard if a["what"] in ("first", "tie", "wrong")]
    assert [a["player"] for a in heard if a["what"] == "missed"] == ["chie"]


def test_judge_command_decide_and_min_conf(tmp_path, run_cli):
    path = tmp_path / "s.jsonl"
    events = sorted([VERSUS, *three(shout(1.3, "ben"))], key=lambda e: e["t"])
    path.write_text("\n".join(json.dumps(x) for x in events) + "\n", encoding="utf-8")
    run = run_cli("judge", path, "--json", "--decide", "1:ben=wrong")
    assert run.exit_code == 0, run.output
    v = json.loads(run.stdout.splitlines()[0])
    assert v["first"] == "aki" and v["decided"] == {"ben": "wrong"}
    bad = run_cli("judge", path, "--decide", "1:ben=maybe")
    assert bad.exit_code == 2 and "the answer must be correct or wrong" in bad.output
    worse = run_cli("judge", path, "--min-conf", "hand=2")
    assert worse.exit_code == 2 and "hand_conf" in worse.output


# ----------------------------------------------------------------------------- co-op and solo

COOP = dict(VERSUS, mode="coop", players=["aki", "ben"])
SOLO = dict(VERSUS, mode="solo", players=["aki"])
MODES = [pytest.param(COOP, id="coop"), pytest.param(SOLO, id="solo")]


def _coop(header, first_card, *reaction, answers=(), clarity=None):
    """Card ``first_card`` flipped by aki at 1.0 s with ``reaction``; then a 3 declared right
    by the next active player at 5.0 s (on the total the table went on with)."""
    nxt = header["players"][-1]
    return verdicts(header, first_card, *reaction, card(5.0, "3", by=nxt), shout(5.4, nxt, "?"),
                    answers=answers, clarity=clarity)


@pytest.mark.parametrize("header", MODES)
def test_coop_an_unclear_word_is_no_miss_and_no_score(header):
    v = _coop(header, card(1.0, "4", by="aki"), shout(1.4, "aki"))[0]
    assert v["ok"] is False and v["miss_piles"] == 0 and v["unclear"]["aki"].startswith("heard a shout at +0.400 s")
    res = judged(header, card(1.0, "4", by="aki"), shout(1.4, "aki")).lines[-1]
    assert res["score"] == 0 and res["miss_piles"] == 0 and res["unclear"]["aki"] == 1


@pytest.mark.parametrize("header", MODES)
def test_coop_a_clear_wrong_hand_is_a_miss_whatever_the_word(header):
    v = _coop(header, card(1.0, "ika", by="aki"), hand(1.3, "aki", "left"), shout(1.4, "aki"))[0]
    assert v["ok"] is False and v["miss_piles"] == 1 and "unclear" not in v
    assert v["why"].startswith("raised left hand, expected right hand")


@pytest.mark.parametrize("header", MODES)
def test_coop_an_unclear_hand_is_unclear(header):
    events = [card(1.0, "ika", by="aki"), hand(1.3, "aki", "right", conf=0.3), shout(1.4, "aki", "ika", "10")]
    v = _coop(header, *events)[0]
    assert v["ok"] is False and v["miss_piles"] == 0 and v["unclear"]["aki"].startswith("hand unclear: right hand up")
    assert _coop(header, *events, clarity=Clarity(hand_conf=0.1))[0]["ok"] is True


@pytest.mark.parametrize("header", MODES)
def test_coop_a_word_below_word_conf_is_no_miss(header):
    unsure = dict(shout(1.4, "aki", "5"), conf=0.4)
    v = _coop(header, card(1.0, "4", by="aki"), unsure, clarity=Clarity(word_conf=0.8))[0]
    assert v["ok"] is False and v["miss_piles"] == 0 and v["unclear"]["aki"].endswith("'5' at confidence 0.40, below 0.8 — unclear")
    assert _coop(header, card(1.0, "4", by="aki"), unsure, clarity=Clarity(word_conf=0.3))[0]["miss_piles"] == 1


@pytest.mark.parametrize("header", MODES)
def test_coop_a_card_not_read_is_no_miss(header):
    v = _coop(header, card(1.0, "4", by="aki", conf=0.2))[0]
    assert v["ok"] is False and v["miss_piles"] == 0 and v["card_unclear"].startswith("card not read: 4")
    assert v["unclear"] == {"aki": v["card_unclear"]}


@pytest.mark.parametrize("header", MODES)
def test_coop_missed_needs_a_live_channel(header):
    silent = _coop(header, card(1.0, "4", by="aki"))[0]
    assert silent["ok"] is False and silent["miss_piles"] == 1 and "unclear" not in silent  # heard silent
    dead = _coop(header, lost(0.5, "aki"), card(1.0, "4", by="aki"))[0]
    assert dead["ok"] is False and dead["miss_piles"] == 0 and dead["unclear"]["aki"].startswith("not heard")


@pytest.mark.parametrize("header", MODES)
def test_coop_has_no_first_to_be_unclear(header):
    """Co-op and solo judge one active player per card: there is no first, so no verdict
    carries ``first_unclear`` (the unclear declaration itself is the item to settle)."""
    v = _coop(header, card(1.0, "4", by="aki"), shout(1.4, "aki"))[0]
    assert "first_unclear" not in v and "first" not in v


@pytest.mark.parametrize("header", MODES)
def test_coop_decide_applies_the_tables_answer(header):
    events = [card(1.0, "4", by="aki"), shout(1.4, "aki")]
    right = _coop(header, *events, answers=[Answer.parse("1:aki=correct")])
    assert right[0]["ok"] is True and right[0]["time"] == 0.4 and right[0]["decided"] == {"aki": "correct"}
    wrong = _coop(header, *events, answers=[Answer.parse("1:aki=wrong")])
    assert wrong[0]["ok"] is False and wrong[0]["miss_piles"] == 1 and wrong[0]["why"].startswith("the table's answer")
    res = judged(header, *events, answers=[Answer.parse("1:aki=correct")]).lines[-1]
    assert res["score"] == 4 and "unclear" not in res


def test_versus_a_player_still_speaking_when_the_card_appeared_is_unclear_not_silent():
    """"Said nothing" needs a quiet channel: ben's utterance began 0.2 s before the card and
    ran 0.8 s into its window (in babble the onset walks back into the noise) — his word may be
    inside it: unclear, no penalty. Ended before the card, or with a wrong hand clearly seen,
    the verdict is the record's as before."""
    talk = {"t": 0.8, "type": "shout", "player": "ben", "words": [], "t_end": 1.8}
    v = verdicts(VERSUS, *three(talk))[0]
    assert "ben" not in v["wrong"] and "ben" not in v["missed"]
    assert "still speaking when the card appeared (from 0.80 s)" in v["unclear"]["ben"]
    assert v["first"] == "aki" and "chie" in v["missed"]  # chie: quiet, and nothing of hers running on
    ended = {**talk, "t_end": 0.95}
    assert "ben" in verdicts(VERSUS, *three(ended))[0]["missed"]
    tako = [card(1.0, "tako"), shout(1.5, "aki", "tako"), hand(1.4, "aki", "left"), talk, hand(1.6, "ben", "right"),
            card(5.0, "2")]
    v = verdicts(VERSUS, *tako)[0]
    assert "ben" in v["wrong"] and "right hand" in v["why"]["ben"]  # the hand alone, clearly seen, decides


def found(t, player, onset_from, *words):
    """A shout whose word was found inside a longer sound (audio.found_inside): re-anchored at
    ``t``, the sound began at ``onset_from``."""
    return {**shout(t, player, *words), "found_inside": {"onset_from": onset_from}}


def test_versus_a_word_found_inside_a_longer_sound_cannot_lose_the_first_on_its_re_anchored_onset():
    """ben's 3 was found inside a sound that began at 1.45 s, before aki's 1.5 s: timed from
    where the word was found (1.7 s) he is second, but he may have been first — nobody takes
    the card until the table decides; he is still correct (never wrong on it)."""
    v = verdicts(VERSUS, *three(found(1.7, "ben", 1.45, "3")))[0]
    assert v["first"] is None and v["first_unclear"] is True and v["taken_by"] is None
    assert v["correct"] == ["aki", "ben"] and not v.get("wrong") and "ben" not in v.get("unclear", {})
    assert v["onset_unsure"] == {"ben": "the word was found inside a longer sound: it began between 1.450 s and 1.700 s"}
    decided = verdicts(VERSUS, *three(found(1.7, "ben", 1.45, "3")), {"t": 2.5, "type": "decision", "first": "aki"})[0]
    assert decided["first"] == "aki"  # (the table's decision settles it)


def test_versus_a_word_found_inside_changes_nothing_when_even_its_sound_s_start_comes_after_the_first():
    v = verdicts(VERSUS, *three(found(1.9, "ben", 1.6, "3")))[0]
    assert v["first"] == "aki" and v["taken_by"] == "aki" and "onset_unsure" not in v
    v = verdicts(VERSUS, *three(found(1.4, "ben", 1.2, "3")))[0]  # (first even at the later time: first)
    assert v["first"] == "ben" and "onset_unsure" not in v

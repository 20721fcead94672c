"""MOKOCHAKA never penalises or gives the token on what the referee did not clearly perceive
(issue 30): an unclear call (a shout not made out, a caller not heard), a doubtful grab, a
seat not seen and a play card not read make a player unclear — no penalty — when the
resolution depends on it, and a token winner that depends on it is held (``first_unclear``,
nobody takes the piles); the table's answers settle unclear calls."""

from __future__ import annotations

import json

from referee.judge import judge
from referee.judging.mokochaka import format_table
from referee.judging.unclear import Answer, Clarity
from session.events import SessionHeader
from session.record import parse_lines

HEADER = {"t": 0.0, "type": "session", "game": "mokochaka", "players": ["aki", "ben", "chie"],
          "options": {"grab_slack": 0.25}}
#: three piles, tops paka4 moko1 gabu1 (3 players: 5 setup cards)
SETUP = [{"t": 0.1, "type": "card", "card": "paka1", "zone": "pile0"},
         {"t": 0.2, "type": "card", "card": "moko1", "zone": "pile1"},
         {"t": 0.3, "type": "card", "card": "gabu3", "zone": "pile2"},
         {"t": 0.4, "type": "card", "card": "paka4", "zone": "pile0"},
         {"t": 0.5, "type": "card", "card": "gabu1", "zone": "pile2"}]


def play(cid, pile, by="aki", t=1.0, **kw):
    return {"t": t, "type": "card", "card": cid, "zone": f"pile{pile}", "by": by, **kw}


#: aki plays moko4 on pile 0: tops moko4 moko1 gabu1, the normal call "moko"
NORMAL = play("moko4", 0)
#: aki plays pome2 on pile 2: tops paka4 moko1 pome2, the special call "chakamoko"
SPECIAL = play("pome2", 2)


def shout(t, player, *words):
    return {"t": t, "type": "shout", "player": player, "words": list(words)}


def grab(t, player, conf=None):
    return {"t": t, "type": "grab", "player": player, **({} if conf is None else {"conf": conf})}


def judged(*events, **kw):
    events = sorted([*SETUP, *events], key=lambda e: e["t"])
    record = parse_lines([json.dumps(HEADER)] + [json.dumps(e) for e in events])
    assert record.issues == []
    return judge(record, **kw)


def verdict(*events, **kw):
    return next(x for x in judged(*events, **kw).lines if x["type"] == "verdict")


def penalised(v):
    return [p["player"] for p in v["penalties"]]


def test_an_unclear_call_is_no_penalty():
    v = verdict(NORMAL, shout(1.5, "aki"))
    assert penalised(v) == [] and v["ok"] is False and v["call"] is None
    assert v["unclear"] == {"aki": "heard a shout at +0.500 s, the word was unclear"}
    assert penalised(verdict(NORMAL)) == ["aki"]  # heard saying nothing (channel live): "no call", as ever


def test_a_call_below_word_conf_is_unclear_not_wrong():
    unsure = dict(shout(1.5, "aki", "paka"), conf=0.55)  # the wrong call, heard unsurely
    v = verdict(NORMAL, unsure, clarity=Clarity(word_conf=0.8))
    assert penalised(v) == [] and v["ok"] is False
    assert v["unclear"] == {"aki": "heard a shout at +0.500 s: 'paka' at confidence 0.55, below 0.8 — unclear"}
    assert penalised(verdict(NORMAL, unsure, clarity=Clarity(word_conf=0.5))) == ["aki"]  # sure enough: wrong


def test_an_unclear_call_after_a_clear_wrong_one_changes_nothing():
    v = verdict(NORMAL, shout(1.4, "aki", "paka"), shout(1.6, "aki"))  # the first call counts
    assert penalised(v) == ["aki"] and "unclear" not in v


def test_a_caller_not_heard_is_not_penalised_for_no_call():
    lost = {"t": 0.8, "type": "audio_status", "state": "lost", "player": "aki", "detail": "unplugged"}
    v = verdict(lost, NORMAL)
    assert penalised(v) == [] and v["unclear"]["aki"] == "not heard: audio missing since 0.20 s before the card (unplugged)"


def test_a_doubtful_grab_is_unclear():
    v = verdict(NORMAL, shout(1.4, "aki", "moko"), grab(1.5, "ben", conf=0.2))  # no special call: a fault if real
    assert penalised(v) == [] and v["unclear"]["ben"].startswith("hand unclear: token grab at +0.500 s")
    assert penalised(verdict(NORMAL, shout(1.4, "aki", "moko"), grab(1.5, "ben", conf=0.2),
                             clarity=Clarity(hand_conf=0.1))) == ["ben"]


def test_a_doubtful_first_grab_holds_the_token():
    v = verdict(SPECIAL, shout(1.3, "ben", "chakamoko"), grab(1.4, "ben", conf=0.2),
                shout(1.5, "chie", "chakamoko"), grab(1.6, "chie"))
    assert v["grab_winner"] is None and v["first_unclear"] is True and v["bonus"] is None
    assert "ben" in v["unclear"] and penalised(v) == []
    sure = verdict(SPECIAL, shout(1.3, "ben", "chakamoko"), grab(1.4, "ben"), shout(1.5, "chie", "chakamoko"),
                   grab(1.6, "chie"))
    assert sure["grab_winner"] == "ben" and "first_unclear" not in sure


def test_an_unclear_call_of_the_first_grabber_holds_the_token_and_decide_settles_it():
    events = [SPECIAL, shout(1.3, "ben"), grab(1.4, "ben"), shout(1.5, "chie", "chakamoko"), grab(1.6, "chie")]
    v = verdict(*events)
    assert v["grab_winner"] is None and v["first_unclear"] is True and "ben" in v["unclear"] and penalised(v) == []
    right = verdict(*events, answers=[Answer.parse("1:ben=correct")])
    assert right["grab_winner"] == "ben" and right["decided"] == {"ben": "correct"} and "first_unclear" not in right
    wrong = verdict(*events, answers=[Answer.parse("1:ben=wrong")])
    assert wrong["grab_winner"] == "chie" and penalised(wrong) == ["ben"] and "unclear" not in wrong


def test_a_decision_line_answers_the_same_way():
    answer = {"t": 20.0, "type": "decision", "card_index": 1, "player": "aki", "verdict": "wrong"}
    by_line = judged(NORMAL, shout(1.5, "aki"), answer)
    by_cli = judged(NORMAL, shout(1.5, "aki"), answers=[Answer.parse("1:aki=wrong")])
    assert by_line.jsonl() == by_cli.jsonl()
    v = by_line.lines[0]
    assert penalised(v) == ["aki"] and v["decided"] == {"aki": "wrong"} and v["call"] is None and v["calls"] == {}
    assert v["why"]["aki"] == "the table's answer: wrong (heard a shout at +0.500 s, the word was unclear)"


def test_an_answer_about_a_clear_call_is_a_warning():
    j = judged(NORMAL, shout(1.4, "aki", "paka"), answers=[Answer.parse("1:aki=correct")])
    assert penalised(j.lines[0]) == ["aki"] and "decided" not in j.lines[0]
    assert any("aki made no unclear call on play 1" in n.message for n in j.notes)


def test_a_play_card_not_read_judges_nobody():
    v = verdict(play("moko4", 0, conf=0.3), grab(1.5, "ben"))  # the caller silent, a grab with no special call
    assert penalised(v) == [] and v["card_unclear"].startswith("card not read: moko4 at confidence 0.30")
    assert set(v["unclear"]) == {"aki", "ben", "chie"}


def test_a_seat_not_seen_holds_the_token_and_excuses_the_grab_it_could_have_made():
    skipped = {"t": 0.9, "type": "skipped", "what": "video", "from": 0.9, "to": 3.0, "player": "ben",
               "reason": "out of view"}
    v = verdict(skipped, SPECIAL, shout(1.3, "ben", "chakamoko"), shout(1.5, "chie", "chakamoko"), grab(1.6, "chie"))
    assert v["grab_winner"] is None and v["first_unclear"] is True and v["unclear"]["ben"].startswith("not seen")
    plain = verdict(SPECIAL, shout(1.3, "ben", "chakamoko"), shout(1.5, "chie", "chakamoko"), grab(1.6, "chie"))
    assert plain["grab_winner"] == "chie"  # the seat seen: ben did not grab


def test_the_result_and_the_table_mark_unclear_items():
    j = judged(NORMAL, shout(1.5, "aki"))
    assert j.lines[-1]["unclear"] == {"aki": 1, "ben": 0, "chie": 0}
    text = format_table(j, SessionHeader.from_dict(HEADER))
    assert "aki: unclear" in text and "UNCLEAR" in text and "unclear: aki (heard a shout at +0.500 s" in text
    assert "--decide N:PLAYER=correct|wrong" in text and text.splitlines()[0].startswith("#")
    assert "unclear" not in judged(NORMAL, shout(1.4, "aki", "moko")).lines[-1]


def test_no_penalty_is_announced_on_an_unclear_call():
    from referee.judge import IncrementalJudge
    from session.events import Event

    inc = IncrementalJudge(SessionHeader.from_dict(HEADER))
    for e in sorted([*SETUP, NORMAL, shout(1.5, "aki")], key=lambda e: e["t"]):
        inc.feed(Event.from_dict(e))
    said = inc.announce(4.5)
    assert not [a for a in said if a["what"] in ("penalty", "no_call")]
    inc2 = IncrementalJudge(SessionHeader.from_dict(HEADER))
    for e in sorted([*SETUP, NORMAL], key=lambda e: e["t"]):
        inc2.feed(Event.from_dict(e))
    assert [a["what"] for a in inc2.announce(4.5)] == ["no_call", "penalty"]  # heard silent: announced

"""A player who was not heard (muted or lost microphone) may have shouted first: when what
was seen does not rule that out, the card's first is unknown — no card on missing evidence,
settled like a tie by a ``decision`` — and the incremental judge does not announce the
fastest heard player ``first`` meanwhile. A seen hand too late or wrong rules the player out."""

import json

from referee.judge import IncrementalJudge, judge
from referee.judging.ikatako import describe, format_table
from session.events import Event, SessionHeader
from session.record import parse_lines

HEADER = {"t": 0.0, "type": "session", "game": "ikatako", "mode": "versus", "players": ["aki", "ben", "chie"],
          "options": {"tie_ms": 33, "window": 3.0}}
LOST = {"t": 0.5, "type": "audio_status", "state": "lost", "player": "ben", "detail": "muted"}


def _card(t, card):
    return {"t": t, "type": "card", "card": card, "zone": "field"}


def _shout(t, player, *words):
    return {"t": t, "type": "shout", "player": player, "words": list(words)}


def _hand(t, player, side, state="up"):
    return {"t": t, "type": "hand", "player": player, "side": side, "state": state}


def _tako(ben_hand=None):
    """Card tako at 1.0 s: chie correct at 0.35 s, aki at 0.6 s; ben (muted) raises ``ben_hand``
    ((t, side)) or nothing; then a card 2 at 5.0 that nobody answers."""
    events = [LOST, _card(1.0, "tako"), _hand(1.3, "chie", "left"), _shout(1.35, "chie", "tako"),
              _hand(1.5, "aki", "left"), _shout(1.6, "aki", "tako")]
    if ben_hand:
        events.append(_hand(ben_hand[0], "ben", ben_hand[1]))
    return events


def _judged(*events):
    return judge(parse_lines([json.dumps(HEADER)] + [json.dumps(e) for e in sorted(events, key=lambda e: e["t"])]))


def _first_verdict(*events):
    return next(v for v in _judged(*events).lines if v["type"] == "verdict")


def test_unheard_player_with_the_right_hand_in_time_makes_the_first_unknown():
    v = _first_verdict(*_tako((1.2, "left")), _card(5.0, "2"))
    assert v["first"] is None and v["first_unknown"] == ["ben"] and v["tie"] == ["chie", "ben"]
    assert v["unsettled"] and v["discarded"] and v["taken_by"] is None
    assert v["correct"] == ["chie", "aki"] and v["times"] == {"chie": 0.35, "aki": 0.6}  # the heard stay as heard
    assert "ben" in v["unjudged"] and "ben" not in v["penalties"] and v["wrong"] == []


def test_a_card_that_needs_no_hand_cannot_rule_the_unheard_player_out():
    v = _first_verdict(LOST, _card(1.0, "3"), _shout(1.4, "chie", "3"), _card(5.0, "2"))
    assert v["first"] is None and v["first_unknown"] == ["ben"] and v["tie"] == ["chie", "ben"]
    assert v["missed"] == ["aki"]  # aki was heard saying nothing: missed as ever


def test_a_seen_hand_too_late_or_wrong_rules_the_unheard_player_out():
    late = _first_verdict(*_tako((1.39, "left")), _card(5.0, "2"))  # chie 0.35 + 33 ms = 1.383 s
    assert late["first"] == "chie" and "first_unknown" not in late and late["tie"] == []
    assert "ben" in late["unjudged"] and late["taken_by"] == "chie"
    just = _first_verdict(*_tako((1.383, "left")), _card(5.0, "2"))  # inclusive, like a tie
    assert just["first_unknown"] == ["ben"]
    wrong = _first_verdict(*_tako((1.2, "right")), _card(5.0, "2"))
    assert wrong["first"] == "chie" and "first_unknown" not in wrong and wrong["wrong"] == ["ben"]
    none = _first_verdict(*_tako(), _card(5.0, "2"))  # a hand was due and the camera saw none
    assert none["first"] == "chie" and "first_unknown" not in none and none["wrong"] == ["ben"]


def test_audio_lost_only_after_the_fastest_heard_does_not_make_the_first_unknown():
    lost_late = dict(LOST, t=2.0)  # ben was heard silent through chie's reaction (+ tie_ms)
    v = _first_verdict(lost_late, _card(1.0, "3"), _shout(1.4, "chie", "3"), _card(5.0, "2"))
    assert v["first"] == "chie" and "first_unknown" not in v and "ben" in v["unjudged"]
    early = _first_verdict(dict(LOST, t=1.42), _card(1.0, "3"), _shout(1.4, "chie", "3"), _card(5.0, "2"))
    assert early["first_unknown"] == ["ben"]  # lost before 1.4 + 33 ms: ben may have begun then


def test_a_decision_settles_it_for_the_unheard_or_the_heard_player():
    for who in ("ben", "chie"):
        judged = _judged(*_tako((1.2, "left")), {"t": 2.5, "type": "decision", "first": who}, _card(5.0, "2"))
        v = next(x for x in judged.lines if x["type"] == "verdict")
        assert v["first"] == who and v["taken_by"] == who and not v["unsettled"] and v["first_unknown"] == ["ben"]
    judged = _judged(*_tako((1.2, "left")), {"t": 2.5, "type": "decision", "first": "aki"}, _card(5.0, "2"))
    v = next(x for x in judged.lines if x["type"] == "verdict")
    assert v["first"] is None and v["unsettled"]
    assert any("'aki'" in n.message and "could not have been first (only chie, ben could)" in n.message
               for n in judged.notes)


def test_the_renderings_say_the_first_is_unknown():
    judged = _judged(*_tako((1.2, "left")), _card(5.0, "2"))
    table = format_table(judged, SessionHeader.from_dict(HEADER))
    assert "unknown: unsettled, discarded" in table
    assert "first unknown: ben not heard (could have been first); chie fastest heard — settle with a decision" in table
    v = next(x for x in judged.lines if x["type"] == "verdict")
    first = dict(describe(v).facts)["first"]
    assert "first unknown: ben not heard" in str(first) and "the card is discarded" in str(first)
    decided = _judged(*_tako((1.2, "left")), {"t": 2.5, "type": "decision", "first": "ben"}, _card(5.0, "2"))
    assert "ben (first unknown, decided)" in format_table(decided, SessionHeader.from_dict(HEADER))


def test_a_complete_record_has_no_first_unknown_field():
    events = [e for e in _tako((1.2, "left")) if e is not LOST] + [_card(5.0, "2")]
    v = _first_verdict(*events)
    assert v["first"] == "chie" and "first_unknown" not in v and "unjudged" not in v
    assert v["wrong"] == ["ben"]  # heard saying nothing with his hand up: wrong as ever


def _drive(events, step=0.001, until=6.0):
    """Feed events earlier than the watermark, then ask for announcements, as a live table."""
    events = sorted(events, key=lambda e: e["t"])
    inc = IncrementalJudge(SessionHeader.from_dict(HEADER))
    heard, i, k = [], 0, 0
    while k * step <= until:
        w = round(k * step, 6)
        while i < len(events) and events[i]["t"] < w:
            inc.feed(Event.from_dict(events[i]))
            i += 1
        heard += inc.announce(w)
        k += 1
    return heard, inc


def test_the_incremental_judge_announces_an_unknown_first_as_a_tie_not_the_heard_fastest():
    heard, inc = _drive(_tako((1.2, "left")) + [_card(5.0, "2")])
    firsts = [a for a in heard if a["card"] == "tako" and a["what"] in ("first", "tie")]
    assert firsts == [{"type": "announce", "t": 1.384, "card": "tako", "card_t": 1.0, "what": "tie",
                       "players": ["chie", "ben"], "time": 0.35, "first_unknown": ["ben"]}]
    batch = _judged(*_tako((1.2, "left")), _card(5.0, "2"))
    assert inc.finish().jsonl() == batch.jsonl()


def test_the_incremental_judge_announces_first_when_the_seen_hand_rules_the_unheard_out():
    heard, _ = _drive(_tako((1.39, "left")) + [_card(5.0, "2")])
    firsts = [a for a in heard if a["card"] == "tako" and a["what"] in ("first", "tie")]
    assert firsts == [{"type": "announce", "t": 1.384, "card": "tako", "card_t": 1.0, "what": "first",
                       "player": "chie", "time": 0.35, "margin": None}]  # aki not yet correct then


def test_explain_says_the_first_is_unknown(tmp_path):
    from referee.teach.explain import explain_file

    events = sorted(_tako((1.2, "left")) + [_card(5.0, "2")], key=lambda e: e["t"])
    path = tmp_path / "muted.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in [HEADER] + events) + "\n")
    walk, _ = explain_file(path)
    assert "first unknown: ben not heard (could have been first); chie fastest heard" in walk
    assert "first: chie" not in walk


def test_a_hand_left_up_from_before_until_after_the_deadline_rules_the_unheard_player_out():
    """ben's right hand is up from the card before; it comes down only after chie's time +
    tie_ms: had ben spoken by then, it would have been an extra hand (the verdict would have
    made him wrong), so chie is first; lowered in time, ben could have been first."""
    before = [LOST, _hand(0.2, "ben", "right")]
    card = [_card(1.0, "3"), _shout(1.4, "chie", "3"), _card(5.0, "2")]
    late = _first_verdict(*before, _hand(1.6, "ben", "right", "down"), *card)
    assert late["first"] == "chie" and "first_unknown" not in late and "ben" in late["unjudged"]
    early = _first_verdict(*before, _hand(1.3, "ben", "right", "down"), *card)
    assert early["first_unknown"] == ["ben"]
    heard, _ = _drive(before + [_hand(1.6, "ben", "right", "down")] + card)
    assert [a["what"] for a in heard if a["card"] == "3" and a["what"] in ("first", "tie")] == ["first"]

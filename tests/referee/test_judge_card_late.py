"""A card the camera saw late (a ``card_time_uncertain`` warning, ``vision.card_zone``): the
players who reacted in the gap before it reacted to that card, so their hands and shouts count
for it, not for the card before, and nobody is late or missed on that evidence. A record
without such warnings judges exactly as before."""

import json

import pytest

from referee.judge import IncrementalJudge, judge
from referee.judging.ikatako import format_table
from session.record import parse_lines

HEADER = {"t": 0.0, "type": "session", "game": "ikatako", "mode": "versus", "players": ["aki", "ben", "chie"],
          "options": {}}


def _card(t, card):
    return {"t": t, "type": "card", "card": card, "zone": "field"}


def _late(t, card, earliest):
    return {"t": t, "type": "warning", "message": f"card {card} in the field timed at {t} s may have come earlier",
            "zone": "field", "card": card, "card_time_uncertain": True, "earliest": earliest}


def _hand(t, player, side="right", state="up"):
    return {"t": t, "type": "hand", "player": player, "side": side, "state": state}


def _shout(t, player, *words):
    return {"t": t, "type": "shout", "player": player, "words": list(words)}


def _lines(*events, header=HEADER):
    return judge(parse_lines([json.dumps(header)] + [json.dumps(e) for e in events])).lines


def _verdicts(*events, header=HEADER):
    return [v for v in _lines(*events, header=header) if v["type"] == "verdict"]


# Card 3 at 1.0 s: aki says "3". Card ika comes at 4.6 s but the camera sees it at 5.9 s (the
# referee fell behind; the frames of 4.6-5.9 s were never given to the card zone): aki reacts at
# 5.2 s (right hand + ika), ben at 5.6 s, chie at 6.3 s.
REACTIONS = [_hand(5.2, "aki"), _shout(5.21, "aki", "ika"), _hand(5.6, "ben"), _shout(5.62, "ben", "ika"),
             _hand(6.3, "chie"), _shout(6.31, "chie", "ika")]
SESSION = [_card(1.0, "3"), _shout(1.4, "aki", "3"), *REACTIONS]


def _with(card_events):
    return sorted(SESSION + card_events, key=lambda e: (e["t"], e["type"] != "warning", e["type"] != "card"))


def test_without_the_warning_the_gap_s_reactions_are_lost_as_before():
    v3, ika = _verdicts(*_with([_card(5.9, "ika")]))
    assert v3["first"] == "aki" and v3["missed"] == ["ben", "chie"]
    assert ika["first"] == "chie" and ika["missed"] == ["aki", "ben"]  # what a late card did: wrong verdicts
    assert "card_time_uncertain" not in ika


def test_reactions_in_the_gap_count_for_the_card_seen_late():
    v3, ika = _verdicts(*_with([_late(5.9, "ika", 4.6), _card(5.9, "ika")]))
    assert v3["first"] == "aki" and v3["missed"] == ["ben", "chie"]  # the card before: unchanged
    assert ika["t"] == 5.9 and ika["card_time_uncertain"] == {"earliest": 4.6, "seen": 5.9, "counted_from": 4.6}
    assert ika["first"] == "aki" and ika["correct"] == ["aki", "ben", "chie"] and ika["missed"] == []
    # reaction times count from the earliest moment the card may have come
    assert ika["times"] == {"aki": 0.61, "ben": 1.02, "chie": 1.71} and ika["margin"] == 0.41


def test_the_window_still_counts_from_the_time_the_card_was_seen():
    late_reaction = [_hand(8.5, "chie"), _shout(8.51, "chie", "ika")]  # 3.9 s after 4.6, 2.6 s after 5.9
    events = [_card(1.0, "3"), _late(5.9, "ika", 4.6), _card(5.9, "ika"), _hand(5.2, "aki"), _shout(5.21, "aki", "ika"),
              *late_reaction]
    events.sort(key=lambda e: (e["t"], e["type"] != "warning", e["type"] != "card"))
    _, ika = _verdicts(*events)
    assert ika["correct"] == ["aki", "chie"] and ika["missed"] == ["ben"]


def test_the_card_before_keeps_reactions_before_the_gap_and_its_decisions():
    # card tako at 2.0 s: chie raises the left hand and says tako at 4.0 s, inside its window
    # and before the gap starts at 4.6 s; a decision in the gap stays with the card it names
    events = [_card(2.0, "tako"), _hand(2.5, "aki", "left"), _shout(2.5, "aki", "tako"),
              _hand(2.5, "ben", "left"), _shout(2.5, "ben", "tako"),
              {"t": 4.7, "type": "decision", "first": "ben"},
              _late(5.9, "ika", 4.6), _card(5.9, "ika"), _hand(5.2, "chie"), _shout(5.21, "chie", "ika")]
    events.sort(key=lambda e: (e["t"], e["type"] != "warning", e["type"] != "card"))
    tako, ika = _verdicts(*events)
    assert tako["tie"] == ["aki", "ben"] and tako["first"] == "ben"  # the decision in the gap still counts
    assert tako["missed"] == ["chie"]
    assert ika["first"] == "chie"


def test_a_warning_without_earliest_moves_only_what_the_card_before_cannot_count():
    # the frames before the card were no longer kept: how much earlier is not known, so the
    # reactions after the card before's window (1.0 + 3.0 s) count for it, none earlier
    events = [_card(1.0, "3"), _shout(3.5, "ben", "3"), _late(5.9, "ika", None), _card(5.9, "ika"),
              *REACTIONS]
    events.sort(key=lambda e: (e["t"], e["type"] != "warning", e["type"] != "card"))
    v3, ika = _verdicts(*events)
    assert v3["correct"] == ["ben"]
    assert ika["card_time_uncertain"] == {"earliest": 4.0, "seen": 5.9, "counted_from": 4.0}
    assert ika["correct"] == ["aki", "ben", "chie"]


def test_the_first_card_seen_late():
    events = [_hand(0.5, "ben", "left"), _late(2.0, "ika", 1.0), _card(2.0, "ika"), _hand(1.5, "aki"),
              _shout(1.5, "aki", "ika")]
    events.sort(key=lambda e: (e["t"], e["type"] != "warning", e["type"] != "card"))
    (ika,) = _verdicts(*events)
    assert ika["first"] == "aki" and ika["card_time_uncertain"] == {"earliest": 1.0, "seen": 2.0, "counted_from": 1.0}
    # ben's left hand went up before the card could have come: still up, not a reaction
    assert ika["missed"] == ["ben", "chie"]


def test_a_warning_for_another_zone_or_another_time_changes_nothing():
    plain = _verdicts(*_with([_card(5.9, "ika")]))
    other_zone = {**_late(5.9, "ika", 4.6), "zone": "pile0"}
    assert _verdicts(*_with([other_zone, _card(5.9, "ika")])) == plain
    assert _verdicts(*_with([_late(5.8, "ika", 4.6), _card(5.9, "ika")])) == plain


def test_incremental_judging_gives_the_batch_verdicts_and_announces_the_gap_s_first():
    events = _with([_late(5.9, "ika", 4.6), _card(5.9, "ika")]) + [{"t": 20.0, "type": "end"}]
    record = parse_lines([json.dumps(HEADER)] + [json.dumps(e) for e in events])
    inc = IncrementalJudge(record.header)
    said = []
    for entry in record.entries:
        inc.feed(entry.event)
        said += inc.announce(entry.event.t + 0.001)
    assert inc.finish().lines == judge(record).lines
    firsts = [a for a in said if a["what"] == "first" and a["card"] == "ika"]
    assert firsts and firsts[0]["player"] == "aki" and firsts[0]["card_t"] == 5.9


def test_the_table_says_the_card_was_seen_late():
    text = format_table(judge(parse_lines([json.dumps(HEADER)] + [json.dumps(e) for e in
                                                                    _with([_late(5.9, "ika", 4.6), _card(5.9, "ika")])])),
                        parse_lines([json.dumps(HEADER)]).header)
    assert "card seen late (at 5.900 s): it may have come from 4.600 s; reactions from 4.600 s count for it, timed from then" in text


def test_every_prefix_judges_the_same_event_by_event_as_in_one_batch():
    from session.record import Record, dumps

    events = _with([_late(5.9, "ika", 4.6), _card(5.9, "ika"), _card(9.0, "tako")]) + [
        _hand(9.4, "ben", "left"), _shout(9.41, "ben", "tako"), {"t": 15.0, "type": "end"}]
    record = parse_lines([json.dumps(HEADER)] + [json.dumps(e) for e in events])
    running, said = IncrementalJudge(record.header), []
    for k in range(len(record.entries) + 1):
        if k:
            said += [dumps(x) for x in running.feed(record.entries[k - 1].event)]
        batch = judge(Record(header=record.header, entries=record.entries[:k]))
        assert said == [dumps(x) for x in batch.lines][: len(said)], f"after {k} events"
        fresh = IncrementalJudge(record.header)
        for entry in record.entries[:k]:
            fresh.feed(entry.event)
        assert fresh.finish().jsonl() == batch.jsonl(), f"prefix of {k} events"


def test_the_live_headline_and_the_lesson_say_it_too():
    from referee.live.headlines import verdict_headline
    from referee.teach.drills.ikatako_walk import walk_versus as _ikatako

    _, ika = _verdicts(*_with([_late(5.9, "ika", 4.6), _card(5.9, "ika")]))
    assert "card seen late: reactions from 4.60 s counted" in verdict_headline(ika).notes
    lines = _ikatako(2, ika, "en", [])
    assert any("the camera saw the card late: reactions from 4.60 s count" in line for line in lines)
    _, plain = _verdicts(*_with([_card(5.9, "ika")]))
    assert not any("late" in n for n in verdict_headline(plain).notes)


def test_the_dispute_report_says_it():
    from referee.judging.ikatako import describe

    _, ika = _verdicts(*_with([_late(5.9, "ika", 4.6), _card(5.9, "ika")]))
    facts = dict(describe(ika).facts)
    assert "card seen late (at 5.900 s): it may have come from 4.600 s" in str(facts["card time"])
    _, plain = _verdicts(*_with([_card(5.9, "ika")]))
    assert "card time" not in dict(describe(plain).facts)


# The gap starts inside the card before's window: card tako at 2.0 s (window to 5.0 s), card ika
# seen at 5.9 s, earliest 4.6 s. Reactions of 4.6-5.0 s could be to either card; those of
# 5.0-5.9 s can only be to ika.
def _ambiguous(*reactions):
    events = [_card(2.0, "tako"), _late(5.9, "ika", 4.6), _card(5.9, "ika"), *reactions]
    events.sort(key=lambda e: (e["t"], e["type"] != "warning", e["type"] != "card"))
    return _verdicts(*events)


def test_a_reaction_in_the_doubtful_span_right_for_the_late_card_is_not_penalised_there():
    tako, ika = _ambiguous(_hand(2.5, "aki", "left"), _shout(2.5, "aki", "tako"),
                           _hand(4.7, "ben"), _shout(4.7, "ben", "ika"),  # ben: to ika, in the doubt
                           _hand(5.3, "chie"), _shout(5.3, "chie", "ika"))
    assert ika["card_time_uncertain"] == {"earliest": 4.6, "seen": 5.9, "counted_from": 5.0}
    assert ika["correct"] == ["chie"] and ika["missed"] == ["aki"]
    assert ika["unjudged"]["ben"].startswith("reacted at 4.70 s, when this card may already have been there")
    # ben may have beaten chie: the card's first is unknown, the table settles it
    assert ika["first_unknown"] == ["ben"] and ika["tie"] == ["chie", "ben"] and ika["first"] is None
    # on tako ben is penalised either way (a wrong reaction, or none at all): the record's reading stands
    assert tako["first"] == "aki" and tako["wrong"] == ["ben"] and tako["missed"] == ["chie"]
    # what each view says counts: from 5.0 s (the earlier reactions stay with tako)
    from referee.live.headlines import verdict_headline
    from referee.teach.drills.ikatako_walk import walk_versus as _ikatako
    assert "card seen late: reactions from 5.00 s counted" in verdict_headline(ika).notes
    assert any("reactions from 5.00 s count" in line for line in _ikatako(2, ika, "en", []))


def test_a_reaction_in_the_doubtful_span_after_a_trouble_card_is_not_penalised_on_either():
    events = [_card(2.0, "mirror"), _late(5.9, "ika", 4.6), _card(5.9, "ika"),
              _hand(4.7, "ben", "left"), _shout(4.7, "ben", "tako")]  # ika under mirror: left hand + tako
    events.sort(key=lambda e: (e["t"], e["type"] != "warning", e["type"] != "card"))
    mirror, ika = _verdicts(*events)
    assert mirror["wrong"] == [] and "may have been to the next card, ika" in mirror["unjudged"]["ben"]
    assert ika["unjudged"]["ben"].startswith("reacted at 4.70 s") and ika["missed"] == ["aki", "chie"]
    # nobody else was right: whether ben takes the card is for the table to settle
    assert ika["first_unknown"] == ["ben"] and ika["tie"] == ["ben"] and ika["first"] is None


def test_a_slow_right_reaction_to_the_card_before_stays_its_own():
    tako, ika = _ambiguous(_hand(4.7, "aki", "left"), _shout(4.7, "aki", "tako"),
                           _hand(5.3, "chie"), _shout(5.3, "chie", "ika"))
    assert tako["first"] == "aki" and "unjudged" not in tako
    # aki's tako would be wrong for ika too: missed on ika in either reading
    assert ika["first"] == "chie" and ika["missed"] == ["aki", "ben"] and "unjudged" not in ika


def test_the_live_view_says_not_judged_not_not_heard_for_a_card_seen_late():
    from referee.live.headlines import announce_headline, verdict_headline

    events = [_card(2.0, "tako"), _late(5.9, "ika", 4.6), _card(5.9, "ika"),
              _hand(4.7, "ben"), _shout(4.7, "ben", "ika"), _hand(5.3, "chie"), _shout(5.3, "chie", "ika"),
              {"t": 20.0, "type": "end"}]
    events.sort(key=lambda e: (e["t"], e["type"] != "warning", e["type"] != "card"))
    record = parse_lines([json.dumps(HEADER)] + [json.dumps(e) for e in events])
    inc, said = IncrementalJudge(record.header), []
    for entry in record.entries:
        inc.feed(entry.event)
        said += inc.announce(entry.event.t + 0.5)
    tie = next(a for a in said if a["card"] == "ika" and a["what"] == "tie")
    assert tie["first_unknown"] == ["ben"] and tie["lacks"] == {"ben": "not judged"}
    assert announce_headline(tie).text == "first unknown: ben not judged"
    ika = [v for v in inc.finish().lines if v.get("card") == "ika"][0]
    assert verdict_headline(ika).text == "first unknown: ben not judged"


@pytest.mark.parametrize("earliest", ["abc", True, 7.5])
def test_an_earliest_that_is_no_time_before_the_card_is_a_warning_and_taken_as_not_known(earliest):
    events = _with([_late(5.9, "ika", earliest), _card(5.9, "ika")])
    j = judge(parse_lines([json.dumps(HEADER)] + [json.dumps(e) for e in events]))
    notes = [str(n) for n in j.notes]
    assert any(f"earliest {earliest!r} is not a time at or before the card's; taken as not known" in n for n in notes)
    ika = [v for v in j.lines if v.get("card") == "ika"][0]
    assert ika["card_time_uncertain"]["earliest"] == 4.0  # as a warning without earliest: after 1.0 + 3 s

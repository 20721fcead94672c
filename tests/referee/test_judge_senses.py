"""A player whose audio was missing is not penalised on evidence that was not there: the
verdict says what was missing (``unjudged``) and no penalty follows; what the camera saw
still counts; a record with every sense present judges exactly as before."""

import json

from referee.judge import IncrementalJudge, judge
from session.record import parse_lines

HEADER = {"t": 0.0, "type": "session", "game": "ikatako", "mode": "versus", "players": ["aki", "ben", "chie"],
          "options": {}}


def _card(t, card):
    return {"t": t, "type": "card", "card": card, "zone": "field"}


def _verdicts(*events):
    lines = judge(parse_lines([json.dumps(HEADER)] + [json.dumps(e) for e in events])).lines
    return [v for v in lines if v["type"] == "verdict"], lines[-1]


BASE = [
    _card(1.0, "3"), {"t": 1.4, "type": "shout", "player": "aki", "words": ["3"]},
    _card(5.0, "tako"), {"t": 5.3, "type": "hand", "player": "aki", "side": "left", "state": "up"},
    {"t": 5.35, "type": "shout", "player": "aki", "words": ["tako"]},
    {"t": 5.5, "type": "hand", "player": "chie", "side": "right", "state": "up"},
]


def test_without_status_events_silent_players_are_missed_as_before():
    verdicts, _ = _verdicts(*BASE)
    assert verdicts[0]["missed"] == ["ben", "chie"] and "unjudged" not in verdicts[0]
    assert verdicts[1]["wrong"] == ["chie"] and verdicts[1]["missed"] == ["ben"]


def test_audio_missing_for_everyone_from_a_time_on_takes_no_penalty_on_words():
    skip = {"t": 4.0, "type": "skipped", "what": "audio", "from": 4.0, "to": 40.0, "reason": "the recording ends"}
    verdicts, result = _verdicts(*BASE[:2], skip, *BASE[2:4], BASE[5])
    first, second = verdicts
    assert first["missed"] == ["ben", "chie"]  # before the audio ended: missed as ever
    # after it: aki raised the right hand (words unknown) -> not judged, no penalty; chie raised
    # the wrong hand -> wrong on what the camera saw; ben did nothing -> a hand was due and the
    # camera saw none: wrong on the hand, the words unknown
    assert second["unjudged"]["aki"] == "not heard: audio missing from 4.00 s to 40.00 s (the recording ends); no penalty"
    assert second["first"] is None and "aki" not in second["correct"] and "aki" not in second["penalties"]
    assert second["wrong"] == ["ben", "chie"] and "words not heard" in second["why"]["chie"]


def test_one_seats_lost_microphone_touches_only_that_seat():
    lost = {"t": 4.5, "type": "audio_status", "state": "lost", "player": "ben", "detail": "device unplugged"}
    ok = {"t": 20.0, "type": "audio_status", "state": "ok", "player": "ben"}
    events = BASE[:2] + [lost] + BASE[2:] + [_card(9.0, "2"), ok]
    verdicts, _ = _verdicts(*events)
    second, third = verdicts[1], verdicts[2]
    assert second["first"] == "aki" and second["wrong"] == ["ben", "chie"]  # ben: no hand (seen), words unknown
    assert third["unjudged"] == {"ben": "not heard: audio missing from 4.50 s to 20.00 s (device unplugged); no penalty"}
    assert third["missed"] == ["aki", "chie"]


def test_a_seat_the_camera_lost_is_not_judged_on_hands_it_could_not_see():
    """``seat_status`` lost/ok (vision found no person at ben's seat): on the card in that
    stretch ben said the right word and no hand was seen — unjudged (not seen), where with the
    seat in view the same record makes him wrong (no hand); after the ok he is judged as
    before. The others' verdicts do not change."""
    lost = {"t": 4.8, "type": "seat_status", "player": "ben", "state": "lost", "detail": "no person found at ben's seat"}
    ok = {"t": 8.0, "type": "seat_status", "player": "ben", "state": "ok"}
    said = {"t": 5.4, "type": "shout", "player": "ben", "words": ["tako"]}
    events = [*BASE[:2], *BASE[2:], said, _card(9.0, "2")]
    plain, _ = _verdicts(*events)
    verdicts, _ = _verdicts(*events[:2], lost, *events[2:], ok)
    assert "ben" in plain[1]["wrong"] and "no hand" in plain[1]["why"]["ben"]
    second = verdicts[1]
    assert "ben" not in second["wrong"] and "ben" not in second["missed"]
    assert "not seen" in second["unjudged"]["ben"] and "no person found at ben's seat" in second["unjudged"]["ben"]
    assert second["first"] == plain[1]["first"] and [p for p in second["wrong"]] == [p for p in plain[1]["wrong"] if p != "ben"]
    assert verdicts[0] == plain[0] and verdicts[2] == plain[2]


def test_the_incremental_judge_says_the_same_with_status_events():
    skip = {"t": 4.0, "type": "skipped", "what": "audio", "from": 4.0, "to": 40.0, "reason": "the recording ends"}
    events = [*BASE[:2], skip, *BASE[2:]]
    from session.events import Event, SessionHeader

    inc = IncrementalJudge(SessionHeader.from_dict(HEADER))
    for e in events:
        inc.feed(Event.from_dict(e))
    batch = judge(parse_lines([json.dumps(HEADER)] + [json.dumps(e) for e in events]))
    assert inc.finish().jsonl() == batch.jsonl()


def test_a_card_the_camera_could_not_read_closes_the_window_of_the_card_before():
    """A ``warning`` with ``unread`` (vision saw a card arrive, could not read it): the
    reactions after it are not merged into the previous card, and it gets no verdict."""
    unread = {"t": 3.0, "type": "warning", "message": "card in the field not recognised at 3.0 s",
              "zone": "field", "unread": True}
    late = {"t": 3.2, "type": "shout", "player": "ben", "words": ["3"]}
    plain, _ = _verdicts(_card(1.0, "3"), late)
    assert plain[0]["correct"] == ["ben"]  # without the warning ben's shout counts for card 3
    record = parse_lines([json.dumps(HEADER)] + [json.dumps(e) for e in (_card(1.0, "3"), unread, late)])
    judged = judge(record)
    verdicts = [v for v in judged.lines if v["type"] == "verdict"]
    assert len(verdicts) == 1 and verdicts[0]["correct"] == [] and verdicts[0]["missed"] == ["aki", "ben", "chie"]
    assert any("not recognised; no verdict" in n.message for n in judged.notes)


# ---------------------------------------------------------------- co-op: the active player


COOP = dict(HEADER, mode="coop")


def _coop(*events):
    lines = judge(parse_lines([json.dumps(COOP)] + [json.dumps(e) for e in events])).lines
    return [v for v in lines if v["type"] == "verdict"], lines[-1]


def _coop_card(t, card, by):
    return {"t": t, "type": "card", "card": card, "zone": "field", "by": by}


def test_coop_an_active_player_not_heard_makes_no_miss_and_the_table_plays_on():
    lost = {"t": 4.5, "type": "audio_status", "state": "lost", "player": "ben", "detail": "device unplugged"}
    ok = {"t": 8.5, "type": "audio_status", "state": "ok", "player": "ben"}
    events = [_coop_card(1.0, "3", "aki"), {"t": 1.4, "type": "shout", "player": "aki", "words": ["3"]},
              lost, _coop_card(5.0, "2", "ben"), ok,
              # chie goes on from the total the table heard (3 + 2 + 4)
              _coop_card(9.0, "4", "chie"), {"t": 9.4, "type": "shout", "player": "chie", "words": ["9"]}]
    verdicts, result = _coop(*events)
    first, second, third = verdicts
    assert first["ok"] and first["total"] == 3
    # ben's microphone lost and nothing heard: not judged, no miss pile, no score on it
    assert second["ok"] is False and second["miss_piles"] == 0
    assert second["unjudged"] == {"ben": "not heard: audio missing from 4.50 s to 8.50 s (device unplugged); no miss"}
    assert third["ok"] and third["total"] == 9 and third["miss_piles"] == 0
    assert result["score"] == 9 and result["miss_piles"] == 0
    # with ben heard saying nothing (his microphone fine) the same card is a miss, as before
    verdicts, result = _coop(*[e for e in events if e["type"] != "audio_status"])
    assert verdicts[1]["ok"] is False and verdicts[1]["miss_piles"] == 1 and "unjudged" not in verdicts[1]
    assert verdicts[2]["ok"] is False  # chie's 9 is wrong after the miss (4 expected)


def test_coop_a_wrong_hand_seen_is_a_miss_even_when_not_heard():
    lost = {"t": 0.5, "type": "audio_status", "state": "lost", "player": "aki", "detail": "device unplugged"}
    events = [lost, _coop_card(1.0, "ika", "aki"),
              {"t": 1.3, "type": "hand", "player": "aki", "side": "left", "state": "up"}]  # ika: the right hand
    verdicts, _ = _coop(*events)
    assert verdicts[0]["ok"] is False and verdicts[0]["miss_piles"] == 1 and "unjudged" not in verdicts[0]
    # the right hand, not heard: not judged
    events[2] = dict(events[2], side="right")
    verdicts, _ = _coop(*events)
    assert verdicts[0]["miss_piles"] == 0 and "aki" in verdicts[0]["unjudged"]


def test_coop_not_heard_is_not_announced_as_a_miss():
    from session.events import Event, SessionHeader

    lost = {"t": 0.5, "type": "audio_status", "state": "lost", "player": "aki", "detail": "device unplugged"}

    def said(events):
        inc = IncrementalJudge(SessionHeader.from_dict(COOP))
        for e in events:
            inc.feed(Event.from_dict(e))
        return [a.get("what") for a in inc.announce(5.0)]

    assert said([_coop_card(1.0, "3", "aki")]) == ["miss"]  # heard saying nothing: a miss
    assert said([lost, _coop_card(1.0, "3", "aki")]) == []


def test_a_seat_covered_by_the_rooms_sound_is_not_heard_not_missed():
    """The listener's ``skipped`` stretch for one seat (``audio.listen.Listener.masked``: the
    room's sound covered ben's microphone at 1.3-1.7 s) makes ben *not heard* on the card in
    whose window it falls, no penalty; chie, whose microphone was clear, is missed as ever."""
    covered = {"t": 1.3, "type": "skipped", "what": "audio", "from": 1.3, "to": 1.7, "player": "ben",
               "reason": "the room's sound covered this seat's microphone"}
    verdicts, _ = _verdicts(BASE[0], covered, BASE[1])
    assert verdicts[0]["missed"] == ["chie"] and "ben" not in verdicts[0].get("penalties", {})
    assert verdicts[0]["unjudged"]["ben"].startswith("not heard: audio missing from 1.30 s to 1.70 s")


def test_a_hand_left_up_across_a_stretch_the_seat_was_not_analysed_is_not_called_already_up():
    """Live, behind: the camera skipped aki's frames while the hand came down and went up again
    (vision.hands.POSE_GAP_S). Seen continuously, a hand still up at the reveal must come down
    first ("already up": wrong); not seen, that is no evidence, so no penalty."""
    up = {"t": 2.0, "type": "hand", "player": "aki", "side": "right", "state": "up"}
    said = {"t": 5.4, "type": "shout", "player": "aki", "words": ["ika"]}
    gap = {"t": 3.5, "type": "skipped", "what": "video", "from": 3.5, "to": 5.6, "player": "aki",
           "reason": "aki's hands not analysed for 2.10 s (frames skipped or not decodable)"}
    seen, _ = _verdicts(up, _card(5.0, "ika"), said)
    assert seen[0]["wrong"] == ["aki"] and "already up" in seen[0]["why"]["aki"]
    unseen, result = _verdicts(up, gap, _card(5.0, "ika"), said)
    assert unseen[0]["wrong"] == [] and "not seen: video missing from 3.50 s to 5.60 s" in unseen[0]["unjudged"]["aki"]
    assert "aki" not in unseen[0]["penalties"]

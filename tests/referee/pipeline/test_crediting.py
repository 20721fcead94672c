"""One laptop, one room microphone: a word is credited to a seat only when exactly that
seat's hands moved with it and no other word came within 0.3 s (issue 33's rule); any other
word stays unattributed with the reason, and its seats are not heard — never penalised."""

import math

import pytest

from referee.pipeline import CollectSink, Pipeline
from referee.pipeline.crediting import (CreditParams, Moved, RoomCrediting, credit, later_mouths, mouth_movers, movers,
                                       unseen_mouths)
from session.events import AUDIO_ROOM, AudioStatusEvent, Event, SessionHeader, ShoutEvent

ROOM = {"t": 0.0, "type": "audio_status", "state": AUDIO_ROOM, "detail": "one room microphone"}


def _shout(t, words=("tako",)):
    return ShoutEvent(t=t, player=None, words=tuple(words))


def _credit(word, moves, onsets, params, doubts=()):
    return credit(word, movers(word, moves, params), onsets, list(doubts), params)


def test_the_one_seat_whose_hands_moved_gets_the_word():
    got = _credit(_shout(1.3), [(1.2, "aki")], [1.3], CreditParams())
    assert got.player == "aki" and got.extra["credited_by"] == "hands"


def test_two_seats_moving_leave_the_word_uncredited_and_say_who():
    got = _credit(_shout(1.3), [(1.2, "aki"), (1.45, "ben")], [1.3], CreditParams())
    assert got.player is None and got.extra["uncredited"] == "aki and ben moved"


def test_three_seats_moving_are_named_as_a_person_would():
    got = _credit(_shout(1.3), [(1.2, "aki"), (1.3, "ben"), (1.4, "chie")], [1.3], CreditParams())
    assert got.extra["uncredited"] == "aki, ben and chie moved"


def test_a_hand_outside_the_span_does_not_count():
    p = CreditParams(hands_s=0.3)
    assert _credit(_shout(1.3), [(0.95, "ben"), (1.25, "aki"), (1.65, "ben")], [1.3], p).player == "aki"
    got = _credit(_shout(1.3), [(0.9, "aki")], [1.3], p)
    assert got.player is None and got.extra["uncredited"] == "no seat's hands moved"


def test_words_closer_than_apart_s_are_never_credited():
    got = _credit(_shout(1.3), [(1.25, "aki")], [1.3, 1.55], CreditParams(apart_s=0.3))
    assert got.player is None and got.extra["uncredited"] == "another word 0.25 s away"
    # 0.35 s apart: each is decided on its own hands
    assert _credit(_shout(1.3), [(1.25, "aki")], [1.3, 1.65], CreditParams(apart_s=0.3)).player == "aki"


def test_a_word_that_may_have_been_the_seats_earlier_keeps_its_later_one_uncredited():
    """aki's first word is the one judged: a word left uncredited 0.6 s before, with aki among
    those who moved (or nobody moving), may have been it — the later word is not credited."""
    p = CreditParams()
    got = _credit(_shout(1.9), [(1.85, "aki")], [1.3, 1.9], p, doubts=[(1.3, frozenset({"aki", "ben"}))])
    assert got.player is None and got.extra["uncredited"] == "aki may have said the word at 1.30 s before it"
    assert _credit(_shout(1.9), [(1.85, "aki")], [1.3, 1.9], p, doubts=[(1.3, None)]).player is None
    # another seat's doubt, or one older than earlier_s, does not stand in the way
    assert _credit(_shout(1.9), [(1.85, "aki")], [1.3, 1.9], p, doubts=[(1.3, frozenset({"ben"}))]).player == "aki"
    assert _credit(_shout(4.4), [(4.35, "aki")], [1.3, 4.4], p, doubts=[(1.3, None)]).player == "aki"


def test_the_stage_remembers_its_uncredited_words_and_a_longer_window_counts():
    stage = RoomCrediting()
    stage.start(5.0)  # the table's window option: 5 s
    assert stage.params.earlier_s == 5.0
    hand = {"type": "hand", "side": "left", "state": "up"}
    evs = [Event.from_dict(ROOM), _shout(1.0), Event.from_dict({**hand, "t": 0.95, "player": "aki"}),
           Event.from_dict({**hand, "t": 1.05, "player": "ben"}), Event.from_dict({**hand, "t": 5.4, "player": "ben"}),
           _shout(5.45)]
    out, _ = stage.feed(sorted(evs, key=lambda e: e.t), math.inf)
    words = [(e.player, e.extra.get("uncredited")) for e in out if e.type == "shout"]
    assert words == [(None, "aki and ben moved"), (None, "ben may have said the word at 1.00 s before it")]


@pytest.mark.parametrize("bad", [0, -0.1, math.inf, math.nan, 3.0, "0.3"])
def test_params_are_validated(bad):
    with pytest.raises(ValueError, match="CreditParams.hands_s"):
        CreditParams(hands_s=bad)


def test_without_the_room_status_events_pass_through_untouched():
    stage = RoomCrediting()
    evs = [_shout(1.0), Event.from_dict({"t": 1.1, "type": "hand", "player": "aki", "side": "left", "state": "up"})]
    out, mark = stage.feed(evs, 5.0)
    assert out == evs and mark == 5.0 and not stage.active


def test_the_stage_holds_each_word_until_the_hands_after_it_are_known():
    stage = RoomCrediting(CreditParams(hands_s=0.3, apart_s=0.3))
    out, mark = stage.feed([Event.from_dict(ROOM), _shout(1.0)], 1.2)
    assert [e.type for e in out] == ["audio_status"] and mark == pytest.approx(0.9)
    hand = Event.from_dict({"t": 1.2, "type": "hand", "player": "ben", "side": "left", "state": "up"})
    out, mark = stage.feed([hand], 1.25)  # what comes up to 1.0 + 0.3 s is not all known yet: held
    assert out == [] and mark == pytest.approx(0.95)
    out, mark = stage.feed([], 1.31)
    assert [(e.type, e.player) for e in out] == [("shout", "ben")]
    out, mark = stage.feed([], math.inf)
    assert out == [hand] and mark == math.inf and (stage.credited, stage.uncredited) == (1, 0)


def _judge(events):
    collect = CollectSink()
    pipe = Pipeline(["all"], [collect])
    pipe.start(SessionHeader.from_dict({"t": 0.0, "type": "session", "game": "ikatako", "mode": "versus",
                                        "players": ["aki", "ben", "chie"], "options": {}}))
    pipe.push("all", [Event.from_dict(e) for e in events])
    judgement = pipe.finish()
    return collect, [line for line in judgement.lines if line["type"] == "verdict"]


def test_a_credited_word_is_judged_and_the_seats_not_credited_are_not_penalised():
    collect, verdicts = _judge([
        ROOM,
        {"t": 1.0, "type": "card", "card": "tako", "zone": "field"},
        {"t": 1.30, "type": "hand", "player": "aki", "side": "left", "state": "up"},
        {"t": 1.35, "type": "shout", "player": None, "words": ["tako"]},
        {"t": 1.90, "type": "hand", "player": "ben", "side": "left", "state": "up"},
        {"t": 2.00, "type": "hand", "player": "chie", "side": "left", "state": "up"},
        *({"t": 3.0, "type": "hand", "player": p, "side": "left", "state": "down"} for p in ("aki", "ben", "chie")),
        {"t": 5.0, "type": "card", "card": "ika", "zone": "field"},
        {"t": 5.30, "type": "hand", "player": "ben", "side": "right", "state": "up"},
        {"t": 5.32, "type": "hand", "player": "chie", "side": "right", "state": "up"},
        {"t": 5.35, "type": "shout", "player": None, "words": ["tako"]},
    ])
    first, second = verdicts
    # ben and chie raised the right hand after aki's reaction: not heard, no penalty, not first
    assert first["first"] == "aki" and first["correct"] == ["aki"]
    assert first["wrong"] == [] and first["missed"] == []
    # the second word could be ben's or chie's: neither is wrong for it (aki raised no hand: seen)
    assert second["wrong"] == ["aki"] and second["first"] is None
    words = [e for e in collect.events if e.type == "shout"]
    assert [(w.player, w.extra.get("credited_by"), w.extra.get("uncredited")) for w in words] == [
        ("aki", "hands", None), (None, None, "ben and chie moved")]


def test_a_word_credited_by_its_hands_is_wrong_when_it_is_the_wrong_word():
    _, (verdict,) = _judge([
        ROOM,
        {"t": 1.0, "type": "card", "card": "tako", "zone": "field"},
        {"t": 1.30, "type": "hand", "player": "ben", "side": "left", "state": "up"},
        {"t": 1.35, "type": "shout", "player": None, "words": ["ika"]},
    ])
    assert "ben" in verdict["wrong"] and "ika" in verdict["why"]["ben"] and verdict["first"] is None


def test_the_room_status_says_why_a_seat_is_not_heard():
    assert AudioStatusEvent.from_dict(ROOM).state == AUDIO_ROOM
    _, (verdict,) = _judge([ROOM, {"t": 1.0, "type": "card", "card": "3", "zone": "field"},
                            {"t": 1.4, "type": "shout", "player": None, "words": ["3"]}])
    assert verdict["correct"] == [] and verdict["wrong"] == [] and verdict["missed"] == []
    assert "no word credited to this seat (one room microphone)" in str(verdict.get("unjudged") or verdict.get("unclear"))


# --- the mouth (vision.mouth's ``mouth`` events): hands or mouth, never a guess -------------

def _mouth(t, player, state="open"):
    return {"t": t, "type": "mouth", "player": player, "state": state}


def _moved(word, hands=(), opens=(), unseen=(), params=CreditParams()):
    return Moved(hands=frozenset(movers(word, sorted(hands), params)),
                 mouth=frozenset(mouth_movers(word, sorted(opens), params)),
                 unseen=frozenset(unseen_mouths(word, list(unseen), params)), mouths_read=True)


def test_the_one_mouth_that_opened_gets_the_word_and_says_so():
    w = _shout(2.0)
    got = credit(w, _moved(w, opens=[(1.8, "chie")]), [2.0], [], CreditParams())
    assert got.player == "chie" and got.extra["credited_by"] == "mouth"
    got = credit(w, _moved(w, hands=[(2.1, "chie")], opens=[(1.8, "chie")]), [2.0], [], CreditParams())
    assert got.player == "chie" and got.extra["credited_by"] == "both"
    got = credit(w, _moved(w, hands=[(2.1, "chie")]), [2.0], [], CreditParams())
    assert got.player == "chie" and got.extra["credited_by"] == "hands"


def test_the_mouths_window_is_asymmetric_it_opens_before_the_voice():
    p = CreditParams(mouth_before_s=0.5, mouth_after_s=0.15)
    w = _shout(2.0)
    assert credit(w, _moved(w, opens=[(1.55, "aki")], params=p), [2.0], [], p).player == "aki"
    assert credit(w, _moved(w, opens=[(2.12, "aki")], params=p), [2.0], [], p).player == "aki"
    for late_or_early in (1.45, 2.2):  # 0.55 s before, 0.2 s after: not this word's mouth
        got = credit(w, _moved(w, opens=[(late_or_early, "aki")], params=p), [2.0], [], p)
        assert got.player is None and got.extra["uncredited"] == "no seat's hands or mouth moved"


def test_a_mouth_moving_in_chatter_makes_a_raised_hand_unclear_never_a_guess():
    """Fairness: ben chatting (his mouth opened) while aki raised a hand and the word came:
    either could have said it."""
    w = _shout(2.0)
    got = credit(w, _moved(w, hands=[(2.05, "aki")], opens=[(1.7, "ben")]), [2.0], [], CreditParams())
    assert got.player is None and got.extra["uncredited"] == "aki and ben moved"
    got = credit(w, _moved(w, opens=[(1.7, "ben"), (1.9, "chie")]), [2.0], [], CreditParams())
    assert got.player is None and got.extra["uncredited"] == "ben and chie moved"


def test_a_mouth_not_seen_keeps_a_word_from_being_credited_by_another_mouth_alone():
    """ben's face was not read around the word (turned away, too small): he may have said it.
    A raised hand still credits the word as it did before mouths were read."""
    w = _shout(2.0)
    hidden = [(1.9, math.inf, "ben")]
    got = credit(w, _moved(w, opens=[(1.8, "aki")], unseen=hidden), [2.0], [], CreditParams())
    assert got.player is None and got.extra["uncredited"] == "ben's mouth not seen"
    got = credit(w, _moved(w, opens=[(1.8, "aki")], unseen=hidden + [(0.5, 1.4, "chie"), (1.0, 2.1, "dai")]),
                 [2.0], [], CreditParams())
    assert got.extra["uncredited"] == "the mouths of ben and dai not seen"
    # seen again before the window: no doubt
    assert credit(w, _moved(w, opens=[(1.8, "aki")], unseen=[(0.5, 1.4, "ben")]), [2.0], [], CreditParams()).player == "aki"
    got = credit(w, _moved(w, hands=[(2.0, "aki")], opens=[(1.8, "aki")], unseen=hidden), [2.0], [], CreditParams())
    assert got.player == "aki" and got.extra["credited_by"] == "both"


def test_words_too_close_stay_unclear_whatever_mouth_opened():
    w = _shout(2.0)
    got = credit(w, _moved(w, opens=[(1.8, "aki")]), [2.0, 2.2], [], CreditParams())
    assert got.player is None and got.extra["uncredited"] == "another word 0.20 s away"


def test_the_stage_reads_mouth_events_and_holds_a_word_for_the_mouth_after_it():
    stage = RoomCrediting(CreditParams(hands_s=0.1, apart_s=0.1, mouth_before_s=0.5, mouth_after_s=0.2))
    assert stage.params.hold_s == pytest.approx(0.2)
    out, mark = stage.feed([Event.from_dict(e) for e in (ROOM, _mouth(0.0, "aki", "closed"),
                                                          _mouth(0.0, "ben", "closed"))] + [_shout(1.0)], 1.1)
    assert [e.type for e in out] == ["audio_status", "mouth", "mouth"] and mark == pytest.approx(0.9)
    out, mark = stage.feed([Event.from_dict(_mouth(1.15, "ben"))], 1.21)
    assert [(e.type, e.player, e.extra.get("credited_by")) for e in out] == [("shout", "ben", "mouth")]
    # a later word: ben's mouth stops being seen, aki's opens — not credited to aki
    evs = [Event.from_dict(_mouth(2.0, "ben", "unseen")), Event.from_dict(_mouth(2.6, "aki")), _shout(2.8)]
    out, _ = stage.feed(evs, math.inf)
    assert [(e.player, e.extra.get("uncredited")) for e in out if e.type == "shout"] == [(None, "ben's mouth not seen")]
    # ben seen again, then a word with aki's mouth alone: the unclear word before may have been aki's
    evs = [Event.from_dict(_mouth(3.0, "ben", "closed")), Event.from_dict(_mouth(3.6, "aki")), _shout(3.8)]
    stage2 = RoomCrediting()
    out, _ = stage2.feed([Event.from_dict(ROOM), Event.from_dict(_mouth(0.0, "ben", "unseen")),
                          Event.from_dict(_mouth(2.6, "aki")), _shout(2.8), *evs], math.inf)
    assert [(e.player, e.extra.get("uncredited")) for e in out if e.type == "shout"] == [
        (None, "ben's mouth not seen"), (None, "aki may have said the word at 2.80 s before it")]


def test_a_word_credited_by_the_mouth_is_judged_as_that_players():
    collect, (verdict,) = _judge([
        ROOM, *(_mouth(0.0, p, "closed") for p in ("aki", "ben", "chie")),
        {"t": 1.0, "type": "card", "card": "3", "zone": "field"},
        _mouth(1.2, "chie"),
        {"t": 1.4, "type": "shout", "player": None, "words": ["3"]},
    ])
    assert verdict["correct"] == ["chie"] and verdict["wrong"] == []
    (word,) = [e for e in collect.events if e.type == "shout"]
    assert word.player == "chie" and word.extra["credited_by"] == "mouth"


@pytest.mark.parametrize("name", ["mouth_before_s", "mouth_after_s"])
@pytest.mark.parametrize("bad", [0, -0.1, math.inf, 3.0, "0.3"])
def test_mouth_params_are_validated(name, bad):
    with pytest.raises(ValueError, match=f"CreditParams.{name}"):
        CreditParams(**{name: bad})


def test_another_mouth_opening_within_apart_s_of_the_onset_leaves_the_word_unclear():
    """The room microphone hears ben's shout and aki's 0.26 s later as one word (the demo's
    first card): aki's voice may be in it, so it is nobody's."""
    p = CreditParams(mouth_after_s=0.15, apart_s=0.3)
    w = _shout(2.52)
    opens = [(2.523, "ben"), (2.78, "aki")]
    moved = Moved(mouth=frozenset(mouth_movers(w, opens, p)), mouths_read=True, later=tuple(later_mouths(w, opens, p)))
    got = credit(w, moved, [2.52], [], p)
    assert got.player is None and got.extra["uncredited"] == "aki's mouth opened 0.26 s into the word"
    # 0.35 s after: another word's, not this one's
    opens = [(2.523, "ben"), (2.87, "aki")]
    moved = Moved(mouth=frozenset(mouth_movers(w, opens, p)), mouths_read=True, later=tuple(later_mouths(w, opens, p)))
    assert credit(w, moved, [2.52], [], p).player == "ben"
    # the speaker's own mouth opening again inside the word is no other voice
    opens = [(2.523, "ben"), (2.75, "ben")]
    moved = Moved(mouth=frozenset(mouth_movers(w, opens, p)), mouths_read=True, later=tuple(later_mouths(w, opens, p)))
    assert credit(w, moved, [2.52], [], p).player == "ben"


def test_the_mouths_first_states_at_0_s_count_though_they_come_before_the_room_status():
    """In the canonical order a ``mouth`` at 0 s comes before the ``audio_status`` ``room`` at
    0 s: a seat whose face is not found from the start is still known as unseen."""
    from session.order import sort_key

    evs = sorted([Event.from_dict(e) for e in (ROOM, _mouth(0.0, "aki", "closed"), _mouth(0.0, "ben", "unseen"),
                                                _mouth(1.8, "aki"))] + [_shout(2.0)], key=sort_key)
    assert [e.type for e in evs[:3]] == ["mouth", "mouth", "audio_status"]
    stage = RoomCrediting()
    out, _ = stage.feed(evs, math.inf)
    assert [(e.player, e.extra.get("uncredited")) for e in out if e.type == "shout"] == [(None, "ben's mouth not seen")]

"""TAKOYAKI rules (docs/rules.md, TAKOYAKI, seed 001): every rule and option, plus properties."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, strategies as st

import rules
from session.errors import IllegalAction, RulesError, UnknownCard
from rules.takoyaki import (JOKER, Discard, Draw, Place, Shuffle, TakeDiscard, full_deck,
                            parse_card, parse_griddle, placement)

GAME = rules.get("takoyaki")


def dealt(players=("aki", "ben"), mode="versus", options=None, order=None):
    """A state after the deal; ``order`` None = the unshuffled deck (AS, 2S, … in order)."""
    state = GAME.new_state(list(players), mode=mode, options=options)
    n = len(state.deck)
    state.apply(Shuffle(tuple(order if order is not None else range(n))))
    return state


def test_card_notation():
    assert parse_card("10h") == "10H"
    assert parse_card("jk") == JOKER
    assert parse_card("AS") == "AS"
    for bad in ("1", "11H", "ZS", "", "AX", "10"):
        with pytest.raises(UnknownCard, match="unknown card"):
            parse_card(bad)


def test_decks_and_jokers():
    assert len(full_deck(1, 2)) == 54
    assert len(GAME.new_state(["a", "b", "c"]).all_cards) == 54  # one deck up to 3 players
    four = GAME.new_state(["a", "b", "c", "d"])
    assert len(four.all_cards) == 108 and Counter(four.all_cards)[JOKER] == 4  # two decks from 4
    assert Counter(GAME.new_state(["a", "b"], options={"jokers": 0}).all_cards)[JOKER] == 0
    assert Counter(GAME.new_state(["a", "b"], options={"jokers": 1}).all_cards)[JOKER] == 1
    with pytest.raises(RulesError):
        GAME.new_state(["a"])  # versus needs 2
    with pytest.raises(RulesError):
        GAME.new_state(["a", "b"], mode="solo")


def test_deal_lays_slots_a_to_10_face_down():
    s = dealt()
    # unshuffled one-deck order: AS 2S … KS AH …: aki gets AS..10S, ben gets JS QS KS AH..7H
    assert s.cards["aki"] == ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S"]
    assert s.cards["ben"][:4] == ["JS", "QS", "KS", "AH"]
    assert not any(s.up["aki"]) and len(s.deck) == 54 - 20
    assert s.deck[0] == "8H"


def test_a_to_10_goes_on_its_slot_and_the_chain_goes_on():
    s = dealt()
    s.apply(Draw())  # aki draws 8H
    assert s.hand == "8H" and s.legal_actions() == [Place(8)]
    out = s.apply(Place(8))
    assert out.kind == "place" and out.details["turned"] == "8S"  # the card that was under slot 8
    assert s.up["aki"][7] and s.cards["aki"][7] == "8H" and s.hand == "8S"
    # 8S: slot 8 is already face up -> discard, turn ends
    assert s.legal_actions() == [Discard()]
    out = s.apply(Discard())
    assert out.details["next"] == "ben" and s.player == "ben" and s.discard == ["8S"]


def test_jqk_end_the_turn():
    s = dealt()
    s.hand, s.phase = "QD", "place"
    assert s.legal_actions() == [Discard()]
    with pytest.raises(IllegalAction):
        s.apply(Place(1))


def test_joker_goes_on_any_face_down_slot_and_fills_it():
    s = dealt()
    s.up["aki"][2] = True
    s.hand, s.phase = JOKER, "place"
    assert s.legal_actions() == [Place(i) for i in (1, 2, 4, 5, 6, 7, 8, 9, 10)]
    s.apply(Place(5))
    assert s.up["aki"][4] and s.cards["aki"][4] == JOKER
    assert placement("5H", s.up["aki"]).slots == ()  # the joker's slot counts as filled


def test_placeable_card_must_be_placed():
    s = dealt()
    s.hand, s.phase = "4C", "place"
    with pytest.raises(IllegalAction):
        s.apply(Discard())


def test_six_card_griddle_7_to_10_end_the_turn():
    s = dealt(options={"griddle": 6})
    assert len(s.cards["aki"]) == 6
    for card in ("7H", "10C"):
        p = placement(card, s.up["aki"])
        assert p.slots == () and not p.continues


def test_reshuffle_discards_when_the_deck_is_empty():
    s = dealt()
    # the whole deck went onto the discards but for KH, which aki holds: it cannot be placed
    s.discard = [c for c in s.deck if c != "KH"]
    s.deck, s.hand, s.phase = [], "KH", "place"
    s.apply(Discard())  # deck empty -> the next thing is a chance shuffle
    assert s.phase == "reshuffle"
    before = list(s.discard)
    rng = random.Random(1)
    action = s.random_action(rng)
    assert isinstance(action, Shuffle) and len(action.order) == len(before)
    s.apply(action)
    assert s.discard == [] and sorted(s.deck) == sorted(before)
    s.check_invariants()


def test_take_the_discard_only_with_the_option_and_when_placeable():
    s = dealt(options={"take_discard": True})
    s.discard = ["3H"]
    assert TakeDiscard() in s.legal_actions()
    s.discard = ["KH"]
    assert s.legal_actions() == [Draw()]
    plain = dealt()
    plain.discard = ["3H"]
    assert plain.legal_actions() == [Draw()]
    s.discard = ["3H"]
    s.apply(TakeDiscard())
    assert s.hand == "3H" and s.discard == [] and s.legal_actions() == [Place(3)]


def _play(state, rng):
    while (a := state.random_action(rng)) is not None:
        state.apply(a)
        state.check_invariants()
    return state


def test_first_to_fill_wins_others_rank_by_face_up_count():
    s = _play(GAME.new_state(["aki", "ben", "chie"]), random.Random(5))
    res = s.result()
    (w,) = res["winners"]
    assert res["face_up"][w] == 10 and all(s.up[w])
    assert res["ranking"][0] == [w]
    counts = [res["face_up"][g[0]] for g in res["ranking"][1:]]
    assert counts == sorted(counts, reverse=True) and all(c < 10 for c in counts)


def test_kachinuki_winner_lays_one_card_fewer_next_game():
    s = _play(GAME.new_state(["aki", "ben"], options={"kachinuki": True, "sizes": {"aki": 9}}),
              random.Random(3))
    assert len(s.cards["aki"]) == 9
    res = s.result()
    (w,) = res["winners"]
    assert res["next_sizes"][w] == (9 if w == "aki" else 10) - 1
    one = _play(GAME.new_state(["aki", "ben"], options={"kachinuki": True, "sizes": {"aki": 1, "ben": 1}}),
                random.Random(0))
    assert one.result()["champion"] == one.result()["winners"][0]
    with pytest.raises(RulesError, match="sizes"):
        GAME.new_state(["aki", "ben"], options={"sizes": {"zed": 3}})


def test_solo_counts_turns():
    s = _play(GAME.new_state(["aki"], mode="solo"), random.Random(2))
    res = s.result()
    assert res["cleared"] and res["turns_needed"] == s.turns["aki"] >= 1


def test_griddle_notation():
    assert parse_griddle("x.j...") == [True, False, True, False, False, False]
    for bad in ("", "x" * 11, "xo..", "x,x"):
        with pytest.raises(RulesError, match="malformed griddle"):
            parse_griddle(bad)


ranks = st.sampled_from(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"])
suits = st.sampled_from("SHDC")


@given(st.lists(st.booleans(), min_size=1, max_size=10), st.one_of(st.just(JOKER), st.builds(str.__add__, ranks, suits)))
def test_placement_property(face_up, card):
    p = placement(card, face_up)
    down = [i + 1 for i, u in enumerate(face_up) if not u]
    assert all(s in down for s in p.slots)  # never onto a face-up slot
    assert p.continues == bool(p.slots)
    if card == JOKER:
        assert list(p.slots) == down
    else:
        assert len(p.slots) <= 1
        if p.slots:
            assert p.slots[0] == ("A 2 3 4 5 6 7 8 9 10".split().index(card[:-1]) + 1)
    assert p.wins == (bool(p.slots) and len(down) == 1)

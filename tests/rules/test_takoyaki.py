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


# ----------------------------------------------------------------------------- following a table
def hidden(players=("aki", "ben"), options=None, mode="versus"):
    """The judge's view: the deal face down, moves as the table made them (strict=False)."""
    return GAME.new_state(list(players), mode=mode, options=options, hidden=True)


def follow(state, move, player, card, slot=None):
    cls = {"draw": Draw, "take": TakeDiscard, "discard": Discard}.get(move)
    action = Place(slot, player, card, strict=False) if move == "place" else cls(player, card, strict=False)
    return state.apply(action).details


def test_following_the_first_draw_decides_who_starts_and_a_legal_turn_goes_round():
    s = hidden()
    assert s.player is None and len(s.deck) == 54 - 20
    d = follow(s, "draw", "ben", "3C")  # ben starts: the table decided
    assert (d["legal"], d["next"], d["why"]) == (True, "ben", "ben draws 3C")
    d = follow(s, "place", "ben", "3C", 3)
    assert d["legal"] and d["next"] == "ben" and d["face_up"] == 1 and s.hand == "?"  # the turned card is unseen
    d = follow(s, "discard", None, "KS")  # no `by`: whoever is playing
    assert (d["player"], d["legal"], d["next"]) == ("ben", True, "aki")
    assert s.player == "aki" and s.discard == ["KS"] and s.turns == {"aki": 0, "ben": 1} and len(s.deck) == 33


def test_following_an_illegal_placement_lies_where_it_was_put_and_ends_the_turn():
    s = hidden()
    follow(s, "draw", "aki", "JH")
    d = follow(s, "place", "aki", "JH", 1)  # J/Q/K have no slot
    assert not d["legal"] and d["why"].startswith("J/Q/K placed") and d["next"] == "ben"
    assert s.up["aki"][0] and s.cards["aki"][0] == "JH" and not s.legal_fill["aki"][0]
    d = follow(s, "place", "aki", "4D", 4)  # the chain went on after the JH
    assert not d["legal"] and d["why"] == "turn should have ended at JH" and d["next"] == "ben"
    d = follow(s, "discard", "aki", "9C")  # placeable, but the turn had ended
    assert d["legal"] and d["why"] == "the turn had ended at JH"
    d = follow(s, "draw", "aki", "2C")  # aki again: ben's turn
    assert not d["legal"] and d["why"] == "turn should have ended: aki discarded; it is ben's turn"


def test_following_out_of_turn_wrong_card_and_a_missed_discard():
    s = hidden(players=("aki", "ben", "chie"))
    follow(s, "draw", "aki", "5H")
    d = follow(s, "place", "ben", "6H", 6)
    assert not d["legal"] and d["why"] == "out of turn: it is aki's turn" and s.up["ben"][5]
    d = follow(s, "place", "aki", "7H", 7)
    assert not d["legal"] and d["why"] == "not the card in hand: aki holds 5H, placed 7H"
    d = follow(s, "draw", "ben", "8C")  # aki's discard was not seen: the turn passes, with a note
    assert d["legal"] and d["notes"] == ["no discard seen for aki before ben drew; turn passed"]
    d = follow(s, "discard", "zed", "KD")
    assert (d["legal"], d["next"], d["notes"]) == (False, None, ["discard of KD before anyone played"])
    with pytest.raises(IllegalAction, match="zed"):
        follow(s, "draw", "zed", "2C")


def test_following_a_griddle_filled_through_an_illegal_placement_is_no_win():
    sizes = {"aki": 2, "ben": 2}
    s = hidden(options={"kachinuki": True, "sizes": sizes})
    follow(s, "draw", "aki", "3C")
    follow(s, "place", "aki", "3C", 1)  # wrong slot, but the turn goes on (A was free)
    follow(s, "discard", "aki", "KH")
    follow(s, "draw", "ben", "AD")
    follow(s, "place", "ben", "AD", 1)
    follow(s, "discard", "ben", "QS")
    follow(s, "draw", "aki", "2S")
    d = follow(s, "place", "aki", "2S", 2)
    assert d["legal"] and "not a win" in d["why"] and s.winner is None and d["next"] == "aki"
    follow(s, "discard", "aki", "JS")
    follow(s, "draw", "ben", "JK")
    d = follow(s, "place", "ben", "JK", 2)  # a joker on the last face-down slot
    assert d["winner"] == "ben" and d["next"] is None and d["why"].endswith("ben has filled the griddle and wins")
    assert s.is_over and s.kachinuki() == {"next_sizes": {"aki": 2, "ben": 1}, "champion": None}
    with pytest.raises(IllegalAction, match="over"):
        follow(s, "discard", "ben", "5C")


def test_following_the_discards_are_the_new_deck_when_it_runs_out_and_may_be_taken():
    s = hidden(options={"take_discard": True})
    s.deck = [None]
    follow(s, "draw", "aki", "QH")
    follow(s, "discard", "aki", "QH")
    follow(s, "draw", "ben", "5S")  # the deck is empty: the discards (QH) become the deck
    assert s.deck == [] and s.discard == []
    d = follow(s, "discard", "ben", "5S")
    assert not d["legal"] and d["why"].startswith("placeable card discarded") and s.discard == ["5S"]
    d = follow(s, "take", "aki", "5S")
    assert d["legal"] and d["why"] == "aki takes 5S from the discards" and s.discard == []
    d = follow(s, "take", "ben", "9S")
    assert not d["legal"] and "not the top discard" in d["why"]


def test_following_a_random_legal_game_judges_every_move_legal_with_the_rules_next_player():
    for seed in range(6):
        rng = random.Random(seed)
        opts = {"griddle": rng.choice([6, 10]), "take_discard": bool(seed % 2), "jokers": seed % 3}
        game = GAME.new_state(["aki", "ben", "chie"][: 2 + seed % 2], options=opts)
        seen = hidden(game.players, opts)
        while (a := game.random_action(rng)) is not None:
            p = game.player
            out = game.apply(a)
            if isinstance(a, Shuffle):
                continue
            slot = a.slot if isinstance(a, Place) else None
            move = {Draw: "draw", TakeDiscard: "take", Place: "place", Discard: "discard"}[type(a)]
            d = follow(seen, move, p, out.details["card"], slot)
            assert d["legal"], (seed, d)
            assert d["next"] == (None if out.kind == "win" else out.details.get("next", p))
            seen.check_invariants()
        assert seen.winner == game.winner and seen.turns == game.turns and seen.up == game.up


def test_strict_moves_may_name_the_player_and_card_and_must_match():
    s = dealt()  # aki to play, the deck's top is 8H
    with pytest.raises(IllegalAction, match="aki's turn"):
        s.apply(Draw(player="ben"))
    with pytest.raises(IllegalAction, match="8H"):
        s.apply(Draw(player="aki", card="9H"))
    s.apply(Draw(player="aki", card="8H"))
    with pytest.raises(IllegalAction, match="8H"):
        s.apply(Place(8, card="9C"))
    assert s.apply(Place(8, "aki", "8h")).details["turned"] == "8S"
    with pytest.raises(IllegalAction, match="strict=False"):
        hidden().apply(Draw())
    assert hidden().legal_actions() == [] and hidden().random_action(random.Random(0)) is None
    with pytest.raises(IllegalAction, match="card that was seen"):
        hidden().apply(Draw("aki", strict=False))

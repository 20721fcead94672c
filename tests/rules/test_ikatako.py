"""IKATAKO rules, row by row from docs/rules.md, IKATAKO (expectations written from the spec, not the code)."""

from __future__ import annotations

import itertools
import random

import pytest

import rules
from session.errors import IllegalAction, OptionError, RulesError, UnknownCard
from rules import ikatako as rk
from rules.ikatako import (Choice, Declare, End, ReactionOutcome, Remove, Reveal, SkipEffect,
                           coop_reaction, coop_sequence, expected_reaction)

# ----------------------------------------------------------------------------- the deck

SPEC_DECK = {  # docs/rules.md, IKATAKO "Cards (30)": id -> (kind, value, copies)
    "2": ("normal", 2, 4), "3": ("normal", 3, 4), "4": ("normal", 4, 3), "5": ("normal", 5, 3),
    "uzushio6": ("special", 6, 1), "uzushio9": ("special", 9, 1), "salvage": ("special", 1, 2),
    "tako": ("danger", 8, 4), "ika": ("danger", 10, 4), "ikatako": ("danger", 18, 1),
    "repeat": ("trouble", None, 1), "mirror": ("trouble", None, 1), "number": ("trouble", None, 1),
}


def test_deck_matches_the_spec_table_and_holds_30_cards():
    assert rk.CARDS == SPEC_DECK
    assert sum(rk.DECK.values()) == 30
    assert rk.DECK["4"] == 3 and rk.DECK["5"] == 3  # the correction, not "3 and 4 ×3"


def test_registry_returns_the_game():
    game = rules.get("ikatako")
    assert game is rk.GAME
    assert game.modes == ("versus", "coop", "solo")


@pytest.mark.parametrize("bad", ["ika7", "squid", "", "6", "uzushio"])
def test_unknown_card_names_the_card_and_lists_valid_ids(bad):
    with pytest.raises(UnknownCard) as err:
        expected_reaction(bad)
    msg = str(err.value)
    assert repr(bad) in msg
    for cid in SPEC_DECK:
        assert cid in msg


def test_unknown_trouble_is_an_error():
    with pytest.raises(UnknownCard, match="'ika' is not a trouble card"):
        expected_reaction("tako", ["ika"])


# ----------------------------------------------------------------------------- versus reactions


@pytest.mark.parametrize("card,hands,say", [
    ("2", "none", ("2",)), ("3", "none", ("3",)), ("4", "none", ("4",)), ("5", "none", ("5",)),
    ("uzushio6", "none", ("uzushio",)), ("uzushio9", "none", ("uzushio",)),
    ("salvage", "none", ("salvage",)),
    ("tako", "left", ("tako",)), ("ika", "right", ("ika",)), ("ikatako", "both", ("ikatako",)),
])
def test_reaction_without_troubles(card, hands, say):
    r = expected_reaction(card)
    assert (r.hands, r.say) == (hands, say)
    assert r.required


@pytest.mark.parametrize("card", ["repeat", "mirror", "number"])
def test_trouble_card_asks_for_no_reaction(card):
    r = expected_reaction(card, ["repeat", "mirror"])
    assert (r.hands, r.say) == ("none", ())
    assert not r.required


# (mirror, number, repeat) -> reaction to tako, reaction to ika, written out by hand
TROUBLE_TABLE = {
    (0, 0, 0): (("left", ("tako",)), ("right", ("ika",))),
    (1, 0, 0): (("right", ("ika",)), ("left", ("tako",))),
    (0, 1, 0): (("left", ("8",)), ("right", ("10",))),
    (0, 0, 1): (("left", ("tako", "tako")), ("right", ("ika", "ika"))),
    (1, 1, 0): (("right", ("10",)), ("left", ("8",))),
    (1, 0, 1): (("right", ("ika", "ika")), ("left", ("tako", "tako"))),
    (0, 1, 1): (("left", ("8", "8")), ("right", ("10", "10"))),
    (1, 1, 1): (("right", ("10", "10")), ("left", ("8", "8"))),
}


@pytest.mark.parametrize("flags", sorted(TROUBLE_TABLE))
def test_troubles_stack_mirror_number_repeat(flags):
    troubles = [name for name, on in zip(("mirror", "number", "repeat"), flags) if on]
    want_tako, want_ika = TROUBLE_TABLE[flags]
    for order in itertools.permutations(troubles):  # the order they came out does not matter
        t, i = expected_reaction("tako", order), expected_reaction("ika", order)
        assert (t.hands, t.say) == want_tako
        assert (i.hands, i.say) == want_ika


def test_rulebook_example_repeat_mirror_number_ika_is_left_hand_8_8():
    r = expected_reaction("ika", ["repeat", "mirror", "number"])
    assert r.hands == "left" and r.say == ("8", "8")
    assert r.to_dict() == {"hands": "left", "say": ["8", "8"]}


@pytest.mark.parametrize("troubles", [[], ["mirror"], ["number"], ["repeat"], ["repeat", "mirror", "number"]])
def test_ikatako_is_always_both_hands_and_ikatako(troubles):
    r = expected_reaction("ikatako", troubles)
    assert (r.hands, r.say) == ("both", ("ikatako",))


@pytest.mark.parametrize("card", ["2", "5", "uzushio6", "salvage"])
def test_troubles_change_only_tako_and_ika(card):
    assert expected_reaction(card, ["repeat", "mirror", "number"]) == expected_reaction(card)


def test_card_ids_are_case_and_space_tolerant():
    assert expected_reaction(" IKA ") == expected_reaction("ika")


# ----------------------------------------------------------------------------- co-op reactions


def test_coop_examples_from_the_rulebook():
    assert coop_reaction("2") == rk.Reaction("none", ("2",))
    assert coop_reaction("ika", 2) == rk.Reaction("right", ("ika", "12"))  # "squid 12" after a 2
    assert coop_reaction("uzushio6", 2) == rk.Reaction("none", ("uzushio", "8"))  # "uzushio 8"
    assert coop_reaction("ikatako", 12) == rk.Reaction("both", ("ikatako", "30"))
    assert coop_reaction("tako", 0) == rk.Reaction("left", ("tako", "8"))
    assert coop_reaction("salvage", 6) == rk.Reaction("none", ("salvage", "7"))
    assert coop_reaction("5", 2) == rk.Reaction("none", ("7",))  # "7!" the running total


def test_coop_sequence_accumulates_the_total():
    got = [(r.hands, list(r.say)) for r in coop_sequence(["2", "ika", "uzushio6", "3", "tako", "ikatako"])]
    assert got == [("none", ["2"]), ("right", ["ika", "12"]), ("none", ["uzushio", "18"]),
                   ("none", ["21"]), ("left", ["tako", "29"]), ("both", ["ikatako", "47"])]


def test_coop_has_no_trouble_cards():
    with pytest.raises(UnknownCard, match="not used in co-op"):
        coop_sequence(["2", "mirror"])


def test_coop_sequence_cannot_use_a_card_more_often_than_the_deck_holds():
    with pytest.raises(RulesError, match="only 4 'ika'"):
        coop_sequence(["ika"] * 5)
    with pytest.raises(RulesError, match="only 1 'ikatako'"):
        coop_sequence(["ikatako", "ikatako"])


# ----------------------------------------------------------------------------- versus state

P3 = ["aki", "ben", "chie"]


def versus(players=P3, **options):
    state = rk.GAME.new_state(players, "versus", options)
    state.apply(Remove(None))
    return state


def take(state, card, first, wrong=(), missed=(), **kw):
    state.apply(Reveal(card))
    out = state.apply(ReactionOutcome(first, tuple(wrong), tuple(missed), **kw))
    state.check_invariants()
    return out


def test_versus_needs_two_players_and_solo_one():
    with pytest.raises(RulesError):
        rk.GAME.new_state(["aki"], "versus")
    with pytest.raises(RulesError):
        rk.GAME.new_state(["aki", "ben"], "solo")
    with pytest.raises(OptionError):
        rk.GAME.new_state(["aki", "ben"], "tournament")


def test_options_have_the_spec_defaults_and_are_checked():
    opts = rk.GAME.resolve_options({})
    assert opts == {"window": 3.0, "tie_ms": 33, "penalty_card": "lowest", "three_count": False}
    with pytest.raises(OptionError):
        rk.GAME.resolve_options({"penalty_card": "random"})
    with pytest.raises(OptionError):
        rk.GAME.resolve_options({"windw": 2})


def test_two_unseen_cards_are_removed_and_28_are_played():
    state = versus(["aki", "ben"])
    rng = random.Random(3)
    n = 0
    while state.cards_left:
        card = rng.choice(sorted(state.deck.elements()))
        state.apply(Reveal(card))
        state.apply(ReactionOutcome(None))
        n += 1
    assert n == 28
    assert state.is_over
    assert sum(state.deck.values()) == 2  # the removed cards were never seen
    state.check_invariants()


def test_known_removed_cards_cannot_be_revealed():
    state = rk.GAME.new_state(P3, "versus")
    state.apply(Remove(("ikatako", "mirror")))
    with pytest.raises(IllegalAction, match="no 'ikatako' is left"):
        state.apply(Reveal("ikatako"))


def test_first_player_takes_the_card_and_wrong_and_missed_turn_down_the_lowest():
    state = versus()
    take(state, "ika", "aki")
    take(state, "3", "aki")
    take(state, "5", "ben")
    out = take(state, "2", "ben", wrong=["aki"], missed=["chie"])
    assert out.details["penalties"] == {"aki": "3", "chie": None}  # chie has no point card
    assert state.points["aki"] == ["ika"] and state.penalties["aki"] == ["3"]
    assert state.score("aki") == 10 - 3
    assert state.score("ben") == 5 + 2


def test_penalty_policy_highest_and_the_players_own_choice():
    state = versus(penalty_card="highest")
    take(state, "ika", "aki")
    take(state, "3", "aki")
    take(state, "4", "aki")
    take(state, "5", "ben", wrong=["aki"])
    assert state.penalties["aki"] == ["ika"]
    take(state, "2", "ben", wrong=["aki"], penalty_choices=(("aki", "4"),))
    assert state.penalties["aki"] == ["ika", "4"]
    take(state, "2", "ben", wrong=["aki"], penalty_choices=(("aki", "tako"),))  # not held: policy
    assert state.penalties["aki"] == ["ika", "4", "3"]


def test_nobody_correct_discards_the_card():
    state = versus()
    out = take(state, "tako", None, wrong=["aki"], missed=["ben", "chie"])
    assert out.kind == "discarded"
    assert state.discard == ["tako"]
    assert all(not v for v in state.points.values())


def test_trouble_card_stays_in_the_field_and_cannot_be_taken():
    state = versus()
    state.apply(Reveal("mirror"))
    with pytest.raises(IllegalAction):
        state.apply(ReactionOutcome("aki"))
    with pytest.raises(IllegalAction):
        state.apply(ReactionOutcome(None, missed=("aki",)))
    out = state.apply(ReactionOutcome(None, wrong=("ben",)))
    assert out.kind == "trouble"
    assert state.troubles == ["mirror"]
    out = state.apply(Reveal("tako"))
    assert out.details["troubles"] == ["mirror"]
    state.check_invariants()


def test_effects_happen_only_through_a_choice():
    state = versus()
    take(state, "ika", "ben")
    take(state, "3", "aki", missed=["ben"])  # ben: penalty ika
    take(state, "uzushio9", "ben")
    assert state.pending_effect == ("ben", "uzushio9")
    state.apply(SkipEffect())  # no choice: nothing happens
    assert state.penalties["ben"] == ["ika"] and state.points["ben"] == ["uzushio9"]


def test_uzushio_moves_a_penalty_or_gives_itself_as_a_penalty():
    state = versus()
    take(state, "ika", "ben")
    take(state, "3", "aki", missed=["ben"])
    take(state, "uzushio9", "ben")
    with pytest.raises(IllegalAction, match="only ben"):
        state.apply(Choice("aki", "uzushio", to="chie"))
    with pytest.raises(IllegalAction, match="not oneself"):
        state.apply(Choice("ben", "uzushio", to="ben"))
    state.apply(Choice("ben", "uzushio", to="chie", penalty="ika"))
    assert state.penalties == {"aki": [], "ben": [], "chie": ["ika"]}
    state.check_invariants()
    take(state, "uzushio6", "aki")
    state.apply(Choice("aki", "uzushio", to="ben"))  # the card itself becomes ben's penalty
    assert state.penalties["ben"] == ["uzushio6"] and state.points["aki"] == ["3"]
    assert state.score("ben") == 9 - 6
    state.check_invariants()


def test_salvage_turns_a_penalty_back_into_points():
    state = versus()
    take(state, "ika", "aki")
    take(state, "2", "aki")
    take(state, "3", "ben", missed=["aki"])  # aki turns down 2
    take(state, "4", "ben", missed=["aki"])  # aki turns down ika
    take(state, "salvage", "aki")
    with pytest.raises(IllegalAction, match="its effect is 'salvage'"):
        state.apply(Choice("aki", "uzushio", to="ben"))
    state.apply(Choice("aki", "salvage"))  # no card named: the highest penalty comes back
    assert sorted(state.points["aki"]) == ["ika", "salvage"] and state.penalties["aki"] == ["2"]
    with pytest.raises(IllegalAction, match="no special card"):
        state.apply(Choice("aki", "salvage"))


def test_an_effect_expires_with_the_next_reveal():
    state = versus()
    take(state, "salvage", "aki")
    state.apply(Reveal("2"))
    assert state.pending_effect is None


def test_final_scores_sinking_at_zero_and_shared_wins():
    state = versus(["aki", "ben", "chie", "dai"])
    take(state, "5", "aki")
    take(state, "5", "ben")
    take(state, "2", "chie")
    take(state, "3", "aki", wrong=["chie"])  # chie: 0 points, 2 penalty
    state.apply(End())
    res = state.result()
    assert res["scores"] == {"aki": 8, "ben": 5, "chie": -2, "dai": 0}
    assert res["sunk"] == ["chie", "dai"]  # a score of 0 sinks too
    assert res["winners"] == ["aki"]
    state2 = versus(["aki", "ben"])
    take(state2, "5", "aki")
    take(state2, "5", "ben")
    state2.apply(End())
    assert state2.result()["winners"] == ["aki", "ben"]
    state3 = versus(["aki", "ben"])
    state3.apply(End())
    assert state3.result()["winners"] == [] and state3.result()["sunk"] == ["aki", "ben"]


# ----------------------------------------------------------------------------- co-op state


def coop(players=("aki", "ben", "chie"), mode="coop"):
    return rk.GAME.new_state(list(players), mode)


def play(state, card, ok=True):
    state.apply(Reveal(card))
    expected = state.expected()
    out = state.apply(Declare(ok))
    state.check_invariants()
    return expected, out


def test_coop_uses_27_cards_and_conserves_30():
    state = coop()
    assert state.cards_left == 27
    with pytest.raises(IllegalAction, match="not used"):
        state.apply(Reveal("mirror"))
    state.check_invariants()


def test_coop_running_total_and_declarations():
    state = coop()
    exp, out = play(state, "2")
    assert exp.say == ("2",) and out.details["total"] == 2
    exp, out = play(state, "ika")
    assert exp == rk.Reaction("right", ("ika", "12"))
    exp, _ = play(state, "5")
    assert exp.say == ("17",)
    assert state.result()["score"] == 17


def test_coop_miss_makes_a_pile_resets_the_total_and_passes_the_turn():
    state = coop()
    play(state, "2")  # aki
    play(state, "3")  # ben
    assert state.active_player == "chie"
    _, out = play(state, "4", ok=False)  # chie misses
    assert out.kind == "miss"
    assert state.miss_piles == [["2", "3", "4"]]
    assert state.total == 0 and state.last_declared == 5  # the score keeps the last right total
    assert state.active_player == "aki"
    exp, _ = play(state, "5")
    assert exp.say == ("5",)  # the first declaration after a miss is the card's value


def test_three_miss_piles_sink_the_submarine():
    state = coop(("emi",), "solo")
    for card in ("2", "3", "4"):
        play(state, card, ok=False)
    assert state.is_over
    res = state.result()
    assert res == {"cleared": False, "score": 0, "miss_piles": 3, "sunk": True, "total": 0, "cards_left": 24}
    with pytest.raises(IllegalAction):
        state.apply(Reveal("5"))


def test_uzushio_reverses_the_order_from_the_next_player():
    state = coop(("aki", "ben", "chie", "dai"))
    play(state, "2")  # aki
    assert state.active_player == "ben"
    play(state, "uzushio6")  # ben: reverse
    assert state.active_player == "aki"
    play(state, "3")  # aki
    assert state.active_player == "dai"
    play(state, "uzushio9")  # dai: reverse again
    assert state.active_player == "aki"
    play(state, "4", ok=False)  # a wrong uzushio would not reverse; a miss passes on
    assert state.active_player == "ben"


def test_a_wrong_uzushio_or_salvage_has_no_effect():
    state = coop(("aki", "ben", "chie"))
    play(state, "2", ok=False)
    play(state, "uzushio6", ok=False)  # ben
    assert state.direction == 1 and state.active_player == "chie"
    play(state, "salvage", ok=False)
    assert state.is_over and len(state.miss_piles) == 3


def test_salvage_returns_the_oldest_miss_pile_under_the_deck():
    state = coop(("emi",), "solo")
    play(state, "2")
    play(state, "3", ok=False)  # pile 1: 2, 3
    play(state, "ika", ok=False)  # pile 2: ika
    before = state.cards_left
    _, out = play(state, "salvage")
    assert out.details["salvaged"] == ["2", "3"]
    assert state.miss_piles == [["ika"]]
    assert state.cards_left == before - 1 + 2  # salvage itself was flipped, the pile came back
    assert state.deck["2"] == 4 and state.deck["3"] == 4  # back in the deck
    assert state.total == 1


def test_clearing_the_deck_scores_the_last_declared_total():
    state = coop(("emi",), "solo")
    order = sorted(state.deck.elements())
    for card in order:
        play(state, card)
    res = state.result()
    assert res["cleared"] and res["score"] == 2 * 4 + 3 * 4 + 4 * 3 + 5 * 3 + 6 + 9 + 1 * 2 + 8 * 4 + 10 * 4 + 18
    assert state.is_over and res["miss_piles"] == 0


def test_record_end_gives_the_standing():
    state = coop()
    play(state, "5")
    state.apply(End())
    assert state.is_over
    assert state.result()["cleared"] is False and state.result()["score"] == 5

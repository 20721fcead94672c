"""MOKOCHAKA rules: every row and rulebook example of docs/rules.md, MOKOCHAKA."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import rules
from session.errors import IllegalAction, OptionError, UnknownCard
from rules.mokochaka import (
    DEFAULT_DECK, GAME, DeclareGabu, Play, Resolve, Setup, Shout, Touch, call_for, card_id, deck_from_option,
    is_call_token, parse_card,
)

P3 = ("aki", "ben", "chie")


def state_with(piles, players=P3, sizes=None, **options):
    """A game after setup whose piles are ``piles`` (bottom -> top) and hands hidden."""
    st = GAME.new_state(players, options=options, hidden=True)
    rest = 32 - sum(map(len, piles))
    if sizes is None:
        per, extra = divmod(rest, len(players))
        sizes = [per + (i < extra) for i in range(len(players))]
    assert sum(sizes) == rest
    st.apply(Setup(tuple(tuple(p) for p in piles), tuple((None,) * s for s in sizes), strict=False))
    return st


def played(piles, card, pile, players=P3, **kw):
    st = state_with(piles, players, **kw)
    st.apply(Play(st.to_play, pile, card))
    return st


def resolve(st, calls=(), grabs=(), **kw):
    return st.apply(Resolve(tuple(Shout(*c) for c in calls), tuple(Touch(*g) for g in grabs), **kw)).details


# ------------------------------------------------------------------ cards

def test_registered():
    assert rules.get("mokochaka") is GAME and GAME.min_players == 2


def test_deck_has_the_rulebook_kinds():
    assert len(DEFAULT_DECK) == 32
    kinds = Counter(parse_card(c).kind for c in DEFAULT_DECK)
    assert kinds == {"moko": 10, "paka": 10, "pome": 6, "gabu": 6}
    assert {parse_card(c).count for c in DEFAULT_DECK} == {1, 2, 3, 4}


@pytest.mark.parametrize("text,kind,count", [("moko3", "moko", 3), ("gabu1", "gabu", 1), ("PAKA4", "paka", 4)])
def test_card_ids(text, kind, count):
    c = parse_card(text)
    assert (c.kind, c.count) == (kind, count) and card_id(text) == f"{kind}{count}"


@pytest.mark.parametrize("bad", ["moko0", "moko5", "ika", "", "pome", "gabu12"])
def test_unknown_card_names_the_card(bad):
    with pytest.raises(UnknownCard, match=repr(bad)):
        parse_card(bad)


def test_deck_is_data_a_table_can_override():
    counts = {"moko1": 1, "moko2": 2, "moko3": 3, "moko4": 4, "paka1": 10, "pome2": 6, "gabu3": 6}
    deck = deck_from_option(counts)
    assert len(deck) == 32 and Counter(deck)["moko4"] == 4
    assert deck_from_option(list(deck)) == deck
    st = GAME.new_state(P3, options={"deck": counts})
    assert st.deck == deck
    with pytest.raises(OptionError, match="9 moko cards"):
        deck_from_option({**counts, "moko1": 0})
    with pytest.raises(UnknownCard, match="moko9"):
        deck_from_option(["moko9"] + list(deck)[1:])
    with pytest.raises(OptionError):
        GAME.new_state(P3, options={"deck": "standard"})


# ------------------------------------------------------------------ the call: rulebook examples

@pytest.mark.parametrize("tops,accepted", [
    (["moko2", "paka4", "paka1"], ["pakamoko"]),           # Moko 2 + Paka 5
    (["pome1", "paka4"], ["pomepaka"]),                    # Pome 1 + Paka 4
    (["moko2", "paka3", "gabu2"], ["paka"]),               # Moko 2 + Paka 3 + Gabu 2
    (["moko4", "gabu4"], ["gabu"]),                        # Moko 4 + Gabu 4
    (["moko3", "moko3", "moko2"], ["mokomoko"]),           # three Moko cards (8 Moko)
    (["moko4", "paka3", "gabu1"], ["mokochaka"]),          # Moko 4 + Paka 3 + Gabu 1
    (["pome2", "paka3", "moko1"], ["chakamoko"]),          # Pome 2 + Paka 3 + Moko 1
    (["pome2", "paka2", "moko2"], ["chakamokochaka"]),     # Pome 2 + Paka 2 + Moko 2
])
def test_rulebook_examples(tops, accepted):
    assert list(call_for(tops).accepted) == accepted


def test_gabu_eats_moko_and_non_positive_is_absent():
    c = call_for(["moko2", "gabu3", "paka1"])
    assert c.counts["moko"] == 2 and "moko" not in c.effective and c.accepted == ("paka",)
    assert call_for(["moko4", "gabu1", "pome1"]).accepted == ("pomemoko",)  # 3 Moko left


def test_special_calls_take_priority_and_are_special():
    c = call_for(["moko2", "paka2", "gabu1"])  # moko 1 < paka 2: normal
    assert c.accepted == ("pakamoko",) and not c.special
    c = call_for(["moko3", "paka2", "gabu1"])  # moko 2 = paka 2
    assert c.accepted == ("mokochaka",) and c.special


def test_mokochaka_with_pome_and_third_kind_absent_or_different():
    assert call_for(["pome3", "paka3"]).accepted == ("mokochaka",)
    assert call_for(["pome3", "moko3", "gabu4"]).accepted == ("pome",)


def test_either_is_correct_when_mokochaka_and_chakamoko_hold():
    c = call_for(["moko1", "paka2", "pome2"])
    assert c.accepted == ("chakamoko", "mokochaka") and c.special


def test_chakamokochaka_only_when_all_equal():
    c = call_for(["moko3", "paka3", "pome3"])
    assert c.accepted == ("chakamokochaka",)
    assert "chakamoko" not in c.accepted and "mokochaka" not in c.accepted


def test_doubled_names_need_three_tops_of_one_kind():
    assert call_for(["paka1", "paka2", "paka1"]).accepted == ("pakapaka",)
    assert call_for(["pome1", "pome1", "pome4"]).accepted == ("pomepome",)
    assert call_for(["gabu1", "gabu2", "gabu1"]).accepted == ("gabugabu",)
    assert call_for(["paka1", "paka2"]).accepted == ("paka",)  # fewer piles: named once
    assert call_for(["moko4"]).accepted == ("moko",)


def test_pome_first_then_most_to_fewest_gabu_only_alone():
    assert call_for(["pome1", "moko4", "paka2"]).special  # all three present -> chakamoko
    assert call_for(["pome1", "moko4"]).accepted == ("pomemoko",)
    assert call_for(["paka1", "moko4", "moko2"]).accepted == ("mokopaka",)
    assert call_for(["paka4", "moko2", "gabu1"]).accepted == ("pakamoko",)  # gabu not named
    assert call_for(["gabu1", "gabu2"]).accepted == ("gabu",)


def test_call_tokens_and_empty_tops():
    assert is_call_token("pakamoko") and is_call_token("chakamoko") and not is_call_token("ika")
    with pytest.raises(IllegalAction):
        call_for([])
    with pytest.raises(UnknownCard):
        call_for(["moko5"])


# ------------------------------------------------------------------ setup and turns

def test_random_setup_is_three_piles_an_equal_deal_and_leftovers_on_piles():
    for n, leftovers in [(2, 1), (3, 2), (4, 1), (5, 4)]:
        players = ["p%d" % i for i in range(n)]
        st = GAME.new_state(players)
        action = st.random_action(random.Random(n))
        assert isinstance(action, Setup)
        st.apply(action)
        st.check_invariants()
        assert sum(map(len, st.piles)) == 3 + leftovers and all(st.piles)
        assert len({len(h) for h in st.hands.values()}) == 1
        assert st.to_play == players[0]


def test_setup_must_be_legal():
    st = GAME.new_state(P3)
    deck = list(DEFAULT_DECK)
    with pytest.raises(IllegalAction, match="equal"):
        st.apply(Setup(((deck[0],), (deck[1],), (deck[2],)), (tuple(deck[3:13]), tuple(deck[13:22]), tuple(deck[22:]))))
    with pytest.raises(IllegalAction, match="deck has 32"):
        st.apply(Setup(((deck[0],), (deck[1],), (deck[2],)), ((), (), ())))
    with pytest.raises(IllegalAction, match="more moko1"):
        st.apply(Setup((("moko1",), ("moko1",), ("moko1", "moko1", "moko1")),
                       (tuple(deck[5:14]), tuple(deck[14:23]), tuple(deck[23:]))))


def test_play_flips_the_top_card_in_turn_and_starts_new_piles_first():
    st = GAME.new_state(P3)
    st.apply(st.random_action(random.Random(1)))
    top = st.hands["aki"][0]
    with pytest.raises(IllegalAction, match="aki's turn"):
        st.apply(Play("ben", 0, st.hands["ben"][0]))
    other = next(c for c in DEFAULT_DECK if c != top)
    with pytest.raises(IllegalAction, match="top card"):
        st.apply(Play("aki", 0, other))
    out = st.apply(Play("aki", 2, top))
    assert st.piles[2][-1] == top and out.details["card"] == top
    with pytest.raises(IllegalAction, match="no card may be played"):
        st.apply(Play("ben", 0, "moko1"))
    # fewer than 3 piles: a new pile must be started first
    st2 = state_with([["moko1"], [], ["paka1"]])
    with pytest.raises(IllegalAction, match="pile 1 is empty"):
        st2.apply(Play("aki", 0, "moko2"))
    st2.apply(Play("aki", 1, "moko2"))
    assert st2.tops() == ("moko1", "moko2", "paka1")


def test_correct_call_passes_the_turn_left():
    st = played([["moko1"], ["paka2"], ["gabu1"]], "moko4", 2)  # moko 5, paka 2
    d = resolve(st, [("aki", "mokopaka", 0.8)])
    assert d["ok"] and d["penalties"] == [] and d["next"] == "ben" and st.to_play == "ben"


def test_players_without_cards_are_skipped():
    st = played([["moko1"], ["paka2"], ["gabu1"]], "moko4", 2, sizes=[10, 0, 19])
    d = resolve(st, [("aki", "mokopaka", 0.8)])
    assert d["next"] == "chie"


# ------------------------------------------------------------------ penalties

NORMAL = ([["moko1"], ["paka2"], ["gabu1"]], "moko4", 2)  # -> mokopaka


@pytest.mark.parametrize("calls,grabs,reason", [
    ([("aki", "pakamoko", 0.8)], [], "wrong_call"),
    ([], [], "no_call"),
    ([("aki", "mokopaka", 3.0)], [], "late"),
    ([("aki", "mokopaka", 0.8)], [("ben", 1.0)], "grab_no_special"),
    ([("aki", "mokopaka", 0.8), ("ben", "mokochaka", 0.9)], [], "wrong_call"),
])
def test_each_penalty(calls, grabs, reason):
    st = played(*NORMAL)
    d = resolve(st, calls, grabs)
    assert [p["reason"] for p in d["penalties"]] == [reason]


def test_late_means_three_seconds_or_more():
    st = played(*NORMAL)
    assert resolve(st, [("aki", "mokopaka", 2.999)])["penalties"] == []
    st = played(*NORMAL, window=4.0)
    assert resolve(st, [("aki", "mokopaka", 3.5)])["penalties"] == []


def test_first_call_counts_and_others_normal_calls_are_ignored():
    st = played(*NORMAL)
    d = resolve(st, [("aki", "pakamoko", 0.5), ("aki", "mokopaka", 0.9), ("ben", "pakamoko", 0.6)])
    assert [p["player"] for p in d["penalties"]] == ["aki"] and "ignored" in d["why"]["ben"]


def test_penalty_gives_one_card_to_the_fewest_ties_first_after_the_penalised():
    st = played(*NORMAL, sizes=[10, 9, 10])  # after the play: aki 9, ben 9, chie 10
    d = resolve(st, [("aki", "pakamoko", 0.5)])
    assert d["penalties"][0]["to"] == "ben" and d["penalties"][0]["cards"] == 1
    assert d["hands"] == {"aki": 8, "ben": 10, "chie": 10}
    assert d["next"] == "ben"  # left of the penalised
    st = played(*NORMAL, sizes=[10, 10, 9])  # ben 10, chie 9: chie has fewest
    assert resolve(st, [("aki", "pakamoko", 0.5)])["penalties"][0]["to"] == "chie"
    st = played(*NORMAL, sizes=[10, 9, 10])
    resolve(st, [("aki", "mokopaka", 0.5)], [("chie", 1.0)])  # chie: aki 9 = ben 9 -> aki is first after chie
    assert st.counts()["aki"] == 10


def test_penalty_receiver_choice_and_option():
    st = played(*NORMAL)
    d = resolve(st, [("aki", "pakamoko", 0.5)], penalty_to=(("aki", "chie"),))
    assert d["penalties"][0]["to"] == "chie" and d["penalties"][0]["chosen"]
    with pytest.raises(IllegalAction):
        resolve(played(*NORMAL), [("aki", "pakamoko", 0.5)], penalty_to=(("aki", "aki"),))
    st = played(*NORMAL, sizes=[10, 12, 7], penalty_receiver="left")
    assert resolve(st, [("aki", "pakamoko", 0.5)])["penalties"][0]["to"] == "ben"


def test_two_players_give_two_cards():
    st = played(*NORMAL, players=("aki", "ben"))
    d = resolve(st, [("aki", "pakamoko", 0.5)])
    assert d["penalties"][0]["cards"] == 2
    assert d["hands"] == {"aki": 12, "ben": 16}


def test_one_penalty_per_player_per_play():
    st = played(*NORMAL)
    d = resolve(st, [("aki", "chakamoko", 0.5)], [("aki", 0.6)])
    assert len(d["penalties"]) == 1 and d["penalties"][0]["reasons"] == ["wrong_call", "grab_no_special"]


# ------------------------------------------------------------------ special calls and the token

CHAKAMOKO = ([["paka1", "paka4"], ["moko1"], ["gabu3", "gabu1"]], "pome2", 2)  # paka 4, moko 1, pome 2


def test_first_correct_grabber_wins_and_takes_the_two_biggest_piles():
    st = played(*CHAKAMOKO)
    d = resolve(st, [("ben", "chakamoko", 0.5), ("chie", "chakamoko", 0.4)], [("ben", 0.6), ("chie", 0.7)])
    assert d["grab_winner"] == "ben" and d["penalties"] == []
    assert d["bonus"]["piles"] == [2, 0] and d["bonus"]["cards"] == 5
    assert d["next"] == "ben" and st.piles[1] == ["moko1"] and not st.piles[0] and not st.piles[2]
    assert d["ok"]  # aki did not have to call: someone else took the special call


def test_wrong_or_silent_grabbers_are_penalised_and_do_not_stop_a_later_correct_grabber():
    st = played(*CHAKAMOKO)
    d = resolve(st, [("chie", "mokochaka", 0.3), ("aki", "chakamoko", 0.6)], [("ben", 0.2), ("chie", 0.4), ("aki", 0.7)])
    assert d["grab_winner"] == "aki"
    assert [(p["player"], p["reason"]) for p in d["penalties"]] == [("ben", "grab_without_call"), ("chie", "wrong_call")]


def test_grab_before_calling_and_the_slack():
    st = played(*CHAKAMOKO)
    d = resolve(st, [("ben", "chakamoko", 1.25)], [("ben", 1.0)])  # exactly the slack: fine
    assert d["grab_winner"] == "ben"
    st = played(*CHAKAMOKO)
    d = resolve(st, [("ben", "chakamoko", 1.3)], [("ben", 1.0)])
    assert d["grab_winner"] is None and d["penalties"][0]["reason"] == "grab_before_call"
    st = played(*CHAKAMOKO, grab_slack=0.5)
    assert resolve(st, [("ben", "chakamoko", 1.3)], [("ben", 1.0)])["grab_winner"] == "ben"


def test_a_touch_after_the_token_is_won_is_ignored():
    st = played(*CHAKAMOKO)
    d = resolve(st, [("ben", "chakamoko", 0.5)], [("ben", 0.6), ("chie", 0.7)])
    assert d["grab_winner"] == "ben" and d["penalties"] == []


def test_normal_call_when_a_special_holds_is_wrong_and_silence_is_stuck():
    st = played(*CHAKAMOKO)
    d = resolve(st, [("aki", "pomepakamoko", 0.5)])
    assert d["penalties"][0]["reason"] == "wrong_call" and not d["ok"]
    st = played(*CHAKAMOKO)
    d = resolve(st)
    assert d["penalties"][0]["reason"] == "stuck" and d["penalties"][0]["dt"] == 3.0
    st = played(*CHAKAMOKO)  # someone else called: the active player is not stuck
    assert resolve(st, [("chie", "chakamoko", 0.5)])["penalties"] == []


def test_either_call_wins_when_both_hold():
    for call in ("chakamoko", "mokochaka"):
        st = played([["moko1"], ["paka2"], ["gabu4"]], "pome2", 2)  # moko 1, paka 2, pome 2
        assert resolve(st, [("chie", call, 0.5)], [("chie", 0.5)])["grab_winner"] == "chie"


def test_chakamokochaka_takes_a_card_from_every_other_player_and_chakamoko_is_wrong():
    piles = [["moko2"], ["paka2"], ["gabu4"]]
    st = played(piles, "pome2", 2)
    before = st.counts()
    d = resolve(st, [("ben", "chakamoko", 0.3), ("chie", "chakamokochaka", 0.5)], [("ben", 0.35), ("chie", 0.6)])
    assert d["grab_winner"] == "chie" and d["penalties"][0]["player"] == "ben"
    assert d["bonus"]["from_players"] == {"aki": 1, "ben": 1}
    # after aki's play: aki 9, ben 10, chie 9; ben's penalty card goes to the fewest, aki and chie tie
    # at 9 and chie is first after ben; then chie takes 2 piles (2 + 1 cards) and 1 card from each
    assert before == {"aki": 9, "ben": 10, "chie": 9} and d["penalties"][0]["to"] == "chie"
    assert d["hands"] == {"aki": 8, "ben": 8, "chie": 9 + 1 + 3 + 2}


def test_two_players_win_one_pile_and_pile_choice():
    st = played(*CHAKAMOKO, players=("aki", "ben"))
    d = resolve(st, [("ben", "chakamoko", 0.5)], [("ben", 0.5)])
    assert d["bonus"]["piles"] == [2] and d["bonus"]["cards"] == 3
    st = played(*CHAKAMOKO)
    d = resolve(st, [("ben", "chakamoko", 0.5)], [("ben", 0.5)], piles=(0, 1))
    assert d["bonus"]["piles"] == [0, 1] and d["bonus"]["chosen"]
    st = played(*CHAKAMOKO)
    with pytest.raises(IllegalAction, match="takes 2"):
        resolve(st, [("ben", "chakamoko", 0.5)], [("ben", 0.5)], piles=(0,))
    assert st.phase == "resolve" and st.counts()["ben"] == 9  # nothing moved by the refused action
    st = played(*CHAKAMOKO, bonus_piles="fewest")
    assert resolve(st, [("ben", "chakamoko", 0.5)], [("ben", 0.5)])["bonus"]["piles"] == [1, 0]


def test_order_within_one_play_penalties_then_bonus():
    # chie (fewest cards) would receive ben's penalty card; the bonus comes after
    st = played(*CHAKAMOKO, sizes=[9, 9, 9])
    d = resolve(st, [("chie", "chakamoko", 0.5)], [("ben", 0.2), ("chie", 0.6)])
    assert d["penalties"][0]["to"] == "aki"  # aki 8 after playing: fewest at penalty time
    assert d["bonus"]["player"] == "chie" and d["next"] == "chie"


def test_resume_left_of_the_last_penalised():
    st = played(*NORMAL, players=("aki", "ben", "chie", "dai"))
    d = resolve(st, [("aki", "mokopaka", 0.5)], [("dai", 0.6), ("ben", 0.7)])
    assert [p["player"] for p in d["penalties"]] == ["dai", "ben"] and d["next"] == "chie"


# ------------------------------------------------------------------ the end and the winners

def test_game_ends_when_the_last_card_is_played_and_still_none_after():
    st = played(*NORMAL, sizes=[1, 14, 14])
    d = resolve(st, [("aki", "mokopaka", 0.5)])
    assert st.is_over and d["next"] is None and st.result()["ended_by"] == "aki"
    assert st.random_action(random.Random(0)) is None
    with pytest.raises(IllegalAction, match="over"):
        st.apply(Play("ben", 0, "moko1"))


def test_a_penalty_on_the_last_card_keeps_the_game_going():
    st = played(*NORMAL, sizes=[1, 14, 14])
    # aki's wrong call: she has no card to give, the game still ends
    resolve(st, [("aki", "pakamoko", 0.5)])
    assert st.is_over
    # but if ben's penalty card goes to aki, she holds a card again: the game goes on
    st = played(*NORMAL, sizes=[1, 14, 14])
    resolve(st, [("aki", "mokopaka", 0.5)], [("ben", 0.7)])
    assert not st.is_over and st.counts()["aki"] == 1


def test_winning_piles_with_the_last_card_keeps_the_game_going():
    st = played(*CHAKAMOKO, sizes=[1, 13, 13])
    d = resolve(st, [("aki", "chakamoko", 0.5)], [("aki", 0.5)])
    assert not st.is_over and d["next"] == "aki" and st.counts()["aki"] == 5


def test_winners_by_hand_size_without_gabu():
    st = state_with([["moko1"], ["paka1"], ["pome1"]], sizes=[10, 9, 10])
    res = st.result()
    assert res["winners"] == ["aki", "chie"] and "hand size" in res["note"]
    st.apply(DeclareGabu("aki", 3))
    st.apply(DeclareGabu("ben", 0))
    st.apply(DeclareGabu("chie", 1))
    res = st.result()
    assert res["scores"] == {"aki": 7, "ben": 9, "chie": 9} and res["winners"] == ["ben", "chie"] and "note" not in res
    with pytest.raises(IllegalAction):
        st.apply(DeclareGabu("ben", 10))


def test_known_hands_count_their_own_gabu():
    st = GAME.new_state(P3)
    st.apply(st.random_action(random.Random(3)))
    res = st.result()
    assert "note" not in res
    assert res["gabu"]["aki"] == sum(c.startswith("gabu") for c in st.hands["aki"])


def test_cards_are_conserved():
    st = played(*CHAKAMOKO)
    resolve(st, [("chie", "chakamoko", 0.5)], [("ben", 0.2), ("chie", 0.6)])
    st.check_invariants()
    st.hands["aki"].pop()
    with pytest.raises(AssertionError, match="31 cards"):
        st.check_invariants()


def test_too_few_players_and_unknown_mode():
    with pytest.raises(IllegalAction):
        GAME.new_state(["aki"])
    with pytest.raises(IllegalAction):
        GAME.new_state(P3, mode="coop")


def test_another_players_normal_call_does_not_spoil_their_special_call():
    st = played(*CHAKAMOKO)
    d = resolve(st, [("ben", "pakamoko", 0.3), ("ben", "chakamoko", 0.6)], [("ben", 0.7)])
    assert d["grab_winner"] == "ben" and d["penalties"] == []
    st = played(*CHAKAMOKO)  # the active player's first call counts, even when a special follows
    d = resolve(st, [("aki", "pakamoko", 0.3), ("aki", "chakamoko", 0.6)], [("aki", 0.7)])
    assert d["grab_winner"] is None and d["penalties"][0]["reasons"] == ["wrong_call", "grab_without_call"]

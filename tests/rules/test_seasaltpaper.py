"""Sea Salt & Paper (docs/rules.md, Sea Salt & Paper, seed 002): every scoring rule, rounds, game end; properties."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings, strategies as st

import rules
from session.errors import RulesError, UnknownCard
from rules.seasaltpaper import (BASE_DECK, COLLECTORS, SALT_DECK, last_played_order, parse_card,
                                resolve_round, score, target, winners)

GAME = rules.get("seasaltpaper")


def test_notation():
    assert str(parse_card("Crab:Blue")) == "crab:blue"
    assert str(parse_card("mermaid")) == "mermaid" and parse_card("mermaid:white").colour is None
    assert parse_card("shell:darkblue").colour == "blue"
    with pytest.raises(UnknownCard, match="whale"):
        parse_card("whale:blue")
    with pytest.raises(UnknownCard, match="colour 'red'"):
        parse_card("crab:red")
    with pytest.raises(UnknownCard, match="mermaid is white"):
        parse_card("mermaid:blue")


def test_duos_one_point_per_pair_even_in_hand():
    s = score(["crab:blue"] * 3 + ["boat:black"] * 2 + ["fish:yellow"] * 4 + ["swimmer:pink", "shark:pink", "shark:pink"])
    assert s.breakdown == {"duo:crab": 1, "duo:boat": 1, "duo:fish": 2, "duo:swimmer+shark": 1}
    assert s.card_points == 5


def test_mermaids_score_one_colour_each_most_common_first():
    cards = ["crab:blue"] * 3 + ["shell:yellow"] * 2 + ["boat:pink"]
    # 1 mermaid: blue (3); 2: blue + yellow (3 + 2); 3: + pink; 4th mermaid wins at once
    assert score(cards + ["mermaid"]).breakdown["mermaids"] == 3
    assert score(cards + ["mermaid"] * 2).breakdown["mermaids"] == 5
    assert score(cards + ["mermaid"] * 3).breakdown["mermaids"] == 6
    assert score(["mermaid"] * 2).breakdown["mermaids"] == 0  # mermaids are white: no colour
    assert score(cards + ["mermaid"] * 4).instant_win
    assert not score(cards + ["mermaid"] * 3).instant_win


@pytest.mark.parametrize("kind,table", [("shell", [0, 2, 4, 6, 8, 10]), ("octopus", [0, 3, 6, 9, 12]),
                                        ("penguin", [1, 3, 5]), ("sailor", [0, 5])])
def test_collectors(kind, table):
    for n, pts in enumerate(table, start=1):
        assert score([f"{kind}:blue"] * n).breakdown[f"collector:{kind}"] == pts


def test_multipliers():
    assert score(["lighthouse:purple", "boat:blue", "boat:black", "boat:pink"]).breakdown["lighthouse"] == 3
    assert score(["shoal:grey", "fish:blue"]).breakdown["shoal"] == 1
    assert score(["colony:green", "penguin:pink", "penguin:pink"]).breakdown["colony"] == 4
    assert score(["captain:orange", "sailor:orange", "sailor:yellow"]).breakdown["captain"] == 6
    assert score(["lighthouse:purple"]).breakdown["lighthouse"] == 0


def test_colour_bonus_is_the_most_common_colour():
    assert score(["crab:blue", "crab:blue", "boat:yellow", "mermaid", "mermaid"]).color_bonus == 2
    assert score(["mermaid"]).color_bonus == 0


def test_extra_salt():
    # starfish joins a duo: +2 (one starfish per duo)
    assert score(["crab:blue"] * 2 + ["starfish:yellow"]).breakdown == {"duo:crab": 1, "starfish": 2}
    assert score(["crab:blue"] * 2 + ["starfish:yellow"] * 2).breakdown["starfish"] == 2
    assert score(["starfish:yellow"]).breakdown["starfish"] == 0
    assert score(["swimmer:blue", "jellyfish:pink"]).breakdown == {"duo:swimmer+jellyfish": 1}
    assert score(["crab:blue", "lobster:black"]).breakdown == {"duo:crab+lobster": 1}
    assert score(["crab:blue"] * 3 + ["lobster:black"]).card_points == 2
    assert score(["crabcolony:orange", "crab:blue", "crab:blue"]).breakdown["crabcolony"] == 2
    # seahorse: one more collector card where it adds most; needs one of that collection
    assert score(["seahorse:green", "octopus:blue", "octopus:blue"]).breakdown == {"collector:octopus+seahorse": 6}  # 3 octopuses
    assert score(["seahorse:green"]).card_points == 0


def test_stop_everyone_scores_card_points():
    res = resolve_round({"aki": ["crab:blue"] * 4 + ["shell:blue"] * 3 + ["boat:yellow"] * 2,  # 2 + 4 + 1 = 7
                         "ben": ["fish:pink"] * 2 + ["mermaid"]}, "aki", "stop")  # 1 + 2 (pink)
    assert res.legal
    assert {p: (s.card_points, s.score) for p, s in res.scores.items()} == {"aki": (7, 7), "ben": (3, 3)}


def test_stop_needs_seven_card_points():
    res = resolve_round({"aki": ["crab:blue"] * 2, "ben": []}, "aki", "stop")
    assert not res.legal and "7 are needed" in res.why


AKI = ["crab:blue"] * 4 + ["shell:blue"] * 3 + ["boat:yellow"] * 2  # 7 card points, blue 7
BEN = ["octopus:pink"] * 3 + ["penguin:pink"]  # 6 + 1 = 7 card points, pink 4


def test_last_chance_won_on_a_tie_of_card_points():
    res = resolve_round({"aki": AKI, "ben": BEN}, "aki", "lastchance")
    assert res.caller_won  # 7 >= 7
    assert res.scores["aki"].score == 7 + 7 and res.scores["ben"].score == 4


def test_last_chance_lost():
    res = resolve_round({"aki": AKI, "ben": BEN + ["octopus:pink"]}, "aki", "lastchance")  # ben 10
    assert res.caller_won is False
    assert res.scores["aki"].score == 7 and res.scores["ben"].score == 10  # colour bonus / card points


def test_round_errors():
    with pytest.raises(RulesError, match="caller"):
        resolve_round({"aki": AKI}, "zed", "stop")
    with pytest.raises(RulesError, match="unknown call"):
        resolve_round({"aki": AKI}, "aki", "pass")


def test_targets_and_tie_break():
    assert [target(n) for n in (2, 3, 4)] == [40, 35, 30]
    assert [target(n, double=True) for n in (2, 3, 4)] == [80, 70, 60]
    players = ["aki", "ben", "chie", "dai"]
    assert last_played_order(players, "ben", "stop") == ["ben", "aki", "dai", "chie"]
    assert last_played_order(players, "ben", "lastchance") == ["aki", "dai", "chie", "ben"]
    assert winners({"aki": 41, "ben": 30, "chie": 41, "dai": 2}, last_played_order(players, "ben", "lastchance")) == ["aki"]
    assert winners({"aki": 41, "ben": 30, "chie": 41, "dai": 2}, last_played_order(players, "dai", "stop")) == ["chie"]


def test_decks():
    assert len(BASE_DECK) == 58 and len(SALT_DECK) == 8
    assert BASE_DECK.count("mermaid") == 4


def _play(seed, **options):
    s = GAME.new_state(["aki", "ben", "chie"], options=options)
    rng = random.Random(seed)
    while (a := s.random_action(rng)) is not None:
        s.apply(a)
        s.check_invariants()
    return s


def test_random_games_reach_the_target_or_a_mermaid_win():
    for seed in range(4):
        s = _play(seed, extra_salt=bool(seed % 2))
        res = s.result()
        assert len(res["winners"]) == 1
        w = res["winners"][0]
        reached = max(res["scores"].values()) >= 35
        assert reached or sum(c == "mermaid" for c in s.cards_of(w)) == 4
        if reached:
            assert res["scores"][w] == max(res["scores"].values())
        for r in s.rounds:
            if r["call"] == "emptydeck":
                assert set(r["scores"].values()) == {0}


cards = st.sampled_from(sorted(set(BASE_DECK + SALT_DECK)))


@settings(max_examples=200, deadline=None)
@given(st.lists(cards, max_size=14), cards)
def test_adding_a_card_never_lowers_points(hand, extra):
    before, after = score(hand), score(hand + [extra])
    assert after.card_points >= before.card_points
    assert after.color_bonus >= before.color_bonus


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(COLLECTORS)), st.integers(1, 8), st.lists(cards, max_size=8))
def test_collector_score_follows_the_table(kind, n, others):
    others = [c for c in others if parse_card(c).kind not in (kind, "seahorse")]
    s = score([f"{kind}:blue"] * n + others)
    table = COLLECTORS[kind]
    assert s.breakdown[f"collector:{kind}"] == table[min(n, len(table)) - 1]
    assert score([f"{kind}:blue"] * (n + 1) + others).breakdown[f"collector:{kind}"] >= table[min(n, len(table)) - 1]


# ------------------------------------------------------------------ CLI (README examples)
def test_cli_score(run_cli):
    r = run_cli("rules", "seasaltpaper", "score", "crab:blue", "crab:yellow", "mermaid", "shell:blue",
                "shell:blue", "lighthouse:purple", "boat:blue", "--json")
    assert r.exit_code == 0
    # duo 1, mermaid = blue (4 cards), shells 2 → 2, lighthouse 1 per boat → 1; blue bonus 4
    assert json.loads(r.output) == {"card_points": 8, "color_bonus": 4, "breakdown": {
        "duo:crab": 1, "mermaids": 4, "collector:shell": 2, "lighthouse": 1}}
    r = run_cli("rules", "seasaltpaper", "score", "crab:blue", "crab:blue")
    assert r.exit_code == 0 and "card points" in r.output


def test_cli_round(run_cli):
    r = run_cli("rules", "seasaltpaper", "round", "--caller", "aki", "--call", "lastchance",
                "--hand", "aki=" + ",".join(AKI), "--hand", "ben=" + ",".join(BEN), "--json")
    assert r.exit_code == 0
    out = json.loads(r.output)
    assert out["caller_won"] is True and out["legal"] is True
    assert out["scores"] == {"aki": {"card_points": 7, "color_bonus": 7, "score": 14},
                             "ben": {"card_points": 7, "color_bonus": 4, "score": 4}}


def test_cli_bad_input(run_cli):
    r = run_cli("rules", "seasaltpaper", "score", "crab:blue", "whale")
    assert r.exit_code == 2 and "unknown card 'whale'" in r.output
    r = run_cli("rules", "seasaltpaper", "round", "--caller", "aki", "--call", "stop", "--hand", "aki")
    assert r.exit_code == 2 and "malformed --hand 'aki'" in r.output


def test_a_round_outcome_gives_the_cards_it_was_scored_from():
    s = GAME.new_state(["aki", "ben"])
    rng = random.Random(3)
    ends = 0
    while (a := s.random_action(rng)) is not None:
        out = s.apply(a)
        if out.kind in ("round", "game"):
            detail = out.details["round"] if out.kind == "game" else out.details
            cards = out.details["cards"]
            assert set(cards) == {"aki", "ben"}
            if detail["call"] != "emptydeck":
                again = resolve_round(cards, detail["caller"], detail["call"]).to_dict()
                assert again["scores"] == detail["scores"]
                ends += 1
    assert ends >= 1

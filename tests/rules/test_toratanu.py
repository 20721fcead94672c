"""TORATANU (docs/rules.md, TORATANU, seed 003): catalogue, tally, best arrangement, games; properties."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

import rules
from session.errors import RulesError, UnknownCard
from rules.toratanu import (SETUP, best_arrangement, game_deck, load_catalogue, parse_card,
                            score_arrangement)

GAME = rules.get("toratanu")
CAT = load_catalogue()


def test_catalogue_holds_what_the_rulebook_states():
    herd = Counter(a.herd for a in CAT.animals.values())
    assert herd == {20: 11, 30: 10, 40: 4, 50: 4, 60: 1, 100: 1, None: 5}
    assert CAT.animals["tiger"].herd == 100 and CAT.animals["fennec"].herd == 60
    assert sorted(a.name for a in CAT.animals.values() if a.white) == ["bear", "dolphin", "horse", "owl", "rabbit", "wolf"]
    assert {a.name for a in CAT.animals.values() if a.herd is None} == {"fox", "orangutan", "ragdoll", "komondor", "tanuki"}
    assert dict(CAT.animals["owl"].colours) == {"red": 3, "blue": 5, "yellow": 3, "green": 3}
    assert CAT.animals["owl"].white == "blue"
    assert CAT.colours == ("red", "blue", "yellow", "green", "black")


def test_catalogue_marks_what_it_lacks():
    missing = CAT.missing()
    assert "animals.kangaroo.colours" in missing and "animals.kangaroo.copies" in missing
    assert "animals.panda.colours.black" in missing and "animals.rabbit.white" in missing
    assert not any(m.startswith("animals.owl.") for m in missing)


def test_malformed_catalogue_names_the_field(tmp_path):
    bad = tmp_path / "c.toml"
    bad.write_text('[pack]\ncolours = ["red"]\n[animals.owl]\nherd = "lots"\n')
    with pytest.raises(RulesError, match="animals.owl.herd"):
        load_catalogue(bad)
    with pytest.raises(RulesError, match="not found"):
        load_catalogue(tmp_path / "none.toml")


def test_missing_colour_points_is_an_error_naming_card_and_field():
    with pytest.raises(RulesError, match=r"kangaroo:red.*animals\.kangaroo\.colours\.red"):
        best_arrangement(["kangaroo:red", "owl:red", "fox:red:1"])
    # the table can read the points off the card
    assert best_arrangement(["kangaroo:red:2", "owl:red", "fox:red:1"]).total == 6 + 50  # + full colour


def test_card_notation():
    assert parse_card("owl:blue") == parse_card("owl:blue:5")
    assert parse_card("owl:blue").white and not parse_card("owl:red").white
    with pytest.raises(RulesError, match="5 colour points"):
        parse_card("owl:blue:4")
    with pytest.raises(UnknownCard, match="belongs to no colour"):
        parse_card("tanuki:red")
    with pytest.raises(UnknownCard, match="unknown animal 'unicorn'"):
        parse_card("unicorn")
    with pytest.raises(UnknownCard, match="has no White card"):
        parse_card("fox:white")


def test_herd_set_and_colour_set():
    a = best_arrangement(["tiger"] * 3)
    assert a.total == 100 and a.sets[0].kind == "herd"
    a = best_arrangement(["owl:red", "kangaroo:red:4", "fox:red:2", "tanuki"])
    assert a.total == 9 and a.sets[0].kind == "colour"  # tanuki: no full colour


def test_three_of_one_animal_and_colour_is_a_herd_set():
    a = best_arrangement(["panda:black:9"] * 3)
    assert [s.kind for s in a.sets] == ["herd"] and a.total == 20 + 50  # herd 20, full colour black


def test_special_card_bonuses():
    assert best_arrangement(["wolf"] * 3, special="wolf:red:2").total == 70
    # captured herd: half points, still +50 for the special animal
    assert best_arrangement([], special="wolf", captured=[["wolf"] * 3]).total == 10 + 50
    # special colour: +5 per colour set
    a = best_arrangement(["owl:red", "kangaroo:red:4", "fox:red:2", "owl:yellow", "tiger:yellow:1", "goat:yellow:2"],
                         special="lion:red:1")
    assert [s.total for s in a.sets] == [14, 6]


def test_doubutsuen():
    a = best_arrangement(["goat"] * 3, doubutsuen=[["tiger"] * 4])
    assert a.total == 100 + 50 + 20
    # four tigers in the hand but not declared in the round: only a herd set
    assert best_arrangement(["goat"] * 3 + ["tiger"] * 4).total == 100 + 20
    with pytest.raises(RulesError, match="4 cards"):
        best_arrangement([], doubutsuen=[["tiger"] * 3])


def test_full_colour():
    # the rulebook: panda x3, walrus x3, chameleon x3 (all black) = three herd sets + 50
    hand = ["panda:black:1"] * 3 + ["walrus:black:2"] * 3 + ["chameleon:black:2"] * 3
    assert best_arrangement(hand).total == 20 + 30 + 30 + 50
    assert best_arrangement(["owl:red", "kangaroo:red:1", "fox:red:1"]).bonuses == {"full colour": 50}
    assert "full colour" not in best_arrangement(["owl:red", "kangaroo:red:1", "tanuki"]).bonuses
    # no full colour with a capture
    assert "full colour" not in best_arrangement(["owl:red"], captured=[["kangaroo:red:1"] * 3]).bonuses
    # ragdoll counts as black
    assert "full colour" in best_arrangement(["ragdoll", "panda:black:1", "walrus:black:1"]).bonuses


def test_komondor_and_orangutan():
    a = best_arrangement(["komondor:red:1", "owl:blue", "rabbit:green:1:white", "fox:red:1"],
                         captured=[["dolphin:white", "dolphin", "dolphin"]])
    assert a.bonuses["komondor"] == 25 * 3  # owl:blue, rabbit (marked), the captured White dolphin
    assert any("animals.dolphin.white" in n for n in a.notes)  # unmarked dolphins: not White
    a = best_arrangement(["orangutan", "goat", "goat", "goat", "wolf", "wolf", "wolf"], captured=[["panda"] * 3])
    assert a.bonuses["orangutan"] == 30 * 3
    assert a.total == 20 + 20 + 10 + 90


def test_at_most_three_sets_from_nine_cards():
    hand = ["goat"] * 3 + ["wolf"] * 3 + ["panda"] * 3 + ["tiger"] * 3
    assert len(best_arrangement(hand[3:]).sets) == 3
    assert best_arrangement(hand).total == 100 + 20 * 3  # 12 cards (2 players): 4 sets


def test_search_is_exact_not_greedy():
    # the richest single set is the red one (kangaroo 10 + fox 11 + goat 11 = 32) and leaves
    # nothing else; the best keeps the kangaroo herd (30) and makes red of fox, goat, lion (23)
    hand = ["kangaroo:red:10", "kangaroo:blue:1", "kangaroo:yellow:1", "fox:red:11", "goat:red:11", "lion:red:1"]
    a = best_arrangement(hand)
    assert a.total == 30 + 23
    assert sorted(s.kind for s in a.sets) == ["colour", "herd"]


def test_player_count_variants():
    assert SETUP == {2: (12, 15), 3: (9, 12), 4: (9, 10)}
    two = game_deck(CAT, 2)
    assert not any(c.animal in ("tapir", "bear") for c in two.values())
    assert len(game_deck(CAT, 4)) - len(two) == 8


def test_five_games():
    s = GAME.new_state(["aki", "ben", "chie"])
    rng = random.Random(4)
    while (a := s.random_action(rng)) is not None:
        s.apply(a)
        s.check_invariants()
    res = s.result()
    assert len(res["games"]) == 5
    assert res["scores"] == {p: sum(g[p] for g in res["games"]) for p in ("aki", "ben", "chie")}
    assert res["winners"] == [p for p in res["scores"] if res["scores"][p] == max(res["scores"].values())]


POOL = ["owl:red", "owl:blue", "owl:yellow", "owl:green", "kangaroo:red:2", "kangaroo:blue:4", "tiger:yellow:1",
        "tiger:green:5", "tiger", "panda:black:1", "walrus:black:3", "chameleon:black:2", "wolf:red:2:white",
        "wolf:blue:3", "wolf", "rabbit:green:4", "orangutan:red:3", "komondor:blue:1", "tanuki", "fox:yellow:2",
        "goat:red:1", "goat:red:2"]


def _valid(trio):
    a = [parse_card(c) for c in trio]
    if a[0].animal == a[1].animal == a[2].animal:
        return CAT.animals[a[0].animal].herd is not None
    return a[0].colour is not None and a[0].colour == a[1].colour == a[2].colour


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(POOL), min_size=3, max_size=12), st.sampled_from(POOL), st.randoms(use_true_random=False))
def test_best_arrangement_beats_random_search(hand, special, rnd):
    best = best_arrangement(hand, special)
    assert score_arrangement([[str(c) for c in s.cards] for s in best.sets], [str(c) for c in best.loose], special) == best.total
    limit = len(hand) // 3
    for _ in range(30):
        cards = list(hand)
        rnd.shuffle(cards)
        sets, loose = [], []
        while cards:
            trio = cards[:3]
            if len(trio) == 3 and len(sets) < limit and _valid(trio) and rnd.random() < 0.8:
                sets.append(trio)
                cards = cards[3:]
            else:
                loose.append(cards.pop(0))
        assert score_arrangement(sets, loose, special) <= best.total


# ------------------------------------------------------------------ CLI (README examples)
def test_cli_best(run_cli):
    r = run_cli("rules", "toratanu", "best", "owl:red", "owl:blue", "owl:yellow", "tiger", "tiger", "tiger",
                "wolf", "wolf", "komondor", "--special", "tiger", "--json")
    assert r.exit_code == 0
    out = json.loads(r.output)
    # owl herd 30, tiger herd 100 + 50 (special animal), Komondor 25 for the White owl:blue
    assert out["total"] == 30 + 150 + 25
    assert [s["kind"] for s in out["sets"]] == ["herd", "herd"] and out["bonuses"] == {"komondor": 25}
    assert sorted(out["loose"]) == ["komondor", "wolf", "wolf"]
    r = run_cli("rules", "toratanu", "best", "tiger", "tiger", "tiger", "--special", "tiger")
    assert r.exit_code == 0 and "+50 special animal" in r.output and "total: 150" in r.output


def test_cli_best_errors(run_cli):
    r = run_cli("rules", "toratanu", "best", "kangaroo:red", "owl:red", "fox:red:1")
    assert r.exit_code == 2 and "animals.kangaroo.colours.red" in r.output
    r = run_cli("rules", "toratanu", "best", "unicorn")
    assert r.exit_code == 2 and "unknown animal 'unicorn'" in r.output


def test_cli_missing(run_cli):
    r = run_cli("rules", "toratanu", "missing")
    assert r.exit_code == 0 and "animals.kangaroo.colours" in r.output.splitlines()


def test_a_tally_outcome_gives_the_cards_it_was_scored_from():
    s = GAME.new_state(["aki", "ben"], options={"games": 2})
    rng = random.Random(7)
    tallies = 0
    while (a := s.random_action(rng)) is not None:
        special = s.cards[s.special] if s.special else None
        out = s.apply(a)
        if out.kind == "tally":
            tallies += 1
            for p, t in out.details["tallies"].items():
                best = best_arrangement(t["hand"], special, t["captured"], t["doubutsuen"])
                assert best.total == out.details["scores"][p]
    assert tallies == 2

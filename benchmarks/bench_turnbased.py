"""Figures for the turn-based games: game lengths of random legal play, and the cost of
the TORATANU best-arrangement search. Prints figures with their counts; asserts nothing.

    python benchmarks/bench_turnbased.py [--games N]

Uses ``time.perf_counter`` only to measure the search (the rules never read a clock).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rules  # noqa: E402
from rules.toratanu import best_arrangement  # noqa: E402


def play(game, players, mode=None, options=None, seed=0):
    state = game.new_state(players, mode=mode, options=options)
    rng = random.Random(seed)
    n = 0
    while (a := state.random_action(rng)) is not None:
        state.apply(a)
        n += 1
    return state, n


def summary(values):
    return (f"mean {statistics.mean(values):.1f}  median {statistics.median(values):.1f}  "
            f"min {min(values)}  max {max(values)}  (n={len(values)})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200)
    n = ap.parse_args().games
    tako = rules.get("takoyaki")
    solo = [play(tako, ["aki"], "solo", seed=s)[0].result()["turns_needed"] for s in range(n)]
    print(f"takoyaki solo, turns to fill 10 slots: {summary(solo)}")
    for players in (2, 4):
        names = ["aki", "ben", "chie", "dai"][:players]
        turns = [sum(play(tako, names, seed=s)[0].turns.values()) for s in range(n)]
        print(f"takoyaki {players} players, turns until a win: {summary(turns)}")
    ssp = rules.get("seasaltpaper")
    rounds = [play(ssp, ["aki", "ben", "chie"], seed=s)[0].result()["rounds"] for s in range(n // 4)]
    print(f"seasaltpaper 3 players random play, rounds per game: {summary(rounds)}")
    tora = rules.get("toratanu")
    actions = [play(tora, ["aki", "ben", "chie", "dai"], seed=s)[1] for s in range(max(1, n // 20))]
    print(f"toratanu 4 players, actions per 5-game match: {summary(actions)}")
    # search cost: worst case = every card one colour with known points (every trio is a set)
    for size in (9, 12):
        hand = [f"kangaroo:red:{i % 5 + 1}" if i % 3 else f"fox:red:{i % 7 + 1}" for i in range(size)]
        reps = 5
        t0 = time.perf_counter()
        for _ in range(reps):
            best_arrangement(hand)
        ms = (time.perf_counter() - t0) / reps * 1000
        print(f"toratanu best arrangement, {size} cards all one colour (worst case): {ms:.1f} ms per hand (n={reps})")
    pool = ["owl:red", "owl:blue", "owl:yellow", "owl:green", "kangaroo:red:2", "tiger", "wolf", "panda",
            "goat:yellow:2", "fox:green:1", "orangutan:red:3", "komondor:blue:1"]
    rng = random.Random(0)
    hands = [[rng.choice(pool) for _ in range(9)] for _ in range(200)]
    t0 = time.perf_counter()
    for h in hands:
        best_arrangement(h)
    print(f"toratanu best arrangement, random 9-card hands: "
          f"{(time.perf_counter() - t0) / len(hands) * 1000:.2f} ms per hand (n={len(hands)})")


if __name__ == "__main__":
    main()

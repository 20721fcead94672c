"""One conformance test that every registered game passes (OpenSpiel style).

Random legal games, played with a seeded ``random.Random``: no crash, the same seed gives
the same game (snapshots equal after every action), invariants hold after every action,
every game ends within a bound, and the result is JSON (what the judge prints).
"""

from __future__ import annotations

import json
import random

import pytest

import rules

MAX_ACTIONS = 5000
SEEDS = range(12)


def _players(game, rng: random.Random) -> list[str]:
    lo = max(game.min_players, 1)
    hi = min(game.max_players, 6)
    return ["aki", "ben", "chie", "dai", "emi", "fumi"][: rng.randint(lo, hi)]


def _play(name: str, seed: int):
    game = rules.get(name)
    rng = random.Random(seed)
    mode = game.modes[seed % len(game.modes)]
    players = _players(game, rng)
    if mode == "solo":
        players = players[:1]
    state = game.new_state(players, mode=mode)
    trace = [state.snapshot()]
    for _ in range(MAX_ACTIONS):
        action = state.random_action(rng)
        if action is None:
            break
        state.apply(action)
        state.check_invariants()
        trace.append(state.snapshot())
    return state, trace


@pytest.mark.parametrize("name", rules.names())
@pytest.mark.parametrize("seed", SEEDS)
def test_random_games_are_legal_deterministic_and_end(name, seed):
    state, trace = _play(name, seed)
    assert state.is_over, f"{name} seed {seed}: not over after {MAX_ACTIONS} actions"
    assert state.random_action(random.Random(0)) is None
    json.dumps(state.result())
    json.dumps(trace)
    again, trace2 = _play(name, seed)
    assert trace2 == trace
    assert again.result() == state.result()


def test_every_game_is_registered():
    assert rules.names() == ["ikatako", "mokochaka", "takoyaki", "seasaltpaper", "toratanu"]

"""What every registered game must declare, once, for the rest of the referee (OpenSpiel style).

The registry (``rules``) is the only list of the games; hearing, calibration, replay, live
play and teaching ask each game's declaration instead of comparing its name. A game that
forgets a part fails here, naming the part, rather than in a `referee` command at a table.
"""

from __future__ import annotations

import pytest

import rules
from referee import judging
from referee.judging.base import GameJudge, LivePlay, live_play
from referee.teach import drills
from referee.teach.drills.base import Drill

TABLES = ("field", "piles", "griddle")


def _check_calls(game) -> None:
    """Calls: unique tokens, both languages spelled, a vocabulary in every mode."""
    tokens = [w.token for w in game.calls.words]
    assert tokens and len(set(tokens)) == len(tokens), f"{game.name}: call tokens missing or repeated"
    for w in game.calls.words:
        assert w.ja and w.en, f"{game.name}: call {w.token!r} lacks a Japanese or English spelling"
    assert set(game.calls.totals) <= set(game.modes), f"{game.name}: totals in a mode it does not have"
    for mode in game.modes:
        vocab = rules.vocabulary(game.name, mode)
        assert vocab.game == game.name and vocab.names == tuple(tokens)


def _check_teaching(game) -> None:
    """Teaching: drills that pose situations of this game, one for any mode, a known table,
    and feedback words its calls can spell."""
    from audio.calls import name_words

    declared = drills.teaching(game.name)
    assert declared is not None, f"{game.name}: no TEACHING in referee/teach/drills/{game.name}.py"
    assert any(e.mode is None for e in declared.drills), f"{game.name}: no drill for the game's default mode"
    for entry in declared.drills:
        assert entry.mode is None or entry.mode in game.modes, f"{entry.name}: trains an unknown mode"
        drill = entry.make()
        assert isinstance(drill, Drill) and drill.name == entry.name and drill.game == game.name
        assert drill.levels() and all(lv.situations for lv in drill.levels()), f"{entry.name}: an empty level"
    assert declared.look.table in TABLES, f"{game.name}: draws an unknown table {declared.look.table!r}"
    for token in declared.words:
        assert game.calls is not None, f"{game.name}: says call words but declares no calls"
        assert name_words(game.vocabulary(), token), token


def _check_live(game) -> None:
    """Live play: a judge, and prompts and legends only for modes the game has."""
    assert issubclass(judging.module(game.name).Judge, GameJudge)
    live = live_play(game.name)
    assert isinstance(live, LivePlay)
    assert set(live.expect_modes) <= set(game.modes), f"{game.name}: expectations for an unknown mode"
    assert set(live.legend) <= set(game.modes), f"{game.name}: a legend for an unknown mode"


@pytest.mark.parametrize("name", rules.names())
def test_every_game_declares_what_the_rest_needs(name):
    game = rules.get(name)
    assert game.title and game.modes, f"{name}: no title or no mode"
    assert game.default_mode is None or game.default_mode in game.modes, f"{name}: default mode not a mode"
    assert game.test_word and game.test_word.strip() == game.test_word, f"{name}: no calibration test word"
    assert game.calibration_zones(["aki", "ben"]), f"{name}: no calibration zone"
    if game.calls is not None:
        _check_calls(game)
    _check_teaching(game)
    _check_live(game)


def test_each_game_says_once_whether_its_verdicts_use_the_hands():
    """Raised hands (IKATAKO) and grabs (MOKOCHAKA) need pose; the card games do not, and
    replay and live then give the camera no seats (no pose workers)."""
    from referee.pipeline.vision import table_layout
    from session.calibration import Box
    from vision.table import TableLayout

    assert {n: rules.get(n).uses_hands for n in rules.names()} == {
        "ikatako": True, "mokochaka": True, "takoyaki": False, "seasaltpaper": False, "toratanu": False}
    layout = TableLayout(640, 480, {"field": Box(0, 0, 100, 100)}, (("aki", Box(0, 0, 320, 480)),))
    assert table_layout(layout, "ikatako").seats == layout.seats
    no_pose = table_layout(layout, "takoyaki")
    assert no_pose.seats == () and no_pose.zones == layout.zones and layout.seats  # (the original kept)
    # one room microphone: the seats' hands and mouths say who spoke, so they are watched
    assert table_layout(layout, "seasaltpaper", room=True).seats == layout.seats

"""The rules of the games, one pure module each, behind one registry.

A game registers itself by being a module of this package that defines ``GAME`` (a
:class:`rules.base.Game`): ``rules.names()`` lists every such module in the games' declared
order (``Game.rank``), ``rules.get("ikatako")`` returns its ``GAME``. This is the only list
of the games: the record's header, the calibration, the CLI, the judge and the report ask
here, and so do hearing (its calls: :func:`vocabulary`), calibration (its test word, zones
and faces), replay and live play (its default mode). Adding a game is its own files only
(docs/developers.md, "Adding a game": this package's module, ``referee/judging/<name>.py``,
``referee/teach/drills/<name>.py``).
"""

from __future__ import annotations

import session as _session  # noqa: F401 - one BLAS thread whatever was imported first (session.threads)

import importlib
import os
import pkgutil
from functools import lru_cache

from rules.base import Game
from session.calls import Vocabulary
from session.errors import RulesError, UnknownGame

#: modules of this package that are not games
_NOT_GAMES = {"base"}
#: more game modules to register (module names, comma-separated): a game kept outside this
#: package (the test game of ``tests/games/``) plugs in without a change to the referee
PLUGINS = "TABLE_REFEREE_GAMES"


@lru_cache(maxsize=1)
def _registry() -> dict[str, Game]:
    games = []
    for info in pkgutil.iter_modules(__path__):
        if info.name in _NOT_GAMES or info.name.startswith("_"):
            continue
        games.append(getattr(importlib.import_module(f"{__name__}.{info.name}"), "GAME", None))
    for name in filter(None, (n.strip() for n in os.environ.get(PLUGINS, "").split(","))):
        games.append(getattr(importlib.import_module(name), "GAME", None))
    games = [g for g in games if isinstance(g, Game)]
    return {g.name: g for g in sorted(games, key=lambda g: (g.rank, g.name))}


def refresh() -> None:
    """Read the games again (a test that plugs a game in through :data:`PLUGINS`, or out)."""
    _registry.cache_clear()


def home(game: str, own: str) -> str:
    """The module of ``game``'s referee-side part: ``own`` (the referee's module for it), or
    the game's :attr:`Game.home` for a game kept outside the referee."""
    return get(game).home or own


def names() -> list[str]:
    """Every registered game, in the registry's order."""
    return list(_registry())


def all_games() -> list[Game]:
    return list(_registry().values())


def get(name: str) -> Game:
    """The rules of game ``name``; :class:`UnknownGame` names the games there are."""
    game = _registry().get(name)
    if game is None:
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(names())})")
    return game


def vocabulary(game: str, mode: str | None = None) -> Vocabulary:
    """The calls of ``game`` in ``mode`` that hearing listens for (:attr:`Game.calls`); a game
    without spoken calls is a :class:`RulesError` naming the games that have some."""
    if get(game).calls is None:
        with_calls = ", ".join(g.name for g in all_games() if g.calls is not None)
        raise RulesError(f"game {game!r} has no spoken calls to listen for (games with calls: {with_calls})")
    return get(game).vocabulary(mode)


def vocabularies() -> dict[str, Vocabulary]:
    """Every game's calls in every mode, keyed ``game/mode`` (tests and benchmarks cover them all)."""
    return {f"{g.name}/{mode}": g.vocabulary(mode) for g in all_games() if g.calls is not None for mode in g.modes}

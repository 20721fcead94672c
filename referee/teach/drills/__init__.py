"""The games' drills, found by the registry's names (:mod:`rules`): a game is taught when
``referee/teach/drills/<game>.py`` defines ``TEACHING`` (:class:`~referee.teach.drills.base.
Teaching`); :func:`get` by the name ``referee teach NAME`` takes, :func:`for_game` by game
and mode."""

from __future__ import annotations

import importlib

from referee.teach.drills.base import DrillEntry, Teaching
from session.errors import RefereeError


class UnknownDrill(RefereeError):
    pass


def teaching(game: str) -> Teaching | None:
    """The teaching declaration of a registered game; None when it has no drill module."""
    import rules

    name = rules.home(game, f"{__name__}.{game}")
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise
    found = getattr(module, "TEACHING", None)
    return found if isinstance(found, Teaching) else None


def games() -> list[str]:
    """The games with drills, in the registry's order."""
    import rules

    return [g for g in rules.names() if teaching(g) is not None]


def _entries() -> dict[str, DrillEntry]:
    return {e.name: e for g in games() for e in teaching(g).drills}


def names() -> list[str]:
    """Every drill's name (``ikatako``, ``ikatako-coop``, …), game by game."""
    return list(_entries())


def entry(name: str) -> DrillEntry:
    entries = _entries()
    if name not in entries:
        raise UnknownDrill(f"no drill {name!r} (drills: {', '.join(entries)})")
    return entries[name]


def get(name: str):
    """The drill called ``name`` (a fresh instance)."""
    return entry(name).make()


def for_game(game: str, mode: str | None) -> str:
    """The name of the drill of ``game`` that trains ``mode`` (else the game's drill for any mode)."""
    declared = teaching(game)
    if declared is None:
        raise UnknownDrill(f"no drill for game {game!r} (games with drills: {', '.join(games())})")
    exact = [e for e in declared.drills if e.mode is not None and e.mode == mode]
    fallback = [e for e in declared.drills if e.mode is None]
    return (exact or fallback or list(declared.drills))[0].name


def command(name: str) -> str:
    """What follows ``referee teach`` to run drill ``name``: its game, and ``--mode`` when the
    drill trains one mode (``ikatako --mode coop``)."""
    for game in games():
        for e in teaching(game).drills:
            if e.name == name:
                return game if e.mode is None else f"{game} --mode {e.mode}"
    return name

"""One judging module per game, found by the game's registered name (:mod:`rules`):
``referee/judging/<name>.py`` defines ``Judge`` (the incremental judge, :mod:`referee.judging.
base`), and may define ``format_table(judgement, header) -> str`` (the people's table; else
:mod:`referee.announce` prints a generic one) and ``describe(verdict) -> list[(label, text)]``
(what the dispute report shows of a verdict; else every field), and ``LIVE`` (a
:class:`referee.judging.base.LivePlay`: what a live table shows and asks for the game)."""

from __future__ import annotations

import importlib
from types import ModuleType


def module(game: str) -> ModuleType:
    """The judging module of a registered game (:class:`session.errors.UnknownGame` if none)."""
    import rules

    return importlib.import_module(rules.home(game, f"{__name__}.{game}"))  # (unknown: one clear error)

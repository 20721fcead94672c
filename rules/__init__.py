"""The rules of the five games, one pure module each, behind one registry.

``rules.get("ikatako")`` returns the game's :class:`rules.base.Game`; ``rules.names()``
lists the registered games. Modules are imported on first use.
"""

from __future__ import annotations

import importlib
import importlib.util

from session.errors import UnknownGame
from rules.base import Game

# game name -> module defining ``GAME`` (a rules.base.Game instance)
_MODULES = {
    "ikatako": "rules.ikatako",
    "mokochaka": "rules.mokochaka",
    "takoyaki": "rules.takoyaki",
    "seasaltpaper": "rules.seasaltpaper",
    "toratanu": "rules.toratanu",
}


def names() -> list[str]:
    """Every registered game whose module is present, in the registry's order."""
    return [n for n in _MODULES if importlib.util.find_spec(_MODULES[n]) is not None]


def get(name: str) -> Game:
    """The rules of game ``name``; :class:`UnknownGame` names the games there are."""
    module_name = _MODULES.get(name)
    if module_name is None or importlib.util.find_spec(module_name) is None:
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(names())})")
    return importlib.import_module(module_name).GAME

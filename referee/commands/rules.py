"""``referee rules GAME ...``: ask the rules of one game a question.

Each registered game (:func:`rules.names`) with a question module
``referee/commands/rules_<game>.py`` (a game kept outside the referee: its ``Game.home``
defining ``cli``) gets its subcommand; a game without one has none.
"""

from __future__ import annotations

import importlib.util

import click

import rules
from referee.cli import LazyGroup

GAME_COMMANDS = {name: f"{rules.home(name, f'referee.commands.rules_{name}')}:cli" for name in rules.names()
                 if importlib.util.find_spec(rules.home(name, f"referee.commands.rules_{name}")) is not None}


@click.group("rules", cls=LazyGroup, lazy=GAME_COMMANDS)
def rules_cmd() -> None:
    """Ask the rules of a game: expected reactions, calls, scores."""

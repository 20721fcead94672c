"""``referee rules GAME ...``: ask the rules of one game a question."""

from __future__ import annotations

import click

from referee.cli import LazyGroup

GAME_COMMANDS = {
    "ikatako": "referee.commands.rules_ikatako:cli",
    "mokochaka": "referee.commands.rules_mokochaka:cli",
    "takoyaki": "referee.commands.rules_takoyaki:cli",
    "seasaltpaper": "referee.commands.rules_seasaltpaper:cli",
    "toratanu": "referee.commands.rules_toratanu:cli",
}


@click.group("rules", cls=LazyGroup, lazy=GAME_COMMANDS)
def rules_cmd() -> None:
    """Ask the rules of a game: expected reactions, calls, scores."""

"""``referee rules takoyaki ...``: where a card may go on a griddle (docs/rules.md, TAKOYAKI).

GRIDDLE notation: one character per slot from A up, ``x`` (or ``j`` for a joker) face up,
``.`` face down; its length (1–10) is the griddle size (6 for the 6-card option, fewer
under kachinuki). ``x.x.......`` is a 10-card griddle with A and 3 face up.
"""

from __future__ import annotations

import json

import click

from rules.takoyaki import parse_griddle, placement


@click.group("takoyaki")
def cli() -> None:
    """TAKOYAKI: where a drawn or turned card goes."""


@cli.command("place")
@click.option("--griddle", required=True, metavar="GRIDDLE",
              help="One character per slot from A: 'x' face up ('j' a joker), '.' face down, e.g. x.x.......")
@click.argument("card")
@click.option("--json", "as_json", is_flag=True, help="Answer as one JSON object.")
def place_cmd(griddle: str, card: str, as_json: bool) -> None:
    """Where CARD (e.g. 7H, 10S, JK) may go on GRIDDLE, and whether the turn continues."""
    answer = placement(card, parse_griddle(griddle))
    if as_json:
        click.echo(json.dumps(answer.to_dict(), sort_keys=True))
        return
    click.echo(answer.why)
    if answer.wins:
        click.echo("turn: the game is won")
    else:
        click.echo("turn: continues" if answer.continues else "turn: ends")

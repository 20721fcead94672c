"""``referee rules ikatako ...``: the expected reaction to a card, or to a co-op sequence."""

from __future__ import annotations

import json

import click

from rules import ikatako as rk


def _say(reaction: rk.Reaction) -> str:
    if not reaction.required:
        return "no reaction (nobody reacts to a trouble card; it stays in the field)"
    hands = {"none": "no hand", "left": "raise LEFT hand", "right": "raise RIGHT hand",
             "both": "raise BOTH hands"}[reaction.hands]
    return f"{hands}, shout: {' '.join(reaction.say)}"


@click.group("ikatako")
def cli() -> None:
    """IKATAKO: what the table must do when a card appears."""


@cli.command("expect")
@click.argument("card")
@click.option("--trouble", "troubles", multiple=True, metavar="NAME",
              help="A trouble card lying in the field: repeat, mirror or number (repeatable).")
@click.option("--json", "as_json", is_flag=True, help='Print {"hands": ..., "say": [...]}.')
def expect_cmd(card: str, troubles: tuple[str, ...], as_json: bool) -> None:
    """The versus reaction to CARD (e.g. ika, tako, 3, uzushio6) with the troubles in the field."""
    reaction = rk.expected_reaction(card, troubles)
    if as_json:
        click.echo(json.dumps(reaction.to_dict(), ensure_ascii=False))
    else:
        field = f" (field: {', '.join(troubles)})" if troubles else ""
        click.echo(f"{rk.check_card(card)}{field}: {_say(reaction)}")


@cli.command("coop")
@click.argument("cards", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help='Print a JSON list of {"hands", "say"}, one per card.')
def coop_cmd(cards: tuple[str, ...], as_json: bool) -> None:
    """The co-op/solo declarations for CARDS flipped in this order without a miss."""
    reactions = rk.coop_sequence(cards)
    if as_json:
        click.echo(json.dumps([r.to_dict() for r in reactions], ensure_ascii=False))
        return
    for i, (card, r) in enumerate(zip(cards, reactions), 1):
        click.echo(f"{i:>3}. {rk.check_card(card):<9} {_say(r)}")

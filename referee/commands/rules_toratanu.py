"""``referee rules toratanu ...``: the best arrangement of a hand (docs/rules.md, TORATANU).

Cards are ``animal[:colour][:points][:white]`` (``owl:blue``, ``kangaroo:red:3``); colour
points the catalogue lacks can be read off the card and written in.
"""

from __future__ import annotations

import json

import click

from rules.toratanu import best_arrangement, default_catalogue


@click.group("toratanu")
def cli() -> None:
    """TORATANU: best arrangement at the tally; what the card catalogue lacks."""


def _set(text: str) -> list[str]:
    return [c.strip() for c in text.split(",") if c.strip()]


@cli.command("best")
@click.argument("cards", nargs=-1, required=True)
@click.option("--special", metavar="CARD", help="Tonight's special card, e.g. owl:blue.")
@click.option("--captured", multiple=True, metavar="A,B,C", help="A captured herd set (repeatable).")
@click.option("--doubutsuen", multiple=True, metavar="A,B,C,D", help="A declared Doubutsuen (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Answer as one JSON object.")
def best_cmd(cards, special, captured, doubutsuen, as_json) -> None:
    """The best-scoring arrangement of CARDS into sets (exact search), explained."""
    best = best_arrangement(cards, special, [_set(s) for s in captured], [_set(s) for s in doubutsuen])
    if as_json:
        click.echo(json.dumps(best.to_dict(), sort_keys=True, ensure_ascii=False))
        return
    click.echo("\n".join(best.explain()))


@cli.command("missing")
def missing_cmd() -> None:
    """List the catalogue fields the rulebook does not state (for the table to complete)."""
    for item in default_catalogue().missing():
        click.echo(item)


@cli.command("set")
@click.argument("field")
@click.argument("value")
def set_cmd(field, value) -> None:
    """Give a field the rulebook leaves unsaid, read off your cards, once: FIELD is
    animals.ANIMAL.colours.COLOUR (colour points), animals.ANIMAL.white (the colour of its
    White card) or animals.ANIMAL.copies; VALUE its value. Remembered in your answers file
    for every later night and session (the referee asks for a field when a hand needs it)."""
    from referee.toratanu_answers import set_answer
    from session.errors import RulesError

    try:
        path, line = set_answer(field, value)
    except RulesError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"remembered: {line}  (in {path})")

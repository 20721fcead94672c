"""``referee rules seasaltpaper ...``: card points and round scores (docs/rules.md, Sea Salt & Paper).

Cards are ``kind[:colour]`` (``crab:blue``, ``mermaid``, ``lighthouse:purple``); a hand is
everything the player holds and has played.
"""

from __future__ import annotations

import json

import click

from session.errors import RulesError
from rules.seasaltpaper import parse_card, resolve_round, score


@click.group("seasaltpaper")
def cli() -> None:
    """Sea Salt & Paper: card points, colour bonus, STOP / LAST CHANCE."""


@cli.command("score")
@click.argument("cards", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Answer as one JSON object.")
def score_cmd(cards: tuple[str, ...], as_json: bool) -> None:
    """Card points (with each scoring part) and colour bonus of CARDS."""
    s = score(cards)
    if as_json:
        click.echo(json.dumps(s.to_dict(), sort_keys=True))
        return
    for part, pts in s.breakdown.items():
        click.echo(f"{part:26} {pts:3}")
    click.echo(f"{'card points':26} {s.card_points:3}")
    click.echo(f"{'colour bonus':26} {s.color_bonus:3}")
    if s.card_points >= 7:
        click.echo("may end the round (STOP or LAST CHANCE)")
    if s.instant_win:
        click.echo("four mermaids: wins the game at once")


def _hand(text: str) -> tuple[str, list[str]]:
    name, sep, cards = text.partition("=")
    if not sep or not name.strip():
        raise RulesError(f"malformed --hand {text!r}: write NAME=CARD,CARD,... e.g. aki=crab:blue,crab:red")
    parsed = [c.strip() for c in cards.split(",") if c.strip()]
    for c in parsed:
        parse_card(c)
    return name.strip(), parsed


@cli.command("round")
@click.option("--caller", required=True, metavar="NAME", help="Who ended the round.")
@click.option("--call", "call", required=True, type=click.Choice(["stop", "lastchance"]), help="The call.")
@click.option("--hand", "hands", multiple=True, required=True, metavar="NAME=CARD,CARD,...",
              help="A player's cards in hand and played (repeat for every player).")
@click.option("--json", "as_json", is_flag=True, help="Answer as one JSON object.")
def round_cmd(caller: str, call: str, hands: tuple[str, ...], as_json: bool) -> None:
    """Each player's round score after CALLER said STOP or LAST CHANCE."""
    table: dict[str, list[str]] = {}
    for h in hands:
        name, cards = _hand(h)
        if name in table:
            raise RulesError(f"--hand gives {name!r} twice")
        table[name] = cards
    res = resolve_round(table, caller, call)
    if as_json:
        click.echo(json.dumps(res.to_dict(), sort_keys=True))
        return
    click.echo(res.why + ("" if res.legal else "  (ILLEGAL call)"))
    for p, s in res.scores.items():
        click.echo(f"{p:10} card points {s.card_points:3}  colour bonus {s.color_bonus:2}  scores {s.score:3}")

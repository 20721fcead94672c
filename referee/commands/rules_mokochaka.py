"""``referee rules mokochaka call CARD [CARD CARD]``: the correct call over visible pile tops.

``accepted`` lists every correct call in alphabetical order (so the either-is-correct case
reads ``["chakamoko", "mokochaka"]``); ``special`` says a token race is on.
"""

from __future__ import annotations

import json

import click

from rules.mokochaka import ANIMALS, N_PILES, call_for


@click.group("mokochaka")
def cli() -> None:
    """MOKOCHAKA: what to call over the visible pile tops."""


@cli.command("call")
@click.argument("cards", nargs=-1, required=True, metavar="CARD [CARD CARD]")
@click.option("--json", "as_json", is_flag=True, help='JSON: {"accepted": [...], "special": bool, ...}.')
def call_cmd(cards: tuple[str, ...], as_json: bool) -> None:
    """The correct call for the pile tops CARD... (1-3 cards like moko3, paka2, pome1, gabu4)."""
    if len(cards) > N_PILES:
        raise click.UsageError(f"at most {N_PILES} cards (one per pile), got {len(cards)}")
    call = call_for(cards)
    if as_json:
        click.echo(json.dumps(call.to_dict(), ensure_ascii=False))
        return
    names = " or ".join(call.accepted)
    if call.special:
        click.echo(f"call: {names}  (special call: grab the token while calling)")
    else:
        click.echo(f"call: {names}  (the active player calls)")
    counts = ", ".join(f"{k} {call.counts[k]}" for k in (*ANIMALS, "gabu") if call.counts[k])
    click.echo(f"animals on {' '.join(call.tops)}: {counts}")
    if call.counts["gabu"] and call.counts["moko"]:
        click.echo(f"gabu eats moko: moko counts {max(call.counts['moko'] - call.counts['gabu'], 0)}")

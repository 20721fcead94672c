"""TORATANU: the catalogue's unknown fields, asked once and remembered (issue 34 item 3).

The rulebook leaves most colour points and the White cards' colours unsaid
(``rules/data/toratanu.toml`` writes them ``"?"`` or leaves them out). A card read by the
camera usually carries its printed points in its code (the reference photo is named for what
is printed on it: ``kangaroo-red-3.png``), but a reference named ``kangaroo-red.png`` does not;
then a hand whose best arrangement needs that card's points cannot be scored without them.

Decision: the referee never guesses such a value. When a hand needs a field the catalogue
lacks, that player's tally is *unclear* (no score, the reason shown), and the referee asks
**once** per field and session (a warning on the terminal, the verdict's ``needs``) with the
command that gives it::

    referee rules toratanu set animals.kangaroo.colours.red 3

The answer is **remembered** in the group's answers file (:func:`answers_path`:
``$TABLE_REFEREE_DATA/toratanu.toml``, else ``$XDG_DATA_HOME/table-referee/toratanu.toml``,
else ``~/.local/share/table-referee/toratanu.toml``, the folder ``referee teach`` keeps its
progress in), laid over the catalogue by every later judgement, night and session. The file
holds one dotted TOML line per answer (``animals.kangaroo.colours.red = 3``), so a group may
also write it by hand. Known limit: a recording judged on a computer without the group's file
says the same tallies *unclear* (it never scores them differently).

Which fields a hand needs (:func:`needed_fields`): the points of every card of a colour the
hand holds three or more of (a colour set may be made of them), and, when the hand holds the
Komondor, whether each card of an animal with a White card of unstated colour is White.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections import Counter
from pathlib import Path
from typing import Iterable

from session.errors import RulesError
from rules.toratanu import Card, Catalogue, load_catalogue, parse_card

ENV = "TABLE_REFEREE_DATA"
FILE_NAME = "toratanu.toml"
_FIELD = re.compile(r"^animals\.([a-z]+)\.(colours\.([a-z]+)|white|copies)$")


def answers_path() -> Path:
    """The group's answers file (see the module's docstring)."""
    env = os.environ.get(ENV)
    if env:
        return Path(env) / FILE_NAME
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "table-referee" / FILE_NAME


def load_answers(path: Path | None = None) -> dict:
    """The answers file's tables (``{}`` when there is none); a malformed one is one error."""
    path = path or answers_path()
    if not path.is_file():
        return {}
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise RulesError(f"TORATANU answers file {path} cannot be read: {exc} (fix or remove it)") from None


def catalogue(path: Path | None = None) -> Catalogue:
    """The shipped catalogue with the group's answers laid over it."""
    return load_catalogue(answers=load_answers(path))


def set_answer(field: str, value: str, path: Path | None = None) -> tuple[Path, str]:
    """Remember ``field = value`` (``animals.kangaroo.colours.red``, ``3``); returns the file
    and the line written. Only a field the catalogue lacks can be given (the rulebook's
    statements are not overridden); errors say what is accepted."""
    path = path or answers_path()
    cat = load_catalogue()
    m = _FIELD.match(field.strip())
    if m is None:
        raise RulesError(f"{field!r} is not a catalogue field: write animals.ANIMAL.colours.COLOUR (colour "
                         "points), animals.ANIMAL.white (the colour of its White card) or animals.ANIMAL.copies")
    animal, what, colour = m.group(1), m.group(2), m.group(3)
    a = cat.animal(animal)
    if colour is not None:
        if colour not in cat.colours:
            raise RulesError(f"{colour!r} is no colour of the catalogue ({', '.join(cat.colours)})")
        if a.colours is not None and a.colours.get(colour) is not None:
            raise RulesError(f"the rulebook gives {animal} {colour} {a.colours[colour]} colour points already")
        if not value.isdigit():
            raise RulesError(f"colour points are a whole number, got {value!r}")
        line = f"{field} = {int(value)}"
    elif what == "white":
        if a.white is None:
            raise RulesError(f"{animal} has no White card")
        if a.white != "?":
            raise RulesError(f"the rulebook gives {animal}'s White card as {a.white} already")
        if value not in cat.colours:
            raise RulesError(f"the White card's colour is one of {', '.join(cat.colours)}, got {value!r}")
        line = f'{field} = "{value}"'
    else:
        if a.copies is not None:
            raise RulesError(f"the rulebook gives {animal} {a.copies} copies already")
        if not value.isdigit() or int(value) < 1:
            raise RulesError(f"copies are a whole number of at least 1, got {value!r}")
        line = f"{field} = {int(value)}"
    old = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    kept = [x for x in old if x.split("=")[0].strip() != field]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(kept + [line]) + "\n", encoding="utf-8")
    load_answers(path)  # (the file stays readable TOML)
    return path, line


def needed_fields(cards: Iterable[str | Card], cat: Catalogue) -> list[str]:
    """The catalogue fields scoring ``cards`` needs and does not have (sorted; see the
    module's docstring). A card the catalogue cannot parse raises :class:`RulesError`."""
    hand = [parse_card(c, cat) for c in cards]
    out = set()
    colours = Counter(c.colour for c in hand if c.colour)
    for c in hand:
        if c.colour and colours[c.colour] >= 3 and c.points is None:
            out.add(f"animals.{c.animal}.colours.{c.colour}")
    if any(c.animal == "komondor" for c in hand):
        out.update(f"animals.{c.animal}.white" for c in hand if c.white is None)
    return sorted(out)


def ask_text(fields: Iterable[str], where: bool = False) -> str:
    """How to give the fields, in one sentence: the verdict's reason, and with ``where`` the
    terminal's warning (the answers file's path: a verdict names no path of this computer)."""
    fields = list(fields)
    how = "; ".join(f"referee rules toratanu set {f} {'COLOUR' if f.endswith('.white') else 'N'}" for f in fields)
    kept = f"remembered in {answers_path()}" if where else "remembered for later nights and sessions"
    return (f"the catalogue lacks {', '.join(fields)} (not in the rulebook): read it off the card and give it once "
            f"({how}): {kept}")

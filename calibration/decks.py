"""What a game's calibration asks for: the distinct cards to show (in order) and the zones.

Decisions (the spec is silent): IKATAKO's cards are asked in the demo deck's order
(numbers, creatures, Uzushio 6 then 9, Salvage, the troubles); MOKOCHAKA's are every
kind-count face (``moko1`` ... ``gabu4``), TAKOYAKI's every rank of every suit and the
joker; the other games have too many faces for a default and need ``--cards``.
A TAKOYAKI griddle is ten slots (A..10) per player, drawn as one box per player and split
into two rows of five (slot1..slot5 on the far row, left to right).
"""

from __future__ import annotations

from typing import Sequence

from session.errors import CalibrationError

IKATAKO_CARDS = ("2", "3", "4", "5", "tako", "ika", "ikatako", "uzushio6", "uzushio9", "salvage", "mirror",
                 "number", "repeat")


def deck_cards(game: str) -> tuple[str, ...]:
    """The distinct card codes a calibration shows, in the order it asks for them."""
    if game == "ikatako":
        return IKATAKO_CARDS
    if game == "mokochaka":
        from rules.mokochaka import DEFAULT_DECK

        return tuple(dict.fromkeys(DEFAULT_DECK))
    if game == "takoyaki":
        from rules.takoyaki import JOKER, RANKS, SUITS

        return tuple(f"{r}{s}" for s in SUITS for r in RANKS) + (JOKER,)
    raise CalibrationError(f"cards: {game} has no default card list; give the faces to show with --cards A,B,...")


def game_zones(game: str, names: Sequence[str]) -> list[str]:
    """The zones a game's calibration must have."""
    if game == "ikatako":
        return ["field"]
    if game == "mokochaka":
        return ["pile0", "pile1", "pile2", "token"]
    if game == "takoyaki":
        return [f"p:{n}:slot{k}" for n in names for k in range(1, 11)]
    return ["scoring"]


def griddle_slots(name: str, box: Sequence[int]) -> dict[str, list[int]]:
    """Split one player's griddle box into ten slots (two rows of five)."""
    x1, y1, x2, y2 = box
    out = {}
    for k in range(10):
        row, col = divmod(k, 5)
        ax = x1 + (x2 - x1) * col // 5
        bx = x1 + (x2 - x1) * (col + 1) // 5
        ay = y1 + (y2 - y1) * row // 2
        by = y1 + (y2 - y1) * (row + 1) // 2
        out[f"p:{name}:slot{k + 1}"] = [ax, ay, bx, by]
    return out

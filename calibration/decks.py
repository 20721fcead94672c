"""What a game's calibration asks for: the distinct cards to show (in order) and the zones.

Each game declares its faces and zones in its rules module (``rules.base.Game.faces`` /
``calibration_zones``). Decisions (the spec is silent): IKATAKO's cards are asked in the demo
deck's order (numbers, creatures, Uzushio 6 then 9, Salvage, the troubles); MOKOCHAKA's are
every kind-count face (``moko1`` ... ``gabu4``), TAKOYAKI's every rank of every suit and the
joker; the other games have too many faces for a default and need ``--cards``.
A TAKOYAKI griddle is ten slots (A..10) per player, drawn as one box per player and split
into two rows of five (slot1..slot5 on the far row, left to right).
"""

from __future__ import annotations

from typing import Sequence

from session.errors import CalibrationError

def deck_cards(game: str) -> tuple[str, ...]:
    """The distinct card codes a calibration shows, in the order it asks for them (the
    game's declared ``faces``, :class:`rules.base.Game`)."""
    import rules

    faces = rules.get(game).faces
    if not faces:
        raise CalibrationError(f"cards: {game} has no default card list; give the faces to show with --cards A,B,...")
    return faces


def game_zones(game: str, names: Sequence[str]) -> list[str]:
    """The zones a game's calibration must have (the game's declaration)."""
    import rules

    return rules.get(game).calibration_zones(names)


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

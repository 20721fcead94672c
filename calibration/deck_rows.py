"""A deck's references from a few photos of its cards laid out in rows (issue 34, item 1).

One card at a time (:func:`calibration.steps.capture_reference` per showing) takes a group
about 5 s a card, 4.4 min for a 53-card deck. Here the group lays a whole suit face up in the
play area in the order the tool prints (A, 2, ..., 10, J, Q, K: :func:`deck_shots`), in rows
(two rows of 7 and 6, or any rows), a finger's width apart; one still frame (or a phone
photo) is taken; the tool separates the cards (:func:`separate_cards`), puts them in
reading order (:func:`reading_order`) and names each by its place. 4 suits + the joker =
5 shots.

Every card then goes through the one-card checks (sharp enough, not the same picture as a
reference already taken, re-identified as itself among the references so far); its reference is
the card's outline found again head-on, turned upright on a plain dark border
(:func:`calibration.deck_shot.upright`: it shows the card alone, as a one-card showing would). A
shot in which the number of cards found is not the number asked for gives no reference at all
(one ``fail`` line): a card missed or an extra outline would shift every name after it.

What the picture cannot tell: two cards of the shot laid in each other's place (the tool
reads no ranks). The annotated picture (:func:`calibration.rows_ui.annotate`) writes each
name on its card for the group to look at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from session.params import check_ranges
from vision.card_outlines import covered_share, find_card_outlines, quad_overlap, search_scale


@dataclass(frozen=True)
class RowsParams:
    """How the cards of a layout photo are told apart and put in reading order."""

    #: an outline lying this much inside a larger one is part of that card (its printed frame,
    #: a pip, a court figure), not a card. Lower: a card lying a little on another is lost
    covered: float = 0.8
    #: an outline holding two separate outlines each at least this share of its area is a
    #: group (two touching cards, the sheet they lie on), not a card: the two are taken.
    #: Higher: a group of small cards taken as one card (the count check then fails)
    group_part: float = 0.2
    #: an outline whose area is this many times larger or smaller than the shot's median card
    #: is not one of the cards (a shadow, a box, the table's edge). A card at the far side of a
    #: view at 45 degrees is about 0.6x one at the near side; cost of a lower value: such
    #: cards dropped (the count check then fails)
    size_ratio: float = 2.5
    #: a card starts a new row when its centre lies more than this many card heights below
    #: the current row's (across the layout's direction): rows of cards are about one card
    #: height apart, a card of a row is within a quarter height of its neighbours
    row_gap: float = 0.5

    def __post_init__(self) -> None:
        check_ranges(self, fraction=("covered", "group_part"), positive=("row_gap",))
        if not self.size_ratio > 1.0:
            raise ValueError(f"RowsParams.size_ratio must be > 1, got {self.size_ratio!r}")


ROWS = RowsParams()


def deck_shots(codes: Sequence[str], per_shot: int = 13) -> list[tuple[str, ...]]:
    """The deck's codes in shots of ``per_shot`` (a suit of a standard deck: 13), in the
    deck's order; the last shot holds what is left (TAKOYAKI: the joker alone)."""
    if per_shot < 1:
        raise ValueError(f"per_shot must be >= 1, got {per_shot}")
    return [tuple(codes[i:i + per_shot]) for i in range(0, len(codes), per_shot)]


def _area(q: np.ndarray) -> float:
    return float(cv2.contourArea(np.asarray(q, np.float32)))


def _holds_two(parts: list[np.ndarray]) -> bool:
    """Whether two of ``parts`` are separate outlines (overlapping by less than half)."""
    return any(quad_overlap(a, b) < 0.5 for i, a in enumerate(parts) for b in parts[i + 1:])


def separate_cards(image: np.ndarray, params: RowsParams = ROWS,
                   expected: int = 1) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The cards of a layout photo (outlines TL, TR, BR, BL, full-image pixels) and the
    card-shaped outlines left out for their size (:attr:`RowsParams.size_ratio`). Outlines
    of every binarisation (:func:`vision.card_outlines.find_card_outlines`; head-on first,
    oblique views when that does not find ``expected`` cards: :func:`outermost`); a card is
    an outermost one, not a group of cards.
    ``expected`` cards (the shot's) cannot each cover more than 1/``expected`` of the photo:
    a larger outline (the cloth or sheet under them) is no card (geometry, not a setting)."""
    found = outermost(image, params, expected, oblique=False)
    if len(found[0]) == expected:
        return found
    return outermost(image, params, expected, oblique=True)


def outermost(image: np.ndarray, params: RowsParams, expected: int,
              oblique: bool) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """:func:`separate_cards` with the head-on outline search (``oblique`` False: the outlines
    of a one-card showing, tried first: the oblique search's hull fits may take a card on
    white paper loosely, across its corner and its printed frame) or the oblique one (a phone
    held at an angle: tried when the head-on search does not find the cards asked for)."""
    scale = search_scale(image)
    small = image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    most = small.shape[0] * small.shape[1] / max(1, expected)
    quads = sorted((q for q in find_card_outlines(small, oblique=oblique) if _area(q) <= most), key=_area,
                   reverse=True)
    cards: list[np.ndarray] = []
    for i, q in enumerate(quads):
        parts = [p for p in quads[i + 1:] if covered_share(p, q) >= params.covered
                 and _area(p) >= params.group_part * _area(q)]
        if _holds_two(parts):
            continue  # a group of cards (or the sheet under them): its cards are taken instead
        if any(covered_share(q, c) >= params.covered for c in cards):
            continue  # inside a card taken: its printed frame, a pip
        if any(quad_overlap(q, c) >= 0.5 for c in cards):
            continue  # the same card found a little larger by another binarisation
        cards.append(q)
    if not cards:
        return [], []
    med = float(np.median([_area(c) for c in cards]))
    keep = [c for c in cards if 1 / params.size_ratio <= _area(c) / med <= params.size_ratio]
    odd = [c for c in cards if not 1 / params.size_ratio <= _area(c) / med <= params.size_ratio]
    return [(c / scale).astype(np.float32) for c in keep], [(c / scale).astype(np.float32) for c in odd]


def layout_angle(quads: Sequence[np.ndarray]) -> float:
    """The layout's direction (radians): the median direction of the cards' top edges,
    folded into (-45, 45] degrees (a card lying sideways counts as its rows' direction)."""
    angles = []
    for q in quads:
        dx, dy = np.asarray(q[1], np.float64) - np.asarray(q[0], np.float64)
        a = np.arctan2(dy, dx)
        angles.append((a + np.pi / 4) % (np.pi / 2) - np.pi / 4)
    return float(np.median(angles)) if angles else 0.0


def reading_order(quads: Sequence[np.ndarray], params: RowsParams = ROWS) -> list[list[int]]:
    """The cards' indices in rows, top to bottom, each left to right, in the layout's own
    frame (:func:`layout_angle`: a layout photographed tilted is read along its rows). A row
    is the cards whose centres lie within :attr:`RowsParams.row_gap` card heights of the
    row's first card, across the layout's direction."""
    if not quads:
        return []
    a = layout_angle(quads)
    along, across = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    centres = np.array([np.asarray(q, np.float64).mean(0) for q in quads])
    heights = [max(float(np.linalg.norm(q[3] - q[0])), float(np.linalg.norm(q[1] - q[0]))) for q in quads]
    gap = params.row_gap * float(np.median(heights))
    y, x = centres @ across, centres @ along
    rows: list[list[int]] = []
    for k in np.argsort(y, kind="stable"):
        if rows and y[k] - y[rows[-1][0]] <= gap:
            rows[-1].append(int(k))
        else:
            rows.append([int(k)])
    return [sorted(r, key=lambda k: (round(float(x[k]), 3), k)) for r in rows]

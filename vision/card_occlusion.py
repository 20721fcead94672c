"""The occlusion test: a misfit face that is covered (a hand, a card's back) is not re-aligned
(part of :mod:`vision.cards`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, NamedTuple

import cv2
import numpy as np

from vision.card_references import ALIGN_MARGIN, CANON_W, References, Face
from vision.card_realign import REFINE_CODES


class Block(NamedTuple):
    """One block of a reference's half-size template and where the face is compared with it
    (:func:`blocks`): ``place`` ``(y0, y1, x0, x1)`` in the template, ``ref`` its pixels,
    ``at`` the face's pixels at the same place, ``window`` the face around it."""

    place: tuple[int, int, int, int]
    ref: np.ndarray
    at: np.ndarray
    window: np.ndarray

    def found(self, score: float) -> bool:
        """The block's best NCC anywhere in its window reaches ``score`` (the window must hold it)."""
        if self.window.shape[0] < self.ref.shape[0] or self.window.shape[1] < self.ref.shape[1]:
            return False
        return float(cv2.matchTemplate(self.window, self.ref, cv2.TM_CCOEFF_NORMED).max()) >= score


def reach_pixels(reach_cards: float) -> int:
    """A block's search reach in card widths as pixels of the half-size face."""
    return int(round(reach_cards * CANON_W / 2))


def blocks(template: np.ndarray, face: np.ndarray, rows: int, cols: int, reach: int) -> Iterator[Block]:
    """A ``rows`` x ``cols`` grid over ``template`` (a reference's half-size grey template),
    each block with the face's pixels at its place and the face's window widened by
    ``reach`` pixels each side (the half-size face keeps half the alignment margin around
    the template's area: ``ALIGN_MARGIN // 2``)."""
    th, tw = template.shape[:2]
    off = ALIGN_MARGIN // 2
    for r in range(rows):
        for c in range(cols):
            y0, y1 = r * th // rows, (r + 1) * th // rows
            x0, x1 = c * tw // cols, (c + 1) * tw // cols
            ya, xa = max(0, y0 + off - reach), max(0, x0 + off - reach)
            yield Block((y0, y1, x0, x1), template[y0:y1, x0:x1], face[y0 + off:y1 + off, x0 + off:x1 + off],
                        face[ya:y1 + off + reach, xa:x1 + off + reach])


def block_match(look: Face, refs: References, i: int, params: "OcclusionParams") -> float:
    """The share of reference ``i``'s textured blocks (a grid over its half-size template)
    found in the face near their place, each by its own shift (NCC at least
    :attr:`OcclusionParams.block_score`): a misfit outline moves each block a little, a hand
    or a card's back leaves its blocks nowhere."""
    s0, s1 = look.shifted(refs, i)
    face = look.half_flipped if s1 > s0 else look.half
    found = textured = 0
    for b in blocks(refs.half_gray(i), face, params.rows, params.cols, reach_pixels(params.block_reach)):
        if float(b.ref.std()) < params.min_texture:
            continue  # plain paper: nothing to find
        textured += 1
        found += b.found(params.block_score)
    return found / textured if textured else 1.0



def occluded_measure(look: Face, refs: References, ranked: list | None = None,
                     params: "OcclusionParams | None" = None) -> float:
    """The best :func:`block_match` share over the codes a misfit face would be re-aligned
    onto first (the best :data:`REFINE_CODES` of ``ranked``; of the zero-shift look when
    None)."""
    params = params or OCCLUSION
    if ranked is None:
        z0, z1 = look.zero(refs)
        zero = np.maximum(z0, z1)
        best: dict[str, tuple[float, bool, int]] = {}
        for i, r in enumerate(refs.refs):
            if float(zero[i]) > best.get(r.code, (-2.0, False, -1))[0]:
                best[r.code] = (float(zero[i]), False, i)
        ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))
    return max(block_match(look, refs, v[2], params) for _, v in ranked[:REFINE_CODES])



@dataclass(frozen=True)
class OcclusionParams:
    """When a misfit face is not re-aligned at all because it is covered (a hand over the
    card, a card still face down), not misfit: ECC re-alignment is the card zone's largest cost.
    A misfit face has its reference's blocks each found nearby; a covered face has them nowhere.
    Cost: 12 small template searches per code tested, misfit faces only; a misfit face wrongly
    found covered is unread (a warning), never misread. Measured: docs/settings.md,
    ``OcclusionParams``."""

    #: the reference's blocks: this many rows ...
    rows: int = 4
    #: ... and columns (more: more template searches, CPU).
    cols: int = 3
    #: a block is found where its NCC over the face, shifted by up to :attr:`block_reach`
    #: card widths, reaches this. Higher: more misfit faces taken for covered (unread).
    block_score: float = 0.5
    #: ... the shift searched, in card widths. More: CPU, and a covered face's blocks found.
    block_reach: float = 0.15
    #: blocks plainer than this grey standard deviation (normalised paper = 1) are not counted
    min_texture: float = 0.05
    #: a face with less than this share of its textured blocks found is covered: not re-aligned,
    #: no card read. Higher: more CPU saved, more misfit cards left unread.
    share: float = 0.5

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if self.rows < 1 or self.cols < 1:
            raise ValueError("rows and cols must be >= 1")
        if not 0.0 <= self.share <= 1.0:
            raise ValueError(f"share must be in [0, 1], got {self.share}")



OCCLUSION = OcclusionParams()

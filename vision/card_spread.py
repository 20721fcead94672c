"""Several cards in one zone (a griddle row, a spread of cards in front of a player), each
read against the group's own deck references or said **unclear** (issue 34, item 4).

How: the card outlines of the zone (:func:`vision.card_recognise.outline_matches`: contours
of several binarisations, quadrilaterals or the rectangles of rounded corners; cards may
touch or overlap a little, a card whose outline is broken by its neighbour is found by
another binarisation), each rectified to the canonical face and compared with every
reference (NCC at 0 and 180 degrees, re-alignment, the look-alike second stage: the same
reading as IKATAKO's zones, :mod:`vision.cards`). One answer per card:

- ``read``: the reading accepted the code (its score and lead over every other code pass
  :data:`vision.card_references.MIN_SCORE` and ``MIN_MARGIN``, or the second stage told the
  look-alikes apart);
- ``unclear``: the reading found the card but could not say which it is: too close to
  another code (``why`` names both), covered (a hand, a sleeve: the reference's blocks are
  not found, :class:`vision.card_occlusion.OcclusionParams`), or its face fits the best code
  only partly (:attr:`SpreadParams.unclear_score`: glare, a finger, a sleeve's sheen).

Never another card: an unclear card gives no code. A card hidden so well that no outline of
it is left is not reported at all; a griddle's slots (one card each, :mod:`vision.griddle`)
say "unclear" for such a slot themselves.

Decision (the spec is silent): the spread's answer is sorted as :func:`recognise` sorts
(rows of 50 px, then left to right); an outline that overlaps a read card by half of the
smaller is that card (not a second, unclear one).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.card_match import Match
from vision.card_occlusion import blocks, reach_pixels
from vision.card_outlines import quad_overlap
from vision.card_recognise import keep_best, outline_matches, same_card
from vision.card_references import ALIGN_MARGIN, MIN_MARGIN, MIN_SCORE, Face, References


@dataclass(frozen=True)
class SpreadParams:
    """What makes a card-like outline an *unclear card* rather than no card at all."""

    #: an outline whose face is not read but whose best code's first-stage score reaches this
    #: is a card the reading could not read (covered, glare), said ``unclear``. Below it the
    #: outline is taken for no card (a table sliver, a card's back, a shadow). Chosen on the
    #: wmcnicho webcam photos in the six views of ``benchmarks/bench_turnbased_camera.py``:
    #: their outlines that are no card scored up to 0.397, so 0.42; on the eepong scenes (the
    #: reported figures) such outlines scored up to 0.322. Lower: more "unclear" for things
    #: that are no card; higher: a half-covered card goes unmentioned (never misread either way).
    unclear_score: float = 0.42
    #: the whole-face check of a read card (:func:`whole_fit`): the face and its code's
    #: reference are cut into this many rows ...
    rows: int = 6
    #: ... and columns of blocks (more: smaller blocks, a smaller cover found, more CPU)
    cols: int = 4
    #: a block of the face agrees with the reference's when, shifted by up to this many
    #: card widths, their NCC reaches :attr:`block_score` (both textured), or both are plain
    #: paper of the same colour (within :attr:`plain_tol`)
    block_reach: float = 0.08
    #: ... NCC of two textured blocks that agree (lower: a hand's edge may pass for a pip)
    block_score: float = 0.4
    #: ... a block plainer than this grey standard deviation (normalised paper = 1) is plain
    min_texture: float = 0.06
    #: ... plain blocks agree when their mean white-balanced colour differs by less than this
    #: in every channel (a skin-coloured hand over white paper: 0.3 in blue; grey alone
    #: differed by only 0.08, as the white balance lifts the hand; a real photo's shading
    #: 0.05-0.1)
    plain_tol: float = 0.18
    #: a read card is kept only when at least this share of its blocks agree with its code's
    #: reference; below, it is unclear ("covered"): a hand over half a 9 of spades left four
    #: corner pips that read as the 4 of spades at NCC 0.74 (share 0.67). Chosen on the
    #: wmcnicho photos: their clean cards' shares 0.88-1.0 in the six views (the eepong
    #: scenes': 0.96-1.0). Higher: more real cards unclear
    #: (shading, glare); lower: a covered card may be read as the code its visible part fits
    whole_share: float = 0.8

    def __post_init__(self) -> None:
        if not 0.0 <= self.unclear_score <= MIN_SCORE:
            raise ValueError(f"unclear_score must be in [0, {MIN_SCORE}] (MIN_SCORE), got {self.unclear_score}")
        if self.rows < 1 or self.cols < 1:
            raise ValueError("rows and cols must be >= 1")
        if not 0.0 <= self.whole_share <= 1.0:
            raise ValueError(f"whole_share must be in [0, 1], got {self.whole_share}")


SPREAD = SpreadParams()


@dataclass(frozen=True)
class SpreadCard:
    """One card of a zone: ``status`` ``read`` (``code`` is the card) or ``unclear`` (``code``
    is None; ``why`` says why, naming the close codes)."""

    status: str
    code: str | None
    quad: np.ndarray
    score: float
    why: str = ""

    @property
    def centre(self) -> tuple[float, float]:
        return float(self.quad[:, 0].mean()), float(self.quad[:, 1].mean())


def whole_fit(m: Match, refs: References, params: SpreadParams = SPREAD) -> float:
    """The share of a read face's blocks that agree with its code's best reference (see
    :class:`SpreadParams`): 1.0 for a clean card, low where a hand, a sleeve or another card
    covers part of it (the first stage compares the whole face at once, so a covered card
    may still lead on what is left of it)."""
    look = m.look if isinstance(m.look, Face) else None
    if look is None:
        return 1.0
    best, turned = -2.0, False
    ref_i = -1
    for i, r in enumerate(refs.refs):
        if r.code == m.code:
            s0, s1 = look.shifted(refs, i)
            if max(s0, s1) > best:
                best, turned, ref_i = max(s0, s1), s1 > s0, i
    face = look.half_flipped if turned else look.half
    colour_ref = refs.refs[ref_i].template  # normalised colour, full size (twice the half)
    colour_face = look.flipped if turned else look.cand
    off = ALIGN_MARGIN // 2
    agree = total = 0
    reach = max(1, reach_pixels(params.block_reach))
    for b in blocks(refs.half_gray(ref_i), face, params.rows, params.cols, reach):
        if b.at.shape != b.ref.shape:
            continue
        total += 1
        plain_ref, plain_face = float(b.ref.std()) < params.min_texture, float(b.at.std()) < params.min_texture
        if plain_ref and plain_face:  # the same paper: the same colour (a hand is skin-coloured)
            y0, y1, x0, x1 = b.place
            ref_bgr = colour_ref[y0 * 2:y1 * 2, x0 * 2:x1 * 2].reshape(-1, 3).mean(0)
            face_bgr = colour_face[(y0 + off) * 2:(y1 + off) * 2, (x0 + off) * 2:(x1 + off) * 2].reshape(-1, 3).mean(0)
            agree += float(np.abs(ref_bgr - face_bgr).max()) < params.plain_tol
        elif not plain_ref:
            agree += b.found(params.block_score)
    return agree / total if total else 1.0


def _unclear_why(m: Match) -> str:
    if m.covered:
        return f"covered (a hand or a sleeve?): its face is not found; best guess {m.runner_up}"
    if m.status == "uncertain":
        return f"too close to tell: {m.code} or {m.runner_up}"
    return f"its face fits no card well (best {m.code or m.runner_up} at {m.score:.2f}): covered or glare?"


def read_spread(image: np.ndarray, refs: References, box: tuple[int, int, int, int] | None = None,
                params: SpreadParams = SPREAD, *, min_score: float = MIN_SCORE,
                min_margin: float = MIN_MARGIN) -> list[SpreadCard]:
    """Every card of ``image`` (or of its ``box`` ``(x1, y1, x2, y2)``), read or unclear, in
    full-image pixels."""
    x1, y1 = (0, 0) if box is None else (max(0, int(box[0])), max(0, int(box[1])))
    crop = image if box is None else image[y1:int(box[3]), x1:int(box[2])]
    if crop.size == 0:
        raise ValueError(f"zone box {box} lies outside the {image.shape[1]}x{image.shape[0]} image")
    found = outline_matches(crop, refs, min_score, min_margin)
    kept = keep_best(crop, found, refs, min_score, min_margin)
    out = []
    for m in kept:
        share = whole_fit(m, refs, params) if m.status == "ok" else 0.0
        if m.status == "ok" and share >= params.whole_share:
            out.append(SpreadCard("read", m.code, m.quad, m.score))
        elif m.status == "ok":
            out.append(SpreadCard("unclear", None, m.quad, m.score,
                                  f"covered in part (a hand, a sleeve, glare?): {share:.0%} of it looks like {m.code}"))
        else:
            out.append(SpreadCard("unclear", None, m.quad, m.score, _unclear_why(m)))
    rest = [m for m in found if m.status == "none" and m.score >= params.unclear_score
            and all(quad_overlap(m.quad, k.quad) < 0.5 for k in kept)]
    for group in same_card(sorted(rest, key=lambda m: -m.score), key=lambda m: m.quad):
        m = group[0]
        out.append(SpreadCard("unclear", None, m.quad, m.score, _unclear_why(m)))
    shift = np.float32([x1, y1])
    out = [SpreadCard(c.status, c.code, (np.asarray(c.quad, np.float32) + shift), c.score, c.why) for c in out]
    out.sort(key=lambda c: (round(c.centre[1] / 50), c.centre[0]))
    return out


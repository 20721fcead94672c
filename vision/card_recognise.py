"""Every card in a still image: outlines, their first looks, one match per card
(:func:`recognise`; part of :mod:`vision.cards`)."""

from __future__ import annotations

from typing import Iterable

import cv2
import numpy as np

from vision.card_outlines import quad_overlap, find_card_outlines, image_aspect, search_scale, turned
from vision.card_references import ALIGN_MARGIN, MIN_MARGIN, MIN_SCORE, References, unit_vector, normalise, warp_card
from vision.card_realign import REFINE_FLOOR, REFINE_OUTLINES, is_misfit
from vision.card_match import Match, match_face

#: an outline whose image ratio is below this is warped both ways (either side may be the
#: card's long side: a card lying sideways, foreshortened, looks portrait) and the better
#: match is kept; above it the image's long side is the card's (it is only so stretched
#: when the long side lies across the line of sight). Cost: up to twice the matching
BOTH_WAYS_BELOW = 2.0



#: ... matching in full only the way whose zero-shift score is better, both when they are
#: within this of each other (the wrong way scored 0.16-0.18 on real cards, the right one
#: 0.4 and up; cost: the shift search of the wrong way is saved)
BOTH_WAYS_SPAN = 0.1
#: ... and not looked at the other way at all when the first way (the image's long side as
#: the card's) already scores this at zero shift: the same outline cannot be a card both
#: ways round (the wrong way scored 0.16-0.18 on real cards; a clean outline of the right
#: way 0.85-1.0, a misfit one 0.5 and up), and on a head-on zone every card outline is
#: below :data:`BOTH_WAYS_BELOW`, so every look was made twice. Cost: a card whose wrong
#: way scored this well would keep it (none measured); saves a warp, a white balance and a
#: zero-shift product per clear outline (the card zone's first looks 8.2 -> about 5 per analysis)
BOTH_WAYS_CLEAR = 0.7



#: outlines of one card (overlapping by half) matched in full, best first by the zero-shift
#: look (several binarisations give a card 3-10 near-identical outlines; cost per card:
#: this many shift searches)
OUTLINES_PER_CARD = 1



#: the first look's own first pass (:func:`zero_best`): the face and every reference taken at
#: every this-many-th pixel (rows and columns: a ninth of the values), the zero-shift NCC of
#: each reference either way round, and only the :data:`ZERO_SHORTLIST` best references
#: compared in full. Why: the full product against every reference (78 for a standard deck
#: with jokers, 84,018 values each) reads the whole matrix twice per outline and was half
#: of a TAKOYAKI card zone's CPU (3,325 looks over the demo). Larger: cheaper, the shortlist
#: a poorer guess
ZERO_COARSE_STEP = 3
#: ... the references compared in full after the first pass (the full score decides: the
#: best reference in the shortlist gives the same code, and its score within float rounding
#: (measured within 1e-5: a product over fewer rows may take another kernel path), as the
#: full product). More: CPU; fewer: the best reference of
#: an outline may be left out (its look then scores lower — only which outline of a card is
#: matched first can change, never what the card is read as: :func:`match_face` compares
#: the chosen face with every reference). On the TAKOYAKI and IKATAKO demos the best
#: reference was in the coarse pass's best 8 at every look
ZERO_SHORTLIST = 8



def zero_best(face: np.ndarray, refs: References) -> tuple[float, str]:
    """The best zero-shift NCC of a face against every reference at 0 and 180 degrees, and
    its code (the cheap first look; the paper's white taken from every 3rd pixel): a first
    pass at every :data:`ZERO_COARSE_STEP`-th pixel shortlists :data:`ZERO_SHORTLIST`
    references, whose full products decide."""
    cand = normalise(face, step=3)
    m = ALIGN_MARGIN
    inner = cand[m:-m, m:-m]
    turned = inner[::-1, ::-1]
    shortlist = None
    if len(refs.refs) > ZERO_SHORTLIST:
        st = ZERO_COARSE_STEP
        coarse = refs.coarse(st)
        rough = np.maximum(coarse @ unit_vector(inner[::st, ::st]), coarse @ unit_vector(turned[::st, ::st]))
        shortlist = np.sort(np.argpartition(-rough, ZERO_SHORTLIST - 1)[:ZERO_SHORTLIST])
    matrix = refs.matrix if shortlist is None else refs.matrix[shortlist]
    z = np.maximum(matrix @ unit_vector(inner), matrix @ unit_vector(turned))  # (the turned face: a copy in C order)
    i = int(np.argmax(z))
    i_ref = i if shortlist is None else int(shortlist[i])
    return float(z[i]), refs.refs[i_ref].code



def first_looks(image: np.ndarray, quads: list[np.ndarray], refs: References) -> list[tuple[float, str, np.ndarray, np.ndarray]]:
    """``(zero-shift score, code, quad, warped face)`` per outline and way round: an outline that could be
    a card either way (:data:`BOTH_WAYS_BELOW`) is looked at both ways and kept the better
    way, or both when they are within :data:`BOTH_WAYS_SPAN`."""
    out = []
    for q in quads:
        q = np.asarray(q, np.float32)
        f = warp_card(image, q)
        looks = [(*zero_best(f, refs), q, f)]
        if image_aspect(q) < BOTH_WAYS_BELOW and looks[0][0] < BOTH_WAYS_CLEAR:
            q2 = turned(q)
            f2 = warp_card(image, q2)
            looks.append((*zero_best(f2, refs), q2, f2))
            looks.sort(key=lambda x: -x[0])
            if looks[1][0] < looks[0][0] - BOTH_WAYS_SPAN:
                looks = looks[:1]
        out.extend(looks)
    return out



def same_card(looks: list, key=lambda x: x[2]) -> list[list]:
    """Group outlines (best first) that overlap by half of the smaller: one card each."""
    groups: list[list] = []
    for x in looks:
        for g in groups:
            if quad_overlap(key(x), key(g[0])) >= 0.5:
                g.append(x)
                break
        else:
            groups.append([x])
    return groups



def outline_matches(image: np.ndarray, refs: References, min_score: float = MIN_SCORE,
                    min_margin: float = MIN_MARGIN, *, every: bool = False,
                    area_range: tuple[float, float] | None = None,
                    aspect_range: tuple[float, float] | None = None) -> list[Match]:
    """Card outlines of ``image`` with their best first-stage match, ``none`` included, in
    full-image pixels: per card (overlapping outlines) the :data:`OUTLINES_PER_CARD` best by
    the cheap zero-shift look; with ``every``, every outline (what ``referee vision cards
    --debug`` draws). ``area_range``, ``aspect_range``: see :func:`find_card_outlines`."""
    scale = search_scale(image)
    if scale == 1.0:
        small = image
    else:
        small = cv2.resize(image, None, fx=scale, fy=scale,
                           interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
    # outlines on the searched image, faces warped from the image as it is
    quads = [(q / scale).astype(np.float32) for q in find_card_outlines(small, area_range=area_range,
                                                                        aspect_range=aspect_range)]
    looks = sorted(first_looks(image, quads, refs), key=lambda x: -x[0])
    out = []
    for g in same_card(looks):
        for x in (g if every else g[:OUTLINES_PER_CARD]):
            out.append(match_face(x[3], refs, min_score, min_margin, x[2], second_stage=False))
    return out



def recognise(image: np.ndarray, refs: References, min_score: float = MIN_SCORE,
              min_margin: float = MIN_MARGIN, *, refine: bool = True,
              area_range: tuple[float, float] | None = None,
              aspect_range: tuple[float, float] | None = None) -> list[Match]:
    """Every card in a still image: one :class:`Match` per card-like outline that looks like a
    reference (``ok`` or ``uncertain``); overlapping outlines keep their best match. Sorted
    top to bottom, left to right. ``refine`` False skips the ECC re-alignment of misfit
    outlines (:data:`REFINE_BELOW`; the walk-back, which only asks "is it this card").
    ``area_range``, ``aspect_range``: see :func:`find_card_outlines`."""
    return keep_best(image, outline_matches(image, refs, min_score, min_margin, area_range=area_range,
                                            aspect_range=aspect_range), refs,
                      min_score, min_margin, refine=refine)



def keep_best(image: np.ndarray, matches: list[Match], refs: References, min_score: float,
              min_margin: float, *, refine: bool = True) -> list[Match]:
    """One match per card: outlines that overlap (by half of the smaller) are one card and
    keep their best match; a card whose best outline is a misfit (:data:`REFINE_BELOW`) has
    its best :data:`REFINE_OUTLINES` outlines re-aligned first; the look-alike second stage
    runs only for the cards kept."""
    matches = sorted((m for m in matches if m.score >= min(REFINE_FLOOR, min_score)),
                     key=lambda m: (-m.score, m.margin))
    kept: list[Match] = []
    for c in same_card(matches, key=lambda m: m.quad):
        best = c[0]
        if refine and not best.refined and is_misfit(best.score, best.margin, min_margin):
            tries = [match_face(x.look if x.look is not None else warp_card(image, x.quad), refs, min_score,
                                min_margin, x.quad, second_stage=False, refine=True) for x in c[:REFINE_OUTLINES]]
            best = max(tries, key=lambda m: (m.status != "none", m.score, m.margin))
        if best.status == "uncertain":  # the second stage only for the outlines kept
            best = match_face(best.look if best.look is not None else warp_card(image, best.quad), refs, min_score,
                              min_margin, best.quad, refine=best.refined)
        if best.status != "none":
            kept.append(best)
    kept.sort(key=lambda m: (round(float(m.quad[:, 1].mean()) / 50), float(m.quad[:, 0].mean())))
    return kept



def codes_of(matches: Iterable[Match]) -> tuple[list[str], int]:
    """The accepted codes and the number of uncertain cards (the ``vision cards`` output)."""
    ms = list(matches)
    return [m.code for m in ms if m.status == "ok"], sum(1 for m in ms if m.status == "uncertain")

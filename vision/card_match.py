"""One face against every reference: the first stage, then re-alignment, ink and second
stage as needed (:func:`match_face`; part of :mod:`vision.cards`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from vision.card_references import MIN_MARGIN, MIN_SCORE, References, Face
from vision.card_ink import ink_contradicts, ink_settles
from vision.card_lookalikes import lookalike_tournament
from vision.card_realign import REFINE_BELOW, REFINE_GATE, REFINE_REALIGN, ink_settled, is_misfit, refined_ranking, seeded_ranking
from vision.card_occlusion import OCCLUSION, occluded_measure

#: references re-aligned by the shift search after the zero-shift comparison with all
#: (the rest keep their zero-shift score, a lower bound)
REALIGN_TOP = 3



@dataclass(frozen=True)
class Match:
    """What one card outline is: ``status`` ``ok`` (accepted), ``uncertain`` (look-alikes:
    ``code`` and ``runner_up`` too close) or ``none`` (no reference fits)."""

    code: str | None
    score: float
    margin: float
    status: str
    quad: np.ndarray = field(compare=False, repr=False)
    runner_up: str | None = None
    rotated: bool = False
    #: True when the code was decided by the second stage (:func:`separate`) among look-alikes
    separated: bool = False
    #: True when the scores are those of the ECC re-alignment (:data:`REFINE_BELOW`)
    refined: bool = False
    #: True when a misfit face was found covered and not re-aligned (:class:`OcclusionParams`)
    covered: bool = False
    #: True when a look-alike of another ink was told apart by the face's ink (:class:`InkParams`;
    #: the others, if any, by the second stage)
    inked: bool = False
    #: True when the face's ink is another code's, not the best code's (:class:`InkParams`)
    ink_contradicted: bool = False
    #: the normalised face and its scores (:class:`Face`), reused by a later stage
    look: object = field(default=None, compare=False, repr=False)



def match_face(face: np.ndarray | Face, refs: References, min_score: float = MIN_SCORE,
               min_margin: float = MIN_MARGIN, quad: np.ndarray | None = None, *,
               second_stage: bool = True, refine: bool = False) -> Match:
    """Compare one canonical face with every reference at 0° and 180°; codes within
    ``min_margin`` of the best go to the second stage (:func:`separate`) unless
    ``second_stage`` is False (then such a face is uncertain). With ``refine``, a face whose
    best code scores in [:data:`REFINE_FLOOR`, :data:`REFINE_BELOW`) is ranked by its ECC
    re-alignment onto its best codes' references (:func:`refined_ranking`)."""
    look = face if isinstance(face, Face) else Face(face)
    if quad is not None:
        look.quad = np.asarray(quad, np.float32)  # the outline it was warped through (SecondStageParams.seen_as_face)
    cand = look.cand
    # 1) zero-shift NCC against every reference at 0° and 180° (one matrix product) ...
    z0, z1 = look.zero(refs)
    zero = np.maximum(z0, z1)
    best: dict[str, tuple[float, bool, int]] = {}
    for i, r in enumerate(refs.refs):
        s, rot = (float(z0[i]), False) if z0[i] >= z1[i] else (float(z1[i]), True)
        if s > best.get(r.code, (-2.0, False, -1))[0]:
            best[r.code] = (s, rot, i)
    # 2) ... then re-align the top candidates by a shift search of up to ALIGN_MARGIN pixels
    order = np.argsort(-zero, kind="stable")
    _shift_search(look, refs, order[:REALIGN_TOP], best)
    ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))
    refined = False
    settled: set[str] = set()  # rivals told apart by the face's ink (InkParams)
    if refine and is_misfit(ranked[0][1][0], ranked[0][1][0] - (ranked[1][1][0] if len(ranked) > 1 else -1.0),
                            min_margin):
        if OCCLUSION.share > 0 and occluded_measure(look, refs, ranked) < OCCLUSION.share:
            # covered (a hand, a card's back): not re-aligned, no card read (OcclusionParams)
            code, (score, rot, _) = ranked[0]
            q = quad if quad is not None else np.zeros((4, 2), np.float32)
            return Match(None, score, score - (ranked[1][1][0] if len(ranked) > 1 else -1.0), "none", q, code, rot,
                         refined=True, covered=True, look=look)
        _shift_search(look, refs, order[REALIGN_TOP:REFINE_REALIGN], best)
        ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))
        first = dict(ranked)
        ranked, unresolved, done = refined_ranking(look, ranked, refs, min_margin, REFINE_GATE)
        refined = True
        ranked, doubt, unresolved, done = seeded_ranking(look, ranked, first, unresolved, done, refs, min_margin, REFINE_GATE)
        doubt, settled = ink_settled(look, ranked, first, doubt, unresolved, done, refs, min_margin, REFINE_GATE)
        code, (score, rot, _) = ranked[0]
        q = quad if quad is not None else np.zeros((4, 2), np.float32)
        if doubt and score >= min_score:
            # a close code could not be re-aligned, or one not re-aligned was close at the
            # first stage: its re-aligned score is unknown, so no lead is known. Uncertain
            # (a warning naming both) only when the face fits as well as a clean outline;
            # below that it is no card read (a hand over a card: the demo's ika at 22.9 s
            # scored 0.50 half covered)
            status = "uncertain" if score >= REFINE_BELOW else "none"
            return Match(code, score, 0.0, status, q, doubt[0], rot, refined=True, look=look)
    code, (score, rot, win_i) = ranked[0]
    second = ranked[1][1][0] if len(ranked) > 1 else -1.0
    runner = ranked[1][0] if len(ranked) > 1 else None
    margin = score - second
    q = quad if quad is not None else np.zeros((4, 2), np.float32)
    if score < min_score:
        return Match(None, score, margin, "none", q, code, rot, refined=refined, look=look)
    if margin < min_margin:
        # 3) look-alikes: rivals of another ink told apart by the face's ink (InkParams) ...
        close = [(c, v) for c, v in ranked if v[0] >= score - min_margin]
        inked = [(c, v) for c, v in close if c == code or not ink_settles(look, refs, win_i, c, score)]
        if len(inked) == 1:
            rest = [v[0] for c, v in ranked if c != code and all(c != k for k, _ in close)]
            return ink_checked(Match(code, score, score - max(rest, default=-1.0), "ok", q, close[1][0], rot,
                                     refined=refined, inked=True, look=look), refs, win_i, ranked)
        # ... the rest by a precise pairwise comparison where their references differ
        won = lookalike_tournament(look, inked, refs) if second_stage else None
        if won is None:
            return Match(code, score, margin, "uncertain", q, inked[1][0], rot, refined=refined, look=look)
        wcode, (wscore, wrot, wi) = inked[won]
        other = [c for c, _ in inked if c != wcode][0]
        return ink_checked(Match(wcode, wscore, wscore - max(v[0] for c, v in ranked if c != wcode), "ok", q, other,
                                 wrot, separated=True, refined=refined, inked=len(inked) < len(close) or bool(settled),
                                 look=look), refs, wi, ranked)
    return ink_checked(Match(code, score, margin, "ok", q, runner, rot, refined=refined, inked=bool(settled),
                             look=look), refs, win_i, ranked)



def _shift_search(look, refs: References, candidates, best: dict) -> None:
    """Re-align each candidate reference by a shift search (both ways round) and keep, per
    code, its best ``(score, turned, reference)`` in ``best``."""
    for i in candidates:
        r = refs.refs[int(i)]
        s0, s1 = look.shifted(refs, int(i))
        s, rot = (s0, False) if s0 >= s1 else (s1, True)
        if s > best[r.code][0]:
            best[r.code] = (s, rot, int(i))


def ink_checked(m: Match, refs: References, win_i: int, ranked: list) -> Match:
    """``m`` (accepted), or uncertain when the face's ink is another reference's ink, far
    from the winner's (:class:`InkParams`): the card's own code may be missing."""
    other = ink_contradicts(m.look, refs, win_i, ranked)
    if other is None:
        return m
    return replace(m, status="uncertain", runner_up=other, separated=False, inked=False, ink_contradicted=True)

"""The ECC re-alignment of a misfit face onto its best codes' references, and the gate that
keeps a re-aligned winner from being read against rivals not re-aligned (part of :mod:`vision.cards`)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.card_references import ALIGN_MARGIN, CANON_W, MIN_MARGIN, References, Face, gray, padded, unit_vector
from vision.card_ink import ink_settles

#: third stage for a *misfit* outline (a corner on a shadow, the edge of an oblique card lost
#: against a light table): when the best code scores below this, the face is re-aligned by
#: ECC (a full homography, sub-pixel) onto the references of its :data:`REFINE_CODES` best
#: codes and ranked by the re-aligned scores. Measured: clean outlines of the right code
#: score 0.85-1.0 and are left alone (no cost); on the real webcam cards tilted 30 degrees a
#: misfit outline gave 6S 0.65 ahead of the true 8C 0.52, re-aligned 8C 0.92 vs 6S 0.84.
#: Cost: about 5-10 ms per code re-aligned, only below this score
REFINE_BELOW = 0.85



#: ... and not below this (nothing like a card: not worth the cost)
REFINE_FLOOR = 0.3



#: codes re-aligned per outline: every code whose first-stage score is within this of the
#: best (a misfit face ranks the true code low: 8C 0.13 behind 6S above), at most
#: :data:`REFINE_CODES`; and outlines re-aligned per card (overlapping outlines of one card)
REFINE_SPAN = 0.2



REFINE_CODES = 4



#: references given the shift search before a misfit face is re-aligned (the zero-shift
#: score of a misfit face is a poor guide: the true 9S was 8th at zero shift, 0.46)
REFINE_REALIGN = 8



#: ECC iterations per re-alignment (on the half-size face; it converges in 10-30)
REFINE_ITERATIONS = 30



REFINE_OUTLINES = 1



#: a re-alignment that moves a corner of the face by more than this fraction of the card
#: width is rejected (it fitted the picture of another card, not this one's outline).
#: Measured: seen at 45-60 degrees the true code's re-alignment moved a corner by 0.15-0.16
#: of the width (the foreshortened outline is further off), so 0.15 (before) rejected it and
#: left its look-alike alone in the ranking; 0.25 (one value tried, not fitted): on the real
#: webcam deck turned 45 degrees 3/16 right instead of 1/16, 60 degrees 6 instead of 4, 0 wrong
REFINE_MAX_SHIFT = 0.25



@dataclass(frozen=True)
class RefineGateParams:
    """When an ECC re-aligned (misfit) face may be read at all (:func:`match_face` with
    ``refine``): the re-alignment can bend one card's picture onto another's, so its lead counts
    only against codes that were re-aligned too. Cost: one more ECC (about 3-5 ms) per code
    re-aligned, only for misfit faces; right answers become uncertain (a warning) where a code
    not re-aligned was close. What it read without these rules: docs/settings.md,
    ``RefineGateParams``."""

    #: the winner's look-alike partners (codes whose references match its reference at zero
    #: shift, either way up, at least this well) are re-aligned too. Lower: more ECCs (CPU).
    partner_score: float = 0.75
    #: ... at most this many of them. Fewer: less CPU, a look-alike may go unchecked.
    partners: int = 8
    #: a code close to the winner whose re-alignment failed leaves the card uncertain (its
    #: score is unknown). Off: such cards read, sometimes wrong.
    unresolved_uncertain: bool = True
    #: the winner must also lead every code *not* re-aligned by the margin at the first stage
    #: (such a code is assumed to gain as much from re-alignment as the winner did)
    lead_unrefined: bool = True
    #: codes within the margin of the winner at the first stage but not among those
    #: re-aligned are re-aligned too, at most this many per face (0: none; they then make
    #: the card uncertain by :attr:`lead_unrefined`). Cost: one ECC each.
    catch_up: int = 8
    #: a face uncertain between look-alikes at the first stage whose best score is below this
    #: is re-aligned too, for the second stage (:class:`SecondStageParams`). Cost: the ECC of its
    #: close codes, only for such faces.
    uncertain_below: float = 0.92
    #: a code that leaves the winner without a known lead is re-aligned once more, seeded from
    #: the winner's re-alignment; it only bounds rivals, never picks one. At most this many per
    #: face (0: none, the card stays uncertain). Cost: one ECC (3-5 ms) per code in doubt; with a
    #: card's own code missing from the references, a few more look-alikes read wrong.
    seeded: int = 32
    #: ... and only for a winner whose re-aligned face fits it at least this well (as
    #: :attr:`InkParams.min_fit`); below, the card stays uncertain. Cost: none (saves ECCs).
    seeded_min_fit: float = 0.95

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if not 0.0 < self.partner_score <= 1.0:
            raise ValueError(f"partner_score must be in (0, 1], got {self.partner_score}")
        if self.partners < 0:
            raise ValueError(f"partners must be >= 0, got {self.partners}")
        if self.seeded < 0:
            raise ValueError(f"seeded must be >= 0, got {self.seeded}")
        if not 0.0 <= self.seeded_min_fit <= 1.0:
            raise ValueError(f"seeded_min_fit must be in [0, 1], got {self.seeded_min_fit}")



REFINE_GATE = RefineGateParams()



def is_misfit(score: float, margin: float, min_margin: float) -> bool:
    """Whether a face is re-aligned by ECC: its best score is in [:data:`REFINE_FLOOR`,
    :data:`REFINE_BELOW`), or it is uncertain between look-alikes (lead below the margin)
    with a best score below :attr:`RefineGateParams.uncertain_below`."""
    if score < REFINE_FLOOR:
        return False
    return score < REFINE_BELOW or (margin < min_margin and score < REFINE_GATE.uncertain_below)



def realign_face(look: Face, refs: References, i: int,
                 seed: tuple[bool, np.ndarray] | None = None) -> tuple[float, bool] | None:
    """The score of the face after an ECC homography re-alignment onto reference ``i`` (at
    its better turn by the shift search) and that turn; None when the ECC fails or moves a
    corner more than :data:`REFINE_MAX_SHIFT` of the card width. ``seed`` (turn, homography
    of another reference's re-alignment) starts the ECC there, at that turn
    (:attr:`RefineGateParams.seeded`)."""
    refs.realigned += 1
    m = ALIGN_MARGIN
    t = refs.refs[i].template
    if seed is None:
        s0, s1 = look.shifted(refs, i)
        rot = s1 > s0
    else:
        rot = seed[0]
    face = look.flipped if rot else look.cand
    th, tw = t.shape[:2]
    init = np.float32([[1, 0, m], [0, 1, m], [0, 0, 1]])
    start = init if seed is None else seed[1]
    # ECC at half size (4x cheaper; the alignment is then scaled back to full size)
    half = np.diag([0.5, 0.5, 1.0]).astype(np.float32)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, REFINE_ITERATIONS, 1e-4)
    fg = cv2.resize(gray(face), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    try:
        _, wh = cv2.findTransformECC(refs.half_gray(i), fg, (half @ start @ np.linalg.inv(half)).astype(np.float32),
                                     cv2.MOTION_HOMOGRAPHY, crit, None, 3)
    except cv2.error:
        return None
    w = (np.linalg.inv(half) @ wh @ half).astype(np.float32)
    corners = np.float32([[0, 0], [tw, 0], [tw, th], [0, th]]).reshape(-1, 1, 2)
    moved = cv2.perspectiveTransform(corners, w) - cv2.perspectiveTransform(corners, init)
    if float(np.abs(moved).max()) > REFINE_MAX_SHIFT * CANON_W:
        return None
    aligned = cv2.warpPerspective(face, w, (tw, th), flags=cv2.INTER_LINEAR + cv2.WARP_INVERSE_MAP,
                                  borderMode=cv2.BORDER_REPLICATE)
    look.aligned[i] = (rot, padded(aligned))
    look.warps[i] = (rot, w)
    return float(unit_vector(aligned) @ refs.unit(i)), rot



def doubts(ranked: list, first: dict, unresolved: set[str], done: set[str], margin: float,
           gate: RefineGateParams) -> list[str]:
    """The codes that leave a re-aligned winner without a known lead: close codes whose
    re-alignment failed, else the best code not re-aligned when the winner did not lead it by
    the margin at the first stage (:class:`RefineGateParams`)."""
    code = ranked[0][0]
    doubt = sorted(c for c in unresolved if c != code) if gate.unresolved_uncertain else []
    if not doubt and gate.lead_unrefined:
        others = [c for c in first if c not in done]
        if others and first[code][0] - max(first[c][0] for c in others) < margin:
            doubt = [max(others, key=lambda c: (first[c][0], c))]
    return doubt



def outline_kind(source: str) -> str:
    """Which outline of a card a reference shows: its printed frame or the card."""
    return "inner" if "#inner" in source else "card"



def seeded_ranking(look: Face, ranked: list, first: dict, unresolved: set[str], done: set[str], refs: References,
                   margin: float, gate: RefineGateParams) -> tuple[list, list[str], set[str], set[str]]:
    """``ranked`` with the doubtful codes (:func:`doubts`) re-aligned by an ECC started from
    the winner's re-alignment (:attr:`RefineGateParams.seeded`), the codes still in doubt,
    and the codes unresolved and re-aligned then."""
    out = dict(ranked)
    unresolved, done = set(unresolved), set(done)
    tried: set[str] = set()
    for _ in range(gate.seeded):
        ranked = sorted(out.items(), key=lambda kv: (-kv[1][0], kv[0]))
        doubt = [c for c in doubts(ranked, first, unresolved, done, margin, gate) if c not in tried]
        win_i = ranked[0][1][2]
        if not doubt or win_i not in look.warps or ranked[0][1][0] < gate.seeded_min_fit:
            break
        c = doubt[0]
        tried.add(c)
        kind = outline_kind(refs.refs[win_i].source)
        same = [j for j, r in enumerate(refs.refs) if r.code == c and outline_kind(r.source) == kind]
        win_score = ranked[0][1][0]
        for j in same:  # the rival's reference of the same outline, seeded at the winner's warp
            got = realign_face(look, refs, j, seed=look.warps[win_i])
            if got is None:
                continue
            if got[0] >= win_score:
                # the rival fits the winner's geometry better than the winner: nothing is
                # resolved (it only bounds rivals, it never picks one)
                return sorted(out.items(), key=lambda kv: (-kv[1][0], kv[0])), [c], unresolved, done
            unresolved.discard(c)
            done.add(c)
            if got[0] > out[c][0]:
                out[c] = (got[0], got[1], j)
    ranked = sorted(out.items(), key=lambda kv: (-kv[1][0], kv[0]))
    return ranked, doubts(ranked, first, unresolved, done, margin, gate), unresolved, done



def ink_settled(look: Face, ranked: list, first: dict, doubt: list[str], unresolved: set[str],
                done: set[str], refs: References, margin: float, gate: RefineGateParams) -> tuple[list[str], set[str]]:
    """The doubt left once the rivals told apart from the winner by the face's ink
    (:class:`InkParams`) are no doubt any more (each settled code then counts as measured,
    so the next code in doubt is tested in turn), and the codes settled."""
    settled: set[str] = set()
    win_i = ranked[0][1][2]
    while doubt:
        if not all(ink_settles(look, refs, win_i, c, ranked[0][1][0]) for c in doubt):
            return [c for c in doubt if c not in settled], settled
        settled |= set(doubt)
        doubt = [c for c in doubts(ranked, first, unresolved - settled, done | settled, margin, gate)
                 if c not in settled]
    return doubt, settled



def refined_ranking(look: Face, ranked: list, refs: References, margin: float = MIN_MARGIN,
                    gate: RefineGateParams = REFINE_GATE) -> tuple[list, set[str], set[str]]:
    """``ranked`` with the :data:`REFINE_CODES` best codes (within :data:`REFINE_SPAN`) and
    the winner's look-alike partners (:class:`RefineGateParams`) scored again after an ECC
    homography re-alignment of the face onto each code's reference (the others keep their
    first-stage score). Also returns the codes whose re-alignment failed (*unresolved*: they
    keep their first-stage score) and the codes re-aligned."""
    out = dict(ranked)
    top = ranked[0][1][0]
    todo = [c for c, v in ranked if v[0] >= top - REFINE_SPAN][:REFINE_CODES]
    done: set[str] = set()
    unresolved: set[str] = set()
    partnered: set[str] = set()
    first = dict(ranked)
    extra = 0
    while todo:
        code = todo.pop(0)
        if code in done:
            continue
        done.add(code)
        s, rot, i = out[code]
        got = realign_face(look, refs, i)
        if got is None:
            unresolved.add(code)
        else:
            out[code] = (max(s, got[0]), got[1], i)
        if not todo:  # the winner so far: its look-alikes re-aligned too (once per winner)
            ok = [c for c in done if c not in unresolved]
            win = max(ok, key=lambda c: (out[c][0], c)) if ok else None
            if win is not None and win not in partnered:
                partnered.add(win)
                todo = [c for c in refs.partners(win, gate.partner_score)[:gate.partners] if c not in done and c in out]
            if not todo and win is not None and extra < gate.catch_up:
                # codes not re-aligned that were within the margin of the winner at the first
                # stage: re-aligned too, so the winner's lead is measured against them
                near = [c for c, v in ranked if c not in done and v[0] >= first[win][0] - margin]
                todo = near[:gate.catch_up - extra]
                extra += len(todo)
    return sorted(out.items(), key=lambda kv: (-kv[1][0], kv[0])), unresolved, done

"""The look-alike second stage: a face measured only where two references differ
(:func:`separate`), and the tournament among close codes (part of :mod:`vision.cards`)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.card_references import ALIGN_MARGIN, CANON_H, CANON_W, References, CANON_CORNERS, Face, gray, padded, warp_card

#: second stage (:func:`separate`) for codes within ``MIN_MARGIN`` of the best. The face is
#: re-aligned (ECC) onto the winner's and the other's reference and measured in units of the
#: two references' own difference; the winner must be at least 3x nearer to the face than to
#: the other reference, three ways, all bounded by this one fraction: along the pair's
#: difference (``alpha``: the face at most 1/3 of the way from the winner to the other),
#: across it (``residual``: what the pair leaves unexplained there -- a hand, glare, a card of
#: neither code), and elsewhere on the card (pixels where the face differs from the winner as
#: much as the references differ, per pixel of their difference region). One principle, not
#: fitted: measured on the 32 real cards against their 3 nearest other codes (96 pairs) the
#: right code had alpha -0.06..0.19, residual 0.01..0.28, elsewhere 0..0.27
SEPARATE_FRACTION = 1 / 3



#: pixels where the two re-aligned references differ by more than this fraction of the
#: reference's ink contrast (ink on one, paper on the other) form the difference region
DIFF_CONTRAST = 0.5



#: fewer difference pixels than this: the references are the same picture (Uzushio 6 vs 9
#: turned 180°), nothing tells them apart -> uncertain
MIN_DIFF_PIXELS = 20



def lookalike_tournament(look: Face, close: list, refs: References) -> int | None:
    """Index in ``close`` of the code that :func:`separate` prefers to every other close code,
    or None (no such code: uncertain). A face re-aligned by ECC onto the code's reference
    (a misfit outline, :data:`REFINE_BELOW`) is compared as re-aligned (see
    :attr:`SecondStageParams.use_aligned`). When no code wins and the face was warped from
    fewer pixels than the canonical size, the references are compared again as the camera
    saw the face (:attr:`SecondStageParams.seen_as_face`)."""
    won = tournament_rounds(look, close, refs, None)
    if won is None and SECOND_STAGE.seen_as_face and getattr(look, "quad", None) is not None:
        if max(undersampling(look.quad)) > SECOND_STAGE.min_undersampling:
            won = tournament_rounds(look, close, refs, look.quad)
    return won


def tournament_rounds(look: Face, close: list, refs: References, quad: np.ndarray | None) -> int | None:
    """:func:`lookalike_tournament`'s rounds, the references seen through ``quad`` (:func:`seen_through`)
    when it is given."""
    def template(i: int, rot: bool) -> np.ndarray:
        t = refs.refs[i].template
        if quad is not None:  # the reference as sampled through the outline, in the face's turn
            t = seen_through(t, np.roll(np.asarray(quad, np.float32), 2, axis=0) if rot else quad)
        return t

    for k, (ca, (_, ra, ia)) in enumerate(close):
        face = look.flipped if ra else look.cand
        if SECOND_STAGE.use_aligned and ia in look.aligned and look.aligned[ia][0] == ra:
            face = look.aligned[ia][1]
        ta = template(ia, ra)
        wins = True
        for j, (cb, (_, rb, ib)) in enumerate(close):
            if j == k:
                continue
            tb = refs.refs[ib].template
            if rb != ra:
                tb = np.ascontiguousarray(tb[::-1, ::-1])
            if quad is not None:
                tb = seen_through(tb, np.roll(np.asarray(quad, np.float32), 2, axis=0) if ra else quad)
            res = separate(face, ta, tb)
            if not separated(face, ta, tb, res, quad=getattr(look, "quad", None)):
                wins = False
                break
        if wins:
            return k
    return None


def undersampling(quad: np.ndarray) -> tuple[float, float]:
    """Canonical pixels per image pixel across and along the card (mean of opposite sides):
    above 1 the face was warped up from fewer pixels than it has."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    e = [float(np.linalg.norm(q[i] - q[(i + 1) % 4])) for i in range(4)]
    return CANON_W / max(1e-6, (e[0] + e[2]) / 2), CANON_H / max(1e-6, (e[1] + e[3]) / 2)


def seen_through(template: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """A reference template as the camera samples a card through the outline ``quad``: blurred
    by the pixel footprint (:attr:`SecondStageParams.antialias` x canonical pixels per image
    pixel, per axis), warped into the image at the quad and warped back like a face
    (:func:`~vision.card_references.warp_card`). A face seen at an angle is warped up from a
    few image pixels, so its pips and index are blurred; two look-alike references compared
    with it sharp leave it half-way between them (the real 5C at 45 degrees 0.32 of the way
    to the 4C), the same references blurred alike do not."""
    m = ALIGN_MARGIN
    canon = padded(template)
    sx, sy = undersampling(quad)
    k = SECOND_STAGE.antialias
    gx, gy = k * np.sqrt(max(sx * sx - 1.0, 0.0)), k * np.sqrt(max(sy * sy - 1.0, 0.0))
    if gx > 0 or gy > 0:
        canon = cv2.GaussianBlur(canon, (0, 0), sigmaX=max(gx, 1e-3), sigmaY=max(gy, 1e-3),
                                 borderType=cv2.BORDER_REPLICATE)
    q = np.asarray(quad, np.float32).reshape(4, 2)
    q = q - np.floor(q.min(axis=0))
    size = (int(np.ceil(q[:, 0].max())) + 2, int(np.ceil(q[:, 1].max())) + 2)
    seen = cv2.warpPerspective(canon, cv2.getPerspectiveTransform(CANON_CORNERS, q), size,
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    back = warp_card(seen, q)
    return np.ascontiguousarray(back[m:-m, m:-m])


def separated(face: np.ndarray, template_a: np.ndarray, template_b: np.ndarray,
              res: tuple[float, float, float] | None, params: "SecondStageParams | None" = None, *,
              quad: np.ndarray | None = None) -> bool:
    """Whether :func:`separate`'s ``res`` (the face measured in ``a``'s frame) puts the face
    at least 3x nearer ``a`` than ``b``; when only the residual fails, the pair is measured
    again in ``b``'s frame (:attr:`SecondStageParams.both_frames`); when that fails too and
    the face's outline ``quad`` is known, as the face was imaged
    (:attr:`SecondStageParams.matched_blur`)."""
    params = params or SECOND_STAGE
    f = SEPARATE_FRACTION
    if res is None:
        return False
    alpha, residual, elsewhere = res
    if max(abs(alpha), residual, elsewhere) <= f:
        return True
    if params.both_frames and abs(alpha) <= f and elsewhere <= f:
        back = separate(face, template_b, template_a)  # alpha now runs from b (0) to a (1)
        if back is not None and abs(1.0 - back[0]) <= f and back[1] <= f:
            return True
    if not params.matched_blur or quad is None:
        return False
    cap = footprint(quad, params)
    matched = separate_matched(face, template_a, template_b, cap)
    if matched is None or max(abs(matched[0]), matched[1], matched[2]) > f:
        return False
    back = separate_matched(face, template_b, template_a, cap)  # and both ways, as both_frames
    return back is not None and abs(1.0 - back[0]) <= f and back[1] <= f



@dataclass(frozen=True)
class SecondStageParams:
    """The look-alike second stage (:func:`separate`) on a face whose outline was a misfit: seen
    at an angle a card's outline is rarely exact, and two look-alike codes (spades and clubs,
    a pip more or less) are then told apart by the 3x nearness rule on faces aligned more
    carefully. Why each step and what it read on the real decks: docs/settings.md,
    ``SecondStageParams``."""

    #: compare the face as re-aligned onto each candidate's reference (ECC homography, kept from
    #: the refinement) rather than before it. Cost: none. Off: at an angle look-alikes stay uncertain.
    use_aligned: bool = True
    #: a face whose only failing measure is the residual off the pair's line is measured again
    #: in the other reference's frame. Cost: one more pair comparison (two affine ECCs, ~5-10 ms),
    #: only for such pairs.
    both_frames: bool = True
    #: a face no code wins, warped up from fewer image pixels than the canonical size, compared
    #: once more with both references seen as the face was (:func:`seen_through`). Off: with a
    #: card's own code missing it made wrong reads. Cost when on: warps and blurs per reference.
    seen_as_face: bool = False
    #: ... when warped up by more than this along either axis (canonical pixels per image pixel).
    min_undersampling: float = 1.2
    #: the pre-filter's sigma per canonical pixel per image pixel beyond 1 (the usual
    #: anti-aliasing footprint of a pixel: one value, not fitted)
    antialias: float = 0.5

    #: a pair no code wins on an undersampled face is measured once more as the face was
    #: imaged (:func:`separate_matched`): both references blurred alike to the face's own
    #: sharpness (capped by the pixel footprint) and each differing feature (a pip) placed by
    #: its own shift; the 3x rule must hold in both frames. More cards read, none wrong. Cost:
    #: one more pair comparison, up to 13 blurs and 289 shifts per feature, only for such pairs.
    matched_blur: bool = True
    #: the blur grid: 0 to this many canonical pixels (a card at 60 degrees has a 2-3 px
    #: footprint). More: more blurs tried (CPU).
    max_blur: float = 3.0
    #: ... in steps of this (a quarter pixel: finer than the ECC's own alignment error). Finer: CPU.
    blur_step: float = 0.25
    #: pixels within this of the difference region are not "where the references agree"
    #: for the blur estimate, and a placed feature moves with this margin (the reach of a
    #: blurred edge's misalignment: 2 px)
    misfit_reach: int = 2
    #: each whole feature the pair differs by (:func:`placed_in_frame`) is found in the face by its
    #: own shift of up to :attr:`place_shift` pixels
    place_features: bool = True
    #: ... the slack the first stage's shift search gives the whole face (``ALIGN_MARGIN``).
    #: More: more shifts searched (CPU), a pip may be placed on another.
    place_shift: int = ALIGN_MARGIN

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if not isinstance(self.matched_blur, bool):
            raise ValueError("matched_blur must be a bool")
        if not isinstance(self.place_features, bool):
            raise ValueError("place_features must be a bool")
        if self.max_blur < 0.0 or self.blur_step <= 0.0 or self.misfit_reach < 0 or self.place_shift < 0:
            raise ValueError("max_blur must be >= 0, blur_step > 0, misfit_reach and place_shift >= 0")
        if not isinstance(self.use_aligned, bool):
            raise ValueError("use_aligned must be a bool")
        if not isinstance(self.both_frames, bool):
            raise ValueError("both_frames must be a bool")
        if not isinstance(self.seen_as_face, bool):
            raise ValueError("seen_as_face must be a bool")
        if self.min_undersampling < 1.0 or self.antialias < 0.0:
            raise ValueError("min_undersampling must be >= 1 and antialias >= 0")



SECOND_STAGE = SecondStageParams()



def ecc(template: np.ndarray, image: np.ndarray, init: np.ndarray) -> np.ndarray | None:
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 100, 1e-5)
    try:
        _, w = cv2.findTransformECC(template, image, init.astype(np.float32).copy(), cv2.MOTION_AFFINE, crit, None, 5)
    except cv2.error:  # did not converge: no alignment, no decision
        return None
    return w



def standard(x: np.ndarray) -> np.ndarray:
    return (x - x.mean()) / (x.std() + 1e-6)



def separate(face: np.ndarray, template_a: np.ndarray, template_b: np.ndarray) -> tuple[float, float, float] | None:
    """Where is ``face`` between two look-alike references, in the pixels where they differ?

    Why: two faces that differ by one pip or a rank index differ in 1-3 % of the card, so
    their whole-card NCC scores differ by less than the noise of an imperfect outline (the
    real 6S led 7S by 0.05). Here the normalised face (full canonical size, turned as for
    ``a``) and reference ``b`` are each re-aligned onto ``a`` by ECC (affine, sub-pixel),
    brought to ``a``'s brightness and contrast on the pixels where the references agree, and
    compared only on the difference region D (pixels where ``a`` and ``b`` differ by more
    than :data:`DIFF_CONTRAST` of the ink contrast). The face is projected on the line from
    ``a`` to ``b`` there: ``alpha`` = 0 is exactly ``a``, 1 exactly ``b``; ``residual`` = what
    that line leaves unexplained, both in units of ``|b - a|`` on D. Scale-free: the pair's
    own difference is the unit, so a small difference is not drowned by the rest of the card.
    ``elsewhere`` = the pixels of the whole card where the face differs from ``a`` as much as
    the references differ, per pixel of D: a card of neither code (not in the references, or
    misread) that happens to agree with ``a`` on D still differs from it somewhere else.
    None when an alignment fails or D is empty (the same picture: nothing separates them).
    """
    aligned = ecc_aligned(face, template_a, template_b)
    if aligned is None:
        return None
    return pair_measures(*aligned)



def ecc_aligned(face: np.ndarray, template_a: np.ndarray, template_b: np.ndarray,
                pad: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(face, a, b)`` in grey, the face and ``b`` re-aligned onto ``a`` by ECC (affine); None
    when an alignment fails. With ``pad``, the face is warped onto ``a``'s frame widened by
    ``pad`` pixels on every side (so it can be shifted within it)."""
    g, a, b = gray(face), gray(template_a), gray(template_b)
    m = ALIGN_MARGIN
    wq = ecc(a, g, np.float32([[1, 0, m], [0, 1, m]]))
    wb = ecc(a, b, np.float32([[1, 0, 0], [0, 1, 0]]))
    if wq is None or wb is None:
        return None
    size = (a.shape[1], a.shape[0])
    flags = cv2.INTER_LINEAR + cv2.WARP_INVERSE_MAP
    if pad:
        wq = wq.copy()
        wq[:, 2] -= wq[:, :2] @ np.float32([pad, pad])
    qa = cv2.warpAffine(g, wq, (size[0] + 2 * pad, size[1] + 2 * pad), flags=flags, borderMode=cv2.BORDER_REPLICATE)
    ba = cv2.warpAffine(b, wb, size, flags=flags, borderMode=cv2.BORDER_REPLICATE)
    return qa, a, ba



def placed_in_frame(qp: np.ndarray, a: np.ndarray, ba: np.ndarray, pad: int) -> np.ndarray:
    """The face (``qp``: widened by ``pad``, :func:`ecc_aligned`) in ``a``'s frame, each *whole
    feature* the pair differs by re-placed by its own shift of up to ``pad`` pixels
    (:attr:`SecondStageParams.place_features`).

    A whole feature is a connected part of the difference region whose bounding box is at
    least ``2 pad + 1`` pixels on each side (a pip one card has and the other has not: no
    shift within ``pad`` moves it off its own place, so a face without it cannot find it
    nearby). Its shift is the one that leaves the least residual off the pair's line on its
    pixels: the face may be either reference there, the shift favours neither. Everything
    else keeps the card's one alignment."""
    h, w = a.shape
    out = np.ascontiguousarray(qp[pad:pad + h, pad:pad + w]).copy()
    sq, sb, sa = standard(qp), standard(ba), standard(a)
    contrast = float(np.percentile(sa, 95) - np.percentile(sa, 5))
    region = np.abs(sa - sb) > DIFF_CONTRAST * contrast
    agree = ~region
    inner = sq[pad:pad + h, pad:pad + w]
    if region.sum() < MIN_DIFF_PIXELS or agree.sum() < 100:
        return out
    gain, off = np.polyfit(inner[agree], sa[agree], 1)
    sq = sq * gain + off
    gain, off = np.polyfit(sb[agree], sa[agree], 1)
    sb = sb * gain + off
    region = np.abs(sa - sb) > DIFF_CONTRAST * contrast
    n, labels, stats, _ = cv2.connectedComponentsWithStats(region.astype(np.uint8), connectivity=8)
    side = 2 * pad + 1
    for c in range(1, n):
        x, y, bw, bh, _ = stats[c]
        if bw < side or bh < side:
            continue
        ys, xs = np.nonzero(labels == c)
        d = (sb - sa)[ys, xs]
        dd = float(d @ d)
        best = None
        for dy in range(-pad, pad + 1):
            for dx in range(-pad, pad + 1):
                e = sq[ys + pad + dy, xs + pad + dx] - sa[ys, xs]
                ed = float(e @ d)
                key = (float(e @ e) - ed * ed / dd, dx * dx + dy * dy)
                if best is None or key < best[0]:
                    best = (key, dx, dy)
        _, dx, dy = best
        # the feature's box and a margin of the misalignment's reach move together
        r = SECOND_STAGE.misfit_reach
        x0, y0 = max(x - r, 0), max(y - r, 0)
        x1, y1 = min(x + bw + r, w), min(y + bh + r, h)
        out[y0:y1, x0:x1] = qp[y0 + pad + dy:y1 + pad + dy, x0 + pad + dx:x1 + pad + dx]
    return out



def pair_measures(qa: np.ndarray, a: np.ndarray, ba: np.ndarray) -> tuple[float, float, float] | None:
    """:func:`separate`'s measures of the aligned face ``qa`` between ``a`` and ``ba``."""
    qa, ba, a = standard(qa), standard(ba), standard(a)
    contrast = float(np.percentile(a, 95) - np.percentile(a, 5))
    region = np.abs(a - ba) > DIFF_CONTRAST * contrast
    agree = ~region
    if region.sum() < MIN_DIFF_PIXELS or agree.sum() < 100:
        return None

    def to_a(x: np.ndarray) -> np.ndarray:  # gain and offset fitted where the references agree
        gain, off = np.polyfit(x[agree], a[agree], 1)
        return x * gain + off

    qa, ba = to_a(qa), to_a(ba)
    region = np.abs(a - ba) > DIFF_CONTRAST * contrast
    if region.sum() < MIN_DIFF_PIXELS:
        return None
    d = (ba - a)[region]
    e = (qa - a)[region]
    dd = float((d * d).sum())
    alpha = float((e * d).sum() / dd)
    residual = float(np.linalg.norm(e - alpha * d) / np.sqrt(dd))
    # anywhere on the card: pixels where the face itself differs from ``a`` as much (thin
    # lines along edges, left by sub-pixel misalignment, opened away), per pixel of D
    off = np.abs(qa - a) > DIFF_CONTRAST * contrast
    off = cv2.morphologyEx(off.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    elsewhere = float(off.sum()) / float(region.sum())
    return alpha, residual, elsewhere



def gaussian_blurred(x: np.ndarray, sigma: float) -> np.ndarray:
    if sigma <= 0:
        return x
    return cv2.GaussianBlur(x, (0, 0), sigmaX=sigma, sigmaY=sigma, borderType=cv2.BORDER_REPLICATE)



def footprint(quad: np.ndarray, params: "SecondStageParams | None" = None) -> float:
    """The blur (Gaussian sigma, canonical pixels) that the camera's pixel footprint through
    ``quad`` explains along the card's more undersampled axis (:func:`undersampling`,
    :attr:`SecondStageParams.antialias`); 0 for a face warped down."""
    params = params or SECOND_STAGE
    s = max(undersampling(quad))
    return params.antialias * float(np.sqrt(max(s * s - 1.0, 0.0)))



def face_blur(qa: np.ndarray, a: np.ndarray, ba: np.ndarray, max_blur: float) -> float:
    """How blurred the aligned face ``qa`` is against reference ``a``: the Gaussian sigma (in
    canonical pixels, on the grid of :attr:`SecondStageParams.blur_step` up to
    :attr:`SecondStageParams.max_blur`) at which ``a`` blurred correlates best with the face,
    on the pixels where ``a`` and ``ba`` agree (farther than
    :attr:`SecondStageParams.misfit_reach` from where they differ: the estimate is the same
    whichever of the two the face is), at most ``max_blur``. The smallest on a tie."""
    p = SECOND_STAGE
    sa, sb = standard(a), standard(ba)
    contrast = float(np.percentile(sa, 95) - np.percentile(sa, 5))
    region = (np.abs(sa - sb) > DIFF_CONTRAST * contrast).astype(np.uint8)
    r = p.misfit_reach
    agree = ~cv2.dilate(region, np.ones((2 * r + 1, 2 * r + 1), np.uint8)).astype(bool)
    y = qa[agree].astype(np.float64)
    if y.size < 100 or y.std() == 0:
        return 0.0
    y = (y - y.mean()) / y.std()
    best, best_fit = 0.0, -2.0
    for k in range(int(np.floor(min(max_blur, p.max_blur) / p.blur_step + 1e-9)) + 1):
        sigma = k * p.blur_step
        x = gaussian_blurred(a, sigma)[agree].astype(np.float64)
        x = (x - x.mean()) / (x.std() + 1e-9)
        fit = float(np.mean(x * y))
        if fit > best_fit + 1e-9:
            best, best_fit = sigma, fit
    return best



def separate_matched(face: np.ndarray, template_a: np.ndarray, template_b: np.ndarray,
                     max_blur: float) -> tuple[float, float, float] | None:
    """:func:`separate` as the face was imaged (:attr:`SecondStageParams.matched_blur`): both
    references blurred alike to the face's own sharpness (:func:`face_blur`, at most
    ``max_blur``), each whole feature they differ by placed in the face (:func:`placed_in_frame`)."""
    pad = SECOND_STAGE.place_shift if SECOND_STAGE.place_features else 0
    aligned = ecc_aligned(face, template_a, template_b, pad)
    if aligned is None:
        return None
    qp, a, ba = aligned
    h, w = a.shape
    sigma = face_blur(qp[pad:pad + h, pad:pad + w], a, ba, max_blur)
    a, ba = gaussian_blurred(a, sigma), gaussian_blurred(ba, sigma)
    qa = placed_in_frame(qp, a, ba, pad) if pad else qp
    return pair_measures(qa, a, ba)

"""Card recognition from references of the table's own deck, and timed ``card`` events.

Why this approach (research, re-measured by ``python -m vision.bench``): the decks are custom
and no public photos of them exist, so a card is recognised by comparing it with references
captured at calibration (each card shown once; ``CODE.jpg``, ``CODE_1.jpg``, ...).
Normalized cross-correlation (NCC) of the warped, white-balanced card against every reference
at 0° and 180° was right on 32/33 real cards with the same deck's references and never
wrong; SIFT/ORB were much worse on simple faces and 4–10× slower.

Pipeline for one image: find card outlines (contours of several binarisations; a quad by
polygon approximation or, for rounded corners, the minimum-area rectangle of a rectangular
contour; card aspect only) -> warp each to a canonical portrait size -> white-balance on the
card paper -> NCC against every reference at 0° and 180° with a small shift search (the
re-alignment) -> accept only when the best score passes :data:`MIN_SCORE` *and* beats the
best *other* code by :data:`MIN_MARGIN`. Codes within that margin of the best (look-alikes
that differ by one pip or a rank index: a few % of the card, less than the whole-card NCC
noise of an imperfect outline) go to a second stage (:func:`separate`): the face is
re-aligned by ECC onto each reference and measured only on the pixels where the two
references differ, in units of their own difference; a code wins only when the face is at
least 3x nearer to it than the other reference, along, across and outside that difference
(:data:`SEPARATE_FRACTION`). Otherwise the card is **uncertain** (IKATAKO's Uzushio 6 vs 9 =
the same picture turned 180°: no pixel differs, so nothing can tell them apart): reported as
uncertain, never guessed. Measured: the webcam deck's 6S (first-stage lead over 7S 0.051)
now right, 32/32 real cards; forced on every real card with its 4 nearest codes, 32/32 right
and on 104 re-photographed (rendered) eepong faces 103 right, 1 uncertain, 0 wrong.

At a real table (issue 14; ``benchmarks/bench_seeing.py`` measures it before/after): the
field is often seen at an angle and through a webcam's compression. Outlines are therefore
accepted at a wider image aspect (:data:`ASPECT_RANGE`; a foreshortened card is nearly
square), looked at both ways round when either side could be the long one
(:data:`BOTH_WAYS_BELOW`), fitted by their convex hull when rounded corners seen at an angle
are no rectangle, checked for sane corner angles, searched on small zones enlarged
(:data:`MIN_IMAGE_SIDE`), and a misfit outline is re-aligned by ECC onto its best codes'
references (:data:`REFINE_BELOW`). A zone that changed and settled without a card being read
gives a warning event (:data:`UNREAD_DIFF`), never silence. A wrong card is worse than an
unread one (which becomes a warning the judge handles), so at an angle three rules keep the
answers right or unread: a deck's references are made alike where some show only their
printed frame (:class:`FrameParams`), a re-aligned winner counts only against rivals
re-aligned too (:class:`RefineGateParams`), and the look-alike second stage compares the face
as re-aligned (:class:`SecondStageParams`). Measured in ``benchmarks/bench_seeing.py``: the
real webcam deck at 30-60 degrees from 1-3 wrong per view to 0, and 10-15 of 16 right.

In a video (:class:`CardZoneWatcher`) a card is confirmed after :data:`CONFIRM_FRAMES`
analysed frames, then its time is found by walking back a ring buffer of timestamped
frames to the first frame in which it was recognisable (online confirmation alone is
4–6 frames late: a hand is still on the card). A walked-back frame in which no outline
gives the card is also compared at the place where the card was recognised in the later
frame: in the rendered demo two cards were laid with the fingers over their top edge on a
pile of light cards, so no binarisation closed their outline for two frames although the
face was fully readable (both were 2 frames late; now all 10 demo cards are timed at their
true frame).

Decisions where the spec is silent: an uncertain card gives no ``card`` event but a warning
naming both candidates (``referee watch`` prints it), since the event needs one code; a
zone reports a card when its recognised top card *changes*, so the same code laid twice in
a row on one pile is reported once; ``conf`` is the NCC score and ``frame`` the index of the
first recognisable frame. Outlines come from contours only: the difference to the zone's
last stable image, with hands masked, is not built, since on every measured set it had
nothing left to fix (demo 10/10 and generated clips 12/12 at their true frame; the real
photos are stills, with no earlier image).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable

import cv2
import numpy as np

from session.errors import MediaError
from session.events import CardEvent, Event, WarningEvent

#: canonical card size after warping (portrait). Measured on the real decks: 100x150 left
#: 9/16 webcam cards uncertain (spade vs club pips too small), 150x225 3/16, 200x300 the same
#: at twice the cost
CANON_W, CANON_H = 150, 225
#: pixels trimmed from each side of a reference before matching: lets the match slide by up
#: to this much (re-alignment of an imperfect outline) and drops the card's edge
ALIGN_MARGIN = 8
#: references re-aligned by the shift search after the zero-shift comparison with all
#: (the rest keep their zero-shift score, a lower bound)
REALIGN_TOP = 3
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
#: lowest NCC score that counts as "this reference"; measured: right matches on real photos
#: of the same deck score 0.55-0.95, wrong ones and non-cards rarely above 0.45
MIN_SCORE = 0.5
#: lowest lead over the best *other* code; below it the card is uncertain (look-alikes).
#: Measured: right answers led by 0.02-0.3; the one wrong top code on the real sets led by 0.05
MIN_MARGIN = 0.06
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
#: reference pairs scoring above this against each other are warned about at calibration
LOOKALIKE_SCORE = 0.8
#: analysed frames in a row with the same accepted code before a card event (latency: this
#: many frames, recovered by the walk-back)
CONFIRM_FRAMES = 2
#: "a card came but could not be read": a zone whose picture (the 4x reduced, light-levelled
#: thumbnail of :data:`STILL_DIFF`) differs from the last picture it was accounted for in
#: (a card read, the start, or an earlier such warning) by more than this mean grey
#: difference, and has then been still for :data:`SETTLE_FRAMES` analysed frames without a
#: card being read there, gives a ``warning`` event (t = when the change began) instead of
#: silence: the judge then knows a card came. A card in a calibrated field covers a sixth
#: of it or more (the field is the cards' extent plus 0.35 card widths) and changes the
#: thumbnail by 15-40; a card shaking by a pixel or two with the camera by 3-8; a hand
#: passing and gone leaves nothing (the picture is as before)
UNREAD_DIFF = 12.0
#: ... "still" for that meaning: consecutive thumbnails differ by less than this mean grey
#: level (a card shaking by a pixel or two with the camera: 3-4; a hand moving over the
#: zone: 30 and more)
SETTLE_DIFF = 5.0
#: ... still for this many analysed frames (0.3 s at 30 fps: a thrown card has landed and
#: would have been read; latency of the warning only, its time is when the change began)
SETTLE_FRAMES = 9
#: frames kept for the walk-back (1.5 s at 30 fps); memory: frames x zone size
RING_FRAMES = 45
#: frames without a decision (a hand over the card) the walk-back may cross
WALK_GAP = 2
#: outlines are searched on images reduced to this longest side (phone photos of 1600 px
#: gave the same results at 1000 px, 2-3x faster); faces are still warped from the full image
MAX_IMAGE_SIDE = 1000
#: outlines are searched on images enlarged to at least this longest side: the blur,
#: dilation and thresholds below are in pixels, and on a small zone (the demo's field at
#: 640x360 is 140x105 px, its cards 35x50) the gap between two overlapping cards closes, so
#: a card on a pile had no outline of its own (640x360: 5 of 10 demo cards lost; enlarged,
#: 10/10). Faces are still warped from the image as it is. Cost: at most this size searched
MIN_IMAGE_SIDE = 480
#: card outline: accepted ratio long side / short side *in the image*. A card is 1.4-1.56
#: head-on, but seen at an angle one lying along the line of sight is foreshortened (at 45
#: degrees 1.4 x 0.7 = 1.0) and one lying across it stretched (1.4 / 0.7 = 2.0; at 60
#: degrees 2.8); before, (1.2, 1.9) gave real oblique photos no outline for such cards.
#: The far side of a view is squeezed more than its centre: the plane's depth scale there is
#: cos(tilt) x (distance to the centre / distance to the far edge), at 60 degrees with a 53
#: degree field of view 0.5 x 0.7 = 0.35, so a card lying across the line of sight at the far
#: edge is 1.4 / 0.35 = 4.0 (a phone photo turned 60 degrees: its farthest 2C at 3.4, which
#: 3.0 left without an outline). Cost: more thin outlines looked at (table slivers: their
#: faces match no reference)
ASPECT_RANGE = (1.0, 4.0)
#: the same for a card seen head-on (a reference shown flat at calibration): the range
#: before oblique views were handled, so references are cut out exactly as before
HEAD_ON_ASPECT_RANGE = (1.2, 1.9)
#: an outline whose image ratio is below this is warped both ways (either side may be the
#: card's long side: a card lying sideways, foreshortened, looks portrait) and the better
#: match is kept; above it the image's long side is the card's (it is only so stretched
#: when the long side lies across the line of sight). Cost: up to twice the matching
BOTH_WAYS_BELOW = 2.0
#: ... matching in full only the way whose zero-shift score is better, both when they are
#: within this of each other (the wrong way scored 0.16-0.18 on real cards, the right one
#: 0.4 and up; cost: the shift search of the wrong way is saved)
BOTH_WAYS_SPAN = 0.1
#: outlines of one card (overlapping by half) matched in full, best first by the zero-shift
#: look (several binarisations give a card 3-10 near-identical outlines; cost per card:
#: this many shift searches)
OUTLINES_PER_CARD = 1
#: convex-hull corner fit for outlines whose polygon has more than 4 corners (rounded
#: corners seen at an angle are no rectangle, so the minimum-area rectangle does not fit):
#: the hull is simplified at these fractions of its perimeter until it has 4 corners
HULL_EPSILONS = (0.02, 0.035, 0.05)
#: ... only for a contour that fills at least this much of its convex hull (a card, not a
#: hand or two overlapping cards) and has no other quad (cost: most contours skip the fit)
HULL_SOLIDITY = 0.85
#: card outline: every corner angle must lie within this range (degrees). A rectangle seen
#: at up to 60 degrees keeps its corners within about 40-140; a quad with a corner near 180
#: is a triangle with a spare point (a hull fit on a shadow), whose warp stretches a sliver
#: of table into a "card" (one scored 0.70 against 4C on green felt)
CORNER_RANGE = (35.0, 145.0)
#: card outline: accepted area as a fraction of the searched image. The smallest card is
#: the farthest of an oblique view: a phone photo (1000 px) of 8 cards turned 60 degrees
#: shows its farthest at 0.0032-0.0038 of the picture (about 45 x 20 px), which the bound of
#: head-on views (:data:`HEAD_ON_AREA_RANGE`) left without an outline. Cost: more small
#: outlines looked at (most texture blobs are smaller still); a face warped from so few pixels
#: reads less surely (uncertain rather than wrong: the gates of the reading hold)
AREA_RANGE = (0.002, 0.95)
#: ... for a card seen head-on (a reference at calibration): as before oblique views
HEAD_ON_AREA_RANGE = (0.004, 0.95)
#: ... in a card zone (:class:`CardZoneWatcher`): the zone is calibrated around the cards,
#: so a card covers a sixth of it or more and its printed frame a fifth of that (0.03); the
#: lower bound leaves 3x for a zone drawn larger by hand. What it drops is glyphs and pips
#: (demo video: 8.4 -> 7.7 outlines per search, none of them a card). Cost: none; saves
#: the looks at those outlines
ZONE_AREA_RANGE = (0.01, 0.95)
#: ... and the accepted image aspect in a card zone: the range before steep views (a zone's
#: cards are calibrated in place, seen as the camera sees them there), since there a card
#: sliding in or half under a hand or another card shows slivers of 3-4 : 1 (a generated
#: clip analysed every 3rd frame: a sliver at 4 : 1 timed a card one frame late)
ZONE_ASPECT_RANGE = (1.0, 3.0)


@dataclass(frozen=True)
class OutlineParams:
    """Outlines for cards the four binarisations of head-on views miss (issue 14): cards on a
    light coloured table and cards whose edge line is broken, both common at an angle.

    Why: on green felt the light felt around a card merges with it in every grey-level mask
    (a phone photo turned 45 degrees: its JS outlined with a strip of felt, 0.22 against every
    reference), while card paper is white and felt, wood and cloth are coloured: the darkest
    of the three colour channels (:attr:`paper`) separates them. And a card seen at an angle
    through a webcam's compression loses a stretch of its edge (the white-on-white webcam deck
    turned 45 degrees, 640 px JPEG 40: 9C and 7S had no outline at all: the Canny line of the
    card's edge open at one gap, the adaptive mask's card notched into its hollow frame), so
    its contour does not fill its convex hull (the hull fit's :data:`HULL_SOLIDITY`) though
    the hull *is* the card: such a contour's hull is simplified to 4 corners
    (:data:`HULL_EPSILONS`) and accepted when the contour follows the quad's sides
    (:attr:`support`), which two overlapping cards (a cut corner: one side unfollowed), a hand
    on a card or a patch of texture (a jagged contour inside its hull) do not.
    Both only add outlines to those found before (references are cut out as before:
    ``oblique`` False uses neither)."""

    #: a fifth mask: Otsu's threshold on the darkest colour channel, blurred as the others
    #: (cost: one more threshold and contour pass, about 1/5 of the search; its outlines
    #: that repeat another's within 3 px are dropped as duplicates)
    paper: bool = True
    #: fraction of each side of the hull's quad that must lie within :attr:`tolerance` of
    #: the contour (rounded corners leave about 10 % of a side unfollowed; a gap in a
    #: compressed edge 10-30 %; an overlapping card's cut corner, a hand or texture leave a
    #: side mostly unfollowed). 0 turns the support fit off. Cost: a hull and a small drawing
    #: per contour of card size that gave no quad
    support: float = 0.7
    #: ... within this fraction of the quad's short side (at least :attr:`tolerance_px`): the
    #: outer contour of a dilated edge line lies 1-2 px outside the edge
    tolerance: float = 0.04
    tolerance_px: float = 2.0
    #: a support fit is kept only where no outline of the masks is alike (each covering at
    #: least this share of the other): it is for cards with no outline of their own, and
    #: beside one it only adds a looser guess (the demo at 640x360, crf 35: a fit displaced
    #: the ika card's outline, the card then uncertain and 14 frames late). A printed frame
    #: or a glyph inside the card, or the table's edge around it, is not alike. Cost: none
    #: (saves looks)
    covered: float = 0.5

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if not 0.0 <= self.support <= 1.0:
            raise ValueError(f"support must be in [0, 1], got {self.support}")
        if not 0.0 <= self.tolerance < 0.5:
            raise ValueError(f"tolerance must be in [0, 0.5), got {self.tolerance}")
        if not 0.0 < self.covered <= 1.0:
            raise ValueError(f"covered must be in (0, 1], got {self.covered}")
        if self.tolerance_px < 0:
            raise ValueError(f"tolerance_px must be >= 0, got {self.tolerance_px}")


OUTLINES = OutlineParams()

#: a zone whose mean absolute change since the last analysis (grey levels, on a 4x
#: reduced image scaled to mean 128, so that a light change alone does not count) is below
#: this is not re-analysed (saves most of the cost between cards)
STILL_DIFF = 1.5

_REF_NAME = re.compile(r"^(?P<code>[^_]+?)(?:_\d+)?$")
_IMAGE_EXT = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}


# --- geometry ----------------------------------------------------------------------------

def order_quad(pts: np.ndarray) -> np.ndarray:
    """Corners as TL, TR, BR, BL of a *portrait* card (long side vertical in the warp)."""
    pts = np.asarray(pts, np.float32).reshape(4, 2)
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # clockwise in image coordinates (y down), starting near -pi
    # start at the corner closest to top-left
    start = int(np.argmin(pts[:, 0] + pts[:, 1]))
    pts = np.roll(pts, -start, axis=0)
    top = np.linalg.norm(pts[1] - pts[0]) + np.linalg.norm(pts[2] - pts[3])
    side = np.linalg.norm(pts[3] - pts[0]) + np.linalg.norm(pts[2] - pts[1])
    if top > side:  # landscape: turn so that the long side is vertical
        pts = np.roll(pts, -1, axis=0)
    return pts


def _quad_ok(quad: np.ndarray, img_area: float, aspect: tuple[float, float] = ASPECT_RANGE,
             area_range: tuple[float, float] = AREA_RANGE) -> bool:
    area = cv2.contourArea(quad.astype(np.float32))
    if not area_range[0] * img_area <= area <= area_range[1] * img_area:
        return False
    if not cv2.isContourConvex(quad.astype(np.int32).reshape(-1, 1, 2)):
        return False
    if not all(CORNER_RANGE[0] <= a <= CORNER_RANGE[1] for a in corner_angles(quad)):
        return False
    e = [np.linalg.norm(quad[i] - quad[(i + 1) % 4]) for i in range(4)]
    short, long_ = (e[0] + e[2]) / 2, (e[1] + e[3]) / 2
    if short > long_:
        short, long_ = long_, short
    return short > 8 and aspect[0] <= long_ / short <= aspect[1]


def corner_angles(quad: np.ndarray) -> list[float]:
    """The four corner angles of a quad, in degrees."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    out = []
    for i in range(4):
        u, v = q[i - 1] - q[i], q[(i + 1) % 4] - q[i]
        c = float(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v) + 1e-9))
        out.append(float(np.degrees(np.arccos(max(-1.0, min(1.0, c))))))
    return out


def image_aspect(quad: np.ndarray) -> float:
    """Long side over short side of a quad in the image (mean of opposite sides), >= 1."""
    e = [float(np.linalg.norm(quad[i] - quad[(i + 1) % 4])) for i in range(4)]
    a, b = (e[0] + e[2]) / 2, (e[1] + e[3]) / 2
    return max(a, b) / max(1e-6, min(a, b))


def turned(quad: np.ndarray) -> np.ndarray:
    """The same outline with the other pair of sides taken as the card's long sides."""
    return np.roll(np.asarray(quad, np.float32), -1, axis=0)


def _refine(quad: np.ndarray, gray: np.ndarray) -> np.ndarray:
    """Sub-pixel corner refinement near each corner (edge-line fitting stand-in)."""
    try:
        pts = quad.reshape(-1, 1, 2).astype(np.float32).copy()
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05)
        cv2.cornerSubPix(gray, pts, (3, 3), (-1, -1), crit)
        refined = pts.reshape(4, 2)
        if np.max(np.abs(refined - quad)) < 4:
            return refined
    except cv2.error:
        pass
    return quad


def find_card_outlines(image: np.ndarray, *, oblique: bool = True, params: OutlineParams | None = None,
                       area_range: tuple[float, float] | None = None,
                       aspect_range: tuple[float, float] | None = None) -> list[np.ndarray]:
    """Candidate card quads (TL, TR, BR, BL portrait order, float32) in a BGR image.

    Several binarisations are tried (Otsu both ways, adaptive threshold, Canny edges, and for
    oblique views of a colour image the paper mask of :class:`OutlineParams`), since cards on
    a light surface lose their outline in some of them; overlapping duplicates are all kept:
    the recogniser keeps the best-matching one. ``oblique`` False: head-on cards only
    (:data:`HEAD_ON_ASPECT_RANGE`, :data:`HEAD_ON_AREA_RANGE`, no hull fit, no paper mask;
    references). ``area_range`` and ``aspect_range`` override the accepted area and aspect
    (a card zone: :data:`ZONE_AREA_RANGE`, :data:`ZONE_ASPECT_RANGE`).
    """
    params = OUTLINES if params is None else params
    aspect = aspect_range or (ASPECT_RANGE if oblique else HEAD_ON_ASPECT_RANGE)
    if area_range is None:
        area_range = AREA_RANGE if oblique else HEAD_ON_AREA_RANGE
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    h, w = gray.shape
    img_area = float(h * w)
    min_area = area_range[0] * img_area
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    masks = []
    _, otsu = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    masks.append(otsu)
    masks.append(255 - otsu)
    block = max(15, (min(h, w) // 8) | 1)
    masks.append(cv2.adaptiveThreshold(blur, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -4))
    edges = cv2.Canny(blur, 30, 90)
    masks.append(cv2.dilate(edges, np.ones((3, 3), np.uint8)))
    if oblique and params.paper and image.ndim == 3:
        masks.append(_paper_mask(image))
    support = params.support if oblique else 0.0
    base: list[np.ndarray] = []  # the outlines of the four masks of head-on views
    extra: list[np.ndarray] = []  # the paper mask's
    fits: list[np.ndarray] = []  # the support fit's: only where no other outline lies
    for k, m in enumerate(masks):
        quads = base if k < 4 else extra
        contours, _ = cv2.findContours(m, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            area = cv2.contourArea(c)
            if area < min_area:
                # an outline open at a gap, or notched into a hollow card, has little area
                # of its own: only its hull can be the card
                if support > 0 and _box_area(c) >= min_area:
                    fits.extend(_supported_hull_quads(c, img_area, aspect, area_range, params))
                continue
            peri = cv2.arcLength(c, True)
            approx = cv2.approxPolyDP(c, 0.02 * peri, True)
            found = []
            if len(approx) == 4:
                found.append(approx.reshape(4, 2).astype(np.float32))
            rect = cv2.minAreaRect(c)
            rw, rh = rect[1]
            if rw * rh > 0 and area / (rw * rh) >= 0.88:
                found.append(cv2.boxPoints(rect).astype(np.float32))
            hull_tried = False
            if oblique and len(approx) > 4 and not found:
                hull = cv2.convexHull(c)
                if area >= HULL_SOLIDITY * cv2.contourArea(hull):  # the contour fills its hull: one card
                    hull_tried = True
                    hperi = cv2.arcLength(hull, True)
                    for eps in HULL_EPSILONS:
                        h4 = cv2.approxPolyDP(hull, eps * hperi, True)
                        if len(h4) == 4:
                            found.append(h4.reshape(4, 2).astype(np.float32))
                            break
            ok = False
            for q in found:
                q = order_quad(q)
                if _quad_ok(q, img_area, aspect, area_range):
                    quads.append(q)
                    ok = True
            if support > 0 and not ok and not hull_tried and _box_area(c) > 0:
                fits.extend(_supported_hull_quads(c, img_area, aspect, area_range, params))
    # drop exact-ish duplicates (same corners within 3 px); the extras after the others
    unique = _distinct(base)
    unique += [q for q in _distinct(extra) if not _repeats(q, unique)]
    found = list(unique)
    unique += [q for q in _distinct(fits)
               if not any(min(_covered(q, u), _covered(u, q)) >= params.covered for u in found)]
    return [_refine(q, blur) for q in unique]


def _covered(q: np.ndarray, other: np.ndarray) -> float:
    """The share of quad ``q``'s area that ``other`` covers."""
    inter, _ = cv2.intersectConvexConvex(q.astype(np.float32), other.astype(np.float32))
    a = cv2.contourArea(q)
    return float(inter / a) if a > 0 else 0.0


def _repeats(q: np.ndarray, others: list[np.ndarray]) -> bool:
    """``q`` has its corners within 3 px of one of ``others``."""
    return any(np.max(np.abs(q - u)) < 3 for u in others)


def _distinct(quads: list[np.ndarray]) -> list[np.ndarray]:
    """The quads less those repeating an earlier one (:func:`_repeats`)."""
    unique: list[np.ndarray] = []
    for q in quads:
        if not _repeats(q, unique):
            unique.append(q)
    return unique


def _paper_mask(image: np.ndarray) -> np.ndarray:
    """Card paper against a coloured table: Otsu's threshold on the darkest colour channel
    (white paper is bright in all three, felt, wood and cloth are dark in at least one)."""
    b, g, r = cv2.split(image)
    darkest = cv2.GaussianBlur(cv2.min(cv2.min(b, g), r), (5, 5), 0)
    return cv2.threshold(darkest, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]


def _box_area(contour: np.ndarray) -> float:
    """The contour's bounding-box area, 0 when a side is too short for a card (8 px, as
    :func:`_quad_ok`): a cheap bound before the hull."""
    _, _, bw, bh = cv2.boundingRect(contour)
    return float(bw * bh) if min(bw, bh) > 8 else 0.0


def _supported_hull_quads(contour: np.ndarray, img_area: float, aspect: tuple[float, float],
                          area_range: tuple[float, float], params: OutlineParams) -> list[np.ndarray]:
    """The contour's convex hull simplified to 4 corners (:data:`HULL_EPSILONS`), when it is
    card-like and the contour follows each of its sides (:attr:`OutlineParams.support`)."""
    hull = cv2.convexHull(contour)
    if cv2.contourArea(hull) < area_range[0] * img_area:
        return []
    hperi = cv2.arcLength(hull, True)
    for eps in HULL_EPSILONS:
        h4 = cv2.approxPolyDP(hull, eps * hperi, True)
        if len(h4) == 4:
            q = order_quad(h4.reshape(4, 2).astype(np.float32))
            if _quad_ok(q, img_area, aspect, area_range) and side_support(q, contour, params) >= params.support:
                return [q]
            return []
    return []


def side_support(quad: np.ndarray, contour: np.ndarray, params: OutlineParams = OUTLINES) -> float:
    """The smallest fraction, over the quad's four sides, of points along the side that lie
    within the tolerance of :class:`OutlineParams` of the contour (1 = every side followed)."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    e = [float(np.linalg.norm(q[i] - q[(i + 1) % 4])) for i in range(4)]
    tol = max(params.tolerance_px, params.tolerance * min((e[0] + e[2]) / 2, (e[1] + e[3]) / 2))
    pad = int(np.ceil(tol)) + 2
    x0, y0 = np.floor(q.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(q.max(axis=0)).astype(int) + pad
    canvas = np.zeros((y1 - y0 + 1, x1 - x0 + 1), np.uint8)
    pts = contour.reshape(-1, 1, 2).astype(np.int32) - np.int32([x0, y0])
    cv2.polylines(canvas, [pts], True, 255, thickness=max(1, int(round(2 * tol + 1))))
    worst = 1.0
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        n = max(8, int(e[i]))
        t = (np.arange(n) + 0.5) / n
        p = np.rint(a + (b - a) * t[:, None] - np.float32([x0, y0])).astype(int)
        p[:, 0] = np.clip(p[:, 0], 0, canvas.shape[1] - 1)
        p[:, 1] = np.clip(p[:, 1], 0, canvas.shape[0] - 1)
        worst = min(worst, float(np.mean(canvas[p[:, 1], p[:, 0]] > 0)))
    return worst


def warp_card(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card inside ``quad`` warped to the canonical portrait size."""
    dst = np.float32([[0, 0], [CANON_W - 1, 0], [CANON_W - 1, CANON_H - 1], [0, CANON_H - 1]])
    m = cv2.getPerspectiveTransform(np.float32(quad), dst)
    return cv2.warpPerspective(image, m, (CANON_W, CANON_H), flags=cv2.INTER_AREA)


def normalise(card: np.ndarray, *, step: int = 1) -> np.ndarray:
    """White-balance on the card paper (each channel's 90th percentile -> white), light blur;
    float32 in [0, 1]. Removes the light's colour and brightness before NCC."""
    if card.ndim == 2:
        card = cv2.cvtColor(card, cv2.COLOR_GRAY2BGR)
    f = card.astype(np.float32)
    inner = f[ALIGN_MARGIN:-ALIGN_MARGIN:step, ALIGN_MARGIN:-ALIGN_MARGIN:step].reshape(-1, 3)
    white = np.percentile(inner, 90, axis=0)
    f = f / np.maximum(white, 1.0)
    f = np.clip(f, 0, 1.2)
    return cv2.GaussianBlur(f.astype(np.float32), (3, 3), 0)


# --- references --------------------------------------------------------------------------

@dataclass(frozen=True)
class Reference:
    code: str
    source: str
    template: np.ndarray  # normalised canonical image, margin trimmed


class References:
    """The deck's reference faces, loaded from a folder (``CODE.jpg``, ``CODE_1.jpg``)."""

    def __init__(self, refs: list[Reference]):
        if not refs:
            raise MediaError("no card references")
        self.refs = refs
        self.codes = sorted({r.code for r in refs})
        self.matrix = np.stack([_unit(r.template) for r in refs])  # zero-shift NCC in one product
        self._half: dict[int, np.ndarray] = {}
        self._partners: dict[tuple[str, float], list[str]] = {}
        self._ink: dict[int, np.ndarray | None] = {}  # each reference's ink colour (InkParams)

    def unit(self, i: int) -> np.ndarray:
        """Reference ``i``'s template as a unit vector (a row of the zero-shift matrix)."""
        return self.matrix[i]

    def half_gray(self, i: int) -> np.ndarray:
        """Reference ``i``'s template in grey at half size (the ECC re-alignment's target),
        made once per deck."""
        if i not in self._half:
            self._half[i] = cv2.resize(_gray(self.refs[i].template), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        return self._half[i]

    def partners(self, code: str, score: float) -> list[str]:
        """Other codes whose references match one of ``code``'s at zero shift, either way up,
        at least ``score`` well, the closest first (made once per deck and score)."""
        key = (code, score)
        if key not in self._partners:
            mine = [i for i, r in enumerate(self.refs) if r.code == code]
            sim = self.matrix[mine] @ self.matrix.T
            flipped = np.stack([_unit(np.ascontiguousarray(r.template[::-1, ::-1])) for r in self.refs])
            sim = np.maximum(sim, self.matrix[mine] @ flipped.T).max(axis=0)
            best: dict[str, float] = {}
            for i, r in enumerate(self.refs):
                if r.code != code and sim[i] >= score:
                    best[r.code] = max(best.get(r.code, -1.0), float(sim[i]))
            self._partners[key] = sorted(best, key=lambda c: (-best[c], c))
        return self._partners[key]

    @staticmethod
    def from_images(images: dict[str, np.ndarray], *, find_outline: bool = True) -> "References":
        """References from ``{name: BGR image}`` (name = ``CODE`` or ``CODE_N``). Each image
        shows one card alone (the largest card outline is used) or is a scan of the face
        (no outline found, or ``find_outline`` False: the whole image)."""
        found = {name: (images[name], *(reference_quads(images[name]) if find_outline else (None, None)))
                 for name in sorted(images)}
        refs = []
        for name, faces in _consistent_faces(found).items():
            m = _REF_NAME.match(name)
            code = m.group("code") if m else name
            for source, face in faces:
                refs.append(Reference(code, source, _template(face)))
        return References(refs)

    @staticmethod
    def from_folder(folder: str | Path) -> "References":
        folder = Path(folder)
        if not folder.is_dir():
            raise MediaError(f"reference folder {folder} not found")
        images = {}
        for p in sorted(folder.iterdir()):
            if p.suffix.lower() not in _IMAGE_EXT:
                continue
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if img is None:
                raise MediaError(f"reference image {p} is unreadable")
            images[p.stem] = img
        if not images:
            raise MediaError(f"reference folder {folder} holds no images (CODE.jpg, CODE_1.png, ...)")
        return References.from_images(images)

    def lookalikes(self, threshold: float = LOOKALIKE_SCORE) -> list[tuple[str, str, float]]:
        """Pairs of different codes whose references match each other at 0° or 180° above
        ``threshold``: the calibration warns about them (they may come out uncertain)."""
        out = []
        for i, a in enumerate(self.refs):
            full = _pad(a.template)
            for b in self.refs[i + 1:]:
                if a.code == b.code:
                    continue
                s = max(_ncc(full, b.template), _ncc(full[::-1, ::-1].copy(), b.template))
                if s >= threshold:
                    out.append((a.code, b.code, round(float(s), 3)))
        best: dict[tuple[str, str], float] = {}
        for a, b, s in out:
            key = (min(a, b), max(a, b))
            best[key] = max(best.get(key, 0.0), s)
        return sorted((a, b, s) for (a, b), s in best.items())


def squareness(q: np.ndarray) -> float:
    """1 for a rectangle, less as corners leave 90° (a wrong corner on a shadow)."""
    worst = 0.0
    for i in range(4):
        a, b, c = q[i - 1], q[i], q[(i + 1) % 4]
        u, v = a - b, c - b
        cos = abs(float(np.dot(u, v)) / (np.linalg.norm(u) * np.linalg.norm(v) + 1e-9))
        worst = max(worst, cos)
    return 1.0 - worst


def reference_quads(image: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The outline of the card in one reference image (the largest near-rectangular outline)
    and of a card-shaped frame printed inside it, down to a fifth of its area (some decks
    have one, and in a scene only that frame may be found: measured on the webcam deck,
    13/16 -> 15/16 right with the frames down to 20 % instead of 30 %); None where not found."""
    scale = min(1.0, MAX_IMAGE_SIDE / max(image.shape[:2]))
    small = image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    quads = [(q / scale).astype(np.float32) for q in find_card_outlines(small, oblique=False)]
    if not quads:
        return None, None
    h, w = image.shape[:2]
    scored = [(cv2.contourArea(q) * squareness(q) ** 2, q) for q in quads
              if cv2.contourArea(q) < 0.9 * h * w or len(quads) == 1]
    if not scored:
        return None, None
    best = max(scored, key=lambda sq: sq[0])[1]
    barea = cv2.contourArea(best)
    inner = [q for q in quads if 0.2 * barea < cv2.contourArea(q) < 0.8 * barea
             and _overlap(q, best) > 0.95 and squareness(q) > 0.9]
    return best, (max(inner, key=cv2.contourArea) if inner else None)


def reference_faces(image: np.ndarray, find_outline: bool = True) -> list[np.ndarray]:
    """The canonical faces of one reference image: the card and its printed frame where found
    (:func:`reference_quads`); the whole image when no outline is found."""
    if find_outline:
        best, inner = reference_quads(image)
        if best is not None:
            return [warp_card(image, q) for q in (best, inner) if q is not None]
    return [reference_face(image, False)]


@dataclass(frozen=True)
class FrameParams:
    """Making a deck's references alike where some of its cards have a printed frame.

    Why: a reference is compared with what a scene's outline cuts out, the card or the frame
    printed inside it. On the real webcam deck (white cards on white paper) 28 of 32
    references gave both, but 4 gave only the frame (their card's edge was lost against the
    paper) and one of those a smaller frame inside it: a scene's 6C frame then had no 6C
    frame to match and was read 6S (score 0.88, lead 0.27) in every oblique view, and a 6S
    card had no 6S card face. Where most of a deck's references show a frame, every code is
    given both: the missing frame cut from its card by the deck's typical frame position, or
    the missing card extended from its frame by the inverse. Cost: none at run time but the
    added references (one zero-shift product row each)."""

    #: the deck counts as framed when at least this share of its reference images has both
    #: outlines (webcam deck 28/32; the phone deck 14/52, only its aces and court cards)
    framed_share: float = 0.5
    # an outline taken for the card is the frame when its area (as a fraction of its image)
    # is nearer the deck's frames' median than its cards' (log scale): the deck's references
    # are shot alike (one calibration camera)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if not 0.0 < self.framed_share <= 1.0:
            raise ValueError(f"framed_share must be in (0, 1], got {self.framed_share}")


FRAMES = FrameParams()

_CANON_CORNERS = np.float32([[0, 0], [CANON_W - 1, 0], [CANON_W - 1, CANON_H - 1], [0, CANON_H - 1]])


def _consistent_faces(found: dict[str, tuple[np.ndarray, np.ndarray | None, np.ndarray | None]],
                      params: FrameParams = FRAMES) -> dict[str, list[tuple[str, np.ndarray]]]:
    """``{name: [(source, face)]}`` from ``{name: (image, card quad, frame quad)}`` (see
    :class:`FrameParams`)."""
    both = {n: (c, f) for n, (_, c, f) in found.items() if c is not None and f is not None}
    framed = len(found) > 0 and len(both) >= params.framed_share * len(found)
    rel = None
    if framed:
        # the frame's corners in the card's canonical coordinates, median over the deck
        pts = [cv2.perspectiveTransform(f.reshape(-1, 1, 2), cv2.getPerspectiveTransform(c, _CANON_CORNERS)).reshape(4, 2)
               for c, f in both.values()]
        rel = np.median(np.stack(pts), axis=0).astype(np.float32)
        card_area = float(np.median([cv2.contourArea(c) / (found[n][0].shape[0] * found[n][0].shape[1])
                                     for n, (c, _) in both.items()]))
        frame_area = float(np.median([cv2.contourArea(f) / (found[n][0].shape[0] * found[n][0].shape[1])
                                      for n, (_, f) in both.items()]))
    out: dict[str, list[tuple[str, np.ndarray]]] = {}
    for name, (image, card, frame) in found.items():
        if card is None:
            out[name] = [(name, reference_face(image, False))]
            continue
        if rel is not None:
            h, w = image.shape[:2]
            area = cv2.contourArea(card) / (h * w)
            if abs(np.log(area / frame_area)) < abs(np.log(area / card_area)):
                # the outline taken for the card is the frame (a smaller one inside it is
                # no frame of this deck): the card extended from it
                frame = card
                to_image = cv2.getPerspectiveTransform(_CANON_CORNERS, frame)
                card_canon = cv2.perspectiveTransform(_CANON_CORNERS.reshape(-1, 1, 2),
                                                      cv2.getPerspectiveTransform(rel, _CANON_CORNERS))
                card = cv2.perspectiveTransform(card_canon, to_image).reshape(4, 2).astype(np.float32)
                out[name] = [(f"{name}#card", warp_card(image, card)), (f"{name}#inner", warp_card(image, frame))]
                continue
            if frame is None:  # the frame cut from the card at the deck's frame position
                frame = cv2.perspectiveTransform(rel.reshape(-1, 1, 2), cv2.getPerspectiveTransform(_CANON_CORNERS, card))
                out[name] = [(name, warp_card(image, card)),
                             (f"{name}#inner*", warp_card(image, frame.reshape(4, 2).astype(np.float32)))]
                continue
        out[name] = [(name, warp_card(image, card))] + ([(f"{name}#inner", warp_card(image, frame))] if frame is not None else [])
    return out


def reference_face(image: np.ndarray, find_outline: bool = True) -> np.ndarray:
    """The canonical face of a reference image (see :meth:`References.from_images`)."""
    if find_outline:
        return reference_faces(image, True)[0]
    h, w = image.shape[:2]
    if w > h:
        image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    return cv2.resize(image, (CANON_W, CANON_H), interpolation=cv2.INTER_AREA)


def _template(face: np.ndarray) -> np.ndarray:
    n = normalise(face)
    return np.ascontiguousarray(n[ALIGN_MARGIN:-ALIGN_MARGIN, ALIGN_MARGIN:-ALIGN_MARGIN])


def _pad(template: np.ndarray) -> np.ndarray:
    return cv2.copyMakeBorder(template, ALIGN_MARGIN, ALIGN_MARGIN, ALIGN_MARGIN, ALIGN_MARGIN, cv2.BORDER_REPLICATE)


def _unit(a: np.ndarray) -> np.ndarray:
    v = a.reshape(-1).astype(np.float32)
    v = v - v.mean()
    return v / (np.linalg.norm(v) + 1e-6)


def _ncc(candidate: np.ndarray, template: np.ndarray) -> float:
    """Best NCC of ``template`` slid over ``candidate`` (the shift search = re-alignment)."""
    r = cv2.matchTemplate(candidate, template, cv2.TM_CCOEFF_NORMED)
    return float(r.max())


# --- recognition -------------------------------------------------------------------------

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
    #: the normalised face and its scores (:class:`_Face`), reused by a later stage
    look: object = field(default=None, compare=False, repr=False)


class _Face:
    """One warped face, normalised once, with its shift-search scores per reference (both
    turns) kept: the first look, the full match, the ECC re-alignment and the second stage of
    one outline share them instead of warping, normalising and searching again."""

    def __init__(self, face: np.ndarray):
        self.cand = normalise(face)
        self.flipped = np.ascontiguousarray(self.cand[::-1, ::-1])
        self._ncc: dict[int, tuple[float, float]] = {}
        self._zero: tuple[np.ndarray, np.ndarray] | None = None
        #: per reference: (turned, the face re-aligned onto it by ECC, canonical size)
        self.aligned: dict[int, tuple[bool, np.ndarray]] = {}
        #: per reference: (turned, the ECC homography, template -> face coordinates)
        self.warps: dict[int, tuple[bool, np.ndarray]] = {}
        self._half: np.ndarray | None = None

    @property
    def half(self) -> np.ndarray:
        """The face in grey at half size (the ECC's and the occlusion test's image)."""
        if self._half is None:
            self._half = cv2.resize(_gray(self.cand), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        return self._half

    @property
    def half_flipped(self) -> np.ndarray:
        return np.ascontiguousarray(self.half[::-1, ::-1])

    def shifted(self, refs: "References", i: int) -> tuple[float, float]:
        """The shift-search NCC of reference ``i`` at 0 and 180 degrees."""
        if i not in self._ncc:
            t = refs.refs[i].template
            self._ncc[i] = (_ncc(self.cand, t), _ncc(self.flipped, t))
        return self._ncc[i]

    def zero(self, refs: "References") -> tuple[np.ndarray, np.ndarray]:
        """Zero-shift NCC against every reference at 0 and 180 degrees."""
        if self._zero is None:
            m = ALIGN_MARGIN
            self._zero = (refs.matrix @ _unit(self.cand[m:-m, m:-m]), refs.matrix @ _unit(self.flipped[m:-m, m:-m]))
        return self._zero


def match_face(face: np.ndarray | _Face, refs: References, min_score: float = MIN_SCORE,
               min_margin: float = MIN_MARGIN, quad: np.ndarray | None = None, *,
               second_stage: bool = True, refine: bool = False) -> Match:
    """Compare one canonical face with every reference at 0° and 180°; codes within
    ``min_margin`` of the best go to the second stage (:func:`separate`) unless
    ``second_stage`` is False (then such a face is uncertain). With ``refine``, a face whose
    best code scores in [:data:`REFINE_FLOOR`, :data:`REFINE_BELOW`) is ranked by its ECC
    re-alignment onto its best codes' references (:func:`_refined`)."""
    look = face if isinstance(face, _Face) else _Face(face)
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
    for i in order[:REALIGN_TOP]:
        r = refs.refs[int(i)]
        s0, s1 = look.shifted(refs, int(i))
        s, rot = (s0, False) if s0 >= s1 else (s1, True)
        if s > best[r.code][0]:
            best[r.code] = (s, rot, int(i))
    ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))
    refined = False
    settled: set[str] = set()  # rivals told apart by the face's ink (InkParams)
    if refine and _misfit(ranked[0][1][0], ranked[0][1][0] - (ranked[1][1][0] if len(ranked) > 1 else -1.0),
                          min_margin):
        if OCCLUSION.share > 0 and _occluded_measure(look, refs, ranked) < OCCLUSION.share:
            # covered (a hand, a card's back): not re-aligned, no card read (OcclusionParams)
            code, (score, rot, _) = ranked[0]
            q = quad if quad is not None else np.zeros((4, 2), np.float32)
            return Match(None, score, score - (ranked[1][1][0] if len(ranked) > 1 else -1.0), "none", q, code, rot,
                         refined=True, covered=True, look=look)
        for i in order[REALIGN_TOP:REFINE_REALIGN]:
            r = refs.refs[int(i)]
            s0, s1 = look.shifted(refs, int(i))
            s, rot = (s0, False) if s0 >= s1 else (s1, True)
            if s > best[r.code][0]:
                best[r.code] = (s, rot, int(i))
        ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))
        first = dict(ranked)
        ranked, unresolved, done = _refined(look, ranked, refs, min_margin, REFINE_GATE)
        refined = True
        ranked, doubt, unresolved, done = _seeded(look, ranked, first, unresolved, done, refs, min_margin, REFINE_GATE)
        doubt, settled = _ink_settled(look, ranked, first, doubt, unresolved, done, refs, min_margin, REFINE_GATE)
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
            return _ink_checked(Match(code, score, score - max(rest, default=-1.0), "ok", q, close[1][0], rot,
                                      refined=refined, inked=True, look=look), refs, win_i, ranked)
        # ... the rest by a precise pairwise comparison where their references differ
        won = _tournament(look, inked, refs) if second_stage else None
        if won is None:
            return Match(code, score, margin, "uncertain", q, inked[1][0], rot, refined=refined, look=look)
        wcode, (wscore, wrot, wi) = inked[won]
        other = [c for c, _ in inked if c != wcode][0]
        return _ink_checked(Match(wcode, wscore, wscore - max(v[0] for c, v in ranked if c != wcode), "ok", q, other,
                                  wrot, separated=True, refined=refined, inked=len(inked) < len(close) or bool(settled),
                                  look=look), refs, wi, ranked)
    return _ink_checked(Match(code, score, margin, "ok", q, runner, rot, refined=refined, inked=bool(settled),
                              look=look), refs, win_i, ranked)


def _ink_checked(m: Match, refs: References, win_i: int, ranked: list) -> Match:
    """``m`` (accepted), or uncertain when the face's ink is another reference's ink, far
    from the winner's (:class:`InkParams`): the card's own code may be missing."""
    other = ink_contradicts(m.look, refs, win_i, ranked)
    if other is None:
        return m
    return replace(m, status="uncertain", runner_up=other, separated=False, inked=False, ink_contradicted=True)


@dataclass(frozen=True)
class RefineGateParams:
    """When an ECC re-aligned (misfit) face may be read at all (:func:`match_face` with
    ``refine``). The re-alignment lifts a misfit face's score by up to 0.35 (a homography
    can bend one card's picture onto another's), so its lead counts only against codes that
    were re-aligned too. Measured on the real webcam deck (white on white) seen at 30-60
    degrees: without these rules 1-3 wrong answers per view, all spades read as clubs or the
    reverse, the true code not among the first stage's best 4 (7S after 8C, 6C, 7C, 7H, 6S)
    or its re-alignment failed (4C, while 4S rose 0.56 -> 0.89).

    Cost: each look-alike partner re-aligned is one more ECC (about 3-5 ms), only for misfit
    faces; right answers become uncertain (a warning) where a code not re-aligned was close."""

    #: the winner's look-alike partners (other codes whose references match its reference at
    #: zero shift, either way up, at least this well: same rank other suit of one colour, a
    #: pip more or less) are re-aligned too, at most :attr:`partners` of them
    partner_score: float = 0.75
    partners: int = 8
    #: a code close to the winner whose re-alignment failed leaves the card uncertain (its
    #: score is unknown)
    unresolved_uncertain: bool = True
    #: the winner must also lead every code *not* re-aligned by the margin at the first stage
    #: (such a code is assumed to gain as much from re-alignment as the winner did)
    lead_unrefined: bool = True
    #: codes within the margin of the winner at the first stage but not among those
    #: re-aligned are re-aligned too, at most this many per face (0: none; they then make
    #: the card uncertain by :attr:`lead_unrefined`)
    catch_up: int = 8
    #: a face uncertain between look-alikes at the first stage (lead below the margin) whose
    #: best score is below this is re-aligned too, so the second stage compares it as
    #: re-aligned (:class:`SecondStageParams`): an outline that scores 0.85-0.9 is still off
    #: by a pixel or two, as much as a pip's difference. Cost: the ECC of its close codes, only
    #: for such faces
    uncertain_below: float = 0.92
    #: a code that leaves the winner without a known lead (its re-alignment failed, or it was
    #: close at the first stage and not re-aligned) is re-aligned once more by an ECC started
    #: from the winner's re-alignment, at the winner's turn, onto its reference of the same
    #: outline (card or printed frame): the face's geometry is the same whichever code it
    #: shows, so a rival that is the card converges there too. A seeded rival that fits
    #: better than the winner resolves nothing (the card stays uncertain): it only bounds
    #: rivals, never picks one. At most this many per face (0: none, the card stays
    #: uncertain; 32, a 32-card deck's every code, so that the cap only bounds the cost for a
    #: large deck). Measured on the real webcam deck seen at 30-60 degrees: 9 of 14 uncertain
    #: cards had a winner re-aligned to 0.98-0.99 left in doubt by a far code (2D failed its
    #: own ECC; 5C, 7H, 8H not re-aligned after 15 others); with 6 per face 3 of them stayed
    #: uncertain, with 32 none (the rest fail the seeded ECC too: a red rival of a black card
    #: moves a corner beyond :data:`REFINE_MAX_SHIFT`). Cost: one ECC (3-5 ms) per code in
    #: doubt, only for such faces; with a card's own code left out of the references it is
    #: read as its look-alike once more where the doubt had left it uncertain (the webcam deck
    #: at 60 degrees 13 wrong of 16 instead of 12, sideways 12 instead of 11)
    seeded: int = 32

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if not 0.0 < self.partner_score <= 1.0:
            raise ValueError(f"partner_score must be in (0, 1], got {self.partner_score}")
        if self.partners < 0:
            raise ValueError(f"partners must be >= 0, got {self.partners}")
        if self.seeded < 0:
            raise ValueError(f"seeded must be >= 0, got {self.seeded}")


REFINE_GATE = RefineGateParams()


def _misfit(score: float, margin: float, min_margin: float) -> bool:
    """Whether a face is re-aligned by ECC: its best score is in [:data:`REFINE_FLOOR`,
    :data:`REFINE_BELOW`), or it is uncertain between look-alikes (lead below the margin)
    with a best score below :attr:`RefineGateParams.uncertain_below`."""
    if score < REFINE_FLOOR:
        return False
    return score < REFINE_BELOW or (margin < min_margin and score < REFINE_GATE.uncertain_below)


def _realign(look: _Face, refs: References, i: int,
             seed: tuple[bool, np.ndarray] | None = None) -> tuple[float, bool] | None:
    """The score of the face after an ECC homography re-alignment onto reference ``i`` (at
    its better turn by the shift search) and that turn; None when the ECC fails or moves a
    corner more than :data:`REFINE_MAX_SHIFT` of the card width. ``seed`` (turn, homography
    of another reference's re-alignment) starts the ECC there, at that turn
    (:attr:`RefineGateParams.seeded`)."""
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
    fg = cv2.resize(_gray(face), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
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
    look.aligned[i] = (rot, _pad(aligned))
    look.warps[i] = (rot, w)
    return float(_unit(aligned) @ refs.unit(i)), rot


def _doubts(ranked: list, first: dict, unresolved: set[str], done: set[str], margin: float,
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


def _kind(source: str) -> str:
    """Which outline of a card a reference shows: its printed frame or the card."""
    return "inner" if "#inner" in source else "card"


def _seeded(look: _Face, ranked: list, first: dict, unresolved: set[str], done: set[str], refs: References,
            margin: float, gate: RefineGateParams) -> tuple[list, list[str], set[str], set[str]]:
    """``ranked`` with the doubtful codes (:func:`_doubts`) re-aligned by an ECC started from
    the winner's re-alignment (:attr:`RefineGateParams.seeded`), the codes still in doubt,
    and the codes unresolved and re-aligned then."""
    out = dict(ranked)
    unresolved, done = set(unresolved), set(done)
    tried: set[str] = set()
    for _ in range(gate.seeded):
        ranked = sorted(out.items(), key=lambda kv: (-kv[1][0], kv[0]))
        doubt = [c for c in _doubts(ranked, first, unresolved, done, margin, gate) if c not in tried]
        win_i = ranked[0][1][2]
        if not doubt or win_i not in look.warps:
            break
        c = doubt[0]
        tried.add(c)
        kind = _kind(refs.refs[win_i].source)
        same = [j for j, r in enumerate(refs.refs) if r.code == c and _kind(r.source) == kind]
        win_score = ranked[0][1][0]
        for j in same:  # the rival's reference of the same outline, seeded at the winner's warp
            got = _realign(look, refs, j, seed=look.warps[win_i])
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
    return ranked, _doubts(ranked, first, unresolved, done, margin, gate), unresolved, done


def _ink_settled(look: _Face, ranked: list, first: dict, doubt: list[str], unresolved: set[str],
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
        doubt = [c for c in _doubts(ranked, first, unresolved - settled, done | settled, margin, gate)
                 if c not in settled]
    return doubt, settled


def _block_match(look: _Face, refs: References, i: int, params: "OcclusionParams") -> float:
    """The share of reference ``i``'s textured blocks (a grid over its half-size template)
    found in the face near their place, each by its own shift (NCC at least
    :attr:`OcclusionParams.block_score`): a misfit outline moves each block a little, a hand
    or a card's back leaves its blocks nowhere."""
    t = refs.half_gray(i)
    s0, s1 = look.shifted(refs, i)
    face = look.half_flipped if s1 > s0 else look.half
    th, tw = t.shape
    off = ALIGN_MARGIN // 2
    reach = int(round(params.block_reach * CANON_W / 2))
    found = textured = 0
    for r in range(params.rows):
        for c in range(params.cols):
            y0, y1 = r * th // params.rows, (r + 1) * th // params.rows
            x0, x1 = c * tw // params.cols, (c + 1) * tw // params.cols
            block = t[y0:y1, x0:x1]
            if float(block.std()) < params.min_texture:
                continue  # plain paper: nothing to find
            textured += 1
            ya, xa = max(0, y0 + off - reach), max(0, x0 + off - reach)
            win = face[ya:min(face.shape[0], y1 + off + reach), xa:min(face.shape[1], x1 + off + reach)]
            if win.shape[0] < block.shape[0] or win.shape[1] < block.shape[1]:
                continue
            if float(cv2.matchTemplate(win, block, cv2.TM_CCOEFF_NORMED).max()) >= params.block_score:
                found += 1
    return found / textured if textured else 1.0


def _occluded_measure(look: _Face, refs: References, ranked: list | None = None,
                      params: "OcclusionParams | None" = None) -> float:
    """The best :func:`_block_match` share over the codes a misfit face would be re-aligned
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
    return max(_block_match(look, refs, v[2], params) for _, v in ranked[:REFINE_CODES])


@dataclass(frozen=True)
class OcclusionParams:
    """When a misfit face is not re-aligned at all: it is covered (a hand over the card, a
    card still face down) rather than misfit. Why: ECC re-alignment is the card zone's
    largest cost, and on the demo video 48 of its analyses re-aligned a card's back held by a
    hand (all ended "no card"). A misfit outline displaces each part of the face a little, so
    the reference's blocks are each found nearby by a shift of their own; a covered face has
    its blocks nowhere. A face none of whose best codes' references has at least
    :attr:`share` of its textured blocks found is not re-aligned and is no card read.

    Measured (one value each, chosen after seeing these sets, not searched): on the demo
    video the covered faces had at most 0.43 of their blocks found (0.11-0.43), every face
    that the re-alignment then read 0.82-1.0; on the real photos (both decks, 7 views) the
    misfit faces that were read (ok or uncertain) 0.5-1.0, one at 0.5 (an uncertain KS at
    30 degrees, kept). Every figure of ``benchmarks/bench_seeing.py`` unchanged, the demo
    and its five re-encodings 10/10 at the true frame; ECC re-alignments over the six
    videos 1080 -> 132, the card zone's CPU 42.2 s -> 30.6 s. Cost: 12 small template
    searches per code tested (up to :data:`REFINE_CODES`), misfit faces only; a misfit face
    wrongly found covered is unread (a warning), never misread."""

    rows: int = 4
    cols: int = 3
    #: a block is found where its NCC over the face, shifted by up to :attr:`block_reach`
    #: card widths, reaches this
    block_score: float = 0.5
    block_reach: float = 0.15
    #: blocks plainer than this grey standard deviation (normalised paper = 1) are not counted
    min_texture: float = 0.05
    share: float = 0.5

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if self.rows < 1 or self.cols < 1:
            raise ValueError("rows and cols must be >= 1")
        if not 0.0 <= self.share <= 1.0:
            raise ValueError(f"share must be in [0, 1], got {self.share}")


OCCLUSION = OcclusionParams()


def _refined(look: _Face, ranked: list, refs: References, margin: float = MIN_MARGIN,
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
        got = _realign(look, refs, i)
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


def _tournament(look: _Face, close: list, refs: References) -> int | None:
    """Index in ``close`` of the code that :func:`separate` prefers to every other close code,
    or None (no such code: uncertain). A face re-aligned by ECC onto the code's reference
    (a misfit outline, :data:`REFINE_BELOW`) is compared as re-aligned (see
    :attr:`SecondStageParams.use_aligned`)."""
    for k, (ca, (_, ra, ia)) in enumerate(close):
        face = look.flipped if ra else look.cand
        if SECOND_STAGE.use_aligned and ia in look.aligned and look.aligned[ia][0] == ra:
            face = look.aligned[ia][1]
        wins = True
        for j, (cb, (_, rb, ib)) in enumerate(close):
            if j == k:
                continue
            tb = refs.refs[ib].template
            if rb != ra:
                tb = np.ascontiguousarray(tb[::-1, ::-1])
            res = separate(face, refs.refs[ia].template, tb)
            if not _separated(face, refs.refs[ia].template, tb, res):
                wins = False
                break
        if wins:
            return k
    return None


def _separated(face: np.ndarray, template_a: np.ndarray, template_b: np.ndarray,
               res: tuple[float, float, float] | None, params: "SecondStageParams | None" = None) -> bool:
    """Whether :func:`separate`'s ``res`` (the face measured in ``a``'s frame) puts the face
    at least 3x nearer ``a`` than ``b``; when only the residual fails, the pair is measured
    again in ``b``'s frame (:attr:`SecondStageParams.both_frames`)."""
    params = params or SECOND_STAGE
    f = SEPARATE_FRACTION
    if res is None:
        return False
    alpha, residual, elsewhere = res
    if max(abs(alpha), residual, elsewhere) <= f:
        return True
    if not params.both_frames or abs(alpha) > f or elsewhere > f:
        return False
    back = separate(face, template_b, template_a)  # alpha now runs from b (0) to a (1)
    return back is not None and abs(1.0 - back[0]) <= f and back[1] <= f


@dataclass(frozen=True)
class SecondStageParams:
    """The look-alike second stage (:func:`separate`) on a face whose outline was a misfit.

    Why: seen at an angle, a card's outline is rarely exact (a white card on white paper
    loses an edge, a foreshortened card is warped from half the pixels), so the face is
    re-aligned by an ECC homography (:data:`REFINE_BELOW`). The second stage then compared
    the face *before* that re-alignment, and its affine ECC could not undo the misfit: on
    the real webcam deck turned 45 degrees 13 of 16 cards stayed uncertain between spades
    and clubs although their best code was right every time. With ``use_aligned`` it
    compares the face as re-aligned onto each candidate's reference. Cost: none (the
    re-aligned face is kept from the refinement); the 3x nearness rule is unchanged."""

    use_aligned: bool = True
    #: the pair's line (from ``a`` to ``b``) is measured in the frame of one reference, the
    #: face and the other reference resampled onto it; at an angle the face is a blurred,
    #: foreshortened picture, and the resampling leaves a residual off the line of up to 0.35
    #: in one frame where the other frame leaves 0.18 (the real webcam 2S at 45 degrees:
    #: alpha 0.15, residual 0.35 against 2C in 2S's frame; in 2C's frame 0.93 of the way to
    #: 2S, residual 0.18). With this, a face whose only failing measure is the residual is
    #: measured again in ``b``'s frame and wins when there too it lies within the fraction
    #: of ``a`` along the line and off it: the same 3x rule, both ways. Cost: one more pair
    #: comparison (two affine ECCs, about 5-10 ms), only for such pairs
    both_frames: bool = True

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if not isinstance(self.use_aligned, bool):
            raise ValueError("use_aligned must be a bool")
        if not isinstance(self.both_frames, bool):
            raise ValueError("both_frames must be a bool")


SECOND_STAGE = SecondStageParams()


# --- the ink colour test -----------------------------------------------------------------

@dataclass(frozen=True)
class InkParams:
    """A doubt between codes of different ink settled by the face's own ink colour.

    Why: on the real white-on-white webcam deck the last doubts at an angle are a red rival
    to a black card (2C/2D, 3C/3H, 3C/3D, 4C/2H): the rival's ECC, even seeded from the
    winner's geometry, fails, so its shape score is unknown; the colour of the ink tells the
    two apart without any geometry. The ink of each *reference* is measured from the
    reference itself (never from the code's name: a deck may print its suits otherwise): the
    share of each channel in the light absorbed by its pixels darker than :attr:`dark`
    (normalised paper = 1; :func:`ink_colour`).
    The face's ink is measured the same way on the face (re-aligned onto the winner's
    reference when it was, else the plain warp), inside an inset of :attr:`inset` card
    widths (a misfit warp's border may show the table).

    A rival is settled (no doubt any more) when its reference's ink lies at least
    :attr:`min_gap` from the winner's, and the face's ink lies within :attr:`fraction` of
    that gap of the winner's ink along the line between the two and off it (the second
    stage's 3x rule, in colour). A face with fewer than :attr:`min_share` of its pixels dark
    has no ink to measure. Unclear ink (white balance, a hand's shadow, chroma lost to
    compression) settles nothing. A camera that delivers grey pictures makes red ink look
    black; its references then show no red either, so no two inks differ and nothing is
    settled. Conversely a winner whose ink is contradicted (the face's ink
    within the fraction of another reference's ink at least :attr:`min_gap` from the
    winner's) is not accepted: uncertain, naming the best code of the face's ink (a card
    whose own code is missing from the references read as a look-alike of another colour).

    Measured (``benchmarks/bench_seeing.py --stills``): see the README's "Seeing a real
    table". Cost: one mean over the face's dark pixels per face tested (well under 1 ms), the
    references' inks once per deck; a right card whose ink reads as another's would be
    uncertain (a warning), never misread."""

    on: bool = True
    #: a pixel is ink where its mean channel (white-balanced, paper = 1) is below this
    dark: float = 0.6
    #: the face's border left out, in card widths
    inset: float = 0.08
    #: a face with fewer than this share of its pixels dark shows no ink
    min_share: float = 0.01
    #: two references' inks differ when their colours (:func:`ink_colour`) lie this far apart:
    #: the pip cards' black and red inks lie at least 0.18 apart on the webcam deck (0.20 on
    #: the phone deck), two red or two black references at most 0.05 on the webcam deck and
    #: 0.15 on the phone deck (6D and 7H: the 7H reference photo paler)
    min_gap: float = 0.165
    #: the face's ink must lie within this share of the gap of the winner's ink, along the
    #: line and off it
    fraction: float = 1 / 3
    #: the ink settles a doubt only for a face that fits its winner at least this well (its
    #: re-aligned score when it was re-aligned): with a card's own code missing from the
    #: references, its look-alike of the same ink wins at 0.86-0.94 and a settled red rival
    #: would turn an uncertain card into a wrong one (the webcam deck's 3C read 3S at 0.917
    #: at 45 degrees, 2S read 2C at 0.941 sideways); the deck's own cards settled fit
    #: 0.979-0.986
    min_fit: float = 0.95

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        if not isinstance(self.on, bool):
            raise ValueError("on must be a bool")
        if not 0.0 < self.dark < 1.0:
            raise ValueError(f"dark must be in (0, 1), got {self.dark}")
        if not 0.0 <= self.inset < 0.5:
            raise ValueError(f"inset must be in [0, 0.5), got {self.inset}")
        if not 0.0 < self.min_share < 1.0:
            raise ValueError(f"min_share must be in (0, 1), got {self.min_share}")
        if self.min_gap <= 0.0:
            raise ValueError(f"min_gap must be > 0, got {self.min_gap}")
        if not 0.0 < self.fraction < 0.5:
            raise ValueError(f"fraction must be in (0, 0.5), got {self.fraction}")
        if not 0.0 <= self.min_fit <= 1.0:
            raise ValueError(f"min_fit must be in [0, 1], got {self.min_fit}")


INK = InkParams()


def ink_colour(image: np.ndarray, params: InkParams | None = None) -> np.ndarray | None:
    """The colour of an image's ink (its pixels darker than :attr:`InkParams.dark`, inside
    the inset) as the share of each channel in the light it absorbs (``1 - BGR``, the paper
    white-balanced to 1, summed to 1): ink blurred into the paper (a small or foreshortened
    pip) absorbs less in every channel alike, so its colour stays (black 1/3 each); None
    when too few pixels are dark."""
    params = params or INK
    h, w = image.shape[:2]
    k = int(round(params.inset * min(h, w)))
    inner = image[k:h - k, k:w - k] if k else image
    if inner.ndim != 3 or inner.size == 0:
        return None
    dark = inner.mean(axis=2) < params.dark
    if float(dark.mean()) < params.min_share:
        return None
    absorbed = np.clip(1.0 - inner[dark].mean(axis=0).astype(np.float64), 1e-3, None)
    return absorbed / absorbed.sum()


def _near(ink: np.ndarray, a: np.ndarray, b: np.ndarray, params: InkParams) -> bool:
    """Whether ``ink`` lies within the fraction of the gap of ``a`` (along the line a-b and
    off it), ``a`` and ``b`` being at least :attr:`InkParams.min_gap` apart."""
    d = b - a
    gap = float(np.linalg.norm(d))
    if gap < params.min_gap:
        return False
    t = float(np.dot(ink - a, d)) / (gap * gap)
    off = float(np.linalg.norm(ink - a - t * d)) / gap
    return abs(t) <= params.fraction and off <= params.fraction


def _ref_ink(refs: "References", i: int, params: InkParams) -> np.ndarray | None:
    cache = refs._ink
    if i not in cache:
        cache[i] = ink_colour(_pad(refs.refs[i].template), params)
    return cache[i]


def _face_ink(look: "_Face", i: int, params: InkParams) -> np.ndarray | None:
    """The face's ink, on the face re-aligned onto reference ``i`` when it was."""
    face = look.aligned[i][1] if i in look.aligned else look.cand
    return ink_colour(face, params)


def ink_settles(look: "_Face", refs: "References", win_i: int, rival: str, score: float,
                params: InkParams | None = None) -> bool:
    """Whether every reference of ``rival`` is told apart from reference ``win_i`` (which
    the face fits at ``score``) by the face's ink (:class:`InkParams`)."""
    params = params or INK
    if not params.on or score < params.min_fit:
        return False
    a = _ref_ink(refs, win_i, params)
    face = _face_ink(look, win_i, params) if a is not None else None
    if face is None:
        return False
    others = [j for j, r in enumerate(refs.refs) if r.code == rival]
    for j in others:
        b = _ref_ink(refs, j, params)
        if b is None or not _near(face, a, b, params):
            return False
    return bool(others)


def ink_contradicts(look: "_Face", refs: "References", win_i: int, ranked: list,
                    params: InkParams | None = None) -> str | None:
    """The best-ranked code whose reference's ink the face's ink is near, that ink at least
    :attr:`InkParams.min_gap` from reference ``win_i``'s; None when the face's ink is
    unclear or agrees with the winner's."""
    params = params or INK
    if not params.on:
        return None
    a = _ref_ink(refs, win_i, params)
    face = _face_ink(look, win_i, params) if a is not None else None
    if face is None:
        return None
    win = refs.refs[win_i].code
    for code, _ in ranked:
        if code == win:
            continue
        for j, r in enumerate(refs.refs):
            b = _ref_ink(refs, j, params) if r.code == code else None
            if b is not None and _near(face, b, a, params):
                return code
    return None


def _gray(a: np.ndarray) -> np.ndarray:
    return (a.mean(axis=2) if a.ndim == 3 else a).astype(np.float32)


def _ecc(template: np.ndarray, image: np.ndarray, init: np.ndarray) -> np.ndarray | None:
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 100, 1e-5)
    try:
        _, w = cv2.findTransformECC(template, image, init.astype(np.float32).copy(), cv2.MOTION_AFFINE, crit, None, 5)
    except cv2.error:  # did not converge: no alignment, no decision
        return None
    return w


def _standard(x: np.ndarray) -> np.ndarray:
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
    g, a, b = _gray(face), _gray(template_a), _gray(template_b)
    m = ALIGN_MARGIN
    wq = _ecc(a, g, np.float32([[1, 0, m], [0, 1, m]]))
    wb = _ecc(a, b, np.float32([[1, 0, 0], [0, 1, 0]]))
    if wq is None or wb is None:
        return None
    size = (a.shape[1], a.shape[0])
    flags = cv2.INTER_LINEAR + cv2.WARP_INVERSE_MAP
    qa = _standard(cv2.warpAffine(g, wq, size, flags=flags, borderMode=cv2.BORDER_REPLICATE))
    ba = _standard(cv2.warpAffine(b, wb, size, flags=flags, borderMode=cv2.BORDER_REPLICATE))
    a = _standard(a)
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


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over the smaller area of two convex quads."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    small = min(cv2.contourArea(a), cv2.contourArea(b))
    return float(inter / small) if small > 0 else 0.0


def search_scale(image: np.ndarray) -> float:
    """The factor outlines are searched at: large photos reduced to :data:`MAX_IMAGE_SIDE`,
    small zones enlarged to :data:`MIN_IMAGE_SIDE` (see there)."""
    side = max(image.shape[:2])
    if side > MAX_IMAGE_SIDE:
        return MAX_IMAGE_SIDE / side
    if side < MIN_IMAGE_SIDE:
        return MIN_IMAGE_SIDE / side
    return 1.0


def _zero_best(face: np.ndarray, refs: References) -> tuple[float, str]:
    """The best zero-shift NCC of a face against every reference at 0 and 180 degrees, and
    its code (one matrix product per way round: the cheap first look; the paper's white
    taken from every 3rd pixel)."""
    cand = normalise(face, step=3)
    m = ALIGN_MARGIN
    z = np.maximum(refs.matrix @ _unit(cand[m:-m, m:-m]),
                   refs.matrix @ _unit(np.ascontiguousarray(cand[::-1, ::-1])[m:-m, m:-m]))
    i = int(np.argmax(z))
    return float(z[i]), refs.refs[i].code


def _first_looks(image: np.ndarray, quads: list[np.ndarray], refs: References) -> list[tuple[float, str, np.ndarray, np.ndarray]]:
    """``(zero-shift score, code, quad, warped face)`` per outline and way round: an outline that could be
    a card either way (:data:`BOTH_WAYS_BELOW`) is looked at both ways and kept the better
    way, or both when they are within :data:`BOTH_WAYS_SPAN`."""
    out = []
    for q in quads:
        q = np.asarray(q, np.float32)
        f = warp_card(image, q)
        looks = [(*_zero_best(f, refs), q, f)]
        if image_aspect(q) < BOTH_WAYS_BELOW:
            q2 = turned(q)
            f2 = warp_card(image, q2)
            looks.append((*_zero_best(f2, refs), q2, f2))
            looks.sort(key=lambda x: -x[0])
            if looks[1][0] < looks[0][0] - BOTH_WAYS_SPAN:
                looks = looks[:1]
        out.extend(looks)
    return out


def _same_card(looks: list, key=lambda x: x[2]) -> list[list]:
    """Group outlines (best first) that overlap by half of the smaller: one card each."""
    groups: list[list] = []
    for x in looks:
        for g in groups:
            if _overlap(key(x), key(g[0])) >= 0.5:
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
    looks = sorted(_first_looks(image, quads, refs), key=lambda x: -x[0])
    out = []
    for g in _same_card(looks):
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
    return _keep_best(image, outline_matches(image, refs, min_score, min_margin, area_range=area_range,
                                             aspect_range=aspect_range), refs,
                      min_score, min_margin, refine=refine)


def _keep_best(image: np.ndarray, matches: list[Match], refs: References, min_score: float,
               min_margin: float, *, refine: bool = True) -> list[Match]:
    """One match per card: outlines that overlap (by half of the smaller) are one card and
    keep their best match; a card whose best outline is a misfit (:data:`REFINE_BELOW`) has
    its best :data:`REFINE_OUTLINES` outlines re-aligned first; the look-alike second stage
    runs only for the cards kept."""
    matches = sorted((m for m in matches if m.score >= min(REFINE_FLOOR, min_score)),
                     key=lambda m: (-m.score, m.margin))
    kept: list[Match] = []
    for c in _same_card(matches, key=lambda m: m.quad):
        best = c[0]
        if refine and not best.refined and _misfit(best.score, best.margin, min_margin):
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


# --- video: timed card events per zone ---------------------------------------------------

@dataclass
class _Slot:
    index: int
    t: float
    image: np.ndarray
    #: the outline matches of this frame when it was analysed online (the walk-back ranks
    #: them again instead of searching the frame a second time)
    outlines: list | None = None


class CardZoneWatcher:
    """One zone (the IKATAKO field, a MOKOCHAKA pile, a griddle slot, a scoring area):
    ``update(index, t, frame) -> [CardEvent]`` with ``t`` = the first frame in which the new
    top card was recognisable.

    ``every`` > 1 analyses only every n-th frame online (reduced-rate tracking); the ring
    buffer keeps every frame, so the walk-back still times the card at full rate.

    A zone that changed and settled without a card being read there (:data:`UNREAD_DIFF`)
    gives a :class:`~session.events.WarningEvent` ("card in the field not recognised at
    23.1 s", ``extra``: ``zone``, ``unread`` True, and ``uncertain`` [code, code] when it was
    two look-alikes) among the returned events, so the record says a card came.
    """

    def __init__(self, zone_name: str, box, refs: References, *, every: int = 1,
                 confirm: int = CONFIRM_FRAMES, ring: int = RING_FRAMES,
                 min_score: float = MIN_SCORE, min_margin: float = MIN_MARGIN):
        self.zone = zone_name
        self.box = box
        self.refs = refs
        self.every = max(1, every)
        self.confirm = confirm
        self.min_score, self.min_margin = min_score, min_margin
        self.ring: deque[_Slot] = deque(maxlen=max(ring, confirm * self.every + WALK_GAP + 2))
        self.current: str | None = None
        self._current_seen_t: float | None = None  # the last analysed frame showing ``current``
        self.pending: tuple[str | None, int] = (None, 0)
        self.uncertain_warned: set[tuple[str, str]] = set()
        self.warnings: list[str] = []
        self._last_analysed: np.ndarray | None = None
        self._last_result: Match | None = None
        self.analysed = 0
        self._thumb: np.ndarray | None = None  # this update's thumbnail
        self._prev_thumb: np.ndarray | None = None
        self._accounted: np.ndarray | None = None  # the picture last accounted for
        self._still = 0  # analysed frames in a row without change
        self._change_t: float | None = None  # when the zone began to differ from the accounted picture
        self.unread = 0  # warnings of cards not read (benchmark figure)

    def _crop(self, frame: np.ndarray) -> np.ndarray:
        b = self.box
        return frame[b.y1:b.y2, b.x1:b.x2]

    def _analyse(self, crop: np.ndarray) -> Match | None:
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        # 4x smaller: averages sensor noise away, so an unchanged zone reads as still
        small = cv2.resize(gray, (max(1, gray.shape[1] // 4), max(1, gray.shape[0] // 4)),
                           interpolation=cv2.INTER_AREA).astype(np.float32)
        small *= 128.0 / max(1.0, float(small.mean()))  # a global light change is no change
        self._thumb = small
        if (self._last_analysed is not None and self._last_analysed.shape == small.shape
                and float(np.abs(small - self._last_analysed).mean()) < STILL_DIFF):
            return self._last_result
        self.analysed += 1
        om = outline_matches(crop, self.refs, self.min_score, self.min_margin, area_range=ZONE_AREA_RANGE,
                             aspect_range=ZONE_ASPECT_RANGE)
        if self.ring and self.ring[-1].image is crop:
            # without their normalised faces (about 1 MB each): the walk-back warps again
            # only a look-alike pair's face for the second stage
            self.ring[-1].outlines = [replace(m, look=None) for m in om]
        ms = _keep_best(crop, om, self.refs, self.min_score, self.min_margin)
        ok = [m for m in ms if m.status == "ok"]
        res = ok[0] if ok else (ms[0] if ms else None)
        self._last_analysed, self._last_result = small, res
        return res

    def update(self, index: int, t: float, frame: np.ndarray) -> list[Event]:
        crop = self._crop(frame).copy()
        self.ring.append(_Slot(index, t, crop))
        if index % self.every:
            return []
        m = self._analyse(crop)
        if m is not None and m.status == "uncertain":
            key = tuple(sorted((m.code or "?", m.runner_up or "?")))
            if key not in self.uncertain_warned:
                self.uncertain_warned.add(key)
                self.warnings.append(
                    f"t={t:.3f}s zone {self.zone}: card uncertain between {key[0]} and {key[1]} "
                    f"(score {m.score:.2f}, margin {m.margin:.2f}); not reported")
            code = None
        else:
            code = m.code if m is not None and m.status == "ok" else None
        out: list[Event] = self._unread(t, code, m)
        if code is not None and code == self.current:
            self._current_seen_t = t
        if code is None or code == self.current:
            self.pending = (None, 0)
            return out
        n = self.pending[1] + 1 if self.pending[0] == code else 1
        self.pending = (code, n)
        if n < self.confirm:
            return out
        self.current = code
        self._current_seen_t = t
        self.pending = (None, 0)
        self._accounted, self._change_t = self._thumb, None
        first, conf = self._walk_back(code, m.score, m.quad)
        return out + [CardEvent(t=round(first.t, 6), card=code, zone=self.zone, conf=round(conf, 3),
                                extra={"frame": first.index})]

    def earliest_event_t(self) -> float:
        """No card event of this zone not yet returned can be timed before this (the
        pipeline's watermark): a new card's walk-back stops at any frame where another card
        is recognised, so it cannot reach behind the last analysed frame that showed the
        current card; with none in the ring (an empty or covered zone), the ring's oldest
        frame bounds it; a change under way not yet read is bounded by where it began."""
        oldest = self.ring[0].t if self.ring else float("-inf")
        bound = oldest if self._current_seen_t is None else max(oldest, self._current_seen_t)
        if self._change_t is not None:  # an "unread card" warning is timed where the change began
            bound = min(bound, self._change_t)
        return bound

    def _unread(self, t: float, code: str | None, m: Match | None) -> list[Event]:
        """The "card came but could not be read" warning (:data:`UNREAD_DIFF`)."""
        thumb, prev = self._thumb, self._prev_thumb
        self._prev_thumb = thumb
        if thumb is None:
            return []
        if self._accounted is None or self._accounted.shape != thumb.shape:
            self._accounted = thumb
            return []
        moved = prev is None or prev.shape != thumb.shape or float(np.abs(thumb - prev).mean()) >= SETTLE_DIFF
        self._still = 0 if moved else self._still + 1
        if float(np.abs(thumb - self._accounted).mean()) <= UNREAD_DIFF:
            self._change_t = None  # as accounted for (a hand came and went)
            return []
        if self._change_t is None:
            self._change_t = t
        if self._still < SETTLE_FRAMES or self.pending[0] is not None:
            return []
        start, self._accounted, self._change_t = self._change_t, thumb, None
        if code is not None:  # the card already reported lies there still (moved, uncovered)
            return []
        self.unread += 1
        extra: dict = {"zone": self.zone, "unread": True}
        why = ""
        if m is not None and m.status == "uncertain":
            extra["uncertain"] = sorted([m.code or "?", m.runner_up or "?"])
            why = f" (uncertain between {extra['uncertain'][0]} and {extra['uncertain'][1]})"
        return [WarningEvent(t=round(start, 6), message=f"card in the {self.zone} not recognised at {start:.1f} s{why}",
                             extra=extra)]

    def _walk_back(self, code: str, score: float, quad: np.ndarray | None = None) -> tuple[_Slot, float]:
        """The earliest buffered frame of the run in which ``code`` is recognised, crossing at
        most :data:`WALK_GAP` undecided frames and stopping at any other card.

        A frame whose outlines do not give the card (a hand over its edge, or the card on a
        pile of light cards: the outline merges with the cards under it) is also compared
        *where the card was last recognised* (``quad``, from the later frame): if the face
        there is the same code, accepted by the same score and margin, the card was already
        lying there, recognisable. A card still sliding in does not match at its final place,
        and a different card there stops the walk."""
        slots = list(self.ring)
        first = slots[-1]
        gap = 0
        for slot in reversed(slots[:-1]):
            if slot.outlines is not None:  # analysed online: the same outlines, ranked without ECC
                ms = _keep_best(slot.image, slot.outlines, self.refs, self.min_score, self.min_margin, refine=False)
            else:
                ms = recognise(slot.image, self.refs, self.min_score, self.min_margin, refine=False,
                               area_range=ZONE_AREA_RANGE, aspect_range=ZONE_ASPECT_RANGE)
            ok = [m for m in ms if m.status == "ok"]
            hit = bool(ok) and ok[0].code == code
            if not hit and quad is not None and not any(_overlap(m.quad, quad) >= 0.5 for m in ok):
                at = match_face(warp_card(slot.image, quad), self.refs, self.min_score, self.min_margin, quad)
                if at.status == "ok" and at.code == code:
                    ok, hit = [at], True
            if hit:
                first, gap = slot, 0
                score = max(score, ok[0].score)
                quad = ok[0].quad
            elif ok:
                break
            else:
                gap += 1
                if gap > WALK_GAP:
                    break
        return first, score


def codes_of(matches: Iterable[Match]) -> tuple[list[str], int]:
    """The accepted codes and the number of uncertain cards (the ``vision cards`` output)."""
    ms = list(matches)
    return [m.code for m in ms if m.status == "ok"], sum(1 for m in ms if m.status == "uncertain")

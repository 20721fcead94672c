"""Card outlines in an image: the binarisations, quad fits and their geometric checks (part of :mod:`vision.cards`)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

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
    """Outlines for cards the four binarisations of head-on views miss: cards on a light
    coloured table and cards whose edge line is broken, both common at an angle. Both only add
    outlines to those found before (``oblique`` False uses neither). Why and what they found:
    docs/settings.md, ``OutlineParams``."""

    #: a fifth mask: Otsu's threshold on the darkest colour channel (paper is white, felt, wood
    #: and cloth are coloured). Cost: one more threshold and contour pass, about 1/5 of the search.
    paper: bool = True
    #: fraction of each side of a hull's quad that must lie within :attr:`tolerance` of the
    #: contour for a broken outline to count (0: the support fit off). Lower: overlapping cards,
    #: hands and texture taken for cards. Cost: a hull and a small drawing per such contour.
    support: float = 0.7
    #: ... within this fraction of the quad's short side (a dilated edge's contour lies 1-2 px
    #: outside the edge). Higher: looser fits accepted.
    tolerance: float = 0.04
    #: ... and at least this many pixels.
    tolerance_px: float = 2.0
    #: a support fit is kept only where no outline of the masks is alike (each covering at
    #: least this share of the other): beside a card's own outline it only adds a looser guess.
    #: Cost: none (saves looks).
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



def quad_ok(quad: np.ndarray, img_area: float, aspect: tuple[float, float] = ASPECT_RANGE,
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



def refine(quad: np.ndarray, gray: np.ndarray) -> np.ndarray:
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
        masks.append(paper_mask(image))
    support = params.support if oblique else 0.0
    base: list[np.ndarray] = []  # the outlines of the four masks of head-on views
    extra: list[np.ndarray] = []  # the paper mask's
    fits: list[tuple[np.ndarray, np.ndarray]] = []  # the support fit's (quad, contour): only where no other outline lies
    for k, m in enumerate(masks):
        quads = base if k < 4 else extra
        contours, _ = cv2.findContours(m, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            area = cv2.contourArea(c)
            if area < min_area:
                # an outline open at a gap, or notched into a hollow card, has little area
                # of its own: only its hull can be the card
                if support > 0 and box_area(c) >= min_area:
                    fits.extend(hull_quads(c, img_area, aspect, area_range))
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
                if quad_ok(q, img_area, aspect, area_range):
                    quads.append(q)
                    ok = True
            if support > 0 and not ok and not hull_tried and box_area(c) > 0:
                fits.extend(hull_quads(c, img_area, aspect, area_range))
    # drop exact-ish duplicates (same corners within 3 px); the extras after the others
    unique = distinct_quads(base)
    unique += [q for q in distinct_quads(extra) if not repeats_quad(q, unique)]
    found = list(unique)
    unique += supported_fits(fits, found, params)
    return [refine(q, blur) for q in unique]



def covered_share(q: np.ndarray, other: np.ndarray) -> float:
    """The share of quad ``q``'s area that ``other`` covers."""
    inter, _ = cv2.intersectConvexConvex(q.astype(np.float32), other.astype(np.float32))
    a = cv2.contourArea(q)
    return float(inter / a) if a > 0 else 0.0



def repeats_quad(q: np.ndarray, others: list[np.ndarray]) -> bool:
    """``q`` has its corners within 3 px of one of ``others``."""
    return any(np.max(np.abs(q - u)) < 3 for u in others)



def distinct_quads(quads: list[np.ndarray]) -> list[np.ndarray]:
    """The quads less those repeating an earlier one (:func:`repeats_quad`)."""
    unique: list[np.ndarray] = []
    for q in quads:
        if not repeats_quad(q, unique):
            unique.append(q)
    return unique



def paper_mask(image: np.ndarray) -> np.ndarray:
    """Card paper against a coloured table: Otsu's threshold on the darkest colour channel
    (white paper is bright in all three, felt, wood and cloth are dark in at least one)."""
    b, g, r = cv2.split(image)
    darkest = cv2.GaussianBlur(cv2.min(cv2.min(b, g), r), (5, 5), 0)
    return cv2.threshold(darkest, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]



def box_area(contour: np.ndarray) -> float:
    """The contour's bounding-box area, 0 when a side is too short for a card (8 px, as
    :func:`quad_ok`): a cheap bound before the hull."""
    _, _, bw, bh = cv2.boundingRect(contour)
    return float(bw * bh) if min(bw, bh) > 8 else 0.0



def hull_quads(contour: np.ndarray, img_area: float, aspect: tuple[float, float],
               area_range: tuple[float, float]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The contour's convex hull simplified to 4 corners (:data:`HULL_EPSILONS`), with the
    contour, when it is card-like; whether the contour follows its sides is asked later
    (:func:`supported_fits`), only of the quads that could still be kept."""
    hull = cv2.convexHull(contour)
    if cv2.contourArea(hull) < area_range[0] * img_area:
        return []
    hperi = cv2.arcLength(hull, True)
    for eps in HULL_EPSILONS:
        h4 = cv2.approxPolyDP(hull, eps * hperi, True)
        if len(h4) == 4:
            q = order_quad(h4.reshape(4, 2).astype(np.float32))
            return [(q, contour)] if quad_ok(q, img_area, aspect, area_range) else []
    return []


def supported_hull_quads(contour: np.ndarray, img_area: float, aspect: tuple[float, float],
                         area_range: tuple[float, float], params: OutlineParams) -> list[np.ndarray]:
    """The contour's hull quad (:func:`hull_quads`) when the contour follows each of its
    sides (:attr:`OutlineParams.support`)."""
    return [q for q, c in hull_quads(contour, img_area, aspect, area_range)
            if side_support(q, c, params) >= params.support]


def supported_fits(fits: list[tuple[np.ndarray, np.ndarray]], found: list[np.ndarray],
                   params: OutlineParams) -> list[np.ndarray]:
    """The support fits kept: those whose contour follows the quad's sides, less repeats of an
    earlier such fit (:func:`repeats_quad`), less those alike an outline of the masks (``found``:
    :attr:`OutlineParams.covered`). The side support (the costly test) is measured only for a
    fit not alike a found outline, or for one a later fit repeats (a supported fit, even one
    dropped as alike, keeps its repeats out): the same fits as testing every one first."""
    if not fits:
        return []
    support: dict[int, bool] = {}
    distinct: dict[int, bool] = {}
    quads = np.stack([q for q, _ in fits])
    repeats = np.abs(quads[:, None] - quads[None]).max(axis=(2, 3)) < 3  # as repeats_quad, every pair

    def supported(k: int) -> bool:
        if k not in support:
            q, c = fits[k]
            support[k] = side_support(q, c, params) >= params.support
        return support[k]

    def kept(k: int) -> bool:  # in distinct_quads of the supported fits (earlier ones first)
        if k not in distinct:
            distinct[k] = supported(k) and not any(repeats[k, j] and kept(j) for j in range(k))
        return distinct[k]

    out: list[np.ndarray] = []
    for k, (q, _) in enumerate(fits):
        if any(repeats[k, j] and kept(j) for j in range(k)):
            continue  # an earlier fit kept repeats it: a duplicate
        if not quads_alike(q, found, params.covered) and supported(k):
            out.append(q)
    return out


def quads_alike(q: np.ndarray, others: list[np.ndarray], share: float) -> bool:
    """Whether ``q`` and one of ``others`` each cover at least ``share`` of the other. Pairs
    whose bounding boxes overlap by less than 0.9 x ``share`` of the larger quad's area cannot
    be (the polygons' overlap is at most the boxes'), so only the others are intersected."""
    if not others:
        return False
    lo, hi = q.min(axis=0), q.max(axis=0)
    box = np.stack([np.concatenate([u.min(axis=0), u.max(axis=0)]) for u in others])
    w = np.minimum(hi[0], box[:, 2]) - np.maximum(lo[0], box[:, 0])
    h = np.minimum(hi[1], box[:, 3]) - np.maximum(lo[1], box[:, 1])
    inter = np.clip(w, 0, None) * np.clip(h, 0, None)
    aq = cv2.contourArea(q)
    for k, u in enumerate(others):
        if inter[k] < 0.9 * share * max(aq, cv2.contourArea(u)):
            continue
        if min(covered_share(q, u), covered_share(u, q)) >= share:
            return True
    return False


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



def quad_overlap(a: np.ndarray, b: np.ndarray) -> float:
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

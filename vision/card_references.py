"""The deck's references and the canonical face: warping, white balance, the reference faces cut
from calibration images, and one warped face's NCC scores (part of :mod:`vision.cards`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from session.errors import MediaError
from vision.card_outlines import MAX_IMAGE_SIDE, quad_overlap, find_card_outlines

#: canonical card size after warping (portrait). Measured on the real decks: 100x150 left
#: 9/16 webcam cards uncertain (spade vs club pips too small), 150x225 3/16, 200x300 the same
#: at twice the cost
CANON_W, CANON_H = 150, 225



#: pixels trimmed from each side of a reference before matching: lets the match slide by up
#: to this much (re-alignment of an imperfect outline) and drops the card's edge
ALIGN_MARGIN = 8



#: lowest NCC score that counts as "this reference"; measured: right matches on real photos
#: of the same deck score 0.55-0.95, wrong ones and non-cards rarely above 0.45
MIN_SCORE = 0.5



#: lowest lead over the best *other* code; below it the card is uncertain (look-alikes).
#: Measured: right answers led by 0.02-0.3; the one wrong top code on the real sets led by 0.05
MIN_MARGIN = 0.06



#: reference pairs scoring above this against each other are warned about at calibration
LOOKALIKE_SCORE = 0.8



REF_NAME = re.compile(r"^(?P<code>[^_]+?)(?:_\d+)?$")



IMAGE_EXT = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}



def reference_files(folder: Path) -> list[Path]:
    """The entries of a reference folder that :meth:`References.from_folder` reads, by name
    (an image's suffix), readable or not: one that is not is its error, never skipped."""
    return [p for p in sorted(Path(folder).iterdir()) if p.suffix.lower() in IMAGE_EXT]



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
    m = ALIGN_MARGIN
    inner = card[m:-m:step, m:-m:step].reshape(-1, 3).astype(np.float32)
    white = np.maximum(np.percentile(inner, 90, axis=0), 1.0)
    # per channel (numpy broadcasting over a last axis of 3 is 3x slower); the same float64
    # division and clip as on the whole array, so the result is identical bit for bit
    chans = []
    for c in range(3):
        x = card[:, :, c].astype(np.float64)
        x /= white[c]
        np.clip(x, 0, 1.2, out=x)
        chans.append(x.astype(np.float32))
    return cv2.GaussianBlur(cv2.merge(chans), (3, 3), 0)



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
        self.matrix = np.stack([unit_vector(r.template) for r in refs])  # zero-shift NCC in one product
        self._half: dict[int, np.ndarray] = {}
        self._coarse: tuple[int, np.ndarray] | None = None
        self._partners: dict[tuple[str, float], list[str]] = {}
        #: each reference's ink colour, filled as asked by :func:`vision.card_ink.ref_ink` (InkParams)
        self.ink_colours: dict[int, np.ndarray | None] = {}
        self.realigned = 0  # ECC re-alignments of misfit faces onto these references (benchmark figure)

    def unit(self, i: int) -> np.ndarray:
        """Reference ``i``'s template as a unit vector (a row of the zero-shift matrix)."""
        return self.matrix[i]

    def coarse(self, step: int) -> np.ndarray:
        """The zero-shift matrix of the templates taken at every ``step``-th pixel (rows
        and columns): the cheap first pass of :func:`vision.card_recognise.zero_best`,
        made once per deck."""
        if self._coarse is None or self._coarse[0] != step:
            self._coarse = (step, np.stack([unit_vector(r.template[::step, ::step]) for r in self.refs]))
        return self._coarse[1]

    def half_gray(self, i: int) -> np.ndarray:
        """Reference ``i``'s template in grey at half size (the ECC re-alignment's target),
        made once per deck."""
        if i not in self._half:
            self._half[i] = cv2.resize(gray(self.refs[i].template), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        return self._half[i]

    def partners(self, code: str, score: float) -> list[str]:
        """Other codes whose references match one of ``code``'s at zero shift, either way up,
        at least ``score`` well, the closest first (made once per deck and score)."""
        key = (code, score)
        if key not in self._partners:
            mine = [i for i, r in enumerate(self.refs) if r.code == code]
            sim = self.matrix[mine] @ self.matrix.T
            flipped = np.stack([unit_vector(np.ascontiguousarray(r.template[::-1, ::-1])) for r in self.refs])
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
        for name, faces in consistent_faces(found).items():
            m = REF_NAME.match(name)
            code = m.group("code") if m else name
            for source, face in faces:
                refs.append(Reference(code, source, face_template(face)))
        return References(refs)

    @staticmethod
    def from_folder(folder: str | Path) -> "References":
        folder = Path(folder)
        if not folder.is_dir():
            raise MediaError(f"reference folder {folder} not found")
        images = {}
        for p in reference_files(folder):
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
            full = padded(a.template)
            for b in self.refs[i + 1:]:
                if a.code == b.code:
                    continue
                s = max(ncc(full, b.template), ncc(full[::-1, ::-1].copy(), b.template))
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
             and quad_overlap(q, best) > 0.95 and squareness(q) > 0.9]
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
    """Making a deck's references alike where some of its cards have a printed frame: a
    scene's outline cuts out the card or the frame inside it, so where most of a deck's
    references show a frame every code is given both (the missing one cut or extended by the
    deck's typical frame position). Cost: none at run time but the added references (one
    zero-shift product row each). Why: docs/settings.md, ``FrameParams``."""

    #: the deck counts as framed when at least this share of its reference images has both
    #: outlines. Lower: decks framed only on a few cards (aces, court cards) get frames made up.
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



CANON_CORNERS = np.float32([[0, 0], [CANON_W - 1, 0], [CANON_W - 1, CANON_H - 1], [0, CANON_H - 1]])



def consistent_faces(found: dict[str, tuple[np.ndarray, np.ndarray | None, np.ndarray | None]],
                      params: FrameParams = FRAMES) -> dict[str, list[tuple[str, np.ndarray]]]:
    """``{name: [(source, face)]}`` from ``{name: (image, card quad, frame quad)}`` (see
    :class:`FrameParams`)."""
    both = {n: (c, f) for n, (_, c, f) in found.items() if c is not None and f is not None}
    framed = len(found) > 0 and len(both) >= params.framed_share * len(found)
    rel = None
    if framed:
        # the frame's corners in the card's canonical coordinates, median over the deck
        pts = [cv2.perspectiveTransform(f.reshape(-1, 1, 2), cv2.getPerspectiveTransform(c, CANON_CORNERS)).reshape(4, 2)
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
                to_image = cv2.getPerspectiveTransform(CANON_CORNERS, frame)
                card_canon = cv2.perspectiveTransform(CANON_CORNERS.reshape(-1, 1, 2),
                                                      cv2.getPerspectiveTransform(rel, CANON_CORNERS))
                card = cv2.perspectiveTransform(card_canon, to_image).reshape(4, 2).astype(np.float32)
                out[name] = [(f"{name}#card", warp_card(image, card)), (f"{name}#inner", warp_card(image, frame))]
                continue
            if frame is None:  # the frame cut from the card at the deck's frame position
                frame = cv2.perspectiveTransform(rel.reshape(-1, 1, 2), cv2.getPerspectiveTransform(CANON_CORNERS, card))
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



def face_template(face: np.ndarray) -> np.ndarray:
    n = normalise(face)
    return np.ascontiguousarray(n[ALIGN_MARGIN:-ALIGN_MARGIN, ALIGN_MARGIN:-ALIGN_MARGIN])



def padded(template: np.ndarray) -> np.ndarray:
    return cv2.copyMakeBorder(template, ALIGN_MARGIN, ALIGN_MARGIN, ALIGN_MARGIN, ALIGN_MARGIN, cv2.BORDER_REPLICATE)



def unit_vector(a: np.ndarray) -> np.ndarray:
    v = a.reshape(-1).astype(np.float32)  # a copy: the subtraction below is in place
    v -= v.mean()
    v /= np.linalg.norm(v) + 1e-6
    return v



def ncc(candidate: np.ndarray, template: np.ndarray) -> float:
    """Best NCC of ``template`` slid over ``candidate`` (the shift search = re-alignment)."""
    r = cv2.matchTemplate(candidate, template, cv2.TM_CCOEFF_NORMED)
    return float(r.max())



class Face:
    """One warped face, normalised once, with its shift-search scores per reference (both
    turns) kept: the first look, the full match, the ECC re-alignment and the second stage of
    one outline share them instead of warping, normalising and searching again."""

    def __init__(self, face: np.ndarray):
        self.cand = normalise(face)
        self.flipped = np.ascontiguousarray(self.cand[::-1, ::-1])
        self.ncc: dict[int, tuple[float, float]] = {}
        self._zero: tuple[np.ndarray, np.ndarray] | None = None
        #: per reference: (turned, the face re-aligned onto it by ECC, canonical size)
        self.aligned: dict[int, tuple[bool, np.ndarray]] = {}
        #: per reference: (turned, the ECC homography, template -> face coordinates)
        self.warps: dict[int, tuple[bool, np.ndarray]] = {}
        self._half: np.ndarray | None = None
        #: the outline the face was warped through, in image pixels (None: unknown)
        self.quad: np.ndarray | None = None

    @property
    def half(self) -> np.ndarray:
        """The face in grey at half size (the ECC's and the occlusion test's image)."""
        if self._half is None:
            self._half = cv2.resize(gray(self.cand), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        return self._half

    @property
    def half_flipped(self) -> np.ndarray:
        return np.ascontiguousarray(self.half[::-1, ::-1])

    def shifted(self, refs: "References", i: int) -> tuple[float, float]:
        """The shift-search NCC of reference ``i`` at 0 and 180 degrees."""
        if i not in self.ncc:
            t = refs.refs[i].template
            self.ncc[i] = (ncc(self.cand, t), ncc(self.flipped, t))
        return self.ncc[i]

    def zero(self, refs: "References") -> tuple[np.ndarray, np.ndarray]:
        """Zero-shift NCC against every reference at 0 and 180 degrees."""
        if self._zero is None:
            m = ALIGN_MARGIN
            self._zero = (refs.matrix @ unit_vector(self.cand[m:-m, m:-m]), refs.matrix @ unit_vector(self.flipped[m:-m, m:-m]))
        return self._zero



def gray(a: np.ndarray) -> np.ndarray:
    return (a.mean(axis=2) if a.ndim == 3 else a).astype(np.float32)

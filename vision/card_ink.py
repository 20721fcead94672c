"""The ink colour test: a doubt between codes of different ink settled by the face's own ink
(part of :mod:`vision.cards`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.card_references import References, Face, padded

@dataclass(frozen=True)
class InkParams:
    """A doubt between codes of different ink (a red rival to a black card at an angle, whose
    shape score is unknown) settled by the face's own ink colour, measured like each reference's
    (:func:`ink_colour`). Cost: one mean over the face's dark pixels per face tested (well under
    1 ms); a right card whose ink reads as another's is uncertain (a warning), never misread.
    How it decides and what it read: docs/settings.md, ``InkParams``."""

    #: the ink test at all. Off: those doubts stay uncertain.
    on: bool = True
    #: a pixel is ink where its mean channel (white-balanced, paper = 1) is below this
    dark: float = 0.6
    #: the face's border left out, in card widths (a misfit warp's border may show the table)
    inset: float = 0.08
    #: a face with fewer than this share of its pixels dark shows no ink
    min_share: float = 0.01
    #: two references' inks differ when their colours lie this far apart. Lower: same-colour
    #: references taken as different inks (wrong settles); higher: red and black not told apart.
    min_gap: float = 0.165
    #: the face's ink must lie within this share of the gap of the winner's ink, along the
    #: line and off it (the 3x rule, in colour). Higher: more settled, less sure.
    fraction: float = 1 / 3
    #: the ink settles a doubt only for a face that fits its winner at least this well. Lower:
    #: with a card's own code missing, an uncertain card turns into a wrong one.
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



def ink_near(ink: np.ndarray, a: np.ndarray, b: np.ndarray, params: InkParams) -> bool:
    """Whether ``ink`` lies within the fraction of the gap of ``a`` (along the line a-b and
    off it), ``a`` and ``b`` being at least :attr:`InkParams.min_gap` apart."""
    d = b - a
    gap = float(np.linalg.norm(d))
    if gap < params.min_gap:
        return False
    t = float(np.dot(ink - a, d)) / (gap * gap)
    off = float(np.linalg.norm(ink - a - t * d)) / gap
    return abs(t) <= params.fraction and off <= params.fraction



def ref_ink(refs: "References", i: int, params: InkParams) -> np.ndarray | None:
    cache = refs.ink_colours
    if i not in cache:
        cache[i] = ink_colour(padded(refs.refs[i].template), params)
    return cache[i]



def face_ink(look: "Face", i: int, params: InkParams) -> np.ndarray | None:
    """The face's ink, on the face re-aligned onto reference ``i`` when it was."""
    face = look.aligned[i][1] if i in look.aligned else look.cand
    return ink_colour(face, params)



def ink_settles(look: "Face", refs: "References", win_i: int, rival: str, score: float,
                params: InkParams | None = None) -> bool:
    """Whether every reference of ``rival`` is told apart from reference ``win_i`` (which
    the face fits at ``score``) by the face's ink (:class:`InkParams`)."""
    params = params or INK
    if not params.on or score < params.min_fit:
        return False
    a = ref_ink(refs, win_i, params)
    face = face_ink(look, win_i, params) if a is not None else None
    if face is None:
        return False
    others = [j for j, r in enumerate(refs.refs) if r.code == rival]
    for j in others:
        b = ref_ink(refs, j, params)
        if b is None or not ink_near(face, a, b, params):
            return False
    return bool(others)



def ink_contradicts(look: "Face", refs: "References", win_i: int, ranked: list,
                    params: InkParams | None = None) -> str | None:
    """The best-ranked code whose reference's ink the face's ink is near, that ink at least
    :attr:`InkParams.min_gap` from reference ``win_i``'s; None when the face's ink is
    unclear or agrees with the winner's."""
    params = params or INK
    if not params.on:
        return None
    a = ref_ink(refs, win_i, params)
    face = face_ink(look, win_i, params) if a is not None else None
    if face is None:
        return None
    win = refs.refs[win_i].code
    for code, _ in ranked:
        if code == win:
            continue
        for j, r in enumerate(refs.refs):
            b = ref_ink(refs, j, params) if r.code == code else None
            if b is not None and ink_near(face, b, a, params):
                return code
    return None

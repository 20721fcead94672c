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

The code is split by what it does; every name is
importable from here: :mod:`vision.card_outlines` (outline finding), :mod:`vision.card_references`
(references, the canonical face), :mod:`vision.card_match` (one face against the references),
:mod:`vision.card_realign` (ECC re-alignment of misfit faces and its gate),
:mod:`vision.card_lookalikes` (the second stage), :mod:`vision.card_ink` (the ink test),
:mod:`vision.card_occlusion` (covered faces), :mod:`vision.card_recognise` (a still image) and
:mod:`vision.card_zone` (a zone in a video).
"""

# ruff: noqa: F401  (re-exports)
from vision.card_outlines import (  # noqa: F401
    AREA_RANGE,
    ASPECT_RANGE,
    CORNER_RANGE,
    HEAD_ON_AREA_RANGE,
    HEAD_ON_ASPECT_RANGE,
    HULL_EPSILONS,
    HULL_SOLIDITY,
    MAX_IMAGE_SIDE,
    MIN_IMAGE_SIDE,
    OUTLINES,
    OutlineParams,
    ZONE_AREA_RANGE,
    ZONE_ASPECT_RANGE,
    box_area,
    covered_share,
    distinct_quads,
    quad_overlap,
    paper_mask,
    quad_ok,
    refine,
    repeats_quad,
    supported_hull_quads,
    hull_quads,
    supported_fits,
    quads_alike,
    corner_angles,
    find_card_outlines,
    image_aspect,
    order_quad,
    search_scale,
    side_support,
    turned,
)
from vision.card_references import (  # noqa: F401
    ALIGN_MARGIN,
    CANON_H,
    CANON_W,
    FRAMES,
    FrameParams,
    LOOKALIKE_SCORE,
    MIN_MARGIN,
    MIN_SCORE,
    Reference,
    References,
    CANON_CORNERS,
    Face,
    IMAGE_EXT,
    REF_NAME,
    consistent_faces,
    gray,
    ncc,
    padded,
    face_template,
    unit_vector,
    normalise,
    reference_face,
    reference_faces,
    reference_quads,
    squareness,
    warp_card,
)
from vision.card_ink import (  # noqa: F401
    INK,
    InkParams,
    face_ink,
    ink_near,
    ref_ink,
    ink_colour,
    ink_contradicts,
    ink_settles,
)
from vision.card_lookalikes import (  # noqa: F401
    DIFF_CONTRAST,
    MIN_DIFF_PIXELS,
    SECOND_STAGE,
    SEPARATE_FRACTION,
    SecondStageParams,
    ecc_aligned,
    gaussian_blurred,
    ecc,
    pair_measures,
    placed_in_frame,
    separated,
    standard,
    lookalike_tournament,
    tournament_rounds,
    undersampling,
    face_blur,
    footprint,
    separate,
    separate_matched,
    seen_through,
)
from vision.card_realign import (  # noqa: F401
    REFINE_BELOW,
    REFINE_CODES,
    REFINE_FLOOR,
    REFINE_GATE,
    REFINE_ITERATIONS,
    REFINE_MAX_SHIFT,
    REFINE_OUTLINES,
    REFINE_REALIGN,
    REFINE_SPAN,
    RefineGateParams,
    doubts,
    ink_settled,
    outline_kind,
    is_misfit,
    realign_face,
    refined_ranking,
    seeded_ranking,
)
from vision.card_occlusion import (  # noqa: F401
    OCCLUSION,
    OcclusionParams,
    block_match,
    occluded_measure,
)
from vision.card_match import (  # noqa: F401
    Match,
    REALIGN_TOP,
    ink_checked,
    match_face,
)
from vision.card_recognise import (  # noqa: F401
    BOTH_WAYS_BELOW,
    BOTH_WAYS_CLEAR,
    BOTH_WAYS_SPAN,
    OUTLINES_PER_CARD,
    first_looks,
    keep_best,
    same_card,
    zero_best,
    codes_of,
    outline_matches,
    recognise,
)
from vision.card_zone import (  # noqa: F401
    CONFIRM_FRAMES,
    CardZoneWatcher,
    RING_FRAMES,
    SETTLE_DIFF,
    SETTLE_FRAMES,
    STILL_DIFF,
    UNREAD_DIFF,
    WALK_GAP,
    Slot,
)

#: every name above (the re-exports of this module)
__all__ = [
    "AREA_RANGE", "ASPECT_RANGE", "CORNER_RANGE", "HEAD_ON_AREA_RANGE", "HEAD_ON_ASPECT_RANGE",
    "HULL_EPSILONS", "HULL_SOLIDITY", "MAX_IMAGE_SIDE", "MIN_IMAGE_SIDE", "OUTLINES",
    "OutlineParams", "ZONE_AREA_RANGE", "ZONE_ASPECT_RANGE", "box_area", "covered_share",
    "distinct_quads", "quad_overlap", "paper_mask", "quad_ok", "refine", "repeats_quad",
    "supported_hull_quads", "hull_quads", "supported_fits", "quads_alike", "corner_angles",
    "find_card_outlines", "image_aspect", "order_quad", "search_scale", "side_support", "turned",
    "ALIGN_MARGIN", "CANON_H", "CANON_W", "FRAMES", "FrameParams", "LOOKALIKE_SCORE", "MIN_MARGIN",
    "MIN_SCORE", "Reference", "References", "CANON_CORNERS", "Face", "IMAGE_EXT", "REF_NAME",
    "consistent_faces", "gray", "ncc", "padded", "face_template", "unit_vector", "normalise",
    "reference_face", "reference_faces", "reference_quads", "squareness", "warp_card", "INK",
    "InkParams", "face_ink", "ink_near", "ref_ink", "ink_colour", "ink_contradicts", "ink_settles",
    "DIFF_CONTRAST", "MIN_DIFF_PIXELS", "SECOND_STAGE", "SEPARATE_FRACTION", "SecondStageParams",
    "ecc_aligned", "gaussian_blurred", "ecc", "pair_measures", "placed_in_frame", "separated",
    "standard", "lookalike_tournament", "tournament_rounds", "undersampling", "face_blur",
    "footprint", "separate", "separate_matched", "seen_through", "REFINE_BELOW", "REFINE_CODES",
    "REFINE_FLOOR", "REFINE_GATE", "REFINE_ITERATIONS", "REFINE_MAX_SHIFT", "REFINE_OUTLINES",
    "REFINE_REALIGN", "REFINE_SPAN", "RefineGateParams", "doubts", "ink_settled", "outline_kind",
    "is_misfit", "realign_face", "refined_ranking", "seeded_ranking", "OCCLUSION",
    "OcclusionParams", "block_match", "occluded_measure", "Match", "REALIGN_TOP", "ink_checked",
    "match_face", "BOTH_WAYS_BELOW", "BOTH_WAYS_CLEAR", "BOTH_WAYS_SPAN", "OUTLINES_PER_CARD",
    "first_looks", "keep_best", "same_card", "zero_best", "codes_of", "outline_matches",
    "recognise", "CONFIRM_FRAMES", "CardZoneWatcher", "RING_FRAMES", "SETTLE_DIFF", "SETTLE_FRAMES",
    "STILL_DIFF", "UNREAD_DIFF", "WALK_GAP", "Slot",
]

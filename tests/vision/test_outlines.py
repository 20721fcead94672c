"""The outline search for cards seen small, far and at a steep angle (issue 14): rendered
scenes where the searches of head-on views give a card no outline, and what the new ones must
not do (a strip of table, two overlapping cards, references cut out as before)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import cards, synth


def _best_overlap(quads, truth: np.ndarray) -> float:
    """The largest mutual coverage (the smaller of both shares) of ``truth`` by one quad."""
    best = 0.0
    for q in quads:
        best = max(best, min(cards.covered_share(truth, q), cards.covered_share(q, truth)))
    return best


def _deck():
    faces = {c: synth.card_face(c, i + 2) for i, c in enumerate(("c02", "c05", "c07"))}
    return faces, cards.References.from_images(faces, find_outline=False)


def test_a_small_far_card_lying_across_a_steep_view_gets_an_outline_and_is_read():
    """The farthest card of a photo turned 60 degrees: about 64 x 18 px, image aspect 3.5,
    0.3 % of the picture, below the head-on bounds (aspect <= 1.9 and 3.0 before; area
    >= 0.4 %)."""
    faces, refs = _deck()
    scene = synth.table_background(1000, 420, np.random.default_rng(7))
    # a portrait card lying sideways (its long side across the line of sight), squeezed in depth
    far = np.float32([[470, 300], [536, 303], [532, 322], [466, 318]])
    synth.place_card(scene, np.ascontiguousarray(np.rot90(faces["c05"])), far)
    assert cards.image_aspect(far) > 3.0
    area = cv2.contourArea(far) / (scene.shape[0] * scene.shape[1])
    assert area < cards.HEAD_ON_AREA_RANGE[0]
    assert _best_overlap(cards.find_card_outlines(scene), far) > 0.8
    assert _best_overlap(cards.find_card_outlines(scene, oblique=False), far) < 0.5
    codes = [m.code for m in cards.recognise(scene, refs) if m.status == "ok"]
    assert codes in (["c05"], [])  # read, or left unread: never another code
    assert "c05" in codes or any(m.status == "uncertain" for m in cards.recognise(scene, refs))


def test_the_paper_mask_parts_a_card_from_light_felt_that_grey_joins_to_it():
    """A card beside a patch of light felt as bright in grey as the card: the grey-level Otsu
    mask takes both for one bright region; the paper mask (the darkest colour channel) keeps
    only the card."""
    faces, refs = _deck()
    scene = synth.table_background(640, 480, np.random.default_rng(3))
    card = np.float32([[250, 140], [370, 140], [370, 320], [250, 320]])
    cv2.rectangle(scene, (150, 150), (249, 300), (70, 255, 70), -1)  # the light felt, touching
    synth.place_card(scene, faces["c07"], card, gain=0.72)
    gray = cv2.GaussianBlur(cv2.cvtColor(scene, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    otsu = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]
    paper = cards.paper_mask(scene)
    felt = (slice(170, 280), slice(160, 240))
    inside = (slice(150, 310), slice(260, 360))
    assert otsu[felt].mean() > 200 and otsu[inside].mean() > 128
    assert paper[felt].mean() < 20 and paper[inside].mean() > 128
    assert _best_overlap(cards.find_card_outlines(scene), card) > 0.9
    assert [m.code for m in cards.recognise(scene, refs) if m.status == "ok"] == ["c07"]


def _drawn_outline(gap: float) -> tuple[np.ndarray, np.ndarray]:
    """A card on paper of its own shade, seen only by its edge line, open over ``gap`` of its
    right side (an edge lost to compression)."""
    img = np.full((360, 480, 3), 185, np.uint8)
    quad = np.float32([[170, 80], [300, 92], [292, 290], [160, 280]])
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        if i == 1:  # the right side: drawn but for a gap in its middle
            m1, m2 = a + (b - a) * (0.5 - gap / 2), a + (b - a) * (0.5 + gap / 2)
            for p, r in ((a, m1), (m2, b)):
                cv2.line(img, tuple(int(v) for v in p), tuple(int(v) for v in r), (110, 110, 110), 2)
        else:
            cv2.line(img, tuple(int(v) for v in a), tuple(int(v) for v in b), (110, 110, 110), 2)
    return img, quad


def test_an_edge_line_open_at_a_gap_is_fitted_by_its_hull():
    img, quad = _drawn_outline(0.15)
    assert _best_overlap(cards.find_card_outlines(img, params=cards.OutlineParams(support=0.0)), quad) < 0.9
    assert _best_overlap(cards.find_card_outlines(img), quad) > 0.9
    # references are cut out as before: no support fit for head-on search
    assert _best_overlap(cards.find_card_outlines(img, oblique=False), quad) < 0.9


def test_a_side_mostly_unfollowed_gives_no_fit():
    """Half the right side missing: the contour does not follow the quad (an L of two cards,
    a cut corner, texture), so the hull is not taken for a card."""
    img, quad = _drawn_outline(0.6)
    assert cards.side_support(quad, np.int32([[170, 80], [300, 92], [292, 290], [160, 280]]).reshape(-1, 1, 2)) == 1.0
    assert _best_overlap(cards.find_card_outlines(img), quad) < 0.9


def test_two_overlapping_cards_get_no_hull_fit_of_both():
    """Two cards crossing: their joint contour's hull is no card (its sides cut across the
    table), so the support fit adds no outline spanning both."""
    faces, _ = _deck()
    scene = synth.table_background(640, 480, np.random.default_rng(4))
    a = synth.card_quad(280, 240, 110, 0)
    b = synth.card_quad(350, 260, 110, 35)
    synth.place_card(scene, faces["c02"], a)
    synth.place_card(scene, faces["c05"], b)

    def spanning(params):
        return sum(cards.covered_share(a, q) > 0.8 and cards.covered_share(b, q) > 0.8
                   for q in cards.find_card_outlines(scene, params=params))

    assert spanning(cards.OutlineParams()) == spanning(cards.OutlineParams(support=0.0))
    assert _best_overlap(cards.find_card_outlines(scene), b) > 0.9  # the card on top


def test_outline_params_are_validated():
    with pytest.raises(ValueError, match="support"):
        cards.OutlineParams(support=1.5)
    with pytest.raises(ValueError, match="tolerance"):
        cards.OutlineParams(tolerance=0.6)
    with pytest.raises(ValueError, match="covered"):
        cards.OutlineParams(covered=0.0)
    with pytest.raises(ValueError, match="tolerance_px"):
        cards.OutlineParams(tolerance_px=-1)


def _real_view(deck: str, view) -> tuple[int, int, int]:
    from tests.vision.helpers import card_rows
    from vision.bench import card_queries, deck_reference_images, score_cards

    rows = card_rows()
    refs = cards.References.from_images(deck_reference_images(rows, deck))
    right = wrong = total = 0
    for _, img, truth in card_queries(rows, deck):
        total += len(truth)
        r, w, _u = score_cards(cards.recognise(view(img), refs), truth)
        right, wrong = right + r, wrong + w
    return right, wrong, total


def test_the_farthest_cards_of_real_phone_photos_turned_60_degrees_are_outlined():
    """Measured: 14/16, 0 wrong (the 2 others outlined, uncertain between a club and a spade
    at about 45 x 20 px); before the paper mask, the wider aspect and area: 12/16, the
    farthest cards without an outline."""
    from vision import degrade

    right, wrong, total = _real_view("USPCC-bicycle-like", lambda i: degrade.oblique(i, 60))
    assert total == 16 and wrong == 0 and right >= 13


def test_real_webcam_cards_at_45_degrees_through_webcam_compression_are_outlined():
    """Measured: 12/16, 0 wrong (4 uncertain look-alikes); before the support fit 10/16: 9C and
    7S had no outline (their edge line open at a gap)."""
    from vision import degrade

    right, wrong, total = _real_view("wmcnicho-deck", lambda i: degrade.webcam(degrade.oblique(i, 45)))
    assert total == 16 and wrong == 0 and right >= 11

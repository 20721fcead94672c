"""The first look's shortlist (vision.card_recognise.zero_best): a coarse pass over every
reference, the full zero-shift product only for the best few — the same best reference and
score as the full product over the whole deck, on clean and degraded faces."""

from __future__ import annotations

import numpy as np
import pytest

from referee.commands.demo_files import TAKOYAKI_DEMO
from vision import card_recognise
from vision.card_references import ALIGN_MARGIN, CANON_H, CANON_W, References, normalise, unit_vector
from vision.standard_cards import draw_face


def _full(face, refs):
    cand = normalise(face, step=3)
    m = ALIGN_MARGIN
    inner = cand[m:-m, m:-m]
    z = np.maximum(refs.matrix @ unit_vector(inner), refs.matrix @ unit_vector(inner[::-1, ::-1]))
    i = int(np.argmax(z))
    return float(z[i]), refs.refs[i].code


@pytest.fixture(scope="module")
def refs():
    return References.from_folder(TAKOYAKI_DEMO / "refs")


@pytest.mark.parametrize("code", ["AS", "7H", "10C", "QD", "KS", "JK", "6C", "6S"])
@pytest.mark.parametrize("view", ["clean", "turned", "dark", "noisy"])
def test_the_shortlist_gives_the_full_products_best(refs, code, view):
    import cv2

    face = cv2.resize(draw_face(code), (CANON_W, CANON_H), interpolation=cv2.INTER_AREA)
    if view == "turned":
        face = np.ascontiguousarray(face[::-1, ::-1])
    elif view == "dark":
        face = (face * 0.45).astype(np.uint8)
    elif view == "noisy":
        face = np.clip(face + np.random.default_rng(7).normal(0, 25, face.shape), 0, 255).astype(np.uint8)
    assert len(refs.refs) > card_recognise.ZERO_SHORTLIST  # (the shortlist is used)
    score, got = card_recognise.zero_best(face, refs)
    want_score, want = _full(face, refs)
    assert got == want == code and score == pytest.approx(want_score, abs=1e-5)


def test_without_a_shortlist_the_first_look_is_the_full_product(refs, monkeypatch):
    import cv2

    face = cv2.resize(draw_face("9D"), (CANON_W, CANON_H), interpolation=cv2.INTER_AREA)
    monkeypatch.setattr(card_recognise, "ZERO_SHORTLIST", len(refs.refs))
    assert card_recognise.zero_best(face, refs) == _full(face, refs)

"""Several standard cards in one zone (vision/card_spread.py): each read against the group's own
references, or unclear, never another card; metamorphic variants (re-encoded, darker, gamma,
seen at 30 and 45 degrees, a hand over a card) on drawn faces and on the real photos."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision import degrade, synth
from vision.card_references import References
from vision.bench import tally_spread
from vision.card_spread import SpreadParams, read_spread
from vision.standard_cards import FACE_H, FACE_W, deck_faces, draw_back, draw_face

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
SPREAD = ["7H", "6H", "8D", "9S", "10C", "JK"]  # look-alikes side by side (6/7/8 hearts-diamonds)
CODES = [f"{r}{s}" for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")] + ["JK"]


@pytest.fixture(scope="module")
def refs() -> References:
    """The whole deck as calibration takes it: each face alone on a dark table."""
    rng = np.random.default_rng(0)
    shots = {}
    for code, face in deck_faces(CODES).items():
        img = synth.table_background(480, 560, rng, colour=(50, 60, 70))
        synth.place_card(img, face, synth.card_quad(240, 280, 250, 0))
        shots[code] = img
    return References.from_images(shots)


def spread_scene(codes=SPREAD, seed: int = 1) -> tuple[np.ndarray, list[np.ndarray]]:
    """A row of cards on felt, neighbours touching or overlapping by a few pixels, each turned a little."""
    rng = np.random.default_rng(seed)
    img = synth.table_background(1280, 720, rng)
    quads = []
    for k, code in enumerate(codes):
        q = synth.card_quad(150 + k * 196, 330 + (k % 2) * 40, 190, (-1) ** k * 4.0)
        synth.place_card(img, draw_face(code), q)
        quads.append(q)
    return img, quads


def codes_read(cards) -> list[str]:
    return sorted(c.code for c in cards if c.status == "read")


def test_faces_are_drawn_portrait_and_distinct():
    faces = deck_faces(CODES)
    assert all(f.shape == (FACE_H, FACE_W, 3) for f in faces.values())
    assert len({f.tobytes() for f in faces.values()}) == len(CODES)
    assert not np.array_equal(draw_back(), draw_face("AS"))


def test_every_card_of_a_spread_is_read(refs):
    img, _ = spread_scene()
    cards = read_spread(img, refs)
    assert codes_read(cards) == sorted(SPREAD)
    assert tally_spread(cards, SPREAD) == (len(SPREAD), 0, 0, 0)


def test_a_zone_box_reads_only_its_cards_in_image_pixels(refs):
    img, quads = spread_scene()
    box = (0, 0, 520, 720)  # the first two cards and a half
    cards = read_spread(img, refs, box)
    assert codes_read(cards)[:2] == sorted(SPREAD[:2]) or set(SPREAD[:2]) <= set(codes_read(cards))
    assert not set(codes_read(cards)) - set(SPREAD[:3])
    first = [c for c in cards if c.code == SPREAD[0]][0]
    assert np.abs(first.quad.mean(0) - quads[0].mean(0)).max() < 8  # full-image pixels


@pytest.mark.parametrize("view", ["webcam", "darker", "gamma", "30 deg", "45 deg"])
def test_metamorphic_views_read_right_or_unclear_never_wrong(refs, view):
    img, _ = spread_scene()
    fn = {"webcam": lambda i: degrade.webcam(i, longest=1280, quality=40),
          "darker": lambda i: (i * 0.5).astype(np.uint8),
          "gamma": lambda i: (255 * (i / 255.0) ** 1.8).astype(np.uint8),
          "30 deg": lambda i: degrade.oblique(i, 30), "45 deg": lambda i: degrade.oblique(i, 45)}[view]
    right, unclear, wrong, _ = tally_spread(read_spread(fn(img), refs), SPREAD)
    assert wrong == 0
    assert right >= len(SPREAD) - 1, (right, unclear)


def test_a_hand_over_a_card_makes_it_unclear_never_another_card(refs):
    img, quads = spread_scene()
    for k in (0, 3):  # 7 of hearts (look-alikes beside it), 9 of spades
        covered = img.copy()
        synth.draw_hand_blob(covered, tuple(int(v) for v in quads[k].mean(0)), 85)
        cards = read_spread(covered, refs)
        right, _, wrong, _ = tally_spread(cards, SPREAD)
        assert wrong == 0
        assert SPREAD[k] not in codes_read(cards)
        assert right >= len(SPREAD) - 2  # the arm may cover a neighbour


def test_a_face_down_card_is_no_card(refs):
    rng = np.random.default_rng(3)
    img = synth.table_background(640, 480, rng)
    synth.place_card(img, draw_back(), synth.card_quad(320, 240, 190, 0))
    assert [c for c in read_spread(img, refs) if c.status == "read"] == []


def test_bad_settings_and_boxes_are_one_clear_error(refs):
    with pytest.raises(ValueError, match="unclear_score"):
        SpreadParams(unclear_score=0.9)
    with pytest.raises(ValueError, match="whole_share"):
        SpreadParams(whole_share=1.5)
    with pytest.raises(ValueError, match="outside"):
        read_spread(np.zeros((100, 100, 3), np.uint8), refs, (200, 200, 300, 300))


# --- the real photos (read in place; skipped when the shared data is absent)
def _real():
    if not (DATA / "cards" / "labels.csv").is_file():
        pytest.skip(f"no real card photos at {DATA / 'cards'} (the shared data is absent)")
    from vision.bench import card_queries, card_rows, deck_reference_images

    rows = card_rows(DATA)
    refs = References.from_images(deck_reference_images(rows, "USPCC-bicycle-like"))
    scenes = [q for q in card_queries(rows, "USPCC-bicycle-like") if len(q[2]) > 1]
    return refs, scenes


def test_real_scenes_of_six_and_eight_cards_are_read():
    refs, scenes = _real()
    for _, img, truth in scenes:
        for view in (img, degrade.oblique(img, 45)):
            assert tally_spread(read_spread(view, refs), truth)[:3] == (len(truth), 0, 0)


def test_real_nine_of_spades_under_a_hand_is_not_read_as_the_four():
    """Measured: without the whole-face check, the 9S's four corner pips left by a hand read
    as the 4S at NCC 0.74."""
    refs, scenes = _real()
    _, img, truth = [s for s in scenes if "9S" in s[2]][0]
    nine = [c for c in read_spread(img, refs) if c.code == "9S"][0]
    covered = img.copy()
    w = float(np.linalg.norm(nine.quad[0] - nine.quad[1]))
    synth.draw_hand_blob(covered, tuple(int(v) for v in nine.quad.mean(0)), int(w * 0.45))
    cards = read_spread(covered, refs)
    near = [c for c in cards if np.hypot(*np.subtract(c.centre, nine.centre)) < w / 2]
    assert near and all(c.status == "unclear" for c in near)
    assert tally_spread(cards, truth)[2] == 0


def test_the_benchmark_skips_with_a_message_without_the_photos(tmp_path, capsys):
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_tbc", ROOT / "benchmarks" / "bench_turnbased_camera.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--shared", str(tmp_path), "--only", "photos"]) == 0  # (not the drawn SSP demo)
    assert "skipped: no real card photos" in capsys.readouterr().out


def test_one_count_scores_a_spread_and_a_recognition():
    """vision.bench.count_reads counts both the spread's cards and recognise()'s matches: a
    code right once per true card of it, a second read of it wrong."""
    from types import SimpleNamespace

    from vision.bench import count_reads, score_cards
    from vision.card_spread import SpreadCard

    quad = np.zeros((4, 2), np.float32)
    cards = [SpreadCard("read", "AS", quad, 0.9), SpreadCard("read", "AS", quad, 0.8),
             SpreadCard("unclear", None, quad, 0.5), SpreadCard("unclear", None, quad, 0.45)]
    assert count_reads(["AS", "AS", "7H"], ["AS", "7H", "9C"]) == (2, 1)
    assert tally_spread(cards, ["AS", "7H"]) == (1, 1, 1, 1)  # 1 right, 7H unclear, AS twice, 1 extra unclear
    matches = [SimpleNamespace(status="ok", code="AS"), SimpleNamespace(status="ok", code="AS"),
               SimpleNamespace(status="uncertain", code="7H"), SimpleNamespace(status="none", code=None)]
    assert score_cards(matches, ["AS", "7H"]) == (1, 1, 1)

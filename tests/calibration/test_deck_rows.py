"""The deck's references from layout photos in rows (issue 34, item 1): the cards of a photo
separated, put in reading order and named, and every way a shot can go wrong said in one
line (never a silently wrong reference)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration import steps
from calibration.deck_capture import capture_deck
from calibration.deck_rows import RowsParams, deck_shots, layout_angle, reading_order
from calibration.deck_shot import capture_shot
from calibration.rows_ui import annotate
from calibration.decks import deck_cards
from fixtures.deck_layouts import layout
from vision.synth import card_quad

SPADES = deck_cards("takoyaki")[:13]


def _grid(n, per_row, tilt, seed=0):
    """Card outlines in rows (reading order), turned ``tilt`` degrees about the middle."""
    rng = np.random.default_rng(seed)
    a = np.radians(tilt)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    out = []
    for i in range(n):
        r, c = divmod(i, per_row)
        x, y = rot @ np.array([c * 130.0 - 400, r * 190.0 - 150]) + np.array([640, 360]) + rng.uniform(-8, 8, 2)
        out.append(card_quad(x, y, 100, tilt + rng.uniform(-5, 5)))
    return out


@pytest.mark.parametrize("tilt", [0.0, 12.0, -12.0])
def test_reading_order_is_rows_top_to_bottom_left_to_right_even_tilted(tilt):
    quads = _grid(13, 7, tilt)
    shuffled = np.random.default_rng(3).permutation(13)
    rows = reading_order([quads[k] for k in shuffled])
    assert [len(r) for r in rows] == [7, 6]
    assert [int(shuffled[k]) for r in rows for k in r] == list(range(13))
    assert abs(np.degrees(layout_angle(quads)) - tilt) < 3


def test_a_tilted_layout_read_without_its_angle_would_break_the_rows():
    # the rows' decision needs the layout's direction: at 12 degrees a row of 7 drops 1.3 card
    # widths from end to end, more than the gap allowed across a row
    quads = _grid(13, 7, 12.0)
    ys = [float(np.asarray(q).mean(0)[1]) for q in quads[:7]]
    assert max(ys) - min(ys) > RowsParams().row_gap * 150


def test_deck_shots_are_the_suits_then_the_joker():
    shots = deck_shots(deck_cards("takoyaki"))
    assert [len(s) for s in shots] == [13, 13, 13, 13, 1]
    assert shots[0] == SPADES and shots[-1] == ("JK",)


def test_a_suit_laid_in_rows_gives_its_thirteen_references_by_name():
    from vision.cards import References, recognise

    img, truth = layout(SPADES, seed=1, tilt=6.0)
    shot = capture_shot(img, SPADES, {}, "shot 1")
    assert not steps.failed(shot.checks) and len(shot.captures) == 13
    assert all(not steps.failed(c.checks) for c in shot.captures)
    # each reference is its card: where it lay, and read as itself against the demo's own references
    demo = References.from_folder("fixtures/takoyaki/refs")
    for cap, q in zip(shot.captures, truth):
        assert np.linalg.norm(np.asarray(cap.quad).mean(0) - q.mean(0)) < 10
        assert recognise(cap.image, demo)[0].code == cap.code
    assert annotate(img, shot).shape == img.shape


@pytest.mark.parametrize("laid", [SPADES[:12], SPADES + ("AH",)])
def test_a_missing_or_extra_card_is_one_clear_failure_and_no_reference(laid):
    img, _ = layout(laid, seed=2)
    shot = capture_shot(img, SPADES, {}, "shot 1")
    fails = steps.failed(shot.checks)
    assert len(fails) == 1 and shot.captures == []
    assert f"found {len(laid)} cards, expected 13" in fails[0].message


def test_a_card_laid_twice_is_flagged_as_the_same_picture():
    laid = list(SPADES)
    laid[6] = "6S"  # 6S where 7S belongs (a second 6S: another deck's)
    img, _ = layout(laid, seed=4)
    shot = capture_shot(img, SPADES, {}, "shot 1")
    bad = {c.code: c for c in shot.captures if steps.failed(c.checks)}
    assert set(bad) == {"6S", "7S"}
    assert "the same picture as 6S" in steps.failed(bad["7S"].checks)[0].message


def test_a_suit_laid_again_is_flagged_against_the_references_so_far():
    first, _ = layout(SPADES, seed=5)
    taken = {c.code: c.image for c in capture_shot(first, SPADES, {}, "shot 1").captures}
    again, _ = layout(SPADES, seed=6)  # the spades laid again where the hearts were asked for
    hearts = deck_cards("takoyaki")[13:26]
    shot = capture_shot(again, hearts, taken, "shot 2")
    assert all(steps.failed(c.checks) for c in shot.captures)
    assert "the same picture as AS" in steps.failed(shot.captures[0].checks)[0].message


def test_too_few_photos_for_the_deck_is_said_with_the_plan():
    img, _ = layout(("JK",), seed=0)
    deck = capture_deck([("p1.jpg", img)], deck_cards("takoyaki"))
    fail = steps.failed(deck.checks)[0]
    assert "1 layout photo(s) for 5 shots" in fail.message and "shot 5: JK" in fail.message


def test_a_blurred_layout_fails_sharpness_per_card():
    img, _ = layout(SPADES, seed=7)
    shot = capture_shot(cv2.GaussianBlur(img, (7, 7), 0), SPADES, {}, "shot 1")
    assert shot.captures and all("too blurred" in steps.failed(c.checks)[0].message for c in shot.captures)


def test_deck_photos_need_a_recording(run_cli, tmp_path):
    res = run_cli("calibrate", "--game", "takoyaki", "--camera", "0", "--deck-photos", tmp_path / "a.png")
    assert res.exit_code != 0 and "--deck-photos goes with --from-video" in res.output


@pytest.mark.parametrize("name, value, allowed", [("covered", 1.5, "in [0, 1]"), ("row_gap", 0.0, "> 0"),
                                                  ("size_ratio", 1.0, "> 1")])
def test_rows_params_refuse_values_out_of_range(name, value, allowed):
    import dataclasses
    import re

    with pytest.raises(ValueError, match=rf"RowsParams\.{name} must be {re.escape(allowed)}"):
        dataclasses.replace(RowsParams(), **{name: value})


class _Table:
    """A camera at the table for :func:`calibration.rows_ui.capture_rows`: the empty table,
    then each layout lying still; SPACE on every annotated picture, R on the first of them."""

    def __init__(self, background, layouts, redo_first=False):
        self.background, self.layouts, self.redo = background, list(layouts), redo_first
        self.k, self.frame, self.pictures = 0, None, 0

    def read(self):
        self.frame = self.layouts[min(self.k, len(self.layouts) - 1)]
        return self.frame

    def show(self, lines, boxes=(), frame=None):
        if frame is None:
            return -1
        self.pictures += 1
        if self.redo and self.pictures == 1:
            return ord("r")
        self.k += 1  # kept: the next layout is laid
        return 32


def test_guided_rows_take_each_layout_once_still_and_keep_it_on_space():
    from calibration.rows_ui import capture_rows
    from vision.synth import table_background

    codes = ("AS", "2S", "3S", "JK")
    layouts = [layout(codes[:3], seed=8)[0], layout(codes[3:], seed=9)[0]]
    empty = table_background(1280, 720, np.random.default_rng(0))
    table = _Table(empty, layouts, redo_first=True)
    deck = capture_rows(table, empty, codes, per_shot=3, still_frames=2, say=lambda s: None)
    assert sorted(deck.references) == sorted(codes)
    assert table.pictures == 3  # the first shot taken again (R), then kept, then the joker's


def test_a_recording_read_as_layouts_gives_the_deck_and_the_field(recording, run_cli, tmp_path):
    """``--from-video --deck-rows``: each still showing of the recording is a layout (here the
    demo table's recording, one card per showing: ``--cards-per-photo 1``); every card named in
    order, the field drawn around them, the file written and read back."""
    import json

    from fixtures.demo import cards
    from session import calibration as schema

    rec, truth = recording
    res = run_cli("calibrate", "--game", "ikatako", "--from-video", rec / "calibration.mp4", "--audio",
                  rec / "calibration.wav", "--players", ",".join(truth["players"]), "--deck-rows",
                  "--cards-per-photo", "1", "--out", tmp_path, "--json")
    assert res.exit_code == 0, res.output
    report = json.loads(next(line for line in res.output.splitlines() if line.startswith("{")))
    cal = schema.load(tmp_path / "calibration.json")
    assert set(cal.cards) == set(cards.CODES) and "field" in cal.zones
    shots = [c for c in report["checks"] if c["step"].startswith("layout at ")]
    assert len(shots) == 13 and all(c["level"] == "ok" for c in shots)


def test_deck_photos_give_the_references_and_the_recording_the_rest(recording, run_cli, tmp_path):
    """``--from-video --deck-photos``: the references from a layout photo, the seats and
    channels from the recording (whose one-card showings are then not cards)."""
    import json

    from session import calibration as schema

    rec, truth = recording
    photo = tmp_path / "spades.png"
    cv2.imwrite(str(photo), layout(SPADES, seed=10)[0])
    res = run_cli("calibrate", "--game", "ikatako", "--from-video", rec / "calibration.mp4", "--audio",
                  rec / "calibration.wav", "--players", ",".join(truth["players"]), "--cards", ",".join(SPADES),
                  "--deck-photos", photo, "--zone", "field=300,380,980,700", "--out", tmp_path / "table", "--json")
    assert res.exit_code == 0, res.output
    cal = schema.load(tmp_path / "table" / "calibration.json")
    assert list(cal.cards) == list(SPADES) and [s.channel for s in cal.seats] == [2, 0, 3, 1]
    report = json.loads(next(line for line in res.output.splitlines() if line.startswith("{")))
    assert any(c["step"] == "spades.png" and c["level"] == "ok" for c in report["checks"])

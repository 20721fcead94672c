"""``referee vision zones``: the calibration's seats and card zones drawn on a frame of the
table (the set-up check a group makes before playing), in-process on the bundled demos."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

import rules
from calibration import load
from calibration.overlay import SEAT, ZONE, draw_setup

ROOT = Path(__file__).resolve().parents[2]
TAKOYAKI = ROOT / "fixtures" / "takoyaki"


def test_takoyaki_zones_are_named_as_the_players_say_them():
    game = rules.get("takoyaki")
    assert [game.zone_label(z) for z in ("p:aki:slot1", "p:aki:slot7", "p:ben:slot10", "pile0")] == [
        "aki A", "aki 7", "ben 10", "discards"]
    assert rules.get("ikatako").zone_label("field") == "field"
    assert rules.get("seasaltpaper").zone_label("p:aki:spread") == "aki spread"


def _has(img: np.ndarray, colour, box) -> bool:
    """Whether ``colour`` is drawn along the top edge of ``box``."""
    x1, y1, x2, _ = box
    edge = img[max(y1 - 1, 0):y1 + 2, x1 + 30:x2 - 30].reshape(-1, 3)
    return bool((np.abs(edge.astype(int) - colour).sum(axis=1) < 40).any())


def test_every_zone_and_seat_is_drawn_where_the_calibration_puts_it():
    cal = load(TAKOYAKI / "calibration.json")
    frame = np.full((cal.height, cal.width, 3), 90, np.uint8)
    out = draw_setup(frame, cal)
    assert frame.max() == 90  # (drawn on a copy)
    for b in cal.card_zones.values():
        assert _has(out, ZONE, (b.x1, b.y1, b.x2, b.y2))
    for s in cal.seats:
        assert _has(out, SEAT, (s.box.x1 + 2, s.box.y1 + 2, s.box.x2, s.box.y2))


def test_the_command_draws_a_recordings_frame(run_cli, tmp_path):
    out = tmp_path / "setup.png"
    res = run_cli("vision", "zones", TAKOYAKI / "calibration.json", TAKOYAKI / "session.mp4", "--at", "30",
                  "--out", out)
    assert res.exit_code == 0, res.output
    img = cv2.imread(str(out))
    assert img.shape == (720, 1280, 3)
    slot = load(TAKOYAKI / "calibration.json").zones["p:aki:slot1"]
    assert _has(img, ZONE, (slot.x1, slot.y1, slot.x2, slot.y2))


@pytest.mark.parametrize("args, said", [
    (("--at", "500"), "past the end"),
    ((), None),
])
def test_bad_input_is_one_clear_line(run_cli, tmp_path, args, said):
    if said is None:  # an image of another size: drawn, with a warning naming both sizes
        small = tmp_path / "small.png"
        cv2.imwrite(str(small), np.zeros((360, 640, 3), np.uint8))
        res = run_cli("vision", "zones", TAKOYAKI / "calibration.json", small, "--out", tmp_path / "o.png")
        assert res.exit_code == 0 and "640x360" in res.output and "1280x720" in res.output
        assert cv2.imread(str(tmp_path / "o.png")).shape == (720, 1280, 3)
        return
    res = run_cli("vision", "zones", TAKOYAKI / "calibration.json", TAKOYAKI / "session.mp4", *args,
                  "--out", tmp_path / "o.png")
    assert res.exit_code == 2 and said in res.output and "Traceback" not in res.output
    res = run_cli("vision", "zones", TAKOYAKI / "calibration.json", tmp_path / "none.mp4", "--out", tmp_path / "o.png")
    assert res.exit_code == 2 and "not found" in res.output

"""The minimal calibration file: validated on load, errors name the field."""

from __future__ import annotations

import json

import pytest

from calibration.schema import Calibration, load, save
from referee.errors import CalibrationError


def _good(tmp_path):
    (tmp_path / "refs").mkdir()
    return {"version": 1, "game": "mokochaka", "camera": {"width": 640, "height": 480},
            "zones": {"pile0": [10, 10, 100, 150], "token": [300, 300, 340, 340]},
            "seats": [{"name": "aki", "box": [0, 0, 320, 480], "channel": 0},
                      {"name": "ben", "box": [320, 0, 640, 480], "channel": None}],
            "references": "refs"}


def test_round_trip(tmp_path):
    p = tmp_path / "cal.json"
    p.write_text(json.dumps(_good(tmp_path)))
    cal = load(p)
    assert cal.game == "mokochaka" and [s.name for s in cal.seats] == ["aki", "ben"]
    assert cal.references == tmp_path / "refs"
    assert set(cal.card_zones) == {"pile0"}
    save(cal, tmp_path / "again.json")
    assert load(tmp_path / "again.json") == cal


@pytest.mark.parametrize("change, field", [
    (lambda d: d.update(version=3), "version"),
    (lambda d: d.update(game="chess"), "game"),
    (lambda d: d["camera"].update(width="wide"), "camera.width"),
    (lambda d: d["zones"].update(pile7=[0, 0, 5, 5]), "zones.pile7"),
    (lambda d: d["zones"].update(pile1=[0, 0, 700, 5]), "zones.pile1"),
    (lambda d: d["seats"][1].update(box=[5, 5, 1, 1]), "seats[1].box"),
    (lambda d: d["seats"][1].update(name="aki"), "seats[1].name"),
    (lambda d: d["seats"][0].update(channel=-1), "seats[0].channel"),
    (lambda d: d.update(references="missing"), "references"),
    (lambda d: d.update(seats=[]), "seats"),
    (lambda d: d["zones"].update({"p:zed:slot3": [0, 0, 5, 5]}), "zones.p:zed:slot3"),
])
def test_errors_name_the_field(tmp_path, change, field):
    d = _good(tmp_path)
    change(d)
    with pytest.raises(CalibrationError, match=field.replace("[", r"\[").replace("]", r"\]")):
        Calibration.from_dict(d, base=tmp_path)


def test_unreadable_files(tmp_path):
    with pytest.raises(CalibrationError, match="not found"):
        load(tmp_path / "none.json")
    (tmp_path / "bad.json").write_text("{oops")
    with pytest.raises(CalibrationError, match="not JSON"):
        load(tmp_path / "bad.json")

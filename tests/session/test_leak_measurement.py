"""The calibration file's stored leakage measurement (``audio.leakage``,
``session.calibration.LeakMeasurement``): plain numbers, round-tripped exactly, validated
with errors naming the field."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from session.calibration import Calibration, LeakMeasurement, file_fingerprint, load, save
from session.errors import CalibrationError

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"


def _block() -> dict:
    return {"file": {"size": 1234, "sha256": "ab" * 32}, "rate": 16000, "channels": 3,
            "params": {"nperseg": 512, "hop": 128, "taps": 96, "ridge": 1e-06},
            "paths": [[0, 1, 32, [0.31620014348238396]], [2, 0, 40, [0.1, 0.0, -0.023]], [1, 2, 0, [1 / 3]]],
            "solo_frames": [60, 0, 44], "speech_db": [-21.37, None, -18.64], "residual_db": -22.0960134565303,
            "residual_leaks_db": [[None, None, -40.78036563629212], [-32.26623907007296, None, -79.0994979567935],
                                  [-22.0960134565303, None, None]]}


def _cal(tmp_path: Path, leakage) -> dict:
    (tmp_path / "refs").mkdir(exist_ok=True)
    return {"version": 2, "game": "ikatako", "camera": {"id": None, "width": 640, "height": 480},
            "seats": [{"name": n, "box": [100 * i, 0, 100 * i + 90, 200], "channel": i}
                      for i, n in enumerate(("aki", "ben", "chie"))],
            "audio": {"device": None, "rate": 16000, "channels": 3, "file": "seats.wav", "leakage": leakage}}


def test_the_block_round_trips_exactly_through_the_file(tmp_path):
    p = tmp_path / "calibration.json"
    p.write_text(json.dumps(_cal(tmp_path, _block())))
    cal = load(p)
    m = cal.audio.leakage
    assert m.paths[0] == (0, 1, 32, (0.31620014348238396,)) and m.paths[2][3] == (1 / 3,)
    assert m.speech_db == (-21.37, None, -18.64) and m.solo_frames == (60, 0, 44)
    assert m.residual_leaks_db[1] == (-32.26623907007296, None, -79.0994979567935)
    assert m.to_dict() == _block()  # every float the same (JSON writes repr, which reads back exactly)
    save(cal, tmp_path / "again.json")
    again = load(tmp_path / "again.json")
    assert again.audio.leakage == m and again == cal
    assert json.loads((tmp_path / "again.json").read_text())["audio"]["leakage"] == _block()


def test_an_older_block_without_the_pairs_is_read_and_written_as_it_was(tmp_path):
    """A calibration file from before ``residual_leaks_db``: accepted (the hearing measures the
    pairs on the recording again, tests/audio/test_demix_stored.py) and saved without it."""
    old = _block()
    del old["residual_leaks_db"]
    m = LeakMeasurement.from_dict(old)
    assert m.residual_leaks_db is None and m.to_dict() == old
    p = tmp_path / "calibration.json"
    p.write_text(json.dumps(_cal(tmp_path, old)))
    save(load(p), tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text())["audio"]["leakage"] == old
    none = dict(old, residual_leaks_db=None)  # (null: not measured, as absent)
    assert LeakMeasurement.from_dict(none) == m


def test_the_demo_calibration_carries_its_measurement():
    cal = load(DEMO / "calibration.json")  # a version 1 file: the block kept through migration
    m = cal.audio.leakage
    assert m is not None and m.channels == 4 and m.rate == 16000
    assert (m.size, m.sha256) == file_fingerprint(DEMO / "seats.wav")
    assert len(m.paths) == 12 and m.residual_db < -15
    pairs = m.residual_leaks_db  # every seat heard alone: every pair measured, the loudest the residual
    assert [row[i] for i, row in enumerate(pairs)] == [None] * 4
    assert max(v for row in pairs for v in row if v is not None) == m.residual_db
    assert all(v is not None for i, row in enumerate(pairs) for j, v in enumerate(row) if i != j)
    assert Calibration.from_dict(cal.to_dict(base=DEMO), base=DEMO).audio.leakage == m


def test_file_fingerprint_is_size_and_sha256(tmp_path):
    p = tmp_path / "x.bin"
    p.write_bytes(b"abc")
    assert file_fingerprint(p) == (3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")


def _set(path, value):
    def change(b):
        *keys, last = path
        for k in keys:
            b = b[k]
        if value is KeyError:
            del b[last]
        else:
            b[last] = value
    return change


@pytest.mark.parametrize("change, field", [
    (_set(["solo_frames"], KeyError), "audio.leakage.solo_frames: missing"),
    (_set(["extra"], 1), "audio.leakage.extra: unknown"),
    (_set(["file", "sha256"], "AB" * 32), "audio.leakage.file.sha256"),
    (_set(["file", "size"], -1), "audio.leakage.file.size"),
    (_set(["file"], "seats.wav"), "audio.leakage.file"),
    (_set(["rate"], 12.5), "audio.leakage.rate"),
    (_set(["channels"], 1), "audio.leakage.channels"),
    (_set(["params", "taps"], KeyError), "audio.leakage.params.taps"),
    (_set(["params", "hop"], "128"), "audio.leakage.params"),
    (_set(["paths", 0], [0, 0, 32, [0.3]]), r"audio.leakage.paths\[0\]: mic 0 is the seat's own"),
    (_set(["paths", 0], [3, 1, 32, [0.3]]), r"audio.leakage.paths\[0\] mic"),
    (_set(["paths", 0], [0, 1, 96, [0.3]]), r"audio.leakage.paths\[0\] tap"),
    (_set(["paths", 0], [0, 1, 95, [0.3, 0.2]]), r"audio.leakage.paths\[0\]: 1..1 finite gains"),
    (_set(["paths", 0], [0, 1, 3, []]), r"audio.leakage.paths\[0\]"),
    (_set(["paths", 0], [0, 1, 3, [float("nan")]]), r"audio.leakage.paths\[0\]"),
    (_set(["paths", 0], [0, 1, 3, [True]]), r"audio.leakage.paths\[0\]"),
    (_set(["paths", 1], [0, 1, 3, [0.1]]), r"audio.leakage.paths\[1\]: the path 1->0 is given twice"),
    (_set(["solo_frames"], [1, 2]), "audio.leakage.solo_frames: 3 frame counts"),
    (_set(["solo_frames", 1], -3), r"audio.leakage.solo_frames\[1\]"),
    (_set(["speech_db"], [-20, "loud", None]), "audio.leakage.speech_db"),
    (_set(["residual_db"], float("inf")), "audio.leakage.residual_db"),
    (_set(["residual_db"], "-22"), "audio.leakage.residual_db"),
    (_set(["residual_leaks_db"], [[None, -30, -40], [-30, None, -40]]), "audio.leakage.residual_leaks_db: 3 rows of 3"),
    (_set(["residual_leaks_db", 1], [-30, None]), "audio.leakage.residual_leaks_db: 3 rows of 3"),
    (_set(["residual_leaks_db"], -22.0960134565303), "audio.leakage.residual_leaks_db: 3 rows of 3"),
    (_set(["residual_leaks_db", 1, 1], -50.0), r"audio.leakage.residual_leaks_db\[1\]\[1\]: null expected"),
    (_set(["residual_leaks_db", 0, 2], "loud"), r"audio.leakage.residual_leaks_db\[0\]\[2\]: a level"),
    (_set(["residual_leaks_db", 0, 2], float("nan")), r"audio.leakage.residual_leaks_db\[0\]\[2\]: a level"),
    (_set(["residual_leaks_db", 0, 2], True), r"audio.leakage.residual_leaks_db\[0\]\[2\]: a level"),
    (_set(["residual_leaks_db", 0, 2], -300.0), r"audio.leakage.residual_leaks_db\[0\]\[2\]: a level"),
    (_set(["residual_leaks_db", 0, 2], -10.0), "audio.leakage.residual_leaks_db: its loudest pair .* is not residual_db"),
    (_set(["residual_leaks_db", 2, 0], -23.0), "audio.leakage.residual_leaks_db: its loudest pair .* is not residual_db"),
])
def test_a_bad_block_is_refused_naming_the_field(tmp_path, change, field):
    block = _block()
    change(block)
    with pytest.raises(CalibrationError, match=field):
        Calibration.from_dict(_cal(tmp_path, block), base=tmp_path)


def test_a_block_must_belong_to_the_calibration_recording(tmp_path):
    obj = _cal(tmp_path, _block())
    bad = copy.deepcopy(obj)
    del bad["audio"]["file"]
    with pytest.raises(CalibrationError, match="audio.leakage: .*audio.file names none"):
        Calibration.from_dict(bad, base=tmp_path)
    bad = copy.deepcopy(obj)
    bad["audio"]["rate"] = 48000
    with pytest.raises(CalibrationError, match="audio.leakage.rate: 16000 Hz, but audio.rate is 48000"):
        Calibration.from_dict(bad, base=tmp_path)
    with pytest.raises(CalibrationError, match="audio.leakage: an object"):
        Calibration.from_dict(_cal(tmp_path, [1, 2]), base=tmp_path)
    assert LeakMeasurement.from_dict(_block()).channels == 3


def test_the_corrections_and_the_verdict_round_trip_and_are_validated():
    block = dict(_block(), gains_db=[0.0, -3.5, 2.1], cancelled=True)
    m = LeakMeasurement.from_dict(block)
    assert m.gains_db == (0.0, -3.5, 2.1) and m.cancelled is True and m.to_dict() == block
    uncancelled = dict(block, paths=[], cancelled=False)
    assert LeakMeasurement.from_dict(uncancelled).to_dict() == uncancelled
    for bad, field in ((dict(block, gains_db=[0.0, 1.0]), "gains_db"), (dict(block, gains_db=[0, 1, 99]), "gains_db"),
                       (dict(block, cancelled=1), "cancelled"), (dict(block, cancelled=False), "paths")):
        with pytest.raises(CalibrationError, match=f"audio.leakage.{field}"):
            LeakMeasurement.from_dict(bad)


def test_the_loud_levels_round_trip_are_optional_and_are_validated():
    block = dict(_block(), gains_db=[0.0, 0.0, 0.0], cancelled=True, loud_db=[-17.1, -16.3, -15.9])
    m = LeakMeasurement.from_dict(block)
    assert m.loud_db == (-17.1, -16.3, -15.9) and m.to_dict() == block
    older = dict(block)
    del older["loud_db"]
    assert LeakMeasurement.from_dict(older).loud_db is None and "loud_db" not in LeakMeasurement.from_dict(older).to_dict()
    for bad in ([-17.1, -16.3], [-17.1, -16.3, "loud"], [-17.1, -16.3, 99.0], [-17.1, None, -15.9]):
        with pytest.raises(CalibrationError, match="audio.leakage.loud_db"):
            LeakMeasurement.from_dict(dict(block, loud_db=bad))

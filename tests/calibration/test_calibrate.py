"""``referee calibrate --from-video``: a recording of the demo table gives back its seats,
field, channel map and references good enough to read every card of the demo deck."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.conftest import once

from calibration import steps
from session import calibration as schema

from tests.calibration.conftest import CHANNELS
from tests.conftest import FIXTURES

FIXTURES_DEMO = FIXTURES / "demo"


@pytest.fixture(scope="module")
def calibrated(recording, tmp_path_factory):
    from click.testing import CliRunner

    from referee.cli import cli

    rec, truth = recording

    def make():
        out = tmp_path_factory.mktemp("table")
        res = CliRunner().invoke(cli, ["calibrate", "--game", "ikatako", "--from-video", str(rec / "calibration.mp4"),
                                       "--audio", str(rec / "calibration.wav"), "--players", ",".join(truth["players"]),
                                       "--out", str(out), "--json"], catch_exceptions=False)
        assert res.exit_code == 0, res.output
        report = json.loads(next(line for line in res.output.splitlines() if line.startswith("{")))
        return schema.load(out / "calibration.json"), report, truth

    return once("test_calibrate.calibrated", make)


def _iou(a, b) -> float:
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def test_seats_field_and_channels_match_the_demo_geometry(calibrated):
    cal, report, truth = calibrated
    assert cal.version == 2 and cal.game == "ikatako" and (cal.width, cal.height) == (1280, 720)
    assert cal.players == truth["players"]
    assert [s.channel for s in cal.seats] == list(CHANNELS)
    for seat, box in zip(cal.seats, truth["seats"]):
        assert _iou(seat.box.to_list(), box) > 0.85, (seat, box)
    # every card of the demo session lands inside the found field
    from fixtures.demo import make_demo
    from fixtures.demo.scene import Landing

    field = cal.zones["field"]
    for turn in make_demo.SCRIPT:
        q = Landing(turn.card, turn.angle, *turn.offset).quad()
        assert all(field.contains(x, y) for x, y in q), (turn.card, field)
    assert _iou(field.to_list(), truth["field"]) > 0.6
    assert not [c for c in report["checks"] if c["level"] == "fail"]


def test_references_read_every_card_of_the_demo_deck(calibrated):
    """Each demo card, rendered lying in the field as in the demo session, is recognised
    from the captured references (a look-alike pair may come out uncertain, never wrong)."""
    from fixtures.demo import cards
    from fixtures.demo.scene import Landing, Table
    from vision.cards import References, recognise

    cal, _, truth = calibrated
    assert set(cal.cards) == set(cards.CODES)
    refs = References.from_folder(cal.references)
    pairs = {(a, b) for a, b, _ in cal.lookalikes}
    assert ("uzushio6", "uzushio9") in pairs
    table = Table()
    arms = [{"left": 0.0, "right": 0.0}] * 4
    f = cal.zones["field"]
    right = []
    for i, code in enumerate(cards.CODES):
        img = table.render(arms, [0.0] * 4, (Landing(code, (-1) ** i * 7.0, 9.0 - i, 5.0 - i % 4 * 3),), t=3.0 + i)
        ms = recognise(img[f.y1:f.y2, f.x1:f.x2], refs)
        ok = [m for m in ms if m.status == "ok"]
        if ok:
            assert ok[0].code == code, (code, ok[0].code)
            right.append(code)
        else:
            unc = [m for m in ms if m.status == "uncertain"]
            assert unc and tuple(sorted((unc[0].code, unc[0].runner_up))) in pairs, (code, ms)
    assert len(right) >= len(cards.CODES) - 2


def test_the_written_file_is_v2_with_relative_references(calibrated):
    cal, report, _ = calibrated
    path = cal.references.parent / "calibration.json"
    obj = json.loads(path.read_text())
    assert obj["version"] == 2 and obj["references"] == "refs"
    assert obj["audio"]["channels"] == 4 and obj["audio"]["rate"] == 16000
    assert report["frames"] > 100
    # the seat-to-seat leakage, measured on the test words (the demo mixes neighbours at -10 dB)
    assert -12.0 <= obj["audio"]["crosstalk_db"] <= -8.0
    assert cal.audio.crosstalk_db == obj["audio"]["crosstalk_db"]
    # what the recording says of the leak paths, stored once for every replay (audio.leakage)
    from audio.capture import read_all
    from audio.hearing import measure_calibration, stored_leakage
    from session.calibration import file_fingerprint

    wav = Path(cal.audio.file)
    m = cal.audio.leakage
    assert m is not None and (m.size, m.sha256) == file_fingerprint(wav) and m.channels == 4
    x, rate = read_all(wav)
    assert m == measure_calibration(x, rate, wav)
    leakage, levels, residual, leaks = stored_leakage(m)
    assert leakage.usable and len(m.paths) == 12 and residual < -15 and None not in levels
    assert np.nanmax(leaks) == residual and np.isnan(np.diag(leaks)).all()


def test_a_missing_card_in_the_recording_is_named(recording, run_cli, tmp_path):
    rec, truth = recording
    res = run_cli("calibrate", "--game", "ikatako", "--from-video", rec / "calibration.mp4", "--audio",
                  rec / "calibration.wav", "--players", ",".join(truth["players"]), "--out", tmp_path / "t",
                  "--cards", ",".join(truth["cards"] + ["extra"]))
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "saw 13 cards shown still, expected 14" in res.output
    assert "calibration not written" in res.output
    assert not (tmp_path / "t" / "calibration.json").exists()


# ----------------------------------------------------------------------------- steps alone
def _scene(code="tako", blur=0):
    from fixtures.demo.scene import Landing, Table

    t = Table()
    arms = [{"left": 0.0, "right": 0.0}] * 4
    bg = t.render(arms, [0.0] * 4, ())
    img = t.render(arms, [0.0] * 4, (Landing(code, 4.0, 0.0, 0.0),))
    if blur:
        img = cv2.GaussianBlur(img, (blur, blur), 0)
    return bg, img


def test_a_blurred_card_fails_the_sharpness_check():
    bg, img = _scene(blur=7)
    cap = steps.capture_reference("tako", img, steps.find_card(img, bg), {})
    assert [c.level for c in cap.checks] == ["fail"] and "sharpness" in cap.checks[0].message
    bg, img = _scene()
    cap = steps.capture_reference("tako", img, steps.find_card(img, bg), {})
    assert [c.level for c in cap.checks] == ["ok"] and cap.sharpness >= steps.MIN_SHARPNESS


def test_a_card_shown_under_the_wrong_name_fails():
    bg, img = _scene("tako")
    first = steps.capture_reference("tako", img, steps.find_card(img, bg), {})
    bg, img2 = _scene("tako")
    cap = steps.capture_reference("ika", img2, steps.find_card(img2, bg), {"tako": first.image})
    assert cap.checks[0].level == "fail" and "the same picture as tako" in cap.checks[0].message


def test_no_card_found_says_what_to_do():
    bg, _ = _scene()
    cap = steps.capture_reference("tako", bg, steps.find_card(bg, bg), {})
    assert cap.checks[0].level == "fail" and "no card found" in cap.checks[0].message


def _voices(owner_gain, rate=16000, n_seats=4, seed=1):
    """Each seat in turn: a 0.4 s voice-band burst, on the channels with the given gains."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 0.001, (rate * 4, n_seats)).astype(np.float32)
    t = np.arange(int(0.4 * rate)) / rate
    burst = (np.sin(2 * np.pi * 700 * t) * np.sin(2 * np.pi * 3 * t) ** 2).astype(np.float32)
    for seat in range(n_seats):
        a = int((0.3 + 0.9 * seat) * rate)
        for ch in range(n_seats):
            x[a:a + len(burst), ch] += owner_gain(seat, ch) * 0.3 * burst
    return x, rate


def test_channel_map_finds_each_seat_and_checks_dominance():
    names = ["a", "b", "c", "d"]
    x, rate = _voices(lambda s, ch: 1.0 if ch == (s + 1) % 4 else 0.3)
    chmap, checks = steps.channel_map(x, rate, names)
    assert chmap == {"a": 1, "b": 2, "c": 3, "d": 0}
    assert all(c.level == "ok" for c in checks)
    # seat c's mic is far away: its own channel only 3 dB above the others (as recorded), and
    # its neighbours' words on it only 4.4 dB below c's own (what evening it out leaves)
    x, rate = _voices(lambda s, ch: (0.5 if s == 2 else 1.0) if ch == s else (0.35 if s == 2 else 0.3))
    chmap, checks = steps.channel_map(x, rate, names)
    bad = [c for c in checks if c.level == "fail"]
    assert [c.step for c in bad] == ["channel c"] and "move the microphone closer to c" in bad[0].message
    # ... whereas a microphone turned 9 dB down hears its neighbours as far below its player as the others do
    x, rate = _voices(lambda s, ch: (1.0 if ch == s else 0.3) * (10 ** (-9 / 20) if ch == 2 else 1.0))
    chmap, checks = steps.channel_map(x, rate, names)
    assert chmap == {"a": 0, "b": 1, "c": 2, "d": 3} and all(c.level == "ok" for c in checks), checks
    # two seats loudest on one channel
    x, rate = _voices(lambda s, ch: 1.0 if ch == min(s, 2) else 0.2)
    _, checks = steps.channel_map(x, rate, names)
    assert any(c.level == "fail" and "already c's" in c.message for c in checks)
    # one utterance missing
    _, checks = steps.channel_map(x[: int(2.5 * rate)], rate, names)
    assert checks[0].level == "fail" and "heard 3 utterances" in checks[0].message


def test_crosstalk_is_the_loudest_neighbour_against_the_speaking_seat():
    x, rate = _voices(lambda s, ch: 1.0 if ch == s else (0.3 if s != 1 else 0.5))  # seat b leaks at -6 dB
    got = steps.crosstalk_db(x, rate, [0, 1, 2, 3])
    assert got is not None and abs(got - 20 * np.log10(0.5)) < 0.5
    assert steps.crosstalk_db(x, rate, [0, None, 2, 3]) is None  # a seat without a channel
    assert steps.crosstalk_db(x[:, :1], rate, [0, 0, 0, 0]) is None  # one microphone


def test_seats_need_a_person_found_by_pose():
    from vision.hands import Landmarks

    img = np.zeros((480, 640, 3), np.uint8)

    def pose(image, box):  # a person in the two left columns only
        cx = (box[0] + box[2]) / 2
        if cx > 320:
            return None
        return Landmarks.from_dict({"left_shoulder": (cx + 30, 200), "right_shoulder": (cx - 30, 200)})

    boxes, checks = steps.refine_seats(img, ["a", "b", "c"], 400, pose)
    assert [c.level for c in checks] == ["ok", "ok", "fail"]
    assert "nobody found by pose" in checks[2].message and boxes[2][3] == 400


# ----------------------------------------------------------------------------- front ends
def test_camera_without_a_display_is_one_clear_error(run_cli, monkeypatch, tmp_path):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    res = run_cli("calibrate", "--game", "ikatako", "--camera", "0", "--players", "2", "--out", tmp_path)
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "no display" in res.output and "--from-video" in res.output


def test_camera_or_video_must_be_given(run_cli, tmp_path):
    res = run_cli("calibrate", "--game", "ikatako", "--out", tmp_path)
    assert res.exit_code == 2 and "either --camera" in res.output


def test_from_video_errors_are_clear(run_cli, tmp_path):
    res = run_cli("calibrate", "--game", "ikatako", "--from-video", tmp_path / "none.mp4", "--players", "2")
    assert res.exit_code == 2 and "not found" in res.output
    res = run_cli("calibrate", "--game", "seasaltpaper", "--from-video", tmp_path / "none.mp4", "--players", "2")
    assert res.exit_code == 2 and "--cards" in res.output


def test_same_recording_same_file_byte_for_byte_and_enroll_is_referenced(calibrated, recording, run_cli, tmp_path):
    cal, _, truth = calibrated
    rec, _ = recording
    enroll = tmp_path / "voices"
    (enroll / "aki").mkdir(parents=True)
    (enroll / "aki" / "ika.wav").write_bytes(b"")
    res = run_cli("calibrate", "--game", "ikatako", "--from-video", rec / "calibration.mp4", "--audio",
                  rec / "calibration.wav", "--players", ",".join(truth["players"]), "--out", tmp_path / "again",
                  "--enroll", enroll, "--lang", "en")
    assert res.exit_code == 0, res.output
    first = json.loads((cal.references.parent / "calibration.json").read_text())
    again = json.loads((tmp_path / "again" / "calibration.json").read_text())
    assert again.pop("enroll") == str(enroll.resolve())
    # the table's language is written, and `referee live` / `teach` default to it
    from referee.language import table_language

    assert (first["extra"]["lang"], again["extra"]["lang"]) == ("ja", "en")
    assert table_language(None, tmp_path / "again" / "calibration.json", env={"LANG": "ja_JP.UTF-8"}) == "en"
    first["extra"].pop("lang"), again["extra"].pop("lang")
    assert again == first
    for p in sorted(cal.references.iterdir()):
        assert (tmp_path / "again" / "refs" / p.name).read_bytes() == p.read_bytes(), p.name
    assert schema.load(tmp_path / "again" / "calibration.json").enroll == enroll.resolve()


def test_a_zone_of_another_game_is_refused_at_once(run_cli, tmp_path):
    res = run_cli("calibrate", "--game", "ikatako", "--from-video", tmp_path / "none.mp4", "--players", "2",
                  "--zone", "pile0=1,2,30,40")
    assert res.exit_code == 2 and "--zone pile0: not a zone of ikatako" in res.output
    res = run_cli("calibrate", "--game", "ikatako", "--from-video", tmp_path / "none.mp4", "--players", "2",
                  "--zone", "field=1,2")
    assert res.exit_code == 2 and "--zone field: expected [x1, y1, x2, y2]" in res.output


def test_camera_checks_warn_when_the_deck_is_too_small_or_blurred():
    import numpy as np

    from calibration import steps

    big = [np.float32([[0, 0], [100, 0], [100, 150], [0, 150]])]
    small = [np.float32([[0, 0], [20, 0], [20, 30], [0, 30]])]
    assert [c.level for c in steps.camera_checks(1280, 720, big, [900.0])] == ["ok"]
    warned = steps.camera_checks(1280, 720, small, [900.0])
    assert warned[0].level == "warn" and "20 px across" in warned[0].message
    assert any("barely sharp" in c.message for c in steps.camera_checks(1280, 720, big, [200.0]))
    assert any("below 640 px" in c.message for c in steps.camera_checks(320, 240, big, [900.0]))


def test_a_48khz_recording_is_calibrated_at_the_hearing_rate(calibrated, recording, run_cli, tmp_path):
    """An interface recording at 48 kHz gives the calibration the referee hears at (16 kHz): the
    same channel map and leak paths close to the 16 kHz recording's (heard at 48 kHz, a table's
    leak paths fit nothing and every word came out unclear)."""
    from scipy.io import wavfile
    from scipy.signal import resample_poly

    from audio.capture import read_all
    from audio.hearing import HEARING_RATE

    rec, truth = recording
    x, rate = read_all(rec / "calibration.wav")
    wavfile.write(tmp_path / "cal48.wav", 48000, (resample_poly(x, 3, 1, axis=0) * 32767).astype(np.int16))
    res = run_cli("calibrate", "--game", "ikatako", "--from-video", rec / "calibration.mp4", "--audio",
                  tmp_path / "cal48.wav", "--players", ",".join(truth["players"]), "--out", tmp_path / "t")
    assert res.exit_code == 0, res.output
    cal48, (cal16, _, _) = schema.load(tmp_path / "t" / "calibration.json"), calibrated
    assert rate == HEARING_RATE and cal48.audio.rate == HEARING_RATE and cal48.audio.leakage.rate == HEARING_RATE
    assert [s.channel for s in cal48.seats] == [s.channel for s in cal16.seats]
    assert cal48.audio.crosstalk_db == pytest.approx(cal16.audio.crosstalk_db, abs=0.5)


def test_a_calibration_heard_above_the_hearing_rate_is_a_warning(tmp_path):
    from types import SimpleNamespace

    from referee.preflight import check_audio

    wav = FIXTURES_DEMO / "seats.wav"
    old = SimpleNamespace(audio=SimpleNamespace(rate=48000, channels=4), seat_channels=4)
    warnings: list[str] = []
    check_audio(wav, wav, old, warnings)
    assert any("hears the table at 48000 Hz" in w and "calibrate again" in w for w in warnings)
    now = SimpleNamespace(audio=SimpleNamespace(rate=16000, channels=4), seat_channels=4)
    check_audio(wav, wav, now, warnings := [])
    assert warnings == []


def test_calibrate_says_in_one_line_that_a_quiet_microphone_is_evened_out(calibrated, recording, run_cli, tmp_path):
    """A seat's microphone 9 dB down (its input knob turned low): ``referee calibrate`` stores
    the correction (``audio.leakage.gains_db``) and says so in one plain line naming the seat;
    the demo's own microphones (levels within 1.3 dB) get no such line."""
    import re

    from scipy.io import wavfile

    from audio.capture import read_all

    rec, truth = recording
    x, rate = read_all(rec / "calibration.wav")
    ben = truth["players"].index("ben")
    x = np.array(x, np.float64)
    x[:, CHANNELS[ben]] *= 10 ** (-9 / 20)
    wavfile.write(tmp_path / "quiet-ben.wav", rate, (np.clip(x, -1, 1) * 32767).astype(np.int16))
    res = run_cli("calibrate", "--game", "ikatako", "--from-video", rec / "calibration.mp4", "--audio",
                  tmp_path / "quiet-ben.wav", "--players", ",".join(truth["players"]), "--out", tmp_path / "t")
    assert res.exit_code == 0, res.output
    # the channel check judges ben's channel with the microphones evened out (as recorded it
    # stood 1 dB above the others' median and failed: "move the microphone closer to ben")
    assert re.search(r"\[ok  \] channel ben: at [0-9.]+ s: channel %d, (9|10|11)\.\d dB above" % CHANNELS[ben],
                     res.output), res.output
    lines = [line for line in res.output.splitlines() if "evened out" in line]
    assert len(lines) == 1, res.output
    said = re.search(r"\] microphones: ben's microphone is (\d+) dB quieter than the others", lines[0])
    assert said and 8 <= int(said.group(1)) <= 10, lines
    stored = schema.load(tmp_path / "t" / "calibration.json").audio.leakage
    assert stored.gains_db[CHANNELS[ben]] == pytest.approx(9.0, abs=1.0)
    cal, report, _ = calibrated  # (the demo's recording as made)
    assert not any(c["step"] in ("microphones", "cross-talk") for c in report["checks"]), report["checks"]
    assert cal.audio.leakage.gains_db == (0.0,) * 4 and cal.audio.leakage.cancelled is True


def test_the_leakage_lines_name_each_corrected_seat_and_an_uncancelled_table():
    from calibration.recording import leakage_checks

    channels = {"aki": 1, "ben": 0, "chie": 2}
    checks = leakage_checks({"gains_db": [9.2, -0.3, -4.6], "cancelled": False}, channels)
    assert [str(c) for c in checks] == [
        "[ok  ] microphones: ben's microphone is 9 dB quieter than the others, chie's 5 dB louder: evened out",
        "[ok  ] cross-talk: the seats' voices do not cancel in this room: each microphone is heard as it is"]
    assert leakage_checks({"gains_db": [0.0, 0.0, 0.0], "cancelled": True}, channels) == []
    assert leakage_checks({}, channels) == []  # (a block without the fields says nothing)

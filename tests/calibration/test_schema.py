"""The minimal calibration file: validated on load, errors name the field."""

from __future__ import annotations

import json

import pytest

import rules

from session.calibration import Calibration, load, save
from session.errors import CalibrationError


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
        Calibration.from_dict(d, base=tmp_path, games=rules)


def test_unreadable_files(tmp_path):
    with pytest.raises(CalibrationError, match="not found"):
        load(tmp_path / "none.json")
    (tmp_path / "bad.json").write_text("{oops")
    with pytest.raises(CalibrationError, match="not JSON"):
        load(tmp_path / "bad.json")


# ----------------------------------------------------------------------------- version 2
DEMO = __import__("pathlib").Path(__file__).resolve().parents[2] / "fixtures" / "demo"


def _v2(tmp_path):
    refs = tmp_path / "refs"
    refs.mkdir(exist_ok=True)
    for code in ("ika", "tako"):
        (refs / f"{code}.png").write_bytes(b"png")
    (tmp_path / "enroll" / "aki").mkdir(parents=True, exist_ok=True)
    (tmp_path / "enroll" / "aki" / "ika.wav").write_bytes(b"")
    return {"version": 2, "game": "ikatako", "deck": "ikatako",
            "camera": {"id": 0, "width": 640, "height": 480, "fps": 30},
            "zones": {"field": [200, 300, 440, 470]},
            "seats": [{"name": "aki", "box": [0, 0, 213, 300], "channel": 0},
                      {"name": "ben", "box": [213, 0, 426, 300], "channel": 1},
                      {"name": "chie", "box": [426, 0, 640, 300], "channel": 2}],
            "audio": {"device": "USB interface", "rate": 48000, "channels": 4},
            "references": "refs", "cards": ["ika", "tako"], "lookalikes": [["ika", "tako", 0.81]],
            "enroll": "enroll", "notes": "kitchen table"}


def test_v2_round_trip(tmp_path):
    d = _v2(tmp_path)
    cal = Calibration.from_dict(d, base=tmp_path)
    assert cal.camera_id == 0 and cal.fps == 30 and cal.audio.device == "USB interface"
    assert cal.channels == {"aki": 0, "ben": 1, "chie": 2} and cal.cards == ("ika", "tako")
    assert cal.lookalikes == (("ika", "tako", 0.81),) and cal.enroll == tmp_path / "enroll"
    save(cal, tmp_path / "cal.json")
    written = json.loads((tmp_path / "cal.json").read_text())
    assert written == d  # paths written relative to the file again
    assert load(tmp_path / "cal.json") == cal


@pytest.mark.parametrize("change, message", [
    (lambda d: d["seats"][2].update(channel=-1), r"seats\[2\]\.channel: must be an integer >= 0, got -1"),
    (lambda d: d["seats"][2].update(channel="2"), r"seats\[2\]\.channel: must be an integer"),
    (lambda d: d["seats"][2].update(channel=0), r"seats\[2\]\.channel: channel 0 is already aki's"),
    (lambda d: d["seats"][1].update(channel=4), r"seats\[1\]\.channel: 4, but audio\.channels is 4"),
    (lambda d: d["seats"][0].update(mic=3), r"seats\[0\]\.mic: unknown field"),
    (lambda d: d.update(refrences="refs"), r"refrences: unknown field"),
    (lambda d: d["zones"].update(pile0=[0, 0, 10, 10]), r"zones\.pile0: not a zone of ikatako"),
    (lambda d: d.update(cards=["ika", "uzushio9"]), r"references: no image for card 'uzushio9'"),
    (lambda d: d.update(cards=["ika", "ika"]), r"cards: 'ika' is listed twice"),
    (lambda d: d["camera"].update(fps=0), r"camera\.fps"),
    (lambda d: d["camera"].update(id=-2), r"camera\.id"),
    (lambda d: d["audio"].update(rate=12), r"audio\.rate"),
    (lambda d: d["audio"].update(channels=0), r"audio\.channels"),
    (lambda d: d["audio"].update(gain=3), r"audio\.gain: unknown field"),
    (lambda d: d.update(lookalikes=[["ika", "tako"]]), r"lookalikes\[0\]"),
    (lambda d: d.update(enroll="nowhere"), r"enroll: folder .*nowhere not found"),
    (lambda d: d.update(deck=""), r"deck"),
    (lambda d: d.update(notes=3), r"notes"),
    (lambda d: d.update(extra=[1]), r"extra"),
])
def test_v2_errors_name_the_field(tmp_path, change, message):
    d = _v2(tmp_path)
    change(d)
    with pytest.raises(CalibrationError, match=message):
        Calibration.from_dict(d, base=tmp_path, games=rules)


def test_enroll_takes_of_someone_without_a_seat(tmp_path):
    d = _v2(tmp_path)
    (tmp_path / "enroll" / "zed").mkdir()
    (tmp_path / "enroll" / "zed" / "tako.wav").write_bytes(b"")
    with pytest.raises(CalibrationError, match="enroll: .* takes of 'zed', who has no seat"):
        Calibration.from_dict(d, base=tmp_path)


def test_a_bad_file_names_itself_and_the_field(tmp_path):
    d = _v2(tmp_path)
    d["seats"][2]["channel"] = -1
    (tmp_path / "cal.json").write_text(json.dumps(d))
    with pytest.raises(CalibrationError) as exc:
        load(tmp_path / "cal.json")
    assert str(exc.value).startswith(f"{tmp_path / 'cal.json'}: seats[2].channel")


def test_v1_demo_file_is_migrated(tmp_path):
    cal = load(DEMO / "calibration.json")
    assert cal.version == 2 and cal.migrated_from == 1
    assert cal.deck == "ikatako" and cal.fps == 30 and cal.camera_id is None
    assert cal.audio.channels == 4 and cal.audio.rate == 16000 and cal.audio.file == "seats.wav"
    assert cal.channels == {"aki": 0, "ben": 1, "chie": 2, "dai": 3}
    assert cal.references == DEMO / "refs"
    assert cal.extra["audio"]["file"] == "seats.wav" and cal.extra["deck"] == "ikatako"  # as v1 code read them
    # written back as version 2, it loads to the same calibration
    obj = cal.to_dict(base=DEMO)
    assert obj["version"] == 2 and obj["references"] == "refs" and obj["audio"]["file"] == "seats.wav"
    (tmp_path / "refs").symlink_to(DEMO / "refs")
    (tmp_path / "enroll").symlink_to(DEMO / "enroll")  # the demo calibration names its enrollment folder
    (tmp_path / "cal.json").write_text(json.dumps(obj))
    again = load(tmp_path / "cal.json")
    assert again.seats == cal.seats and again.zones == cal.zones and again.audio == cal.audio
    assert again.migrated_from is None
    assert again.audio.crosstalk_db == -10.0 and obj["audio"]["crosstalk_db"] == -10.0  # kept through v2


@pytest.mark.parametrize("bad", [5, "-10", True, -80])
def test_crosstalk_must_be_a_negative_number_of_db(tmp_path, bad):
    obj = load(DEMO / "calibration.json").to_dict(base=DEMO)
    obj["audio"]["crosstalk_db"] = bad
    obj["references"] = str(DEMO / "refs")
    obj["enroll"] = str(DEMO / "enroll")
    (tmp_path / "cal.json").write_text(json.dumps(obj))
    with pytest.raises(CalibrationError, match="audio.crosstalk_db"):
        load(tmp_path / "cal.json")


def test_v1_with_enroll_and_unknown_keys(tmp_path):
    d = _good(tmp_path)
    (tmp_path / "enroll").mkdir()
    d.update(enroll="enroll", audio={"file": "x.wav", "rate": 16000, "channels": 2}, made_by="a script")
    cal = Calibration.from_dict(d, base=tmp_path)
    assert cal.enroll == tmp_path / "enroll" and cal.audio.channels == 2
    assert cal.extra["made_by"] == "a script"  # version 1 allowed free keys: kept
    obj = cal.to_dict(base=tmp_path)
    assert obj["extra"] == {"made_by": "a script"} and obj["audio"]["device"] is None
    assert Calibration.from_dict(obj, base=tmp_path).extra == {"made_by": "a script"}  # v2 keeps them too
    d["seats"][1]["channel"] = 2
    with pytest.raises(CalibrationError, match=r"seats\[1\]\.channel: 2, but audio\.channels is 2"):
        Calibration.from_dict(d, base=tmp_path)


def test_check_media_names_resolution_and_game():
    from session.calibration import check_media

    cal = load(DEMO / "calibration.json")
    check_media(cal, 1280, 720, game="ikatako")
    with pytest.raises(CalibrationError, match="camera: the calibration is for 1280x720, the video is 640x480"):
        check_media(cal, 640, 480)
    with pytest.raises(CalibrationError, match="game: the calibration is for ikatako, the session is mokochaka"):
        check_media(cal, 1280, 720, game="mokochaka")


# ----------------------------------------------------------------------------- audio-video offset
def test_av_offset_round_trip_and_default(tmp_path):
    d = _v2(tmp_path)
    assert Calibration.from_dict(d, base=tmp_path).av_offset is None  # files without it: not measured
    assert load(DEMO / "calibration.json").av_offset is None  # a version 1 file
    d["av_offset"] = 0.0837
    cal = Calibration.from_dict(d, base=tmp_path)
    assert cal.av_offset == 0.0837
    save(cal, tmp_path / "cal.json")
    assert json.loads((tmp_path / "cal.json").read_text())["av_offset"] == 0.0837
    assert load(tmp_path / "cal.json") == cal


@pytest.mark.parametrize("value", [1.5, -2, "0.08", True, [0.1]])
def test_av_offset_is_validated(tmp_path, value):
    d = _v2(tmp_path)
    d["av_offset"] = value
    with pytest.raises(CalibrationError, match=r"av_offset: the audio-video offset in seconds"):
        Calibration.from_dict(d, base=tmp_path)


def test_audio_events_are_moved_onto_the_video_clock():
    from session.calibration import shift_audio_events, to_video_clock
    from session.events import CardEvent, HandEvent, ShoutEvent

    evs = [ShoutEvent(t=1.0, player="aki"), CardEvent(t=1.0, card="ika", zone="field"),
           HandEvent(t=1.02, player="ben", side="left", state="up")]
    out = shift_audio_events(evs, 0.083)
    assert [e.t for e in out] == [1.083, 1.0, 1.02]  # only the microphones' events move
    assert out[0].player == "aki" and evs[0].t == 1.0  # a new list; the input is untouched
    assert shift_audio_events(evs, None) == evs and to_video_clock(2.0, None) == 2.0


def test_the_contract_checks_spelling_and_the_registry_checks_games_and_zones(tmp_path):
    """The file format (ground floor) knows no games: a zone of another game passes its own
    check, and the registry (``rules``) refuses it; an unknown game names the games there are."""
    d = _v2(tmp_path)
    d["zones"]["pile0"] = [0, 0, 10, 10]
    assert "pile0" in Calibration.from_dict(d, base=tmp_path).zones
    with pytest.raises(CalibrationError, match=r"zones\.pile0: not a zone of ikatako \(field\)"):
        Calibration.from_dict(d, base=tmp_path, games=rules)
    d = _v2(tmp_path)
    d["game"] = "chess"
    with pytest.raises(CalibrationError, match="game: one of ikatako, mokochaka, takoyaki, seasaltpaper, toratanu"):
        Calibration.from_dict(d, base=tmp_path, games=rules)

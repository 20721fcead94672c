"""``referee.preflight.check_replay``: what must hold before a replay, refused in one line."""

from __future__ import annotations

import json
import shutil
import wave

import numpy as np
import pytest

from referee.preflight import PreflightError, check_output, check_replay
from session.errors import CalibrationError, MediaError
from tests.conftest import FIXTURES

DEMO = FIXTURES / "demo"
VIDEO = DEMO / "session.mp4"


def _wav(path, rate: int, channels: int = 4, seconds: float = 0.5) -> None:
    x = (np.random.default_rng(1).normal(0, 0.05, (int(seconds * rate), channels)) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as f:
        f.setnchannels(channels)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(x.tobytes())


@pytest.fixture
def table(tmp_path):
    """A copy of the demo calibration (refs by absolute path) and a 16 kHz seats' WAV."""
    cal = json.loads((DEMO / "calibration.json").read_text(encoding="utf-8"))
    cal["references"] = str(DEMO / "refs")
    cal["enroll"] = str(DEMO / "enroll")

    def write(name="cal.json", **changes):
        obj = {**cal, **changes}
        obj = {k: v for k, v in obj.items() if v is not None}
        (tmp_path / name).write_text(json.dumps(obj), encoding="utf-8")
        return tmp_path / name

    _wav(tmp_path / "seats.wav", 16000)
    return write


def test_a_good_table_passes_without_warnings(table, tmp_path):
    pre = check_replay(VIDEO, tmp_path / "seats.wav", table(), tmp_path / "out")
    assert pre.warnings == [] and pre.audio_rate == 16000 and pre.file_rate == 16000
    assert (pre.video_info.width, pre.video_info.height) == (1280, 720)
    assert not (tmp_path / "out").exists()  # checked, not created


def test_another_sample_rate_is_resampled_with_a_warning(table, tmp_path):
    _wav(tmp_path / "s44.wav", 44100)
    pre = check_replay(VIDEO, tmp_path / "s44.wav", table(), tmp_path / "out")
    assert pre.warnings == ["audio: s44.wav is recorded at 44100 Hz, the calibration at 16000 Hz: resampled to "
                            "16000 Hz"]
    assert (pre.audio_rate, pre.file_rate) == (16000, 44100)


def test_a_calibration_without_zones_is_refused(table, tmp_path):
    with pytest.raises(PreflightError, match=r"^the calibration has no card zone \(field\): no card would be seen"):
        check_replay(VIDEO, tmp_path / "seats.wav", table(zones={}), tmp_path / "out")


def test_a_missing_token_zone_is_a_warning(table, tmp_path, monkeypatch):
    cal = table(game="mokochaka", deck=None, references=str(tmp_path / "mrefs"),
                zones={"pile0": [500, 505, 600, 715], "pile1": [600, 505, 700, 715], "pile2": [700, 505, 780, 715]})
    (tmp_path / "mrefs").mkdir()
    for code in ("moko1", "paka2"):
        shutil.copy(DEMO / "refs" / "2.png", tmp_path / "mrefs" / f"{code}.png")
    pre = check_replay(VIDEO, tmp_path / "seats.wav", cal, tmp_path / "out")
    assert pre.warnings[0] == "calibration: no zone token: token grabs are not seen"
    assert pre.warnings[1].startswith("references: no image for card(s) gabu1")  # two images only


def test_another_games_references_without_game_are_refused(table, tmp_path):
    cal = table(game="mokochaka", deck=None, zones={"pile0": [500, 505, 600, 715], "pile1": [600, 505, 700, 715],
                                                    "pile2": [700, 505, 780, 715], "token": [0, 600, 100, 700]})
    with pytest.raises(CalibrationError, match=r"^the calibration is for mokochaka but its reference images .* are "
                                               r"cards of ikatako"):
        check_replay(VIDEO, tmp_path / "seats.wav", cal, tmp_path / "out")


def test_a_deck_of_another_game_is_refused(table, tmp_path):
    cal = table(game="mokochaka", zones={"pile0": [500, 505, 600, 715]})  # the demo's deck: ikatako
    with pytest.raises(CalibrationError, match="for mokochaka but names the deck 'ikatako'"):
        check_replay(VIDEO, tmp_path / "seats.wav", cal, tmp_path / "out")


def test_game_given_must_be_the_calibrations(table, tmp_path):
    with pytest.raises(CalibrationError, match="the calibration is for ikatako, not mokochaka"):
        check_replay(VIDEO, tmp_path / "seats.wav", table(), tmp_path / "out", game="mokochaka")
    with pytest.raises(PreflightError, match="--game 'chess': not a game"):
        check_replay(VIDEO, tmp_path / "seats.wav", table(), tmp_path / "out", game="chess")


def test_stranger_reference_images_are_a_warning(table, tmp_path):
    refs = tmp_path / "refs"
    shutil.copytree(DEMO / "refs", refs)
    shutil.copy(refs / "2.png", refs / "joker.png")
    pre = check_replay(VIDEO, tmp_path / "seats.wav", table(references=str(refs)), tmp_path / "out")
    assert pre.warnings == [f"references: 1 image(s) in {refs} are no card of ikatako (joker): never matched"]


def test_unreadable_inputs_are_refused_before_work(table, tmp_path):
    (tmp_path / "bad.wav").write_bytes(b"RIFF....not a wav")
    with pytest.raises(MediaError, match="bad.wav: not a readable audio"):
        check_replay(VIDEO, tmp_path / "bad.wav", table(), tmp_path / "out")
    with pytest.raises(MediaError, match="not found"):
        check_replay(tmp_path / "none.mp4", tmp_path / "seats.wav", table(), tmp_path / "out")


def test_output_folder_problems_are_found_first(table, tmp_path):
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(PreflightError, match="is a file, not a folder"):
        check_replay(VIDEO, tmp_path / "seats.wav", table(), tmp_path / "file")
    with pytest.raises(PreflightError, match="file is a file, not a folder"):
        check_output(tmp_path / "file" / "sub" / "out")
    with pytest.raises(PreflightError, match="free on its disk, a replay needs about"):
        check_output(tmp_path / "out", need_bytes=1 << 62)


def test_a_read_only_folder_is_refused(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        probe = ro / "probe"
        try:
            probe.write_text("x")
            probe.unlink()
            pytest.skip("this user writes into read-only folders (root): the permission check cannot be seen")
        except PermissionError:
            pass
        with pytest.raises(PreflightError, match=r"cannot write in .*ro \(no permission to write there\)"):
            check_output(ro / "out")
    finally:
        ro.chmod(0o755)


def test_the_resampled_recording_is_what_resampling_the_whole_file_gives(tmp_path):
    """FileSource(rate=...) streams blocks equal to resample_poly of the whole file."""
    from scipy import signal

    from audio.capture import FileSource, read_all

    _wav(tmp_path / "s44.wav", 44100, channels=2, seconds=2.3)
    raw, rate = read_all(tmp_path / "s44.wav")
    src = FileSource(tmp_path / "s44.wav", rate=16000)
    assert (src.rate, src.file_rate, src.resampled_from) == (16000, 44100, 44100)
    blocks = list(src)
    assert all(b.rate == 16000 for b in blocks) and blocks[0].index == 0
    assert [b.index for b in blocks[1:]] == [blocks[0].index + sum(len(x.data) for x in blocks[:i + 1])
                                             for i in range(len(blocks) - 1)]
    got = np.concatenate([b.data for b in blocks])
    want = signal.resample_poly(raw, 160, 441, axis=0)
    assert got.shape == want.shape
    assert np.abs(got - want).max() < 1e-6
    with pytest.raises(MediaError, match="cannot resample to 5 Hz"):
        FileSource(tmp_path / "s44.wav", rate=5)


def test_a_card_of_the_deck_without_a_reference_image_is_a_warning(table, tmp_path):
    refs = tmp_path / "refs"
    shutil.copytree(DEMO / "refs", refs)
    (refs / "ika.png").unlink()
    pre = check_replay(VIDEO, tmp_path / "seats.wav", table(references=str(refs)), tmp_path / "out")
    assert [w for w in pre.warnings if w.startswith("references: no image")] == [
        f"references: no image for card(s) ika in {refs}: those cards cannot be recognised (add CODE.png and "
        "replay again)"]


def test_the_live_referee_gets_the_same_checks(table, tmp_path):
    """``check_live``: the zones, the sample rate (a paced recording) and the references, as replay."""
    from referee.preflight import check_live

    with pytest.raises(PreflightError, match="no card zone"):
        check_live(table(zones={}), tmp_path / "out")
    _wav(tmp_path / "s44.wav", 44100)
    pre = check_live(table(), tmp_path / "out", video=VIDEO, audio=tmp_path / "s44.wav")
    assert (pre.audio_rate, pre.file_rate) == (16000, 44100) and "resampled to 16000 Hz" in pre.warnings[0]
    assert check_live(table(), tmp_path / "out").audio_rate == 16000  # microphones: the calibration's rate
    with pytest.raises(CalibrationError, match="not mokochaka"):
        check_live(table(), tmp_path / "out", game="mokochaka")

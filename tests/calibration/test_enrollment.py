"""The voice-enrollment step (``calibration.enrollment``): prompts from the game's own list, a
simulated session through the file-backed source — a silent, a clipped and a wrong take asked
again — and a folder that the enrolled-voice verifier loads and that recognises a fresh take
of the same voice."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from calibration import enrollment
from calibration.enroll_ui import TerminalUI, meter
from session.errors import CalibrationError
from tests.calibration import enroll_voices
from tests.conftest import once

SEATS = ["aki", "ben"]
needs_espeak = pytest.mark.skipif(not enroll_voices.available(), reason="espeak-ng is not installed (the test voices)")


class Collect:
    """An EnrollUI that keeps what it was shown."""

    def __init__(self):
        self.lines: list[str] = []
        self.levels = 0
        self.players: list[str] = []

    def player(self, name, channel, count):
        self.players.append(name)

    def prompt(self, p, attempt):
        self.lines.append(f"prompt {p.player} {p.text} {p.take} {attempt}")

    def level(self, level):
        self.levels += 1

    def result(self, p, why, heard):
        self.lines.append(f"result {p.player} {p.text} {p.take} {why or 'ok'}")

    def note(self, text):
        self.lines.append(text)


def test_prompts_come_from_the_games_own_list_round_by_round():
    plan = enrollment.prompts("ikatako", [("aki", 2), ("ben", 0)], "ja", 2)
    texts = [p.text for p in plan if p.player == "aki" and p.take == 1]
    assert texts == ["イカ", "タコ", "イカタコ", "ウズシオ", "サルベージ", "2", "3", "4", "5", "8", "10"]
    assert [(p.player, p.take) for p in plan[:1]] == [("aki", 1)] and plan[11].take == 2
    assert len(plan) == 2 * 2 * 11 and {p.channel for p in plan if p.player == "aki"} == {2}
    assert plan[0].filename == "ika.1.wav"
    en = enrollment.prompts("seasaltpaper", [("aki", 0)], "en", 3)
    assert [p.text for p in en] == ["stop", "last chance"] * 3
    assert [p.text for p in enrollment.prompts("mokochaka", [("a", 0)], "ja", 2)][:5] == \
        ["モコ", "パカ", "ポメ", "ガブ", "チャカ"]


def test_prompts_refuse_an_unknown_channel_and_a_bad_take_count():
    with pytest.raises(CalibrationError, match="seat ben has no microphone channel"):
        enrollment.prompts("ikatako", [("aki", 0), ("ben", None)])
    with pytest.raises(CalibrationError, match="2 or 3 takes"):
        enrollment.prompts("ikatako", [("aki", 0)], takes=4)


def _session(tmp_path_factory, rate):
    """The simulated session of two seats at ``rate``: (plan, result, ui, folder)."""
    from audio.takes import ArraySource

    plan = enrollment.prompts("ikatako", [(s, i) for i, s in enumerate(SEATS)], "ja", 2)
    wrong_at = next(i for i, p in enumerate(plan) if p.player == "ben" and p.take == 2 and p.tokens == ("ika",))
    data = enroll_voices.session(plan, SEATS, 2, rate, silent=3, clipped=6, wrong=(wrong_at, "tako"))
    folder = tmp_path_factory.mktemp("voices") / "enroll"
    ui = Collect()
    res = enrollment.record(ArraySource(data, rate), plan, folder, ui)
    return plan, res, ui, folder


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    if not enroll_voices.available():
        pytest.skip("espeak-ng is not installed (the test voices)")
    return once("test_enrollment.recorded", lambda: _session(tmp_path_factory, 48000))


def test_a_silent_a_clipped_and_a_wrong_take_are_asked_again(recorded):
    _, res, ui, _ = recorded
    why = [(p.player, p.text, w) for p, w in res.retakes]
    assert why[0][:2] == ("aki", "ウズシオ") and why[0][2].startswith("no speech heard")
    assert why[1][:2] == ("aki", "3") and why[1][2].startswith("clipped")
    assert why[2] == ("ben", "イカ", "heard as タコ: say イカ")
    assert len(why) == 3 and res.warnings == []
    assert "result aki ウズシオ 1 ok" in ui.lines and ui.lines.index("prompt aki ウズシオ 1 2") > 0
    assert res.kept == {"aki": 22, "ben": 22} and ui.players == SEATS and ui.levels > 1000


def test_the_folder_is_the_layout_enrollment_loads_at_the_hearing_rate(recorded):
    from audio.capture import read_all

    plan, res, _, folder = recorded
    assert res.folder == folder and folder.is_dir() and not folder.with_name("enroll.recording").exists()
    files = sorted(p.relative_to(folder).as_posix() for p in folder.glob("*/*.wav"))
    assert files == sorted(f"{p.player}/{p.filename}" for p in plan)
    data, rate = read_all(folder / "aki" / "ika.1.wav")
    assert rate == 16000 and data.shape[1] == 1 and 0.4 < len(data) / rate < 2.0  # the word and 0.3 s each side


def test_the_recorded_voices_verify_a_fresh_take_of_the_same_voice(recorded):
    from audio import enroll

    voices = enroll.from_folder(recorded[3])
    assert voices.rate == 16000 and set(voices.templates) == set(SEATS)
    for seat, name in enumerate(SEATS):
        for call in ("ika", "tako", "ikatako", "salvage", "3", "8"):
            verdict = voices.verify(name, enroll.trim(enroll_voices.fresh(call, seat), 16000))
            assert verdict.tokens == (call,), (name, call, verdict)


@needs_espeak
def test_a_recording_that_ends_too_soon_is_one_clear_error_and_leaves_nothing(tmp_path):
    from audio.takes import ArraySource

    plan = enrollment.prompts("seasaltpaper", [("aki", 0)], "ja", 2)
    data = enroll_voices.session(plan[:3], ["aki"], 1)
    (tmp_path / "enroll").mkdir()
    (tmp_path / "enroll" / "keep.txt").write_text("earlier")
    with pytest.raises(CalibrationError, match="the recording ended before aki's take 2 of 'ラストチャンス'"):
        enrollment.record(ArraySource(data, 16000), plan, tmp_path / "enroll", Collect())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["enroll"]
    assert (tmp_path / "enroll" / "keep.txt").read_text() == "earlier"


@needs_espeak
def test_an_earlier_folder_is_kept_as_previous(tmp_path):
    from audio.takes import ArraySource

    plan = enrollment.prompts("seasaltpaper", [("aki", 0)], "ja", 2)
    (tmp_path / "enroll" / "aki").mkdir(parents=True)
    (tmp_path / "enroll" / "aki" / "old.wav").write_bytes(b"old")
    res = enrollment.record(ArraySource(enroll_voices.session(plan, ["aki"], 1), 16000), plan,
                            tmp_path / "enroll", Collect())
    assert res.previous == tmp_path / "enroll.previous" and (res.previous / "aki" / "old.wav").read_bytes() == b"old"
    assert sorted(p.name for p in (tmp_path / "enroll" / "aki").iterdir()) == \
        ["lastchance.1.wav", "lastchance.2.wav", "stop.1.wav", "stop.2.wav"]


@needs_espeak
def test_the_terminal_draws_a_meter_in_place_and_a_log_only_the_results(tmp_path):
    from audio.takes import ArraySource

    plan = enrollment.prompts("seasaltpaper", [("aki", 0)], "ja", 2)
    data = enroll_voices.session(plan, ["aki"], 1)
    ticks = iter(range(10**6))
    tty, log = io.StringIO(), io.StringIO()
    enrollment.record(ArraySource(data, 16000), plan, tmp_path / "a",
                      TerminalUI(tty, tty=True, clock=lambda: next(ticks)))
    enrollment.record(ArraySource(data, 16000), plan, tmp_path / "b", TerminalUI(log, tty=False))
    assert "\raki: say ストップ  take 1/2  [" in tty.getvalue() and "█" in tty.getvalue()
    assert "dBFS\x1b[K" in tty.getvalue() and "\raki: say ストップ  take 1/2  ok" in tty.getvalue()
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue() and lines[2].startswith("aki: say ストップ  take 1/2  ok  (loudest -1")
    assert lines[1].startswith("aki (microphone channel 0): 4 takes")


def test_meter_spans_the_floor_to_full_scale():
    assert meter(-60.0, 10) == "[··········]" and meter(0.0, 10) == "[██████████]"
    assert meter(-30.0, 10) == "[█████·····]" and meter(-90.0, 10) == meter(-60.0, 10)


def test_with_field_changes_only_that_field():
    from session.calibration import with_field

    text = '{\n "version": 1,\n "enroll": "old",\n "seats": [1, 2]\n}\n'
    assert with_field(text, "enroll", "enroll") == text.replace('"old"', '"enroll"')
    added = with_field('{\n "version": 2,\n "zones": {"field": [1, 2, 3, 4]}\n}\n', "enroll", "v/x")
    assert added == '{\n "version": 2,\n "zones": {"field": [1, 2, 3, 4]},\n "enroll": "v/x"\n}\n'
    assert with_field('{"a": 1}', "enroll", "e") == '{"a": 1, "enroll": "e"}'
    crlf = '{\r\n  "a": "enroll",\r\n  "b": 2\r\n}\r\n'
    assert with_field(crlf, "enroll", "e") == '{\r\n  "a": "enroll",\r\n  "b": 2,\r\n  "enroll": "e"\r\n}\r\n'
    for t in (text, added, crlf):
        json.loads(with_field(t, "enroll", "é"))
    with pytest.raises(CalibrationError, match="not a JSON object"):
        with_field("[1]", "enroll", "e")


def test_a_take_heard_as_another_call_is_judged_by_the_players_own_takes():
    """Before a call has a take, only a take as near as a repeat is another call; after, the
    nearest take's call decides."""
    check = enrollment.CallCheck()
    rng = np.random.default_rng(0)

    def tone(f):  # a 'word': a voiced tone with an onset, 0.4 s
        t = np.arange(int(0.4 * 16000)) / 16000
        w = 0.3 * np.sin(2 * np.pi * f * t) * np.hanning(len(t))
        pad = np.zeros(3200)
        return np.concatenate([pad, w, pad]) + rng.normal(0, 1e-3, len(w) + 6400)

    assert check.heard_as("aki", ("ika",), tone(300)) is None  # nothing to compare with
    check.add("aki", ("ika",), tone(300))
    assert check.heard_as("aki", ("tako",), tone(300)) == ("ika",)  # the same sound as ika's take
    check.add("aki", ("tako",), tone(1200))
    assert check.heard_as("aki", ("tako",), tone(1250)) is None
    assert check.heard_as("aki", ("tako",), tone(310)) == ("ika",)

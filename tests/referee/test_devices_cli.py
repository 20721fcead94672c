"""``referee devices`` in-process, with the device queries faked (no camera or sound card
here): what it prints for a table with a webcam and a 4-input interface, for one laptop,
and for a computer with nothing plugged in (or no PortAudio) — a clear message, never a
traceback."""

from __future__ import annotations

import json

import pytest

from audio.devices import AudioInput
from session.errors import DeviceError
from vision.devices import CameraInfo

LAPTOP_MIC = AudioInput(0, "HDA Intel PCH: ALC257 Analog (hw:0,0)", 2, 44100, default=True)
INTERFACE = AudioInput(2, "UMC404HD 192k: USB Audio (hw:2,0)", 4, 48000)


@pytest.fixture
def found(monkeypatch):
    from referee.commands import devices as cmd

    def set_(cameras, inputs):
        monkeypatch.setattr(cmd, "_cameras", lambda: cameras)
        if isinstance(inputs, Exception):
            def raise_():
                raise inputs
            monkeypatch.setattr("audio.devices.list_inputs", raise_)
        else:
            monkeypatch.setattr("audio.devices.list_inputs", lambda: inputs)

    return set_


def test_a_table_with_a_webcam_and_a_four_input_interface(run_cli, found):
    found([CameraInfo(0, 1280, 720, 30.0), CameraInfo(2, 640, 480, 15.0)], [LAPTOP_MIC, INTERFACE])
    res = run_cli("devices", "--seats", "4")
    assert res.exit_code == 0
    lines = res.output.splitlines()
    assert "  0   1280x720    30 fps  fits a table" in lines
    assert "  2   640x480     15 fps  usable (640x480, 15 fps); 1280x720 at 30 fps is better" in lines
    assert "  2   UMC404HD 192k: USB Audio (hw:2,0)      4 ch  48000 Hz           fits 4 seats (a close microphone " \
           "on inputs 1-4)" in lines
    assert "  0   HDA Intel PCH: ALC257 Analog (hw:0,0)  2 ch  44100 Hz  default  room microphone only (2 channel(s) " \
           "for 4 seats)" in lines
    assert lines[-1] == "  referee calibrate --game ikatako --camera 0 --audio-device 2"


def test_one_laptop_is_offered_the_room_microphone(run_cli, found):
    found([CameraInfo(0, 1280, 720, 30.0)], [LAPTOP_MIC])
    res = run_cli("devices", "--seats", "3")
    assert res.exit_code == 0
    assert "only a room microphone: one-laptop mode" in res.output
    assert res.output.splitlines()[-1] == "  referee calibrate --game ikatako --camera 0 --audio-device 0 --room"
    data = json.loads(run_cli("devices", "--seats", "3", "--json").output)
    assert data["use"] == {"camera": 0, "audio_device": 0, "mode": "room"}
    assert data["inputs"][0]["fit"] == "room"
    # two seats on a two-channel input: a close microphone each
    assert json.loads(run_cli("devices", "--seats", "2", "--json").output)["use"]["mode"] == "seats"


@pytest.mark.parametrize("inputs, says", [
    ([], "none found: plug in the seats' USB audio interface"),
    (DeviceError("live audio needs PortAudio: install Debian's libportaudio2"), "none found: live audio needs PortAudio"),
])
def test_nothing_plugged_in_is_said_in_words(run_cli, found, inputs, says):
    found([], inputs)
    res = run_cli("devices")
    assert res.exit_code == 0 and "Traceback" not in res.output
    assert "  none found: plug in a USB webcam (720p, 30 fps)" in res.output
    assert says in res.output
    assert res.output.splitlines()[-1] == "  the referee needs a camera and an audio input; `referee demo` runs without any"


def test_this_machine_without_devices(run_cli):
    """The real queries on this machine (no camera, no sound card): the same clear words."""
    res = run_cli("devices", "--json")
    data = json.loads(res.output)
    assert res.exit_code == 0 and data["use"]["mode"] in (None, "seats", "room")


def test_the_readme_shows_what_the_command_prints(run_cli, found):
    """The README's `referee devices --seats 4` block is this command's output for a webcam, a
    laptop's microphone and a 4-input interface."""
    from tests.conftest import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = readme[readme.index("```\nCameras\n") + 4:]
    shown = shown[:shown.index("```")]
    found([CameraInfo(0, 1280, 720, 30.0)], [LAPTOP_MIC, INTERFACE])
    assert run_cli("devices", "--seats", "4").output == shown

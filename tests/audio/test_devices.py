"""``audio.devices``: PortAudio's inputs as plain values, and what each gives a table of N
seats (a channel per seat, or one room microphone). PortAudio is faked: no sound card here."""

from __future__ import annotations

import pytest

from audio import devices
from session.errors import DeviceError

#: a laptop's own microphone (stereo, the default), an output-only device, a 4-input USB interface
LISTED = ([{"name": "HDA Intel PCH: ALC257 Analog (hw:0,0)", "hostapi": 0, "max_input_channels": 2,
            "default_samplerate": 44100.0},
           {"name": "HDMI 0", "hostapi": 0, "max_input_channels": 0, "default_samplerate": 48000.0},
           {"name": "Scarlett 4i4 USB: Audio (hw:2,0)", "hostapi": 0, "max_input_channels": 4,
            "default_samplerate": 48000.0}], 0, ["ALSA"])


def test_inputs_are_listed_with_channels_rate_and_the_default():
    found = devices.list_inputs(lambda: LISTED)
    assert [(i.index, i.channels, i.rate, i.default, i.api) for i in found] == [
        (0, 2, 44100, True, "ALSA"), (2, 4, 48000, False, "ALSA")]  # the output-only HDMI is no input


def test_what_an_input_gives_a_table():
    laptop, interface = devices.list_inputs(lambda: LISTED)
    assert devices.fit(interface, 4).mode == "seats"
    assert devices.fit(interface, 3).text == "fits 3 seats (a close microphone on inputs 1-3, 1 left over)"
    assert devices.fit(laptop, 4).mode == "room" and "room microphone" in devices.fit(laptop, 4).text
    assert devices.fit(interface, 5).mode == "room"
    # the table's input: the one that fits even when it is not the default; else the laptop's
    assert devices.best_for([laptop, interface], 4) is interface
    assert devices.best_for([laptop, interface], 6) is laptop
    assert devices.best_for([], 4) is None


def test_an_input_is_found_by_index_or_name_else_the_inputs_are_named():
    found = devices.list_inputs(lambda: LISTED)
    assert devices.find(found, "2").name.startswith("Scarlett")
    assert devices.find(found, "scarlett").index == 2
    with pytest.raises(DeviceError, match=r"audio device '7' is not an input here \(inputs: 0: HDA Intel"):
        devices.find(found, "7")


def test_no_portaudio_and_no_inputs(monkeypatch):
    from audio import capture

    def missing():
        raise DeviceError("live audio needs PortAudio: install Debian's libportaudio2")

    monkeypatch.setattr(capture, "import_sounddevice", missing)
    with pytest.raises(DeviceError, match="libportaudio2"):
        devices.list_inputs()
    assert devices.list_inputs(lambda: ([], -1, [])) == []

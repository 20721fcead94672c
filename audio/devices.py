"""The audio inputs this computer has, and which of them fit a table of N seats.

``referee devices`` and the guided calibration ask this module, never PortAudio
directly: only ``audio/`` imports sounddevice (the layer contract). :func:`list_inputs`
reads PortAudio's device list once (``query`` is a seam for tests: a function returning
what ``sounddevice.query_devices()`` returns); :func:`fit` says, in a person's words,
what an input gives a table of ``seats`` players.

Why channels decide: the referee tells who spoke by which channel a voice is loudest on,
so every seat needs its own close microphone on its own channel of *one* interface (one
sample clock). An input with fewer channels than seats can only be a room microphone:
words are heard, but who said them must come from elsewhere (see :data:`ROOM`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from session.errors import DeviceError

#: what a one-input table can and cannot judge (said by ``referee devices`` and the calibration)
ROOM = ("one room microphone cannot tell by its channel who said a word: the referee judges the hands and "
        "cards, credits a word to a seat only when that seat alone moved its hands with it and no other word "
        "came within 0.3 s, and leaves every other word unclear for the table (no penalty)")


@dataclass(frozen=True)
class AudioInput:
    """One input device as PortAudio lists it."""

    index: int
    name: str
    channels: int
    rate: int
    default: bool = False
    api: str = ""

    def to_dict(self) -> dict:
        return {"index": self.index, "name": self.name, "channels": self.channels, "rate": self.rate,
                "default": self.default, "api": self.api}


@dataclass(frozen=True)
class Fit:
    """What an input gives a table: ``mode`` is ``"seats"`` (a channel per seat),
    ``"room"`` (one room microphone) or ``"none"`` (no channel at all)."""

    mode: str
    text: str

    @property
    def fits(self) -> bool:
        return self.mode == "seats"


def _sounddevice_query():
    from audio.capture import import_sounddevice

    sd = import_sounddevice()
    devices = sd.query_devices()
    try:
        default_in = sd.default.device[0]
    except Exception:  # noqa: BLE001 - an odd default setting is no default
        default_in = -1
    try:
        apis = [a.get("name", "") for a in sd.query_hostapis()]
    except Exception:  # noqa: BLE001
        apis = []
    return devices, default_in, apis


def list_inputs(query: Callable[[], tuple] | None = None) -> list[AudioInput]:
    """Every device with at least one input channel, in PortAudio's order.

    ``query`` returns ``(devices, default input index, host API names)``; by default
    PortAudio's. A missing PortAudio is one :class:`DeviceError` (from
    :func:`audio.capture.import_sounddevice`); a PortAudio that lists nothing gives ``[]``.
    """
    devices, default_in, apis = (query or _sounddevice_query)()
    out = []
    for i, d in enumerate(devices or []):
        channels = int(d.get("max_input_channels", 0) or 0)
        if channels <= 0:
            continue
        api_i = d.get("hostapi")
        api = apis[api_i] if isinstance(api_i, int) and 0 <= api_i < len(apis) else ""
        out.append(AudioInput(int(d.get("index", i)), str(d.get("name", f"device {i}")), channels,
                              int(round(float(d.get("default_samplerate", 0) or 0))), i == default_in, api))
    return out


def fit(inp: AudioInput, seats: int) -> Fit:
    """What ``inp`` gives a table of ``seats`` players (see the module docstring)."""
    if inp.channels <= 0:
        return Fit("none", "no input channel")
    if seats >= 2 and inp.channels >= seats:
        return Fit("seats", f"fits {seats} seats (a close microphone on inputs 1-{seats}"
                   + (f", {inp.channels - seats} left over)" if inp.channels > seats else ")"))
    if seats <= 1:
        return Fit("seats", "fits 1 seat")
    return Fit("room", f"room microphone only ({inp.channels} channel(s) for {seats} seats)")


def best_for(inputs: Sequence[AudioInput], seats: int) -> AudioInput | None:
    """The input a table of ``seats`` should use: the default if it fits, else the first
    that fits, else (one laptop) the default or the only input; None when there is none."""
    if not inputs:
        return None
    fitting = [i for i in inputs if fit(i, seats).fits]
    for pool in (fitting, inputs):
        for i in pool:
            if i.default:
                return i
        if pool:
            return pool[0]
    return None


def find(inputs: Sequence[AudioInput], device) -> AudioInput:
    """The input named by ``--audio-device`` (an index or a part of its name), or one
    :class:`DeviceError` listing the inputs there are."""
    for i in inputs:
        if (str(device).isdigit() and i.index == int(device)) or (
                not str(device).isdigit() and str(device).lower() in i.name.lower()):
            return i
    there = "; ".join(f"{i.index}: {i.name}" for i in inputs) or "none"
    raise DeviceError(f"audio device {device!r} is not an input here (inputs: {there})")

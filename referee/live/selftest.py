"""The pre-game self-test, like a fencing box's: every seat is checked before play starts.

Each seat says one word and raises each hand. Per seat the test shows the microphone
level (the loudest block on the seat's channel), the word heard (a ``shout`` attributed to
the seat), whether pose saw both arms (a ``hand`` going up on each side), and, for the
table, the audio–video offset from a clap. :func:`evaluate` is pure — the events and
levels seen so far in, a :class:`SelfTestResult` with a pass/fail per seat out — so the
live screen re-evaluates as the events arrive and shows what is still missing;
:func:`render_text` and :func:`render` draw it for the terminal and the window, and
:func:`require_pass` refuses to start on a failed seat unless forced (``--force``).

The offset measurement itself (a clap seen and heard) belongs to the calibration; here it
is an input (``offset_ms``, None while not measured: shown as pending, not a failure).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import numpy as np

from session.errors import DeviceError
from session.events import Event, HandEvent, ShoutEvent
from session.params import check_ranges


@dataclass(frozen=True)
class SelfTestParams:
    """Thresholds of the live self-test (each seat says a word before play). How the level
    was chosen: docs/settings.md, ``SelfTestParams``."""

    #: the loudest block of a seat's channel while its player speaks must reach this (dBFS).
    #: Higher: a working seat at a distance fails; lower: an unplugged cable passes.
    min_level_db: float = -40.0
    #: louder blocks (dBFS) mean the gain is too high (clipped audio spoils recognition).
    clip_db: float = -0.5
    #: an audio–video offset beyond this (ms) means a wrong device or a badly stamped camera,
    #: not latency: reaction times this uncertain are not worth judging.
    max_offset_ms: float = 300.0
    #: the word each seat is asked to say (None: any word the recogniser knows counts).
    word: str | None = None

    def __post_init__(self):
        check_ranges(self, positive=("max_offset_ms",), finite=("min_level_db", "clip_db"))



@dataclass
class SeatCheck:
    name: str
    level_db: float | None = None
    word: str | None = None
    left: bool = False
    right: bool = False
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


@dataclass
class SelfTestResult:
    seats: list[SeatCheck]
    offset_ms: float | None = None
    table_problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.table_problems and all(s.passed for s in self.seats)

    @property
    def failed(self) -> list[str]:
        return [s.name for s in self.seats if not s.passed]


def evaluate(players: Sequence[str], events: Iterable[Event], levels: Mapping[str, Iterable[float]] | None = None,
             *, offset_ms: float | None = None, params: SelfTestParams = SelfTestParams()) -> SelfTestResult:
    """Each seat's checks from the events and per-block levels (``{player: [dBFS, ...]}``)."""
    seats = {p: SeatCheck(p) for p in players}
    for ev in events:
        if isinstance(ev, ShoutEvent) and ev.player in seats and ev.words:
            seat = seats[ev.player]
            heard = " ".join(ev.words)
            if seat.word is None or (params.word is not None and heard == params.word):
                seat.word = heard
        elif isinstance(ev, HandEvent) and ev.player in seats and ev.state == "up":
            setattr(seats[ev.player], ev.side, True)
    for p, seat in seats.items():
        values = [v for v in (levels or {}).get(p, []) if v is not None and np.isfinite(v)]
        seat.level_db = max(values) if values else None
        if seat.level_db is None:
            seat.problems.append("no microphone signal")
        elif seat.level_db < params.min_level_db:
            seat.problems.append(f"microphone too quiet ({seat.level_db:.0f} dB < {params.min_level_db:.0f}): "
                                 "is it plugged in and near the mouth?")
        elif seat.level_db > params.clip_db:
            seat.problems.append("microphone clipping: turn its gain down")
        if seat.word is None:
            seat.problems.append("no word heard" + (f" (say {params.word!r})" if params.word else ""))
        elif params.word is not None and seat.word != params.word:
            seat.problems.append(f"heard {seat.word!r}, expected {params.word!r}")
        missing = [s for s in ("left", "right") if not getattr(seat, s)]
        if missing:
            arms = "either arm" if len(missing) == 2 else f"the {missing[0]} arm"
            seat.problems.append(f"pose did not see {arms} go up")
    result = SelfTestResult(list(seats.values()), offset_ms)
    if offset_ms is not None and abs(offset_ms) > params.max_offset_ms:
        result.table_problems.append(f"audio and video are {offset_ms:+.0f} ms apart (more than "
                                     f"{params.max_offset_ms:.0f}): check the camera and the audio device")
    return result


def check_sources(camera, audio_device, channels: int | None, *, camera_opens=None, list_inputs=None) -> None:
    """The camera and the seats' audio input exist, checked before anyone is asked to speak
    or raise a hand: one :class:`DeviceError` naming every problem (no camera, no input, an
    input with fewer channels than the seats use), or nothing. A calibration whose seats have
    no microphone (``channels`` None) and no input named needs no input at all.

    ``camera_opens(device) -> bool`` and ``list_inputs() -> [AudioInput]`` are seams for
    tests; by default :func:`vision.devices.can_open` and :func:`audio.devices.list_inputs`
    (OpenCV's log silenced: no ``[ WARN:0@…]`` lines before the referee's own)."""
    from audio import devices as audio_devices

    if camera_opens is None:
        from vision.devices import can_open as camera_opens
    problems = []
    if not camera_opens(camera):
        problems.append(f"camera {camera!r} cannot be opened (not plugged in, another program using it, or another "
                        "index: referee devices lists the cameras)")
    if channels is None and audio_device is None:  # no seat has a microphone: the live run hears silence
        if problems:
            raise DeviceError("; ".join(problems))
        return
    try:
        inputs = (list_inputs or audio_devices.list_inputs)()
    except DeviceError as exc:
        inputs, why = [], str(exc)
    else:
        why = None
    chosen = None
    if audio_device is not None and inputs:
        try:
            chosen = audio_devices.find(inputs, audio_device)
        except DeviceError as exc:
            problems.append(str(exc))
    elif inputs:
        chosen = next((i for i in inputs if i.default), inputs[0])
    if not inputs:
        problems.append(f"no audio input{f' ({why})' if why else ''}: plug in the seats' audio interface "
                        "(referee devices lists the inputs)")
    elif chosen is not None and channels and chosen.channels < channels:
        problems.append(f"audio input {chosen.index} '{chosen.name}' has {chosen.channels} channel(s); the "
                        f"calibration's seats use {channels}: name the interface with --audio-device N")
    if problems:
        raise DeviceError("; ".join(problems))


def require_pass(result: SelfTestResult, force: bool = False) -> list[str]:
    """Raise one clear error on a failed seat unless ``force``; returns the warnings to
    record when forced (the record says the game started on a failed self-test)."""
    if result.passed:
        return []
    problems = [f"{s.name}: {'; '.join(s.problems)}" for s in result.seats if not s.passed] + result.table_problems
    if not force:
        raise DeviceError("the self-test failed: " + " | ".join(problems) + " (fix it and run again, or pass --force)")
    return [f"started despite a failed self-test: {p}" for p in problems]


# ---------------------------------------------------------------------- drawing
def _cells(seat: SeatCheck) -> list[str]:
    level = "-" if seat.level_db is None else f"{seat.level_db:.0f} dB"
    arms = ("L" if seat.left else "-") + ("R" if seat.right else "-")
    return [seat.name, level, seat.word or "-", arms, "PASS" if seat.passed else "FAIL"]


def _offset(result: SelfTestResult) -> str:
    if result.offset_ms is None:
        return "audio-video offset (clap): pending - clap once in view of the camera"
    return f"audio-video offset (clap): {result.offset_ms:+.0f} ms"


def render_text(result: SelfTestResult) -> list[str]:
    """The self-test as lines for the terminal."""
    out = ["SELF-TEST: each seat says one word and raises each hand", "",
           f"{'seat':<10} {'mic':>7}  {'heard':<12} {'arms':<5} result"]
    for seat in result.seats:
        name, level, word, arms, verdict = _cells(seat)
        out.append(f"{name:<10} {level:>7}  {word:<12} {arms:<5} {verdict}")
        out += [f"           - {p}" for p in seat.problems]
    out += ["", _offset(result)]
    out += [f"! {p}" for p in result.table_problems]
    out.append("all seats pass: press space to start" if result.passed
               else f"waiting for: {', '.join(result.failed) or 'the table'}")
    return out


def render(result: SelfTestResult, width: int = 1360, height: int = 768) -> np.ndarray:
    """The self-test as the window's image (deterministic, like the live window's)."""
    import cv2

    from referee.live.window import GREEN, GREY, ORANGE, PANEL, RED, WHITE, YELLOW, outlined_text

    img = np.full((height, width, 3), PANEL, np.uint8)
    outlined_text(cv2, img, "SELF-TEST", (40, 60), 1.4, WHITE, 3)
    outlined_text(cv2, img, "each seat: say one word, raise the left hand, then the right", (40, 100), 0.8, GREY, 1)
    cols = [40, 300, 460, 720, 880]
    y = 160
    for x, head in zip(cols, ["seat", "mic", "heard", "arms", "result"]):
        outlined_text(cv2, img, head, (x, y), 0.7, GREY, 1)
    for seat in result.seats:
        y += 48
        for x, cell in zip(cols, _cells(seat)):
            colour = (GREEN if seat.passed else RED) if cell in ("PASS", "FAIL") else WHITE
            outlined_text(cv2, img, cell, (x, y), 0.9, colour, 2)
        for p in seat.problems[:2]:
            y += 26
            outlined_text(cv2, img, p, (cols[1], y), 0.6, ORANGE, 1)
    y += 60
    outlined_text(cv2, img, _offset(result), (40, y), 0.7, WHITE if result.offset_ms is not None else YELLOW, 1)
    for p in result.table_problems:
        y += 30
        outlined_text(cv2, img, p, (40, y), 0.6, RED, 1)
    msg = "all seats pass: press space to start" if result.passed else f"waiting for: {', '.join(result.failed) or 'the table'}"
    outlined_text(cv2, img, msg, (40, height - 40), 0.9, GREEN if result.passed else YELLOW, 2)
    return img

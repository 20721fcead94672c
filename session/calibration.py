"""The calibration file (``calibration.json``): what the camera sees where, who sits where,
which microphone channel is whose, and what the deck's cards look like.

Schema version 2 (written by ``referee calibrate``; version 1 files are migrated on load):

```json
{"version": 2, "game": "ikatako", "deck": "ikatako",
 "camera": {"id": 0, "width": 1280, "height": 720, "fps": 30},
 "zones": {"field": [500, 505, 780, 715]},
 "seats": [{"name": "aki", "box": [0, 0, 320, 500], "channel": 0}],
 "audio": {"device": null, "rate": 16000, "channels": 4, "file": "seats.wav"},
 "references": "refs", "cards": ["2", "3", "tako"],
 "lookalikes": [["uzushio6", "uzushio9", 0.99]],
 "enroll": "enroll"}
```

- ``camera``: ``id`` (an OpenCV camera index, a device path, or null for a recording),
  ``width``/``height`` (pixels; every box must lie inside), ``fps`` (null = unknown).
- Boxes are ``[x1, y1, x2, y2]`` in image pixels (x2 > x1, y2 > y1, inside the image).
- Zone names: ``field`` (IKATAKO), ``pile0``..``pile2`` and ``token`` (MOKOCHAKA; TAKOYAKI's
  discards are its ``pile0``), ``p:<seat>:slot<N>`` (a TAKOYAKI griddle slot of that seat), ``p:<seat>:spread`` (the cards
  face up in front of that seat, read together: Sea Salt & Paper), ``scoring`` (Sea Salt &
  Paper / TORATANU scoring area). These are the ``zone`` values of ``card`` events. A zone
  that is not one of the game's is an error (``zones.pile0: not a zone of ikatako``).
- ``seats``: one per player, left to right as the camera sees them; ``channel`` is the
  seat's channel on the audio interface (null when unknown; two seats never share one).
- ``audio``: the multi-channel input all seat microphones are on: ``device`` (a
  sounddevice index or name, null = the default input), ``rate``, ``channels``, and for a
  recorded table the ``file`` it was calibrated from; ``crosstalk_db``: the seat-to-seat
  leakage measured at calibration (the loudest other channel while a seat speaks, worst
  seat; e.g. -10), which replay's onset detector subtracts; ``leakage``: what the
  recording ``file`` says of the leak paths, the seats' speech levels and the leak the
  cancellation leaves, the microphones' level corrections and whether the table is cancelled
  at all (:class:`LeakMeasurement`, written by ``referee calibrate``; without
  it they are measured on ``file`` at every replay). Decision (the issue says "device
  and channel per seat"): one device for all seats, since the onset detector and speaker
  attribution need every seat on one sample clock; the seat carries only its channel.
- ``deck``: the deck's name (default: the game's); ``references``: a folder (relative to
  the file) of reference images named by card code (``ika.png``, ``ika_1.png``); ``cards``:
  the codes that must have a reference (a missing image is an error naming it);
  ``lookalikes``: reference pairs vision.cards may confuse, ``[a, b, score]``.
- ``enroll``: optional folder of per-player voice takes, ``DIR/<player>/<call>[.<take>].wav``
  (as :func:`audio.enroll.from_folder` reads); every ``<player>`` must be a seat.
- ``av_offset``: the audio-video offset in seconds measured at calibration (a clap or a hand
  slapping the table: the video time of contact minus the audio onset; e.g. 0.083 = the
  camera's frames arrive 83 ms later than the microphones' samples), or null (not
  measured: 0 is applied). :func:`to_video_clock` / :func:`shift_audio_events` put audio
  times on the video clock, the one clock events are judged on. Files without it (every
  version 1 file, older version 2 files) read as null.
- ``notes``: free text; ``extra``: an object of free keys (version 1's extra keys land
  here). Any other key is an error naming it (a typo must not be ignored).

Validated on load: every problem is a :class:`CalibrationError` naming the field
(``seats[2].channel: must be an integer >= 0, got -1``). :func:`check_media` checks a
calibration against a video's resolution and a session's game.

Version 1 (``referee watch`` before issue 6) had ``camera`` width/height(/fps), ``zones``,
``seats``, ``references`` and free extra keys; :func:`migrate_v1` maps its ``deck``,
``audio`` and ``enroll`` keys to the version 2 fields and keeps every extra key (these too)
in ``extra`` as it was (v1 allowed them; code written against v1 reads them there).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from session.errors import CalibrationError, RefereeError
from session.leak_measurement import LeakMeasurement, int_in

SCHEMA_VERSION = 2
#: versions this referee reads (older ones are migrated on load)
READS = (1, 2)
_ZONE_NAME = re.compile(r"^(field|token|scoring|pile[0-2]|p:[^:\s]+:(slot\d+|spread))$")
_GAME_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_IMAGE_EXT = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff")
_V1_KEYS = {"version", "game", "camera", "zones", "seats", "references"}
_V2_KEYS = {"version", "game", "deck", "camera", "zones", "seats", "audio", "references", "cards",
            "lookalikes", "enroll", "notes", "extra", "av_offset"}
#: the largest audio-video offset accepted (seconds): webcams deliver frames 50-150 ms late,
#: audio interfaces add 5-40 ms; a second or more is a wrong measurement (a clap missed)
MAX_AV_OFFSET = 1.0


@dataclass(frozen=True)
class Box:
    """An axis-aligned box in image pixels (x2, y2 exclusive)."""

    x1: int
    y1: int
    x2: int
    y2: int

    @property
    def width(self) -> int:
        return self.x2 - self.x1

    @property
    def height(self) -> int:
        return self.y2 - self.y1

    def contains(self, x: float, y: float, margin: float = 0.0) -> bool:
        return self.x1 - margin <= x < self.x2 + margin and self.y1 - margin <= y < self.y2 + margin

    def to_list(self) -> list[int]:
        return [self.x1, self.y1, self.x2, self.y2]

    @staticmethod
    def from_value(value: Any, name: str, size: tuple[int, int] | None = None) -> "Box":
        """Parse ``[x1, y1, x2, y2]`` (or the string ``"x1,y1,x2,y2"``), naming ``name`` on error."""
        if isinstance(value, str):
            try:
                value = [int(float(v)) for v in value.split(",")]
            except ValueError:
                raise CalibrationError(f"{name}: expected X1,Y1,X2,Y2 numbers, got {value!r}") from None
        if (not isinstance(value, (list, tuple)) or len(value) != 4
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) < 1e9 for v in value)):
            raise CalibrationError(f"{name}: expected [x1, y1, x2, y2] in pixels, got {value!r}")
        x1, y1, x2, y2 = (int(round(v)) for v in value)
        if x2 <= x1 or y2 <= y1:
            raise CalibrationError(f"{name}: x2 > x1 and y2 > y1 needed, got {value!r}")
        if x1 < 0 or y1 < 0:
            raise CalibrationError(f"{name}: negative coordinates {value!r}")
        if size is not None and (x2 > size[0] or y2 > size[1]):
            raise CalibrationError(f"{name}: {value!r} reaches outside the {size[0]}x{size[1]} image")
        return Box(x1, y1, x2, y2)


@dataclass(frozen=True)
class Seat:
    name: str
    box: Box
    channel: int | None = None


def file_fingerprint(path: str | Path) -> tuple[int, str]:
    """``(size in bytes, sha256 hex)`` of a file: what a stored measurement of it
    (:class:`LeakMeasurement`) was made on. Cost: one read of the file (~10 ms for the demo's
    37 s of 4 channels), far less than decoding and measuring it again."""
    import hashlib

    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
            size += len(chunk)
    return size, h.hexdigest()


@dataclass(frozen=True)
class AudioSetup:
    """The one multi-channel input every seat microphone is on."""

    device: int | str | None = None
    rate: int | None = None
    channels: int | None = None
    file: str | None = None
    crosstalk_db: float | None = None  # measured seat-to-seat leakage (negative dB), see the module docstring
    #: what the calibration recording ``file`` says of the leak paths (None: measured at replay)
    leakage: LeakMeasurement | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"device": self.device, "rate": self.rate, "channels": self.channels}
        if self.file is not None:
            out["file"] = self.file
        if self.crosstalk_db is not None:
            out["crosstalk_db"] = self.crosstalk_db
        if self.leakage is not None:
            out["leakage"] = self.leakage.to_dict()
        return out


def _folder(value: Any, name: str, base: Path | None) -> Path:
    if not isinstance(value, str) or not value:
        raise CalibrationError(f"{name}: a folder path expected, got {value!r}")
    p = Path(value)
    if not p.is_absolute() and base is not None:
        p = base / p
    if not p.is_dir():
        raise CalibrationError(f"{name}: folder {p} not found")
    return p


def reference_image(folder: Path, code: str) -> Path | None:
    """The first reference image of ``code`` in ``folder`` (``CODE.png``, ``CODE_1.jpg``, ...)."""
    for ext in _IMAGE_EXT:
        if (folder / f"{code}{ext}").is_file():
            return folder / f"{code}{ext}"
    for p in sorted(folder.glob(f"{glob_escape(code)}_*")):
        if p.suffix.lower() in _IMAGE_EXT and p.stem[len(code) + 1:].isdigit():
            return p
    return None


def glob_escape(s: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", s)


def migrate_v1(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A version 1 calibration as a version 2 object (not yet validated): ``deck``,
    ``audio`` and ``enroll`` become fields; other extra keys are kept as they were."""
    out = dict(obj)
    out["version"] = 2
    cam = obj.get("camera")
    if isinstance(cam, dict):
        out["camera"] = {"id": cam.get("id"), **{k: v for k, v in cam.items() if k != "id"}}
    aud = obj.get("audio")
    if isinstance(aud, dict):
        out["audio"] = {"device": aud.get("device"), "rate": aud.get("rate"), "channels": aud.get("channels"),
                        **{k: aud[k] for k in ("file", "crosstalk_db", "leakage") if k in aud}}
    return out


def channels_used(channels: dict[str, int | None]) -> int | None:
    """How many channels seats on ``channels`` (``{player: channel}``) use: the highest + 1 (an
    interface with more inputs is heard on those only), None where no seat has one."""
    used = [c for c in channels.values() if c is not None]
    return max(used) + 1 if used else None


@dataclass(frozen=True)
class Calibration:
    """One table's calibration; build with :func:`load` or :meth:`from_dict`."""

    game: str
    width: int
    height: int
    zones: Mapping[str, Box]
    seats: tuple[Seat, ...]
    references: Path | None = None
    version: int = SCHEMA_VERSION
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    camera_id: int | str | None = None
    fps: float | None = None
    deck: str | None = None
    audio: AudioSetup | None = None
    cards: tuple[str, ...] = ()
    lookalikes: tuple[tuple[str, str, float], ...] = ()
    enroll: Path | None = None
    notes: str | None = None
    migrated_from: int | None = field(default=None, compare=False)
    #: video time minus audio time of one moment, seconds (None: not measured)
    av_offset: float | None = None

    @property
    def card_zones(self) -> dict[str, Box]:
        return {k: v for k, v in self.zones.items() if k != "token"}

    @property
    def channels(self) -> dict[str, int]:
        """``{player: channel}`` for the seats whose channel is known."""
        return {s.name: s.channel for s in self.seats if s.channel is not None}

    @property
    def seat_channels(self) -> int | None:
        """How many channels the seats use (:func:`channels_used` of :attr:`channels`)."""
        return channels_used(self.channels)

    @property
    def players(self) -> list[str]:
        return [s.name for s in self.seats]

    @staticmethod
    def from_dict(obj: Any, base: Path | None = None, games: Any = None) -> "Calibration":
        """Validate a calibration object (version 1 is migrated first); ``base`` is the
        folder relative paths are read from. ``games`` is the game registry (the ``rules``
        package: ``games.get(name)`` with ``has_zone``/``zones_text``): with it, the game must
        be a registered one and every zone one of its zones; without it (the contract alone
        knows no games) only their spelling is checked."""
        obj, migrated, extra = _versioned(obj)
        game, rules_of, deck = _game_of(obj, games)
        w, h, cam_id, fps = _camera_of(obj, migrated)
        zones = _zones_of(obj, game, rules_of, w, h)
        audio = _audio_of(obj)
        seats = _seats_of(obj, audio, zones, migrated, w, h)
        ref_path, cards, looks = _cards_of(obj, zones, base)
        enroll, notes, av = _rest_of(obj, base, {x.name for x in seats})
        return Calibration(game=game, width=w, height=h, zones=zones, seats=seats, references=ref_path,
                           extra=extra, camera_id=cam_id, fps=fps, deck=deck, audio=audio, cards=cards,
                           lookalikes=looks, enroll=enroll, notes=notes, migrated_from=migrated, av_offset=av)

    def to_dict(self, base: Path | None = None) -> dict[str, Any]:
        """The version 2 object; paths are written relative to ``base`` when inside it."""
        def rel(p: Path) -> str:
            if base is not None:
                try:
                    return Path(p).resolve().relative_to(Path(base).resolve()).as_posix()
                except ValueError:
                    pass
            return str(p)

        out: dict[str, Any] = {
            "version": SCHEMA_VERSION, "game": self.game, "deck": self.deck or self.game,
            "camera": {"id": self.camera_id, "width": self.width, "height": self.height, "fps": self.fps},
            "zones": {k: v.to_list() for k, v in self.zones.items()},
            "seats": [{"name": s.name, "box": s.box.to_list(), "channel": s.channel} for s in self.seats],
        }
        if self.audio is not None:
            out["audio"] = self.audio.to_dict()
        if self.references is not None:
            out["references"] = rel(self.references)
        if self.cards:
            out["cards"] = list(self.cards)
        out["lookalikes"] = [[a, b, s] for a, b, s in self.lookalikes]
        if self.enroll is not None:
            out["enroll"] = rel(self.enroll)
        if self.notes is not None:
            out["notes"] = self.notes
        if self.av_offset is not None:
            out["av_offset"] = self.av_offset
        free = {k: v for k, v in self.extra.items() if k not in _V2_KEYS}
        if free:
            out["extra"] = free
        return out


# ---- Calibration.from_dict, one part of the file at a time (each raises CalibrationError)
def _versioned(obj: Any) -> tuple[dict, int | None, dict[str, Any]]:
    """The object as version 2 (a version 1 file migrated), the version migrated from, and
    the free ``extra`` keys."""
    if not isinstance(obj, dict):
        raise CalibrationError("calibration must be a JSON object")
    version = obj.get("version")
    if isinstance(version, bool) or version not in READS:
        raise CalibrationError(
            f"version: this referee reads calibration versions {', '.join(map(str, READS))}, got {version!r}")
    migrated = None
    extra: dict[str, Any] = {}
    if version == 1:
        migrated = 1
        # every v1 extra key stays in ``extra`` as it was (code written against v1 reads
        # ``cal.extra["audio"]``); deck/audio/enroll also become the v2 fields
        extra = {k: v for k, v in obj.items() if k not in _V1_KEYS}
        obj = migrate_v1(obj)
        obj = {k: v for k, v in obj.items() if k in _V2_KEYS}
    else:
        unknown = sorted(k for k in obj if k not in _V2_KEYS)
        if unknown:
            raise CalibrationError(f"{unknown[0]}: unknown field (known: {', '.join(sorted(_V2_KEYS))})")
        extra = obj.get("extra", {})
        if not isinstance(extra, dict):
            raise CalibrationError(f"extra: an object of free keys expected, got {extra!r}")
        extra = dict(extra)
    return obj, migrated, extra


def _game_of(obj: dict, games: Any) -> tuple[str, Any, str]:
    """The game, its rules when a registry is given (None: spelling checked only), the deck."""
    game = obj.get("game")
    if not isinstance(game, str) or not _GAME_NAME.match(game):
        raise CalibrationError(f"game: a game's name expected (e.g. ikatako), got {game!r}")
    rules_of = None
    if games is not None:
        try:
            rules_of = games.get(game)
        except RefereeError:
            raise CalibrationError(f"game: one of {', '.join(games.names())} expected, got {game!r}") from None
    deck = obj.get("deck", game)
    if deck is None:
        deck = game
    if not isinstance(deck, str) or not deck.strip():
        raise CalibrationError(f"deck: a deck name expected, got {deck!r}")
    return game, rules_of, deck


def _camera_of(obj: dict, migrated: int | None) -> tuple[int, int, int | str | None, float | None]:
    """The camera's width, height, id and fps."""
    cam = obj.get("camera")
    if not isinstance(cam, dict):
        raise CalibrationError("camera: expected {\"width\": W, \"height\": H}")
    size = []
    for key in ("width", "height"):
        size.append(int_in(cam.get(key), f"camera.{key}", 16, 10000, "a whole number of pixels"))
    w, h = size
    cam_id = cam.get("id")
    if cam_id is not None and not (isinstance(cam_id, str) and cam_id) and (
            isinstance(cam_id, bool) or not isinstance(cam_id, int) or cam_id < 0):
        raise CalibrationError(f"camera.id: a camera index >= 0, a device path or null expected, got {cam_id!r}")
    fps = cam.get("fps")
    if fps is not None and (isinstance(fps, bool) or not isinstance(fps, (int, float)) or not 0 < fps <= 1000):
        raise CalibrationError(f"camera.fps: frames per second > 0 or null expected, got {fps!r}")
    bad_cam = sorted(k for k in cam if k not in {"id", "width", "height", "fps"})
    if bad_cam and migrated is None:
        raise CalibrationError(f"camera.{bad_cam[0]}: unknown field (id, width, height, fps)")
    return w, h, cam_id, fps


def _zones_of(obj: dict, game: str, rules_of: Any, w: int, h: int) -> dict[str, Box]:
    zones_obj = obj.get("zones", {})
    if not isinstance(zones_obj, dict):
        raise CalibrationError("zones: expected an object of name -> [x1, y1, x2, y2]")
    zones = {}
    for name, value in zones_obj.items():
        if not _ZONE_NAME.match(str(name)):
            raise CalibrationError(
                f"zones.{name}: unknown zone name (field, token, scoring, pile0..pile2, p:SEAT:slotN, p:SEAT:spread)")
        if rules_of is not None and not rules_of.has_zone(name):
            raise CalibrationError(f"zones.{name}: not a zone of {game} ({rules_of.zones_text()})")
        zones[name] = Box.from_value(value, f"zones.{name}", (w, h))
    return zones


def _audio_of(obj: dict) -> AudioSetup | None:
    aud = obj.get("audio")
    audio = None
    if aud is not None:
        if not isinstance(aud, dict):
            raise CalibrationError("audio: expected {\"device\": ..., \"rate\": ..., \"channels\": ...}")
        bad = sorted(k for k in aud if k not in {"device", "rate", "channels", "file", "crosstalk_db", "leakage"})
        if bad:
            raise CalibrationError(f"audio.{bad[0]}: unknown field (device, rate, channels, file, crosstalk_db, "
                                   "leakage)")
        dev = aud.get("device")
        if dev is not None and not (isinstance(dev, str) and dev) and (
                isinstance(dev, bool) or not isinstance(dev, int) or dev < 0):
            raise CalibrationError(f"audio.device: a device index >= 0, a name or null expected, got {dev!r}")
        rate = aud.get("rate")
        if rate is not None:
            int_in(rate, "audio.rate", 8000, 384000, "a sample rate in Hz")
        nch = aud.get("channels")
        if nch is not None:
            int_in(nch, "audio.channels", 1, 64, "a channel count")
        f = aud.get("file")
        if f is not None and (not isinstance(f, str) or not f):
            raise CalibrationError(f"audio.file: a file path or null expected, got {f!r}")
        leak = aud.get("crosstalk_db")
        if leak is not None and (isinstance(leak, bool) or not isinstance(leak, (int, float)) or not -60 <= leak < 0):
            raise CalibrationError(f"audio.crosstalk_db: the seat-to-seat leakage in dB, a number in -60..0 "
                                   f"(e.g. -10), got {leak!r}")
        measured = aud.get("leakage")
        if measured is not None:
            if f is None:
                raise CalibrationError("audio.leakage: a measurement of the calibration recording, but audio.file "
                                       "names none")
            measured = LeakMeasurement.from_dict(measured)
            if rate is not None and measured.rate != rate:
                raise CalibrationError(f"audio.leakage.rate: {measured.rate} Hz, but audio.rate is {rate}")
        audio = AudioSetup(dev, rate, nch, f, None if leak is None else float(leak), measured)
    return audio


def _seats_of(obj: dict, audio: AudioSetup | None, zones: Mapping[str, Box], migrated: int | None,
              w: int, h: int) -> tuple[Seat, ...]:
    seats_obj = obj.get("seats")
    if not isinstance(seats_obj, list) or not seats_obj:
        raise CalibrationError("seats: expected a non-empty list of {name, box, channel}")
    seats: list[Seat] = []
    for i, s in enumerate(seats_obj):
        if not isinstance(s, dict):
            raise CalibrationError(f"seats[{i}]: expected an object")
        bad = sorted(k for k in s if k not in {"name", "box", "channel"})
        if bad and migrated is None:
            raise CalibrationError(f"seats[{i}].{bad[0]}: unknown field (name, box, channel)")
        name = s.get("name")
        if not isinstance(name, str) or not name.strip():
            raise CalibrationError(f"seats[{i}].name: a non-empty player name expected, got {name!r}")
        if any(x.name == name for x in seats):
            raise CalibrationError(f"seats[{i}].name: {name!r} names two seats")
        channel = s.get("channel")
        if channel is not None:
            int_in(channel, f"seats[{i}].channel", 0)
            other = next((x for x in seats if x.channel == channel), None)
            if other is not None:
                raise CalibrationError(f"seats[{i}].channel: channel {channel} is already {other.name}'s")
            if audio is not None and audio.channels is not None and channel >= audio.channels:
                raise CalibrationError(
                    f"seats[{i}].channel: {channel}, but audio.channels is {audio.channels} (channels count from 0)")
        seats.append(Seat(name, Box.from_value(s.get("box"), f"seats[{i}].box", (w, h)), channel))
    names = {x.name for x in seats}
    for zname in zones:
        if zname.startswith("p:") and zname.split(":")[1] not in names:
            raise CalibrationError(f"zones.{zname}: no seat is named {zname.split(':')[1]!r}")
    return tuple(seats)


def _cards_of(obj: dict, zones: Mapping[str, Box], base: Path | None) -> tuple[Path | None, tuple[str, ...],
                                                                        tuple[tuple[str, str, float], ...]]:
    """The reference folder, the listed cards (each with its image) and the lookalike pairs."""
    refs = obj.get("references")
    ref_path = _folder(refs, "references", base) if refs is not None else None
    if any(k != "token" for k in zones) and ref_path is None:
        raise CalibrationError("references: card zones are set but no reference folder is given")
    cards_obj = obj.get("cards", [])
    if not isinstance(cards_obj, list) or not all(isinstance(c, str) and c for c in cards_obj):
        raise CalibrationError(f"cards: a list of card codes expected, got {cards_obj!r}")
    if len(set(cards_obj)) != len(cards_obj):
        dup = next(c for c in cards_obj if cards_obj.count(c) > 1)
        raise CalibrationError(f"cards: {dup!r} is listed twice")
    if cards_obj and ref_path is None:
        raise CalibrationError("references: cards are listed but no reference folder is given")
    for c in cards_obj:
        if reference_image(ref_path, c) is None:
            raise CalibrationError(
                f"references: no image for card {c!r} in {ref_path} (expected {c}.png or {c}.jpg)")
    looks = []
    la = obj.get("lookalikes", [])
    if not isinstance(la, list):
        raise CalibrationError(f"lookalikes: a list of [code, code, score] expected, got {la!r}")
    for i, pair in enumerate(la):
        if (not isinstance(pair, list) or len(pair) != 3 or not all(isinstance(c, str) for c in pair[:2])
                or isinstance(pair[2], bool) or not isinstance(pair[2], (int, float))):
            raise CalibrationError(f"lookalikes[{i}]: [code, code, score] expected, got {pair!r}")
        looks.append((pair[0], pair[1], float(pair[2])))
    return ref_path, tuple(cards_obj), tuple(looks)


def _rest_of(obj: dict, base: Path | None, names: set[str]) -> tuple[Path | None, str | None, float | None]:
    """The enrolled voices' folder, the notes and the audio-video offset."""
    enroll = None
    if obj.get("enroll") is not None:
        enroll = _folder(obj["enroll"], "enroll", base)
        for d in sorted(p for p in enroll.iterdir() if p.is_dir()):
            if any(d.glob("*.wav")) and d.name not in names:
                raise CalibrationError(f"enroll: {d} holds takes of {d.name!r}, who has no seat")
    notes = obj.get("notes")
    if notes is not None and not isinstance(notes, str):
        raise CalibrationError(f"notes: text expected, got {notes!r}")
    av = obj.get("av_offset")
    if av is not None and (isinstance(av, bool) or not isinstance(av, (int, float))
                           or not -MAX_AV_OFFSET <= av <= MAX_AV_OFFSET):
        raise CalibrationError(f"av_offset: the audio-video offset in seconds, a number in "
                               f"-{MAX_AV_OFFSET:g}..{MAX_AV_OFFSET:g} or null, got {av!r}")
    return enroll, notes, None if av is None else float(av)

def to_video_clock(t_audio: float, av_offset: float | None) -> float:
    """An audio time on the video clock: ``t_audio + av_offset`` (None counts as 0).

    Why the video clock: card and hand times come from frame timestamps, and the offset is
    measured as video time minus audio time of one clap, so adding it to audio times makes
    "who was first" between a hand and a shout a comparison on one clock."""
    return t_audio + (av_offset or 0.0)


def shift_audio_events(events, av_offset: float | None, kinds=None):
    """``events`` with every audio event (``shout``) moved onto the video clock
    (:func:`to_video_clock`); other events, and everything when the offset is None or 0,
    unchanged. Pure: returns a new list, rounded to the microsecond as events are."""
    from dataclasses import replace

    if not av_offset:
        return list(events)

    def moved(e):
        t_end = getattr(e, "t_end", None)
        changes = {"t": round(to_video_clock(e.t, av_offset), 6)}
        if t_end is not None:
            changes["t_end"] = round(to_video_clock(t_end, av_offset), 6)
        return replace(e, **changes)

    kinds = AUDIO_EVENT_TYPES if kinds is None else kinds
    return [moved(e) if kinds == "all" or e.type in kinds else e for e in events]


#: the event types that come from the microphones (their times are on the audio clock)
AUDIO_EVENT_TYPES = frozenset({"shout"})


def check_media(cal: Calibration, width: int | None = None, height: int | None = None, *,
                game: str | None = None, source: str = "the video") -> None:
    """:class:`CalibrationError` when the calibration does not fit a recording or session:
    another resolution, or another game."""
    if width is not None and height is not None and (width, height) != (cal.width, cal.height):
        raise CalibrationError(
            f"camera: the calibration is for {cal.width}x{cal.height}, {source} is {width}x{height}; "
            f"calibrate this camera setting (referee calibrate)")
    if game is not None and game != cal.game:
        raise CalibrationError(f"game: the calibration is for {cal.game}, the session is {game}; "
                               f"calibrate the table for {game} (its zones differ)")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load(path: str | Path, games: Any = None) -> Calibration:
    """Read and validate a calibration file; :class:`CalibrationError` names what is wrong
    (``games``: the game registry, see :meth:`Calibration.from_dict`)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationError(f"calibration file {path} not found") from None
    except UnicodeDecodeError as exc:
        raise CalibrationError(f"calibration file {path} is not text (byte {exc.start} is not UTF-8): not a "
                               "calibration; write one with referee calibrate") from None
    except OSError as exc:
        raise CalibrationError(f"calibration file {path} unreadable: {exc.strerror or exc}") from None
    if not text.strip():
        raise CalibrationError(f"calibration file {path} is empty: write it with referee calibrate") from None
    try:
        obj = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        cut = (": the file ends in the middle (written only in part?); calibrate the table again (referee calibrate)"
               if not text[exc.pos:].strip() or exc.msg.startswith("Unterminated string") else "")
        msg = "a string never closed" if exc.msg.startswith("Unterminated string") else exc.msg
        raise CalibrationError(f"{path}: not JSON (line {exc.lineno}: {msg}){cut}") from None
    except (ValueError, RecursionError) as exc:  # NaN/Infinity, 4300+ digit numbers, deep nesting
        why = str(exc) if "JSON number" in str(exc) else "a number too long or nesting too deep"
        raise CalibrationError(f"{path}: not JSON ({why})") from None
    try:
        return Calibration.from_dict(obj, base=path.parent, games=games)
    except CalibrationError as exc:
        raise CalibrationError(f"{path}: {exc}") from None


def save(cal: Calibration, path: str | Path) -> None:
    """Write ``cal`` as version 2 (paths relative to the file's folder when inside it)."""
    path = Path(path)
    path.write_text(json.dumps(cal.to_dict(base=path.parent), indent=1) + "\n", encoding="utf-8")


def with_field(text: str, key: str, value: Any) -> str:
    """A calibration file's ``text`` with the top-level field ``key`` set to ``value`` and every
    other byte unchanged (``referee calibrate --enroll-only`` rewrites only ``enroll``): the
    field's value is replaced where it stands, or the field is added after the last one, on a
    line of its own indented as that one when the object is written one field a line.
    A text that is not a JSON object is a :class:`CalibrationError`."""
    decoder = json.JSONDecoder()
    ws = re.compile(r"\s*")
    i = ws.match(text, 0).end()
    if not text.startswith("{", i):
        raise CalibrationError("the calibration file is not a JSON object")
    i = ws.match(text, i + 1).end()
    last_end = last_key = None
    new = json.dumps(value)
    while not text.startswith("}", i):
        try:
            name, j = json.decoder.scanstring(text, i + 1)
            j = ws.match(text, j).end() + 1  # past ':'
            j = ws.match(text, j).end()
            _, end = decoder.raw_decode(text, j)
        except (ValueError, IndexError) as exc:
            raise CalibrationError(f"the calibration file is not a JSON object ({exc})") from None
        if name == key:
            return text[:j] + new + text[end:]
        last_key, last_end = i, end
        i = ws.match(text, end).end()
        if text.startswith(",", i):
            i = ws.match(text, i + 1).end()
    if last_end is None:
        return text[:i] + f"{json.dumps(key)}: {new}" + text[i:]
    line_start = text.rfind("\n", 0, last_key) + 1
    own_line = line_start > 0 and text[line_start:last_key].strip() == ""
    newline = "\r\n" if text[line_start - 2:line_start] == "\r\n" else "\n"
    sep = "," + newline + text[line_start:last_key] if own_line else ", "
    return text[:last_end] + f"{sep}{json.dumps(key)}: {new}" + text[last_end:]

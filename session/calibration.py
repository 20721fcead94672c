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


_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_LEAK_KEYS = ("file", "rate", "channels", "params", "paths", "solo_frames", "speech_db", "residual_db",
              "residual_leaks_db", "gains_db", "cancelled", "loud_db")
#: ``audio.leakage`` fields an older calibration file may lack (``residual_leaks_db``: the
#: hearing measures them again; ``gains_db`` and ``cancelled``: the block was measured without
#: evening the microphones out and always cancelled, and is heard so, with a warning;
#: ``loud_db``: a replay then anchors the seats on the calibrated levels without checking them)
_LEAK_OPTIONAL = ("residual_leaks_db", "gains_db", "cancelled", "loud_db")


@dataclass(frozen=True)
class LeakMeasurement:
    """What the calibration recording (``audio.file``) says of the table's microphones,
    measured once when the table is calibrated (``audio.leakage`` of the file; README
    "Replay and dispute report"): the seat-to-seat leak paths (:class:`audio.demix.Leakage`: per
    (mic, seat) pair its impulse response's non-zero taps), each seat's solo frames counted,
    the seats' speech levels (:func:`audio.demix.speech_levels`) and the leak the
    cancellation leaves (:func:`audio.demix.residual_db`), also per (mic, seat) pair
    (:func:`audio.demix.residual_leaks_db`: the onset walk's leak test). Plain numbers only; the hearing
    rebuilds the leakage from them exactly (floats round-trip through JSON). ``size`` and
    ``sha256`` are the recording's (:func:`file_fingerprint`): a recording changed since is
    measured again, never heard with another recording's numbers; ``params``: the estimate's
    parameters by name (``audio.demix.DemixParams``), measured again when they changed."""

    size: int
    sha256: str
    rate: int
    channels: int
    #: (name, value) of each estimate parameter, in the dataclass's order
    params: tuple[tuple[str, float], ...]
    #: (mic, seat, first tap, gains from that tap on): the response from seat to mic
    paths: tuple[tuple[int, int, int, tuple[float, ...]], ...]
    solo_frames: tuple[int, ...]
    speech_db: tuple[float | None, ...]
    residual_db: float | None
    #: ``[mic][seat]``: the leak the cancellation leaves of seat's voice on mic's channel (dB;
    #: None on the diagonal and for a seat never heard alone; ``residual_db`` is the loudest);
    #: None: not stored (a calibration file older than the field, or no usable leakage) — the
    #: hearing then measures the pairs on the recording again (``audio.hearing``)
    residual_leaks_db: tuple[tuple[float | None, ...], ...] | None = None
    #: per channel, the correction (dB) that brings the microphones to one speech level
    #: (``audio.gains``), applied to the calibration recording before every number above was
    #: measured and to every session heard with this block; all 0.0: the levels were close.
    #: None: not stored (a file older than the field: heard uncorrected, as it was measured)
    gains_db: tuple[float, ...] | None = None
    #: whether the table's cross-talk is cancelled: False when the leak paths measured hardly
    #: lower the neighbours' microphones on the calibration recording itself
    #: (``audio.demix.cancels_on_itself``: a reverberant room); ``paths`` is then empty and
    #: ``residual_leaks_db`` the uncancelled leak per pair. None: not stored (an older file: cancelled)
    cancelled: bool | None = None
    #: per channel, the corrected recording's loud speech level (dB: its 99th-percentile 32 ms
    #: frame level, ``audio.gains.channel_levels_db``): a replay compares the session's own with
    #: it to find a microphone turned up or down since (``audio.gains.drifted_levels``).
    #: None: not stored (an older file: the seats are anchored on ``speech_db`` as calibrated)
    loud_db: tuple[float, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"file": {"size": self.size, "sha256": self.sha256}, "rate": self.rate, "channels": self.channels,
               "params": dict(self.params),
               "paths": [[i, j, k, list(g)] for i, j, k, g in self.paths],
               "solo_frames": list(self.solo_frames), "speech_db": list(self.speech_db),
               "residual_db": self.residual_db}
        if self.residual_leaks_db is not None:
            out["residual_leaks_db"] = [list(row) for row in self.residual_leaks_db]
        if self.gains_db is not None:
            out["gains_db"] = list(self.gains_db)
        if self.cancelled is not None:
            out["cancelled"] = self.cancelled
        if self.loud_db is not None:
            out["loud_db"] = list(self.loud_db)
        return out

    @staticmethod
    def from_dict(obj: Any, name: str = "audio.leakage") -> "LeakMeasurement":
        """Validate a stored measurement; :class:`CalibrationError` names the bad field."""
        def number(v: Any) -> bool:
            return not isinstance(v, bool) and isinstance(v, (int, float)) and v == v and abs(v) < 1e300

        if not isinstance(obj, dict):
            raise CalibrationError(f"{name}: an object expected (written by referee calibrate), got {obj!r}")
        bad = sorted((set(obj) ^ set(_LEAK_KEYS)) - (set(_LEAK_OPTIONAL) - set(obj)))
        if bad:
            what = "unknown" if bad[0] in obj else "missing"
            raise CalibrationError(f"{name}.{bad[0]}: {what} field ({', '.join(_LEAK_KEYS)}); calibrate the table "
                                   "again (referee calibrate) or delete audio.leakage to measure it at replay")
        f = obj["file"]
        if not isinstance(f, dict) or sorted(f) != ["sha256", "size"]:
            raise CalibrationError(f"{name}.file: {{\"size\": bytes, \"sha256\": hex}} expected, got {f!r}")
        size = _int(f["size"], f"{name}.file.size", 0)
        sha = f["sha256"]
        if not isinstance(sha, str) or not _SHA256.match(sha):
            raise CalibrationError(f"{name}.file.sha256: 64 lowercase hex digits expected, got {sha!r}")
        rate = _int(obj["rate"], f"{name}.rate", 8000, 384000, "a sample rate in Hz")
        c = _int(obj["channels"], f"{name}.channels", 2, 64, "a channel count")
        params = obj["params"]
        if not isinstance(params, dict) or not all(isinstance(k, str) and number(v) for k, v in params.items()):
            raise CalibrationError(f"{name}.params: an object of parameter name -> number expected, got {params!r}")
        taps = _int(params.get("taps"), f"{name}.params.taps", 1, 1 << 16, "a tap count")
        paths = obj["paths"]
        if not isinstance(paths, list):
            raise CalibrationError(f"{name}.paths: a list of [mic, seat, tap, [gain, ...]] expected, got {paths!r}")
        out_paths = []
        for n, pth in enumerate(paths):
            where = f"{name}.paths[{n}]"
            if not isinstance(pth, list) or len(pth) != 4 or not isinstance(pth[3], list):
                raise CalibrationError(f"{where}: [mic, seat, tap, [gain, ...]] expected, got {pth!r}")
            i = _int(pth[0], f"{where} mic", 0, c - 1)
            j = _int(pth[1], f"{where} seat", 0, c - 1)
            k = _int(pth[2], f"{where} tap", 0, taps - 1)
            gains = pth[3]
            if i == j:
                raise CalibrationError(f"{where}: mic {i} is the seat's own (a leak path joins two channels)")
            if not gains or k + len(gains) > taps or not all(number(g) for g in gains):
                raise CalibrationError(f"{where}: 1..{taps - k} finite gains expected from tap {k}, got {gains!r}")
            if any(p[0] == i and p[1] == j for p in out_paths):
                raise CalibrationError(f"{where}: the path {j}->{i} is given twice")
            out_paths.append((i, j, k, tuple(float(g) for g in gains)))
        solo = obj["solo_frames"]
        if not isinstance(solo, list) or len(solo) != c:
            raise CalibrationError(f"{name}.solo_frames: {c} frame counts expected, got {solo!r}")
        counts = tuple(_int(v, f"{name}.solo_frames[{n}]", 0) for n, v in enumerate(solo))
        levels = obj["speech_db"]
        if not isinstance(levels, list) or len(levels) != c or not all(v is None or number(v) for v in levels):
            raise CalibrationError(f"{name}.speech_db: {c} levels in dB (or null) expected, got {levels!r}")
        res = obj["residual_db"]
        if res is not None and (not number(res) or not -200 <= res <= 60):
            raise CalibrationError(f"{name}.residual_db: a level in dB or null expected, got {res!r}")
        pairs = obj.get("residual_leaks_db")
        if pairs is not None:
            where = f"{name}.residual_leaks_db"
            if not isinstance(pairs, list) or len(pairs) != c or not all(isinstance(r, list) and len(r) == c for r in pairs):
                raise CalibrationError(f"{where}: {c} rows of {c} levels in dB (or null) expected, got {pairs!r}")
            for i, row in enumerate(pairs):
                for j, v in enumerate(row):
                    if i == j and v is not None:
                        raise CalibrationError(f"{where}[{i}][{j}]: null expected (a seat's own channel), got {v!r}")
                    if v is not None and (not number(v) or not -200 <= v <= 60):
                        raise CalibrationError(f"{where}[{i}][{j}]: a level in dB or null expected, got {v!r}")
            given = [v for row in pairs for v in row if v is not None]
            if (max(given) if given else None) != res:
                raise CalibrationError(f"{where}: its loudest pair ({max(given) if given else None!r}) is not "
                                       f"residual_db ({res!r}); calibrate the table again (referee calibrate)")
            pairs = tuple(tuple(None if v is None else float(v) for v in row) for row in pairs)
        gains = obj.get("gains_db")
        if gains is not None:
            if not isinstance(gains, list) or len(gains) != c or not all(number(v) and -60 <= v <= 60 for v in gains):
                raise CalibrationError(f"{name}.gains_db: {c} corrections in dB (-60..60) expected, got {gains!r}")
            gains = tuple(float(v) for v in gains)
        loud = obj.get("loud_db")
        if loud is not None:
            if not isinstance(loud, list) or len(loud) != c or not all(number(v) and -200 <= v <= 60 for v in loud):
                raise CalibrationError(f"{name}.loud_db: {c} levels in dB (-200..60) expected, got {loud!r}")
            loud = tuple(float(v) for v in loud)
        cancelled = obj.get("cancelled")
        if cancelled is not None and not isinstance(cancelled, bool):
            raise CalibrationError(f"{name}.cancelled: true or false expected, got {cancelled!r}")
        if cancelled is False and out_paths:
            raise CalibrationError(f"{name}.paths: a table not cancelled (cancelled: false) has no leak paths, got "
                                   f"{len(out_paths)}; calibrate the table again (referee calibrate)")
        return LeakMeasurement(size=size, sha256=sha, rate=rate, channels=c,
                               params=tuple((k, v) for k, v in params.items()), paths=tuple(out_paths),
                               solo_frames=counts, speech_db=tuple(None if v is None else float(v) for v in levels),
                               residual_db=None if res is None else float(res), residual_leaks_db=pairs,
                               gains_db=gains, cancelled=cancelled, loud_db=loud)


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


def _int(v: Any, name: str, lo: int | None = None, hi: int | None = None, what: str = "an integer") -> int:
    if isinstance(v, bool) or not isinstance(v, int) or (lo is not None and v < lo) or (hi is not None and v > hi):
        bound = f" >= {lo}" if lo is not None and hi is None else (f" in {lo}..{hi}" if lo is not None else "")
        raise CalibrationError(f"{name}: must be {what}{bound}, got {v!r}")
    return v


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
        size.append(_int(cam.get(key), f"camera.{key}", 16, 10000, "a whole number of pixels"))
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
            _int(rate, "audio.rate", 8000, 384000, "a sample rate in Hz")
        nch = aud.get("channels")
        if nch is not None:
            _int(nch, "audio.channels", 1, 64, "a channel count")
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
            _int(channel, f"seats[{i}].channel", 0)
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

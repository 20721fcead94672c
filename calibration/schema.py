"""The calibration file (``calibration.json``): what the camera sees where, and who sits where.

A minimal, versioned schema, enough for ``referee watch``; issue 6 builds the guided
``referee calibrate`` on top of it. Validated on load: every problem is a
:class:`CalibrationError` naming the field (``seats[1].box``, ``zones.pile0``, ...).

```json
{"version": 1, "game": "ikatako", "camera": {"width": 1280, "height": 720},
 "zones": {"field": [500, 300, 780, 600], "token": [600, 100, 680, 180]},
 "seats": [{"name": "aki", "box": [0, 0, 400, 720], "channel": 0}],
 "references": "refs"}
```

- Boxes are ``[x1, y1, x2, y2]`` in image pixels of the camera resolution (x2 > x1, y2 > y1,
  inside the image).
- Zone names: ``field`` (IKATAKO), ``pile0``..``pile2`` and ``token`` (MOKOCHAKA),
  ``p:<seat>:slot<N>`` (a TAKOYAKI griddle slot of that seat), ``scoring`` (Sea Salt &
  Paper / TORATANU scoring area). These are the ``zone`` values of ``card`` events.
- ``references``: a folder (relative to the calibration file) of reference images named by
  card code (``ika.jpg``, ``ika_1.jpg``); optional, but card zones need it.
- ``channel``: the seat's audio channel (optional; ``null`` when unknown).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from referee.errors import CalibrationError
from referee.events import GAMES

SCHEMA_VERSION = 1
_ZONE_NAME = re.compile(r"^(field|token|scoring|pile[0-2]|p:[^:\s]+:slot\d+)$")


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
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
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


@dataclass(frozen=True)
class Calibration:
    """One table's geometry; build with :func:`load` or :meth:`from_dict`."""

    game: str
    width: int
    height: int
    zones: Mapping[str, Box]
    seats: tuple[Seat, ...]
    references: Path | None = None
    version: int = SCHEMA_VERSION
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def card_zones(self) -> dict[str, Box]:
        return {k: v for k, v in self.zones.items() if k != "token"}

    @staticmethod
    def from_dict(obj: Any, base: Path | None = None) -> "Calibration":
        if not isinstance(obj, dict):
            raise CalibrationError("calibration must be a JSON object")
        version = obj.get("version")
        if version != SCHEMA_VERSION:
            raise CalibrationError(f"version: this referee reads calibration version {SCHEMA_VERSION}, got {version!r}")
        game = obj.get("game")
        if game not in GAMES:
            raise CalibrationError(f"game: one of {', '.join(GAMES)} expected, got {game!r}")
        cam = obj.get("camera")
        if not isinstance(cam, dict):
            raise CalibrationError("camera: expected {\"width\": W, \"height\": H}")
        size = []
        for key in ("width", "height"):
            v = cam.get(key)
            if isinstance(v, bool) or not isinstance(v, int) or not 16 <= v <= 10000:
                raise CalibrationError(f"camera.{key}: a whole number of pixels expected, got {v!r}")
            size.append(v)
        w, h = size
        zones_obj = obj.get("zones", {})
        if not isinstance(zones_obj, dict):
            raise CalibrationError("zones: expected an object of name -> [x1, y1, x2, y2]")
        zones = {}
        for name, value in zones_obj.items():
            if not _ZONE_NAME.match(str(name)):
                raise CalibrationError(
                    f"zones.{name}: unknown zone name (field, token, scoring, pile0..pile2, p:SEAT:slotN)")
            zones[name] = Box.from_value(value, f"zones.{name}", (w, h))
        seats_obj = obj.get("seats")
        if not isinstance(seats_obj, list) or not seats_obj:
            raise CalibrationError("seats: expected a non-empty list of {name, box, channel}")
        seats = []
        for i, s in enumerate(seats_obj):
            if not isinstance(s, dict):
                raise CalibrationError(f"seats[{i}]: expected an object")
            name = s.get("name")
            if not isinstance(name, str) or not name.strip():
                raise CalibrationError(f"seats[{i}].name: a non-empty player name expected, got {name!r}")
            if any(x.name == name for x in seats):
                raise CalibrationError(f"seats[{i}].name: {name!r} names two seats")
            channel = s.get("channel")
            if channel is not None and (isinstance(channel, bool) or not isinstance(channel, int) or channel < 0):
                raise CalibrationError(f"seats[{i}].channel: a channel number >= 0 or null expected, got {channel!r}")
            seats.append(Seat(name, Box.from_value(s.get("box"), f"seats[{i}].box", (w, h)), channel))
        names = {x.name for x in seats}
        for zname in zones:
            if zname.startswith("p:") and zname.split(":")[1] not in names:
                raise CalibrationError(f"zones.{zname}: no seat is named {zname.split(':')[1]!r}")
        refs = obj.get("references")
        ref_path = None
        if refs is not None:
            if not isinstance(refs, str) or not refs:
                raise CalibrationError(f"references: a folder path expected, got {refs!r}")
            ref_path = Path(refs)
            if not ref_path.is_absolute() and base is not None:
                ref_path = base / ref_path
            if not ref_path.is_dir():
                raise CalibrationError(f"references: folder {ref_path} not found")
        if any(k != "token" for k in zones) and ref_path is None:
            raise CalibrationError("references: card zones are set but no reference folder is given")
        known = {"version", "game", "camera", "zones", "seats", "references"}
        return Calibration(game=game, width=w, height=h, zones=zones, seats=tuple(seats),
                           references=ref_path, extra={k: v for k, v in obj.items() if k not in known})

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": self.version, "game": self.game,
            "camera": {"width": self.width, "height": self.height},
            "zones": {k: v.to_list() for k, v in self.zones.items()},
            "seats": [{"name": s.name, "box": s.box.to_list(), "channel": s.channel} for s in self.seats],
        }
        if self.references is not None:
            out["references"] = str(self.references)
        out.update(self.extra)
        return out


def load(path: str | Path) -> Calibration:
    """Read and validate a calibration file; :class:`CalibrationError` names what is wrong."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationError(f"calibration file {path} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CalibrationError(f"calibration file {path} unreadable: {exc}") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"{path}: not JSON (line {exc.lineno}: {exc.msg})") from None
    try:
        return Calibration.from_dict(obj, base=path.parent)
    except CalibrationError as exc:
        raise CalibrationError(f"{path}: {exc}") from None


def save(cal: Calibration, path: str | Path) -> None:
    Path(path).write_text(json.dumps(cal.to_dict(), indent=1) + "\n", encoding="utf-8")

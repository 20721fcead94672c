"""The calibration recording's measurement of the table's microphones (``audio.leakage`` of a
calibration file): read, checked and written here; measured by :mod:`audio.hearing`. Part of
:mod:`session.calibration`, which re-exports :class:`LeakMeasurement`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from session.errors import CalibrationError


def int_in(v: Any, name: str, lo: int | None = None, hi: int | None = None, what: str = "an integer") -> int:
    """``v`` as an integer of the calibration file, in ``lo``..``hi``: else one error naming the field."""
    if isinstance(v, bool) or not isinstance(v, int) or (lo is not None and v < lo) or (hi is not None and v > hi):
        bound = f" >= {lo}" if lo is not None and hi is None else (f" in {lo}..{hi}" if lo is not None else "")
        raise CalibrationError(f"{name}: must be {what}{bound}, got {v!r}")
    return v


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
        size = int_in(f["size"], f"{name}.file.size", 0)
        sha = f["sha256"]
        if not isinstance(sha, str) or not _SHA256.match(sha):
            raise CalibrationError(f"{name}.file.sha256: 64 lowercase hex digits expected, got {sha!r}")
        rate = int_in(obj["rate"], f"{name}.rate", 8000, 384000, "a sample rate in Hz")
        c = int_in(obj["channels"], f"{name}.channels", 2, 64, "a channel count")
        params = obj["params"]
        if not isinstance(params, dict) or not all(isinstance(k, str) and number(v) for k, v in params.items()):
            raise CalibrationError(f"{name}.params: an object of parameter name -> number expected, got {params!r}")
        taps = int_in(params.get("taps"), f"{name}.params.taps", 1, 1 << 16, "a tap count")
        paths = obj["paths"]
        if not isinstance(paths, list):
            raise CalibrationError(f"{name}.paths: a list of [mic, seat, tap, [gain, ...]] expected, got {paths!r}")
        out_paths = []
        for n, pth in enumerate(paths):
            where = f"{name}.paths[{n}]"
            if not isinstance(pth, list) or len(pth) != 4 or not isinstance(pth[3], list):
                raise CalibrationError(f"{where}: [mic, seat, tap, [gain, ...]] expected, got {pth!r}")
            i = int_in(pth[0], f"{where} mic", 0, c - 1)
            j = int_in(pth[1], f"{where} seat", 0, c - 1)
            k = int_in(pth[2], f"{where} tap", 0, taps - 1)
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
        counts = tuple(int_in(v, f"{name}.solo_frames[{n}]", 0) for n, v in enumerate(solo))
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

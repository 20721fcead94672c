"""What must hold before a replay starts, checked in well under a second, so a replay never
works for minutes and then fails — or worse, finishes and judges the wrong thing.

:func:`check_replay` reads the calibration, probes the video and the seats' recording and
tries the output folder (:func:`check_live`: the same for the live referee, with a camera
and microphones instead of files, or a recording paced in real time); it raises one :class:`PreflightError` (a :class:`RefereeError`)
with one line naming the problem and the fix, or returns a :class:`Preflight`: the
warnings to give (and record at t = 0) and the sample rate the recording must be heard at.

Decisions (the spec is silent; also in docs/record.md and the README):

- **Sample rate.** The calibration's ``audio.rate`` is the rate the table was set up at
  (the onset levels, the cross-talk measurement and the enrolled voices). A recording at
  another rate is *resampled* to it (``audio.capture.FileSource(rate=...)``, polyphase)
  with a warning, never heard at the wrong rate; ``Preflight.audio_rate`` is that rate
  (None: the calibration gives no rate, the file is heard at its own).
- **Channels.** A recording with more channels than the seats use (an 8-input interface
  recorded whole, a calibration of a smaller table) is heard on the seats' channels only
  (``FileSource(channels=...)``), with a warning naming the others: unused inputs taking
  part in the cross-talk cancellation made the seats' words unrecognised. Fewer channels:
  the seats without one are "not heard" (said by the hearing).
- **Frame rate.** The strides count frames and were measured at 30 fps: a slower video gets
  strides of the same time (:func:`strides_for`), with a warning, never silently fewer looks.
- **Zones.** A calibration without any card zone of its game would replay to a record
  without a single card and a judgement of nothing: an error. Some of the game's zones
  missing (e.g. MOKOCHAKA's ``token``) is a warning naming them (what they see is lost).
- **Game.** With ``--game``, a calibration for another game is an error. Without it, the
  calibration's game is the one judged, so it must be believable: its ``deck`` may not name
  another game, and its reference images must be cards of its game. References that are
  all cards of *another* game (a calibration copied from another table and edited) are an
  error naming that game; reference images that are no card of the game are a warning.
- **References.** A card of the table's deck (the calibration's ``cards``, else the game's
  faces) without a reference image cannot be recognised: a warning naming the codes.
- **Output folder.** It must be creatable and writable *before* the work starts, with room
  for what a replay writes (:data:`MIN_FREE_BYTES`, plus the video's size with an annotated
  video); the replay writes into a staging folder beside it (``referee.outdir``), so its
  parent must be writable too.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from session.errors import CalibrationError, MediaError, RefereeError, RulesError

#: free space a replay needs in the output folder's file system: the record (~100 kB per
#: minute), the report with its evidence pictures (a few MB) and headroom
MIN_FREE_BYTES = 32 * 1024 * 1024


class PreflightError(RefereeError):
    """A replay that cannot give a right result: refused before any work."""


@dataclass(frozen=True)
class Preflight:
    """What the checks found: warnings to give, and how to read the inputs."""

    warnings: list[str] = field(default_factory=list)
    #: the sample rate the seats' recording must be heard at (resampled to it when the
    #: file's own differs); None = the file's own
    audio_rate: int | None = None
    #: the seats' recording's own sample rate (None: no audio)
    file_rate: int | None = None
    #: the loaded calibration (``session.calibration.Calibration``)
    calibration: Any = None
    #: the video's ``vision.video.VideoInfo``
    video_info: Any = None


def check_replay(video: str | Path, audio: str | Path | None, calibration: Any, out: str | Path,
                 game: str | None = None, *, annotated: bool = False) -> Preflight:
    """Every check that must pass before replaying ``video`` (+ ``audio``) with
    ``calibration`` (a path or a loaded ``Calibration``) into ``out``; see the module
    docstring. Raises :class:`PreflightError` (or the ``CalibrationError``/``MediaError``
    of an unreadable input) with one line."""
    from session.calibration import Calibration, load

    video = Path(video)
    cal = calibration if isinstance(calibration, Calibration) else load(calibration)
    warnings: list[str] = []
    check_game(cal, game, warnings)
    check_zones(cal, warnings)
    check_references(cal, warnings)
    info = check_video(video, cal)
    audio_rate, file_rate = check_audio(video, None if audio is None else Path(audio), cal, warnings)
    need = MIN_FREE_BYTES + (video.stat().st_size if annotated else 0)
    check_output(Path(out), need)
    return Preflight(warnings=warnings, audio_rate=audio_rate, file_rate=file_rate, calibration=cal,
                     video_info=info)


def check_live(calibration: Any, out: str | Path, game: str | None = None, *, video: str | Path | None = None,
               audio: str | Path | None = None) -> Preflight:
    """The checks of :func:`check_replay` for ``referee live``: the game, the zones, the
    references and the output folder always; the video's size and the seats' sample rate
    when a recording is paced through the live path (``video``/``audio``; a camera and the
    microphones are checked when they open)."""
    from session.calibration import Calibration, load

    cal = calibration if isinstance(calibration, Calibration) else load(calibration)
    warnings: list[str] = []
    check_game(cal, game, warnings)
    check_zones(cal, warnings)
    check_references(cal, warnings)
    info = check_video(Path(video), cal) if video is not None else None
    audio_rate = cal.audio.rate if cal.audio is not None else None
    file_rate = None
    if audio is not None:
        audio_rate, file_rate = check_audio(Path(video) if video is not None else Path(audio), Path(audio), cal,
                                            warnings)
    check_output(Path(out))
    return Preflight(warnings=warnings, audio_rate=audio_rate, file_rate=file_rate, calibration=cal,
                     video_info=info)


# ----------------------------------------------------------------------------- the game

def check_game(cal, game: str | None, warnings: list[str]) -> None:
    """The calibration's game is the one played (see the module docstring)."""
    import rules

    games = rules.names()
    if game is not None:
        if game not in games:
            raise PreflightError(f"--game {game!r}: not a game (games: {', '.join(games)})")
        if game != cal.game:
            raise CalibrationError(
                f"the calibration is for {cal.game}, not {game}: calibrate this table for {game} "
                f"(referee calibrate --game {game}) or replay with --game {cal.game}")
    if cal.deck in games and cal.deck != cal.game:
        raise CalibrationError(
            f"the calibration is for {cal.game} but names the deck {cal.deck!r}: a calibration of another "
            f"game edited? calibrate this table for the game played (referee calibrate --game GAME)")
    if cal.references is None or not Path(cal.references).is_dir():
        return
    codes = sorted({p.stem.split("_")[0] for p in Path(cal.references).iterdir()
                    if p.is_file() and not p.name.startswith(".")})
    if not codes:
        return
    from vision.spread_watch import code_of_file  # (``crab-blue`` names ``crab:blue``)

    ours = [c for c in codes if is_card(cal.game, c) or is_card(cal.game, code_of_file(c))]
    if ours:
        strangers = [c for c in codes if c not in ours]
        if strangers:
            warnings.append(f"references: {len(strangers)} image(s) in {cal.references} are no card of "
                            f"{cal.game} ({', '.join(strangers[:6])}{', ...' if len(strangers) > 6 else ''}): "
                            "never matched")
        return
    fits = [g for g in games if g != cal.game and sum(is_card(g, c) for c in codes) * 2 > len(codes)]
    other = f"are cards of {fits[0]}" if fits else "are no card of it"
    raise CalibrationError(
        f"the calibration is for {cal.game} but its reference images ({cal.references}) {other}: "
        f"this table would be judged as {cal.game} without a single card seen; use the calibration of the "
        f"game played{f' (or calibrate this table for {fits[0]})' if fits else ''}")


def is_card(game: str, code: str) -> bool:
    """Whether ``code`` names a card of ``game``'s deck (a reference image's name): the
    game's rules module's ``parse_card`` where it has one, else its ``CARDS`` table, else
    the faces the game declares."""
    import importlib

    import rules

    g = rules.get(game)
    mod = importlib.import_module(type(g).__module__)
    parse = getattr(mod, "parse_card", None)
    if callable(parse) and not isinstance(getattr(mod, "CARDS", None), dict):
        try:
            parse(code)
            return True
        except (RulesError, ValueError, KeyError, TypeError):
            return False
    cards = getattr(mod, "CARDS", None)
    if isinstance(cards, dict):
        return code in cards
    return code in g.faces


def check_references(cal, warnings: list[str]) -> None:
    """Every card of the table's deck has a reference image (else it cannot be recognised).
    An image there that cannot be read, or a folder without any, is not warned of here: the
    vision stage refuses it with one line (``vision.card_references``), and a warning that
    the card has no image would contradict it."""
    if not cal.card_zones or cal.references is None or not Path(cal.references).is_dir():
        return
    import rules
    from vision.card_references import reference_files

    files = reference_files(Path(cal.references))
    if not files:
        return
    deck = set(cal.cards or rules.get(cal.game).faces)  # the table's own faces, else the game's
    have = {p.stem.split("_")[0] for p in files}
    missing = sorted(deck - have)
    if missing:
        warnings.append(f"references: no image for card(s) {', '.join(missing)} in {cal.references}: "
                        "those cards cannot be recognised (add CODE.png and replay again)")


# ----------------------------------------------------------------------------- zones

def check_zones(cal, warnings: list[str]) -> None:
    """At least one card zone of the game; the game's other zones warned about when missing."""
    from calibration.decks import game_zones

    want = game_zones(cal.game, cal.players)
    have = set(cal.zones)
    if not any(z in have for z in want if z != "token"):
        raise PreflightError(
            f"the calibration has no card zone ({_zone_list(want)}): no card would be seen and nothing judged; "
            f"calibrate the table's zones (referee calibrate --game {cal.game})")
    missing = [z for z in want if z not in have]
    if missing:
        lost = "token grabs are not seen" if missing == ["token"] else "cards there are not seen"
        warnings.append(f"calibration: no zone {_zone_list(missing)}: {lost}")


def _zone_list(zones: list[str]) -> str:
    return ", ".join(zones[:4]) + (f" and {len(zones) - 4} more" if len(zones) > 4 else "")


# ----------------------------------------------------------------------------- inputs

def check_video(video: Path, cal):
    """The video is readable and has the calibration's resolution."""
    from vision.video import probe

    info = probe(video)
    if (info.width, info.height) != (cal.width, cal.height):
        raise CalibrationError(
            f"{video} is {info.width}x{info.height} but the calibration is for {cal.width}x{cal.height}: "
            "its zones and seat boxes would be in the wrong place; calibrate at this resolution")
    return info


def check_audio(video: Path, audio: Path | None, cal, warnings: list[str]) -> tuple[int | None, int | None]:
    """``(rate to hear at, the file's own rate)`` of the seats' recording (``audio``, else
    the video's track); an unreadable ``audio`` is an error now, not after the video."""
    from audio.capture import FileSource
    from audio.hearing import HEARING_RATE

    want = cal.audio.rate if cal.audio is not None else None
    if audio is None:
        try:
            src = FileSource(video)
        except MediaError:
            return want, None  # no track: the replay says so ("no audio") and goes on
    else:
        src = FileSource(audio)
    have = src.file_rate
    src.close()
    if want is not None and have != want:
        lower = (f"; a recording at {have} Hz holds nothing above {have // 2} Hz, so words may be misheard: "
                 f"record at {want} Hz" if have < want else "")
        warnings.append(f"audio: {(audio or video).name} is recorded at {have} Hz, the calibration at {want} Hz: "
                        f"resampled to {want} Hz{lower}")
    if want is not None and want > HEARING_RATE:
        warnings.append(f"audio: the calibration hears the table at {want} Hz (it was made before the referee heard "
                        f"every table at {HEARING_RATE} Hz); its seat-to-seat leak paths may fit nothing and the words "
                        "come out unclear: calibrate again from a recording (--from-video: measured at "
                        f"{HEARING_RATE} Hz)")
    n = cal.seat_channels
    if n is not None and src.file_channels > n:
        extra = list(range(n, src.file_channels))
        names = ", ".join(str(c) for c in extra[:6]) + (", ..." if len(extra) > 6 else "")
        made = (f" (the calibration was made with {cal.audio.channels})"
                if cal.audio is not None and cal.audio.channels and cal.audio.channels != src.file_channels else "")
        warnings.append(f"audio: {(audio or video).name} has {src.file_channels} channels but the calibration's seats "
                        f"are on channels 0-{n - 1}{made}: channel(s) {names} are not heard and take no part in the "
                        "cross-talk cancellation; if the seats are on other inputs, calibrate this table again")
    return want, have


#: the frame rate the vision strides are set for (``--pose-every``/``--card-every`` count
#: frames; their defaults and the hand tracker's timing were measured on 30 fps video)
STRIDE_FPS = 30.0
#: a video this much slower than :data:`STRIDE_FPS` gets strides scaled to the same time
#: between analysed frames (29.97 or 25 fps video: 8 stays 8 or becomes 7)
STRIDE_SLOWER = 0.9


def strides_for(fps: float | None, pose_every: int, card_every: int, name: str, *,
                pose: bool = True) -> tuple[int, int, str | None]:
    """``(pose_every, card_every, warning)`` for a video at ``fps``. At a lower frame rate
    the strides (counted in frames) would span more of the table's time — at 15 fps pose on
    every 8th frame is one look per seat every 0.53 s, and the demo's hands were missed —
    so they are scaled to the time they span at 30 fps (every 4th at 15 fps), with a
    warning; faster video keeps them (more looks, more CPU, the same hands). ``pose`` False:
    no seat's pose is watched (a game whose verdicts use no hands), so the warning names the
    cards only."""
    if not fps or fps >= STRIDE_FPS * STRIDE_SLOWER:
        return pose_every, card_every, None
    pose_n = max(1, round(pose_every * fps / STRIDE_FPS))
    card = max(1, round(card_every * fps / STRIDE_FPS))
    if (pose_n, card) == (pose_every, card_every):
        return pose_every, card_every, None
    changed = [f"{what} on {_every(new)} (not {_every(old)})" for what, new, old in
               (("each seat's pose", pose_n, pose_every), ("the cards", card, card_every))
               if new != old and (pose or what == "the cards")]
    if not changed:
        return pose_n, card, None
    return pose_n, card, (f"video: {name} is {fps:g} fps, not {STRIDE_FPS:g}: {' and '.join(changed)}, the same time "
                        f"between looks as at {STRIDE_FPS:g} fps; record at {STRIDE_FPS:g} fps for the timing the "
                        "referee was measured at")


def _every(n: int) -> str:
    if n == 1:
        return "every frame"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"every {n}{suffix} frame"


# ----------------------------------------------------------------------------- output

def check_output(out: Path, need_bytes: int = MIN_FREE_BYTES) -> None:
    """``out`` can be created (or replaced) and written, with ``need_bytes`` free; its
    parent must be writable too (the replay is staged beside it, ``referee.outdir``)."""
    if out.exists() and not out.is_dir():
        raise PreflightError(f"--out {out}: is a file, not a folder")
    parent = out.resolve().parent
    probe_dir = parent
    while not probe_dir.exists():
        probe_dir = probe_dir.parent
    if not probe_dir.is_dir():
        raise PreflightError(f"--out {out}: {probe_dir} is a file, not a folder")
    for d in ([out] if out.is_dir() else []) + [probe_dir]:
        try_write(d, what=f"--out {out}")
    try:
        free = shutil.disk_usage(probe_dir).free
    except OSError:
        return
    if free < need_bytes:
        raise PreflightError(f"--out {out}: only {_size(free)} free on its disk, a replay needs about "
                             f"{_size(need_bytes)}; free some space or write elsewhere")


def try_write(folder: Path, what: str) -> None:
    """Create and remove a small file in ``folder``; one line when that fails."""
    try:
        fd, name = tempfile.mkstemp(prefix=".referee-probe-", dir=folder)
        try:
            os.write(fd, b"x" * 4096)
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(name)
    except OSError as exc:
        why = {errno.EACCES: "no permission to write there", errno.EROFS: "a read-only file system",
               errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up"}.get(
                   exc.errno, exc.strerror or str(exc))
        raise PreflightError(f"{what}: cannot write in {folder} ({why})") from None


def _size(n: int) -> str:
    for unit in ("bytes", "kB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"

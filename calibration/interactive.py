"""``referee calibrate --camera N``: the calibration steps in an OpenCV window at the table.

A thin front end over :mod:`calibration.steps` (the same steps and self-checks as
``--from-video``); every prompt and check result is drawn on the live picture and echoed
on the terminal. Keys: SPACE/ENTER = go on, R = redo the step, S = skip a card, ESC = stop.

Steps, with the time a person needs (an estimate for IKATAKO, 4 players; the recorded
path is measured by the tests/README):

1. empty table, everyone seated, hands down: SPACE (~10 s);
2. zones: drag a box per zone of the game (``selectROI``) (~10 s per zone; a TAKOYAKI
   griddle is one box per player, split into ten slots);
3. seats: found by pose above the play area and drawn; ENTER accepts, R redraws each
   (~5 s, ~15 s per redrawn seat);
4. cards: "show CARD alone in the play area"; taken by itself once the card lies still for
   :data:`STILL_S`, then checked (sharp, re-identified, look-alikes) (~4 s per card: 13
   cards ~1 min);
5. channels (when an audio device is given): "NAME: say 'WORD' now", :data:`TAKE_S` of
   audio per seat, checked for the loudest channel (~4 s per seat);
Total about 2.5 minutes for IKATAKO with 4 players (target: under 5).

Without a display it fails at once with one clear error (:func:`require_display`).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Sequence

import cv2
import numpy as np

import rules
from calibration import steps
from calibration.decks import game_zones, griddle_slots
from calibration.recording import Result
from calibration.steps import Check
from session.errors import CalibrationError, DeviceError

WINDOW = "referee calibrate"
#: a card must lie still this long before it is taken
STILL_S = 0.5
#: seconds of audio recorded per seat for its test word
TAKE_S = 2.5


def display_problem(env=None) -> str | None:
    """Why no X server answers on ``DISPLAY`` (None: one does, or not Linux).

    OpenCV's windows are Qt on X (xcb); when the X server named by ``DISPLAY`` is not there
    (an ssh session with a stale ``DISPLAY``, a container), Qt does not raise but *aborts
    the process* (SIGABRT) in ``cv2.namedWindow``. So the server's socket is tried first:
    ``:N`` / ``unix:N`` is ``/tmp/.X11-unix/XN`` (or the abstract socket of that name),
    ``HOST:N`` is TCP port 6000 + N, each with a 2 s timeout.
    """
    import re
    import socket

    env = os.environ if env is None else env
    if not sys.platform.startswith("linux"):
        return None
    display = env.get("DISPLAY") or ""
    if not display:
        return None if env.get("WAYLAND_DISPLAY") is None else (
            "WAYLAND_DISPLAY is set but not DISPLAY: OpenCV's windows need X (XWayland sets DISPLAY)")
    m = re.fullmatch(r"([^:]*):(\d+)(?:\.\d+)?", display)
    if m is None:
        return f"DISPLAY={display!r} is not a display name like :0 or host:0"
    host, number = m.group(1), int(m.group(2))
    try:
        if host in ("", "unix"):
            path = f"/tmp/.X11-unix/X{number}"
            for address in (path, "\0" + path):  # the file, then Linux's abstract socket
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    sock.settimeout(2.0)
                    try:
                        sock.connect(address)
                        return None
                    except OSError:
                        continue
            return f"no X server answers on DISPLAY={display} (no socket {path})"
        with socket.create_connection((host, 6000 + number), timeout=2.0):
            return None
    except OSError as exc:
        return f"no X server answers on DISPLAY={display} ({exc.strerror or exc})"


def require_display() -> None:
    """One clear :class:`DeviceError` when no window can be opened (no screen, headless,
    or a ``DISPLAY`` whose X server is not there: :func:`display_problem`)."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        raise DeviceError("no display: referee calibrate --camera opens a window (run it at the table's computer, "
                          "with DISPLAY set); without a screen, record the calibration and use "
                          "--from-video VIDEO --audio SEATS.wav")
    problem = display_problem()
    if problem is not None:
        raise DeviceError(f"no display: {problem}; run it at the table's computer, or record the calibration "
                          "and use --from-video VIDEO --audio SEATS.wav")
    try:
        cv2.namedWindow(WINDOW, cv2.WINDOW_NORMAL)
    except cv2.error as exc:
        raise DeviceError(f"no display: OpenCV cannot open a window ({str(exc).strip().splitlines()[-1]}); "
                          f"use --from-video VIDEO --audio SEATS.wav") from None


class Screen:
    def __init__(self, cap):
        self.cap = cap
        self.frame = None

    def read(self) -> np.ndarray:
        ok, frame = self.cap.read()
        if not ok or frame is None:
            raise DeviceError("the camera stopped delivering frames")
        self.frame = frame
        return frame

    def show(self, lines: Sequence[str], boxes=(), frame=None) -> int:
        img = (self.frame if frame is None else frame).copy()
        for label, b, colour in boxes:
            cv2.rectangle(img, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), colour, 2)
            cv2.putText(img, label, (int(b[0]) + 4, int(b[1]) + 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, 2)
        for i, line in enumerate(lines):
            y = 30 + 28 * i
            cv2.putText(img, line, (12, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 4, cv2.LINE_AA)
            cv2.putText(img, line, (12, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 1, cv2.LINE_AA)
        cv2.imshow(WINDOW, img)
        key = cv2.waitKey(1) & 0xFF
        if key == 27:
            raise CalibrationError("calibration stopped (ESC); nothing written")
        return key

    def wait_key(self, lines, keys=(32, 13), boxes=()) -> int:
        while True:
            self.read()
            k = self.show(lines, boxes)
            if k in keys:
                return k


def _say(lines: Sequence[str]) -> None:
    for line in lines:
        print(line, file=sys.stderr)


def calibrate_camera(camera, game: str, names: Sequence[str], codes: Sequence[str], *, zones: dict | None = None,
                     audio_device=None, channels: int | None = None, room: bool = False,
                     deck_rows: int | None = None) -> Result:
    """Guide a person through every step at the live table (see the module docstring).

    ``room``: the audio input is one room microphone (one laptop): no channel per seat is
    looked for, the seats' channels stay unknown and the file says ``extra.room_microphone``."""
    require_display()
    t0 = time.perf_counter()
    cap = _open_camera(camera)
    if not cap.isOpened():
        raise DeviceError(f"camera {camera!r} cannot be opened (another program using it? wrong index? "
                          f"referee devices lists the cameras)")
    scr = Screen(cap)
    checks: list[Check] = []
    try:
        scr.read()
        h, w = scr.frame.shape[:2]
        scr.wait_key(framing_lines(names, w, h))
        background = scr.frame.copy()
        fps = cap.get(cv2.CAP_PROP_FPS) or None
        # ---- zones
        zones = dict(zones or {})
        wanted = game_zones(game, names)
        if any(":slot" in z for z in wanted):  # TAKOYAKI's griddles: each seat's slots, one box
            for n in names:
                if f"p:{n}:slot1" not in zones:
                    zones.update(griddle_slots(n, _select(background, f"2/5 {n}'s griddle (10 slots): drag a box")))
            for z in wanted:  # the game's shared zones (TAKOYAKI's discards, pile0)
                if not z.startswith("p:") and z not in zones:
                    zones[z] = list(_select(background, f"2/5 Zone {z}: drag a box, ENTER"))
        else:  # (Sea Salt & Paper: p:NAME:spread, the table in front of each seat)
            for z in wanted:
                if z not in zones:
                    what = f"{z.split(':')[1]}'s cards in front of them" if z.endswith(":spread") else f"Zone {z}"
                    zones[z] = list(_select(background, f"2/5 {what}: drag a box, ENTER"))
        # ---- seats
        tops = [v[1] for k, v in zones.items() if k != "token"]
        bottom = min(tops) if tops and min(tops) > h // 3 else h
        boxes, schecks = steps.refine_seats(background, names, bottom)
        while True:
            drawn = [(n, b, (0, 200, 0) if c.level == "ok" else (0, 0, 255)) for n, b, c in zip(names, boxes, schecks)]
            _say(str(c) for c in schecks)
            k = scr.wait_key(["3/5 Seats: ENTER accepts, R redraws them"] + [str(c) for c in schecks if c.level != "ok"],
                             keys=(13, 32, ord("r")), boxes=drawn)
            if k != ord("r"):
                break
            boxes = [tuple(_select(scr.frame, f"3/5 Seat of {n}: drag a box around them and their raised hands"))
                     for n in names]
            schecks = [Check(f"seat {n}", "ok" if steps.default_pose(scr.frame, b) is not None else "fail",
                             f"box {list(b)}") for n, b in zip(names, boxes)]
        checks.extend(schecks)
        # ---- cards
        captured: dict[str, np.ndarray] = {}
        quads: list[np.ndarray] = []
        sharp: list[float] = []
        frames_still = max(2, int(round(STILL_S * (fps or 15))))
        if deck_rows is not None:  # the deck in rows, a suit per shot (calibration.rows_ui)
            from calibration.rows_ui import capture_rows

            deck = capture_rows(scr, background, codes, deck_rows, frames_still, say=lambda s: _say([s]))
            captured, quads, sharp = deck.references, deck.quads, deck.sharpness
            checks.extend(deck.checks)
        for i, code in enumerate(codes if deck_rows is None else ()):
            while True:
                prev, still, last = None, 0, None
                while still < frames_still:
                    img = scr.read()
                    box = steps.changed_box(img, background)
                    still = still + 1 if box is not None and prev is not None and max(
                        abs(a - b) for a, b in zip(box, prev)) <= 6 else 0
                    prev = box
                    last = img
                    if scr.show([f"4/5 Card {i + 1}/{len(codes)}: show {code} alone, face up, in the play area",
                                 "S skips this card"]) == ord("s"):
                        break
                if still < frames_still:
                    checks.append(Check(f"card {code}", "warn", "skipped"))
                    break
                cap_ = steps.capture_reference(code, last, steps.find_card(last, background), captured, scr.read())
                _say(str(c) for c in cap_.checks)
                if steps.failed(cap_.checks):
                    scr.wait_key([str(c) for c in cap_.checks] + ["Take the card away; SPACE to try again"])
                    continue
                checks.extend(cap_.checks)
                captured[code] = cap_.image
                if cap_.quad is not None:
                    quads.append(cap_.quad)
                    sharp.append(cap_.sharpness)
                scr.wait_key([str(c) for c in cap_.checks] + ["Take the card away, then SPACE"])
                break
        if deck_rows is None:  # (the rows' own: calibration.deck_capture.finish)
            pairs, lchecks = steps.lookalike_checks(captured)
            checks.extend(lchecks)
            cam_checks = steps.camera_checks(w, h, quads, sharp)  # resolution and sharpness for this deck
            _say(str(c) for c in cam_checks)
            checks.extend(cam_checks)
        else:
            pairs = deck.pairs
        # ---- channels (each player speaks; the loudest channel is theirs) or one room microphone
        chmap, audio_info, cchecks = _channels_step(scr, game, names, audio_device, channels, room)
        checks.extend(cchecks)
        # the audio-video offset: a recording made elsewhere is calibrated from its slap
        # (calibration.steps.av_offset); live, both senses are stamped at capture on one clock
        checks.append(Check("av offset", "ok", steps.LIVE_CLOCKS))
    finally:
        cap.release()
        cv2.destroyAllWindows()
    cal = {"version": 2, "game": game, "deck": game,
           "camera": {"id": int(camera) if str(camera).isdigit() else str(camera), "width": w, "height": h,
                      "fps": round(fps, 3) if fps else None},
           "zones": zones,
           "seats": [{"name": n, "box": list(b), "channel": chmap.get(n)} for n, b in zip(names, boxes)],
           "references": "refs", "cards": [c for c in codes if c in captured],
           "lookalikes": [[a, b, s] for a, b, s in pairs]}
    if audio_info is not None:
        cal["audio"] = audio_info
    if room:
        cal["extra"] = {"room_microphone": True}
    return Result(cal, captured, checks, time.perf_counter() - t0, 0)


def _open_camera(camera):
    """The camera as the live referee opens it (:func:`vision.camera.cv2_opener`: OpenCV's own
    log silenced, so a camera that does not open is said once, by the caller). The camera
    keeps the size it offers: step 1 says what it gives."""
    from vision.camera import cv2_opener

    return cv2_opener(int(camera) if str(camera).isdigit() else camera)


def framing_lines(names: Sequence[str], width: int, height: int) -> list[str]:
    """Step 1's words on the live picture: what the framing must show before SPACE."""
    small = (f"  (the camera gives {width}x{height}: cards need 1280x720 or at least 640 wide)"
             if width < 1280 else f"  ({width}x{height})")
    return [f"1/5 Framing: {len(names)} players ({', '.join(names)}), left to right,",
            "  each seen from the waist up with room above the head for raised hands,",
            "  and the play area whole in the lower part of the picture." + small,
            "Then empty the table, everyone seated, hands down: press SPACE."]


def _channels_step(scr: "Screen", game: str, names: Sequence[str], audio_device, channels, room: bool):
    """Step 5: each player says the test word in turn; the channel where it is loudest is
    theirs (``calibration.steps.channel_map``). Returns (seat -> channel, the calibration's
    ``audio`` block or None, checks). A room microphone has no channel per seat: all None."""
    if audio_device is None:
        return {n: None for n in names}, None, [Check("channels", "warn", "no --audio-device: seat channels left "
                                                      "unknown (no audio input found or given)")]
    from audio.capture import device_info, import_sounddevice

    max_ch, rate = device_info(audio_device)
    if room:
        return {n: None for n in names}, {"device": audio_device, "rate": rate, "channels": 1}, [
            Check("channels", "warn", "one room microphone: words are heard but not credited to a seat by channel")]
    nch = channels or max_ch
    sd = import_sounddevice()
    takes, spans, off = [], [], 0
    word = rules.get(game).test_word
    for n in names:
        scr.wait_key([f"5/5 {n}: press SPACE, then say '{word}' once"])
        scr.show([f"5/5 {n}: say '{word}' now"])
        cv2.waitKey(1)
        take = sd.rec(int(TAKE_S * rate), samplerate=rate, channels=nch, device=audio_device, dtype="float32")
        sd.wait()
        found = steps.find_utterances(take, rate)
        span = max(found, key=lambda s: s[1] - s[0]) if found else (0, len(take))
        takes.append(take)
        spans.append((span[0] + off, span[1] + off))
        off += len(take)
    chmap, cchecks = steps.channel_map(np.concatenate(takes), rate, names, spans)
    _say(str(c) for c in cchecks)
    return chmap, {"device": audio_device, "rate": rate, "channels": nch}, cchecks


def _select(image: np.ndarray, prompt: str) -> tuple[int, int, int, int]:
    img = image.copy()
    cv2.putText(img, prompt, (12, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2, cv2.LINE_AA)
    x, y, w, h = cv2.selectROI(WINDOW, img, showCrosshair=False)
    if w <= 0 or h <= 0:
        raise CalibrationError(f"no box drawn for: {prompt}")
    return int(x), int(y), int(x + w), int(y + h)

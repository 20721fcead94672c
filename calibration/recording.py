"""``referee calibrate --from-video``: the calibration steps run on a recording.

The recording shows what the guided calibration asks a table to do, in its order: the
empty table with everyone seated; every card of the deck alone in the play area, one
after the other, in the order of :func:`calibration.decks.deck_cards` (or ``--cards``),
each lying still for a moment with an empty table between cards; then, for the
audio-video offset, one slap on the table in the play area with a flat hand (after the
last card, the table quiet for a moment before it); then each seat says a test word in
turn (left to right) on its own microphone. ``fixtures/demo/make_calibration.py`` writes
such a recording of the demo table (without the slap: the offset is then reported as not
measured).

Like the guided calibration, the cards shown give the camera checks (resolution and
sharpness for the deck, :func:`calibration.steps.camera_checks`), and the slap the
audio-video offset (:func:`calibration.steps.av_offset`: the frame of contact against
the audio onset), stored as ``av_offset``. The slap is the last showing in which no card
outline was found in any frame, when it comes after every card showing; its frames are
read again from the file (only that window is kept), the audio cut to the same window
from :data:`SLAP_QUIET_S` before it (the onset detector's noise reference).

Non-interactive and deterministic: frames are read on their PTS clock, the first frame is
the empty table, a *showing* is a run of frames with a changed area (a card or a hand)
between empty ones, and its card is taken from the longest still part of it (the changed
box moving less than :data:`STILL_PX`), from the sharpest frame there; a later frame of
the same still part re-identifies it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from calibration import steps
from calibration.steps import Check

#: the changed box may move this many pixels between frames of a still card
STILL_PX = 6
#: a showing needs this many still frames (a card flashed by is not a reference)
MIN_STILL_FRAMES = 2
#: the slap's audio window starts this long before the hand comes into view (the table is
#: quiet then: it is the onset detector's noise reference, ``steps.ONSET_NOISE_S`` of it)
SLAP_QUIET_S = 0.5
#: ... and ends this long after the hand has gone
SLAP_TAIL_S = 0.3


@dataclass
class Showing:
    """One card shown: the frames of its longest still run (best = sharpest)."""

    first_t: float
    last_t: float = 0.0
    #: per still run: its sharpest frame and its latest one, (t, box, image, quad, sharpness)
    runs: list = field(default_factory=list)
    #: per still run: how many frames it lasted
    lengths: list = field(default_factory=list)
    #: a card outline was found in one of its frames (False: a hand alone, e.g. the slap)
    card_seen: bool = False
    #: the union of its changed boxes (x1, y1, x2, y2)
    box: tuple[int, int, int, int] | None = None
    #: the time of the frame before it (the empty table: the contact's background)
    before_t: float | None = None


def find_showings(frames, on_frame: Callable | None = None) -> tuple[np.ndarray, list[Showing], tuple[int, int], int]:
    """(the empty table, the showings in time order, (width, height), frames read)."""
    background = None
    showings: list[Showing] = []
    current: Showing | None = None
    prev_box = None
    size = (0, 0)
    n = 0
    prev_t = None
    for fr in frames:
        n += 1
        img = fr.image
        if background is None:
            background = img.copy()
            size = (img.shape[1], img.shape[0])
            continue
        if on_frame is not None:
            on_frame(fr)
        box = steps.changed_box(img, background)
        t_before, prev_t = prev_t, fr.t
        if box is None:
            current, prev_box = None, None
            continue
        if current is None:
            current = Showing(fr.t, before_t=t_before)
            showings.append(current)
            current.runs.append([])
            current.lengths.append(0)
        elif prev_box is None or max(abs(a - b) for a, b in zip(box, prev_box)) > STILL_PX:
            current.runs.append([])
            current.lengths.append(0)
        current.last_t = fr.t
        prev_box = box
        run = current.runs[-1]
        quad = steps.find_card(img, background)
        sharp = steps.sharpness(img, quad) if quad is not None else 0.0
        current.card_seen = current.card_seen or quad is not None
        current.box = box if current.box is None else (min(current.box[0], box[0]), min(current.box[1], box[1]),
                                                       max(current.box[2], box[2]), max(current.box[3], box[3]))
        # keep only what is needed: the sharpest frame and the latest one of each run
        entry = (fr.t, box, img, quad, sharp)
        if len(run) < 2:
            run.append(entry)
        else:
            best = max(run[:-1], key=lambda e: e[4])
            run[:] = [best, entry] if entry[4] <= best[4] else [entry, run[-1]]
        current.lengths[-1] += 1
    if background is None:
        from session.errors import MediaError

        raise MediaError("the recording holds no frames")
    return background, showings, size, n


@dataclass
class Result:
    """Everything the recording gave: the calibration object, reference images, checks."""

    calibration: dict
    references: dict[str, np.ndarray]
    checks: list[Check]
    seconds: float
    frames: int


def calibrate_recording(video: str | Path, audio: str | Path | None, game: str, names: Sequence[str],
                        codes: Sequence[str], *, zones: dict | None = None, pose: steps.PoseFn = steps.default_pose,
                        on_frame: Callable | None = None, deck_rows: int | None = None,
                        deck_photos: Sequence[tuple[str, np.ndarray]] | None = None) -> Result:
    """Run every step on a calibration recording (see the module docstring). ``deck_rows``
    (cards per layout, e.g. 13): each still showing is the deck laid out in rows
    (:mod:`calibration.deck_capture`), not one card; ``deck_photos``: the layouts are these
    photos, and the recording's showings are not cards."""
    from vision.video import probe, read_frames

    t0 = time.perf_counter()
    info = probe(video)
    warnings: list[str] = []
    background, showings, (w, h), n = find_showings(read_frames(video, warnings), on_frame)
    checks: list[Check] = [Check("video", "warn", wmsg) for wmsg in warnings]
    slap = find_slap(showings)
    # ---- cards: the k-th showing with a still run is the k-th card asked for
    usable = []
    for s in showings:
        if s is slap:
            continue
        runs = [r for r, n_ in zip(s.runs, s.lengths) if n_ >= MIN_STILL_FRAMES]
        if runs:
            usable.append((s, max(runs, key=lambda r: max(e[4] for e in r))))
    captured: dict[str, np.ndarray] = {}
    quads = []
    sharp: list[float] = []
    if deck_rows is not None or deck_photos is not None:
        from calibration.deck_capture import capture_deck

        shots = deck_photos if deck_photos is not None else [
            (f"layout at {max(run, key=lambda e: e[4])[0]:.2f} s", max(run, key=lambda e: e[4])[2]) for _, run in usable]
        deck = capture_deck(shots, codes, deck_rows or 13, background if deck_photos is None else None)
        captured, sharp, usable, codes_shown = deck.references, deck.sharpness, [], ()
        quads = deck.quads if deck_photos is None else []  # (a photo's pixels are not the camera's: no field from them)
        checks.extend(deck.checks)
    else:
        codes_shown = codes
    if len(usable) != len(codes_shown):
        checks.append(Check("cards", "fail", f"saw {len(usable)} cards shown still, expected {len(codes)} "
                                             f"({', '.join(codes)}): show each card alone, hold it still, clear "
                                             f"the table between cards"))
    for code, (s, run) in zip(codes_shown, usable):
        best = max(run, key=lambda e: e[4])
        other = next((e for e in run if e is not best), None)
        cap = steps.capture_reference(code, best[2], best[3], captured,
                                      again=other[2] if other is not None else None)
        checks.extend(Check(c.step, c.level, f"at {best[0]:.2f} s: {c.message}") for c in cap.checks)
        if cap.image is not None and not steps.failed(cap.checks):
            captured[code] = cap.image
            quads.append(cap.quad)
            sharp.append(cap.sharpness)
    if deck_rows is None and deck_photos is None:  # (the deck's own: calibration.deck_capture.finish)
        pairs, lchecks = steps.lookalike_checks(captured)
        checks.extend(lchecks)
        checks.extend(steps.camera_checks(w, h, quads, sharp))  # resolution and sharpness for this deck
    else:
        pairs = deck.pairs
    # ---- zones
    zones = dict(zones or {})
    if "field" in _needed_zones(game, names) and "field" not in zones:  # the play area: around the cards shown
        fz = steps.field_zone(quads, w, h)
        if fz is None:
            checks.append(Check("field", "fail", "no card was found, so no field: show the cards in the play area"))
        else:
            zones["field"] = list(fz)
            checks.append(Check("field", "ok", f"field {list(fz)} around {len(quads)} cards"))
    missing = [z for z in _needed_zones(game, names) if z not in zones]
    if missing:
        checks.append(Check("zones", "fail", f"{', '.join(missing)} not found in a recording: give them with "
                                             f"--zone NAME=X1,Y1,X2,Y2 or calibrate with --camera"))
    # ---- seats: above the card zones
    card_tops = [v[1] for k, v in zones.items() if k != "token"]
    bottom = min(card_tops) if card_tops and min(card_tops) > h // 3 else h
    boxes, schecks = steps.refine_seats(background, names, bottom, pose)
    checks.extend(schecks)
    # ---- channels
    channels: dict[str, int | None] = {n_: None for n_ in names}
    audio_info = None
    offset = None
    if audio is not None:
        from audio.capture import read_all

        samples, rate = read_all(audio, rate=heard_rate(audio))  # (heard at 16 kHz: audio.hearing.HEARING_RATE)
        offset, achecks = slap_offset(video, slap, samples, rate)
        checks.extend(achecks)
        channels, cchecks = steps.channel_map(samples, rate, names)
        checks.extend(cchecks)
        audio_info = {"device": None, "rate": rate, "channels": int(samples.shape[1]), "file": Path(audio).name}
        leak = steps.crosstalk_db(samples, rate, [channels.get(n_) for n_ in names])
        if leak is not None:
            audio_info["crosstalk_db"] = leak  # the onset detector subtracts this much of a neighbour
        measured = table_leakage(audio, samples, rate, channels)
        if measured is not None:
            audio_info["leakage"] = measured
            checks.extend(leakage_checks(measured, channels))
    else:
        checks.append(Check("channels", "warn", "no audio given (--audio SEATS.wav): seat channels left unknown"))
        checks.extend(steps.av_offset_checks(None))
    cal = {"version": 2, "game": game, "deck": game,
           "camera": {"id": None, "width": w, "height": h, "fps": round(info.fps, 3) if info.fps else None},
           "zones": zones,
           "seats": [{"name": nm, "box": list(b), "channel": channels.get(nm)} for nm, b in zip(names, boxes)],
           "references": "refs", "cards": [c for c in codes if c in captured],
           "lookalikes": [[a, b, s] for a, b, s in pairs]}
    if audio_info is not None:
        cal["audio"] = audio_info
    if offset is not None:
        cal["av_offset"] = offset
    return Result(cal, captured, checks, time.perf_counter() - t0, n)


def heard_rate(audio: str | Path) -> int | None:
    """The rate a seats' recording is measured at: :data:`audio.hearing.HEARING_RATE` when it
    was recorded higher (None: as recorded)."""
    from audio.capture import FileSource
    from audio.hearing import HEARING_RATE

    return HEARING_RATE if FileSource(audio).rate > HEARING_RATE else None


def table_leakage(audio: str | Path, samples: np.ndarray, rate: int, channels: dict[str, int | None]) -> dict | None:
    """The calibration file's ``audio.leakage`` (``session.calibration.LeakMeasurement``):
    the seat-to-seat leak paths, speech levels and residual measured on the seats' channels of
    this recording (``audio.hearing.measure_calibration``), once here instead of at every
    replay (~0.8 CPU-s of a replay's hearing for the demo's 37 s); None with fewer than two seat
    channels (nothing to cancel)."""
    from audio.hearing import measure_calibration
    from session.calibration import channels_used

    used = channels_used(channels)
    if used is None or used < 2 or samples.ndim != 2 or samples.shape[1] < used:
        return None
    return measure_calibration(samples[:, :used], rate, Path(audio)).to_dict()


def leakage_checks(measured: dict, channels: dict[str, int | None]) -> list[Check]:
    """What the stored ``audio.leakage`` (``measured``, :func:`table_leakage`) changes in how
    the seats are heard, each in one plain line: the microphones evened out (``gains_db``:
    each correction of 1 dB or more (rounded), by seat: "ben's microphone is 9 dB quieter than the
    others") and a table not cancelled (``cancelled`` false: the seats' leak paths hardly lower
    the neighbours' microphones on this very recording). Nothing when neither applies."""
    out = []
    owner = {ch: name for name, ch in channels.items() if ch is not None}
    said = [(owner.get(k, f"channel {k}"), round(g)) for k, g in enumerate(measured.get("gains_db") or ())
            if round(g)]
    if said:
        parts = [f"{name}'s{' microphone is' if not i else ''} {abs(g)} dB {'quieter' if g > 0 else 'louder'}"
                 f"{' than the others' if not i else ''}" for i, (name, g) in enumerate(said)]
        out.append(Check("microphones", "ok", ", ".join(parts) + ": evened out"))
    if measured.get("cancelled") is False:
        out.append(Check("cross-talk", "ok", "the seats' voices do not cancel in this room: each microphone is heard "
                                             "as it is"))
    return out


def find_slap(showings: Sequence[Showing]) -> Showing | None:
    """The slap of the recording: the last showing in which no card outline was found, when
    it comes after every showing with a card (see the module docstring); else None."""
    hands = [s for s in showings if not s.card_seen]
    if not hands:
        return None
    last_card = max((s.last_t for s in showings if s.card_seen), default=float("-inf"))
    slap = hands[-1]
    return slap if slap.first_t > last_card else None


def slap_offset(video: str | Path, slap: Showing | None, samples: np.ndarray, rate: int) -> tuple[float | None, list[Check]]:
    """The audio-video offset from the recording's slap (:func:`calibration.steps.av_offset`
    on the slap's frames, from the empty frame before it, and the audio of the same window)."""
    from vision.video import read_frames

    if slap is None or slap.before_t is None:
        return None, [Check("av offset", "warn", "no slap in the recording (after the last card, slap the table "
                                                 "once with a flat hand in the play area): not measured; audio "
                                                 "and video times are compared as they are")]
    frames = []
    for fr in read_frames(video):
        if fr.t > slap.last_t:
            break
        if fr.t >= slap.before_t:
            frames.append((fr.t, fr.image))
    a = max(0, int(round((slap.before_t - SLAP_QUIET_S) * rate)))
    b = min(len(samples), int(round((slap.last_t + SLAP_TAIL_S) * rate)))
    x1, y1, x2, y2 = slap.box
    h, w = frames[0][1].shape[:2] if frames else (0, 0)
    pad = 10  # the hand's lowest row must lie inside the box, not on its edge
    box = (max(0, x1 - pad), max(0, y1 - pad), min(w, x2 + pad), min(h, y2 + pad))
    # the frames' times counted from the audio window's start: the offset comes out on the
    # recording's clock
    start = a / rate
    return steps.av_offset([(t - start, img) for t, img in frames], samples[a:b], rate, box)


def _needed_zones(game: str, names: Sequence[str]) -> list[str]:
    from calibration.decks import game_zones

    return game_zones(game, names)

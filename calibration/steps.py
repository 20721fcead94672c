"""The calibration steps: pure functions from images and samples to findings and checks.

``referee calibrate`` has two front ends (an OpenCV window at a live table,
:mod:`calibration.interactive`; a recording, :mod:`calibration.recording`); both call
these steps, so what a step checks and what it tells a person to fix is the same in both
and is tested here on recorded input. A step returns its finding and a list of
:class:`Check` s (``ok`` / ``warn`` / ``fail``, with what to fix).

Steps and their self-checks:

- **cards** (:func:`find_card`, :func:`capture_reference`): a card shown alone is found as
  the card-shaped outline inside what changed against the empty table; its image must be
  sharp enough (variance of the Laplacian of the card warped to vision's canonical size
  >= :data:`MIN_SHARPNESS`) and be re-identified at once by :mod:`vision.cards` among the
  references captured so far (a look-alike = warning, another card or nothing = fail).
- **look-alikes** (:func:`lookalike_checks`): reference pairs vision may confuse
  (:meth:`vision.cards.References.lookalikes`) are listed and warned about.
- **field** (:func:`field_zone`): the zone around every card shown, widened by
  :data:`FIELD_MARGIN` card widths (cards are thrown, not placed).
- **seats** (:func:`seat_boxes`, :func:`refine_seats`): one column per player above the
  play area, the boundaries moved to half-way between neighbours' shoulders as pose finds
  them; every seat's person must be found by pose.
- **channels** (:func:`find_utterances`, :func:`channel_map`): each seat says a test word
  in turn; its channel is the loudest one and must stand >= :data:`DOMINANCE_DB` above the
  median of the others (research: a close mic is >= 5 dB above the rest when its seat
  speaks); two seats on one channel fail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import cv2
import numpy as np

#: variance of the Laplacian (grey levels²) of a card warped to 150x225 below which its
#: image is too blurred for a reference. Measured: rendered demo cards 231-430, blurred 7x7
#: (a card moving during exposure) 58-80; real webcam cards (640x480, 48 images of
#: ../shared/data/cards/wmcnicho) 302 and up (median 1199) but for 2 (37, 67), all blurred 7x7 <= 116;
#: phone photos (52) >= 971. No latency cost (once per reference)
MIN_SHARPNESS = 150.0
#: a new card matching an already captured reference this well, the same way up, is that
#: card shown again (measured on the demo recording: the same card in two frames 0.78-1.0;
#: two different cards at most 0.83, the trouble cards sharing a frame). A repeat scoring
#: lower is not caught here but comes out as a look-alike warning of the two names
DUPLICATE_SCORE = 0.9
#: a seat's channel must be this many dB above the median of the other channels while its
#: player speaks (research: >= 5 dB with close mics)
DOMINANCE_DB = 5.0
#: the field zone is the cards' extent widened by this many card widths on every side
FIELD_MARGIN = 0.35
#: a reference image is the card's bounding box widened by this fraction on every side
#: (vision.cards finds the outline again in it, against the table)
REF_MARGIN = 0.15
#: change detection: frames reduced by this factor; grey difference counting as change;
#: the changed area must be at least this fraction of the image to be a card
DIFF_SCALE = 4
DIFF_LEVEL = 30
MIN_BLOB_FRACTION = 0.002
#: utterances: 20 ms frames in the voice band; a frame is speech when the loudest channel is
#: this far above the quiet level (10th percentile); gaps shorter than MERGE_S join; runs
#: shorter than MIN_UTTERANCE_S are clicks
SPEECH_DB = 15.0
FRAME_S = 0.02
MERGE_S = 0.3
MIN_UTTERANCE_S = 0.1
VOICE_BAND = (300.0, 4000.0)


@dataclass(frozen=True)
class Check:
    """One self-check: ``level`` ok / warn / fail, and what was found or what to fix."""

    step: str
    level: str
    message: str

    def __str__(self) -> str:
        mark = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}[self.level]
        return f"[{mark}] {self.step}: {self.message}"

    def to_dict(self) -> dict:
        return {"step": self.step, "level": self.level, "message": self.message}


def failed(checks: Sequence[Check]) -> list[Check]:
    return [c for c in checks if c.level == "fail"]


# ----------------------------------------------------------------------------- cards
def sharpness(image: np.ndarray, quad: np.ndarray) -> float:
    """Variance of the Laplacian of the card in ``quad``, warped to vision's canonical size
    (so the figure does not depend on how large the card is in the image)."""
    from vision.cards import warp_card

    face = cv2.cvtColor(warp_card(image, quad), cv2.COLOR_BGR2GRAY)
    return float(cv2.Laplacian(face, cv2.CV_64F).var())


def changed_box(image: np.ndarray, background: np.ndarray) -> tuple[int, int, int, int] | None:
    """The bounding box (full-image pixels) of the largest solid change against the empty
    table, or None. Thin changes (a person breathing, noise) are opened away."""
    s = DIFF_SCALE
    a = cv2.resize(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), None, fx=1 / s, fy=1 / s, interpolation=cv2.INTER_AREA)
    b = cv2.resize(cv2.cvtColor(background, cv2.COLOR_BGR2GRAY), None, fx=1 / s, fy=1 / s,
                   interpolation=cv2.INTER_AREA)
    diff = cv2.absdiff(a, b)
    mask = (diff > DIFF_LEVEL).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    if n <= 1:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h, area = stats[k]
    if area < MIN_BLOB_FRACTION * mask.size:
        return None
    return int(x * s), int(y * s), int((x + w) * s), int((y + h) * s)


def _widen(box, frac: float, width: int, height: int, min_px: int = 0) -> tuple[int, int, int, int]:
    x1, y1, x2, y2 = box
    mx = max(min_px, int(round((x2 - x1) * frac)))
    my = max(min_px, int(round((y2 - y1) * frac)))
    return max(0, x1 - mx), max(0, y1 - my), min(width, x2 + mx), min(height, y2 + my)


def find_card(image: np.ndarray, background: np.ndarray) -> np.ndarray | None:
    """The outline (TL, TR, BR, BL, full-image pixels) of the one card that lies where the
    image differs from the empty table, or None."""
    from vision.cards import squareness, find_card_outlines

    box = changed_box(image, background)
    if box is None:
        return None
    h, w = image.shape[:2]
    x1, y1, x2, y2 = _widen(box, 0.1, w, h, 8)
    quads = find_card_outlines(image[y1:y2, x1:x2], oblique=False)
    if not quads:
        return None
    area = (x2 - x1) * (y2 - y1)
    scored = [(cv2.contourArea(q) * squareness(q) ** 2, q) for q in quads if cv2.contourArea(q) < 0.9 * area]
    if not scored:
        return None
    best = max(scored, key=lambda sq: sq[0])[1]
    return (best + np.float32([x1, y1])).astype(np.float32)


def reference_crop(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The reference image of the card in ``quad``: its bounding box widened by
    :data:`REF_MARGIN` (the table around it lets vision find the outline again)."""
    h, w = image.shape[:2]
    x1, y1 = np.floor(quad.min(0)).astype(int)
    x2, y2 = np.ceil(quad.max(0)).astype(int)
    x1, y1, x2, y2 = _widen((int(x1), int(y1), int(x2), int(y2)), REF_MARGIN, w, h, 6)
    return image[y1:y2, x1:x2].copy()


@dataclass
class CardCapture:
    code: str
    image: np.ndarray | None  # the reference image to save (None: nothing usable)
    quad: np.ndarray | None  # where the card lay (full image)
    sharpness: float
    checks: list[Check] = field(default_factory=list)


def capture_reference(code: str, image: np.ndarray, quad: np.ndarray | None, captured: dict[str, np.ndarray],
                      again: np.ndarray | None = None) -> CardCapture:
    """Take ``code``'s reference from ``image`` (the card at ``quad``) and check it: sharp
    enough, and re-identified by vision.cards among ``captured`` (+ this one) in ``again``
    (another image of the same showing; default: ``image``)."""
    from vision.cards import References, recognise

    step = f"card {code}"
    if quad is None:
        return CardCapture(code, None, None, 0.0, [Check(
            step, "fail", "no card found: lay it face up, alone, flat in the play area, on a surface darker than "
                          "the card, and hold still")])
    sharp = sharpness(image, quad)
    crop = reference_crop(image, quad)
    cap = CardCapture(code, crop, quad, sharp)
    if sharp < MIN_SHARPNESS:
        cap.checks.append(Check(step, "fail", f"image too blurred (sharpness {sharp:.0f} < {MIN_SHARPNESS:.0f}): "
                                              f"hold the card still, focus the camera or add light"))
        return cap
    probe = reference_crop(again, quad) if again is not None else crop
    if captured:
        same = [m for m in recognise(probe, References.from_images(dict(captured)))
                if m.status == "ok" and not m.rotated and m.score >= DUPLICATE_SCORE]
        if same:
            cap.checks.append(Check(step, "fail", f"the same picture as {same[0].code} (score {same[0].score:.2f}): "
                                                  f"was {same[0].code} shown again? show {code}"))
            return cap
    refs = References.from_images({**captured, code: crop})
    ms = recognise(probe, refs)
    ok = [m for m in ms if m.status == "ok"]
    unc = [m for m in ms if m.status == "uncertain"]
    if ok and ok[0].code == code:
        cap.checks.append(Check(step, "ok", f"sharpness {sharp:.0f}, re-identified (score {ok[0].score:.2f}, "
                                            f"lead {ok[0].margin:.2f} over {ok[0].runner_up or 'none'})"))
    elif unc and code in (unc[0].code, unc[0].runner_up):
        other = unc[0].runner_up if unc[0].code == code else unc[0].code
        cap.checks.append(Check(step, "warn", f"looks like {other} (score {unc[0].score:.2f}, lead "
                                              f"{unc[0].margin:.2f}): the referee will call such a card uncertain, "
                                              f"never guess; nothing to fix if the printed cards are alike"))
    elif ok:
        cap.checks.append(Check(step, "fail", f"recognised as {ok[0].code}, not {code}: was {code} the card shown? "
                                              f"show it again, alone"))
    else:
        cap.checks.append(Check(step, "fail", "not re-identified from its own reference: show it flat, alone, "
                                              "without glare"))
    return cap


def lookalike_checks(captured: dict[str, np.ndarray]) -> tuple[list[tuple[str, str, float]], list[Check]]:
    """Reference pairs vision may confuse, and a warning per pair."""
    from vision.cards import References

    if len(captured) < 2:
        return [], []
    pairs = References.from_images(dict(captured)).lookalikes()
    checks = [Check("look-alikes", "warn", f"{a} and {b} look alike (score {s:.2f}): such a card may be reported "
                                           f"uncertain") for a, b, s in pairs]
    if not pairs:
        checks.append(Check("look-alikes", "ok", f"no two of the {len(captured)} references look alike"))
    return pairs, checks


def field_zone(quads: Sequence[np.ndarray], width: int, height: int,
               margin: float = FIELD_MARGIN) -> tuple[int, int, int, int] | None:
    """The IKATAKO field: the extent of every card shown, widened by ``margin`` card widths."""
    if not quads:
        return None
    pts = np.concatenate([np.asarray(q, np.float32).reshape(-1, 2) for q in quads])
    card_w = float(np.median([min(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0])) for q in quads]))
    m = int(round(margin * card_w))
    x1, y1 = np.floor(pts.min(0)).astype(int) - m
    x2, y2 = np.ceil(pts.max(0)).astype(int) + m
    return max(0, int(x1)), max(0, int(y1)), min(width, int(x2)), min(height, int(y2))


# ----------------------------------------------------------------------------- seats
PoseFn = Callable[[np.ndarray, tuple[int, int, int, int]], object]


def default_pose(image: np.ndarray, box: tuple[int, int, int, int]):
    """MediaPipe pose (still-image mode) on one seat box: landmarks or None."""
    from vision.hands import PoseEstimator

    est = PoseEstimator(box, video=False)
    try:
        return est.estimate(image)
    finally:
        est.close()


def seat_boxes(n: int, width: int, bottom: int) -> list[tuple[int, int, int, int]]:
    """``n`` equal columns from the top of the image down to ``bottom``."""
    edges = [int(round(width * i / n)) for i in range(n + 1)]
    return [(edges[i], 0, edges[i + 1], bottom) for i in range(n)]


def refine_seats(image: np.ndarray, names: Sequence[str], bottom: int,
                 pose: PoseFn = default_pose) -> tuple[list[tuple[int, int, int, int]], list[Check]]:
    """Seat boxes for ``names`` (left to right in the image) above row ``bottom``: pose on
    equal columns finds each person's shoulders; boundaries go half-way between neighbours;
    pose must find every person again in their final box."""
    h, w = image.shape[:2]
    boxes = seat_boxes(len(names), w, bottom)
    centres: list[float | None] = []
    for b in boxes:
        lm = pose(image, b)
        if lm is None:
            centres.append(None)
        else:
            centres.append((lm["left_shoulder"].x + lm["right_shoulder"].x) / 2)
    if all(c is not None for c in centres) and all(a < b for a, b in zip(centres, centres[1:])):
        edges = [0] + [int(round((a + b) / 2)) for a, b in zip(centres, centres[1:])] + [w]
        boxes = [(edges[i], 0, edges[i + 1], bottom) for i in range(len(names))]
    checks = []
    for name, b in zip(names, boxes):
        lm = pose(image, b)
        if lm is None:
            checks.append(Check(f"seat {name}", "fail", f"nobody found by pose in {list(b)}: sit facing the camera "
                                                        f"with head, shoulders and both hands in view"))
        else:
            checks.append(Check(f"seat {name}", "ok", f"person found in {list(b)} (shoulders at x "
                                                      f"{lm['left_shoulder'].x:.0f}/{lm['right_shoulder'].x:.0f})"))
    return boxes, checks


# ----------------------------------------------------------------------------- channels
def _band_energy(samples: np.ndarray, rate: int) -> np.ndarray:
    """Mean voice-band power per :data:`FRAME_S` frame and channel: [frames, channels]."""
    from scipy import signal

    x = np.asarray(samples, np.float64)
    if x.ndim == 1:
        x = x[:, None]
    hi = min(VOICE_BAND[1], 0.45 * rate)
    sos = signal.butter(4, [VOICE_BAND[0], hi], btype="bandpass", fs=rate, output="sos")
    y = signal.sosfiltfilt(sos, x, axis=0)
    n = int(FRAME_S * rate)
    frames = len(y) // n
    return (y[: frames * n] ** 2).reshape(frames, n, -1).mean(axis=1)


def find_utterances(samples: np.ndarray, rate: int) -> list[tuple[int, int]]:
    """(start, end) sample indices of the utterances on any channel, in time order."""
    e = _band_energy(samples, rate)
    if len(e) == 0:
        return []
    level = 10 * np.log10(e.max(axis=1) + 1e-12)
    quiet = float(np.percentile(level, 10))
    loud = level > quiet + SPEECH_DB
    runs: list[list[int]] = []
    for i in np.flatnonzero(loud):
        if runs and i - runs[-1][1] <= MERGE_S / FRAME_S:
            runs[-1][1] = i + 1
        else:
            runs.append([i, i + 1])
    n = int(FRAME_S * rate)
    return [(a * n, b * n) for a, b in runs if (b - a) * FRAME_S >= MIN_UTTERANCE_S]


def channel_levels(samples: np.ndarray, rate: int, span: tuple[int, int]) -> np.ndarray:
    """Each channel's voice-band level (dB) over ``span``."""
    e = _band_energy(samples[span[0]:span[1]], rate)
    return 10 * np.log10(e.mean(axis=0) + 1e-12)


def channel_map(samples: np.ndarray, rate: int, names: Sequence[str],
                spans: Sequence[tuple[int, int]] | None = None) -> tuple[dict[str, int | None], list[Check]]:
    """Which channel is each seat's: the players said a test word in seat order (one
    utterance each, ``spans`` or found by :func:`find_utterances`). A seat's channel is its
    word's loudest as recorded; it is checked with the microphones evened out
    (:func:`seat_corrections`): its word :data:`DOMINANCE_DB` above the other channels'
    median, and every neighbour's word that much below its own on it."""
    x = np.asarray(samples, np.float32)
    if x.ndim == 1:
        x = x[:, None]
    spans = list(spans) if spans is not None else find_utterances(x, rate)
    out: dict[str, int | None] = {n: None for n in names}
    if len(spans) != len(names):
        times = ", ".join(f"{a / rate:.1f} s" for a, _ in spans) or "none"
        return out, [Check("channels", "fail", f"heard {len(spans)} utterances ({times}), expected one test word "
                                               f"per seat ({len(names)}) in seat order: say them again, one at a "
                                               f"time, in a quiet room")]
    checks = []
    if x.shape[1] < len(names):
        checks.append(Check("channels", "warn", f"{x.shape[1]} channels for {len(names)} seats: some seats share "
                                                f"a microphone (no one can be told apart on it)"))
    owner: dict[int, str] = {}
    heard = [channel_levels(x, rate, span) for span in spans]
    even = seat_corrections(x, [int(np.argmax(lv)) for lv in heard])
    for k, (name, span, lv) in enumerate(zip(names, spans, heard)):
        ch = int(np.argmax(lv))  # (the seat's channel: its loudest as recorded)
        lv = lv + even  # (its dominance: the microphones evened out, as the hearing hears them)
        others = np.delete(lv, ch)
        # the neighbours' words on this channel against its own seat's (evened: a microphone
        # far from its player hears them nearly as loud as its player; one turned down does not)
        near = max((float(heard[m][ch] + even[ch]) for m in range(len(heard)) if m != k), default=float("-inf"))
        dom = float(lv[ch] - np.median(others)) if len(others) else float("inf")
        step = f"channel {name}"
        where = f"at {span[0] / rate:.2f} s"
        if ch in owner:
            checks.append(Check(step, "fail", f"{where}: loudest on channel {ch}, which is already {owner[ch]}'s: "
                                              f"each seat needs its own microphone close to the player"))
            continue
        owner[ch] = name
        out[name] = ch
        if len(others) and dom < DOMINANCE_DB:
            checks.append(Check(step, "fail", f"{where}: channel {ch} only {dom:.1f} dB above the others' median "
                                              f"(< {DOMINANCE_DB:.0f} dB): move the microphone closer to {name} "
                                              f"or away from the neighbours"))
        elif lv[ch] - near < DOMINANCE_DB:
            checks.append(Check(step, "fail", f"{where}: channel {ch} hears a neighbour's word only "
                                              f"{float(lv[ch] - near):.1f} dB below {name}'s own (< {DOMINANCE_DB:.0f} "
                                              f"dB): move the microphone closer to {name} or away from the neighbours"))
        else:
            checks.append(Check(step, "ok", f"{where}: channel {ch}, {dom:.1f} dB above the others' median"))
    return out, checks


def seat_corrections(samples: np.ndarray, channels: Sequence[int | None]) -> np.ndarray:
    """Per channel of ``samples``, the correction (dB) that ``audio.gains`` gives the seats'
    ``channels`` on this recording (the microphones evened out to one speech level, as
    ``audio.leakage.gains_db`` stores and every replay applies); 0 for a channel no seat uses.
    The channel and cross-talk checks compare levels after it: a microphone whose input knob
    is turned low is not a microphone far from its player (a seat 9 dB down at the demo table,
    where a neighbour leaks at -10 dB, stood 1 dB above the others' median as recorded)."""
    from audio.gains import gains_db

    x = np.asarray(samples)
    out = np.zeros(1 if x.ndim == 1 else x.shape[1])
    seats = sorted({c for c in channels if c is not None and 0 <= c < len(out)})
    if len(seats) >= 2:
        out[seats] = gains_db(x[:, seats])
    return out


def crosstalk_db(samples: np.ndarray, rate: int, channels: Sequence[int | None],
                 spans: Sequence[tuple[int, int]] | None = None) -> float | None:
    """The table's seat-to-seat leakage in dB (e.g. -10): while each seat says its test word
    (seat order, as :func:`channel_map`), the loudest other channel against the seat's own;
    the worst seat counts (the onset detector must allow for the worst neighbour). None when
    a seat's channel is unknown, the utterances do not match the seats, or one channel."""
    x = np.asarray(samples, np.float32)
    if x.ndim == 1 or x.shape[1] < 2 or any(c is None for c in channels):
        return None
    spans = list(spans) if spans is not None else find_utterances(x, rate)
    if len(spans) != len(channels):
        return None
    even = seat_corrections(x, channels)  # (the leak between microphones evened out, as it is heard)
    worst = max(float(np.delete(lv, ch).max() - lv[ch])
                for ch, lv in ((c, channel_levels(x, rate, sp) + even) for c, sp in zip(channels, spans)))
    return round(min(worst, -0.1), 1)


# ----------------------------------------------------------------------------- audio-video offset
#: audio onset of the slap: the first sample louder than this many times the noise (RMS of
#: the first :data:`ONSET_NOISE_S`), and at least :data:`ONSET_FLOOR` full scale
ONSET_FACTOR = 8.0
ONSET_NOISE_S = 0.2
ONSET_FLOOR = 0.02
#: a slap slower than this (pixels per second before contact) times its contact poorly
#: (the interpolation error is about one pixel / speed): the check warns
MIN_SLAP_SPEED = 150.0
#: an offset beyond this (seconds) is implausible for a webcam and an audio interface
#: (50-150 ms and 5-40 ms of latency): the check warns that the slap was probably missed
PLAUSIBLE_AV_OFFSET = 0.4


def audio_onset(samples: np.ndarray, rate: int) -> float | None:
    """Time (s) of the first sample of the slap's sound in a mono or multi-channel take (the
    loudest channel per sample), or None (nothing above the noise)."""
    x = np.abs(np.asarray(samples, np.float64))
    if x.ndim > 1:
        x = x.max(axis=1)
    n0 = max(1, int(ONSET_NOISE_S * rate))
    noise = float(np.sqrt(np.mean(x[:n0] ** 2))) if len(x) > n0 else 0.0
    level = max(ONSET_FLOOR, ONSET_FACTOR * noise)
    hits = np.nonzero(x[n0:] > level)[0]
    return None if not len(hits) else (n0 + int(hits[0])) / rate


def av_offset(frames, samples: np.ndarray, rate: int, box=None) -> tuple[float | None, list[Check]]:
    """The audio-video offset (video time of the slap's contact minus its audio onset, in
    seconds; see :mod:`vision.contact`) from a take of one slap, and its self-check."""
    from vision.contact import contact_time

    c = contact_time(frames, box)
    onset = audio_onset(samples, rate)
    if c is None:
        return None, [Check("av offset", "warn", "no slap seen: slap the table once with a flat hand, inside the "
                                                 "play area, from a hand's height; the offset is left unmeasured (0)")]
    if onset is None:
        return None, [Check("av offset", "warn", "the slap was seen but not heard: slap harder, near a microphone; "
                                                 "the offset is left unmeasured (0)")]
    off = round(c.t - onset, 4)
    return off, av_offset_checks(off, c.speed)


#: what the guided calibration says of the audio-video offset: the live referee needs none
LIVE_CLOCKS = ("live play needs none: every camera frame and every audio block is stamped at capture on one "
               "clock (the camera driver's and the audio ADC's times; the record's header says which); a "
               "recording made with another program is calibrated from its own slap (--from-video)")


def av_offset_checks(offset: float | None, speed: float | None = None) -> list[Check]:
    """What the self-check says about a measured (or missing) audio-video offset."""
    if offset is None:
        return [Check("av offset", "warn", "not measured: audio and video times are compared as they are "
                                           "(a webcam is often 50-150 ms late)")]
    where = "behind" if offset >= 0 else "ahead of"
    checks = [Check("av offset", "ok", f"video {abs(offset) * 1000:.0f} ms {where} audio; applied to every shout")]
    if abs(offset) > PLAUSIBLE_AV_OFFSET:
        checks = [Check("av offset", "warn", f"video {abs(offset) * 1000:.0f} ms {where} audio: implausibly large "
                                             f"(> {PLAUSIBLE_AV_OFFSET * 1000:.0f} ms); was the slap missed? slap again")]
    if speed is not None and speed < MIN_SLAP_SPEED:
        checks.append(Check("av offset", "warn", f"the slap was slow ({speed:.0f} px/s < {MIN_SLAP_SPEED:.0f}): "
                                                 f"its time is uncertain by about {1000 / max(speed, 1):.0f} ms; "
                                                 f"slap faster"))
    return checks


# ----------------------------------------------------------------------------- camera for the deck
#: a card whose short side is fewer pixels than this in the camera's picture is too small
#: for the deck. Measured: the demo's cards at 640x360 (about 35x50 px) are read 10/10 (after
#: the small-zone search); at 25 px the rank index is 3-4 px high
MIN_CARD_PX = 32
#: a camera picture narrower than this (pixels) is too coarse for faces and pose together
MIN_CAMERA_WIDTH = 640


def camera_checks(width: int, height: int, quads: Sequence[np.ndarray], sharp: Sequence[float]) -> list[Check]:
    """Whether the camera's resolution and sharpness suit the deck: the cards shown at
    calibration must be at least :data:`MIN_CARD_PX` on their short side, their median
    sharpness at least twice :data:`MIN_SHARPNESS` (a margin for the compression of a
    live stream), and the picture at least :data:`MIN_CAMERA_WIDTH` wide."""
    checks = []
    if width < MIN_CAMERA_WIDTH:
        checks.append(Check("camera", "warn", f"{width}x{height} is below {MIN_CAMERA_WIDTH} px wide: set the "
                                              f"camera to 640x480 or more (1280x720 is better)"))
    if quads:
        short = sorted(min(float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[3] - q[0]))) for q in quads)
        small = short[0]
        if small < MIN_CARD_PX:
            checks.append(Check("camera", "warn", f"the smallest card is {small:.0f} px across (< {MIN_CARD_PX}): "
                                                  f"move the camera closer, zoom in or raise the resolution"))
        else:
            checks.append(Check("camera", "ok", f"cards {small:.0f}-{short[-1]:.0f} px across at {width}x{height}"))
    if sharp:
        med = float(np.median(sharp))
        if med < 2 * MIN_SHARPNESS:
            checks.append(Check("camera", "warn", f"cards are barely sharp (median sharpness {med:.0f} < "
                                                  f"{2 * MIN_SHARPNESS:.0f}): focus the camera, add light, or "
                                                  f"raise the resolution; compression will blur them further"))
    return checks

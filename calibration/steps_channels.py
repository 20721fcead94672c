"""The calibration's microphone steps: each seat's test word found, its channel the loudest by a
margin, the channels' gains evened and the cross-talk measured (:mod:`calibration.steps`)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from calibration.steps_check import Check


#: a seat's channel must be this many dB above the median of the other channels while its
#: player speaks (research: >= 5 dB with close mics)
DOMINANCE_DB = 5.0
#: utterances: 20 ms frames in the voice band; a frame is speech when the loudest channel is
#: this far above the quiet level (10th percentile); gaps shorter than MERGE_S join; runs
#: shorter than MIN_UTTERANCE_S are clicks
SPEECH_DB = 15.0
FRAME_S = 0.02
MERGE_S = 0.3
MIN_UTTERANCE_S = 0.1
VOICE_BAND = (300.0, 4000.0)


def band_energy(samples: np.ndarray, rate: int) -> np.ndarray:
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
    e = band_energy(samples, rate)
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
    e = band_energy(samples[span[0]:span[1]], rate)
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


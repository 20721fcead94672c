"""The calibration's audio-video offset: the slap heard and seen, and what the checks say of it
(:mod:`calibration.steps`)."""

from __future__ import annotations

import numpy as np

from calibration.steps_check import Check


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


"""Microphones of different gains heard at one level: each channel scaled so that its seat's
own speech stands where the others' does.

Why: every test that compares one channel with another — the solo test of the leak estimate
(``audio.demix``: a seat 8 dB above every other channel), the onset detector's dominance and
leak allowances, the trimming listener's dominance (``audio.trim``) — reads raw levels. With
the input knobs of a real interface set ±12 dB apart (``benchmarks/table_sim.py``), a quiet
microphone's own shout stands under its neighbours' leak on their hot microphones: the seat is
never heard alone at calibration (its leak paths are never measured) and never dominates in the
session (simulated tables, seed 31, no cancellation: 0 shouts detected of the seats 5–12 dB
down). Measured on the calibration recording, where every seat speaks in turn: each channel's
``percentile`` frame level is its own seat's loudest speech (a close microphone hears its own
seat 10 dB or more above a neighbour), and the channels are scaled to their median.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from session.params import check_ranges


@dataclass(frozen=True)
class GainParams:
    """When and how the microphones' levels are evened out (calibration recording)."""

    #: the frame level (32 ms frames, ``audio.demix.frame_levels``) taken as a channel's own
    #: seat's speech level. Lower: more of the channel's quiet frames in it (leak, room noise);
    #: higher: one loud click or clipped word sets the channel's level.
    percentile: float = 99.0
    #: the channels are evened out only when their levels spread more than this (dB, max − min).
    #: Below it the raw channels are heard as before (the rendered demo spreads 1–2 dB). Lower:
    #: more tables scaled (a few dB moves the cross-channel tests' margins); higher: tables with
    #: mismatched microphones left unheard.
    min_spread_db: float = 6.0
    #: each correction rounded to this step (dB): the same recording scales the same on every
    #: computer (no last-bit float noise reaches the samples). Cost: up to half a step of
    #: level left between channels; larger steps leave more.
    step_db: float = 0.1

    def __post_init__(self):
        check_ranges(self, non_negative=("min_spread_db",), positive=("step_db",))
        if not 50.0 <= self.percentile <= 100.0:
            raise ValueError(f"GainParams.percentile must be in [50, 100], got {self.percentile!r}")


def channel_levels_db(samples: np.ndarray, params: GainParams | None = None) -> list[float]:
    """Each channel's ``percentile`` frame level (dB) of ``samples[samples, channels]``,
    rounded to 0.01 dB (what is compared with thresholds)."""
    from audio.demix import frame_levels

    p = params or GainParams()
    return [round(float(np.percentile(frame_levels(samples[:, k]), p.percentile)), 2) for k in range(samples.shape[1])]


def gains_db(samples: np.ndarray, params: GainParams | None = None) -> list[float]:
    """The correction (dB, multiples of ``step_db``) that brings each channel of the
    calibration recording ``samples`` to the channels' median level; all 0.0 when the levels
    spread no more than ``min_spread_db`` (or one channel)."""
    p = params or GainParams()
    if samples.ndim != 2 or samples.shape[1] < 2 or not len(samples):
        return [0.0] * (samples.shape[1] if samples.ndim == 2 else 1)
    levels = channel_levels_db(samples, p)
    if round(max(levels) - min(levels), 2) <= p.min_spread_db:
        return [0.0] * len(levels)
    ref = float(np.median(levels))
    return [round(round((ref - v) / p.step_db) * p.step_db, 6) for v in levels]



@dataclass(frozen=True)
class DriftParams:
    """When a replay finds the microphones turned up or down since calibration, and anchors the
    seats on the session's level (:func:`drifted_levels`)."""

    #: when the channels' loud speech levels on the session (each its 99th-percentile frame
    #: level, :func:`channel_levels_db`, as ``GainParams.percentile``) stand, at their median,
    #: more than this (dB) away from the calibration recording's, every seat's speech level is
    #: moved by that median: the interface's gain turned since calibration. The onset detector
    #: starts a word only within ``OnsetParams.own_level_db`` (-10 dB) of that level and ends it
    #: ``end_level_db`` under it, so microphones 12 dB quieter than at calibration have their
    #: words cut. Lower: louder or softer shouting than at calibration moves the anchors (and
    #: with them the onsets); higher: a larger turn cuts words first.
    follow_db: float = 6.0

    def __post_init__(self):
        check_ranges(self, positive=("follow_db",))


def drifted_levels(levels: list[float | None], calibrated_loud: list[float], session_loud: list[float],
                   params: DriftParams | None = None) -> tuple[list[float | None], float | None]:
    """The seats' speech ``levels`` (calibrated), all moved by the channels' median drift —
    each channel's loud speech level on the session (``session_loud``,
    :func:`channel_levels_db`) against the calibration recording's (``calibrated_loud``) — when
    it stands more than ``follow_db`` away; with that drift (dB, rounded to 0.1), or None when
    the levels stand. The median, not each channel's own: a seat that hardly spoke in a session
    leaves its channel's loud level to its neighbours' leak (measured 6–8 dB "down" on simulated
    tables whose microphones never moved), and one clap on a channel does not move the median."""
    p = params or DriftParams()
    drifts = [own - cal for cal, own in zip(calibrated_loud, session_loud)]
    if not drifts:
        return list(levels), None
    drift = round(float(np.median(drifts)), 2)
    if abs(drift) <= p.follow_db:
        return list(levels), None
    return [None if v is None else round(v + drift, 2) for v in levels], round(drift, 1)

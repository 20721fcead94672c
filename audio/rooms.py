"""Enrolled takes heard through rooms: each take also as a reverberant room would carry it
(issue 31 item 4).

A player's enrollment takes are recorded where the calibration was. When the session's own
cross-talk says it was recorded elsewhere — its leak paths cancel much less deep than the
calibration's (:func:`audio.demix.other_room`: a reverberant room the calibration did not
hear) — a word's echo lengthens and smears it, and both enrolled engines lose it (the demo
under RT60 0.3 s: the templates 5.2-6.7 from the right call, past ``Enrollment.max_distance``
5.0, where the dry demo is 1.5-4.7). The hearing then enrols each take a second time per room
response below (:func:`reverberant`): the same take convolved with a synthetic response — the
direct path, then seeded white noise decaying by 60 dB over the room's RT60 — so that a
reverberant word has a reverberant take to be near.

The responses are chosen a priori, not on any recording: :data:`ROOMS`. Cost: each such
take is one more template per call, for both engines, so in such a session the templates'
DTW runs ``1 + len(ROOMS)`` times per utterance; a session heard as calibrated is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from session.params import check_ranges


@dataclass(frozen=True)
class RoomParams:
    """One synthetic room response: its reverberation time and direct-to-reverberant ratio."""

    #: the time the tail takes to decay by 60 dB (s). Longer: the take smeared more.
    rt60_s: float
    #: the direct path's energy over the tail's (dB). Lower: more echo.
    drr_db: float
    #: the noise tail's seed (the same responses on every computer and every run)
    seed: int

    def __post_init__(self):
        check_ranges(self, positive=("rt60_s",), finite=("drr_db",))


#: The rooms each take is also heard through. A priori: the middle and the top of issue 31's
#: rooms (RT60 0.2-0.8 s, as ``benchmarks/table_sim.py`` draws them), each at 8 dB direct to
#: reverberant — Sabine's critical distance of a 60 m³ room at RT60 0.5 s is 0.62 m, and a
#: close microphone 25 cm from the mouth (table_sim's 15-40 cm) then hears its player 8 dB
#: over the room. Not chosen on the demo or on the simulated tables.
ROOMS = (RoomParams(0.5, 8.0, 101), RoomParams(0.8, 8.0, 102))


def response(room: RoomParams, rate: int) -> np.ndarray:
    """The room's impulse response at ``rate``: 1 (the direct path), then seeded white noise
    decaying by 60 dB over ``rt60_s`` (to 1.2 x rt60), its energy ``drr_db`` under the direct
    path's."""
    n = int(round(1.2 * room.rt60_s * rate))
    t = np.arange(n) / rate
    tail = np.random.default_rng(room.seed).standard_normal(n) * np.exp(-np.log(1000.0) * t / room.rt60_s)
    tail[0] = 0.0
    tail *= np.sqrt(10 ** (-room.drr_db / 10) / np.sum(tail ** 2))
    tail[0] = 1.0
    return tail


def reverberant(samples: np.ndarray, rate: int, rooms: tuple[RoomParams, ...] = ROOMS) -> list[np.ndarray]:
    """``samples`` (a take trimmed to its word) heard through each of ``rooms``: the word and
    its echo's tail (the convolution's full length), one array per room."""
    from scipy.signal import fftconvolve

    x = np.asarray(samples, dtype=np.float64)
    return [fftconvolve(x, response(room, rate)).astype(np.float32) for room in rooms]


#: In a session in another room (the takes heard through :data:`ROOMS` too), the speech
#: embedding's distance cap (cosine-DTW, 0-2; its own cap is
#: ``EmbeddingEnrollment.max_distance``, 0.075) for a word said **while a neighbour speaks**
#: (``Listener.neighbour_speaks``: another channel stands ``ListenParams.own_db`` above what the
#: session's measured leaks leave in it), taken only where neither engine is sure, the DTW
#: templates lean to the same call and the embedding's own margin test passes.
#: Why (docs/hearing.md, "2026-12-07 (stop 52)"): a neighbour's voice and its echo in the
#: word's span — which the dry takes and their room copies never had — move the word away from
#: every take, its own call's too; the demo's aki's タコ (RT60 0.3 s) and イカ (0.6 s) lay
#: 0.0756 and 0.085 from their own takes, margins 0.031 and 0.023, unheard. A word said with no
#: neighbour keeps the enrollment's cap: there, on real voices, a wider cap named "zero"s and
#: "one"s as calls. Chosen on george, jackson and lucas (``benchmarks/bench_room_words.py``),
#: reported on nicolas, theo and yweweler: 547 -> 585 right, 42 -> 42 wrong of 1008 cases.
#: Cost: a non-call said under a neighbour's word that lies within this cap of a call and that
#: the templates lean to is taken as that call.
OVERLAPPED_MAX_DISTANCE = 0.1

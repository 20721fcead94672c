"""A physically simulated table for hearing (issue 31, item 1).

    python benchmarks/table_sim.py [--quick] [--scenarios quiet,white,...,outside] [--tables N]
                                   [--moments N] [--outside-limit N] [--seed S] [--hearing listen|replay]
                                   [--outside-words digits|zero] [--outside-enroll-takes 2|3]
                                   [--outside-ear both|fill|agree|fill+agree]
                                   [--ear-thresholds MAX_DISTANCE,MIN_MARGIN]
                                   [--json] [--save FILE]

Real voices (``../shared/data/speech``, read in place: nothing read there, nor anything made
from it, is written into the repository; the simulated recordings live in a temporary folder
deleted at the end) are placed in simulated rooms and heard by the project's hearing exactly as
``referee listen`` hears a recording: :func:`referee.listening.listen_table` (the library call of
``referee/commands/listen.py``) on a multi-channel WAV, one close microphone per seat, with
``--demix-from`` a calibration recording simulated in the same room (each player speaking
alone), IKATAKO co-op in English (every total 1..154 is a call), no enrolled voices (Whisper
base decides every word). ``--hearing replay`` hears the room scenarios as ``referee replay``
hears a session instead (:func:`hear_as_replay`: resampled to 16 kHz, the calibration's
leakage with the session-side checks, the trimming listener with the seats' speech levels and
leak allowances), which ``referee listen --demix-from`` does not use.

**Voices.** The shouts are the FSDD English digits "two" … "nine" (``labels.csv``
kind=keyword: 3 speakers, george, jackson, lucas, 80 clips each). Non-game talk: the same
speakers' "zero" and the real Japanese words of ``tofugu`` (one half of them, seeded: the
other half and the ReazonSpeech sentences make the babble, so no clip is both talk and
babble). No synthetic voice is used.

**Speaker split.** The benchmark chooses no threshold and tunes nothing: it measures the
hearing as shipped (whose Whisper settings were tuned on half of these FSDD clips, split by a
hash of the file name, see ``benchmarks/bench_hearing.py``). It reports each figure per
speaker (leave-one-speaker-out folds degenerate to per-speaker rows when nothing is chosen on
the other two), so any speaker can be read as held out.

Scenarios (``--scenarios``; default all):

* ``quiet``: a table in a room, the microphones' own hiss only (:data:`MIC_HISS_DBFS`).
* ``white``, ``pink``: independent noise at each microphone, each microphone its own SNR drawn
  from :data:`SNR_RANGE_DB` against its own player's speech level at that microphone.
* ``babble``: :data:`BABBLE_TALKERS` real recorded voices (the babble half of the Japanese
  clips) looped and summed, played from one point in the room (:data:`NOISE_SOURCE_FROM_TABLE_M`
  from the table), rendered to every microphone, scaled per microphone to its SNR.
* ``music``: music-like noise synthesized here: a sequence of major/minor triads with a bass
  note (each note :data:`MUSIC_PARTIALS` harmonics falling 1/k, a plucked decay), one chord per
  :data:`MUSIC_CHORD_S`; played and scaled like the babble.
* ``outside``: issue 31's construction from outside, no room, **per speaker**: a speaker's 80
  digit clips ("2" ... "9", takes :data:`OUTSIDE_SHOUT_TAKES`) laid :data:`OUTSIDE_GAP_S` apart
  on one continuous channel after :data:`OUTSIDE_LEAD_S`, a white floor at
  :data:`OUTSIDE_FLOOR_DBFS` always present; the noisy pass adds white noise from the first
  sample, :data:`OUTSIDE_SNR_DB` below the median RMS of the clips' active samples (the clips
  as recorded: not levelled); each channel a mono 16 kHz WAV heard as one seat
  (``referee listen``), not enrolled and enrolled (``--enroll``: the speaker's own takes
  :data:`OUTSIDE_ENROLL_TAKES` of every digit, never shouted: the first 2 or 3 of them,
  ``--outside-enroll-takes``, default as ``referee calibrate --enroll-takes``). Speakers: the six of the Free
  Spoken Digit Dataset, george, jackson, lucas from ``../shared/data/speech`` and nicolas,
  theo, yweweler from a mirror of the dataset read in place (``--fsdd DIR`` or
  ``$FSDD_MIRROR``: a bare git directory of Jakobovski/free-spoken-digit-dataset, CC BY-SA
  4.0; the clips are written to the temporary folder only). Without the mirror: the three
  shared speakers, not enrolled, and a line saying so. Each shout's loss is split
  (:func:`loss`): not detected / cut or merged / another call (sure: the judge acts on it;
  unsure: the player is unclear) / no call. ``--outside-words zero``: each speaker's ten
  "zero"s instead (no call of the game: a call the judge acts on is a false alarm).
  ``--outside-ear RULE``: every channel not enrolled is heard as shipped and then with the
  synthetic ear beside the speech model (:mod:`audio.synthetic_ear`, not wired in the hearing),
  in the same run, one after the other: the rows say ``ear:RULE``.

A table (:func:`plan_table`): a room :data:`ROOM_SIDE_M` wide and long, RT60 from
:data:`RT60_RANGE_S`; :data:`SEAT_RANGE` seats round a table, each player's mouth seated at
:data:`MOUTH_HEIGHT_M`, a close microphone :data:`MIC_DISTANCE_M` from it towards the table;
every voice rendered to every microphone (the leaks are the room's). Room responses
(:func:`room_irs`): pyroomacoustics' image-source model with the inverse-Sabine absorption of
the room's RT60, to :data:`ISM_MAX_ORDER` reflections (the early part, true to the geometry),
plus a seeded exponential late tail of the requested RT60 (the image-source model alone, at the
order inverse Sabine asks, took up to 40 s per table and overshot the RT60 by up to 50 %;
pyroomacoustics' ray tracer is not seedable). The microphones: gain :data:`GAIN_RANGE_DB`,
band-pass from :data:`MIC_BANDS_HZ`, written at a rate from :data:`RATES` (resampled from the
rendering's 16 kHz). The table plays :data:`MOMENTS` moments :data:`MOMENT_GAP_S` apart: one
digit shout, two shouts :data:`OVERLAP_S` apart (:data:`P_TWO`), or non-game talk
(:data:`P_TALK`). Seats beyond the three digit speakers are Japanese talkers (talk only).

Scoring (:func:`score_table`): a shout is *detected* when a shout event on its speaker's own
seat has its onset :data:`MATCH_WINDOW_S` from the truth (each truth and each event used once,
closest first); *right* when that event's words are exactly the digit; the onset error is the
event's time minus the truth (the clean clip's first 10 ms frame within 30 dB of its loudest,
plus the direct path's delay to its own microphone). *Bystander false attributions*: events on
another seat within the window of a shout that no truth of that seat explains. *False alarms on
non-game talk*: a talk item with an unexplained event carrying a call from its onset -0.15 s to
its end +0.3 s, on any seat. *Stray*: other unexplained events.

Prints the counts (N everywhere), per scenario, per speaker, per SNR, RT60 and rate, the run
time and the load average at start and end; ``--json`` the same as one JSON object. Seeded:
the same arguments give the same channels (and, on one machine, the same figures).
``--quick``: a smoke run (one small table per scenario, 8 outside clips per speaker).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.noises import pink, unit, white  # noqa: E402  (pink at 16 kHz, this RATE)
import rules  # noqa: E402
from calibration.enroll_takes import DEFAULT_TAKES, TAKES_RANGE  # noqa: E402  (takes per call, as calibrate asks)

#: ../shared/data/speech beside the repository (a worktree finds it further up)
SPEECH = next((p / "shared" / "data" / "speech" for p in ROOT.parents if (p / "shared" / "data" / "speech").is_dir()),
              ROOT.parent / "shared" / "data" / "speech")

# ----------------------------------------------------------------- the knobs
RATE = 16000  #: the rendering's rate (the clips are 8 and 16 kHz; the hearing's own rate)
SEED = 31  #: issue 31
SOUND_SPEED = 343.0  #: m/s (the direct path's delay in the truth)
ROOM_SIDE_M = (3.0, 8.0)  #: a room's width and length are drawn from this range
ROOM_HEIGHT_M = (2.4, 3.0)  #: and its height from this
RT60_RANGE_S = (0.2, 0.8)  #: the room's reverberation time is drawn from this
SEAT_RANGE = (3, 6)  #: seats per table (inclusive)
MOUTH_RADIUS_M = (0.55, 0.85)  #: the players' mouths on a circle this far from the table's centre
MOUTH_HEIGHT_M = (1.10, 1.30)  #: seated mouths this high
MIC_DISTANCE_M = (0.15, 0.40)  #: each close microphone this far from its player's mouth
MIC_DROP = 0.5  #: the microphone lies from the mouth towards the table, this much downward per unit forward
WALL_MARGIN_M = 0.5  #: no mouth, microphone or noise source nearer a wall than this
ISM_MAX_ORDER = 10  #: image-source reflections rendered (the early part)
TAIL_FROM_S = 0.030  #: the late tail starts this long after the direct path
TAIL_MATCH_S = 0.020  #: the tail's level is the image-source response's over this long before it
TAIL_LENGTH_RT60 = 1.2  #: the response is this many RT60 long (> 60 dB of decay)
GAIN_RANGE_DB = (-12.0, 12.0)  #: each microphone's gain is drawn from this
MIC_BANDS_HZ = ((100.0, 4000.0), (100.0, 7000.0))  #: cheap microphones' band-pass (one drawn per microphone)
RATES = (16000, 44100, 48000)  #: the interface's rate (one per table, in turn)
SPEECH_DBFS = -28.0  #: the median own-microphone shout level (active RMS) before each microphone's gain
MIC_HISS_DBFS = -70.0  #: every microphone's own hiss (white, RMS) after its gain
SNR_RANGE_DB = (0.0, 30.0)  #: noise scenarios: each microphone's SNR is drawn from this
SNR_BUCKETS_DB = (10.0, 20.0)  #: the SNR report's bucket edges
RT60_BUCKETS_S = (0.4, 0.6)  #: the RT60 report's bucket edges
SHOUT_LEVEL_DB = (-3.0, 3.0)  #: a shout's loudness around its speaker's
TALK_LEVEL_DB = (-9.0, -3.0)  #: talk is softer than shouts by this
MOMENTS = 16  #: moments per table
MOMENT_GAP_S = 3.0  #: between moments (a reverberant tail has died away)
LEAD_S = 2.0  #: before the first moment (the detectors learn the floor)
P_TWO = 0.4  #: a moment has two shouts with this probability
P_TALK = 0.2  #: ... non-game talk with this one (else one shout)
OVERLAP_S = (0.0, 0.3)  #: two shouts this far apart
NOISE_SOURCE_FROM_TABLE_M = 1.5  #: babble and music are played at least this far from the table's centre
BABBLE_TALKERS = 6  #: voices summed into the babble
MUSIC_CHORD_S = (0.4, 1.0)  #: each chord lasts this long
MUSIC_PARTIALS = 6  #: harmonics per note
MUSIC_DECAY_S = 0.5  #: a note's amplitude falls by 1/e in this long
CAL_WORDS = 2  #: the calibration recording: each seat says this many words alone
CAL_GAP_S = 1.5  #: ... this far apart
TABLES_PER_SCENARIO = 4  #: the default run: tables per room scenario
QUICK_TABLES = 1  #: --quick: tables per scenario
QUICK_MOMENTS = 5  #: --quick: moments per table
QUICK_OUTSIDE = 8  #: --quick: outside clips per speaker (one per digit)
TRUTH_FRAME_S = 0.010  #: the true onset's frame
TRUTH_BELOW_DB = 30.0  #: the first frame within this of the clip's loudest is the onset
MATCH_WINDOW_S = (-0.15, 0.30)  #: an event this far from a truth (event - truth) detects it
OUTSIDE_GAP_S = 2.5  #: outside: clip starts this far apart
OUTSIDE_LEAD_S = 2.0  #: outside: before the first clip
OUTSIDE_FLOOR_DBFS = -50.0  #: outside: the floor (white, RMS) always present
OUTSIDE_SNR_DB = 10.0  #: outside: the noisy pass's white noise this far below the clips' median active RMS
GAME, MODE, LANG = "ikatako", "coop", "en"  #: what the table plays (every total 1..154 is a call)
SEAT_NAMES = ("aki", "ben", "chie", "dai", "emi", "fumi")  #: players in seat order (not calls of the game)
DIGIT_SPEAKERS = ("fsdd:george", "fsdd:jackson", "fsdd:lucas")  #: who shouts
ROOM_SCENARIOS = ("quiet", "white", "pink", "babble", "music")  #: the simulated tables' scenarios
SCENARIOS = ROOM_SCENARIOS + ("outside",)  #: every scenario


# ----------------------------------------------------------------- clips
def read_clip(path: Path) -> np.ndarray:
    """A clip as mono float64 at :data:`RATE` (FSDD is 8 kHz)."""
    from scipy import signal

    from audio.capture import read_all

    x, rate = read_all(path)
    x = x.mean(axis=1).astype(np.float64) if x.ndim == 2 else x.astype(np.float64)
    return signal.resample_poly(x, RATE, rate) if rate != RATE else x


def frame_db(x: np.ndarray, frame: int) -> np.ndarray:
    """Energy (dB) of consecutive frames of ``frame`` samples."""
    n = len(x) // frame
    return 10 * np.log10((x[: n * frame].reshape(n, frame) ** 2).mean(axis=1) + 1e-20)


def true_onset(x: np.ndarray, rate: int = RATE) -> int:
    """The clip's true onset (sample): its first 10 ms frame within :data:`TRUTH_BELOW_DB` of the loudest."""
    frame = int(TRUTH_FRAME_S * rate)
    e = frame_db(x, frame)
    return int(np.flatnonzero(e >= e.max() - TRUTH_BELOW_DB)[0]) * frame


def voiced_end(x: np.ndarray, rate: int = RATE) -> int:
    """The end (sample) of the clip's last frame within :data:`TRUTH_BELOW_DB` of the loudest."""
    frame = int(TRUTH_FRAME_S * rate)
    e = frame_db(x, frame)
    return (int(np.flatnonzero(e >= e.max() - TRUTH_BELOW_DB)[-1]) + 1) * frame


def active_rms(x: np.ndarray, rate: int = RATE) -> float:
    """RMS of the active 10 ms frames (within :data:`TRUTH_BELOW_DB` of the loudest): the speech, not its pauses."""
    e = frame_db(x, int(TRUTH_FRAME_S * rate))
    return float(np.sqrt(np.mean(10 ** (e[e >= e.max() - TRUTH_BELOW_DB] / 10))))


def db(x: float) -> float:
    return float(20 * np.log10(max(x, 1e-20)))


@dataclass
class Pools:
    """The labelled clips by use: digit shouts per speaker, talk per speaker (``tofugu``: the
    Japanese talkers), the babble's clips (never talk)."""

    digits: dict[str, list[dict]]
    talk: dict[str, list[dict]]
    babble: list[dict]


def load_pools(seed: int = SEED) -> Pools:
    """``labels.csv`` split into :class:`Pools` (the Japanese words halved, seeded)."""
    rows = list(csv.DictReader(open(SPEECH / "labels.csv", encoding="utf-8")))
    digits = {s: [r for r in rows if r["kind"] == "keyword" and r["speaker"] == s] for s in DIGIT_SPEAKERS}
    talk = {s: [r for r in rows if r["speaker"] == s and r["text"] == "zero"] for s in DIGIT_SPEAKERS}
    japanese = [r for r in rows if r["kind"] == "other" and r["lang"] == "ja"]
    order = np.random.default_rng(seed).permutation(len(japanese))
    talk["tofugu"] = [japanese[i] for i in order[: len(order) // 2]]
    babble = [japanese[i] for i in order[len(order) // 2:]] + [r for r in rows if r["kind"] == "sentence"]
    return Pools(digits, talk, babble)


# ----------------------------------------------------------------- the room
@dataclass
class Geometry:
    """A room and its table: mouths and microphones (n x 3, m), one per seat."""

    dims: np.ndarray
    rt60: float
    mouths: np.ndarray
    mics: np.ndarray
    centre: np.ndarray


def table_geometry(rng: np.random.Generator, seats: int) -> Geometry:
    """A room drawn from the ranges, the table near its middle, ``seats`` players evenly round it
    (jittered), each microphone :data:`MIC_DISTANCE_M` from its mouth towards the table, lower."""
    dims = np.array([rng.uniform(*ROOM_SIDE_M), rng.uniform(*ROOM_SIDE_M), rng.uniform(*ROOM_HEIGHT_M)])
    radius = rng.uniform(*MOUTH_RADIUS_M)
    room = WALL_MARGIN_M + radius
    centre = np.array([rng.uniform(room, dims[0] - room), rng.uniform(room, dims[1] - room), 0.0])
    turn = rng.uniform(0, 2 * np.pi)
    mouths, mics = [], []
    for k in range(seats):
        a = turn + 2 * np.pi * k / seats + rng.uniform(-0.15, 0.15)
        mouth = centre + [radius * np.cos(a), radius * np.sin(a), rng.uniform(*MOUTH_HEIGHT_M)]
        inward = np.array([-np.cos(a), -np.sin(a), -MIC_DROP])
        mouths.append(mouth)
        mics.append(mouth + inward / np.linalg.norm(inward) * rng.uniform(*MIC_DISTANCE_M))
    return Geometry(dims, float(rng.uniform(*RT60_RANGE_S)), np.array(mouths), np.array(mics), centre)


def noise_position(rng: np.random.Generator, geo: Geometry) -> np.ndarray:
    """A point for a loudspeaker or a neighbouring table: as far from the table as the room
    allows up to :data:`NOISE_SOURCE_FROM_TABLE_M`, at head height, off the walls."""
    best, far = None, -1.0
    for _ in range(64):
        p = np.array([rng.uniform(WALL_MARGIN_M, geo.dims[0] - WALL_MARGIN_M),
                      rng.uniform(WALL_MARGIN_M, geo.dims[1] - WALL_MARGIN_M), rng.uniform(1.0, 1.6)])
        d = float(np.linalg.norm(p[:2] - geo.centre[:2]))
        if d >= NOISE_SOURCE_FROM_TABLE_M:
            return p
        if d > far:
            best, far = p, d
    return best


def schroeder_rt60(h: np.ndarray, rate: int, lo_db: float = -5.0, hi_db: float = -25.0) -> float:
    """The reverberation time of an impulse response: Schroeder's backward-integrated energy
    decay, a line fitted from ``lo_db`` to ``hi_db`` (T20), extrapolated to -60 dB."""
    energy = np.cumsum((np.asarray(h, float) ** 2)[::-1])[::-1]
    edc = 10 * np.log10(energy / energy[0] + 1e-30)
    i0, i1 = int(np.argmax(edc <= lo_db)), int(np.argmax(edc <= hi_db))
    slope = np.polyfit(np.arange(i0, i1) / rate, edc[i0:i1], 1)[0]
    return float(-60.0 / slope)


def late_tail(early: np.ndarray, rt60: float, rate: int, rng: np.random.Generator) -> np.ndarray:
    """``early`` (an image-source response) with a seeded exponential tail of ``rt60`` added
    from :data:`TAIL_FROM_S` after its direct path, its level there the early response's."""
    n = int(TAIL_LENGTH_RT60 * rt60 * rate)
    h = np.zeros(max(n, len(early)))
    h[: len(early)] = early
    direct = int(np.argmax(np.abs(early)))
    start = direct + int(TAIL_FROM_S * rate)
    match = early[max(direct + 1, start - int(TAIL_MATCH_S * rate)): start]
    level = np.sqrt(np.mean(match ** 2)) if len(match) and np.any(match) else np.abs(early[direct]) * 0.05
    t = np.arange(len(h) - start) / rate
    h[start:] += rng.standard_normal(len(t)) * level * np.exp(-3 * np.log(10) * t / rt60)
    return h


def room_irs(geo: Geometry, sources: np.ndarray, rng: np.random.Generator, rate: int = RATE) -> list[list[np.ndarray]]:
    """``h[mic][source]``: every source's response at every microphone — pyroomacoustics'
    image-source model (inverse-Sabine absorption for ``geo.rt60``, to :data:`ISM_MAX_ORDER`)
    and a seeded late tail of that RT60 (:func:`late_tail`)."""
    import pyroomacoustics as pra

    absorption, order = pra.inverse_sabine(geo.rt60, geo.dims)
    room = pra.ShoeBox(geo.dims, fs=rate, materials=pra.Material(absorption), max_order=min(order, ISM_MAX_ORDER),
                       air_absorption=False)
    for s in sources:
        room.add_source(s)
    room.add_microphone_array(geo.mics.T)
    room.compute_rir()
    return [[late_tail(np.asarray(room.rir[m][s]), geo.rt60, rate, rng) for s in range(len(sources))]
            for m in range(len(geo.mics))]


def render(tracks: np.ndarray, irs: list[list[np.ndarray]]) -> np.ndarray:
    """Each microphone's signal (mics x samples): every source track through its response, summed."""
    from scipy.signal import oaconvolve

    n = tracks.shape[1]
    out = np.zeros((len(irs), n))
    for m, row in enumerate(irs):
        for s, h in enumerate(row):
            if np.any(tracks[s]):
                out[m] += oaconvolve(tracks[s], h)[:n]
    return out


# ----------------------------------------------------------------- microphones and noise
def band_pass(x: np.ndarray, band: tuple[float, float], rate: int = RATE) -> np.ndarray:
    """A cheap microphone's response: 2nd-order high-pass and 4th-order low-pass Butterworth (causal)."""
    from scipy import signal

    lo, hi = band
    hi = min(hi, 0.45 * rate)
    y = signal.sosfilt(signal.butter(2, lo, "highpass", fs=rate, output="sos"), x)
    return signal.sosfilt(signal.butter(4, hi, "lowpass", fs=rate, output="sos"), y)


def resample(x: np.ndarray, rate: int, src: int = RATE) -> np.ndarray:
    """``x`` (samples or channels x samples) from ``src`` to ``rate`` (polyphase)."""
    if rate == src:
        return x
    from math import gcd

    from scipy import signal

    g = gcd(rate, src)
    return signal.resample_poly(x, rate // g, src // g, axis=-1)


def babble(n: int, rng: np.random.Generator, talkers: list[np.ndarray]) -> np.ndarray:
    """Real voices, each at its own active level, looped from a random shift, summed; unit RMS."""
    out = np.zeros(n)
    for c in talkers:
        loop = np.tile(c / active_rms(c), n // len(c) + 2)
        s = int(rng.integers(len(c)))
        out += loop[s: s + n]
    return unit(out)


def music(n: int, rng: np.random.Generator) -> np.ndarray:
    """Music-like noise: triads (major or minor, root drawn from two octaves round A3) with a
    bass note an octave under the root, one per :data:`MUSIC_CHORD_S`, each note
    :data:`MUSIC_PARTIALS` harmonics falling 1/k with a plucked decay; unit RMS."""
    out = np.zeros(n)
    at = 0
    while at < n:
        length = min(n - at, int(rng.uniform(*MUSIC_CHORD_S) * RATE))
        root = 220.0 * 2 ** (int(rng.integers(-12, 12)) / 12)
        third = 4 if rng.random() < 0.5 else 3
        t = np.arange(length) / RATE
        env = np.exp(-t / MUSIC_DECAY_S) * np.minimum(1, t / 0.005)
        for f0 in (root / 2, root, root * 2 ** (third / 12), root * 2 ** (7 / 12)):
            for k in range(1, MUSIC_PARTIALS + 1):
                if k * f0 < 0.45 * RATE:
                    out[at: at + length] += env * np.sin(2 * np.pi * k * f0 * t + rng.uniform(0, 2 * np.pi)) / k
        at += length
    return unit(out)


def scaled_noise(noise: np.ndarray, speech_rms: float, snr_db: float) -> np.ndarray:
    """``noise`` scaled so that its RMS lies ``snr_db`` under ``speech_rms``."""
    return noise / np.sqrt(np.mean(noise ** 2)) * speech_rms * 10 ** (-snr_db / 20)


# ----------------------------------------------------------------- a table's plan
@dataclass
class Truth:
    """One utterance placed at the table: ``kind`` shout (a digit) or talk; times on the session
    clock (s) as heard at its own seat's microphone (its direct path's delay included)."""

    seat: int
    speaker: str
    kind: str
    token: str
    file: str
    t: float
    t_end: float
    overlapped: bool = False


@dataclass
class TablePlan:
    """A table: geometry, who sits where, what each says when, each microphone's chain."""

    geo: Geometry
    speakers: list[str]
    truths: list[Truth]
    tracks: np.ndarray
    gains_db: list[float]
    bands: list[tuple[float, float]]
    rate: int
    snr_db: list[float | None]
    cal_tracks: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))


def seat_speakers(rng: np.random.Generator, seats: int) -> list[str]:
    """The three digit speakers at seats drawn at random; the other seats' players are Japanese talkers."""
    who = list(DIGIT_SPEAKERS) + ["tofugu"] * (seats - len(DIGIT_SPEAKERS))
    return [who[i] for i in rng.permutation(seats)]


def moment_kinds(rng: np.random.Generator, moments: int) -> list[str]:
    """Each moment's kind: ``one`` shout, ``two`` shouts, or ``talk``."""
    out = []
    for _ in range(moments):
        u = rng.random()
        out.append("two" if u < P_TWO else "talk" if u < P_TWO + P_TALK else "one")
    return out


def place(track: np.ndarray, clip: np.ndarray, at: int) -> None:
    end = min(len(track), at + len(clip))
    track[at:end] += clip[: end - at]


def utter(plan_tracks: np.ndarray, clips: dict, row: dict, seat: int, at_s: float, gain_db: float) -> tuple[float, float]:
    """Place ``row``'s clip on ``seat``'s dry track at ``at_s`` (its active level 1 x ``gain_db``);
    its true onset and voiced end (s) on the dry track."""
    c = clips[row["file"]]
    at = int(round(at_s * RATE))
    place(plan_tracks[seat], c / active_rms(c) * 10 ** (gain_db / 20), at)
    return (at + true_onset(c)) / RATE, (at + voiced_end(c)) / RATE


def take(pool: list[dict], used: dict, key: str, rng: np.random.Generator) -> dict:
    """The next clip of ``pool`` in a seeded order, each once until all are used."""
    order = used.setdefault(key, [])
    if not order:
        order.extend(rng.permutation(len(pool)).tolist())
    return pool[order.pop()]


def dry_moments(rng: np.random.Generator, speakers: list[str], pools: Pools, clips: dict, used: dict,
                moments: int) -> tuple[np.ndarray, list[Truth]]:
    """The seats' dry tracks (seats x samples) and what was said: :data:`MOMENTS` moments."""
    n = int((LEAD_S + moments * MOMENT_GAP_S + 1.0) * RATE)
    tracks = np.zeros((len(speakers), n))
    truths = []
    shouters = [k for k, s in enumerate(speakers) if s in DIGIT_SPEAKERS]
    for m, kind in enumerate(moment_kinds(rng, moments)):
        t0 = LEAD_S + m * MOMENT_GAP_S
        if kind == "talk":
            seat = int(rng.integers(len(speakers)))
            row = take(pools.talk[speakers[seat]], used, "talk:" + speakers[seat], rng)
            on, end = utter(tracks, clips, row, seat, t0, rng.uniform(*TALK_LEVEL_DB))
            truths.append(Truth(seat, speakers[seat], "talk", "", row["file"], on, end))
            continue
        who = rng.choice(shouters, size=2 if kind == "two" else 1, replace=False)
        offsets = [0.0, rng.uniform(*OVERLAP_S)]
        for seat, dt in zip(who, offsets):
            row = take(pools.digits[speakers[seat]], used, "digit:" + speakers[seat], rng)
            on, end = utter(tracks, clips, row, int(seat), t0 + dt, rng.uniform(*SHOUT_LEVEL_DB))
            truths.append(Truth(int(seat), speakers[seat], "shout", row["token"], row["file"], on, end, kind == "two"))
    return tracks, truths


def calibration_tracks(speakers: list[str], pools: Pools, clips: dict, used: dict, rng: np.random.Generator) -> np.ndarray:
    """The calibration recording's dry tracks: each seat in turn says :data:`CAL_WORDS` talk
    words alone, :data:`CAL_GAP_S` apart (as ``referee calibrate`` asks each seat to speak)."""
    n = int((LEAD_S + len(speakers) * CAL_WORDS * CAL_GAP_S + 1.0) * RATE)
    tracks = np.zeros((len(speakers), n))
    at = LEAD_S
    for seat, who in enumerate(speakers):
        for _ in range(CAL_WORDS):
            utter(tracks, clips, take(pools.talk[who], used, "cal:" + who, rng), seat, at, 0.0)
            at += CAL_GAP_S
    return tracks


def plan_table(rng: np.random.Generator, scenario: str, index: int, pools: Pools, clips: dict, used: dict,
               moments: int = MOMENTS) -> TablePlan:
    """One table of ``scenario``: its room, seats, utterances and microphone chains."""
    seats = int(rng.integers(SEAT_RANGE[0], SEAT_RANGE[1] + 1))
    geo = table_geometry(rng, seats)
    speakers = seat_speakers(rng, seats)
    tracks, truths = dry_moments(rng, speakers, pools, clips, used, moments)
    cal = calibration_tracks(speakers, pools, clips, used, rng)
    gains = [float(rng.uniform(*GAIN_RANGE_DB)) for _ in range(seats)]
    bands = [MIC_BANDS_HZ[int(rng.integers(len(MIC_BANDS_HZ)))] for _ in range(seats)]
    snr = [None if scenario == "quiet" else float(rng.uniform(*SNR_RANGE_DB)) for _ in range(seats)]
    rate = RATES[(index + SCENARIOS.index(scenario)) % len(RATES)]  # (every rate in a run of one table per scenario)
    return TablePlan(geo, speakers, truths, tracks, gains, bands, rate, snr, cal)


# ----------------------------------------------------------------- rendering a table
def own_levels(plan: TablePlan, irs: list[list[np.ndarray]]) -> list[float]:
    """Each microphone's own player's speech level there (active RMS of that seat alone, rendered)."""
    from scipy.signal import oaconvolve

    out = []
    for k in range(len(plan.speakers)):
        x = oaconvolve(plan.tracks[k], irs[k][k])[: plan.tracks.shape[1]]
        out.append(active_rms(band_pass(x, plan.bands[k])))
    return out


def scenario_noise(scenario: str, n: int, rng: np.random.Generator, talkers: list[np.ndarray],
                   seats: int) -> np.ndarray | None:
    """The noise at the source: per microphone (white, pink: seats x n) or one signal played in
    the room (babble, music: 1 x n); None for quiet."""
    if scenario == "white":
        return np.array([white(n, rng) for _ in range(seats)])
    if scenario == "pink":
        return np.array([pink(n, rng) for _ in range(seats)])
    if scenario == "babble":
        return babble(n, rng, talkers)[None]
    if scenario == "music":
        return music(n, rng)[None]
    return None


def mic_chain(x: np.ndarray, plan: TablePlan, rng: np.random.Generator) -> np.ndarray:
    """The microphones' band-pass, gain, hiss, clipping and the interface's rate: channels x samples."""
    out = np.array([band_pass(x[k], plan.bands[k]) * 10 ** (plan.gains_db[k] / 20) for k in range(len(x))])
    out += rng.standard_normal(out.shape) * 10 ** (MIC_HISS_DBFS / 20)
    return np.clip(resample(out, plan.rate), -1.0, 1.0)


def render_table(plan: TablePlan, scenario: str, rng: np.random.Generator, talkers: list[np.ndarray]
                 ) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """The session's and the calibration's channels (channels x samples at ``plan.rate``) and
    each truth's direct-path delay folded into its times; noise at each microphone's SNR
    against its own player's level there."""
    seats = len(plan.speakers)
    noise = scenario_noise(scenario, plan.tracks.shape[1], rng, talkers, seats)
    sources = plan.geo.mouths if noise is None or len(noise) > 1 else np.vstack([plan.geo.mouths, noise_position(rng, plan.geo)])
    irs = room_irs(plan.geo, sources, rng)
    direct = [int(np.argmax(np.abs(irs[k][k]))) / RATE for k in range(seats)]
    for tr in plan.truths:
        tr.t += direct[tr.seat]
        tr.t_end += direct[tr.seat]
    levels = own_levels(plan, irs)
    scale = 10 ** (SPEECH_DBFS / 20) / np.median(levels)
    speech = render(plan.tracks * scale, [row[:seats] for row in irs])
    if noise is not None:
        heard = noise if len(noise) > 1 else render(noise, [row[seats:] for row in irs])
        for k in range(seats):  # (the SNR at the microphone's output: both through its band-pass)
            passed = np.sqrt(np.mean(band_pass(heard[k], plan.bands[k]) ** 2))
            speech[k] += scaled_noise(heard[k], levels[k] * scale, plan.snr_db[k]) * np.sqrt(np.mean(heard[k] ** 2)) / passed
    cal = render(plan.cal_tracks * scale, [row[:seats] for row in irs])
    return mic_chain(speech, plan, rng), mic_chain(cal, plan, rng), [db(v * scale) for v in levels]


def write_wav(path: Path, x: np.ndarray, rate: int) -> None:
    """``x`` (channels x samples, or samples) as 16-bit PCM."""
    from scipy.io import wavfile

    data = np.clip(np.round(np.atleast_2d(x).T * 32767), -32768, 32767).astype(np.int16)
    wavfile.write(str(path), rate, data)


# ----------------------------------------------------------------- hearing
def listen(wav: Path, seats: int, demix_from: Path | None, enroll: Path | None = None,
           ear: str | None = None) -> tuple[list[dict], list[str]]:
    """The shout events ``referee listen --json`` prints for ``wav`` (the same library call,
    :func:`referee.listening.listen_table`; ``enroll``: its ``--enroll`` folder), and its notes.
    ``ear``: the speech model with the synthetic ear beside it by that rule
    (:class:`audio.synthetic_ear.EarBeside`, its shipped thresholds; not wired in the hearing:
    measured here only)."""
    from referee.listening import ListenSetup, listen_table

    events, notes = [], []
    setup = ListenSetup(names=SEAT_NAMES[:seats], game=GAME, mode=MODE, wav=wav, lang=LANG, demix_from=demix_from,
                        enroll=enroll)
    with ear_beside(ear):
        listen_table(setup, lambda e: events.append(e.to_dict()), notes.append)
    return [e for e in events if e.get("type") == "shout"], notes


#: ``--ear-thresholds``: the synthetic ear's ``max_distance`` and ``min_margin`` for this run
#: (None: :class:`audio.synthetic_ear.SyntheticEar`'s, chosen on george, jackson, lucas)
EAR_THRESHOLDS: tuple[float, float] | None = None


@contextlib.contextmanager
def ear_beside(rule: str | None):
    """While open, the hearing's speech model is made with the synthetic ear beside it by
    ``rule`` (None: as shipped; thresholds: :data:`EAR_THRESHOLDS`). As
    ``bench_whisper_speed.py`` counts the engine's calls: the hearing's own
    ``make_recognizer``, wrapped."""
    from audio import hearing, synthetic_ear

    if rule is None:
        yield
        return
    made = hearing.make_recognizer

    def with_ear(model, lang, vocab):
        given = dict(zip(("max_distance", "min_margin"), EAR_THRESHOLDS or ()))
        ear = synthetic_ear.SyntheticEar(list(synthetic_ear.templates(vocab, lang)), **given)
        return synthetic_ear.EarBeside(made(model, lang, vocab), ear, rule=rule)

    hearing.make_recognizer = with_ear
    try:
        yield
    finally:
        hearing.make_recognizer = made


def listen_calibrated(wav: Path, cal: Path, seats: int) -> tuple[list[dict], list[str], bool]:
    """:func:`listen` with the calibration recording's leakage cancelled; without it (said in
    the notes, ``False``) when the calibration cannot be used."""
    from session.errors import MediaError

    try:
        events, notes = listen(wav, seats, cal)
        return events, notes, True
    except MediaError as exc:
        events, notes = listen(wav, seats, None)
        return events, [f"calibration refused: {exc}"] + notes, False


def hear_as_replay(wav: Path, cal: Path, seats: int) -> tuple[list[dict], list[str], bool]:
    """The shout events of ``wav`` heard as ``referee replay`` hears a session
    (``audio.hearing.open_source`` + ``make_listener``, as ``benchmarks/bench_hearing.py``
    builds them): resampled to the hearing's rate, the leakage measured on the calibration
    recording ``cal`` cancelled (with the session-side checks), the trimming listener with the
    calibration's speech levels and leak allowances; the warnings; whether ``cal`` was used."""
    from audio import hearing

    names = SEAT_NAMES[:seats]
    warnings: list[str] = []
    plan = hearing.HearingPlan(game=GAME, mode=MODE, channels={n: k for k, n in enumerate(names)}, names=names,
                               lang=LANG, leakage_from=cal, vocab=rules.vocabulary(GAME, MODE))
    source, _ = hearing.open_source(wav, wav, warnings, demix=True, leakage_from=cal, rate=hearing.HEARING_RATE,
                                    channels=seats)
    listener = hearing.make_listener(plan, source, warnings)
    events: list[dict] = []
    for block in source:
        events += listener.update(block)
    events += listener.close_window()
    refused = any("measured on the session" in w or "could not be measured" in w for w in warnings)
    return [e for e in events if e.get("type") == "shout"], warnings, not refused


HEARINGS = ("listen", "replay")  #: how the room scenarios are heard: ``referee listen`` (default) or as a replay


# ----------------------------------------------------------------- scoring
def match(truths: list[float], events: list[float], window: tuple[float, float] = MATCH_WINDOW_S
          ) -> list[tuple[int, int]]:
    """Pairs ``(truth index, event index)`` whose ``event - truth`` lies in ``window``, closest
    first, each truth and each event used at most once."""
    pairs = sorted(((abs(e - t), i, j) for i, t in enumerate(truths) for j, e in enumerate(events)
                    if window[0] <= e - t <= window[1]))
    seen_t, seen_e, out = set(), set(), []
    for _, i, j in pairs:
        if i not in seen_t and j not in seen_e:
            seen_t.add(i)
            seen_e.add(j)
            out.append((i, j))
    return sorted(out)


def shout_result(tr: Truth, ev: dict | None, **extra) -> dict:
    """One shout's row: detected, right, onset error (ms), and the table's conditions."""
    right = ev is not None and tuple(ev.get("words") or ()) == (tr.token,)
    return dict(speaker=tr.speaker, token=tr.token, file=tr.file, t=round(tr.t, 3), overlapped=tr.overlapped,
                detected=ev is not None, right=right,
                err_ms=None if ev is None else round((ev["t"] - tr.t) * 1000, 1),
                heard=None if ev is None else " ".join(ev.get("words") or ()) or "-",
                words=[] if ev is None else list(ev.get("words") or ()), t_end_heard=None if ev is None else ev.get("t_end"),
                sure=ev is not None and acted_on(ev), **extra)


def score_table(truths: list[Truth], events: list[dict], names: list[str], extra: dict | None = None,
                per_seat: dict | None = None) -> dict:
    """Shouts matched to events on their own seat; bystander false attributions; false alarms
    on talk; stray events (see the module's docstring). ``per_seat``: extra fields per seat index."""
    extra, per_seat = extra or {}, per_seat or {}
    used: set[int] = set()
    shouts = []
    for seat, name in enumerate(names):
        idx = [j for j, e in enumerate(events) if e.get("player") == name]
        mine = [tr for tr in truths if tr.kind == "shout" and tr.seat == seat]
        found = dict(match([tr.t for tr in mine], [events[j]["t"] for j in idx]))
        for i, tr in enumerate(mine):
            ev = events[idx[found[i]]] if i in found else None
            used.update([idx[found[i]]] if i in found else [])
            shouts.append(shout_result(tr, ev, **extra, **per_seat.get(seat, {})))
    lo, hi = MATCH_WINDOW_S
    said = [t for t in truths if t.kind == "shout"]
    bystander = {j for j, e in enumerate(events) if j not in used and e.get("player") is not None
                 and any(e["player"] != names[tr.seat] and lo <= e["t"] - tr.t <= hi for tr in said)}
    used |= bystander
    talk = [t for t in truths if t.kind == "talk"]
    alarms = acted = 0
    for tr in talk:
        hit = [j for j, e in enumerate(events) if j not in used and e.get("words") and tr.t + lo <= e["t"] <= tr.t_end + hi]
        alarms += bool(hit)
        acted += any(acted_on(events[j]) for j in hit)
        used.update(hit)
    stray = [j for j in range(len(events)) if j not in used]
    return dict(shouts=shouts, bystander=len(bystander), bystander_calls=sum(bool(events[j].get("words")) for j in bystander),
                bystander_n=len(said) * (len(names) - 1), talk_alarms=alarms, talk_acted=acted, talk_n=len(talk), stray=len(stray),
                unexplained=[[round(events[j]["t"], 3), events[j].get("player"), " ".join(events[j].get("words") or ())]
                             for j in sorted(bystander | set(stray))])


# ----------------------------------------------------------------- scenarios
def load_clips(rows: list[dict]) -> dict[str, np.ndarray]:
    return {r["file"]: read_clip(SPEECH / r["file"]) for r in rows}


def run_table(scenario: str, index: int, pools: Pools, clips: dict, talkers: list[np.ndarray], used: dict,
              moments: int, folder: Path, seed: int, heard_as: str = "listen") -> dict:
    """One simulated table: planned, rendered, written, heard, scored."""
    rng = np.random.default_rng([seed, ROOM_SCENARIOS.index(scenario), index])
    plan = plan_table(rng, scenario, index, pools, clips, used, moments)
    session, cal, levels = render_table(plan, scenario, rng, talkers)
    seats = len(plan.speakers)
    wav, cal_wav = folder / f"{scenario}{index}.wav", folder / f"{scenario}{index}-cal.wav"
    write_wav(wav, session, plan.rate)
    write_wav(cal_wav, cal, plan.rate)
    hear = listen_calibrated if heard_as == "listen" else hear_as_replay
    events, notes, calibrated = hear(wav, cal_wav, seats)
    geo = plan.geo
    extra = dict(scenario=scenario, table=index, rt60=round(geo.rt60, 2), rate=plan.rate, seats=seats,
                 calibrated=calibrated, hearing=heard_as)
    per_seat = {k: dict(snr_db=None if plan.snr_db[k] is None else round(plan.snr_db[k], 1),
                        gain_db=round(plan.gains_db[k], 1), band=list(plan.bands[k]),
                        mic_cm=round(float(np.linalg.norm(geo.mics[k] - geo.mouths[k])) * 100, 1))
                for k in range(seats)}
    scored = score_table(plan.truths, events, list(SEAT_NAMES[:seats]), extra, per_seat)
    scored.update(scenario=scenario, table=index, room=[round(float(v), 2) for v in geo.dims], rt60=round(geo.rt60, 2),
                  rate=plan.rate, seats=seats, calibrated=calibrated, speakers=plan.speakers,
                  own_level_dbfs=[round(v, 1) for v in levels], notes=[n.replace(str(folder) + os.sep, "") for n in notes if not n.startswith("listening")])
    return scored


def outside_channel(clips: list[np.ndarray], noisy: bool, rng: np.random.Generator) -> tuple[np.ndarray, list[float]]:
    """Issue 31's construction: the clips :data:`OUTSIDE_GAP_S` apart after :data:`OUTSIDE_LEAD_S`
    on one channel, the :data:`OUTSIDE_FLOOR_DBFS` floor, and (``noisy``) white noise from the
    first sample :data:`OUTSIDE_SNR_DB` under the clips' median active RMS; the true onsets (s)."""
    gap, start = int(OUTSIDE_GAP_S * RATE), int(OUTSIDE_LEAD_S * RATE)
    x = np.zeros(start + gap * len(clips))
    truths = []
    for k, c in enumerate(clips):
        at = start + k * gap
        place(x, c[:gap], at)
        truths.append((at + true_onset(c[:gap])) / RATE)
    x += white(len(x), rng) * 10 ** (OUTSIDE_FLOOR_DBFS / 20)
    if noisy:
        level = float(np.median([active_rms(c) for c in clips]))
        x += white(len(x), rng) * level * 10 ** (-OUTSIDE_SNR_DB / 20)
    return x, truths


#: outside: the environment variable naming a bare git directory of the Free Spoken Digit
#: Dataset (Jakobovski/free-spoken-digit-dataset, CC BY-SA 4.0), read in place (``--fsdd``)
FSDD_ENV = "FSDD_MIRROR"
FSDD_SHARED = ("george", "jackson", "lucas")  #: FSDD speakers whose clips are in ../shared/data/speech
FSDD_MIRROR_ONLY = ("nicolas", "theo", "yweweler")  #: FSDD speakers only the mirror has (never used before 2026-12-06)
OUTSIDE_DIGITS = tuple(range(2, 10))  #: outside: the digits shouted (FSDD 2..9; the call is the digit, "2" ... "9")
OUTSIDE_SHOUT_TAKES = tuple(range(10))  #: outside: each speaker's takes shouted (80 clips: ../shared/data/speech has these)
#: outside, enrolled: each speaker's own takes that may be enrolled per digit (mirror only; never
#: shouted): the first ``--outside-enroll-takes`` of them (2 or 3, as ``referee calibrate --enroll-takes``)
OUTSIDE_ENROLL_TAKES = (10, 11, 12)
CUT_AFTER_S = 0.1  #: loss split: another event starting inside a clip or this soon after its voiced end cut it in two


def fsdd_dir(given: str | None) -> Path | None:
    """The FSDD mirror (a bare git directory) from ``--fsdd`` or :data:`FSDD_ENV`; None when not given."""
    path = given or os.environ.get(FSDD_ENV)
    return Path(path) if path else None


def fsdd_clip(mirror: Path, speaker: str, digit: int, take_: int, folder: Path) -> Path:
    """``recordings/<digit>_<speaker>_<take>.wav`` of the bare git mirror written into
    ``folder`` (a temporary folder, never the repository)."""
    import subprocess

    out = folder / f"{digit}_{speaker}_{take_}.wav"
    if not out.is_file():
        data = subprocess.run(["git", "-C", str(mirror), "show", f"HEAD:recordings/{out.name}"], check=True,
                              capture_output=True).stdout
        out.write_bytes(data)
    return out


def outside_rows(speaker: str, mirror: Path | None, folder: Path, digits: tuple[int, ...] = OUTSIDE_DIGITS
                 ) -> list[tuple[str, Path]]:
    """``(token, path)`` of a speaker's shouted clips (digit-major, take order): from
    ``../shared/data/speech`` for the shared speakers, else from the mirror."""
    if speaker in FSDD_SHARED:
        return [(str(d), SPEECH / "clips" / f"en_{d}_{speaker}_{k}.wav") for d in digits for k in OUTSIDE_SHOUT_TAKES]
    if mirror is None:
        raise FileNotFoundError(f"{speaker}: FSDD mirror not given (--fsdd or ${FSDD_ENV})")
    return [(str(d), fsdd_clip(mirror, speaker, d, k, folder)) for d in digits for k in OUTSIDE_SHOUT_TAKES]


#: ``--outside-words``: what the outside channels say: the digits "two" ... "nine" (calls), or
#: each speaker's ten "zero"s (no call of the game: every call heard on them is a false alarm)
OUTSIDE_WORDS = {"digits": OUTSIDE_DIGITS, "zero": (0,)}


def enroll_folder(speaker: str, mirror: Path, folder: Path, seat: str, takes: int = DEFAULT_TAKES) -> Path:
    """An enrollment folder ``<folder>/<seat>/<token>.<take>.wav`` with the speaker's own first
    ``takes`` of :data:`OUTSIDE_ENROLL_TAKES` of every digit (from the mirror: the shared speech
    has only the shouted takes)."""
    if not TAKES_RANGE[0] <= takes <= min(TAKES_RANGE[1], len(OUTSIDE_ENROLL_TAKES)):
        raise ValueError(f"enrolled takes per call: {TAKES_RANGE[0]} to {TAKES_RANGE[1]}, got {takes}")
    from scipy.io import wavfile

    out = folder / f"enroll-{speaker}-{takes}" / seat
    out.mkdir(parents=True, exist_ok=True)
    for d in OUTSIDE_DIGITS:
        for k in OUTSIDE_ENROLL_TAKES[:takes]:
            clip = read_clip(fsdd_clip(mirror, speaker, d, k, folder))
            wavfile.write(str(out / f"{d}.{k}.wav"), RATE, np.clip(np.round(clip * 32767), -32768, 32767).astype(np.int16))
    return out.parent


def loss(row: dict, token: str, t_end: float, events: list[dict], others: list[float]) -> str:
    """Why a shout was not heard right: ``not detected``; ``cut or merged`` (its event holds
    more than one token or runs over another clip's onset ``others``, or another event starts
    inside the clip: the word heard as two); ``another call`` (one other call, ``sure`` when
    the judge would act on it: :func:`acted_on`); ``no call`` (no word); ``right``."""
    if not row["detected"]:
        return "not detected"
    words = tuple(row["words"])
    if words == (token,):
        return "right"
    on, end = row["t"] + row["err_ms"] / 1000, row["t_end_heard"]
    split = any(on < e["t"] <= t_end + CUT_AFTER_S for e in events)
    if len(words) > 1 or split or (end is not None and any(on < o < end for o in others)):
        return "cut or merged"
    if words:
        return "another call (sure)" if row["sure"] else "another call (unsure)"
    return "no call"


#: ``--outside-ear``: the synthetic ear's rules measured (:data:`audio.synthetic_ear.RULES` but "record")
EAR_RULES = ("both", "fill", "agree", "fill+agree")
LOSSES = ("not detected", "cut or merged", "another call (sure)", "another call (unsure)", "no call")  #: the loss split


def run_outside_speaker(speaker: str, mirror: Path | None, enrolled: bool, folder: Path, seed: int,
                        limit: int | None = None, words: str = "digits", ears: tuple = (None,),
                        enroll_takes: int = DEFAULT_TAKES) -> list[dict]:
    """One speaker's outside channel, quiet and noisy (issue 31's construction), heard as one
    seat by ``referee listen``, with the speaker's own takes enrolled or not; ``words``: a key
    of :data:`OUTSIDE_WORDS`; ``ears``: each channel heard once per entry (None: as shipped; a
    rule of :data:`audio.synthetic_ear.RULES`: the synthetic ear beside the speech model), one
    after the other in this run; ``enroll_takes``: takes per call enrolled (:func:`enroll_folder`)."""
    rows = outside_rows(speaker, mirror, folder, OUTSIDE_WORDS[words])
    if limit:
        rows = rows[:: max(1, len(rows) // limit)][:limit]
    clips = [read_clip(p) for _, p in rows]
    gap = int(OUTSIDE_GAP_S * RATE)
    enroll = enroll_folder(speaker, mirror, folder, SEAT_NAMES[0], enroll_takes) if enrolled else None
    out = []
    for noisy in (False, True):
        x, onsets = outside_channel(clips, noisy, np.random.default_rng([seed, 99, int(noisy), OUTSIDE_SPEAKERS.index(speaker)]))
        wav = folder / f"outside-{speaker}-{int(noisy)}.wav"
        write_wav(wav, x, RATE)
        ends = [t - true_onset(c[:gap]) / RATE + voiced_end(c[:gap]) / RATE for t, c in zip(onsets, clips)]
        truths = [Truth(0, f"fsdd:{speaker}", "shout", tok, p.name, t, e) for (tok, p), t, e in zip(rows, onsets, ends)]
        cond = "10dB" if noisy else "quiet"
        for ear in ears:
            events, _ = listen(wav, 1, None, enroll, ear)
            tags = dict(scenario="outside", condition=cond, enrolled=enrolled, said=words, ear=ear)
            scored = score_table(truths, events, [SEAT_NAMES[0]], tags)
            starts = [tr.t for tr in truths]
            for s, tr in zip(scored["shouts"], truths):
                s["loss"] = loss(s, tr.token, tr.t_end, events, [o for o in starts if o != tr.t])
            scored.update(tags, speaker=speaker)
            out.append(scored)
    return out


OUTSIDE_SPEAKERS = FSDD_SHARED + FSDD_MIRROR_ONLY  #: every FSDD speaker, in the outside scenario's order


def run_outside(speakers: list[str], mirror: Path | None, limit: int | None, folder: Path, seed: int,
                enrolled: tuple[bool, ...] = (False, True), words: str = "digits", ear: str | None = None,
                enroll_takes: int = DEFAULT_TAKES) -> list[dict]:
    """The outside construction per speaker: each speaker's own channel, quiet and noisy, not
    enrolled and enrolled. Enrolled passes and the mirror's speakers need the mirror: without
    it they are skipped, and said so once."""
    out = []
    for sp in speakers:
        for enr in enrolled:
            if mirror is None and (enr or sp not in FSDD_SHARED):
                continue
            # the synthetic ear is for voices not enrolled: heard after the channel as shipped
            ears = (None, ear) if ear is not None and not enr else (None,)
            out += run_outside_speaker(sp, mirror, enr, folder, seed, limit, words, ears, enroll_takes)
            print(f"  outside {sp} {'enrolled' if enr else 'not enrolled'} done ({time.strftime('%H:%M:%S')})", file=sys.stderr)
    return out


# ----------------------------------------------------------------- the report
def tally(shouts: list[dict]) -> dict:
    """N, detected, right and the onset error (median |ms|, median signed ms) of some shouts."""
    errs = [s["err_ms"] for s in shouts if s["err_ms"] is not None]
    wrong = sum(s["detected"] and not s["right"] and bool(s.get("words")) and s.get("sure", False) for s in shouts)
    out = dict(n=len(shouts), detected=sum(s["detected"] for s in shouts), right=sum(s["right"] for s in shouts),
               wrong=wrong, med_abs_ms=round(float(np.median(np.abs(errs))), 1) if errs else None,
               med_ms=round(float(np.median(errs)), 1) if errs else None)
    out["unclear"] = out["detected"] - out["right"] - wrong
    if any("loss" in s for s in shouts):
        out["losses"] = {k: sum(s.get("loss") == k for s in shouts) for k in LOSSES}
    return out


def bucket(value: float | None, edges: tuple[float, float], unit_: str) -> str:
    if value is None:
        return "none"
    lo, hi = edges
    return f"<{lo:g}{unit_}" if value < lo else f"{lo:g}-{hi:g}{unit_}" if value < hi else f">={hi:g}{unit_}"


def summarise(tables: list[dict]) -> dict:
    """Counts per scenario (and outside condition), per speaker, per SNR, RT60, rate and overlap."""
    def key(t):
        return t["scenario"] if t["scenario"] != "outside" else outside_key(t)

    rows: dict[str, dict] = {}
    for t in tables:
        r = rows.setdefault(key(t), dict(shouts=[], bystander=0, bystander_calls=0, bystander_n=0, talk_alarms=0, talk_acted=0, talk_n=0,
                                         stray=0, tables=0))
        r["shouts"] += t["shouts"]
        r["tables"] += 1
        for k in ("bystander", "bystander_calls", "bystander_n", "talk_alarms", "talk_acted", "talk_n", "stray"):
            r[k] += t[k]
    out = {"scenarios": {k: dict(tally(v.pop("shouts")), **v) for k, v in rows.items()}}
    room = [s for t in tables if t["scenario"] != "outside" for s in t["shouts"]]
    groups = {
        "speaker": lambda s: f"{s['scenario'] if s['scenario'] != 'outside' else outside_key(s)} | {s['speaker']}",
        "speaker (all room scenarios)": lambda s: s["speaker"],
        "snr": lambda s: bucket(s.get("snr_db"), SNR_BUCKETS_DB, " dB"),
        "rt60": lambda s: bucket(s.get("rt60"), RT60_BUCKETS_S, " s"),
        "rate": lambda s: f"{s.get('rate')} Hz",
        "overlap": lambda s: "two shouts <=0.3 s apart" if s["overlapped"] else "one shout",
    }
    for name, fn in groups.items():
        pool = [s for t in tables for s in t["shouts"]] if name == "speaker" else room
        by: dict[str, list] = {}
        for s in pool:
            by.setdefault(fn(s), []).append(s)
        out[name] = {k: tally(v) for k, v in sorted(by.items())}
    return out


def outside_key(row: dict) -> str:
    """An outside table's or shout's row name: its condition, enrolled or not, the words said
    (when not the digits) and the synthetic ear's rule (when heard with it)."""
    return (f"outside {row['condition']}" + (" enrolled" if row.get("enrolled") else "")
            + (f" {row['said']}" if row.get("said", "digits") != "digits" else "")
            + (f" ear:{row['ear']}" if row.get("ear") else ""))


def pct(a: int, n: int) -> str:
    return f"{a}/{n} ({100 * a / n:.0f} %)" if n else "0/0"


def acted_on(event: dict) -> bool:
    """Whether the judge would act on the event's words: an enrolled voice's call (no ``conf``)
    or a word at least as sure as :attr:`referee.judging.unclear.Clarity.word_conf`; a less sure
    word makes its player unclear (no penalty), so a talk heard as such a call is a false alarm
    the table never pays for."""
    from referee.judging.unclear import Clarity

    conf = event.get("conf")
    return bool(event.get("words")) and (conf is None or conf >= Clarity().word_conf)


def print_report(summary: dict, tables: list[dict], meta: dict) -> None:
    """The tables as text."""
    print(f"table_sim: {meta['elapsed_s']:.0f} s, load average {meta['load_start']} -> {meta['load_end']}, "
          f"seed {meta['seed']}, {meta['cpus']} CPUs, room scenarios heard as `referee {meta['hearing']}`; speakers {', '.join(DIGIT_SPEAKERS)}; "
          "thresholds chosen: none (the hearing as shipped), so every speaker is held out")
    print("\n| scenario | tables | shouts N | detected | words right | median abs onset err ms (signed) "
          "| bystander false attributions (with a call) / shout x other seats | talk false alarms (sure enough to judge) | stray events |")
    print("|---|---|---|---|---|---|---|---|---|")
    for k, r in summary["scenarios"].items():
        print(f"| {k} | {r['tables']} | {r['n']} | {pct(r['detected'], r['n'])} | {pct(r['right'], r['n'])} "
              f"| {r['med_abs_ms']} ({r['med_ms']}) | {r['bystander']} ({r['bystander_calls']}) / {r['bystander_n']} "
              f"| {r['talk_alarms']}/{r['talk_n']} ({r['talk_acted']}) | {r['stray']} |")
    outside = {k: r for k, r in summary["speaker"].items() if k.startswith("outside")}
    if outside:
        print("\n| outside: condition | speaker | N | right | detected | wrong (sure other call) | unclear | "
              + " | ".join(f"lost: {k}" for k in LOSSES) + " |")
        print("|---" * (7 + len(LOSSES)) + "|")
        for k, r in outside.items():
            cond, who = k.split(" | ")
            print(f"| {cond[8:]} | {who[5:]} | {r['n']} | {r['right']} | {r['detected']} | {r['wrong']} | {r['unclear']} | "
                  + " | ".join(str(r["losses"][x]) for x in LOSSES) + " |")
    for name in ("speaker", "speaker (all room scenarios)", "snr", "rt60", "rate", "overlap"):
        print(f"\n| by {name} | N | detected | words right | median abs onset err ms (signed) |")
        print("|---|---|---|---|---|")
        for k, r in summary[name].items():
            print(f"| {k} | {r['n']} | {pct(r['detected'], r['n'])} | {pct(r['right'], r['n'])} | {r['med_abs_ms']} ({r['med_ms']}) |")
    print("\ntables:")
    for t in tables:
        if t["scenario"] == "outside":
            continue
        c = tally(t["shouts"])
        print(f"  {t['scenario']}{t['table']}: room {t['room']} m, RT60 {t['rt60']} s, {t['seats']} seats, {t['rate']} Hz, "
              f"calibrated {t['calibrated']}: {c['right']}/{c['n']} right, {c['detected']} detected"
              + (f"; {'; '.join(t['notes'])}" if t["notes"] else ""))


def run(scenarios: list[str], tables: int, moments: int, outside_limit: int | None, seed: int,
        heard_as: str = "listen", outside: dict | None = None) -> list[dict]:
    """Every chosen scenario's tables (scored); ``outside``: :func:`run_outside`'s ``speakers``,
    ``mirror`` and ``enrolled``."""
    outside = outside or dict(speakers=list(FSDD_SHARED), mirror=None, enrolled=(False,))
    pools = load_pools(seed)
    rows = [r for v in pools.digits.values() for r in v] + [r for v in pools.talk.values() for r in v]
    clips = load_clips(rows)
    brng = np.random.default_rng([seed, 7])
    talkers = [read_clip(SPEECH / pools.babble[i]["file"]) for i in brng.permutation(len(pools.babble))[:BABBLE_TALKERS]]
    out = []
    with tempfile.TemporaryDirectory(prefix="table_sim-") as tmp:
        for sc in scenarios:
            if sc == "outside":
                out += run_outside(outside["speakers"], outside["mirror"], outside_limit, Path(tmp), seed, outside["enrolled"],
                                   outside.get("words", "digits"), outside.get("ear"),
                                   outside.get("enroll_takes", DEFAULT_TAKES))
                continue
            used: dict = {}
            for i in range(tables):
                out.append(run_table(sc, i, pools, clips, talkers, used, moments, Path(tmp), seed, heard_as))
                print(f"  {sc}{i} done ({time.strftime('%H:%M:%S')})", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: one small table per scenario, 12 outside clips")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS), help=f"comma-separated, of {', '.join(SCENARIOS)}")
    ap.add_argument("--tables", type=int, default=None, help=f"tables per room scenario (default {TABLES_PER_SCENARIO})")
    ap.add_argument("--moments", type=int, default=None, help=f"moments per table (default {MOMENTS})")
    ap.add_argument("--outside-limit", type=int, default=None, help="outside: this many clips per speaker (default all 80)")
    ap.add_argument("--fsdd", default=None, help=f"outside: the FSDD mirror, a bare git directory of "
                    f"Jakobovski/free-spoken-digit-dataset (default ${FSDD_ENV}); without it only "
                    f"{', '.join(FSDD_SHARED)} are heard, not enrolled")
    ap.add_argument("--outside-speakers", default=None, help=f"outside: comma-separated FSDD speakers (default "
                    f"{', '.join(OUTSIDE_SPEAKERS)} with the mirror, else {', '.join(FSDD_SHARED)})")
    ap.add_argument("--outside-enrolled", choices=("no", "yes", "both"), default="both",
                    help="outside: the speakers' own takes enrolled or not (default both; enrolled needs the mirror)")
    ap.add_argument("--outside-enroll-takes", type=int, choices=(2, 3), default=DEFAULT_TAKES,
                    help="outside, enrolled: takes per digit enrolled, FSDD takes 10, 11 (and 12) (default "
                         f"{DEFAULT_TAKES}, as referee calibrate --enroll-takes)")
    ap.add_argument("--outside-words", choices=sorted(OUTSIDE_WORDS), default="digits",
                    help="outside: the digits two..nine (calls; default) or each speaker's zeros (no call: false alarms)")
    ap.add_argument("--outside-ear", choices=EAR_RULES, default=None,
                    help="outside, not enrolled: each channel heard as shipped and then with the synthetic ear beside "
                         "the speech model by this rule (audio/synthetic_ear.py; not wired in the hearing)")
    ap.add_argument("--ear-thresholds", default=None, metavar="MAX_DISTANCE,MIN_MARGIN",
                    help="with --outside-ear: the ear's thresholds for this run (default the shipped ones, chosen on "
                         f"{', '.join(FSDD_SHARED)}): e.g. those chosen on the other speakers")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--hearing", choices=HEARINGS, default="listen",
                    help="room scenarios heard by referee listen (default) or as referee replay hears a session")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of the text tables")
    ap.add_argument("--save", type=Path, default=None, help="also write the JSON object to this file")
    a = ap.parse_args(argv)
    scenarios = [s.strip() for s in a.scenarios.split(",") if s.strip()]
    if a.ear_thresholds is not None:
        global EAR_THRESHOLDS
        try:
            given = tuple(float(v) for v in a.ear_thresholds.split(","))
            if len(given) != 2:
                raise ValueError
        except ValueError:
            ap.error(f"--ear-thresholds takes MAX_DISTANCE,MIN_MARGIN (two numbers), not {a.ear_thresholds!r}")
        EAR_THRESHOLDS = given
    bad = [s for s in scenarios if s not in SCENARIOS]
    if bad:
        ap.error(f"unknown scenario(s) {', '.join(bad)}; known: {', '.join(SCENARIOS)}")
    if not (SPEECH / "labels.csv").is_file():
        print(f"table_sim: no speech data at {SPEECH} (../shared/data/speech beside the repository)", file=sys.stderr)
        return 2
    mirror = fsdd_dir(a.fsdd)
    if mirror is not None and not (mirror / "HEAD").is_file():
        print(f"table_sim: {mirror} is not a git directory (the FSDD mirror): outside heard without it", file=sys.stderr)
        mirror = None
    if "outside" in scenarios and mirror is None:
        print(f"table_sim: no FSDD mirror (--fsdd or ${FSDD_ENV}): outside hears {', '.join(FSDD_SHARED)} "
              "only, not enrolled", file=sys.stderr)
    speakers = [x.strip() for x in a.outside_speakers.split(",")] if a.outside_speakers else \
        list(OUTSIDE_SPEAKERS if mirror is not None else FSDD_SHARED)
    unknown = [x for x in speakers if x not in OUTSIDE_SPEAKERS]
    if unknown:
        ap.error(f"unknown FSDD speaker(s) {', '.join(unknown)}; known: {', '.join(OUTSIDE_SPEAKERS)}")
    enrolled = {"no": (False,), "yes": (True,), "both": (False, True)}[a.outside_enrolled]
    tables = a.tables or (QUICK_TABLES if a.quick else TABLES_PER_SCENARIO)
    moments = a.moments or (QUICK_MOMENTS if a.quick else MOMENTS)
    limit = a.outside_limit or (QUICK_OUTSIDE if a.quick else None)
    load0, t0 = os.getloadavg(), time.perf_counter()
    results = run(scenarios, tables, moments, limit, a.seed, a.hearing,
                  dict(speakers=speakers, mirror=mirror, enrolled=enrolled, words=a.outside_words, ear=a.outside_ear,
                       enroll_takes=a.outside_enroll_takes))
    meta = dict(elapsed_s=round(time.perf_counter() - t0, 1), load_start=[round(v, 2) for v in load0],
                load_end=[round(v, 2) for v in os.getloadavg()], seed=a.seed, cpus=os.cpu_count(),
                tables_per_scenario=tables, moments=moments, outside_limit=limit, scenarios=scenarios, hearing=a.hearing,
                outside_speakers=speakers, outside_enrolled=list(enrolled), fsdd=None if mirror is None else str(mirror),
                outside_words=a.outside_words, outside_ear=a.outside_ear,
                outside_enroll_takes=a.outside_enroll_takes, ear_thresholds=EAR_THRESHOLDS)
    summary = summarise(results)
    if a.save:
        a.save.write_text(json.dumps(dict(meta=meta, summary=summary, tables=results), default=_plain) + "\n")
    if a.json:
        print(json.dumps(dict(meta=meta, summary=summary, tables=results), default=_plain))
    else:
        print_report(summary, results, meta)
    return 0


def _plain(o):
    if isinstance(o, (np.integer, np.floating)):
        return o.item()
    if hasattr(o, "__dataclass_fields__"):
        return asdict(o)
    raise TypeError(type(o))


if __name__ == "__main__":
    sys.exit(main())

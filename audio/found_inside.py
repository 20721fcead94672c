"""The word found inside its span: when the enrolled voices abstain on an utterance, the call
read again from where the seat's voice rises out of the sound before it (issue 31, item 6).

Why (docs/hearing.md, 2026-12-07 "the demo in rooms the calibration did not hear"): under
babble 10 dB below the seats, 7 of the 9 wordless shouts had their onset moved 41-248 ms early
(the babble just before the word taken into the utterance), and then neither engine recognised
the call from the lengthened span; in a reverberant room a neighbour's echo did the same before
chie's and dai's words. The sound before a word is quieter than the word, so:

- the channel's level just before the utterance (``noise_s``; the babble, the echo) is the
  median of its 32 ms frames there;
- the word's *loud core* is its frames within ``ListenParams.own_db`` (6 dB: the copy test's
  rule that a sound that much louder than another is the seat's own) of its loudest frame;
- from the core's first frame the walk goes back, 1 ms a frame, while frames stand
  ``voice_db`` over that level (``OnsetParams.refine_db``, the onset walk's own test), crossing
  quieter stretches up to ``gap_s`` (``OnsetParams.refine_closure_s``, a stop's closure): where
  it stops, the seat's voice rises;
- the span from there to the detector's end is read by the enrolled voices as the whole
  utterance was (:meth:`audio.listen.Listener.read_voices`: the verify pre-roll and the noise
  before it included), and a call they decide on (as the listener decides: one engine sure, no
  conflict; with ``FoundParams.both_engines``, the other engine sure of it or leaning to it) is
  the word; the shout's onset is re-anchored at the rise. The onset decides who
  was first, and one taken early by the babble was an unearned head start.

The end is not moved: ending the span where the voice falls back into the babble made 4-6 wrong
calls of ~100 found on real voices (FSDD under babble, ``benchmarks/bench_found_inside.py``,
docs/hearing.md), and at the loud core's end george's "six" was read as "3" — a word's soft tail
is part of the word. Nor is the start searched on a grid: the earliest start the word is found
from lay 60-120 ms inside the babble (median) on the same voices.

The record says so: the shout's ``found_inside`` gives the detector's onset (:func:`record`).
Deterministic: levels rounded to 0.01 dB, the verdicts' own rounding. Cost: only where the
enrolled voices abstain (never on the dry demo): one more reading of the utterance (~15-40 ms of
CPU), before the speech model.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from audio.onset import Segment
from session.params import check_ranges


@dataclass(frozen=True)
class FoundParams:
    """Where the word is looked for inside its span (see the module docstring)."""

    #: the channel's level just before the utterance (its babble, its echo) is the median of its
    #: 32 ms frames over this long (s): ``NoiseParams.noise_s``, the enrolled voices' own noise
    #: stretch. Shorter before the utterance than half of it: no search.
    noise_s: float = 0.3
    #: a frame is the seat's voice when it stands this far (dB) over that level:
    #: ``OnsetParams.refine_db``, the onset walk's own test of "the seat's sound".
    voice_db: float = 6.0
    #: the walk crosses quieter stretches this short (s): ``OnsetParams.refine_closure_s``, a
    #: stop's closure (タ's /t/).
    gap_s: float = 0.020
    #: the shortest span read from the rise (s). Why: the shortest call in the demo's and the
    #: FSDD takes lasts ~0.15 s; shorter than this is no call.
    min_s: float = 0.12
    #: where the rise finds nothing to read again (the channel quiet before a babble burst that
    #: opened the utterance) or its reading abstains, the seat's enrolled takes are slid along
    #: the span with a free start (:mod:`audio.found_start`) and the span is read again from
    #: where the best-matching take begins. CPU: one DTW per take and one more reading. False: off.
    free_start: bool = True
    #: ... and, where that reading abstains too, the span is read once more ending where the
    #: best-matching take ends (the word's end, when the detector held the utterance open on the
    #: babble after it); the call must still be that take's. CPU: one more reading. False: off.
    free_end: bool = True
    #: a call decided on a second reading (the rise's, the free start's or end's) needs both engines
    #: where both are enrolled: one sure, the other sure of it or leaning to it (:func:`both_ears`).
    #: Why: each extra reading is another chance for a chance match to pass the same thresholds.
    #: On FSDD under babble (docs/hearing.md, stop 50 "a second reading needs both ears") wrong
    #: calls found 7 -> 0 and "zero"/"one" named 11 -> 1; cost: 105 of 464 words found left
    #: undecided (the player unclear). The first reading is unchanged. False: one engine sure.
    both_engines: bool = True
    #: where the free start's best take begins inside the span's loud core (it matched a call
    #: the word ends with, タコ in イカタコ), the best take that begins before the core is tried
    #: instead (:func:`audio.found_whole.whole_word_start`); the engines' gates and the take's call
    #: still decide. Chosen a priori (the loud-core rule's own consequence, no number); held-out
    #: FSDD wrong calls in docs/hearing.md, stop 51. CPU: one more open-begin DTW per take, twice,
    #: only where the best take was refused. False: off (the refusal ends the search).
    whole_word: bool = True

    def __post_init__(self):
        check_ranges(self, positive=("noise_s", "min_s"), non_negative=("voice_db", "gap_s"))


#: the frames of the level walk: 32 ms windows (the listener's ``level_below`` frames) every 1 ms
FRAME_S, HOP_S = 0.032, 0.001


def levels(x: np.ndarray, rate: int) -> np.ndarray:
    """The level (dB, rounded to 0.01: no decision on the last bits) of ``x``'s 32 ms frames
    every 1 ms; frame ``i`` centred on sample ``i * hop``."""
    from audio.demix import DemixParams, frame_levels

    d = DemixParams(nperseg=max(2, int(round(FRAME_S * rate))), hop=max(1, int(round(HOP_S * rate))))
    return np.round(frame_levels(np.asarray(x, np.float64), d), 2)


def voiced_rise(level: np.ndarray, floor_db: float, own_db: float, voice_db: float, gap: int) -> int:
    """The frame where the word's voice rises: from its loud core's first frame (the frames
    within ``own_db`` of the loudest) back over frames ``voice_db`` over ``floor_db``, crossing
    up to ``gap`` quieter frames in a row."""
    return walk_back(level, int(loud_frames(level, own_db)[0]), floor_db, voice_db, gap)


def loud_frames(level: np.ndarray, own_db: float) -> np.ndarray:
    """The word's loud core: the frames within ``own_db`` of the loudest (the word, louder than
    the sound around it)."""
    return np.flatnonzero(level >= level.max() - own_db)


def floor_before(seg: Segment, samples, at: int, p: "FoundParams") -> float | None:
    """The channel's level just before sample ``at`` (the median of its frames over the
    ``p.noise_s`` before it: the babble, the echo), or None when less than half of that is kept."""
    n = int(round(p.noise_s * seg.rate))
    before = samples(seg.channel, max(0, at - n), at)
    return None if len(before) < n // 2 else float(np.median(levels(before, seg.rate)))


def walk_back(level: np.ndarray, i: int, floor_db: float, voice_db: float, gap: int) -> int:
    """From frame ``i`` back over frames ``voice_db`` over ``floor_db``, crossing up to ``gap``
    quieter frames in a row: the first frame of the seat's sound that reaches ``i``."""
    last = i
    quiet = 0
    while i > 0 and quiet <= gap:
        i -= 1
        if level[i] >= floor_db + voice_db:
            last, quiet = i, 0
        else:
            quiet += 1
    return last


def decided(verdict) -> bool:
    """A call as the listener takes one from the enrolled voices (one engine sure, no conflict)."""
    return verdict is not None and verdict.tokens is not None


def both_ears(verdict) -> bool:
    """The call of a combined verdict (:class:`audio.voices.Combined`) has both engines behind it:
    each sure of it or, abstaining, leaning to it (``nearest``) — the corroboration the enrolled
    voices already ask before overruling the speech model (:data:`audio.voices.LEANS` "agree") and
    the word read whole asks of its cut part. One engine alone (no ``engines``): nothing to ask."""
    call = tuple(verdict.tokens)
    return all(tuple(v.tokens or v.nearest or ()) == call for _, v in getattr(verdict, "engines", ()))


def decided_again(verdict, p: FoundParams) -> bool:
    """A call taken from a second reading: decided as the listener decides, and with
    ``p.both_engines``, heard by both engines (:func:`both_ears`)."""
    return decided(verdict) and (not p.both_engines or both_ears(verdict))


def find_inside(seg: Segment, samples, read, own_db: float, p: FoundParams):
    """``(segment, verdict, features)`` of the word found inside ``seg`` (see the module
    docstring), or None. ``samples(channel, start, end)``: the channel's samples there;
    ``read(segment)``: the enrolled voices' ``(verdict, features)`` of a span
    (:meth:`audio.listen.Listener.read_voices`); ``own_db``: ``ListenParams.own_db``."""
    rate = seg.rate
    floor = floor_before(seg, samples, seg.start, p)
    x = samples(seg.channel, seg.start, seg.end)
    if floor is None or len(x) < int(FRAME_S * rate):
        return None
    hop = max(1, int(round(HOP_S * rate)))
    rise = voiced_rise(levels(x, rate), floor, own_db, p.voice_db, int(round(p.gap_s / HOP_S)))
    a = seg.start + rise * hop
    if a == seg.start or seg.end - a < int(p.min_s * rate):
        return None  # nothing before the voice's rise (the span as read), or too little after it
    later = replace(seg, start=a)
    verdict, feats = read(later)
    return (later, verdict, feats) if decided_again(verdict, p) else None


def record(old: Segment) -> dict:
    """The shout's ``found_inside`` field: the detector's onset, from which it was re-anchored."""
    return {"onset_from": round(old.t, 4)}

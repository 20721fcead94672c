"""The word found with a free start: where the rise (:mod:`audio.found_inside`) finds nothing,
the seat's enrolled takes are matched against the utterance with a free start and a free end
(an open-begin, subsequence DTW), and the word is read again from where it starts (issue 31,
item 6).

Why (docs/hearing.md, stop 49): under babble, 4 of the demo's 6 shouts still without their word
had the channel quiet just before the utterance — a babble burst opened it, so the walk back
from the word's loud core runs through the burst to the utterance's start and there is nothing
to rise out of. The word itself is still in the span, after the burst: a take of it, slid along
the span, lies nearest where the word starts.

- The span's log-mel frames (:func:`audio.enroll.mel_power`, 25 ms every 10 ms, the templates'
  own) are matched against each enrolled take of the seat's player (the templates, as enrolled)
  with a free start and a free end (:func:`open_begin`): the take's frames must all be used, the
  span's only where they fit. Frames are mean-normalised as a take is, over the matched part
  (one pass over the whole span, a second over the part the first matched: the burst's colour
  taken out of the mean).
- The best-matching take's start is where its call begins. From there the onset walk of
  :func:`audio.found_inside.walk_back` goes back over frames ``voice_db`` over the level of
  the ``noise_s`` before that start (the burst, or the quiet before the word), crossing stops'
  closures: the seat's voice rising out of what precedes it.
- A start found after the span's *loud core* (its frames within ``ListenParams.own_db`` of the
  loudest, the rise's own core) is refused: a take matched the word's end only (on FSDD voices,
  jackson's word read from 330 ms inside it gave another call, before this rule); so is an end
  found before the core's last frame (a short take, "two", matched the babble and the word's
  first part: nicolas's and yweweler's words read "2", before this rule).
- The span from there to the detector's end is read by the enrolled voices as an utterance is
  (:meth:`audio.listen.Listener.read_voices`), and only a call they *decide* (as the listener
  decides: one engine sure at its own ``max_distance``/``min_margin``, no conflict; with
  ``FoundParams.both_engines`` the other sure of it or leaning to it) **and** the
  call whose take found the start is the word. Where that reading abstains
  (``FoundParams.free_end``), the span is read once more ending where the take's match ends
  (the detector held the utterance open on the babble after the word), under the same two
  conditions. No new threshold: the search only proposes where to read; the engines' existing
  gates decide.

The record is the rise's: ``found_inside: {"onset_from": …}`` (:func:`audio.found_inside.record`),
and the judge's ``onset_unsure`` protection applies (a re-anchored onset may be late, it never
costs a player the first). Deterministic: the DTW's costs rounded to
:data:`audio.enroll.DISTANCE_DECIMALS` before the best take is chosen. Cost: only where both the
span and its rise abstain: one open-begin DTW per take, twice (~35 ms of CPU for 8 takes),
and one or two more readings.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from audio.capture import resampled
from audio.enroll import DISTANCE_DECIMALS, HOP_S, mel_power
from audio.found_inside import FRAME_S, FoundParams, decided_again, floor_before, levels, loud_frames, walk_back
from audio.found_inside import HOP_S as LEVEL_HOP_S
from audio.found_whole import whole_word_start
from audio.onset import Segment


def open_begin(take: np.ndarray, span: np.ndarray) -> tuple[float, int, int]:
    """``(cost, start, end)``: ``take``'s frames [n, d] aligned with a stretch ``start .. end``
    (frames, end inclusive) of ``span``'s [m, d], each of the take's frames used, the stretch's
    start and end free. Steps (take, span): (1, 1), (1, 0) and (1, 2) — a take frame on the next
    span frame, on the same one, or on one after a skipped frame (the span spoken up to twice as
    slowly): each take frame's row depends only on the row before, so a row is a few vector
    operations. The cost of a path is its frame costs' sum over (n + the stretch's length), as
    :func:`audio.enroll.dtw` normalises. The frame costs are rounded to ``DISTANCE_DECIMALS``
    first (their sums pass through SIMD reductions): the path, its start included, is then the
    same on every computer; the path's cost is rounded too."""
    cost = np.round(np.sqrt(((take[:, None, :] - span[None, :, :]) ** 2).sum(axis=2)), DISTANCE_DECIMALS)
    n, m = cost.shape
    acc, start = cost[0].copy(), np.arange(m)  # the take's first frame: anywhere in the span
    for i in range(1, n):
        options = np.full((3, m), np.inf)
        options[0, 1:] = acc[:-1]  # (i-1, j-1)
        options[1] = acc  # (i-1, j)
        options[2, 2:] = acc[:-2]  # (i-1, j-2)
        pick = np.argmin(options, axis=0)  # the first on ties: the same path on every computer
        cols = np.arange(m) - np.array([1, 0, 2])[pick]
        ok = np.isfinite(options[pick, np.arange(m)])
        acc = np.where(ok, options[pick, np.arange(m)] + cost[i], np.inf)
        start = np.where(ok, start[np.clip(cols, 0, m - 1)], 0)
    norm = np.round(acc / (n + np.arange(m) - start + 1), DISTANCE_DECIMALS)
    end = int(np.argmin(norm))
    return float(norm[end]), int(start[end]), end


def best_start(takes, logmel: np.ndarray, holds=None) -> tuple[tuple[str, ...], int, int] | None:
    """The call of the take that best matches a stretch of the span's log-mel frames, and
    where that stretch starts and ends (frames): first over the span mean-normalised as a
    whole, then over it normalised by the mean of the part matched (the burst before it left
    out). ``holds(start, end)``: only the matches it accepts are taken (None: any)."""
    if not takes or len(logmel) < 2:
        return None
    lo, hi = 0, len(logmel) - 1
    for _ in range(2):
        span = logmel - logmel[lo : hi + 1].mean(axis=0)
        found = [(open_begin(feats, span), tokens) for tokens, feats in takes if len(feats) >= 2]
        found = [f for f in found if holds is None or holds(f[0][1], f[0][2])]
        if not found:
            return None
        (_, lo, hi), call = min(found, key=lambda f: (f[0][0], f[1]))
    return call, lo, hi


def loud_core(x: np.ndarray, rate: int, own_db: float) -> tuple[int, int]:
    """The first and last sample of the span's loud core (its 1 ms frames within ``own_db`` of
    the loudest: the word, louder than the sound around it, as
    :func:`audio.found_inside.voiced_rise` takes it). A reading that starts after the first or
    ends before the last has cut into the word."""
    core = loud_frames(levels(x, rate), own_db) * max(1, int(round(LEVEL_HOP_S * rate)))
    return int(core[0]), int(core[-1])


def rise_before(seg: Segment, samples, at: int, p: FoundParams) -> int | None:
    """Where the seat's voice rises before sample ``at`` (the onset walk of
    :func:`audio.found_inside.walk_back` over the level of the ``noise_s`` before ``at``), or
    None when too little of the channel is kept before it."""
    floor = floor_before(seg, samples, at, p)
    if floor is None:
        return None
    hop = max(1, int(round(LEVEL_HOP_S * seg.rate)))
    level = levels(samples(seg.channel, seg.start, at + int(FRAME_S * seg.rate)), seg.rate)  # no edge frame at ``at``
    back = walk_back(level, (at - seg.start) // hop, floor, p.voice_db, int(round(p.gap_s / LEVEL_HOP_S)))
    return seg.start + back * hop


def find_from_start(seg: Segment, samples, read, takes, rate: int, own_db: float, p: FoundParams):
    """``(segment, verdict, features)`` of the word found with a free start inside ``seg`` (see
    the module docstring), or None. ``samples``, ``read``, ``own_db``: as for
    :func:`audio.found_inside.find_inside`; ``takes``: the seat's player's enrolled templates
    ``[(tokens, features)]`` at ``rate``."""
    if seg.end - seg.start < int(p.min_s * seg.rate):
        return None
    x = samples(seg.channel, seg.start, seg.end)
    logmel = np.log(mel_power(resampled(x, seg.rate, rate), rate) + 1e-10)
    core = loud_core(x, seg.rate, own_db)
    found = best_start(takes, logmel)
    a = None if found is None else rise_before(seg, samples, match_start(seg, found[1]), p)
    if found is not None and a is not None and a > seg.start + core[0] and p.whole_word:
        # a take matched the word's end only (タコ at the end of イカタコ): the best take whose
        # reading holds the loud core is the candidate (:func:`audio.found_whole.whole_word_start`)
        found, a = whole_word_start(takes, logmel, (seg.start + core[0], seg.start + core[1]), best_start,
                                    lambda at: rise_before(seg, samples, at, p),
                                    lambda first: match_start(seg, first), lambda last: match_end(seg, last))
    if found is None:
        return None
    call, first, last = found
    if a is not None and a > seg.start + core[0]:
        return None  # a take matched the word's end only: the start found inside its loud core
    b = match_end(seg, last)
    spans = [(a, seg.end)] if a is not None and a > seg.start else []
    if p.free_end and seg.end - b >= int(round(p.gap_s * seg.rate)) and b > seg.start + core[1]:
        # the word ends well before the span, after the loud core (a match ending inside it cut the word)
        spans.append((a if a is not None and a > seg.start else seg.start, b))
    for start, end in spans:
        if end - start >= int(p.min_s * seg.rate):
            later = replace(seg, start=start, end=end)
            verdict, feats = read(later)
            if decided_again(verdict, p) and tuple(verdict.tokens) == tuple(call):
                return later, verdict, feats
    return None


def match_start(seg: Segment, first: int) -> int:
    """The sample where a match starting on log-mel frame ``first`` starts."""
    return seg.start + int(round(first * HOP_S * seg.rate))


def match_end(seg: Segment, last: int) -> int:
    """The sample where a match ending on log-mel frame ``last`` ends (its frame's end), within the span."""
    return min(seg.end, seg.start + int(round((last * HOP_S + FRAME_S) * seg.rate)))

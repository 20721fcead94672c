"""REFERENCE ONLY (tests): the onset detector as it was before its per-frame work was
vectorised over blocks (commit 6c03c8e), frame by frame in numpy. ``test_onset_block.py``
proves the block-vectorised :mod:`audio.onset` gives the very same segments. Not used by
the program; do not change it (it is the definition the fast one is checked against).

Where each seat's utterances start and end: band-pass energy onsets with a noise floor.

One stage, one verb: ``OnsetDetector.update(block) -> [Segment]`` (and ``flush()`` at the
end). Per channel, per ``hop_s`` frame:

1. *band-pass* the samples to the voice band (``band_hz``) and take the mean energy over
   the last ``smooth_s`` — rumble, hum and hiss outside the band do not trigger;
2. track a *noise floor* in dB: it follows the energy down quickly
   (``floor_down_db_per_s``) and creeps up slowly (``floor_up_db_per_s``), so it sits on
   the quiet between utterances;
3. *own energy* (close mics, one per seat): a channel's energy minus
   ``10^(-crosstalk_db/10)`` × the loudest other channel's — a neighbour's voice leaks in
   at about -10 dB, so leakage alone gives nothing while the seat's own voice survives
   even when a neighbour talks at the same time (``remove_room`` would also subtract the
   others' median, i.e. diffuse room noise: measured worse on babble, so off). A single
   channel is its own energy;
4. an utterance *starts* at the first frame of a run above floor + ``start_db`` that
   reaches floor + ``trigger_db`` and lasts ``min_speech_s``; dips below ``start_db``
   shorter than ``dip_s`` do not break the run (a plosive's closure, a babble trough:
   without this a quiet voice's run broke up and was confirmed only after a louder
   neighbour started — seats misordered); it *ends* after ``hangover_s`` below floor +
   ``start_db``, or is cut at ``max_utterance_s``.

Attribution: the segment's channel is its seat. With three or more channels the segment
must also stand ``dominance_db`` above the median of the other channels (research: a
speaking seat's close mic is ≥ 5 dB above them); a run that does not is cross-talk or
room babble: it is dropped and a new run may start at the next loud frame (waiting for
quiet instead made onsets in babble hundreds of ms late).

Refinement (``refine``): the confirmed run's first frame is where the *compensated*
energy passed ``start_db`` — a weak initial consonant (サ's /s/, タ's /t/ burst) is below
that, so onsets came tens of ms late in babble and seats were misordered. Once a run is
confirmed, the detector walks back from its first frame, over the last ``refine_max_s``
of frames it keeps, while the seat's raw energy is its own sound: ``refine_db`` above its
floor AND ``refine_dominance_db`` above the median of the other channels (so neither room
babble, which reaches every mic alike, nor an earlier seat's cross-talk, which raises the
other mics as much, is walked into), in either the voice band or a high band
``hf_band_hz`` with its own floor (``HF_FLOOR_PERCENTILE`` of the kept frames before the
run, computed only at a confirmed onset: cheap; fricatives carry their energy above the babble's);
gaps up to ``refine_gap_s`` are crossed. The walk never goes before the channel's
previous utterance. Measured effect in ``python benchmarks/bench_audio.py`` (docs/hearing.md).

Latency before an onset is known: ``min_speech_s`` (+ one block); before an utterance is
complete: ``hangover_s``; an utterance is final only when no other channel's candidate
run could still be refined back before it (``earliest_start``), i.e. up to
``refine_max_s`` longer while another seat's run is pending.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np
from scipy import signal

from audio.capture import Block

NEG_DB = -200.0
HF_FLOOR_PERCENTILE = 5.0  # the high band's floor for the walk: this percentile of the kept frames before the run


@dataclass(frozen=True)
class OnsetParams:
    """Every threshold of the detector (see the module docstring for what each does)."""

    band_hz: tuple[float, float] = (300.0, 6000.0)  # voice band incl. fricatives (s, sh); delay ~1 ms
    hop_s: float = 0.001  # frame step: onset resolution
    smooth_s: float = 0.004  # energy window (trailing): smooths, delays ≤ this
    floor_up_db_per_s: float = 2.0  # floor rise rate (slow: speech does not lift it)
    floor_down_db_per_s: float = 60.0  # floor fall rate (fast: recovers after speech)
    min_floor_db: float = -90.0  # floor never below this (digital silence)
    start_db: float = 9.0  # onset = first frame this far above the floor...
    trigger_db: float = 15.0  # ...of a run that gets this far above it
    min_speech_s: float = 0.04  # ...and lasts this long (latency cost: this)
    dip_s: float = 0.008  # a run survives dips below start_db this short (a plosive's closure; latency: none)
    max_rise_s: float = 0.3  # a run must reach the trigger within this, else its start moves on
    hangover_s: float = 0.25  # quiet that ends an utterance (latency cost: this)
    max_utterance_s: float = 3.0  # an utterance is cut here (a reaction window)
    crosstalk_db: float = 6.0  # a channel this far below the loudest other is leakage
    dominance_db: float = 3.0  # ≥3 channels: level over the others' median to be a seat's own
    remove_room: bool = False  # ≥3 channels: also subtract the others' median (measured worse: off)
    # backward refinement of a confirmed onset (see "Refinement" in the module docstring)
    refine: bool = True  # walk back from the detected onset to where the seat's own sound began
    refine_db: float = 6.0  # a frame is the seat's sound if this far above the floor (its band's)...
    refine_dominance_db: float = 3.0  # ...and (≥2 channels) this far above the others' median
    refine_gap_s: float = 0.008  # dips this short do not stop the walk (a plosive's closure)
    refine_max_s: float = 0.25  # walk back at most this far (latency cost: results wait this long)
    hf_band_hz: tuple[float, float] = (2500.0, 7000.0)  # fricatives (s, sh, ts): above the babble's energy


@dataclass(frozen=True)
class Segment:
    """One utterance on one channel: sample indices (the clock) and times in seconds."""

    channel: int
    start: int  # first sample index of the onset frame
    end: int  # sample index after the last loud frame
    rate: int
    offset: float = 0.0
    peak_db: float = 0.0  # own energy peak over the floor
    dominance_db: float | None = None  # level over the median of the other channels
    cut: bool = False  # ended by max_utterance_s, not by quiet

    @property
    def t(self) -> float:
        return self.offset + self.start / self.rate

    @property
    def t_end(self) -> float:
        return self.offset + self.end / self.rate


@dataclass
class _Chan:
    floor: float | None = None
    cand: int | None = None  # frame where the current run above start began
    peak: float = NEG_DB
    active: bool = False
    onset: int = 0
    last_loud: int = 0
    wait_quiet: bool = False  # after a cut: wait for quiet before a new onset
    dominance: float | None = None
    dips: int = 0  # frames of the current dip below start_db inside a run
    last_end: int = 0  # frame after the previous utterance: a refined onset never goes before it


class OnsetDetector:
    """Streaming onset/offset detection over all channels of one interface."""

    def __init__(self, channels: int, rate: int, params: OnsetParams | None = None, offset: float = 0.0):
        self.p = p = params or OnsetParams()
        self.channels, self.rate, self.offset = channels, rate, offset
        self.hop = max(1, int(round(p.hop_s * rate)))
        lo, hi = p.band_hz
        hi = min(hi, 0.45 * rate)
        self.sos = signal.butter(2, [lo, hi], btype="bandpass", fs=rate, output="sos")
        self.zi = np.zeros((self.sos.shape[0], 2, channels))
        self.smooth = max(1, int(round(p.smooth_s / p.hop_s)))
        self._recent: deque = deque(maxlen=self.smooth)  # last hop energies (channels,)
        self._history: deque = deque(maxlen=int(1.0 / p.hop_s))  # smoothed energies, for dominance
        self._leftover = np.zeros((0, channels))
        self._frame = 0  # index of the next frame
        self._first_index: int | None = None
        self.leak = 10 ** (-p.crosstalk_db / 10)
        self.chans = [_Chan() for _ in range(channels)]
        self.bands = 1
        if p.refine:
            hlo, hhi = p.hf_band_hz
            hhi = min(hhi, 0.45 * rate)
            if hlo < hhi:
                self.bands = 2
                self.sos_hf = signal.butter(2, [hlo, hhi], btype="bandpass", fs=rate, output="sos")
                self.zi_hf = np.zeros((self.sos_hf.shape[0], 2, channels))
            # ring of recent frames for the backward walk: energies and floors (dB), per band
            self._ring_len = int(round(p.refine_max_s / p.hop_s)) + 2
            self._ring = np.full((self._ring_len, 2, self.bands, channels), NEG_DB)
        self._leftover = np.zeros((0, channels * self.bands))

    # frame f covers samples [base + f*hop, base + (f+1)*hop)
    def _sample(self, frame: int) -> int:
        return (self._first_index or 0) + frame * self.hop

    def update(self, block: Block) -> list[Segment]:
        """Feed one block; return the utterances that ended in it."""
        if self._first_index is None:
            self._first_index = block.index
            self.offset = block.offset
        x = np.asarray(block.data, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != self.channels:
            raise ValueError(f"block of shape {x.shape}, expected {self.channels} channels")
        y, self.zi = signal.sosfilt(self.sos, x, axis=0, zi=self.zi)
        if self.bands == 2:
            h, self.zi_hf = signal.sosfilt(self.sos_hf, x, axis=0, zi=self.zi_hf)
            y = np.concatenate([y, h], axis=1)
        y = np.concatenate([self._leftover, y * y])
        n = len(y) // self.hop
        self._leftover = y[n * self.hop :]
        energies = y[: n * self.hop].reshape(n, self.hop, y.shape[1]).mean(axis=1)
        out: list[Segment] = []
        for e in energies:
            self._recent.append(e)
            out += self._step(np.mean(self._recent, axis=0))
        return out

    def flush(self) -> list[Segment]:
        """Close utterances still open (end of the recording or of a reaction window)."""
        out = []
        for k, c in enumerate(self.chans):
            if c.active:
                out.append(self._close(k, c, c.last_loud + 1, cut=True))
            c.cand = None
        return out

    def earliest_start(self) -> int | None:
        """Sample index before which no utterance not yet returned can start (None: none pending).

        An active utterance starts at its onset; a candidate run may still be confirmed and
        then refined back by up to ``refine_max_s``.
        """
        back = int(round(self.p.refine_max_s / self.p.hop_s)) if self.p.refine else 0
        frames = [c.onset if c.active else c.cand - back for c in self.chans if c.active or c.cand is not None]
        return self._sample(max(0, min(frames))) if frames else None

    def _step(self, e_all: np.ndarray) -> list[Segment]:
        p, f = self.p, self._frame
        self._frame += 1
        e = e_all[: self.channels]
        self._history.append(e)
        e_db = 10 * np.log10(np.maximum(e, 1e-20))
        if self.channels > 1:
            top = int(np.argmax(e))
            others = np.full(self.channels, e[top])
            others[top] = np.max(np.delete(e, top))  # loudest other channel, per channel
            own = e - self.leak * others
            if self.channels >= 3 and self.p.remove_room:
                # diffuse room noise reaches every mic alike: the others' median is its level
                median = np.array([np.median(np.delete(e, k)) for k in range(self.channels)])
                own = np.minimum(own, e - median)
        else:
            own = e
        own_db = np.where(own > 0, 10 * np.log10(np.maximum(own, 1e-20)), NEG_DB)
        out = []
        for k, c in enumerate(self.chans):
            c.floor = self._follow(c.floor, float(e_db[k]))
            level = own_db[k] - c.floor
            loud = level > p.start_db
            if c.active:
                if loud:
                    c.last_loud = f
                    c.peak = max(c.peak, level)
                if f - c.last_loud >= p.hangover_s / p.hop_s:
                    out.append(self._close(k, c, c.last_loud + 1, cut=False))
                elif f - c.onset >= p.max_utterance_s / p.hop_s:
                    out.append(self._close(k, c, f, cut=True))
                    c.wait_quiet = True
                continue
            if not loud:
                c.dips += 1
                if c.cand is None or c.dips > p.dip_s / p.hop_s:
                    c.cand, c.peak, c.wait_quiet = None, NEG_DB, False
                continue
            c.dips = 0
            if c.wait_quiet:
                continue
            if c.cand is None or (f - c.cand >= p.max_rise_s / p.hop_s and c.peak < p.trigger_db):
                c.cand, c.peak = f, level  # (a long murmur never reaching the trigger: start over)
            c.peak = max(c.peak, level)
            if c.peak >= p.trigger_db and (f - c.cand + 1) >= p.min_speech_s / p.hop_s:
                c.dominance = self._dominance(k, f - c.cand + 1)
                if c.dominance is not None and c.dominance < p.dominance_db:
                    c.cand = None  # cross-talk or room noise: a new run may start next frame
                    continue
                c.active, c.onset, c.last_loud = True, c.cand, f
                if p.refine:
                    c.onset = self._refine(k, c.cand, f)
        if p.refine:
            slot = self._ring[f % self._ring_len]
            slot[0, 0] = e_db
            slot[1, 0] = [c.floor for c in self.chans]
            if self.bands == 2:
                slot[0, 1] = 10 * np.log10(np.maximum(e_all[self.channels :], 1e-20))
        return out

    def _follow(self, floor: float | None, level: float) -> float:
        """One step of the noise floor: down fast to the level, up slowly."""
        p = self.p
        if floor is None:
            return max(level, p.min_floor_db)
        if level < floor:
            return max(level, floor - p.floor_down_db_per_s * p.hop_s, p.min_floor_db)
        return floor + p.floor_up_db_per_s * p.hop_s

    def _refine(self, k: int, cand: int, f: int) -> int:
        """The earliest frame before ``cand`` still the seat's own sound (see the module docstring)."""
        p = self.p
        lo = max(cand - int(round(p.refine_max_s / p.hop_s)), self.chans[k].last_end, f - self._ring_len + 2, 0)
        if lo >= cand:
            return cand
        frames = np.arange(lo, cand)
        ring = self._ring[frames % self._ring_len]  # [frames, (level, floor), band, channel]
        level, floor = ring[:, 0], ring[:, 1].copy()
        if self.bands == 2:  # the high band's floor: a low percentile of the kept frames before the run
            start = max(0, f - self._ring_len + 2)
            kept = self._ring[np.arange(start, cand) % self._ring_len, 0, 1, k]
            floor[:, 1, k] = np.percentile(kept, HF_FLOOR_PERCENTILE)
        own = level[:, :, k] >= floor[:, :, k] + p.refine_db
        if self.channels > 1:
            others = np.median(np.delete(level, k, axis=2), axis=2)
            own &= level[:, :, k] >= others + p.refine_dominance_db
        own = own.any(axis=1)
        gap = int(round(p.refine_gap_s / p.hop_s))
        onset, quiet = cand, 0
        for i in range(len(frames) - 1, -1, -1):
            if own[i]:
                onset, quiet = int(frames[i]), 0
            else:
                quiet += 1
                if quiet > gap:
                    break
        return onset

    def _dominance(self, k: int, frames: int) -> float | None:
        if self.channels < 3:
            return None
        recent = np.array(list(self._history)[-frames:])
        mean = recent.mean(axis=0)
        others = np.median(np.delete(mean, k))
        return float(10 * np.log10(max(mean[k], 1e-20) / max(others, 1e-20)))

    def _close(self, k: int, c: _Chan, end_frame: int, cut: bool) -> Segment:
        seg = Segment(
            channel=k,
            start=self._sample(c.onset),
            end=self._sample(end_frame),
            rate=self.rate,
            offset=self.offset,
            peak_db=round(float(c.peak), 1),
            dominance_db=None if c.dominance is None else round(c.dominance, 1),
            cut=cut,
        )
        c.active, c.cand, c.peak, c.last_end = False, None, NEG_DB, end_frame
        return seg

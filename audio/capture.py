"""Audio in: recordings (WAV, a video's audio track) and live multi-channel input.

Every source yields :class:`Block` s of float32 samples ``[frames, channels]`` stamped
with their first sample's index and the session time of sample 0, so a sample's time is
``offset + index / rate`` — the capture clock, never the wall clock. Live sources also
yield :class:`Status` when the device drops or comes back (``audio_status`` events).

Live input goes through a *stream factory* (``factory(device, channels, rate, blocksize,
callback) -> stream`` with ``start()``/``stop()``/``close()``), by default
``sounddevice.InputStream``. Tests pass a factory that plays a WAV file through the
callback, so the real capture code (queue, clock, drop/return handling) runs without a
sound card.
"""

from __future__ import annotations

import queue
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from session.errors import DeviceError, MediaError, unreadable_reason
from session.params import check_ranges

#: Samples per block handed to the pipeline (latency cost: one block, 20 ms at 48 kHz).
DEFAULT_BLOCK_S = 0.02


@dataclass(frozen=True)
class Block:
    """``data[frames, channels]`` float32 in [-1, 1]; first sample ``index`` on the clock."""

    index: int
    data: np.ndarray
    rate: int
    offset: float = 0.0

    @property
    def t(self) -> float:
        return self.offset + self.index / self.rate


@dataclass(frozen=True)
class Status:
    """The device dropped (``lost``) or came back (``ok``), dropped samples (``overflow``), or
    its ADC time was implausible and the callback time stamps the audio (``clock``)."""

    t: float
    state: str
    detail: str = ""

    def to_event(self) -> dict:
        from session.events import AudioStatusEvent

        return AudioStatusEvent(t=round(self.t, 4), state=self.state, detail=self.detail or None).to_dict()


# ------------------------------------------------------------------ files (PyAV)
_SCALE = {"s16": 32768.0, "s16p": 32768.0, "s32": 2147483648.0, "s32p": 2147483648.0, "u8": 128.0, "u8p": 128.0}


def _frame_array(frame) -> np.ndarray:
    """A decoded PyAV audio frame as float32 [samples, channels]."""
    fmt = frame.format.name
    arr = frame.to_ndarray()
    ch = frame.layout.nb_channels
    if frame.format.is_planar:
        arr = arr.T  # (channels, n) -> (n, channels)
    else:
        arr = arr.reshape(-1, ch)
    arr = arr.astype(np.float32)
    if fmt.startswith("u8"):
        arr = (arr - 128.0) / 128.0
    elif fmt in _SCALE:
        arr = arr / _SCALE[fmt]
    return arr


class FileSource:
    """A WAV file or the audio track of a video, read with PyAV, in blocks.

    Sample-accurate: the first decoded frame's PTS (in the stream's time base) places the
    recording on the session clock; from there samples are counted. ``offset`` adds the
    session time at which the file's time 0 lies (0 when the file starts the session).

    ``channels``: how many channels to hear (the seats' channels 0..n-1); a file with more
    (an 8-input interface recorded whole) gives only those, so its unused inputs never take
    part in the cross-talk cancellation. ``rate``: the sample rate the blocks must have (the calibration's). A file recorded at
    another rate is resampled on the fly (polyphase, :class:`Resampler`; ``resampled_from``
    then holds the file's own rate), so the onset detector, the speech model and the
    enrolled voices never hear a recording at a rate they were not set up for.
    """

    def __init__(self, path: str | Path, offset: float = 0.0, block_s: float = DEFAULT_BLOCK_S,
                 rate: int | None = None, channels: int | None = None):
        import av  # PyAV: FFmpeg bundled in the wheel

        self.path = Path(path)
        if not self.path.is_file():
            raise MediaError(f"{self.path}: no such file")
        try:
            self._container = av.open(str(self.path))
        except (av.error.FFmpegError, ValueError, OSError) as exc:
            raise MediaError(f"{self.path}: not a readable audio or video file ({unreadable_reason(self.path, exc)})") from None
        if not self._container.streams.audio:
            self._container.close()
            raise MediaError(f"{self.path}: has no audio track")
        self._stream = self._container.streams.audio[0]
        #: the file's own sample rate
        self.file_rate = int(self._stream.rate or 0)
        #: the file's own channel count; ``channels`` (the seats' channels) keeps the first ones
        self.file_channels = int(self._stream.codec_context.layout.nb_channels)
        if self.file_rate <= 0 or self.file_channels <= 0:
            self._container.close()
            raise MediaError(f"{self.path}: audio track without a sample rate or channels")
        self.channels = min(self.file_channels, channels) if channels else self.file_channels
        if rate is not None and (isinstance(rate, bool) or not isinstance(rate, int) or not 1000 <= rate <= 384000):
            self._container.close()
            raise MediaError(f"{self.path}: cannot resample to {rate!r} Hz (a rate in 1000..384000 expected)")
        self.rate = rate or self.file_rate
        #: the file's rate when the blocks are resampled from it, else None
        self.resampled_from = self.file_rate if self.rate != self.file_rate else None
        self.offset = offset
        self.block = max(1, int(round(block_s * self.rate)))
        self.declared = _declared_frames(self.path)
        #: set after reading when the file held fewer samples than its header declares
        self.warning: str | None = None

    def close(self) -> None:
        """Close the file without reading it (a probe: rate and channels only)."""
        self._container.close()

    def _frames(self) -> Iterator[tuple[float, np.ndarray]]:
        """``(start seconds, samples)`` of each decoded frame at the file's own rate (the
        start is given for the first frame only; later frames follow without a gap)."""
        import av

        first = True
        try:
            for frame in self._container.decode(self._stream):
                start = 0.0
                if first and frame.pts is not None and frame.time_base is not None:
                    start = float(frame.pts * frame.time_base)
                first = False
                data = _frame_array(frame)
                yield start, (data if data.shape[1] == self.channels else
                              np.ascontiguousarray(data[:, : self.channels]))
        except (av.error.FFmpegError, ValueError) as exc:
            raise MediaError(f"{self.path}: audio data is corrupt ({exc})") from None
        finally:
            self._container.close()

    def __iter__(self) -> Iterator[Block]:
        index: int | None = None
        pending: list[np.ndarray] = []
        npend = 0
        read = [0]  # samples at the file's rate (for the header check)
        resampler = Resampler(self.file_rate, self.rate, self.channels) if self.resampled_from else None

        def chunks() -> Iterator[tuple[float, np.ndarray]]:
            for start, data in self._frames():
                read[0] += len(data)
                if resampler is None:
                    yield start, data
                else:
                    yield start, resampler.feed(data)
            if resampler is not None:
                yield 0.0, resampler.flush()

        for start, data in chunks():
            if index is None:
                index = int(round(start * self.rate))
            if not len(data):
                continue
            pending.append(data)
            npend += len(data)
            while npend >= self.block:
                buf = np.concatenate(pending)
                yield Block(index, buf[: self.block], self.rate, self.offset)
                index += self.block
                rest = buf[self.block :]
                pending, npend = ([rest] if len(rest) else []), len(rest)
        if index is None or (read[0] == 0):
            raise MediaError(f"{self.path}: the audio track holds no samples")
        if npend:
            yield Block(index, np.concatenate(pending), self.rate, self.offset)
        if self.declared is not None and read[0] < self.declared:
            self.warning = (f"{self.path}: the audio ends after {read[0] / self.file_rate:.2f} s but its header "
                            f"declares {self.declared / self.file_rate:.2f} s (a truncated file?)")


def resampled(x: np.ndarray, rate: int, to: int) -> np.ndarray:
    """Samples ``x`` at ``rate`` as float32 at ``to`` (one polyphase pass over the whole array,
    in float64; unchanged but for the type when the rates agree): a take, a clip — what is
    held whole (a stream: :class:`Resampler`)."""
    if rate == to:
        return np.asarray(x).astype(np.float32)
    from math import gcd

    from scipy import signal

    g = gcd(int(rate), int(to))
    return signal.resample_poly(np.asarray(x).astype(np.float64), int(to) // g, int(rate) // g).astype(np.float32)


class Resampler:
    """Streaming polyphase resampling (``scipy.signal.resample_poly``) of float32
    ``[n, channels]`` chunks from rate ``src`` to ``dst``.

    The input is cut into pieces of :data:`RESAMPLE_CHUNK_S`, each resampled with
    :data:`RESAMPLE_CONTEXT` ``down``-periods of the neighbouring input on both sides and
    trimmed to its own span, so the output equals resampling the whole recording at once
    (up to float rounding) without holding it in memory. Cost: latency of one piece plus the
    context (about 1 s; offline replay only), ~2 ms of CPU per second of 4-channel audio.
    """

    def __init__(self, src: int, dst: int, channels: int):
        from math import gcd

        g = gcd(src, dst)
        self.up, self.down = dst // g, src // g
        # resample_poly's default filter reaches 10 * max(up, down) taps of the upsampled
        # signal on each side: ceil(that / up) input samples, rounded up to whole periods
        reach = -(-10 * max(self.up, self.down) // self.up) + 1
        self.context = -(-reach // self.down) * self.down
        self.chunk = max(1, int(RESAMPLE_CHUNK_S * src) // self.down) * self.down
        self.channels = channels
        self._buf = np.zeros((0, channels), np.float32)
        self._done = 0  # input samples of the buffer already turned into output (from its start)

    def feed(self, data: np.ndarray) -> np.ndarray:
        self._buf = np.concatenate([self._buf, data.astype(np.float32, copy=False)])
        out = []
        while len(self._buf) - self._done >= self.chunk + self.context:
            out.append(self._piece(self._done, self._done + self.chunk))
            self._done += self.chunk
            drop = max(0, self._done - self.context)
            self._buf, self._done = self._buf[drop:], self._done - drop
        return np.concatenate(out) if out else np.zeros((0, self.channels), np.float32)

    def flush(self) -> np.ndarray:
        """The output of the input left (the end of the recording)."""
        if len(self._buf) <= self._done:
            return np.zeros((0, self.channels), np.float32)
        out = self._piece(self._done, len(self._buf))
        self._done = len(self._buf)
        return out

    def _piece(self, a: int, b: int) -> np.ndarray:
        from scipy import signal

        lo = max(0, a - self.context)
        x = self._buf[lo: min(len(self._buf), b + self.context)]
        y = signal.resample_poly(x, self.up, self.down, axis=0)
        first = (a - lo) * self.up // self.down
        # output samples whose time lies in [a, b): ceil(n * up / down) for the final piece
        count = -(-(b - a) * self.up // self.down)
        return y[first: first + count].astype(np.float32)


#: input seconds resampled at once by :class:`Resampler`
RESAMPLE_CHUNK_S = 1.0


def _declared_frames(path: Path) -> int | None:
    """Sample frames a PCM WAV header declares (PyAV only sees what is there); else None."""
    import wave

    if path.suffix.lower() != ".wav":
        return None
    try:
        with wave.open(str(path)) as w:
            return w.getnframes()
    except (wave.Error, EOFError, OSError):
        return None


def read_all(path: str | Path, rate: int | None = None) -> tuple[np.ndarray, int]:
    """The whole file as float32 [samples, channels] and its rate (tests, benchmark, the
    paced stream); ``rate``: resampled to it as :class:`FileSource` does."""
    src = FileSource(path, rate=rate)
    blocks = [b.data for b in src]
    return np.concatenate(blocks), src.rate


# ------------------------------------------------------------------ live input
def import_sounddevice():
    """``sounddevice``, or one clear :class:`DeviceError` when PortAudio is missing."""
    try:
        import sounddevice
    except (ImportError, OSError) as exc:
        raise DeviceError(
            f"live audio needs PortAudio: install Debian's libportaudio2 "
            f"(apt-get install libportaudio2) and the sounddevice package ({exc})"
        ) from None
    return sounddevice


StreamFactory = Callable[..., object]


def sounddevice_factory(device, channels, rate, blocksize, callback):
    """The real stream: a PortAudio input stream delivering float32 blocks."""
    sd = import_sounddevice()
    try:
        return sd.InputStream(
            device=device, channels=channels, samplerate=rate, blocksize=blocksize, dtype="float32", callback=callback
        )
    except Exception as exc:  # PortAudioError, ValueError for a bad device
        raise DeviceError(f"audio device {device!r}: cannot open {channels} channel(s) at {rate} Hz ({exc})") from None


def device_info(device) -> tuple[int, int]:
    """(input channels, default rate) of a live device."""
    sd = import_sounddevice()
    try:
        info = sd.query_devices(device, "input")
    except Exception as exc:
        raise DeviceError(_no_input(sd, device, exc)) from None
    return int(info["max_input_channels"]), int(info["default_samplerate"])


def _no_input(sd, device, exc) -> str:
    """Why no input opened, in a person's words: which inputs there are, and what to pass."""
    try:
        inputs = [f"{i}: {d['name']}" for i, d in enumerate(sd.query_devices()) if d.get("max_input_channels", 0) > 0]
    except Exception:
        inputs = []
    there = (f"inputs here: {'; '.join(inputs[:6])}" if inputs else
             "this computer has no audio input PortAudio can see (plug in the seats' audio interface)")
    if device is None:
        return f"no default audio input ({exc}); {there}; or name one with --audio-device N"
    return f"audio device {device!r} not found ({exc}); {there}"


@dataclass(frozen=True)
class AdcClockParams:
    """When PortAudio's ``inputBufferAdcTime`` is believed (see :func:`capture_moment`). A stamp
    after ``currentTime`` (negative latency) is wrong too; 0 means "unknown" (DirectSound,
    WDM-KS)."""

    #: the oldest a block's first sample may be when its callback runs (s: callback
    #: ``currentTime`` minus ``inputBufferAdcTime``). Real input latency is 10–200 ms, so 0.5 s
    #: only rejects a wrong clock; lower would reject a slow host's true stamps.
    max_latency_s: float = 0.5

    def __post_init__(self):
        check_ranges(self, positive=("max_latency_s",))


def capture_moment(adc: float, current: float, now: float, frames: int, rate: int,
                   params: AdcClockParams = AdcClockParams()) -> tuple[float, str]:
    """Monotonic moment of a block's first sample and the clock it came from.

    ``adc``/``current`` are the callback's ``inputBufferAdcTime``/``currentTime`` (PortAudio's
    stream clock, whose zero is its own), ``now`` is ``time.monotonic()`` in the callback.
    Plausible ADC time: ``now - (current - adc)`` (``"adc"``); else the callback time minus
    the block's length (``"callback"``: the block ends about when the callback runs, so
    this is late by the host's buffering — a constant the clap calibration absorbs).
    """
    latency = current - adc
    if adc > 0 and current > 0 and 0.0 <= latency <= params.max_latency_s:
        return now - latency, "adc"
    return now - frames / rate, "callback"


def levels_dbfs(data: np.ndarray, floor: float = -120.0) -> list[float]:
    """RMS level of each channel of a block in dBFS (full scale 1.0 = 0 dB; silence ``floor``)."""
    if data.size == 0:
        return [floor] * (data.shape[1] if data.ndim == 2 else 1)
    x = data if data.ndim == 2 else data[:, None]
    rms = np.sqrt(np.mean(np.square(x.astype(np.float64)), axis=0))
    with np.errstate(divide="ignore"):
        db = 20.0 * np.log10(rms)
    return [round(max(floor, float(v)), 1) for v in db]


def status_event(status: "Status"):
    """The record's typed ``audio_status`` event of a :class:`Status`."""
    from session.events import AudioStatusEvent

    return AudioStatusEvent(t=round(status.t, 4), state=status.state, detail=status.detail or None)


class LiveSource:
    """Live multi-channel input through a stream factory.

    The callback only copies each block and its time info into a queue (no work in the
    audio thread). No block for ``stall_s`` means the device dropped: a ``lost``
    :class:`Status` is yielded and the stream is reopened every ``retry_s`` until it
    delivers again (``ok``). A stream with a true ``finished`` attribute has ended (a
    replayed file): iteration stops.

    **The clock.** With ``session_start`` (a ``time.monotonic()`` moment, shared with the
    camera) the first block of each opened stream anchors the sample count on the session
    clock: its first sample's moment comes from :func:`capture_moment` (PortAudio's ADC time
    where plausible, else the callback time minus the block length) and from there samples
    are counted (sample-accurate; a reopened stream re-anchors, so the gap of a drop is
    skipped, never overlapped). :attr:`clock` says which clock anchored (``"adc"`` or
    ``"callback"``); a fallback is also yielded once as a ``clock`` :class:`Status`.
    Without ``session_start`` (the older use: a replayed file, ``referee listen``), sample 0
    is the session's 0 and across a drop the clock jumps by the gap the ADC time reports.

    :attr:`levels` holds each channel's RMS level (dBFS) of the last block, for the
    status line's per-seat meters.
    """

    def __init__(
        self,
        device,
        channels: int,
        rate: int,
        *,
        factory: StreamFactory | None = None,
        block_s: float = DEFAULT_BLOCK_S,
        stall_s: float = 1.0,
        retry_s: float = 0.5,
        offset: float = 0.0,
        max_retries: int | None = None,
        session_start: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        adc_params: AdcClockParams = AdcClockParams(),
    ):
        self.device, self.channels, self.rate = device, channels, rate
        self.factory = factory or sounddevice_factory
        self.block = max(1, int(round(block_s * rate)))
        self.stall_s, self.retry_s, self.offset = stall_s, retry_s, offset
        self.max_retries = max_retries
        self.session_start, self._now, self.adc_params = session_start, clock, adc_params
        self._queue: queue.Queue = queue.Queue()
        self._stop = False
        #: which clock anchored the samples: "adc" (PortAudio's ADC time), "callback", or
        #: "count" (no session start: samples counted from 0)
        self.clock = "count" if session_start is None else "adc"
        self.anchors = {"adc": 0, "callback": 0}
        self.levels: list[float] = [-120.0] * channels
        self.blocks = 0
        self.overflows = 0

    def stop(self) -> None:
        self._stop = True

    def _callback(self, indata, frames, time_info, status):
        now = self._now()
        adc = getattr(time_info, "inputBufferAdcTime", 0.0) if time_info is not None else 0.0
        current = getattr(time_info, "currentTime", 0.0) if time_info is not None else 0.0
        self._queue.put((np.array(indata, dtype=np.float32, copy=True), float(adc or 0.0), float(current or 0.0),
                         now, str(status or "")))

    def _open(self):
        stream = self.factory(self.device, self.channels, self.rate, self.block, self._callback)
        stream.start()
        return stream

    def clock_info(self) -> dict:
        """What the session header records about the audio clock."""
        return {"source": "microphones", "device": str(self.device), "clock": self.clock,
                "anchors": dict(self.anchors), "rate": self.rate, "offset": self.offset}

    def _anchor(self, data, adc, current, now) -> tuple[int, str]:
        moment, clock = capture_moment(adc, current, now, len(data), self.rate, self.adc_params)
        self.anchors[clock] += 1
        return int(round((moment - self.session_start) * self.rate)), clock

    def backlog(self) -> bool:
        """True while blocks the device delivered wait in the queue (the hearing is behind:
        ``audio.listen.Listener.backlog``)."""
        return not self._queue.empty()

    def __iter__(self) -> Iterator[Block | Status]:
        index = 0
        anchored = False
        adc_next: float | None = None  # ADC time the next sample should have
        stream = self._open()
        lost = False
        retries = 0
        warned_clock = False
        try:
            while not self._stop:
                try:
                    data, adc, current, now, status = self._queue.get(
                        timeout=self.stall_s if not lost else self.retry_s)
                except queue.Empty:
                    if getattr(stream, "finished", False):
                        return
                    if not lost:
                        lost = True
                        yield Status(self.offset + index / self.rate, "lost", f"no audio from device {self.device!r} for {self.stall_s} s")
                    _close(stream)
                    if self.max_retries is not None and retries >= self.max_retries:
                        raise DeviceError(f"audio device {self.device!r} stopped delivering and did not come back")
                    retries += 1
                    anchored = False  # a new stream: a new anchor
                    try:
                        stream = self._open()
                    except DeviceError:
                        time.sleep(self.retry_s)
                    continue
                if data.ndim != 2 or data.shape[1] != self.channels:
                    raise DeviceError(f"audio device {self.device!r} delivered {data.shape} blocks, expected {self.channels} channels")
                if self.session_start is not None and not anchored:
                    start_index, clock = self._anchor(data, adc, current, now)
                    index = max(index, start_index)  # never overlap what was already counted
                    anchored = True
                    self.clock = clock
                    if clock == "callback" and not warned_clock:
                        warned_clock = True
                        why = "0" if adc <= 0 else f"{(current - adc) * 1000:+.0f} ms from the callback time"
                        yield Status(self.offset + index / self.rate, "clock",
                                     f"PortAudio's inputBufferAdcTime is implausible ({why}); stamping "
                                     "audio with the callback time minus the block length")
                if lost:
                    lost, retries = False, 0
                    if self.session_start is not None:
                        detail = f"clock re-anchored on the {self.clock} time"
                    else:
                        detail = "clock resumes where the count stopped (no ADC time)"
                        if adc > 0 and adc_next is not None and adc > adc_next:
                            index += int(round((adc - adc_next) * self.rate))
                            detail = "clock advanced by the device's ADC time over the gap"
                    yield Status(self.offset + index / self.rate, "ok", detail)
                if status and "overflow" in status:
                    self.overflows += 1
                    yield Status(self.offset + index / self.rate, "overflow", status)
                self.levels = levels_dbfs(data)
                self.blocks += 1
                yield Block(index, data, self.rate, self.offset)
                index += len(data)
                adc_next = adc + len(data) / self.rate if adc > 0 else None
        finally:
            _close(stream)


def _close(stream) -> None:
    for method in ("stop", "close"):
        try:
            getattr(stream, method)()
        except Exception:
            pass


class _TimeInfo:
    """PortAudio's callback time info (``sounddevice`` passes one with these attributes)."""

    def __init__(self, adc: float, current: float):
        self.inputBufferAdcTime = adc
        self.currentTime = current


class PacedStreamFactory:
    """A WAV file played through the callback **in real time**, with synthetic time info.

    Each block's callback runs on the stream's own thread when its last sample has
    "arrived" (``t0 + end / rate``) plus ``latency_s``, on the monotonic ``clock``; its time
    info is on a stream clock whose zero differs from ``time.monotonic()`` by
    ``stream_clock_offset`` (as PortAudio's does), with ``adc``:

    * ``"true"``: ``inputBufferAdcTime`` is the first sample's moment (a good host);
    * ``"zero"``: 0 (DirectSound, WDM-KS, a bug);
    * ``"wrong"``: 5 s in the future of ``currentTime`` (some CoreAudio input streams).

    ``drop_after`` (seconds of audio) silences the first stream there; the reopened stream
    resumes ``gap_s`` of audio later (the microphone was away that long). ``t0`` is the
    monotonic moment of the file's time 0 (default: the first open). ``rate``: the rate the
    blocks must have (the calibration's): a file recorded at another is resampled to it
    when read (:class:`FileSource`'s resampling, as replay hears it). Used by the tests and
    by the paced replay (``referee live --from-video … --audio SEATS.wav``); ``clock``/``sleep``
    are seams (a virtual clock runs it as fast as it can with the same stamps: the unpaced
    use, e.g. ``referee listen``'s tests of the live path).
    """

    def __init__(self, path: str | Path | None, *, adc: str = "true", latency_s: float = 0.01,
                 stream_clock_offset: float = 5000.0, drop_after: float | None = None, gap_s: float = 0.0,
                 t0: float | None = None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, rate: int | None = None):
        if adc not in ("true", "zero", "wrong"):
            raise ValueError(f"adc must be true, zero or wrong, not {adc!r}")
        if path is None:  # (endless silence at ``rate``: :func:`silence`)
            self.data, self.rate, self.resampled_from = _Zeros(1), int(rate or 16000), None
        else:
            self.data, self.rate = read_all(path, rate=rate)
            #: the file's own rate when it was resampled to ``rate``, else None
            probe = FileSource(path)
            probe.close()
            self.resampled_from = probe.file_rate if probe.file_rate != self.rate else None
        self.channels = self.data.shape[1]
        self.adc, self.latency_s, self.stream_clock_offset = adc, latency_s, stream_clock_offset
        self.drop_after, self.gap_s, self.t0 = drop_after, gap_s, t0
        #: the seams named above, also read by the stream it paces
        self.now, self.sleep = clock, sleep
        self.position = 0
        self.opened = 0

    def __call__(self, device, channels, rate, blocksize, callback):
        if rate != self.rate or channels != self.channels:
            raise DeviceError(f"replay stream is {self.channels} ch at {self.rate} Hz, asked {channels} at {rate}")
        self.opened += 1
        if self.t0 is None:
            self.t0 = self.now()
        stop_at = len(self.data)
        if self.opened == 1 and self.drop_after is not None:
            stop_at = int(round(self.drop_after * self.rate))
        elif self.opened == 2 and self.drop_after is not None:
            self.position = int(round((self.drop_after + self.gap_s) * self.rate))
        return _PacedStream(self, blocksize, callback, stop_at, final=stop_at >= len(self.data))

    def time_info(self, first: int, now: float) -> _TimeInfo:
        current = now + self.stream_clock_offset
        moment = self.t0 + first / self.rate + self.stream_clock_offset
        adc = {"true": moment, "zero": 0.0, "wrong": current + 5.0}[self.adc]
        return _TimeInfo(adc, current)


class _Zeros:
    """Silence shaped like a recording of ``length`` samples (endless: ``sys.maxsize``;
    ``[a:b]`` gives zeros): what :func:`silence` paces."""

    def __init__(self, channels: int, length: int = sys.maxsize):
        self.shape = (length, channels)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, span: slice) -> np.ndarray:
        start, stop = span.start or 0, min(span.stop if span.stop is not None else self.shape[0], self.shape[0])
        return np.zeros((max(0, stop - start), self.shape[1]), np.float32)


def silence(rate: int, seconds: float | None = None) -> "PacedStreamFactory":
    """A live input of one channel that hears nothing, in real time, until stopped (or for
    ``seconds``: a paced recording's length): the table whose calibration gives no seat a
    microphone (TAKOYAKI, TORATANU) or a drill answered with keys runs the live path without
    an audio interface. Its blocks carry true capture stamps, so the session clock runs as
    with a microphone."""
    factory = PacedStreamFactory(None, rate=rate)
    if seconds is not None:
        factory.data = _Zeros(1, int(round(seconds * factory.rate)))
    return factory


class _PacedStream:
    def __init__(self, owner: PacedStreamFactory, blocksize, callback, stop_at, final):
        import threading

        self.owner, self.blocksize, self.callback, self.stop_at = owner, blocksize, callback, stop_at
        self.final = final
        self.finished = False
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._run, name="paced-audio", daemon=True)

    def start(self):
        self._thread.start()

    def _run(self):
        o = self.owner
        while not self._halt.is_set() and o.position < min(self.stop_at, len(o.data)):
            first = o.position
            chunk = o.data[first : first + self.blocksize]
            due = o.t0 + (first + len(chunk)) / o.rate + o.latency_s
            delay = due - o.now()
            if delay > 0:
                o.sleep(delay)
            now = o.now()
            self.callback(chunk, len(chunk), o.time_info(first, now), None)
            o.position = first + len(chunk)
        self.finished = self.final and o.position >= len(o.data)

    def stop(self):
        self._halt.set()
        if self._thread.is_alive() and self._thread is not __import__("threading").current_thread():
            self._thread.join(timeout=2.0)

    def close(self):
        self.stop()

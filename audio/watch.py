"""What the raw input says about itself: clipping and dead channels, noticed per seat channel.

Why on the raw samples: after cross-talk cancellation a clipped sample is no longer at full
scale and a dead channel is no longer zero (the neighbours' cancelled leak is subtracted
from it), so both must be seen before :mod:`audio.demix`. :class:`InputWatch` wraps a source,
passes its blocks on unchanged, and collects ``notices`` (channel, time, what) that the
listener turns into events for the seat on that channel:

- *clipping*: a sample at full scale (``clip_level``) — the cancellation is linear, so a
  clipped word leaks uncancelled into the other channels and the word itself is distorted.
  One notice per channel per ``clip_quiet_s`` of clipping.
- *dead*: ``dead_s`` of samples below ``dead_db`` (a muted or unplugged microphone; a live
  microphone always has a noise floor: -61 dBFS on the demo) — the seat is *not heard* until
  the channel comes back (``alive``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from audio.capture import Block
from session.params import check_ranges


@dataclass(frozen=True)
class WatchParams:
    """When a microphone channel is reported clipping or dead."""

    #: |sample| at or above this is clipped (float samples, full scale 1.0)
    clip_level: float = 0.999
    #: a new clipping notice for a channel only after this long without clipping (s)
    clip_quiet_s: float = 5.0
    #: a channel this quiet (RMS, dBFS) ...
    dead_db: float = -90.0
    #: ... for this long is dead (latency of the notice: this)
    dead_s: float = 0.5

    def __post_init__(self):
        check_ranges(self, fraction=("clip_level",), non_negative=("clip_quiet_s",), finite=("dead_db",),
                     positive=("dead_s",))


@dataclass(frozen=True)
class Notice:
    t: float  # session seconds
    channel: int
    what: str  # "clipping" | "dead" | "alive"
    detail: str = ""


class InputWatch:
    """A source's blocks unchanged, with :class:`Notice` s about each channel collected."""

    def __init__(self, source, params: WatchParams | None = None):
        self.source, self.p = source, params or WatchParams()  # the wrapped source (audio.hearing.backlog_of)
        self.rate = source.rate
        self.channels = getattr(source, "channels", None)
        self.notices: list[Notice] = []
        self._last_clip: dict[int, float] = {}
        self._quiet: dict[int, float | None] = {}  # channel -> start of the current quiet stretch
        self._dead: set[int] = set()

    def quiet_since(self) -> list[float]:
        """Where each channel not yet declared dead went quiet (session seconds): a channel that
        stays quiet is declared dead dated there, so the hearing's watermark waits for it."""
        return [t for k, t in self._quiet.items() if t is not None and k not in self._dead]

    @property
    def warning(self):
        return getattr(self.source, "warning", None)

    def __iter__(self):
        for item in self.source:
            if isinstance(item, Block):
                self._look(item)
            yield item

    def _look(self, block: Block) -> None:
        x = np.asarray(block.data)
        if x.ndim != 2 or not len(x):
            return
        t0 = block.offset + block.index / block.rate
        p = self.p
        peak = np.abs(x).max(axis=0)
        for k in np.flatnonzero(peak >= p.clip_level):
            first = int(np.argmax(np.abs(x[:, k]) >= p.clip_level))
            t = t0 + first / block.rate
            n = int((np.abs(x[:, k]) >= p.clip_level).sum())
            last = self._last_clip.get(int(k))
            if last is None or t - last > p.clip_quiet_s:
                self.notices.append(Notice(round(t, 4), int(k), "clipping", f"{n} samples at full scale"))
            self._last_clip[int(k)] = t0 + len(x) / block.rate
        floor = 10 ** (p.dead_db / 20)
        rms = np.sqrt((x.astype(np.float64) ** 2).mean(axis=0))
        for k in range(x.shape[1]):
            if rms[k] < floor:
                start = self._quiet.get(k)
                if start is None:
                    self._quiet[k] = start = t0
                if k not in self._dead and t0 + len(x) / block.rate - start >= p.dead_s:
                    self._dead.add(k)
                    self.notices.append(Notice(round(start, 4), k, "dead", "no signal (muted or unplugged)"))
            else:
                self._quiet[k] = None
                if k in self._dead:
                    self._dead.discard(k)
                    self.notices.append(Notice(round(t0, 4), k, "alive", "signal back"))


def dead_mask(x: np.ndarray, rate: int, params: WatchParams | None = None, frame_s: float = 0.02) -> np.ndarray:
    """Per sample and channel of a whole recording ``x[samples, channels]``: True where the
    channel is dead as :class:`InputWatch` says it (``dead_s`` or more of ``frame_s`` frames
    below ``dead_db``): what an offline stage (``audio.unreferenced.cancel_unreferenced``) needs to
    know before the blocks are read."""
    p = params or WatchParams()
    n, c = x.shape
    m = max(1, int(frame_s * rate))
    frames = n // m
    out = np.zeros((n, c), bool)
    if not frames:
        return out
    rms = np.sqrt((x[: frames * m].astype(np.float64).reshape(frames, m, c) ** 2).mean(axis=1))
    quiet = rms < 10 ** (p.dead_db / 20)
    need = int(np.ceil(p.dead_s * rate / m))
    for k in range(c):
        a = None
        for f in range(frames + 1):
            q = f < frames and quiet[f, k]
            if q and a is None:
                a = f
            elif not q and a is not None:
                if f - a >= need:
                    out[a * m : (f * m if f < frames else n), k] = True
                a = None
    return out

"""Clipping and dead channels, seen on the raw input and said as events for the seat."""

import numpy as np

from audio.capture import Block
from audio.watch import InputWatch


class _Source:
    def __init__(self, x, rate=16000, block=1600):
        self.x, self.rate, self.block, self.channels = x, rate, block, x.shape[1]

    def __iter__(self):
        for k in range(0, len(self.x), self.block):
            yield Block(k, self.x[k : k + self.block], self.rate, 0.0)


def _noise(seconds, channels, seed=0, rate=16000):
    return (np.random.default_rng(seed).standard_normal((int(seconds * rate), channels)) * 1e-3).astype(np.float32)


def test_clipping_is_noticed_once_per_stretch_on_its_channel():
    x = _noise(12, 2)
    x[16000:16010, 1] = 1.0  # 1.0 s
    x[17000:17010, 1] = -1.0  # 1.06 s: the same stretch
    x[16000 * 10, 1] = 1.0  # 10 s: a new one
    w = InputWatch(_Source(x))
    blocks = list(w)
    assert len(blocks) == 120
    assert [(n.channel, n.what, n.t) for n in w.notices] == [(1, "clipping", 1.0), (1, "clipping", 10.0)]


def test_a_dead_channel_is_noticed_from_where_it_went_quiet_and_when_it_is_back():
    x = _noise(5, 3)
    x[16000:48000, 2] = 0.0  # 1 s .. 3 s
    w = InputWatch(_Source(x))
    list(w)
    assert [(n.channel, n.what, n.t) for n in w.notices] == [(2, "dead", 1.0), (2, "alive", 3.0)]


def test_a_live_quiet_microphone_is_not_dead():
    w = InputWatch(_Source(_noise(3, 2) * 0.1))  # -80 dBFS hiss
    list(w)
    assert w.notices == []


def test_a_whole_recording_s_dead_stretches_are_the_ones_the_watch_notices():
    from audio.watch import dead_mask

    rng = np.random.default_rng(3)
    x = (rng.standard_normal((4 * 16000, 2)) * 1e-3).astype(np.float32)
    x[16000:48000, 1] = 0.0  # muted from 1 s to 3 s
    x[8000:12000, 0] = 0.0  # a quarter second of silence: not dead (shorter than dead_s)
    m = dead_mask(x, 16000)
    assert not m[:, 0].any()
    on = np.flatnonzero(m[:, 1])
    assert abs(on[0] - 16000) <= 320 and abs(on[-1] - 48000) <= 320

"""Live audio on the session clock: ADC time checked, the fallback recorded, levels per seat.

The paced fake stream plays a WAV file through the real :class:`LiveSource` code with
synthetic PortAudio time info; a virtual clock makes the stamps exact without waiting."""

from __future__ import annotations

import threading
import wave

import numpy as np
import pytest

from audio import capture
from session.events import AudioStatusEvent

RATE = 16000


class VirtualClock:
    """Monotonic time that sleeping advances at once."""

    def __init__(self, start=500.0):
        self.now = start
        self._lock = threading.Lock()

    def __call__(self):
        with self._lock:
            return self.now

    def sleep(self, s):
        with self._lock:
            self.now += max(0.0, s)


def _wav(tmp_path, seconds=1.0, channels=3, loud=1):
    n = int(seconds * RATE)
    rng = np.random.default_rng(0)
    x = np.zeros((n, channels), np.int16)
    x[:, loud] = (rng.standard_normal(n) * 3000).astype(np.int16)
    path = tmp_path / "seats.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(x.tobytes())
    return path, x


def _live(path, clock, session_ago=2.0, channels=3, **fake):
    factory = capture.PacedStreamFactory(path, clock=clock, sleep=clock.sleep, **fake)
    return capture.LiveSource(None, channels, RATE, factory=factory, stall_s=0.05, retry_s=0.01,
                              session_start=clock() - session_ago, clock=clock), factory


def test_a_plausible_adc_time_is_believed_and_mapped_to_the_session_clock():
    t, clock = capture.capture_moment(adc=1000.00, current=1000.03, now=50.0, frames=320, rate=RATE)
    assert clock == "adc" and t == pytest.approx(49.97)


@pytest.mark.parametrize("adc,current", [(0.0, 1000.03), (1005.0, 1000.0), (990.0, 1000.0), (1000.0, 0.0)])
def test_a_zero_future_or_ancient_adc_time_falls_back_to_callback_minus_block(adc, current):
    t, clock = capture.capture_moment(adc=adc, current=current, now=50.0, frames=320, rate=RATE)
    assert clock == "callback" and t == pytest.approx(50.0 - 0.02)


def test_samples_are_stamped_from_the_adc_time_on_the_session_clock(tmp_path):
    path, x = _wav(tmp_path)
    clock = VirtualClock()
    src, _ = _live(path, clock, session_ago=2.0)
    items = list(src)
    blocks = [b for b in items if isinstance(b, capture.Block)]
    assert not [s for s in items if isinstance(s, capture.Status)]
    assert blocks[0].t == pytest.approx(2.0, abs=1 / RATE) and src.clock == "adc"
    assert [b.index for b in blocks] == [blocks[0].index + i * 320 for i in range(len(blocks))]
    data = np.concatenate([b.data for b in blocks])
    assert np.array_equal(np.round(data * 32768).astype(np.int64), x.astype(np.int64))
    assert src.clock_info()["clock"] == "adc" and src.anchors == {"adc": 1, "callback": 0}


@pytest.mark.parametrize("adc", ["zero", "wrong"])
def test_without_a_usable_adc_time_the_callback_time_stamps_and_it_is_said_once(tmp_path, adc):
    path, _ = _wav(tmp_path)
    clock = VirtualClock()
    src, _ = _live(path, clock, session_ago=2.0, adc=adc, latency_s=0.01)
    items = list(src)
    status = [s for s in items if isinstance(s, capture.Status)]
    blocks = [b for b in items if isinstance(b, capture.Block)]
    assert [s.state for s in status] == ["clock"] and "inputBufferAdcTime" in status[0].detail
    # the callback runs 10 ms after the block's last sample: the fallback is 10 ms late
    assert blocks[0].t == pytest.approx(2.01, abs=1 / RATE)
    assert src.clock == "callback" and src.clock_info()["anchors"] == {"adc": 0, "callback": 1}


def test_a_lost_microphone_is_reported_and_the_clock_skips_the_gap(tmp_path):
    path, x = _wav(tmp_path)
    clock = VirtualClock()
    src, factory = _live(path, clock, session_ago=1.0, drop_after=0.4, gap_s=0.3)
    items = list(src)
    status = [s for s in items if isinstance(s, capture.Status)]
    assert [s.state for s in status] == ["lost", "ok"]
    assert status[0].t == pytest.approx(1.4, abs=1e-3) and status[1].t == pytest.approx(1.7, abs=1e-3)
    after = [b for b in items if isinstance(b, capture.Block) and b.t >= 1.7 - 1e-9]
    assert after[0].index == int(1.7 * RATE)
    first = int(0.7 * RATE)
    assert np.array_equal(np.round(after[0].data * 32768).astype(np.int64), x[first : first + 320].astype(np.int64))
    events = [capture.status_event(s) for s in status]
    assert all(isinstance(e, AudioStatusEvent) for e in events)
    assert events[0].to_dict()["type"] == "audio_status" and events[0].state == "lost"
    assert factory.opened == 2


def test_the_level_meters_follow_each_seat_per_block(tmp_path):
    path, _ = _wav(tmp_path, channels=3, loud=1)
    clock = VirtualClock()
    src, _ = _live(path, clock)
    seen = []
    for item in src:
        if isinstance(item, capture.Block):
            seen.append(list(src.levels))
    assert len(seen) == src.blocks == 50
    quiet0, loud, quiet2 = zip(*seen)
    assert set(quiet0) == {-120.0} and set(quiet2) == {-120.0}
    assert all(-23 < v < -17 for v in loud)  # noise of RMS 3000/32768 ≈ -20.8 dBFS


def test_level_of_a_full_scale_sine_is_minus_three_dbfs():
    s = np.sin(np.linspace(0, 200 * np.pi, 16000, endpoint=False)).astype(np.float32)
    assert capture.levels_dbfs(np.stack([s, s * 0.1], 1)) == [pytest.approx(-3.0, abs=0.05), pytest.approx(-23.0, abs=0.05)]


def test_the_paced_stream_runs_in_real_time_on_the_real_clock(tmp_path):
    """Real clock, real stream thread: 0.3 s of audio; counts and stamps, not speed."""
    import time

    path, x = _wav(tmp_path, seconds=0.3)
    start = time.monotonic()
    factory = capture.PacedStreamFactory(path)
    src = capture.LiveSource(None, 3, RATE, factory=factory, stall_s=0.2, session_start=start)
    blocks = [b for b in src if isinstance(b, capture.Block)]
    assert sum(len(b.data) for b in blocks) == len(x)
    assert src.clock == "adc"
    assert 0 <= blocks[0].t < 0.2  # the first sample arrived just after the session started
    assert [b.index for b in blocks] == [blocks[0].index + i * 320 for i in range(len(blocks))]

"""Recording enrollment takes (``audio.takes``): the sources (in memory, and the device path
through ``LiveSource`` with a WAV played in real time — no sound card), when a take ends, the
silence and clipping checks, and the WAV written at the hearing rate."""

from __future__ import annotations

import time

import numpy as np
import pytest

from audio import takes
from audio.synth import write_wav
from session.errors import DeviceError

RATE = 16000


def _word(rate=RATE, f0=150.0, seconds=0.5, peak=0.5):
    """A voiced, word-like sound: a harmonic tone with a syllable envelope."""
    t = np.arange(int(seconds * rate)) / rate
    x = sum(np.sin(2 * np.pi * f0 * k * t) / k for k in range(1, 6)) * np.hanning(len(t))
    return (peak * x / np.abs(x).max()).astype(np.float32)


def _take(*parts, rate=RATE):
    """Silence and sounds laid end to end (a float is seconds of silence), with a little hiss."""
    xs = [np.zeros(int(p * rate), np.float32) if isinstance(p, float) else p for p in parts]
    x = np.concatenate(xs)
    return x + np.random.default_rng(1).normal(0, 1e-3, len(x)).astype(np.float32)


def test_a_take_ends_tail_s_after_the_voice_and_the_next_begins_there():
    x = _take(0.5, _word(), 1.0, _word(), 1.0)
    src = takes.ArraySource(np.stack([x, 0.1 * x], axis=1), RATE)
    levels = []
    first = takes.listen(src, 0, on_level=levels.append)
    assert first.voiced is not None and not first.ended
    assert abs(first.voiced[0] / RATE - 0.5) < 0.06 and abs(first.voiced[1] / RATE - 1.0) < 0.06
    assert abs(len(first.samples) / RATE - (first.voiced[1] / RATE + 0.5)) < 0.03  # tail_s after the voice
    assert levels[0].voiced is False and levels[-1].voiced and max(v.rms_db for v in levels) > -20
    second = takes.listen(src, 0)
    assert abs(second.t - len(first.samples) / RATE) < 1e-9  # the file's clock: no sample skipped
    assert second.voiced is not None
    word = first.word(0.3)
    assert len(word) == (first.voiced[1] - first.voiced[0]) + int(0.6 * RATE) - max(0, int(0.3 * RATE) - first.voiced[0])


def test_nothing_said_for_listen_s_is_a_silent_take_and_the_end_of_a_recording_is_said():
    src = takes.ArraySource(_take(6.0), RATE)
    heard = takes.listen(src, 0)
    assert heard.voiced is None and abs(len(heard.samples) / RATE - 4.0) < 0.03 and not heard.ended
    assert takes.problem(heard, heard.samples).startswith("no speech heard (loudest -")
    rest = takes.listen(src, 0)
    assert rest.ended and rest.voiced is None


def test_a_steady_hum_is_no_word_though_it_is_loud():
    t = np.arange(int(3.0 * RATE)) / RATE
    hum = (0.1 * np.sin(2 * np.pi * 50 * t) + 0.02 * np.sin(2 * np.pi * 1000 * t)).astype(np.float32)
    heard = takes.listen(takes.ArraySource(hum, RATE), 0, takes.TakeParams(max_word_s=1.0))
    assert heard.voiced is not None
    assert takes.no_word(heard, heard.samples[RATE:]).startswith("no word in it")


def test_clipping_is_a_full_scale_sample_or_a_flat_top_never_a_clean_word():
    word = _word(48000, peak=0.9)
    assert takes.clipped(word) is None
    assert takes.clipped(_word(48000, f0=90.0, peak=0.95)) is None
    assert takes.clipped(np.clip(4 * word, -1, 1)).startswith("clipped (peak 0.0 dBFS): a little softer")
    assert takes.clipped(np.concatenate([word, [0.99]])).startswith("clipped")
    flat = np.clip(3 * word, -0.7, 0.7)  # an analogue stage clipping at -3 dBFS
    assert "samples flat at -3.1 dBFS" in takes.clipped(flat)
    assert takes.clipped(np.clip(3 * word, -0.3, 0.3)) is None  # flat, but far below full scale


def test_a_take_is_written_at_the_hearing_rate_and_loads_as_enrollment(tmp_path):
    from audio import enroll
    from audio.capture import read_all

    x48 = _take(0.3, _word(48000), 0.3, rate=48000)
    x16 = takes.to_hearing_rate(x48, 48000)
    assert len(x16) == len(x48) // 3
    takes.write_take(tmp_path / "aki" / "ika.1.wav", x16)
    takes.write_take(tmp_path / "aki" / "tako.1.wav", takes.to_hearing_rate(_take(0.3, _word(f0=260.0), 0.3), RATE))
    data, rate = read_all(tmp_path / "aki" / "ika.1.wav")
    assert rate == 16000 and data.shape == (len(x16), 1) and np.abs(data[:, 0] - x16).max() < 1e-4
    voices = enroll.from_folder(tmp_path)
    assert voices.rate == 16000 and [t for t, _ in voices.templates["aki"]] == [("ika",), ("tako",)]


def test_the_device_source_records_the_seat_channel_from_the_prompt_on(tmp_path):
    """The device path (LiveSource, a stream factory playing a WAV in real time): blocks
    captured before the prompt are not in the take; the take's time is on the capture clock."""
    from audio.capture import PacedStreamFactory

    x = _take(0.2, _word(48000), 0.4, _word(48000, f0=220.0), 0.7, rate=48000)
    wav = write_wav(tmp_path / "seats.wav", np.stack([0.1 * x, x], axis=1), 48000)
    src = takes.DeviceSource("test", 2, 48000, factory=PacedStreamFactory(wav))
    src.open()
    time.sleep(0.8)  # the first word (0.2-0.7 s) is said while nobody listens
    heard = takes.listen(src, 1, takes.TakeParams(tail_s=0.3))
    src.close()
    assert heard.rate == 48000 and heard.t >= 0.75
    assert heard.voiced is not None and heard.t + heard.voiced[0] / 48000 == pytest.approx(1.15, abs=0.1)


def test_a_missing_device_is_one_clear_error(monkeypatch):
    from audio import capture

    class NoDevices:
        def query_devices(self, device=None, kind=None):
            if device is None and kind is None:
                return [{"name": "USB mic", "max_input_channels": 1}]
            raise ValueError(f"Error querying device {device}")

    monkeypatch.setattr(capture, "import_sounddevice", lambda: NoDevices())
    with pytest.raises(DeviceError, match=r"audio device 7 not found .*inputs here: 0: USB mic"):
        takes.DeviceSource(7)

    def unopenable(*a, **k):
        raise DeviceError("audio device 'x': cannot open 2 channel(s) at 16000 Hz (busy)")

    src = takes.DeviceSource("x", 2, 16000, factory=unopenable)
    with pytest.raises(DeviceError, match="busy"):
        src.open()

import sys
import wave

import numpy as np
import pytest

from audio import capture
from session.errors import DeviceError, MediaError


def _pcm(tmp_path, channels=4, rate=16000, n=8000, seed=0):
    x = (np.random.default_rng(seed).standard_normal((n, channels)) * 3000).astype("<i2")
    path = tmp_path / f"x{channels}.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(x.tobytes())
    return path, x


def test_wav_blocks_are_sample_exact_and_stamped_by_sample_index(tmp_path):
    path, x = _pcm(tmp_path)
    src = capture.FileSource(path, offset=2.0, block_s=0.02)
    blocks = list(src)
    assert [b.index for b in blocks] == list(range(0, 8000, 320))
    assert blocks[3].t == pytest.approx(2.0 + 960 / 16000)
    data = np.concatenate([b.data for b in blocks])
    assert np.array_equal(np.round(data * 32768).astype(np.int64), x.astype(np.int64))


def test_corrupt_wav_is_one_media_error(tmp_path):
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"RIFF\x10\x00\x00\x00WAVEfmt garbage" * 3)
    with pytest.raises(MediaError, match="bad.wav"):
        list(capture.FileSource(bad))
    with pytest.raises(MediaError, match="no such file"):
        capture.FileSource(tmp_path / "absent.wav")


def test_video_audio_track_keeps_its_timestamps(tmp_path):
    av = pytest.importorskip("av")
    path = tmp_path / "clip.mkv"
    rate = 16000
    tone = (np.sin(np.arange(rate) * 2 * np.pi * 440 / rate) * 10000).astype("<i2")
    with av.open(str(path), "w") as out:
        v = out.add_stream("mpeg4", rate=10)
        v.width, v.height, v.pix_fmt = 64, 48, "yuv420p"
        a = out.add_stream("pcm_s16le", rate=rate, layout="mono")
        for i in range(10):
            frame = av.VideoFrame.from_ndarray(np.zeros((48, 64, 3), np.uint8), format="rgb24")
            frame.pts = i
            for p in v.encode(frame):
                out.mux(p)
        for p in v.encode():
            out.mux(p)
        for k in range(0, rate, 1600):
            af = av.AudioFrame.from_ndarray(tone[None, k : k + 1600], format="s16", layout="mono")
            af.sample_rate, af.pts = rate, k + 8000  # the audio track starts 0.5 s in
            for p in a.encode(af):
                out.mux(p)
        for p in a.encode():
            out.mux(p)
    blocks = list(capture.FileSource(path))
    assert blocks[0].t == pytest.approx(0.5, abs=1e-3)
    data = np.concatenate([b.data[:, 0] for b in blocks])
    assert np.allclose(data[:rate], tone / 32768, atol=1e-4)


def test_missing_portaudio_is_one_device_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "sounddevice", None)  # import fails as without libportaudio2
    with pytest.raises(DeviceError, match="libportaudio2"):
        capture.import_sounddevice()


class _VirtualClock:
    """Monotonic time that sleeping advances at once: the paced stream unpaced."""

    def __init__(self, start=100.0):
        self.now = start

    def __call__(self):
        return self.now

    def sleep(self, s):
        self.now += max(0.0, s)


def _unpaced(path, **kw):
    clock = _VirtualClock()
    return capture.PacedStreamFactory(path, clock=clock, sleep=clock.sleep, **kw)


def test_live_path_delivers_the_file_through_the_stream_factory(tmp_path):
    path, x = _pcm(tmp_path)
    src = capture.LiveSource(None, 4, 16000, factory=_unpaced(path), stall_s=0.05)
    items = list(src)
    assert all(isinstance(b, capture.Block) for b in items)
    data = np.concatenate([b.data for b in items])
    assert np.array_equal(np.round(data * 32768).astype(np.int64), x.astype(np.int64))


def test_device_drop_and_return_are_reported_and_the_clock_skips_the_gap(tmp_path):
    path, x = _pcm(tmp_path, n=16000)
    factory = _unpaced(path, drop_after=0.4, gap_s=0.2)
    src = capture.LiveSource(None, 4, 16000, factory=factory, stall_s=0.05, retry_s=0.01)
    items = list(src)
    status = [i for i in items if isinstance(i, capture.Status)]
    assert [s.state for s in status] == ["lost", "ok"]
    assert status[0].t == pytest.approx(0.4)
    assert status[1].t == pytest.approx(0.6)
    after = [b for b in items if isinstance(b, capture.Block) and b.t >= 0.6]
    assert after[0].index == 9600
    assert np.array_equal(np.round(after[0].data * 32768).astype(np.int64), x[9600 : 9600 + len(after[0].data)].astype(np.int64))
    assert status[0].to_event()["type"] == "audio_status"


def test_a_truncated_wav_is_read_as_far_as_it_goes_and_says_so(tmp_path):
    """The header declares more samples than the file holds (a recording cut off)."""
    import wave

    import numpy as np

    from audio.capture import FileSource

    path = tmp_path / "cut.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(np.zeros((16000, 2), np.int16).tobytes())
    raw = path.read_bytes()
    path.write_bytes(raw[: 44 + 4 * 4000])  # keep the header and 0.25 s of the 1 s
    src = FileSource(path)
    read = sum(len(b.data) for b in src)
    assert read == 4000
    assert src.warning is not None and "0.25 s" in src.warning and "1.00 s" in src.warning


def test_a_whole_wav_has_no_warning(tmp_path):
    import wave

    import numpy as np

    from audio.capture import FileSource

    path = tmp_path / "ok.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(np.zeros(1600, np.int16).tobytes())
    src = FileSource(path)
    assert sum(len(b.data) for b in src) == 1600 and src.warning is None


def test_the_paced_stream_resamples_a_recording_to_the_rate_asked_for_as_replay_does(tmp_path):
    """A 44.1 kHz recording paced through the live path at the calibration's 16 kHz: the
    blocks are the file source's resampled samples, not the file's rate refused or misheard."""
    path, _ = _pcm(tmp_path, channels=2, rate=44100, n=44100)
    factory = _unpaced(path, rate=16000)
    assert factory.rate == 16000 and factory.resampled_from == 44100
    src = capture.LiveSource(None, 2, 16000, factory=factory, stall_s=0.05)
    data = np.concatenate([b.data for b in src if isinstance(b, capture.Block)])
    ref = np.concatenate([b.data for b in capture.FileSource(path, rate=16000)])
    assert len(data) == len(ref) == 16000
    assert np.array_equal(data, ref)
    assert _unpaced(path).resampled_from is None and _unpaced(path).rate == 44100

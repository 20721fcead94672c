"""The live recordings: on the session clock, and readable after kill -9."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
import wave

import numpy as np
import pytest

from audio.capture import Block, FileSource
from vision.video import Frame, read_frames
from referee.live.media import VideoWriter, WavWriter
from tests.live.helpers import ROOT


def _frames(n, t0=0.05):
    return [Frame(i, round(t0 + i / 30, 6), np.full((96, 128, 3), (i * 3) % 250, np.uint8)) for i in range(n)]


def test_video_frames_keep_their_session_times(tmp_path):
    path = tmp_path / "video.mp4"
    w = VideoWriter(path)
    for f in _frames(40):
        while w._q.full():  # a camera's pace: the writer keeps up (a full queue drops)
            time.sleep(0.005)
        w.frame(f, [])
    w.close()
    got = [f.t for f in read_frames(path)]
    assert w.written == 40 and w.dropped == 0 and w.error is None
    # the first image is also at 0, so reading back starts the clock where the session did
    assert got == pytest.approx([0.0] + [f.t for f in _frames(40)], abs=1e-3)


def test_video_frames_are_turned_to_yuv_as_swscale_turns_them(tmp_path):
    """OpenCV's BGR -> YUV 4:2:0 for the encoder (cheaper than swscale's) gives the same
    picture within a level of luma and a few of chroma; an odd-sized frame goes to swscale."""
    import av

    from referee.live import media
    from vision.video import read_frames as frames_of

    demo = next(iter(frames_of(ROOT / "fixtures" / "demo" / "session.mp4"))).image
    ours = media._video_frame(demo)
    assert ours.format.name == "yuv420p"
    sws = av.VideoFrame.from_ndarray(demo, format="bgr24").reformat(format="yuv420p").to_ndarray().astype(int)
    diff = np.abs(ours.to_ndarray().astype(int) - sws)
    h = demo.shape[0]
    assert diff[:h].max() <= 1 and diff[h:].max() <= 5 and diff.mean() < 1
    assert media._video_frame(np.zeros((95, 128, 3), np.uint8)).format.name == "bgr24"


def test_the_wav_starts_at_session_zero_and_fills_gaps_with_silence(tmp_path):
    path = tmp_path / "seats.wav"
    w = WavWriter(path, 16000, 2)
    x = np.full((320, 2), 0.5, np.float32)
    w.put(Block(1600, x, 16000))  # first block at 0.1 s
    w.put(Block(1920, x, 16000))
    w.put(Block(3200, x, 16000))  # a gap from 0.14 to 0.2 s
    w.close()
    data = np.concatenate([b.data for b in FileSource(path)])
    assert len(data) == 3520
    assert not data[:1600].any() and np.allclose(data[1600:2240], 0.5, atol=1e-4)
    assert not data[2240:3200].any() and np.allclose(data[3200:], 0.5, atol=1e-4)


_KILLED = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    sys.path.insert(0, {root!r})
    from audio.capture import Block
    from vision.video import Frame
    from referee.live.media import VideoWriter, WavWriter
    v = VideoWriter({video!r}); a = WavWriter({wav!r}, 16000, 2)
    for i in range(150):  # 5 s at 30 fps, audio in step
        while v._q.full():
            time.sleep(0.005)
        v.frame(Frame(i, i / 30, np.full((96, 128, 3), i % 250, np.uint8)), [])
        a.put(Block(int(i * 16000 / 30), np.full((533, 2), 0.25, np.float32), 16000))
        time.sleep(0.01)
    time.sleep(1.5)  # the writers catch up; then the process dies without closing anything
    os.kill(os.getpid(), 9)
""")


def test_after_kill_9_at_most_the_last_two_seconds_are_lost(tmp_path):
    video, wav = tmp_path / "video.mp4", tmp_path / "seats.wav"
    code = _KILLED.format(root=str(ROOT), video=str(video), wav=str(wav))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert proc.returncode == -9, proc.stderr.decode()[-500:]
    frames = list(read_frames(video))
    assert frames[-1].t >= 5.0 - 2.0
    with wave.open(str(wav)) as w:
        declared = w.getnframes() / w.getframerate()
    assert declared >= 5.0 - 2.0
    heard = sum(len(b.data) for b in FileSource(wav)) / 16000
    assert heard >= 5.0 - 2.0

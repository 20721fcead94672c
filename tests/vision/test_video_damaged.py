"""MP4s this project writes stay readable when cut short; a damaged file is read as far as
it goes, with a warning."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from session.errors import MediaError
from vision.video import probe, read_frames, write_video


def _frames(n=120):
    rng = np.random.default_rng(3)
    for i in range(n):
        img = np.full((240, 320, 3), (i * 2) % 255, np.uint8)
        img[:, :40] = rng.integers(0, 255, (240, 40, 3))
        yield img


def _plain_mp4(path, n=120):
    """An MP4 as a default muxer writes it: its only index (moov) at the end."""
    import av

    c = av.open(str(path), "w")
    s = c.add_stream("libx264", rate=Fraction(30))
    s.width, s.height, s.pix_fmt = 320, 240, "yuv420p"
    for img in _frames(n):
        for p in s.encode(av.VideoFrame.from_ndarray(img, format="bgr24")):
            c.mux(p)
    for p in s.encode():
        c.mux(p)
    c.close()


def test_a_written_video_cut_in_half_is_read_as_far_as_it_goes(tmp_path):
    whole = tmp_path / "whole.mp4"
    write_video(whole, _frames(), fps=30, crf=30)
    assert sum(1 for _ in read_frames(whole)) == 120
    data = whole.read_bytes()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[: len(data) // 2])
    assert probe(cut).width == 320
    warnings: list[str] = []
    frames = list(read_frames(cut, warnings))
    assert 30 <= len(frames) < 120  # the whole fragments before the cut
    assert [f.index for f in frames] == list(range(len(frames)))
    assert frames[-1].t == pytest.approx((len(frames) - 1) / 30, abs=1e-6)
    assert len(warnings) == 1 and "(cut short or damaged)" in warnings[0] and "read as far as it goes" in warnings[0]


def test_a_plain_mp4_cut_short_is_one_clear_error(tmp_path):
    whole = tmp_path / "plain.mp4"
    _plain_mp4(whole)
    cut = tmp_path / "plain_cut.mp4"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    with pytest.raises(MediaError, match=r"unreadable: invalid data found when processing input \(an MP4 cut short before its index"):
        probe(cut)


def test_an_uncut_video_gives_no_warning(tmp_path):
    whole = tmp_path / "whole.mp4"
    write_video(whole, _frames(45), fps=30, crf=30)
    warnings: list[str] = []
    assert sum(1 for _ in read_frames(whole, warnings)) == 45 and warnings == []

"""Reading video with PyAV: frames with their presentation time as the one clock.

OpenCV reads no audio and its frame times are estimates; PyAV gives each frame's PTS (and
the audio, for issue 6) exactly. ``t`` is seconds since the first frame of the stream, so
video and audio of one file share a clock. A corrupt or missing file is a
:class:`MediaError`; a frame that fails to decode mid-stream ends reading with an error
naming its position.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Iterator

import numpy as np

from session.errors import MediaError, unreadable_reason


#: PyAV/FFmpeg decoder threading: "AUTO" = frame and slice threads (decoding one 720p frame
#: runs beside the watching of the previous ones; the frames and their order are the same)
DECODE_THREADS = "AUTO"


@dataclass(frozen=True)
class Frame:
    index: int
    t: float
    image: np.ndarray  # BGR, never mirrored


@dataclass(frozen=True)
class VideoInfo:
    width: int
    height: int
    frames: int | None
    fps: float | None
    duration: float | None


def _open(path: Path):
    import av

    if not path.is_file():
        raise MediaError(f"video {path} not found")
    try:
        container = av.open(str(path))
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        hint = ""
        reason = unreadable_reason(path, exc)
        if isinstance(exc, (av.error.InvalidDataError, EOFError)) and path.stat().st_size > 0 \
                and path.suffix.lower() in (".mp4", ".mov", ".m4v"):
            hint = (" (an MP4 cut short before its index was written cannot be read; this project writes its "
                    "own MP4s fragmented, so a cut one stays readable)")
        raise MediaError(f"video {path} is unreadable: {reason}{hint}") from None
    if not container.streams.video:
        container.close()
        raise MediaError(f"{path} holds no video stream")
    return container


def probe(path: str | Path) -> VideoInfo:
    path = Path(path)
    c = _open(path)
    try:
        s = c.streams.video[0]
        fps = float(s.average_rate) if s.average_rate else None
        dur = float(s.duration * s.time_base) if s.duration and s.time_base else (
            c.duration / 1_000_000 if c.duration else None)
        frames = s.frames or (int(round(dur * fps)) if dur and fps else None)
        return VideoInfo(s.codec_context.width, s.codec_context.height, frames, fps, dur)
    finally:
        c.close()


def read_frames(path: str | Path, warnings: list[str] | None = None) -> Iterator[Frame]:
    """Every frame of the first video stream, in order, with ``t`` from its PTS.

    A packet that fails to decode mid-stream is skipped with a warning appended to
    ``warnings`` (the frame clock stays right: times come from the PTS, not from counting);
    a file with no decodable frame at all is a :class:`MediaError`. A file cut short (its
    frames end before the duration it declares: a copy or a write that stopped) is read as
    far as it goes, with a warning appended to ``warnings`` after the last frame.
    """
    for index, t, fr in _decoded(path, warnings):
        yield Frame(index, t, fr.to_ndarray(format="bgr24"))


def _decoded(path: str | Path, warnings: list[str] | None = None) -> Iterator[tuple[int, float, object]]:
    """``(index, t, av.VideoFrame)`` of every frame, not yet converted (see :func:`read_frames`)."""
    import av

    path = Path(path)
    c = _open(path)
    try:
        s = c.streams.video[0]
        s.thread_type = DECODE_THREADS
        t0 = None
        index = 0

        def frames_of(packet):
            try:
                return packet.decode()
            except av.error.FFmpegError as exc:
                if warnings is not None:
                    where = "" if packet.pts is None else f" at {float(packet.pts * packet.time_base):.3f} s"
                    warnings.append(f"video {path}: skipped an undecodable packet{where} ({exc})")
                return []

        last = 0.0
        try:
            for packet in c.demux(s):
                for fr in frames_of(packet):
                    if fr.pts is None:
                        t = index / float(s.average_rate or 30)
                    else:
                        t = float(fr.pts * (fr.time_base or s.time_base))
                    if t0 is None:
                        t0 = t
                    last = t - t0
                    yield index, round(last, 6), fr
                    index += 1
        except av.error.FFmpegError as exc:
            raise MediaError(f"video {path}: reading failed after frame {index}: {exc}") from None
        if index == 0:
            raise MediaError(f"video {path} has no decodable frame")
        short = _cut_short(c, s, last) if warnings is not None else None
        if short is not None:  # every frame there is was given: said once at the end
            warnings.append(short)
    finally:
        c.close()


#: a video whose frames end more than this many frame durations before the duration its
#: container declares was cut short (a copy or a write that stopped): said, not ignored
CUT_SHORT_FRAMES = 2


def _cut_short(c, s, last: float) -> str | None:
    """The warning for a video whose decoded frames end well before its declared duration."""
    fps = float(s.average_rate) if s.average_rate else 30.0
    declared = (float(s.duration * s.time_base) if s.duration and s.time_base
                else (c.duration / 1_000_000 if c.duration else None))
    if declared is None or last + (CUT_SHORT_FRAMES + 1) / fps >= declared:
        return None
    return (f"video {c.name}: the frames end at {last + 1 / fps:.2f} s but the file declares {declared:.2f} s "
            "(cut short or damaged); read as far as it goes")


def frames_at(path: str | Path, times: list[float], tolerance: float = 0.5) -> dict[float, np.ndarray]:
    """The decoded frame nearest each of ``times`` (within ``tolerance`` seconds), as BGR.

    For evidence pictures: decodes up to just after the last time and converts to BGR only
    the frames picked (the conversion costs more than the decoding: ~2 ms vs ~1 ms per 720p
    frame). Times follow :func:`read_frames`' clock; a time with no frame that near is left
    out. Ties go to the earlier frame, as in a pass over :func:`read_frames`.
    """
    want = sorted(set(times))
    if not want:
        return {}
    best: dict[float, tuple[float, object]] = {}
    for _, t, fr in _decoded(path):
        for w in want:
            d = abs(t - w)
            if d < tolerance and (w not in best or d < best[w][0]):
                best[w] = (d, fr)
        if t > want[-1] + 0.1:
            break
    converted: dict[int, np.ndarray] = {}
    for d, fr in best.values():
        if id(fr) not in converted:
            converted[id(fr)] = fr.to_ndarray(format="bgr24")
    return {w: converted[id(fr)] for w, (d, fr) in best.items()}


#: MP4 muxer options for every MP4 this project writes: fragmented (an empty index first,
#: then a self-contained fragment every second), so a file cut short — a killed run, a full
#: disk — stays readable up to its last whole fragment instead of "Invalid data found"
#: (a plain MP4 keeps its only index at the end). Cost: ~2 % larger files.
MP4_OPTIONS = {"movflags": "frag_keyframe+empty_moov+default_base_moof", "frag_duration": "1000000"}


def write_video(path: str | Path, frames: Iterator[np.ndarray], fps: int = 30, crf: int | None = 18, *,
                codec: str = "libx264", preset: str | None = "veryfast", bit_rate: int | None = None) -> None:
    """Encode BGR frames in a fragmented MP4 (:data:`MP4_OPTIONS`; tests, the annotated video,
    the demo's own recordings, the re-encodings of :func:`vision.degrade.reencode`): H.264
    at ``crf`` with ``preset`` by default; another ``codec`` (``mpeg4``) with ``bit_rate``
    (bits/s). ``crf``/``preset`` None leave the codec's own."""
    import av

    path = Path(path)
    c = av.open(str(path), "w", options=MP4_OPTIONS if path.suffix.lower() in (".mp4", ".mov", ".m4v") else {})
    try:
        s = None
        for img in frames:
            if s is None:
                s = c.add_stream(codec, rate=Fraction(fps))
                s.width, s.height = img.shape[1], img.shape[0]
                s.pix_fmt = "yuv420p"
                if bit_rate is not None:
                    s.bit_rate = int(bit_rate)
                s.options = {k: str(v) for k, v in (("crf", crf), ("preset", preset)) if v is not None}
            for pkt in s.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(img), format="bgr24")):
                c.mux(pkt)
        if s is not None:
            for pkt in s.encode():
                c.mux(pkt)
    finally:
        c.close()

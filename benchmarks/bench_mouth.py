"""The mouth on real talking faces (issue 33 item 4): GRID corpus clips (CC BY 4.0), read in place.

    python benchmarks/bench_mouth.py DIR [DIR ...] [--half tune|report|all] [--open-at X --closed-at Y]
                                     [--scale S]

Each DIR holds GRID ``<id>.mpg`` videos (25 fps, one speaker saying six words from silence)
with ``<id>.align`` word timings (25 kHz sample indices), as the lip-reading repositories that
include them keep them (e.g. ``data/s1`` and ``data/alignments/s1`` taken out of their git
mirror into one folder). A clip without an ``.align`` is timed by its own sound: the first
10 ms of speech 20 dB over the clip's quietest tenth (on GRID s1 this onset came 50 ms after
the aligned one, median; 200 ms p90).

For each clip the seat is the whole frame; each frame is read by :class:`vision.mouth.MouthReader`
and tracked by :class:`vision.mouth.MouthTracker` with the given levels. Reported:

- **first word**: how many clips show an ``open`` within the crediting window around the first
  word's onset (:class:`referee.pipeline.crediting.CreditParams` ``mouth_before_s`` before,
  ``mouth_after_s`` after) and the lead of that opening over the onset (median, p10, p90);
- **every word**: how many words have the mouth ``open`` at some frame from the window's start
  to the word's end (GRID speaks words back to back: the mouth need not close between them);
- **silence**: ``open`` events earlier than the window before the first word or later than
  0.3 s after the last word's end, and the seconds of such silence;
- **unseen** frames, and the CPU per face crop (this process's CPU time per reading: MediaPipe's
  graph threads included).

``--half`` splits the clips (sorted by name) into the first half (``tune``: where the levels
were chosen) and the second (``report``: the figures quoted). ``--scale`` shrinks every frame
first (a face farther from the camera).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

#: GRID's alignments count samples at 25 kHz
ALIGN_RATE = 25000.0
#: speech after the last word's end closer than this (s) is not counted as silence
TAIL_S = 0.3


def words_of(align: Path) -> list[tuple[float, float]]:
    """(start, end) seconds of each spoken word of a GRID ``.align`` (``sil``/``sp`` left out)."""
    out = []
    for line in align.read_text(encoding="utf-8").splitlines():
        a, b, w = line.split()
        if w not in ("sil", "sp"):
            out.append((int(a) / ALIGN_RATE, int(b) / ALIGN_RATE))
    return out


def sound_span(video: Path, rise_db: float = 20.0, hold: int = 3) -> tuple[float, float] | None:
    """(onset, end) of the speech in a clip's own sound track, 10 ms frames: the first of
    ``hold`` frames in a row ``rise_db`` over the quietest tenth, and the last such frame."""
    import av

    with av.open(str(video)) as c:
        stream = c.streams.audio[0]
        rate = stream.rate
        chunks = [f.to_ndarray().astype(np.float64).mean(axis=0) for f in c.decode(stream)]
    x = np.concatenate(chunks)
    hop = int(rate * 0.01)
    rms = np.sqrt(np.array([np.mean(x[i:i + hop] ** 2) for i in range(0, len(x) - hop, hop)]) + 1e-12)
    loud = rms > np.percentile(rms, 10) * 10 ** (rise_db / 20)
    starts = [i for i in range(len(loud) - hold) if loud[i:i + hold].all()]
    if not starts:
        return None
    return starts[0] * 0.01, (np.nonzero(loud)[0][-1] + 1) * 0.01


def read_clip(video: Path, reader_of, scale: float) -> tuple[list, float, int, float]:
    """Every frame's reading, the CPU seconds, the frame count and the fps."""
    import cv2

    cap = cv2.VideoCapture(str(video))
    fps = cap.get(cv2.CAP_PROP_FPS) or 25.0
    readings, cpu = [], 0.0
    ok, frame = cap.read()
    reader = None
    while ok:
        if scale != 1.0:
            frame = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if reader is None:
            reader = reader_of((0, 0, frame.shape[1], frame.shape[0]))
        t0 = time.process_time()  # (MediaPipe's graph runs on threads of its own)
        readings.append(reader.read(frame))
        cpu += time.process_time() - t0
        ok, frame = cap.read()
    cap.release()
    if reader is not None:
        reader.close()
    return readings, cpu, len(readings), fps


def score(readings, fps: float, words: list[tuple[float, float]], params, credit) -> dict:
    """One clip's figures (see the module doc)."""
    from vision.mouth import MouthTracker

    tracker, events, states = MouthTracker("s", params), [], []
    for i, r in enumerate(readings):
        events += tracker.update(i / fps, r)
        states.append((i / fps, tracker.state))
    opens = [e.t for e in events if e.state == "open" and e.t > 0]
    onset, end = words[0][0], words[-1][1]
    lo, hi = onset - credit.mouth_before_s, onset + credit.mouth_after_s
    hit = [t for t in opens if lo <= t <= hi]
    open_words = sum(1 for a, b in words if any(s == "open" and a - credit.mouth_before_s <= t <= b for t, s in states))
    duration = len(readings) / fps
    return {"found": bool(hit), "lead": (onset - hit[0]) if hit else None, "words": len(words),
            "open_words": open_words, "false": sum(1 for t in opens if t < lo or t > end + TAIL_S),
            "silence": max(0.0, lo) + max(0.0, duration - end - TAIL_S),
            "unseen": sum(1 for r in readings if r.opening is None), "lead_in": onset}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--half", choices=("tune", "report", "all"), default="all")
    ap.add_argument("--open-at", type=float)
    ap.add_argument("--closed-at", type=float)
    ap.add_argument("--min-eyes-px", type=float)
    ap.add_argument("--scale", type=float, default=1.0)
    args = ap.parse_args(argv)
    from referee.pipeline.crediting import CreditParams
    from vision.mouth import MouthParams, MouthReader

    given = {k: v for k, v in (("open_at", args.open_at), ("closed_at", args.closed_at),
                               ("min_eyes_px", args.min_eyes_px)) if v is not None}
    params, credit = MouthParams(**given), CreditParams()
    clips = sorted(v for d in args.dirs for v in d.glob("*.mpg"))
    if not clips:
        print(f"no GRID clips (*.mpg) in {', '.join(map(str, args.dirs))}", file=sys.stderr)
        return 2
    half = len(clips) // 2
    clips = clips[:half] if args.half == "tune" else clips[half:] if args.half == "report" else clips
    rows, cpu, frames, by_sound = [], 0.0, 0, 0
    for video in clips:
        align = video.with_suffix(".align")
        if align.exists():
            words = words_of(align)
        else:
            span = sound_span(video)
            if span is None:
                continue
            words, by_sound = [span], by_sound + 1
        readings, c, n, fps = read_clip(video, lambda box: MouthReader(box, params), args.scale)
        cpu, frames = cpu + c, frames + n
        rows.append(score(readings, fps, words, params, credit))
    leads = np.array([r["lead"] for r in rows if r["lead"] is not None]) * 1000
    lead_text = (f"lead median {np.median(leads):.0f} ms, p10 {np.percentile(leads, 10):.0f}, "
                 f"p90 {np.percentile(leads, 90):.0f}" if len(leads) else "no lead")
    with_silence = sum(1 for r in rows if r["lead_in"] >= credit.mouth_before_s)
    print(f"{len(rows)} clips ({by_sound} timed by their sound), {frames} frames, {params}")
    print(f"first word: opening found in the window for {sum(r['found'] for r in rows)}/{len(rows)} "
          f"({with_silence} start with at least {credit.mouth_before_s} s of silence); {lead_text}")
    print(f"every word: mouth open during {sum(r['open_words'] for r in rows)}/{sum(r['words'] for r in rows)} words")
    print(f"silence: {sum(r['false'] for r in rows)} false openings in {sum(r['silence'] for r in rows):.1f} s; "
          f"unseen frames {sum(r['unseen'] for r in rows)}/{frames}; CPU {1000 * cpu / max(frames, 1):.2f} ms per face crop")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

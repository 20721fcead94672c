"""Measure ``referee calibrate --from-video`` on the demo table's calibration recording.

    python -m calibration.bench [--rec DIR] [--channels 2,0,3,1]

Renders the recording with ``fixtures/demo/make_calibration.py`` (into a temporary folder
unless ``--rec`` holds one), runs the recorded front end, and prints: the time it took
(wall and CPU) against the recording's length, what it found against the demo's known
geometry (seat boxes and field: intersection over union; the channel map), and how many
cards of the demo deck vision.cards reads from the captured references when each lies in
the found field as in the demo session.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def iou(a, b) -> float:
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rec", type=Path, help="a folder written by make_calibration.py (default: render one)")
    ap.add_argument("--channels", default="2,0,3,1")
    ap.add_argument("--session", action="store_true",
                    help="also watch the demo session's cards with the found field and references (slower)")
    args = ap.parse_args(argv)
    from calibration.decks import deck_cards
    from calibration.recording import calibrate_recording
    from fixtures.demo import cards, make_calibration, make_demo
    from fixtures.demo.scene import Landing, Table
    from vision.cards import References, recognise

    rec = args.rec
    if rec is None or not (rec / "truth.json").is_file():
        rec = rec or Path(tempfile.mkdtemp(prefix="calrec-"))
        t = time.perf_counter()
        make_calibration.write(rec, tuple(int(c) for c in args.channels.split(",")))
        print(f"rendered the recording in {time.perf_counter() - t:.1f} s ({rec})")
    truth = json.loads((rec / "truth.json").read_text())
    cpu0, t0 = time.process_time(), time.perf_counter()
    res = calibrate_recording(rec / "calibration.mp4", rec / "calibration.wav", "ikatako", truth["players"],
                              deck_cards("ikatako"))
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    length = res.frames / truth["fps"]
    cal = res.calibration
    fails = [c for c in res.checks if c.level == "fail"]
    print(f"from-video calibration: {wall:.1f} s wall, {cpu:.1f} s CPU for a {length:.1f} s recording "
          f"({res.frames} frames at {truth['fps']} fps, 1280x720, {len(truth['players'])} seats, "
          f"{len(truth['cards'])} cards); {len(res.checks)} checks, {len(fails)} failed")
    for s, box in zip(cal["seats"], truth["seats"]):
        print(f"  seat {s['name']}: {s['box']} vs demo {box}: IoU {iou(s['box'], box):.2f}")
    f = cal["zones"].get("field")
    if f:
        print(f"  field: {f} vs demo {truth['field']}: IoU {iou(f, truth['field']):.2f}")
        inside = sum(all(f[0] <= x < f[2] and f[1] <= y < f[3] for x, y in Landing(t.card, t.angle, *t.offset).quad())
                     for t in make_demo.SCRIPT)
        print(f"  demo session cards lying wholly inside the found field: {inside}/{len(make_demo.SCRIPT)}")
    found = [s["channel"] for s in cal["seats"]]
    print(f"  channels: {found} vs true {truth['channels']}: "
          f"{sum(a == b for a, b in zip(found, truth['channels']))}/{len(found)} right")
    print(f"  look-alike pairs warned: {cal['lookalikes']}")
    if f:
        with tempfile.TemporaryDirectory() as d:
            import cv2

            for code, img in res.references.items():
                cv2.imwrite(str(Path(d) / f"{code}.png"), img)
            refs = References.from_folder(d)
        table = Table()
        arms = [{"left": 0.0, "right": 0.0}] * 4
        right = wrong = unsure = 0
        for i, code in enumerate(cards.CODES):
            img = table.render(arms, [0.0] * 4, (Landing(code, (-1) ** i * 7.0, 9.0 - i, 5.0 - i % 4 * 3),), t=3.0 + i)
            ms = recognise(img[f[1]:f[3], f[0]:f[2]], refs)
            ok = [m for m in ms if m.status == "ok"]
            if ok:
                right += ok[0].code == code
                wrong += ok[0].code != code
            else:
                unsure += 1
        print(f"  demo deck read from the captured references in the found field: {right}/{len(cards.CODES)} right, "
              f"{wrong} wrong, {unsure} uncertain/none")
        if args.session:
            watch_session(refs, f)
    return 0


def watch_session(refs, field) -> None:
    """The demo session's card events with this calibration's field and references,
    against the demo's truth (code and frame)."""
    from session.calibration import Box
    from vision.cards import CardZoneWatcher
    from vision.video import read_frames

    demo = ROOT / "fixtures" / "demo"
    w = CardZoneWatcher("field", Box(*field), refs)
    events = []
    for fr in read_frames(demo / "session.mp4"):
        events.extend(w.update(fr.index, fr.t, fr.image))
    truth = [json.loads(line) for line in (demo / "truth.jsonl").read_text().splitlines()]
    truth = [e for e in truth if e.get("type") == "card"]
    got = [(e.card, round(e.t * 30)) for e in events]
    want = [(e["card"], round(e["t"] * 30)) for e in truth]
    same = sum(1 for g, t in zip(got, want) if g[0] == t[0])
    frames = [abs(g[1] - t[1]) for g, t in zip(got, want) if g[0] == t[0]]
    print(f"  demo session watched with this calibration: {len(got)} card events for {len(want)} true cards, "
          f"{same} right code in order, frame error max {max(frames) if frames else '-'}; warnings {len(w.warnings)}")


if __name__ == "__main__":
    raise SystemExit(main())

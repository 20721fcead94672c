"""The demo's hearing alone, against its truth: onset error and words per shout.

    python benchmarks/bench_demo_audio.py [--no-demix] [--verbose]

Runs the replay's audio path (``referee.replay``: cross-talk cancellation, onset detector,
Vosk, the enrolled-voice verifier) on ``fixtures/demo/seats.wav`` and matches each shout
with the truth (same player, nearest onset within 0.3 s). Prints, with counts: shouts
found, words right, onsets within 10 / 50 ms, median and p90 onset error, and the leakage
left after cancellation.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEMO = ROOT / "fixtures" / "demo"


def hear(demix: bool = True) -> tuple[list[dict], object]:
    from calibration import load
    from audio import hearing
    from referee.replay import ReplaySettings, hearing_plan

    cal_path = DEMO / "calibration.json"
    cal = load(cal_path)
    warnings: list[str] = []
    plan = hearing_plan(cal, cal.game, "versus", ReplaySettings(), cal_path)
    source, _ = hearing.open_source(DEMO / "session.mp4", DEMO / "seats.wav", warnings, demix=demix,
                                    leakage_from=plan.leakage_from)
    listener = hearing.make_listener(plan, source, warnings)
    events = []
    for block in source:
        events += listener.update(block)
    events += listener.close_window()
    return events, source


def match(events: list[dict], truth: list[dict]) -> list[tuple[dict, dict | None]]:
    pairs, used = [], set()
    for t in truth:
        best = None
        for i, e in enumerate(events):
            if i in used or e.get("player") != t["player"] or abs(e["t"] - t["t"]) > 0.3:
                continue
            if best is None or abs(e["t"] - t["t"]) < abs(events[best]["t"] - t["t"]):
                best = i
        if best is not None:
            used.add(best)
        pairs.append((t, None if best is None else events[best]))
    return pairs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-demix", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args(argv)
    truth = [json.loads(line) for line in (DEMO / "truth.jsonl").read_text().splitlines() if line.strip()]
    truth = [e for e in truth if e["type"] == "shout"]
    t0 = time.perf_counter()
    events, source = hear(demix=not a.no_demix)
    elapsed = time.perf_counter() - t0
    shouts = [e for e in events if e["type"] == "shout"]
    pairs = match(shouts, truth)
    found = [(t, e) for t, e in pairs if e is not None]
    errs = np.array([abs(e["t"] - t["t"]) * 1000 for t, e in found])
    words = sum(1 for t, e in found if list(e["words"]) == list(t["words"]))
    n = len(truth)
    print(f"demo audio: {n} true shouts, {len(shouts)} heard, {elapsed:.1f} s")
    print(f"  found (same player, within 0.3 s): {len(found)}/{n}")
    print(f"  words right: {words}/{n}")
    if len(errs):
        print(f"  onset within 10 ms: {int((errs <= 10).sum())}/{n}, within 50 ms: {int((errs <= 50).sum())}/{n}")
        print(f"  onset error median {np.median(errs):.1f} ms, p90 {np.percentile(errs, 90):.1f} ms")
    print(f"  extra shouts: {len(shouts) - len(found)}")
    if getattr(source, "residual_db", None) is not None:
        print(f"  leakage left after cancellation: {source.residual_db:.1f} dB (loudest pair)")
    if a.verbose:
        for t, e in pairs:
            if e is None:
                print(f"  MISSED {t['t']:.3f} {t['player']} {t['words']}")
            elif abs(e["t"] - t["t"]) > 0.010 or list(e["words"]) != list(t["words"]):
                print(f"  {t['t']:.3f} {t['player']:5} dt={1000 * (e['t'] - t['t']):+7.1f} ms  "
                      f"heard {e['words']} ({e.get('text')!r}) truth {t['words']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

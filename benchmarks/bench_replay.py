"""Replay speed and perception accuracy on the bundled 4-seat demo (prints figures).

    python benchmarks/bench_replay.py [--workers 2] [--pose-every 2] [--card-every 2] [--no-enroll] [--report]

Prints: video seconds, wall-clock seconds per stage, the speed-up over real time, the load
average while measuring, and against fixtures/demo/truth.jsonl: card/hand events found
(time error), shouts found within 50 ms and with the right words, and how many of the
expected verdicts (fixtures/demo/expected.jsonl: first, tie, correct, wrong, missed per
card) the replay reproduces.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
DEMO = ROOT / "fixtures" / "demo"


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def compare(events: list[dict], truth: list[dict]) -> dict:
    """Perception against the demo's truth."""
    out = {}
    for kind in ("card", "hand"):
        want = [e for e in truth if e["type"] == kind]
        got = [e for e in events if e["type"] == kind]
        errs = []
        for e in want:
            same = [g for g in got if all(g.get(k) == e.get(k) for k in ("card", "player", "side", "state"))
                    and abs(g["t"] - e["t"]) < 0.2]
            if same:
                errs.append(min(abs(g["t"] - e["t"]) for g in same))
        out[kind] = (len(errs), len(want), len(got), statistics.median(errs) * 1000 if errs else None,
                     max(errs) * 1000 if errs else None)
    want = [e for e in truth if e["type"] == "shout"]
    got = [e for e in events if e["type"] == "shout"]
    found = right = 0
    for e in want:
        m = [g for g in got if g["player"] == e["player"] and abs(g["t"] - e["t"]) < 0.05]
        if m:
            found += 1
            right += list(m[0]["words"]) == list(e["words"])
    out["shout"] = (found, right, len(want), len(got))
    return out


def verdicts_match(judged: list[dict], expected: list[dict]) -> list[bool]:
    keys = ("card", "first", "unsettled")
    sets = ("tie", "correct", "wrong", "missed")
    got = [v for v in judged if v["type"] == "verdict"]
    want = [v for v in expected if v["type"] == "verdict"]
    return [len(got) == len(want) and all(a.get(k) == b.get(k) for k in keys)
            and all(sorted(a.get(k, [])) == sorted(b.get(k, [])) for k in sets) for a, b in zip(got, want)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--pose-every", type=int, default=2)
    ap.add_argument("--card-every", type=int, default=2)
    ap.add_argument("--no-enroll", action="store_true")
    ap.add_argument("--report", action="store_true", help="also time the HTML report")
    ap.add_argument("--out", default=None, help="keep the outputs in this folder (default: a temporary one)")
    a = ap.parse_args()
    from referee.replay import ReplaySettings, replay

    import resource

    def cpu(who=None) -> float:
        if who is not None:
            a = resource.getrusage(who)
            return a.ru_utime + a.ru_stime
        return cpu(resource.RUSAGE_SELF) + cpu(resource.RUSAGE_CHILDREN)

    load0 = os.getloadavg()
    cpu0, self0 = cpu(), cpu(resource.RUSAGE_SELF)
    with tempfile.TemporaryDirectory() as tmp:
        out = a.out or tmp
        s = ReplaySettings(workers=a.workers, pose_every=a.pose_every, card_every=a.card_every,
                           no_enroll=a.no_enroll, report=a.report)
        r = replay(DEMO / "session.mp4", DEMO / "calibration.json", audio=DEMO / "seats.wav", out=out, settings=s)
    load1 = os.getloadavg()
    cpu_s = cpu() - cpu0  # seat workers and the audio process are joined children: counted
    self_s = cpu(resource.RUSAGE_SELF) - self0
    el, st = r.elapsed, r.stats
    print(f"replay of the 4-seat demo: {r.duration:.1f} s of video, {r.header['source']['frames']} frames, "
          f"workers {a.workers}, pose every {a.pose_every}, cards every {a.card_every}, "
          f"enrollment {'on' if r.enrolled else 'off'}")
    print(f"  wall: decode+vision {el['video']:.1f} s, all perception {el['perception']:.1f} s"
          + (f", report {el['report']:.1f} s" if "report" in el else "") + f", total {el['total']:.1f} s")
    print(f"  stages: decode {st.get('decode_cpu', 0):.1f} s CPU (reader thread), card zones {st.get('cards', 0):.1f} s, "
          f"pose {st.get('inferences', 0)} inferences + {st.get('reanalysed', 0)} re-analysed frames"
          + (f" (worker CPU {', '.join(f'{x:.1f}' for x in st['worker_cpu'])} s, busy "
             f"{', '.join(f'{x:.1f}' for x in st['worker_busy'])} s)" if st.get("worker_cpu") else "")
          + f"; audio: read+demix {st.get('audio_demix', 0):.1f} s, model+enrollment {st.get('audio_setup', 0):.1f} s, "
          f"onsets+Vosk+verifier {st.get('audio_listen', 0):.1f} s ({st.get('audio_cpu', 0):.1f} s CPU), "
          f"waited for audio after the video {st.get('audio_wait', 0):.1f} s; judge {st.get('judge', 0):.2f} s")
    print(f"  speed: {r.duration / el['perception']:.2f}x real time (perception), {r.duration / el['total']:.2f}x (total)"
          f"; cores {os.cpu_count()}, load average {load0[0]:.1f} before, {load1[0]:.1f} after")
    cores = os.cpu_count() or 1
    print(f"  CPU time {cpu_s:.1f} s (this process + seat workers + audio process) = {r.duration / cpu_s:.2f}x real "
          f"time on one core; if {cores} cores were free: about {r.duration * cores / cpu_s:.2f}x (an estimate, "
          f"not measured); CPU use {cpu_s / el['total']:.2f} cores on average; this process {self_s:.1f} s, "
          f"children (seat workers, audio) {cpu_s - self_s:.1f} s")
    c = compare(r.events, _lines(DEMO / "truth.jsonl"))
    for kind in ("card", "hand"):
        f, n, g, med, mx = c[kind]
        print(f"  {kind} events: {f}/{n} found (reported {g}), time error median {med:.1f} ms, max {mx:.1f} ms")
    f, right, n, g = c["shout"]
    print(f"  shouts: {f}/{n} found within 50 ms (reported {g}), right words {right}/{n}")
    ok = verdicts_match([x for x in r.judgement.lines], _lines(DEMO / "expected.jsonl"))
    print(f"  verdicts reproduced: {sum(ok)}/{len(ok)} (cards {', '.join(str(i + 1) for i, x in enumerate(ok) if x) or '-'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Replay speed and perception accuracy on the bundled 4-seat demo (prints figures).

    python benchmarks/bench_replay.py [--workers 2] [--pose-every 8] [--card-every 2] [--no-enroll] [--report]
    python benchmarks/bench_replay.py --check DIR/session.jsonl     # a record against the truth, no replay

Prints: video seconds, wall-clock seconds (decode+vision, perception, report, total), the
stages (decode CPU, card zones, pose runs and re-analysed frames with each seat worker's
CPU, the audio process's read+demix / model+enrollment / onsets+Vosk+verifier, the judge),
the speed-up over real time (video duration / wall time), the load average before and
after, the CPU time of all processes (this one and the joined children) with the estimate
it gives for 2 free cores, and against fixtures/demo/truth.jsonl: card/hand events found
(time error; every event beyond one frame / 5 ms listed), shouts found within 50 ms and
with the right words, and how many of the expected verdicts (fixtures/demo/expected.jsonl:
first, tie, correct, wrong, missed per card) the replay reproduces. Other sessions share
the machine: run it 2-3 times and give the best with the load average.
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


#: the demo's perception tolerances: a hand change within 5 ms of the truth, a card within
#: one frame (30 fps)
TOLERANCE_S = {"hand": 0.005, "card": 1 / 30 + 1e-6}


def compare(events: list[dict], truth: list[dict]) -> dict:
    """Perception against the demo's truth. Per kind: (found, wanted, reported, median ms,
    max ms, [truth events not found or beyond :data:`TOLERANCE_S`, with their error])."""
    out = {}
    for kind in ("card", "hand"):
        want = [e for e in truth if e["type"] == kind]
        got = [e for e in events if e["type"] == kind]
        errs, off = [], []
        for e in want:
            same = [g for g in got if all(g.get(k) == e.get(k) for k in ("card", "player", "side", "state"))
                    and abs(g["t"] - e["t"]) < 0.2]
            if same:
                err = min(abs(g["t"] - e["t"]) for g in same)
                errs.append(err)
                if err > TOLERANCE_S[kind]:
                    off.append((e, err))
            else:
                off.append((e, None))
        out[kind] = (len(errs), len(want), len(got), statistics.median(errs) * 1000 if errs else None,
                     max(errs) * 1000 if errs else None, off)
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
    from referee.replay import ReplaySettings

    d = ReplaySettings()
    ap.add_argument("--workers", type=int, default=d.workers)
    ap.add_argument("--pose-every", type=int, default=d.pose_every)
    ap.add_argument("--card-every", type=int, default=d.card_every)
    ap.add_argument("--no-enroll", action="store_true")
    ap.add_argument("--report", action="store_true", help="also time the HTML report")
    ap.add_argument("--out", default=None, help="keep the outputs in this folder (default: a temporary one)")
    ap.add_argument("--check", metavar="SESSION_JSONL", default=None,
                    help="no replay: compare this record (e.g. from referee demo --out DIR) with the demo's truth")
    a = ap.parse_args()
    if a.check:
        print(f"{a.check} against {DEMO / 'truth.jsonl'}:")
        from referee.judge import judge
        from session.record import read_record

        report_accuracy([e for e in _lines(Path(a.check)) if e.get("type") != "session"],
                        list(judge(read_record(Path(a.check)), {}).lines))
        return 0
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
          f"pose {st.get('inferences', 0)} inferences ({st.get('skipped', 0)} due frames still: skipped) + {st.get('reanalysed', 0)} re-analysed frames"
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
    report_accuracy(r.events, [x for x in r.judgement.lines])
    return 0


def report_accuracy(events: list[dict], judged: list[dict] | None) -> None:
    """Print the record's perception against fixtures/demo/truth.jsonl (and the verdicts
    against expected.jsonl when given)."""
    c = compare(events, _lines(DEMO / "truth.jsonl"))
    for kind in ("card", "hand"):
        f, n, g, med, mx, off = c[kind]
        tol = "5 ms" if kind == "hand" else "one frame"
        print(f"  {kind} events: {f}/{n} found (reported {g}), time error median {med:.1f} ms, max {mx:.1f} ms; "
              f"beyond {tol} or missing: {len(off)}"
              + "".join(f"\n    {e['t']:.3f} s {e.get('card') or (e['player'] + ' ' + e['side'] + ' ' + e['state'])}: "
                        + ("missing" if err is None else f"{err * 1000:.1f} ms") for e, err in off))
    f, right, n, g = c["shout"]
    print(f"  shouts: {f}/{n} found within 50 ms (reported {g}), right words {right}/{n}")
    if judged is not None:
        ok = verdicts_match(judged, _lines(DEMO / "expected.jsonl"))
        print(f"  verdicts reproduced: {sum(ok)}/{len(ok)} (cards {', '.join(str(i + 1) for i, x in enumerate(ok) if x) or '-'})")


if __name__ == "__main__":
    sys.exit(main())

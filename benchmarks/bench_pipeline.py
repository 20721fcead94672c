"""Replay speed before and after a change, measured in one run on the same load (prints figures).

    python benchmarks/bench_pipeline.py --before REV [--rounds 3] [--workers 2] [--game takoyaki]

Checks ``REV`` out into a temporary git worktree and replays the bundled demo
(``referee demo``: video + seats' audio → record, verdicts, report) alternately with that
checkout and this one, ``--rounds`` times each (before, after, before, after, ...), so both
see the same machine load. Prints each run's wall time, real-time factor and CPU time (the
run and its worker processes), the load average around it, the best and median per side and their ratio, and whether the two
sides' records (after the header line), verdicts and reports are byte for byte the same.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: each demo recording's length (s), by ``referee demo --game``
VIDEO_S = {"ikatako": 37.0, "takoyaki": 39.7}


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _run(checkout: Path, out: Path, workers: int, game: str = "ikatako") -> tuple[float, float, str]:
    """Wall time, CPU time (the run and its worker processes: they are waited for) and stdout."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "referee", "demo", "--game", game, "--out", str(out),
                          "--workers", str(workers), "--json"], cwd=checkout, env=env, capture_output=True, text=True, timeout=900)
    wall = time.perf_counter() - t0
    if res.returncode != 0:
        raise SystemExit(f"{checkout}: referee demo failed:\n{res.stderr[-2000:]}")
    return wall, _children_cpu() - cpu0, res.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="git revision to compare with (e.g. the commit before a change)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--game", choices=sorted(VIDEO_S), default="ikatako", help="which demo (referee demo --game)")
    args = ap.parse_args()
    video_s = VIDEO_S[args.game]
    tmp = Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
    before = tmp / "before"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before), args.before], check=True,
                   capture_output=True)
    try:
        times: dict[str, list[float]] = {"before": [], "after": []}
        cpus: dict[str, list[float]] = {"before": [], "after": []}
        outputs: dict[str, str] = {}
        print(f"replay of the {args.game} demo ({video_s:.0f} s of video), --workers {args.workers}; before = {args.before}")
        for k in range(args.rounds):
            for side, checkout in (("before", before), ("after", ROOT)):
                out = tmp / f"{side}{k}"
                load0 = os.getloadavg()[0]
                wall, cpu, stdout = _run(checkout, out, args.workers, args.game)
                load1 = os.getloadavg()[0]
                times[side].append(wall)
                cpus[side].append(cpu)
                outputs[side] = out.as_posix()
                if k == 0:
                    outputs[side + "_json"] = stdout
                print(f"  round {k + 1} {side:6}: {wall:6.1f} s  {video_s / wall:5.2f}x real time  "
                      f"CPU {cpu:5.1f} s  (load {load0:.2f} -> {load1:.2f})")
        for side in ("before", "after"):
            t = times[side]
            print(f"{side:6}: best {min(t):.1f} s ({video_s / min(t):.2f}x), median {statistics.median(t):.1f} s "
                  f"({video_s / statistics.median(t):.2f}x) over {len(t)} runs")
        for side in ("before", "after"):
            c = cpus[side]
            print(f"{side:6}: CPU time (all processes) best {min(c):.1f} s, median {statistics.median(c):.1f} s "
                  f"(less load-dependent than the wall time on a shared machine)")
        ratio = min(times["after"]) / min(times["before"])
        med = statistics.median(times["after"]) / statistics.median(times["before"])
        print(f"after/before wall time: best {ratio:.3f}, median {med:.3f} ({(ratio - 1) * 100:+.1f} % best)")
        b, a = Path(outputs["before"]), Path(outputs["after"])
        same_record = (b / "session.jsonl").read_text().splitlines()[1:] == (a / "session.jsonl").read_text().splitlines()[1:]
        print(f"records (events after the header) identical: {same_record}; verdicts identical: "
              f"{outputs['before_json'] == outputs['after_json']}; reports identical: "
              f"{(b / 'report.html').read_bytes() == (a / 'report.html').read_bytes()}")
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)], capture_output=True)


if __name__ == "__main__":
    main()

"""Soak test of the live referee: the demo through the live path, paced in real time, game
after game for a while; per minute and at the end, whether it stays flat (prints figures).

    python benchmarks/bench_live_soak.py --minutes 10        # the soak (the lead runs it)
    python benchmarks/bench_live_soak.py --loops 3           # the demo 3 times (~2.5 min)

The demo recording (37 s) is played ``--loops`` times (or for ``--minutes``) as games back to
back in this one process, as a table plays them (``n n``: each game its own record in
``OUT/game-K``), with the pose workers loaded once (:class:`referee.live.engines.LiveEngines`).
One long session would not do: IKATAKO's deck ends after the first pass, and the judge
then gives no verdicts to time.

Every ``--every`` seconds it prints: frames captured / skipped / dropped in that stretch, CPU
seconds (this process and its pose workers, from /proc), resident memory (the same), the
load average, and the latency per stage in that stretch (median, count): capture → event
known (released by the merge: hands, shouts, cards), the first correct player announced
after their reaction + tie window, wrong/missed announced after the window, the final
verdict after the window. "Sound starts" is printed when a sound device plays the voice
(``--voice``); this machine has none — ``benchmarks/bench_live_compare.py --voice
--null-sound`` measures it on an ALSA null PCM (``live-figures.json`` ``sound_ms``). At the end: each figure's first and last minute and
whether it grew: the medians of the first half of the stretches against the second half's
(memory: more than 10 % more; CPU 25 %; frames lost and latency 1.5 times), with the load
average beside them, since on a shared machine the latency follows the load.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.live.latency import LatencyProbe  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_replay import verdicts_match  # noqa: E402

DEMO = ROOT / "fixtures" / "demo"
DEMO_S = 37.0


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            out += [int(x) for x in task.read_text().split()]
        except OSError:
            pass
    return out


def _proc_cpu_rss(pid: int) -> tuple[float, int]:
    """CPU seconds (user + system) and resident bytes of one process (0 if gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        rss = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        return cpu, rss
    except (OSError, IndexError, ValueError):
        return 0.0, 0


class Usage:
    """CPU and memory of this process and its children; CPU of children that ended is kept."""

    def __init__(self):
        self.me = os.getpid()
        self._last: dict[int, float] = {}
        self._gone = 0.0

    def sample(self) -> tuple[float, int]:
        pids = [self.me] + _children(self.me)
        now: dict[int, float] = {}
        rss = 0
        for p in pids:
            c, r = _proc_cpu_rss(p)
            now[p] = c
            rss += r
        self._gone += sum(c for p, c in self._last.items() if p not in now)
        self._last = now
        return self._gone + sum(now.values()), rss


class SoakProbe(LatencyProbe):
    """The live run's latency probe as an extra sink of every game, its clock taken from the
    status ``now`` (session seconds); figures are taken per stretch with :meth:`take`."""

    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()
        self.camera: dict[str, int] = {}
        self._game_base: dict[str, int] = {}
        self._totals = {"captured": 0, "skipped": 0, "dropped": 0}

    def start(self, header):
        super().start(header)
        with self.lock:  # a new game: its camera counts start at 0
            for k in self._totals:
                self._totals[k] += self.camera.get(k, 0)
            self.camera = {}

    def status(self, info):
        now = info.get("now")
        if isinstance(now, (int, float)):
            self._t0 = time.monotonic() - float(now)
        cam = info.get("camera") or {}
        with self.lock:
            for k in self._totals:
                if isinstance(cam.get(k), int):
                    self.camera[k] = cam[k]

    def counts(self) -> dict[str, int]:
        with self.lock:
            return {k: self._totals[k] + self.camera.get(k, 0) for k in self._totals}

    def take(self) -> dict:
        with self.lock:
            f = self.figures()
            self.known, self.verdict_ms, self.announce_ms, self.first_ms = {}, [], [], []
        return f


def _fmt(s) -> str:
    return "-" if not s else f"{s['median']} (n={s['n']})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loops", type=int, default=None, help="games: the demo this many times")
    ap.add_argument("--minutes", type=float, default=None, help="games until this long (default 10)")
    ap.add_argument("--every", type=float, default=60.0, help="seconds between two printed lines")
    ap.add_argument("--out", type=Path, default=Path("/tmp/bench-live-soak"))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--pose-every", type=int, default=8)
    ap.add_argument("--fixed-pose-rate", action="store_true")
    ap.add_argument("--voice", action="store_true", help="speak the verdicts (needs a sound device)")
    args = ap.parse_args()
    loops = args.loops or max(1, math.ceil((args.minutes or 10.0) * 60 / DEMO_S))

    from referee.live.engines import LiveEngines
    from referee.live.run import LiveOptions, run_live
    from referee.live.terminal import TerminalView
    import io

    probe = SoakProbe()
    usage = Usage()
    rows: list[dict] = []
    stop = threading.Event()
    t_start = time.monotonic()
    cpu0, _ = usage.sample()

    def sample_loop() -> None:
        last_cpu, last_counts = cpu0, probe.counts()
        k = 0
        while not stop.wait(args.every):
            k += 1
            cpu, rss = usage.sample()
            counts = probe.counts()
            lat = probe.take()
            d = {key: counts[key] - last_counts[key] for key in counts}
            row = {"minute": k, "cpu_s": cpu - last_cpu, "rss_mb": rss / 2**20, "load": os.getloadavg(), **d,
                   "known": lat["event_known_ms"], "first": lat["first_announced_after_reaction_and_tie_ms"],
                   "closed": lat["wrong_missed_announced_after_window_ms"], "verdict": lat["verdict_after_window_ms"]}
            rows.append(row)
            last_cpu, last_counts = cpu, counts
            known = ", ".join(f"{t} {_fmt(s)}" for t, s in sorted(row["known"].items()))
            print(f"[{k:>2}] {time.monotonic() - t_start:6.0f} s | frames {d['captured']} captured, {d['skipped']} "
                  f"skipped, {d['dropped']} dropped | CPU {row['cpu_s']:.1f} s ({row['cpu_s'] / args.every:.2f} "
                  f"cores) | RSS {row['rss_mb']:.0f} MB | load {' '.join(f'{x:.2f}' for x in row['load'])}\n"
                  f"      capture->known ms: {known or '-'} | first announced {_fmt(row['first'])} | "
                  f"wrong/missed {_fmt(row['closed'])} | verdict {_fmt(row['verdict'])} | sound starts: "
                  f"{'not measured' if not args.voice else 'see the voice warnings'}", flush=True)

    engines = LiveEngines()
    sampler = threading.Thread(target=sample_loop, daemon=True)
    sampler.start()
    results = []
    expected = [json.loads(x) for x in (DEMO / "expected.jsonl").read_text().splitlines() if x.strip()]
    expected = [v for v in expected if v.get("type") == "verdict"]
    print(f"soak: {loops} game(s) of the demo ({loops * DEMO_S / 60:.1f} min of play), paced in real time; "
          f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    try:
        for g in range(1, loops + 1):
            opts = LiveOptions(calibration=DEMO / "calibration.json", out=args.out / f"game-{g}",
                               from_video=DEMO / "session.mp4", audio=DEMO / "seats.wav", window=False,
                               voice=args.voice, workers=args.workers, pose_every=args.pose_every)
            if args.fixed_pose_rate:
                opts.pose_rate = None
            sinks = [probe]
            if args.voice:
                from referee.live.voice import VoiceSink

                sinks.append(VoiceSink("ja"))
            r = run_live(opts, extra_sinks=sinks, say=lambda s: None, engines=engines,
                         view_factory=lambda state, controls: TerminalView(state, controls, out=io.StringIO(),
                                                                           keys=None))
            verdicts = sum(1 for line in r.lines if line.get("type") == "verdict")
            same = sum(verdicts_match(r.lines, expected))
            results.append(r)
            print(f"      game {g}: {verdicts} verdict lines, {same}/{len(expected)} as the demo's, pose every {r.figures['pose_every']['start']}->"
                  f"{r.figures['pose_every']['end']} ({len(r.figures['pose_every']['changes'])} changes), "
                  f"warm-up {r.figures.get('warm_up_s')} s, late events {r.figures.get('late')}", flush=True)
    finally:
        stop.set()
        engines.close()
    sampler.join(timeout=args.every + 5)
    wall = time.monotonic() - t_start
    cpu, rss = usage.sample()
    print(f"\nsummary: {len(results)} games in {wall:.0f} s, CPU {cpu - cpu0:.0f} s ({(cpu - cpu0) / wall:.2f} cores), "
          f"pose worker pools started {engines.started}, reused {engines.reused}; load "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    c = probe.counts()
    print(f"frames: {c['captured']} captured, {c['skipped']} skipped ({c['skipped'] / max(1, c['captured']):.1%}), "
          f"{c['dropped']} dropped by the camera")
    summary(rows, args.every)


def summary(rows: list[dict], every: float) -> None:
    """Flat or growing: the first half of the stretches against the second half."""
    full = [r for r in rows if r["captured"] > 0]
    if len(full) >= 2:
        half = len(full) // 2
        early, late = full[:half], full[half:]

        def med(xs):
            xs = sorted(x for x in xs if x is not None)
            return xs[len(xs) // 2] if xs else None

        def verdict(a, b, factor):
            return "-" if a is None or b is None else ("GROWING" if b > factor * max(a, 1) else "flat")

        load_a, load_b = med(r["load"][0] for r in early), med(r["load"][0] for r in late)
        print(f"(first half of the stretches vs the second half, medians; load {load_a:.2f} -> {load_b:.2f}: "
              "latency follows the machine's load)")
        a, b = med(r["rss_mb"] for r in early), med(r["rss_mb"] for r in late)
        print(f"memory (this process + pose workers): {a:.0f} -> {b:.0f} MB (min {min(r['rss_mb'] for r in full):.0f}, "
              f"max {max(r['rss_mb'] for r in full):.0f}): {verdict(a, b, 1.1)}")
        a, b = med(r["cpu_s"] for r in early) / every, med(r["cpu_s"] for r in late) / every
        print(f"CPU: {a:.2f} -> {b:.2f} cores: {verdict(a, b, 1.25)}")
        a, b = (med(r["skipped"] + r["dropped"] for r in early), med(r["skipped"] + r["dropped"] for r in late))
        print(f"frames skipped + dropped per stretch: {a} -> {b}: {verdict(a, b, 1.5)}")
        for name in ("hand", "shout", "card"):
            a = med((r["known"].get(name) or {}).get("median") for r in early)
            b = med((r["known"].get(name) or {}).get("median") for r in late)
            if a is not None and b is not None:
                print(f"capture->known {name}: {a} -> {b} ms: {verdict(a, b, 1.5)}")
        for key, label in (("first", "first announced"), ("closed", "wrong/missed announced"), ("verdict", "verdict")):
            a = med((r[key] or {}).get("median") for r in early)
            b = med((r[key] or {}).get("median") for r in late)
            if a is not None and b is not None:
                print(f"{label}: {a} -> {b} ms: {verdict(a, b, 1.5)}")
    else:
        print("(run at least two stretches of --every seconds for the flat/growing summary)")


if __name__ == "__main__":
    main()

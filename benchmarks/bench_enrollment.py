"""How sure the enrolled voices are, on real voices (issue 30, item 1): accuracy per margin bin
of :class:`audio.enroll.Enrollment`, and the ``min_margin`` a verdict needs to be right 99 %
of the time, chosen on some speakers and reported on another (leave-one-speaker-out).

    python benchmarks/bench_enrollment.py [--takes 2] [--json]

Material, read in place: ``../shared/data/speech`` (see its README), the English digits
"two" … "nine" of the Free Spoken Digit Dataset's three speakers (george, jackson, lucas),
ten takes each. Each speaker is enrolled as the referee enrols a player (``--takes`` takes of
every call, as ``referee calibrate --enroll`` takes them: trimmed to the utterance; the demo
enrols 2), and every other take is verified as that speaker's shout (:meth:`Enrollment.verify`,
given the 0.3 s of its channel before it as its noise). Their "zero" and "one" (no call of
the game here) are verified too: any call accepted on them is wrong. Two conditions: quiet,
and white noise 10 dB below the speech (seeded).

An *observation* is a verdict that names a call; it is right when the call is the clip's
digit. The table gives, per margin bin (the verdict's margin: how much nearer the best call
is than the next), how many verdicts and how many right. The threshold analysis: for each
held-out speaker, the lowest margin at which the OTHER two speakers' verdicts at or above it
are right at least 99 % of the time (``CLEAR``), then on the held-out speaker: the verdicts
kept at that margin, how many right, and the share of its clips abstained. Only these
held-out figures are a headline.

Nothing derived from the clips is written anywhere.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SPEECH = next((p / "shared" / "data" / "speech" for p in ROOT.parents if (p / "shared" / "data" / "speech").is_dir()),
              ROOT.parent / "shared" / "data" / "speech")
#: "clear" means right at least this often (issue 30)
CLEAR = 0.99
#: the margin bins of the table (lower edges)
BINS = (0.0, 0.3, 0.5, 1.0, 1.5, 2.0, 3.0)
NOISE_BEFORE_S = 0.3
CONDITIONS = ("quiet", "white-10dB")


def clips() -> list[dict]:
    """The keyword and 'other' clips of the FSDD speakers: file, token ('' for other), speaker, take."""
    with open(SPEECH / "labels.csv", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["speaker"].startswith("fsdd:") and r["kind"] in ("keyword", "other")]
    for r in rows:
        r["take"] = int(Path(r["file"]).stem.rsplit("_", 1)[1])
    return rows


def read(path: Path) -> tuple[np.ndarray, int]:
    from audio.capture import read_all

    data, rate = read_all(path)
    return data.mean(axis=1).astype(np.float64), rate


def in_condition(x: np.ndarray, rate: int, condition: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The clip as heard in ``condition`` and the stretch of its channel before it."""
    if condition == "quiet":
        return x, np.zeros(int(NOISE_BEFORE_S * rate))
    rng = np.random.default_rng(seed)
    speech = np.sqrt(np.mean(x ** 2)) + 1e-12
    noise = rng.standard_normal(len(x) + int(NOISE_BEFORE_S * rate)) * speech * 10 ** (-10 / 20)
    return x + noise[-len(x):], noise[: -len(x)]


def verdicts(takes: int) -> list[dict]:
    """Every clip not used for enrollment, verified per condition: speaker, token, got, margin."""
    from audio.enroll import Enrollment, trim

    rows = clips()
    out = []
    for speaker in sorted({r["speaker"] for r in rows}):
        mine = [r for r in rows if r["speaker"] == speaker]
        x0, rate = read(SPEECH / mine[0]["file"])
        enrollment = Enrollment(rate)
        for r in mine:
            if r["token"] and r["take"] < takes:
                x, _ = read(SPEECH / r["file"])
                enrollment.add(speaker, (r["token"],), trim(x, rate))
        for r in mine:
            if r["token"] and r["take"] < takes:
                continue
            x, _ = read(SPEECH / r["file"])
            said = trim(x, rate)
            for k, condition in enumerate(CONDITIONS):
                heard, before = in_condition(said, rate, condition, seed=hash_seed(r["file"], k))
                v = enrollment.verify(speaker, feats=enrollment.features(heard, before))
                ranked_margin = v.margin if v.tokens is not None else None
                out.append({"speaker": speaker, "file": r["file"], "token": r["token"], "condition": condition,
                            "got": " ".join(v.tokens) if v.tokens else None, "margin": v.margin,
                            "distance": v.distance, "accepted_margin": ranked_margin})
    return out


def hash_seed(name: str, k: int) -> int:
    import zlib

    return zlib.crc32(f"{name}:{k}".encode()) & 0x7FFFFFFF


def observations(rows: list[dict], min_margin: float = 0.0) -> list[tuple[float, bool]]:
    """(margin, right) of every verdict that names a call at or above ``min_margin``."""
    return [(r["margin"], r["got"] == r["token"]) for r in rows if r["got"] is not None and r["margin"] >= min_margin]


def lowest_clear(obs: list[tuple[float, bool]], clear: float = CLEAR) -> float | None:
    """The lowest margin m (one of the observed margins) such that the observations at or above
    m are right at least ``clear`` of the time; None when no margin reaches it."""
    for m in sorted({m for m, _ in obs}):
        kept = [ok for mm, ok in obs if mm >= m]
        if kept and sum(kept) / len(kept) >= clear:
            return m
    return None


def binned(obs: list[tuple[float, bool]]) -> list[tuple[str, int, int]]:
    edges = list(BINS) + [float("inf")]
    out = []
    for lo, hi in zip(edges, edges[1:]):
        inside = [ok for m, ok in obs if lo <= m < hi]
        out.append((f"[{lo:g}, {hi:g})", len(inside), sum(inside)))
    return out


def held_out(rows: list[dict]) -> list[dict]:
    out = []
    for speaker in sorted({r["speaker"] for r in rows}):
        tune = [r for r in rows if r["speaker"] != speaker]
        test = [r for r in rows if r["speaker"] == speaker]
        m = lowest_clear(observations(tune))
        kept = observations(test, m) if m is not None else []
        out.append({"held_out": speaker, "min_margin": m, "clips": len(test), "kept": len(kept),
                    "right": sum(ok for _, ok in kept), "abstained": len(test) - len(kept),
                    "right_at_default": _right_at(test, 0.3)})
    return out


def _right_at(rows: list[dict], m: float) -> tuple[int, int]:
    obs = observations(rows, m)
    return sum(ok for _, ok in obs), len(obs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--takes", type=int, default=2, help="takes of each call enrolled per speaker (default 2)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if not (SPEECH / "labels.csv").is_file():
        print(f"skipped: no real speech at {SPEECH} (../shared/data/speech)")
        return 0
    sys.path.insert(0, str(ROOT))
    t0, load0 = time.time(), os.getloadavg()
    rows = verdicts(a.takes)
    print(f"enrolled voices on real speech: {len(rows)} verifications ({a.takes} takes enrolled per call, "
          f"{', '.join(CONDITIONS)}); load average at start {' '.join(f'{x:.2f}' for x in load0)} (2 cores)")
    for condition in CONDITIONS + ("all",):
        sub = [r for r in rows if condition in ("all", r["condition"])]
        print(f"\n{condition}: margin bin   verdicts  right")
        for label, n, right in binned(observations(sub)):
            print(f"  {label:14s} {n:8d} {right:6d}" + (f"  {right / n:.1%}" if n else ""))
        print(f"  abstained: {sum(r['got'] is None for r in sub)} of {len(sub)}")
    print(f"\nleave-one-speaker-out (margin chosen on the other two so that {CLEAR:.0%} of their verdicts are right):")
    for h in held_out(rows):
        right0, n0 = h["right_at_default"]
        print(f"  held out {h['held_out']:14s} min_margin {h['min_margin']}: kept {h['kept']} of {h['clips']}, "
              f"right {h['right']}" + (f" ({h['right'] / h['kept']:.1%})" if h["kept"] else "")
              + f", abstained {h['abstained']}; at today's 0.3: right {right0} of {n0}")
    print(f"\nload average at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {time.time() - t0:.0f} s")
    if a.json:
        print(json.dumps({"held_out": held_out(rows)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

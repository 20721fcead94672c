"""The demo's hearing alone, against its truth: onset error and words per shout; and the
demo changed on purpose (``--variants``): verdicts kept, seats changed, what was said.

    python benchmarks/bench_demo_audio.py [--no-demix] [--verbose]
    python benchmarks/bench_demo_audio.py --variants [--only NAME ...] [--before REV] [--full]

Runs the replay's audio path (``referee.replay``: cross-talk cancellation, onset detector,
Vosk, the enrolled-voice verifier) on ``fixtures/demo/seats.wav`` and matches each shout
with the truth (same player, nearest onset within 0.3 s). Prints, with counts: shouts
found, words right, onsets within 10 / 50 ms, median and p90 onset error, and the leakage
left after cancellation.

``--variants``: ``fixtures/demo/seats.wav`` edited (channels swapped, one muted, all ×3 so
they clip, one delayed 3 s, cut at 8 / 18.5 s, white noise 30/20/10 dB and babble 20 dB
below the speech — babble is real speech of ``../shared/data/speech`` read in place), each
heard and judged; per variant: verdicts equal to ``fixtures/demo/expected.jsonl``, verdicts
where a seat the edit does not touch changed, and the warnings / audio_status events the
hearing gave for seats. By default the seeing is replayed once (no audio) and each
variant's hearing events (``audio.hearing``, as the replay builds them) are judged with it
(``referee.judge``): the verdicts a full replay gives, at the cost of the hearing alone;
``--full`` replays every variant with ``python -m referee replay`` instead. ``--before
REV`` (default: the merge base with ``main``) measures that tree too, in the same run
(``git archive`` into a temp folder), and says of which variants every shout (seat, onset,
words) is the same in both trees. Derived audio lives only in a temp folder.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import os

#: the code tree measured (``--variants`` runs this script inside the "before" tree too)
ROOT = Path(os.environ.get("BENCH_DEMO_ROOT") or Path(__file__).resolve().parents[1])
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
        t0 = time.perf_counter()
        out = listener.update(block)
        now = (block.index + len(block.data)) / block.rate + block.offset + (time.perf_counter() - t0)
        for e in out:  # the word is known when the event is out: audio waited for + decoding
            if e.get("type") == "shout" and e.get("t_end") is not None:
                e["_latency"] = now - e["t_end"]
        events += out
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


# ----------------------------------------------------------------- the demo changed
# ../shared/data/speech beside this script's repository (the "before" tree lives in a temp folder)
_HERE = Path(__file__).resolve().parents[1]
SPEECH = next((p / "shared" / "data" / "speech" for p in _HERE.parents if (p / "shared" / "data" / "speech").is_dir()),
              _HERE.parent / "shared" / "data" / "speech")


def speech_level(x: np.ndarray) -> float:
    """RMS over the 10 ms frames within 30 dB of the loudest (the speech, not the pauses)."""
    n = len(x) // 160
    e = (x[: n * 160].reshape(n, 160) ** 2).mean(axis=1)
    return float(np.sqrt(e[e >= e.max() * 1e-3].mean()))


def variants(folder: Path, only: list[str] | None = None) -> dict[str, tuple[Path, str | None, float | None]]:
    """name -> (wav, the seat(s) it touches, "+"-joined, or None for all; audio end in s or None).
    Seeded: the same files every run (the same edits as ``benchmarks/bench_hearing.py``)."""
    from scipy.io import wavfile

    from audio.capture import read_all

    x, rate = read_all(DEMO / "seats.wav")
    x = x.astype(np.float64)
    rng = np.random.default_rng(13)
    level = np.array([speech_level(x[:, k]) for k in range(x.shape[1])])
    out = {}

    def save(name, y, seat=None, end=None):
        if only and not any(o in name for o in only):
            return
        p = folder / ("".join(c if c.isalnum() else "_" for c in name) + ".wav")
        wavfile.write(p, rate, (np.clip(y, -1, 1) * 32767).astype(np.int16))
        out[name] = (p, seat, end)

    save("unchanged", x)
    y = x.copy()
    y[:, [0, 1]] = x[:, [1, 0]]
    save("swapped aki/ben", y, "aki+ben")
    y = x.copy()
    y[:, 1] = 0
    save("ben muted", y, "ben")
    save("all x3 (clipped)", x * 3)
    y = x.copy()
    d = 3 * rate
    y[d:, 3] = x[:-d, 3]
    y[:d, 3] = 0
    save("dai delayed 3 s", y, "dai")
    save("cut to 8 s", x[: 8 * rate], None, 8.0)
    save("cut to 18.5 s", x[: int(18.5 * rate)], None, 18.5)
    for snr in (30, 20, 10):
        save(f"white {snr} dB", x + rng.standard_normal(x.shape) * level * 10 ** (-snr / 20))
    if not SPEECH.is_dir():
        print(f"(babble skipped: {SPEECH} not found)")
        return out
    import csv

    # babble: real speech (six talkers at once), the room's noise: it reaches every microphone,
    # each a little later (0-3 ms), 20 dB below that seat's speech
    rows = [r for r in csv.DictReader(open(SPEECH / "labels.csv", encoding="utf-8")) if r["lang"] == "ja"]
    room = np.zeros(len(x) + 64)
    for _ in range(6):
        pos = -int(rng.integers(0, rate))  # already talking when the recording starts
        while pos < len(room):
            r = rows[int(rng.integers(len(rows)))]
            clip, _ = read_all(SPEECH / r["file"])
            clip = clip.mean(axis=1)
            skip = max(0, -pos)
            n = min(len(clip), len(room) - pos)
            if n > skip:
                room[pos + skip : pos + n] += clip[skip:n] / max(speech_level(clip), 1e-6)
            pos += n + int(rng.integers(0, rate // 4))
    babble = np.zeros_like(x)
    for k in range(x.shape[1]):
        d = int(rng.integers(0, 48))
        babble[:, k] = room[d : d + len(x)] * level[k] * 10 ** (-20 / 20) / speech_level(room)
    save("babble 20 dB", x + babble)
    return out


def hear_file(wav: Path) -> tuple[list[dict], float, list[str]]:
    """The hearing events of ``wav`` as the replay makes them (on the video clock), the audio's
    end, and the setup warnings."""
    from calibration import load
    from audio import hearing
    from referee.replay import ReplaySettings, hearing_plan

    cal_path = DEMO / "calibration.json"
    cal = load(cal_path)
    warnings: list[str] = []
    plan = hearing_plan(cal, cal.game, "versus", ReplaySettings(), cal_path)
    source, _ = hearing.open_source(DEMO / "session.mp4", wav, warnings, demix=plan.demix,
                                    leakage_from=plan.leakage_from, rate=cal.audio.rate)
    return _listened(hearing.make_listener(plan, source, warnings), source, cal, warnings)


def _listened(listener, source, cal, warnings: list[str], latest: bool = False) -> tuple[list[dict], float, list[str]]:
    """Every block of ``source`` through ``listener``: its events on the video clock (the
    calibration's audio-video offset added), where the audio ends, the warnings. ``latest``:
    the end is the latest block's (a live source's blocks may come out of order)."""
    events, end = [], 0.0
    for block in source:
        block_end = block.offset + (block.index + len(block.data)) / block.rate
        end = max(end, block_end) if latest else block_end
        events += listener.update(block)
    events += listener.close_window()
    offset = float(getattr(cal, "av_offset", None) or 0.0)
    for e in events:
        for k in ("t", "t_end"):
            if isinstance(e.get(k), (int, float)):
                e[k] = round(e[k] + offset, 6)
    return events, end + offset, warnings


def hear_file_live(wav: Path) -> tuple[list[dict], float, list[str]]:
    """:func:`hear_file` through the live referee's hearing (``referee live --from-video …
    --audio WAV``, unpaced): the calibration recording's leakage cancelled block by block
    (``audio.hearing.demixed_from``, the live stages), then the listener."""
    from calibration import load
    from audio import hearing
    from audio.capture import FileSource
    from referee.replay import ReplaySettings, hearing_plan

    cal_path = DEMO / "calibration.json"
    cal = load(cal_path)
    warnings: list[str] = []
    plan = hearing_plan(cal, cal.game, "versus", ReplaySettings(), cal_path)
    src = FileSource(wav, rate=cal.audio.rate)
    source, _, left = hearing.demixed_from(src, plan.leakage_from, src.channels)
    source.residual_db = left
    return _listened(hearing.make_listener(plan, source, warnings), source, cal, warnings, latest=True)


#: the variants also heard through the live referee's hearing (``--variants``: rows "… (live)")
LIVE_VARIANTS = ("unchanged", "ben muted")


def judge_with(seen: list[dict], heard: list[dict], end: float, video_end: float) -> list[dict]:
    """Verdicts of the seeing record ``seen`` (header first) with ``heard`` added."""
    from referee.judge import judge
    from session.record import parse_lines, to_text

    extra = []
    if end < video_end - 0.5:
        extra.append({"t": round(end, 6), "type": "skipped", "what": "audio", "from": round(end, 6),
                      "to": video_end, "reason": "the audio ends before the video"})
    text = to_text(seen + heard + extra)
    lines = judge(parse_lines(text.splitlines())).lines
    return [v if isinstance(v, dict) else v.to_dict() for v in lines if (v.get("type") if isinstance(v, dict) else v.to_dict().get("type")) == "verdict"]


def replay(wav: Path | None, out: Path) -> tuple[list[dict], list[dict]]:
    """A full ``python -m referee replay`` of the demo with ``wav``: (verdicts, record events)."""
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    cmd = [sys.executable, "-m", "referee", "replay", str(DEMO / "session.mp4"), "--calibration",
           str(DEMO / "calibration.json"), "--out", str(out), "--json"] + (["--audio", str(wav)] if wav else [])
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    verdicts = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    rec = out / "session.jsonl"
    if not rec.is_file():
        raise SystemExit(f"replay failed: {p.stderr[-2000:]}")
    events = [json.loads(line) for line in rec.read_text().splitlines() if line.strip()]
    return [v for v in verdicts if v.get("type") == "verdict"], events


def verdict_key(v: dict) -> dict:
    return {k: (sorted(v.get(k) or []) if isinstance(v.get(k), list) else v.get(k))
            for k in ("card", "first", "tie", "correct", "wrong", "missed")}


def seats_changed(a: dict, b: dict) -> set[str]:
    out = set()
    for k in ("correct", "wrong", "missed", "tie"):
        out |= set(a.get(k) or []) ^ set(b.get(k) or [])
    if a.get("first") != b.get("first"):
        out |= {n for n in (a.get("first"), b.get("first")) if n}
    out |= set(a.get("unjudged") or {}) ^ set(b.get("unjudged") or {})
    return out


def first_passed(got: dict, expected: dict, touched: set[str]) -> bool:
    """The other seats changed on this card only in who is first (or tied): the seat the edit
    touched was first or tied there, is now not heard, and the judge ranks the seats still
    heard (``referee.judging``: the next correct player becomes first). Their own verdicts
    (correct, wrong, missed, not heard) are as before. Or the touched seat, not heard, could
    have been first (``first_unknown``, :mod:`referee.judging.ikatako`): the card's first is
    left to the table, the others' own verdicts as before."""
    unknown = set(got.get("first_unknown") or [])
    if not (expected.get("first") in touched or set(expected.get("tie") or []) & touched
            or (unknown and unknown <= touched)):
        return False
    for k in ("correct", "wrong", "missed"):
        if (set(got.get(k) or []) ^ set(expected.get(k) or [])) - touched:
            return False
    return not (set(got.get("unjudged") or {}) ^ set(expected.get("unjudged") or {})) - touched


def measure_variants(only: list[str] | None, full: bool, verbose: bool) -> dict:
    """Inside one code tree: every variant's verdicts compared with the unchanged demo's."""
    import tempfile

    expected = [json.loads(line) for line in (DEMO / "expected.jsonl").read_text().splitlines() if line.strip()]
    expected = [v for v in expected if v.get("type") == "verdict"]
    res = {}
    with tempfile.TemporaryDirectory(prefix="bench-demo-audio-") as tmp:
        tmp = Path(tmp)
        vs = variants(tmp, only)
        if not full:
            _, seen = replay(None, tmp / "seen")
            seen = [e for e in seen if e.get("type") in ("session", "card", "hand", "grab")]
            video_end = max(e["t"] for e in seen)
            video_end = max(video_end, 37.0) if seen[0].get("source", {}).get("frames") else video_end
            frames = seen[0].get("source", {})
            if frames.get("frames") and frames.get("fps"):
                video_end = frames["frames"] / frames["fps"]
        base_shouts = None
        runs = [(n, v, False) for n, v in vs.items()]
        if not full:
            runs += [(f"{n} (live)", vs[n], True) for n in LIVE_VARIANTS if n in vs]
        for name, (wav, seat, end), live in runs:
            c0 = time.process_time()
            if full:
                got, events = replay(wav, tmp / f"out-{wav.stem}")
            else:
                events, audio_end, _ = (hear_file_live if live else hear_file)(wav)
                got = judge_with(seen, events, audio_end, video_end)
            touched = set(seat.split("+")) if seat else None
            shouts = [e for e in events if e.get("type") == "shout"]
            if name in ("unchanged", "unchanged (live)"):  # the live rows against the live hearing
                base_shouts = shouts
            moved = onset_moves(base_shouts, shouts, touched or set(), end) if base_shouts is not None else None
            if moved is not None:
                moved["truth"] = truth_errors(shouts, touched or set(), end)
            same = sum(1 for g, e in zip(got, expected) if verdict_key(g) == verdict_key(e))
            others, passed, diffs = 0, 0, []
            for g, e in zip(got, expected):
                changed = seats_changed(g, e)
                if changed and (touched is None or not changed <= touched) and (end is None or g.get("t", 0) <= end):
                    others += 1
                    if touched and first_passed(g, e, touched):
                        passed += 1
                if changed:
                    diffs.append(f"{g.get('t')} {g.get('card')}: {sorted(changed)}")
            before_cut = [(g, e) for g, e in zip(got, expected) if end is not None and g.get("t", 0) <= end]
            notes = sorted({f"{n.get('type')}:{n.get('kind', n.get('state'))}:{n.get('player')}" for n in events
                            if n.get("type") in ("warning", "audio_status") and n.get("player")})
            res[name] = {"same": same, "n": len(expected), "verdicts": len(got), "others": others if touched else None,
                         "first_passed": passed if touched else None,
                         "before_cut": [sum(1 for g, e in before_cut if verdict_key(g) == verdict_key(e)), len(before_cut)]
                         if end is not None else None, "notes": notes, "diffs": diffs, "moved": moved,
                         "shouts": [[e.get("player"), e["t"], e.get("words")] for e in shouts],
                         "cpu_s": round(time.process_time() - c0, 1)}
            if verbose:
                print(f"  {name}: {same}/{len(expected)} same; {res[name]}", flush=True)
    return res


def onset_moves(base: list[dict], shouts: list[dict], touched: set[str], end: float | None) -> dict:
    """How far the onsets of the seats an edit does not touch moved from the unchanged demo's:
    each unchanged shout of such a seat (before a cut) matched with the same seat's nearest
    shout within 0.3 s; ``n`` matched, ``max`` and ``median`` |shift| (ms), ``over5`` moved
    more than 5 ms (issue 13's target: a neighbour's audio changed moves an onset <= 5 ms)."""
    shifts, far, better = [], [], 0
    for b in base:
        if b.get("player") in touched or (end is not None and b["t"] > end):
            continue
        near = [abs(e["t"] - b["t"]) for e in shouts if e.get("player") == b.get("player") and abs(e["t"] - b["t"]) <= 0.3]
        if near:
            shifts.append(min(near) * 1000)
            if min(near) * 1000 > 5:
                t = min((e["t"] for e in shouts if e.get("player") == b.get("player")), key=lambda x: abs(x - b["t"]))
                true = [x["t"] for x in TRUTH if x["player"] == b["player"] and abs(x["t"] - b["t"]) <= 0.3]
                nearer = bool(true) and abs(t - true[0]) < abs(b["t"] - true[0])
                better += nearer
                far.append(f"{b['player']} {b['t']:.3f} -> {t:.3f}" + (f" (truth {true[0]:.3f})" if true else ""))
    if not shifts:
        return {"n": 0}
    return {"n": len(shifts), "max": round(max(shifts), 1), "median": round(float(np.median(shifts)), 1),
            "over5": sum(1 for x in shifts if x > 5), "nearer": better, "far": far}


def truth_errors(shouts: list[dict], touched: set[str], end: float | None) -> dict:
    """The onsets of the seats the edit does not touch against the truth (same seat, nearest
    within 0.3 s): ``n`` matched, ``median`` |error| (ms), ``within5``, ``early`` / ``late``
    by more than 5 ms."""
    errs = []
    for t in TRUTH:
        if t["player"] in touched or (end is not None and t["t"] > end):
            continue
        near = [e["t"] for e in shouts if e.get("player") == t["player"] and abs(e["t"] - t["t"]) <= 0.3]
        if near:
            errs.append((min(near, key=lambda x: abs(x - t["t"])) - t["t"]) * 1000)
    if not errs:
        return {"n": 0}
    a = np.abs(errs)
    return {"n": len(errs), "median": round(float(np.median(a)), 1), "within5": int((a <= 5).sum()),
            "early": sum(1 for x in errs if x < -5), "late": sum(1 for x in errs if x > 5)}


#: the demo's true shouts (``fixtures/demo/truth.jsonl``): is a moved onset nearer the truth?
TRUTH = [e for e in (json.loads(x) for x in (DEMO / "truth.jsonl").read_text().splitlines() if x.strip())
         if e.get("type") == "shout"]


def cell(r: dict) -> str:
    out = f"{r['same']}/{r['n']} same"
    if r["others"] is not None:
        out += f", {r['others']} with another seat changed"
        if r.get("first_passed"):
            out += f" ({r['first_passed']} only in who is first: the seat was first or tied, or could have been)"
    if r["before_cut"] is not None:
        out += f" ({r['before_cut'][0]}/{r['before_cut'][1]} before the cut)"
    m = r.get("moved")
    tr = (m or {}).get("truth") or {}
    if tr.get("n"):
        out += (f"; onsets vs truth (other seats): median {tr['median']:g} ms, {tr['within5']}/{tr['n']} within 5 ms, "
                f"{tr['early']} early / {tr['late']} late by > 5 ms")
    if m and m.get("n") and m["max"] > 0:
        out += (f"; other seats' onsets moved > 5 ms: {m['over5']}/{m['n']} ({m.get('nearer', 0)} of them nearer the "
                f"truth), max {m['max']:g} ms")
    if r["notes"]:
        out += "; " + ", ".join(r["notes"][:6]) + ("…" if len(r["notes"]) > 6 else "")
    if r["verdicts"] != r["n"]:
        out += f" [{r['verdicts']} verdicts]"
    return out


def run_variants(a) -> int:
    import subprocess
    import tempfile

    load = lambda: " ".join(f"{v:.1f}" for v in os.getloadavg())  # noqa: E731
    args = (["--only", *a.only] if a.only else []) + (["--full"] if a.full else [])
    trees = {"after": ROOT}
    with tempfile.TemporaryDirectory(prefix="bench-demo-before-") as tmp:
        if not a.after_only:
            rev = a.before or subprocess.run(["git", "-C", str(ROOT), "merge-base", "HEAD", "main"],
                                             capture_output=True, text=True, check=True).stdout.strip()
            before = Path(tmp) / "before"
            before.mkdir()
            subprocess.run(f"git -C {ROOT} archive {rev} | tar -x -C {before}", shell=True, check=True)
            # the before tree is measured with this script (its own may not know --variants)
            trees = {"before": before, "after": ROOT}
            print(f"demo changed: before = {rev[:10]}, after = this tree; load average at start {load()}", flush=True)
        results = {}
        for name, tree in trees.items():
            env = dict(os.environ, PYTHONPATH=str(tree), OPENBLAS_NUM_THREADS="1", BENCH_DEMO_ROOT=str(tree))
            p = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--inside", *args], cwd=tree, env=env,
                               capture_output=True, text=True)
            line = next((ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")), None)
            if line is None:
                raise SystemExit(f"measuring {tree} failed:\n{p.stderr[-3000:]}")
            results[name] = json.loads(line[7:])
            print(f"  {name} measured; load average {load()}", flush=True)
    names = list(dict.fromkeys(n for r in results.values() for n in r))
    for r in results.values():
        for n in names:
            r.setdefault(n, {"same": "-", "n": "-", "verdicts": "-", "others": None, "before_cut": None, "notes": [],
                             "diffs": []})
    print("\n| the demo changed | " + " | ".join(results) + " |\n|---|" + "---|" * len(results))
    for n in names:
        print(f"| {n} | " + " | ".join(cell(r[n]) for r in results.values()) + " |")
    if len(results) == 2:  # every shout (seat, onset, words) of a variant the same in both trees?
        old, new = results["before"], results["after"]
        differ = [n for n in names if old[n].get("shouts") != new[n].get("shouts")]
        print(f"shouts (seat, onset, words) the same before and after: {len(names) - len(differ)}/{len(names)} "
              f"variants" + (f"; changed: {', '.join(differ)}" if differ else ""))
    if a.verbose:
        for tname, r in results.items():
            for n in names:
                if r[n]["diffs"]:
                    print(f"  {tname} {n}: " + "; ".join(r[n]["diffs"]))
                if (r[n].get("moved") or {}).get("far"):
                    print(f"  {tname} {n}: onsets moved > 5 ms: " + "; ".join(r[n]["moved"]["far"]))
    print(f"load average at the end {load()}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-demix", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--variants", action="store_true", help="the demo changed on purpose, before/after")
    ap.add_argument("--only", nargs="+", default=None, help="variants whose name contains one of these")
    ap.add_argument("--before", default=None, help="git revision of the 'before' code (default: merge base with main)")
    ap.add_argument("--after-only", action="store_true", help="measure this tree alone (quick look)")
    ap.add_argument("--full", action="store_true", help="replay every variant in full (seeing included)")
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.inside:
        print("RESULT " + json.dumps(measure_variants(a.only, a.full, a.verbose)))
        return 0
    if a.variants:
        return run_variants(a)
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
    lat = np.array([e["_latency"] for e in shouts if "_latency" in e]) * 1000
    if len(lat):
        print(f"  word known after the utterance's end: median {np.median(lat):.0f} ms, p90 "
              f"{np.percentile(lat, 90):.0f} ms (n={len(lat)}; detector wait + decoding, 4 channels)")
    import os as _os
    print(f"  load average {' '.join(f'{v:.1f}' for v in _os.getloadavg())}")
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

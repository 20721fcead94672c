"""Before/after in one run: the live demo (``referee demo --live --no-window``) played
alternately from two source trees (``--before``: e.g. ``git archive <commit> | tar -x -C
DIR``; after: this tree), so both see the same load; per run and per tree the latency
figures of ``OUT/live-figures.json`` (medians and p95 with their counts), the watermark
lags, the longest vision stage call, the verdicts against the demo's, the broken promises
(late events) and the load average.

    python benchmarks/bench_live_compare.py --before /tmp/base --pairs 2
    python benchmarks/bench_live_compare.py --pairs 1 --null-sound --voice   # "sound starts" too
    python benchmarks/bench_live_compare.py --game takoyaki --before /tmp/base --pairs 2
    python benchmarks/bench_live_compare.py --game seasaltpaper --pairs 2   # --before: a tree with it
    python benchmarks/bench_live_compare.py --game toratanu --pairs 1       # as seasaltpaper, no microphones

``--game takoyaki``: the TAKOYAKI demo (``referee demo --game takoyaki --live``, paced, no
microphones): its verdicts against ``fixtures/takoyaki/expected.jsonl`` and how late each
move is announced after its card lands — the record's ``said_t`` (the session clock when the
verdict was written, i.e. announced) minus the truth's time of that card (the capture clock
of the paced video): median and max (issue 34's target: within 1 s).

``--game seasaltpaper``: the Sea Salt & Paper demo (``referee demo --game seasaltpaper --live``,
paced, the calls heard from its seats' recording): its round verdicts against
``fixtures/seasaltpaper/expected.jsonl`` (the replay's; every field but the time) and how long
after the round's last hand was laid each round is announced (``said_t`` minus the demo's
verdict time; the spread must first lie still ~1.5-2 s).

``--busy N``: N busy processes (``python -c 'while 1: pass'``, not niced) run beside every
run, started before the first and stopped after the last (issue 35: "beside one busy
process", no card seen late and every verdict).

The first correct player's latency after the deciding word ends, step by step
(``latency.after_word_end_ms``, :mod:`referee.live.word_split`: the end decided, the words
read, the hearing's message, the live loop, the merge, the announcement; median/p90), is
printed under "after the deciding word's end", with what read the words and which stream's
promise held the merge.

``--null-sound``: an ALSA configuration whose default PCM is ``null`` (through
``ALSA_CONFIG_PATH``, for the runs only), so PortAudio opens an output on a machine without
a sound card and the voice's hand-off to the output stream is timed (``sound_ms``). A null
PCM is not paced by a clock: the figure is when the first sample was handed to the stream
plus the latency the stream reports, not a microphone's measurement of the sound.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_replay import verdicts_match  # noqa: E402

DEMO = ROOT / "fixtures" / "demo"
#: each demo's folder, by ``referee demo --game``
DEMOS = {"ikatako": DEMO, "takoyaki": ROOT / "fixtures" / "takoyaki", "seasaltpaper": ROOT / "fixtures" / "seasaltpaper",
         "toratanu": ROOT / "fixtures" / "toratanu"}
#: a Sea Salt & Paper round's fields compared with the demo's (its time is the last hand's
#: read, which depends on the frames the live loop took)
ROUND_KEYS = ("round", "call", "caller", "legal", "why", "scores", "caller_won", "totals", "unclear")
#: a TORATANU night's fields compared with the demo's (its time, as a round's, is the last hand's read)
NIGHT_KEYS = ("game", "special", "scores", "declared", "missed", "best", "totals", "unclear")
#: the TAKOYAKI verdict's fields compared with the demo's (its ``why`` wording may change)
MOVE_KEYS = ("player", "card", "zone", "action", "legal", "next", "face_up")
NULL_ASOUNDRC = "pcm.!default { type null }\nctl.!default { type hw card 0 }\n"

#: (label, path into live-figures.json["latency"] or the figures)
FIGURES = (
    ("window-close verdict after the window (wrong/missed announced)", ("latency", "wrong_missed_announced_after_window_ms")),
    ("final verdict after the window", ("latency", "verdict_after_window_ms")),
    ("first correct announced after reaction + tie", ("latency", "first_announced_after_reaction_and_tie_ms")),
    ("watermark lag: hearing", ("latency", "watermark_lag_ms", "hearing")),
    ("watermark lag: vision", ("latency", "watermark_lag_ms", "vision")),
    ("  vision: seats", ("latency", "watermark_lag_ms", "vision_seats")),
    ("  vision: cards", ("latency", "watermark_lag_ms", "vision_cards")),
    ("capture -> known: hand", ("latency", "event_known_ms", "hand")),
    ("capture -> known: shout", ("latency", "event_known_ms", "shout")),
    ("capture -> known: card", ("latency", "event_known_ms", "card")),
    ("shout: utterance (onset -> end)", ("latency", "parts_ms", "shout_utterance")),
    ("shout: end -> found", ("latency", "parts_ms", "shout_end_to_found")),
    ("vision stage call", ("latency", "stage_ms")),
    ("sound: first, handed after reaction + tie", ("sound_ms", "first", "handed_after_target")),
    ("sound: first, + output latency", ("sound_ms", "first", "sound_after_target")),
    ("sound: window, handed after the window", ("sound_ms", "window", "handed_after_target")),
    ("sound: window, + output latency", ("sound_ms", "window", "sound_after_target")),
    ("sound: announced -> handed (all)", ("sound_ms", "first", "announced_to_handed")),
    ("sound: stream output latency", ("sound_ms", "stream_latency_ms")),
    ("sound: announced -> handed, voice idle", ("sound_ms", "idle_announced_to_handed")),
    ("sound: utterance length", ("sound_ms", "utterance_ms")),
    ("first correct: word end after reaction + tie", ("latency", "first_split_ms", "shout", "word_end")),
    ("first correct: word known (found)", ("latency", "first_split_ms", "shout", "found")),
    ("first correct: released by the merge", ("latency", "first_split_ms", "shout", "released")),
    ("first correct: announced", ("latency", "first_split_ms", "shout", "announced")),
    ("first correct (hand-timed): found", ("latency", "first_split_ms", "hand", "found")),
    ("first correct (hand-timed): announced", ("latency", "first_split_ms", "hand", "announced")),
    ("watermark lag: sources", ("latency", "watermark_lag_ms", "sources")),
    ("after the deciding word's end: audio read to at the end's decision", ("latency", "after_word_end_ms", "heard_to")),
    ("  end decided (the detector)", ("latency", "after_word_end_ms", "decided")),
    ("  to the recogniser (no earlier seat pending)", ("latency", "after_word_end_ms", "ready")),
    ("  words read", ("latency", "after_word_end_ms", "read")),
    ("  hearing's message sent", ("latency", "after_word_end_ms", "sent")),
    ("  taken by the live loop", ("latency", "after_word_end_ms", "taken")),
    ("  released by the merge", ("latency", "after_word_end_ms", "released")),
    ("  announced (first correct)", ("latency", "after_word_end_ms", "announced")),
    ("  CPU: enrolled voices (ms)", ("latency", "after_word_end_ms", "prepare_cpu_ms")),
    ("  CPU: speech engine (ms)", ("latency", "after_word_end_ms", "decode_cpu_ms")),
)


def _get(d, path):
    for k in path:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def run_once(tree: Path, out: Path, voice: bool, env_extra: dict, game: str = "ikatako") -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), **env_extra)
    cmd = [sys.executable, "-m", "referee", "demo", "--game", game, "--live", "--no-window", "--out", str(out)]
    if not voice:
        cmd.append("--no-voice")
    load0 = os.getloadavg()[0]
    cpu0 = _children_cpu()
    t0 = time.monotonic()
    res = subprocess.run(cmd, cwd=str(tree), env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    cpu = _children_cpu() - cpu0  # the run, its pose workers and hearing process (joined children)
    fig_path = out / "live-figures.json"
    if res.returncode != 0 or not fig_path.is_file():
        return {"error": (res.stderr or res.stdout).strip().splitlines()[-1:] or ["failed"], "wall": wall}
    figs = json.loads(fig_path.read_text())
    from referee.judge import judge
    from session.record import read_record

    expected = [json.loads(x) for x in (DEMOS[game] / "expected.jsonl").read_text().splitlines() if x.strip()]
    lines = list(judge(read_record(out / "session.jsonl"), {}).lines)
    if game == "takoyaki":
        figs["_same"] = moves_match(lines, expected)
        figs["_said_late"] = said_late(out / "session.jsonl", DEMOS[game] / "truth.jsonl")
    elif game in ("seasaltpaper", "toratanu"):
        keys, number = (ROUND_KEYS, "round") if game == "seasaltpaper" else (NIGHT_KEYS, "game")
        figs["_same"] = rounds_match(lines, expected, keys)
        figs["_said_late"] = round_said_late(out / "session.jsonl", expected, number)
    else:
        figs["_same"] = sum(verdicts_match(lines, expected))
    figs["_want"] = sum(1 for v in expected if v.get("type") == "verdict")
    figs["_load"] = (load0, os.getloadavg()[0])
    figs["_wall"] = wall
    figs["_cpu"] = cpu
    figs["_seen_late"] = seen_late(lines, res.stdout + res.stderr)
    figs["_reveal"] = reveal_stall(out)
    figs["_voice_warning"] = next((ln for ln in res.stderr.splitlines() if "voice" in ln.lower()), None)
    return figs


def moves_match(judged: list[dict], expected: list[dict]) -> int:
    """TAKOYAKI: how many of the demo's verdicts the run gave, in order (:data:`MOVE_KEYS`)."""
    got = [tuple(v.get(k) for k in MOVE_KEYS) for v in judged if v.get("type") == "verdict"]
    want = [tuple(v.get(k) for k in MOVE_KEYS) for v in expected if v.get("type") == "verdict"]
    return sum(a == b for a, b in zip(got, want))


def rounds_match(judged: list[dict], expected: list[dict], keys: tuple[str, ...] = ROUND_KEYS) -> int:
    """Sea Salt & Paper (TORATANU: ``keys`` :data:`NIGHT_KEYS`): how many of the demo's round
    verdicts the run gave, in order (:data:`ROUND_KEYS`)."""
    got = [tuple(str(v.get(k)) for k in keys) for v in judged if v.get("type") == "verdict"]
    want = [tuple(str(v.get(k)) for k in keys) for v in expected if v.get("type") == "verdict"]
    return sum(a == b for a, b in zip(got, want))


def round_said_late(record: Path, expected: list[dict], number: str = "round") -> dict | None:
    """Sea Salt & Paper (TORATANU: ``number`` "game", a night): seconds from the round's last
    hand laid (the demo's verdict time: the truth's time of that hand) to the round's
    announcement (the live record's ``said_t``); the spread must lie still for
    ``SpreadWatchParams.settle_reads`` reads first (~1.5-2 s)."""
    laid = {v[number]: float(v["t"]) for v in expected if v.get("type") == "verdict"}
    late = sorted(float(v["said_t"]) - laid[v[number]] for v in map(json.loads, record.read_text().splitlines())
                  if v.get("type") == "verdict" and v.get("said_t") is not None and v.get(number) in laid)
    if not late:
        return None
    return {"median": round(late[len(late) // 2], 3), "max": round(late[-1], 3), "n": len(late),
            "within_1s": sum(1 for d in late if d <= 1.0)}


def said_late(record: Path, truth: Path) -> dict | None:
    """TAKOYAKI: seconds from each card's landing (the truth's time, the paced video's capture
    clock) to its verdict's announcement (the live record's ``said_t``), the verdicts matched
    to the truth's cards by card and zone in order: median, max and the count."""
    lands: dict[tuple, list[float]] = {}
    for x in truth.read_text().splitlines():
        e = json.loads(x) if x.strip() else {}
        if e.get("type") == "card":
            lands.setdefault((e["card"], e["zone"]), []).append(float(e["t"]))
    late = []
    for x in record.read_text().splitlines():
        v = json.loads(x) if x.strip() else {}
        key = (v.get("card"), v.get("zone"))
        if v.get("type") == "verdict" and v.get("said_t") is not None and lands.get(key):
            late.append(float(v["said_t"]) - lands[key].pop(0))
    if not late:
        return None
    late.sort()
    return {"median": round(late[len(late) // 2], 3), "max": round(late[-1], 3), "n": len(late),
            "within_1s": sum(1 for d in late if d <= 1.0)}


def _children_cpu() -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


#: what the live referee says (warning events, terminal) when a card zone saw a card late
SEEN_LATE = "card seen late"


def seen_late(judged: list, terminal: str) -> int:
    """How many judged lines (verdicts, notes) say a card was seen late, else how many of the
    run's terminal lines do."""
    n = sum(1 for x in judged if SEEN_LATE in json.dumps(x, ensure_ascii=False))
    return n or sum(1 for ln in terminal.splitlines() if SEEN_LATE in ln)


def reveal_stall(out: Path, span_s: float = 1.5) -> dict | None:
    """From what the run wrote: the frames the live referee analysed (``video.mp4``'s
    session-time PTS) in the ``span_s`` after each card of the record — the longest gap
    between two of them (the loop's stall after a reveal) and how many there were."""
    try:
        import av

        with av.open(str(out / "video.mp4")) as f:
            st = f.streams.video[0]
            ts = sorted(float(p.pts * st.time_base) for p in f.demux(st) if p.pts is not None)
    except Exception:
        return None
    cards = [json.loads(x)["t"] for x in (out / "session.jsonl").read_text().splitlines()
             if x.strip() and json.loads(x).get("type") == "card"]
    import bisect

    gaps, taken = [], []
    for c in cards:
        a, b = bisect.bisect_left(ts, c), bisect.bisect_right(ts, c + span_s)
        inside = [c] + ts[a:b] + [c + span_s]
        gaps.append(max(y - x for x, y in zip(inside, inside[1:])) * 1000)
        taken.append(b - a)
    if not gaps:
        return None
    g = sorted(gaps)
    return {"n": len(g), "gap_median": round(g[len(g) // 2]), "gap_max": round(g[-1]),
            "frames_median": sorted(taken)[len(taken) // 2], "frames_min": min(taken)}


def fmt(s) -> str:
    if not s:
        return "-"
    if "p95" not in s:  # (the word-end split: median/p90)
        return f"{s['median']}/p90 {s['p90']} (n {s['n']})"
    return f"{s['median']}/{s['p95']} (n {s['n']})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, default=None, help="the source tree to compare with (none: this tree only)")
    ap.add_argument("--after", type=Path, default=ROOT, help="the tree measured as after (default: this one; "
                    "give a snapshot when editing meanwhile)")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=PATH", help="more trees to alternate with")
    ap.add_argument("--pairs", type=int, default=2, help="runs per tree, alternating")
    ap.add_argument("--voice", action="store_true", help="speak the verdicts (needs an output; see --null-sound)")
    ap.add_argument("--null-sound", action="store_true", help="an ALSA null PCM as the default output, for these runs")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--game", choices=sorted(DEMOS), default="ikatako", help="which demo (referee demo --game)")
    ap.add_argument("--busy", type=int, default=0, metavar="N", help="N busy processes beside the runs")
    args = ap.parse_args()
    busy = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(max(0, args.busy))]
    try:
        return _compare(args)
    finally:
        for p in busy:  # (only the processes started here, by their id)
            p.kill()
            p.wait()


def _compare(args) -> int:
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-live-compare-"))
    env_extra = {}
    if args.null_sound:
        rc = out / "asoundrc-null"
        out.mkdir(parents=True, exist_ok=True)
        rc.write_text(NULL_ASOUNDRC)
        env_extra["ALSA_CONFIG_PATH"] = str(rc)
    trees = [("after", args.after.resolve())] + ([("before", args.before.resolve())] if args.before else [])
    trees += [(a.split("=", 1)[0], Path(a.split("=", 1)[1]).resolve()) for a in args.also]
    runs: dict[str, list[dict]] = {name: [] for name, _ in trees}
    print(f"live demo, {args.pairs} run(s) per tree, alternating {' / '.join(n for n, _ in trees)}"
          f"{f', {args.busy} busy process(es) beside' if args.busy else ''}; load {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    for k in range(args.pairs):
        order = trees if k % 2 == 0 else list(reversed(trees))
        for name, tree in order:
            figs = run_once(tree, out / f"{name}-{k + 1}", args.voice, env_extra, args.game)
            runs[name].append(figs)
            if "error" in figs:
                print(f"  {name} run {k + 1}: FAILED {figs['error']}", flush=True)
                continue
            lat = figs["latency"]
            print(f"  {name} run {k + 1}: load {figs['_load'][0]:.2f}->{figs['_load'][1]:.2f}, verdicts "
                  f"{figs['_same']}/{figs['_want']} as the demo's, late {figs.get('late')}, \"card seen late\" "
                  f"{figs['_seen_late']}, CPU {figs['_cpu']:.1f} s in {figs['_wall']:.1f} s = "
                  f"{figs['_cpu'] / figs['_wall']:.2f} cores, frames "
                  f"{figs.get('captured')}/{figs.get('processed')}/{figs.get('skipped')}/{figs.get('dropped')} "
                  f"(captured/analysed/skipped/dropped), card zones' frames not analysed {figs.get('card_frames_unanalysed', figs.get('card_frames_dropped', '-'))}; window-close {fmt(lat.get('wrong_missed_announced_after_window_ms'))}, "
                  f"first {fmt(lat.get('first_announced_after_reaction_and_tie_ms'))}, hearing lag "
                  f"{fmt(_get(lat, ('watermark_lag_ms', 'hearing')))}, vision lag {fmt(_get(lat, ('watermark_lag_ms', 'vision')))}"
                  + (f"; window announcements superseded by a newer first {figs['sound_ms'].get('superseded', '-')}"
                     if figs.get("sound_ms") else "")
                  + (f"; {figs['_voice_warning']}" if figs.get("_voice_warning") else "")
                  + (f"; announced after the {'last hand was laid' if args.game in ('seasaltpaper', 'toratanu') else 'card landed'}: median {figs['_said_late']['median']:.3f} s, max "
                     f"{figs['_said_late']['max']:.3f} s, {figs['_said_late']['within_1s']} of "
                     f"{figs['_said_late']['n']} within 1 s" if figs.get("_said_late") else ""), flush=True)
    print("\nper tree, each run's median/p95 (n) — medians in ms:")
    for label, path in FIGURES:
        cells = []
        for name, _ in trees:
            vals = [fmt(_get(f, path)) for f in runs[name] if "error" not in f]
            cells.append(f"{name}: {', '.join(vals) or '-'}")
        if any(c.split(": ", 1)[1] not in ("-", "-, -", "-, -, -") for c in cells):
            print(f"  {label:<58} " + " | ".join(cells))
    print("  after each reveal (1.5 s; from video.mp4's PTS): longest gap between analysed frames, frames analysed")
    for name, _ in trees:
        for k, f in enumerate(runs[name]):
            r = f.get("_reveal") if "error" not in f else None
            st = _get(f, ("latency", "stage_ms"))
            if r:
                print(f"    {name} run {k + 1}: gap median {r['gap_median']} ms, max {r['gap_max']} ms (n {r['n']} cards); "
                      f"frames median {r['frames_median']}, min {r['frames_min']} (of ~45 at 30 fps); longest stage call "
                      f"{st['max'] if st else '-'} ms, p95 {st['p95'] if st else '-'}")
    for name, _ in trees:
        for k, f in enumerate(runs[name]):
            w = _get(f, ("latency", "after_word_end_ms")) if "error" not in f else None
            if w:
                print(f"    {name} run {k + 1}: words read by {w.get('by')}; merge held by {w.get('held_by')}")
    for name, _ in trees:
        ok = [f for f in runs[name] if "error" not in f]
        if ok:
            import statistics

            print(f"  {name}: cores used (CPU time of the run and its processes / wall time) median "
                  f"{statistics.median(f['_cpu'] / f['_wall'] for f in ok):.2f}; \"card seen late\" "
                  f"{sum(f['_seen_late'] for f in ok)} in {len(ok)} run(s)")
    print(f"load at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}; outputs in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

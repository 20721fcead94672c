"""Hearing a real table, before (main's code) and after (this tree), in one run.

    python benchmarks/bench_hearing.py [--before REV] [--skip-variants] [--skip-speech] [--skip-onset] [--limit N] [--show-false] [--show-missed]

Prints, for each code tree, with counts and the load average:

1. *real speech* (``../shared/data/speech``, read in place): English digits said by real
   speakers, exact (the one call heard is the digit), in quiet and with white noise 10 dB
   below the speech; false alarms (any call heard) on real speech that is no game word —
   Japanese words and sentences, English "zero" ("one" is the co-op total 1, so it is not
   counted). Per language and condition, for both halves of a fixed split by a hash of
   the file name (half A tuned the parameters of ``audio.whisper``; half B checks them). The table plays IKATAKO co-op: every name and every total 1..154 is a call.
   Each clip goes through the hearing the pipeline uses (``audio.hearing.make_listener``:
   onset detector, engine, gates) as one seat's channel.
2. *real-time factor* of the hearing of the demo's four channels (cancellation included) —
   the first run of the process (a replay pays it once), the same again warm, and warm as a
   live referee hears (its words not held for the next ones: the steady state of hours of play) —,
   without and with the seats' enrolled voices (asked first, the engine then runs only when
   they abstain), with the engine's CPU time per decoded utterance; the *word latency* after
   each utterance's end (detector wait + processing), and the decoding part of it.
3. *onsets of overlapping speakers*: on the demo, each shout that has a neighbour within
   0.3 s is moved by 40 ms (the demo's audio made again by its generator with that shout
   later, on its own channel and in its leaks) and a 4-s excerpt around it heard as the
   replay hears it (leakage from the calibration recording); how far the neighbours'
   onsets move, and which moved more than 5 ms.
4. *the demo changed* on purpose is measured by ``benchmarks/bench_demo_audio.py --variants``
   (this benchmark only points there).

"Before" is the tree of ``--before`` (default: the merge base with ``main``), extracted with
``git archive`` into a temp folder. Derived audio lives only in that temp folder.
"""

from __future__ import annotations

import rules
import argparse
import copy
import dataclasses
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# ../shared/data/speech beside the repository (a worktree one level deeper finds it further up)
SPEECH = next((p / "shared" / "data" / "speech" for p in ROOT.parents if (p / "shared" / "data" / "speech").is_dir()),
              ROOT.parent / "shared" / "data" / "speech")
DEMO = ROOT / "fixtures" / "demo"
RATE = 16000


# ----------------------------------------------------------------- inside one code tree
class ArraySource:
    """Blocks of an array on the session clock (what a FileSource yields)."""

    def __init__(self, x: np.ndarray, rate: int, block: int = 320):
        self.x, self.rate, self.block = x.astype(np.float32), rate, block
        self.channels = x.shape[1]

    def __iter__(self):
        from audio.capture import Block

        for k in range(0, len(self.x), self.block):
            yield Block(k, self.x[k : k + self.block], self.rate, 0.0)


def speech_level(x: np.ndarray) -> float:
    """RMS over the 10 ms frames within 30 dB of the loudest (the speech, not the pauses)."""
    n = len(x) // 160
    e = (x[: n * 160].reshape(n, 160) ** 2).mean(axis=1)
    return float(np.sqrt(e[e >= e.max() * 1e-3].mean()))


def with_noise(x: np.ndarray, snr_db: float | None, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    floor = rng.standard_normal(len(x)) * 10 ** (-65 / 20)  # a microphone's own hiss
    if snr_db is None:
        return x + floor
    return x + floor + rng.standard_normal(len(x)) * speech_level(x) * 10 ** (-snr_db / 20)


def timed(listener, decode_s: list[float]):
    """Count the engine's CPU time per decoded utterance (the listener's recognizer wrapped;
    an utterance decoded in a batch counts the batch's time shared equally)."""
    rec = listener.recognizer
    inner = rec.decode
    inside = []  # (Whisper's decode is its decode_many of one: counted once, not twice)

    def decode(samples, rate):
        c0 = time.process_time()
        inside.append(1)
        try:
            return inner(samples, rate)
        finally:
            inside.pop()
            decode_s.append(time.process_time() - c0)

    rec.decode = decode
    many = getattr(rec, "decode_many", None)
    if many is not None:  # several utterances decoded at once (an offline replay holds them): each its share
        def decode_many(items):
            if inside:
                return many(items)
            c0 = time.process_time()
            try:
                return many(items)
            finally:
                share = (time.process_time() - c0) / max(1, len(items))
                decode_s.extend([share] * len(items))

        rec.decode_many = decode_many
    return inner


def hear_clip(listener_for, x: np.ndarray, decode_s: list[float], seen: list | None = None
              ) -> tuple[list[dict], list[float], list[float]]:
    """Events of one clip, the word latency of each shout (wait for the utterance's end +
    processing) and the engine's decoding time of each shout. ``seen``: a list, filled with
    ``(segment, engine window, heard)`` of every utterance whose words were read (--show-missed)."""
    listener = listener_for()
    inner = timed(listener, decode_s)
    if seen is not None:
        listener.on_read = lambda segment, window, heard: seen.append((segment, window, heard))
        seen.append(listener)
    events, lat, dec = [], [], []
    src = ArraySource(x[:, None], RATE)
    try:
        for block in src:
            t0 = time.perf_counter()
            n0 = len(decode_s)
            out = listener.update(block)
            dt = time.perf_counter() - t0
            now = (block.index + len(block.data)) / RATE
            for e in out:
                if e.get("type") == "shout" and e.get("t_end") is not None:
                    lat.append(now - e["t_end"] + dt)
                    dec.append(sum(decode_s[n0:]))
            events += out
        events += listener.close_window()
    finally:
        listener.recognizer.decode = inner
        listener.recognizer.__dict__.pop("decode_many", None)
    return events, lat, dec


def half_of(path: str) -> str:
    """The tuning split: a fixed hash of the file name (not of its speaker or word), A or B."""
    import zlib

    return "AB"[zlib.crc32(path.encode()) % 2]


def voiced(x: np.ndarray, below_db: float = 40.0) -> tuple[float, float]:
    """The clip's voiced stretch (s): its first and last 10 ms frame within ``below_db`` of the loudest."""
    n = len(x) // 160
    e = 10 * np.log10((x[: n * 160].reshape(n, 160) ** 2).mean(axis=1) + 1e-20)
    on = np.flatnonzero(e >= e.max() - below_db)
    return on[0] * 0.01, (on[-1] + 1) * 0.01


def diagnose(listener, seen: list, call: tuple[str, ...], truth: tuple[float, float], events: list[dict]) -> dict:
    """Why a digit clip was missed (--show-missed): what was heard, which gate refused, the
    onset detector's segment against the clip's voiced stretch, and the right call's scores
    through the first look of each window the engine read."""
    from audio.whisper_calls import score_all_many

    rec = listener.recognizer
    p = getattr(rec, "p", None)
    shouts = [e for e in events if e.get("type") == "shout"]
    out = {"heard": [" ".join(e["words"]) if e.get("words") else f"talk '{e.get('text', '')}'" for e in shouts],
           "dropped": dict(listener.dropped), "utterances": []}
    for seg, window, heard in seen:
        ex = dict(getattr(heard, "extra", {}))
        u = {"seg": [round(seg.t, 3), round(seg.t_end, 3)], "lead_ms": round((truth[0] - seg.t) * 1000),
             "tail_ms": round((seg.t_end - truth[1]) * 1000), "window_s": round(len(window) / RATE, 3),
             "best": " ".join(heard.words) or " ".join(ex.get("below_conf", [])) or "-",
             "view": ex.get("view", 1)}
        for key in ("call_logprob", "unprompted_logprob", "lift", "goes_on", "no_speech", "rejected"):
            if key in ex:
                u[key] = ex[key]
        if p is not None and hasattr(rec, "room_margin_db"):
            u["margin_db"] = round(rec.room_margin_db(window, RATE), 1)
        if p is not None and not heard.words:  # which gate refused the best call
            if "call_logprob" not in ex:
                u["gate"] = "no call" if ex.get("speech", True) else "no speech (no call)"
            elif ex["call_logprob"] < p.min_prompted:
                u["gate"] = "prompted floor"
            elif ex.get("unprompted_logprob", 0) < p.min_unprompted:
                u["gate"] = "unprompted floor"
            elif p.min_lift is not None and ex.get("lift", 99) < p.min_lift:
                u["gate"] = "lift"
            elif p.max_goes_on is not None and ex.get("goes_on", -99) > p.max_goes_on:
                u["gate"] = "max_goes_on"
            else:
                u["gate"] = "a later look's"
            if ex.get("speech") is False:
                u["gate"] += ", then no speech"
        if p is not None:  # the right call through the first look
            enc = rec.encode(window, RATE)
            one = rec.call_trie(call)
            prompted = score_all_many(rec.model, [(enc, list(one.leaves))], rec.prompt_ids, one.end_ids)[0]
            goes: list = []
            unprompted = rec.unprompted_many([(enc, call)], goes)[0]
            u["right"] = {"prompted": round(max(prompted), 3) if prompted else None, "unprompted": round(unprompted, 3),
                          "lift": round(unprompted - rec.prior(call), 3),
                          "goes_on": round(goes[0], 3) if goes and goes[0] is not None else None}
        out["utterances"].append(u)
    return out


def speech_rows() -> list[dict]:
    """The rows of ``../shared/data/speech/labels.csv``."""
    return list(csv.DictReader(open(SPEECH / "labels.csv", encoding="utf-8")))


def seat_listeners():
    """``listener_for(lang)``: a factory of fresh listeners for one seat's channel, hearing as
    the pipeline does (``audio.hearing.make_listener``; IKATAKO co-op: every name and total
    1..154 is a call); the engine is loaded once per language."""
    from audio import hearing

    plans = {}

    def listener_for(lang):
        def make():
            if lang not in plans:
                plans[lang] = hearing.HearingPlan(game="ikatako", mode="coop", channels={"p": 0}, names=("p",),
                                                  lang=lang, demix=False, vocab=rules.vocabulary("ikatako", "coop"))
            return hearing.make_listener(plans[lang], ArraySource(np.zeros((1, 1)), RATE), [])
        return make

    return listener_for


def seat_channel(row: dict, snr_db: float | None, seed: int) -> tuple[np.ndarray, tuple[float, float]]:
    """One clip as a seat's channel: mono at :data:`RATE`, 0.8 s of silence either side, a
    microphone's hiss and (``snr_db``) white noise that far below the speech; and the clip's
    voiced stretch (s) on that channel."""
    from audio.capture import read_all

    x, rate = read_all(SPEECH / row["file"])
    x = x.mean(axis=1).astype(np.float64)
    if rate != RATE:
        from scipy import signal

        x = signal.resample_poly(x, RATE, rate)
    pad = np.zeros(int(0.8 * RATE))
    truth = tuple(t + len(pad) / RATE for t in voiced(x))
    return with_noise(np.concatenate([pad, x, pad]), snr_db, seed=seed), truth


def measure_speech(limit: int | None, show_missed: bool = False, only: tuple[str, ...] = ()) -> dict:
    rows = speech_rows()
    listener_for = seat_listeners()
    out = {"cells": {}, "latency": [], "decode_per_word": [], "decode_s": []}
    kinds = {"keyword": [r for r in rows if r["kind"] == "keyword"],
             "false": [r for r in rows if r["kind"] in ("other", "sentence") and r["text"] != "one"]}
    for kind, sel in kinds.items():
        if only and kind not in only:
            continue
        if limit:
            sel = sel[:: max(1, len(sel) // limit)]
        for cond, snr in (("quiet", None), ("white10", 10.0)):
            if only and cond not in only:
                continue
            for i, r in enumerate(sel):
                x, truth = seat_channel(r, snr, seed=i)
                seen = [] if show_missed and kind == "keyword" else None
                events, lat, dec = hear_clip(listener_for(r["lang"]), x, out["decode_s"], seen)
                calls = {tuple(e["words"]) for e in events if e.get("type") == "shout" and e.get("words")}
                ok = calls == {(r["token"],)} if kind == "keyword" else bool(calls)
                cell = out["cells"].setdefault(f"{kind}|{r['lang']}|{cond}|{half_of(r['file'])}", [0, 0])
                cell[0] += ok
                cell[1] += 1
                if kind == "false" and ok:  # which talk was heard as a call (--show-false)
                    out.setdefault("false_heard", []).append([r["file"], r["text"], half_of(r["file"]), cond,
                                                              sorted(" ".join(c) for c in calls)])
                if seen is not None and not ok:  # why a digit was missed (--show-missed)
                    out.setdefault("missed", []).append(dict(diagnose(seen[0], seen[1:], (r["token"],), truth, events),
                                                             file=r["file"], half=half_of(r["file"]), cond=cond,
                                                             token=r["token"]))
                if cond == "quiet":
                    out["latency"] += lat
                    out["decode_per_word"] += dec
    return out


def measure_rtf(enrolled: bool, live: bool = False, share_s: float | None = None) -> dict:
    """The demo's hearing as ``referee replay``/``demo`` hears it (``live``: as a live referee
    would, its words not held for the next ones — ``ListenParams`` of a live input, no replay
    hold —, the steady state of a referee that hears for hours; ``share_s``: its
    ``ListenParams.share_s`` where the tree has it): the plan the replay makes of
    the demo's calibration (``referee.replay.hearing_plan``), so the seat-to-seat leakage is
    the calibration recording's (``leakage_from`` = ``seats.wav``) — taken from the
    calibration file's stored measurement (``audio.leakage``) where the tree has one, as the
    replay does — and the session-side checks (swap, unfit, dead seats) run on the session.
    (Until this tree it measured the session's own leakage, which the replay never uses.)"""
    import inspect

    from audio import hearing
    from session.calibration import load

    cal = load(DEMO / "calibration.json")
    try:
        from referee.replay import ReplaySettings, hearing_plan

        plan = hearing_plan(cal, "ikatako", "versus", ReplaySettings(enroll=DEMO / "enroll" if enrolled else None,
                                                                     no_enroll=not enrolled), DEMO / "calibration.json")
    except ImportError:  # (a tree before the replay's plan)
        plan = hearing.HearingPlan(game="ikatako", mode="versus", channels={s.name: s.channel for s in cal.seats},
                                   names=tuple(s.name for s in cal.seats), crosstalk_db=-10.0,
                                   enroll=DEMO / "enroll" if enrolled else None, leakage_from=DEMO / "seats.wav", vocab=rules.vocabulary("ikatako", "versus"))

    # the model loaded before the clock starts (once per process, ~4 s)
    hearing.make_recognizer(plan.model, plan.lang, plan.vocab)
    extra = {}
    if "measured" in inspect.signature(hearing.open_source).parameters:
        extra["measured"] = getattr(plan, "leakage_measured", None)
    c0 = time.process_time()
    warnings: list[str] = []
    source, _ = hearing.open_source(DEMO / "session.mp4", DEMO / "seats.wav", warnings, demix=True,
                                    leakage_from=plan.leakage_from, rate=cal.audio.rate,
                                    channels=hearing.seat_channels(plan), **extra)
    if live:  # the listener a live input gets (a file has no capture queue: never "behind")
        source.offline = False
    listener = hearing.make_listener(plan, source, warnings)
    if live and share_s is not None and hasattr(listener.p, "share_s"):
        listener.p = dataclasses.replace(listener.p, share_s=share_s)
    decode_s: list[float] = []
    timed(listener, decode_s)
    n = 0
    for b in source:
        listener.update(b)
        n += len(b.data)
    listener.close_window()
    cpu = time.process_time() - c0
    return {"cpu_s": round(cpu, 2), "audio_s": round(n / source.rate, 2), "rtf": round(cpu / (n / source.rate), 3),
            "decoded": len(decode_s), "decode_cpu_s": round(sum(decode_s), 2)}


def measure_onset_shift() -> dict:
    """See the module docstring (3.). The demo's audio is made again by its own generator
    (``fixtures/demo/make_demo.py``: the same voices, leak paths and room noise; equal to
    ``seats.wav`` within its 16-bit rounding) with one shout 40 ms later, on its own channel
    *and* in its leaks into the others, as at a real table. (Measured before by moving the
    shout on its cancelled channel and mixing it back: the leftover of the unmoved voice the
    cancellation leaves on the neighbours' channels stayed where it was, 40 ms before its own
    voice — no table sounds like that — and the neighbours' onsets were walked onto it.)
    Each excerpt (4 s around the moved shout) is heard as the replay hears the demo: its
    leakage measured on the calibration recording (``seats.wav``)."""
    from audio import hearing
    from fixtures.demo import make_demo
    from session.calibration import load

    demo = make_demo.build()
    rate = make_demo.RATE
    cal = load(DEMO / "calibration.json")
    names = [c.name for c in cal.seats]
    plan = hearing.HearingPlan(game="ikatako", mode="versus", channels={c.name: c.channel for c in cal.seats},
                               names=tuple(names), crosstalk_db=-10.0, enroll=None, leakage_from=DEMO / "seats.wav", vocab=rules.vocabulary("ikatako", "versus"))
    truth = [json.loads(line) for line in (DEMO / "truth.jsonl").read_text().splitlines() if line.strip()]
    shouts = [e for e in truth if e["type"] == "shout"]
    base_mix = make_demo.mix(demo)

    def heard(xx, t0):
        from scipy.io import wavfile

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "x.wav"
            wavfile.write(path, rate, np.clip(xx, -1, 1).astype(np.float32))
            w: list[str] = []
            src, _ = hearing.open_source(DEMO / "session.mp4", path, w, demix=True, leakage_from=plan.leakage_from)
            lis = hearing.make_listener(plan, src, w)
            ev = []
            for b in src:
                ev += lis.update(b)
            ev += lis.close_window()
        return [dict(e, t=e["t"] + t0) for e in ev if e.get("type") == "shout"]

    moves, cases = [], []
    movers = [a for a in shouts if any(b is not a and b["player"] != a["player"] and 0 < abs(a["t"] - b["t"]) <= 0.3
                                       for b in shouts)]
    d = int(0.040 * rate)
    for a in movers:
        j = names.index(a["player"])
        k = min(range(len(demo.shouts)), key=lambda i: (demo.shouts[i][0] != j, abs(demo.shouts[i][1] / rate - a["t"])))
        seat, start, words, clip = demo.shouts[k]
        moved_demo = copy.copy(demo)
        moved_demo.shouts = list(demo.shouts)
        moved_demo.shouts[k] = (seat, start + d, words, clip)
        t0 = max(0.0, a["t"] - 1.5)
        lo, hi = int(t0 * rate), int(min(len(base_mix) / rate, a["t"] + 2.5) * rate)
        base, shifted = heard(base_mix[lo:hi], t0), heard(make_demo.mix(moved_demo)[lo:hi], t0)
        for b in shouts:
            if b is a or b["player"] == a["player"] or abs(b["t"] - a["t"]) > 0.3:
                continue
            e0 = min((e for e in base if e.get("player") == b["player"]), key=lambda e: abs(e["t"] - b["t"]), default=None)
            e1 = min((e for e in shifted if e.get("player") == b["player"]), key=lambda e: abs(e["t"] - b["t"]), default=None)
            if e0 is None or e1 is None or abs(e0["t"] - b["t"]) > 0.3:
                continue
            moves.append(round(abs(e1["t"] - e0["t"]) * 1000, 1))
            cases.append({"moved": a["player"], "at": round(a["t"], 3), "neighbour": b["player"], "truth": round(b["t"], 3),
                          "base": round(e0["t"], 3), "shifted": round(e1["t"], 3)})
    return {"neighbours": len(moves), "moves_ms": moves, "cases": cases}


def inside(args) -> int:
    global DEMO
    # the measured tree's own demo (run_inside: cwd = the tree): a newer calibration file's
    # fields are unknown to an older tree's schema (audio.leakage.residual_leaks_db)
    DEMO = Path.cwd() / "fixtures" / "demo"
    out = {"load": os.getloadavg()}
    out["speech"] = ({"cells": {}, "decode_s": [], "latency": [], "decode_per_word": []} if args.skip_speech
                     else measure_speech(args.limit, args.show_missed))
    out["rtf"] = measure_rtf(enrolled=False)
    out["rtf_enrolled"] = measure_rtf(enrolled=True)
    out["rtf_warm"] = measure_rtf(enrolled=False)  # the same, the process's priors and kernels warm
    out["rtf_live"] = measure_rtf(enrolled=False, live=True, share_s=args.live_share)  # warm: the steady state
    out["onset_shift"] = {"neighbours": 0, "moves_ms": []} if args.skip_onset else measure_onset_shift()
    print("RESULT " + json.dumps(out))
    return 0


# ----------------------------------------------------------------- the demo changed
# ----------------------------------------------------------------- the run
def run_tree(tree: Path, args) -> dict:
    return run_inside(tree, Path(__file__), (["--limit", str(args.limit)] if args.limit else [])
                      + (["--skip-onset"] if args.skip_onset else []) + (["--skip-speech"] if args.skip_speech else [])
                      + (["--show-missed"] if args.show_missed else [])
                      + (["--live-share", str(args.live_share)] if args.live_share is not None else []))


def run_inside(tree: Path, script: Path, options: list[str]) -> dict:
    """``script --inside options`` run with ``tree``'s code on the path (one thread of BLAS, as
    the referee runs): the ``RESULT`` JSON it prints."""
    env = dict(os.environ, PYTHONPATH=str(tree), OPENBLAS_NUM_THREADS="1")
    cmd = [sys.executable, str(Path(script).resolve()), "--inside"] + options
    p = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        raise SystemExit(f"measuring {tree} failed:\n{p.stderr[-3000:]}")
    return json.loads(line[7:])


def pct(h: int, n: int) -> str:
    return f"{h}/{n} ({100 * h / n:.0f} %)" if n else "-"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default=None, help="git revision of the 'before' code (default: merge base with main)")
    ap.add_argument("--skip-variants", action="store_true",
                    help="no pointer to the demo variants (they are measured by bench_demo_audio.py --variants)")
    ap.add_argument("--skip-speech", action="store_true")
    ap.add_argument("--skip-onset", action="store_true", help="skip the overlapping-onset measure (the ears' figure)")
    ap.add_argument("--limit", type=int, default=None, help="at most about N clips per set (quick look)")
    ap.add_argument("--show-false", action="store_true", help="list the non-game clips heard as a call, per tree")
    ap.add_argument("--show-missed", action="store_true",
                    help="per digit clip missed, per tree: what was heard, the gate that refused it, the onset "
                         "detector's segment against the clip's voiced stretch, the right call's scores")
    ap.add_argument("--live-share", type=float, default=None,
                    help="the live measure's ListenParams.share_s (s; a tree without it: off)")
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.inside:
        return inside(a)
    if not SPEECH.is_dir():
        print(f"skipped: {SPEECH} not found (the shared real-speech data)")
        return 0
    rev = a.before or subprocess.run(["git", "-C", str(ROOT), "merge-base", "HEAD", "main"], capture_output=True,
                                     text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="bench-hearing-") as tmp:
        tmp = Path(tmp)
        before = tmp / "before"
        before.mkdir()
        subprocess.run(f"git -C {ROOT} archive {rev} | tar -x -C {before}", shell=True, check=True)
        trees = {"before": before, "after": ROOT}
        print(f"hearing benchmark: before = {rev[:10]} (main), after = this tree; load average at start "
              f"{' '.join(f'{v:.1f}' for v in os.getloadavg())}")
        if True:  # (--skip-speech: the real-speech rows only; the real-time factor and onsets still)
            res = {name: run_tree(tree, a) for name, tree in trees.items()}
            print("\n| measure | before | after |\n|---|---|---|")
            labels = {"keyword": "real digits exact", "false": "false alarms, real non-game speech"}
            for kind in ("keyword", "false"):
                for lang in ("en", "ja"):
                    for cond in ("quiet", "white10"):
                        cells = []
                        for r in res.values():
                            c = r["speech"]["cells"]
                            got = {h: c.get(f"{kind}|{lang}|{cond}|{h}", [0, 0]) for h in "AB"}
                            if not any(n for _, n in got.values()):
                                continue
                            both = [got["A"][0] + got["B"][0], got["A"][1] + got["B"][1]]
                            cells.append(f"{pct(*both)}; A {pct(*got['A'])}, B {pct(*got['B'])}")
                        if cells:
                            print(f"| {labels[kind]}, {lang}, {'quiet' if cond == 'quiet' else 'white 10 dB'} | "
                                  + " | ".join(cells) + " |")
            for key, label in (("rtf", "no enrollment"), ("rtf_enrolled", "every seat enrolled"),
                               ("rtf_warm", "no enrollment, warm (second run)"),
                               ("rtf_live", "no enrollment, live (words not held; warm)")):
                if any(key not in r for r in res.values()):
                    continue
                cells = [f"{r[key]['rtf']} ({r[key]['cpu_s']} CPU-s / {r[key]['audio_s']} s; {r[key]['decoded']} utterances "
                         f"decoded, {r[key]['decode_cpu_s']} CPU-s)" for r in res.values()]
                print(f"| real-time factor, 4 channels (demo), {label} | {cells[0]} | {cells[1]} |")
            cells = []
            for r in res.values():
                d = np.array(r["speech"]["decode_s"]) * 1000
                cells.append(f"median {np.median(d):.0f} / p90 {np.percentile(d, 90):.0f} ms (n={len(d)})" if len(d) else "-")
            print(f"| engine CPU per decoded utterance (real speech) | {cells[0]} | {cells[1]} |")
            cells = []
            for r in res.values():
                lat = np.array(r["speech"]["latency"]) * 1000
                cells.append(f"median {np.median(lat):.0f} / p90 {np.percentile(lat, 90):.0f} ms (n={len(lat)})"
                             if len(lat) else "-")
            print(f"| word latency after the utterance ends | {cells[0]} | {cells[1]} |")
            cells = []
            for r in res.values():
                d = np.array(r["speech"]["decode_per_word"]) * 1000
                cells.append(f"median {np.median(d):.0f} / p90 {np.percentile(d, 90):.0f} ms" if len(d) else "-")
            print(f"|   of which decoding (CPU) | {cells[0]} | {cells[1]} |")
            cells = []
            for r in res.values():
                m = r["onset_shift"]["moves_ms"]
                cells.append(f"max {max(m):.1f} ms, median {np.median(m):.1f}, {sum(v <= 5 for v in m)}/{len(m)} "
                             "within 5 ms" if m else "-")
            print(f"| neighbour onset moved when a shout moves 40 ms | {cells[0]} | {cells[1]} |")
            for name, r in res.items():
                far = [c for c, v in zip(r["onset_shift"].get("cases", []), r["onset_shift"]["moves_ms"]) if v > 5]
                if far:
                    print(f"{name}: moved > 5 ms: " + "; ".join(
                        f"{c['neighbour']} (truth {c['truth']:.3f}) {c['base']:.3f} -> {c['shifted']:.3f} when "
                        f"{c['moved']}'s shout at {c['at']:.3f} moved" for c in far))
            if a.show_false:
                for name, r in res.items():
                    print(f"{name}: heard as a call: " + "; ".join(f"{h}/{c} {f.split('/')[-1]} ({t[:12]}) -> {', '.join(k)}"
                                                                 for f, t, h, c, k in r["speech"].get("false_heard", [])))
            if a.show_missed:
                for name, r in res.items():
                    print(f"{name}: digits missed:")
                    for m in r["speech"].get("missed", []):
                        print(f"  {m['half']}/{m['cond']} {m['file'].split('/')[-1]} ({m['token']}): heard "
                              f"{', '.join(m['heard']) or 'nothing'}; dropped {m['dropped'] or '-'}")
                        for u in m["utterances"]:
                            print("    " + json.dumps(u, ensure_ascii=False))
            print("load average during: " + "; ".join(f"{k} {' '.join(f'{v:.1f}' for v in r['load'])}"
                                                      for k, r in res.items()))
        if not a.skip_variants:
            print("(the demo changed on purpose — swapped, muted, clipped, delayed, cut, noise, babble: "
                  "benchmarks/bench_demo_audio.py --variants)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

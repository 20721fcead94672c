"""The cost and latency of the word (Whisper base), before (main's code) and after (this tree), in one run.

    python benchmarks/bench_whisper_speed.py [--before REV] [--limit N] [--early S] [--engine-options]

Prints, for each code tree, with counts and the load average:

1. *the demo's four channels* (``fixtures/demo``, cancellation on, no enrollment, so every
   utterance goes to Whisper), heard as a replay hears a recording (``audio.hearing.open_source``:
   the listener may hold utterances to decode them together) and as the live referee would
   (the same blocks, the source not marked a recording: only the utterances released
   together are decoded together): CPU-s, real-time factor, Whisper's CPU per utterance (the
   encoder, the prompted and the unprompted passes), ``generate`` calls per utterance, the word
   latency after each utterance's end (live only: a replay's hold is no latency; the blocks
   arrive in real time and each update starts when its block is there and the one before has
   finished — :class:`Clock`; the listener is told when the clock is behind, as a live capture
   queue tells it: ``Listener.backlog``, ``--no-backlog``: not), and whether the events are the
   same as the before tree's, byte for byte;
2. *real clips* (``../shared/data/speech``, read in place; every Nth English digit and
   Japanese non-game word, quiet): each clip heard through the listener one at a time (as
   live: the word latency, exact digits / calls on talk), and the same utterances decoded by
   the recognizer alone and four at a time (``decode_many``: CPU and calls per utterance);
3. a third column, *early*: this tree with ``ListenParams.early_s`` (``--early``, 0.1 s; live
   only): each word decoded once its utterance's end is suspected, before the detector decides
   it (its window then ends at the end + that; in a quiet room only), with the early decodings
   made, used and wasted;
4. with ``--engine-options``: the encoder and one decoder pass per CTranslate2 compute type
   and thread count (CPU and wall per call, the largest logit difference from int8 / 1 thread).

"Before" is the tree of ``--before`` (default: the merge base with ``main``), extracted with
``git archive`` into a temp folder; each tree runs in its own process (the model loaded before
the clock starts; the demo heard once before it is timed, so the per-call priors are cached as
in a long session). CPU is process time (both cores count); the machine is shared, so compare
the two columns of one run, not runs.
"""

from __future__ import annotations

import rules
import argparse
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
sys.path.insert(0, str(Path(__file__).resolve().parent))  # this benchmark's own folder, in any tree it measures
from bench_hearing import RATE, SPEECH, ArraySource, run_inside  # noqa: E402  (the real clips; blocks of an array)


# ----------------------------------------------------------------- inside one code tree
class Meter:
    """Counts the engine's work: ``generate`` calls (not those of the per-call priors, computed
    once per process) and the CPU time of the outermost decode (``decode`` or ``decode_many``)."""

    def __init__(self):
        self.calls = self.prior_calls = 0
        self.cpu: list[tuple[int, float]] = []  # (utterances, CPU-s) per outermost decode
        self.stage: dict[str, float] = {}  # CPU-s of the encoder, the prompted and unprompted passes; rows
        self._depth = 0
        self.in_prior = 0

    def model(self, model):
        meter = self

        class Counted:
            def generate(self, *a, **k):
                if meter.in_prior:
                    meter.prior_calls += 1
                    return model.generate(*a, **k)
                meter.calls += 1
                c0 = time.process_time()
                try:
                    return model.generate(*a, **k)
                finally:  # the prompted passes carry the game's words (~40 tokens), the others 4
                    kind = "prompted" if len(a[1][0]) > 20 else "unprompted"
                    meter.stage[kind] = meter.stage.get(kind, 0.0) + time.process_time() - c0
                    meter.stage[kind + " rows"] = meter.stage.get(kind + " rows", 0) + len(a[1])

            def encode(self, *a, **k):
                c0 = time.process_time()
                try:
                    return model.encode(*a, **k)
                finally:
                    if not meter.in_prior:
                        meter.stage["encoder"] = meter.stage.get("encoder", 0.0) + time.process_time() - c0

            def __getattr__(self, name):
                return getattr(model, name)

        return Counted()

    def recognizer(self, rec):
        for name in ("decode", "decode_many"):
            inner = getattr(rec, name, None)
            if inner is not None:
                setattr(rec, name, self._timed(inner, name))
        prior = rec.prior

        def counted_prior(*args):  # (call) or (tokens, view): whichever the tree's engine asks
            self.in_prior += 1
            try:
                return prior(*args)
            finally:
                self.in_prior -= 1

        rec.prior = counted_prior
        return rec

    def _timed(self, fn, name):
        def run(*args):
            self._depth += 1
            c0 = time.process_time()
            try:
                return fn(*args)
            finally:
                self._depth -= 1
                if not self._depth:
                    self.cpu.append((len(args[0]) if name == "decode_many" else 1, time.process_time() - c0))
        return run

    def utterances(self) -> int:
        return sum(n for n, _ in self.cpu)

    def reset(self):
        self.calls = self.prior_calls = 0
        self.cpu = []
        self.stage = {}


METER = Meter()
#: ``--early S``: the listeners made with ``ListenParams.early_s`` = S (live only; a replay holds)
EARLY: float | None = None
#: the live listeners told when they are behind (``Listener.backlog``; ``--no-backlog``: not)
BACKLOG = True


def _listener(plan, source, warnings):
    from dataclasses import replace

    from audio import hearing

    listener = hearing.make_listener(plan, source, warnings)
    if EARLY is not None:
        listener.p = replace(listener.p, early_s=EARLY)
    return listener


class Clock:
    """The live referee's word latency: blocks arrive in real time (at their last sample's
    session time) and each ``update`` starts when both its block has arrived and the update
    before it has finished (one thread): an update that decodes early delays the blocks after
    it, so the time an early decoding takes is counted where it is paid."""

    def __init__(self):
        self.now = 0.0
        self.behind = False

    def update(self, listener, block):
        arrived = (block.index + len(block.data)) / block.rate
        # the next block (as long as this one) is already waiting when this update starts
        self.behind = max(self.now, arrived) >= arrived + len(block.data) / block.rate
        if BACKLOG and getattr(listener, "backlog", False) is None:
            listener.backlog = lambda: self.behind
        t0 = time.perf_counter()
        out = listener.update(block)
        dt = time.perf_counter() - t0
        self.now = max(self.now, (block.index + len(block.data)) / block.rate) + dt
        return out, dt


def _engine():
    """Load the model once, counted (every recognizer made after this uses it)."""
    import audio.whisper as W

    W.load(1)
    for key, (model, tok) in list(W.LOADED.items()):
        W.LOADED[key] = (METER.model(model), tok)


def _recognizer_hook():
    from audio import hearing

    make = hearing.make_recognizer

    def counted(*args):
        return METER.recognizer(make(*args))

    hearing.make_recognizer = counted


def hear_demo(live: bool) -> dict:
    """The demo's four channels without enrollment; ``live``: the source not marked a recording."""
    from audio import hearing
    from session.calibration import load

    demo = Path.cwd() / "fixtures" / "demo"  # the measured tree's own (run_inside: cwd = the tree): a newer
    cal = load(demo / "calibration.json")  # calibration file has fields an older tree rejects
    plan = hearing.HearingPlan(game="ikatako", mode="versus", channels={s.name: s.channel for s in cal.seats},
                               names=tuple(s.name for s in cal.seats), crosstalk_db=-10.0, enroll=None, vocab=rules.vocabulary("ikatako", "versus"))
    METER.reset()
    c0 = time.process_time()
    warnings: list[str] = []
    source, _ = hearing.open_source(demo / "session.mp4", demo / "seats.wav", warnings, demix=True)
    if live and getattr(source, "offline", False):
        source.offline = False
    listener = _listener(plan, source, warnings)
    events, lat, n = [], [], 0
    clock = Clock()
    for b in source:
        out, _ = clock.update(listener, b)
        n += len(b.data)
        lat += [clock.now - e["t_end"] for e in out if e.get("type") == "shout" and e.get("t_end") is not None]
        events += out
    events += listener.close_window()
    cpu = time.process_time() - c0
    audio_s = n / source.rate
    return {"cpu_s": round(cpu, 2), "audio_s": round(audio_s, 2), "rtf": round(cpu / audio_s, 3),
            "utterances": METER.utterances(), "engine_cpu_s": round(sum(c for _, c in METER.cpu), 2),
            "calls": METER.calls, "latency": lat if live else [], "events": events,
            "early": dict(getattr(listener, "early", {})), "stage": dict(METER.stage), "load": os.getloadavg()}


def _clip(row) -> np.ndarray:
    from audio.capture import read_all

    x, rate = read_all(SPEECH / row["file"])
    x = x.mean(axis=1).astype(np.float64)
    if rate != RATE:
        from scipy import signal

        x = signal.resample_poly(x, RATE, rate)
    rng = np.random.default_rng(0)
    pad = np.zeros(int(0.8 * RATE))
    x = np.concatenate([pad, x, pad])
    return x + rng.standard_normal(len(x)) * 10 ** (-65 / 20)  # a microphone's own hiss


def hear_clips(limit: int) -> dict:
    """Real clips one at a time through the listener (live), then their utterances decoded alone
    and four at a time by the recognizer."""
    from audio import hearing

    rows = list(csv.DictReader(open(SPEECH / "labels.csv", encoding="utf-8")))
    digits = [r for r in rows if r["kind"] == "keyword" and r["lang"] == "en"]
    talk = [r for r in rows if r["kind"] in ("other", "sentence") and r["lang"] == "ja"]
    picked = digits[:: max(1, len(digits) // limit)][:limit] + talk[:: max(1, len(talk) // (limit // 2))][: limit // 2]
    plans, recs = {}, {}
    out = {"clips": len(picked), "exact": 0, "digits": 0, "false": 0, "talk": 0, "latency": [], "processing": [],
           "wait": [], "events": [], "windows": {}, "early": {}}
    windows: dict[str, list[np.ndarray]] = {}
    METER.reset()
    for r in picked:
        lang = r["lang"]
        if lang not in plans:
            plans[lang] = hearing.HearingPlan(game="ikatako", mode="coop", channels={"p": 0}, names=("p",), lang=lang,
                                              demix=False, vocab=rules.vocabulary("ikatako", "coop"))
        listener = _listener(plans[lang], ArraySource(np.zeros((1, 1)), RATE), [])
        recs[lang] = listener.recognizer
        seen: list[np.ndarray] = []
        inner = recs[lang].decode

        def keep(samples, rate, inner=inner, seen=seen):
            seen.append(np.array(samples))
            return inner(samples, rate)

        recs[lang].decode = keep
        events = []
        clock = Clock()
        for b in ArraySource(_clip(r)[:, None], RATE):
            got, dt = clock.update(listener, b)
            ends = [e["t_end"] for e in got if e.get("type") == "shout" and e.get("t_end") is not None]
            out["latency"] += [clock.now - t for t in ends]
            out["wait"] += [(b.index + len(b.data)) / RATE - t for t in ends]
            out["processing"] += [dt] * len(ends)
            events += got
        events += listener.close_window()
        for k, v in getattr(listener, "early", {}).items():
            out["early"][k] = out["early"].get(k, 0) + v
        recs[lang].decode = inner
        windows.setdefault(lang, []).extend(seen)
        calls = {tuple(e["words"]) for e in events if e.get("type") == "shout" and e.get("words")}
        if r["kind"] == "keyword":
            out["digits"] += 1
            out["exact"] += calls == {(r["token"],)}
        else:
            out["talk"] += 1
            out["false"] += bool(calls)
        out["events"].append(events)
    out["listener"] = {"utterances": METER.utterances(), "calls": METER.calls, "stage": dict(METER.stage),
                       "engine_cpu_s": round(sum(c for _, c in METER.cpu), 3),
                       "per_utterance_ms": [round(1000 * c, 1) for n, c in METER.cpu if n == 1]}
    # the same utterances, decoded alone and four at a time (the priors are cached by now)
    for mode in ("alone", "four"):
        METER.reset()
        heard = []
        for lang, ws in windows.items():
            rec = recs[lang]
            if mode == "alone" or not hasattr(rec, "decode_many"):
                heard += [rec.decode(w, RATE) for w in ws]
            else:
                for k in range(0, len(ws), 4):
                    heard += rec.decode_many([(w, RATE) for w in ws[k : k + 4]])
        out["windows"][mode] = {"utterances": len(heard), "calls": METER.calls,
                                "engine_cpu_s": round(sum(c for _, c in METER.cpu), 3),
                                "heard": [[h.text, list(h.parsed.tokens), h.conf, h.extra] for h in heard]}
    out["load"] = os.getloadavg()
    return out


def engine_options() -> list[dict]:
    """The encoder and one prompted decoder pass per compute type and thread count."""
    import ctranslate2

    from rules import vocabulary
    from audio.whisper import WhisperRecognizer, log_mel
    from audio.whisper_files import model_dir

    rec = WhisperRecognizer(vocabulary("ikatako", "versus"), "ja")
    rng = np.random.default_rng(1)
    t = np.arange(int(1.4 * RATE)) / RATE
    mels = [log_mel(np.sin(2 * np.pi * (150 + 30 * k) * t) * np.hanning(len(t)) * 0.3
                    + rng.standard_normal(len(t)) * 0.01, 300, None) for k in range(4)]
    rows, ref = [], None
    for ct in ("int8", "int8_float32", "float32"):
        for threads in (1, 2):
            m = ctranslate2.models.Whisper(str(model_dir()), device="cpu", compute_type=ct, intra_threads=threads,
                                           inter_threads=1)
            cost = {"encode": [0.0, 0.0], "generate": [0.0, 0.0]}
            logits = []
            for _ in range(3):
                for x in mels:
                    w0, c0 = time.perf_counter(), time.process_time()
                    enc = m.encode(ctranslate2.StorageView.from_array(x[None]))
                    cost["encode"][0] += time.perf_counter() - w0
                    cost["encode"][1] += time.process_time() - c0
                    w0, c0 = time.perf_counter(), time.process_time()
                    r = m.generate(enc, [rec.prompt_ids], beam_size=1, max_length=len(rec.prompt_ids) + 1,
                                   return_logits_vocab=True, suppress_blank=False)
                    cost["generate"][0] += time.perf_counter() - w0
                    cost["generate"][1] += time.process_time() - c0
                    logits.append(np.asarray(r[0].logits[0][0], np.float64).ravel())
            n = 3 * len(mels)
            ref = logits if ref is None else ref
            rows.append({"compute_type": ct, "threads": threads,
                         **{f"{k}_{w}_ms": round(1000 * v[i] / n, 1) for k, v in cost.items()
                            for i, w in enumerate(("wall", "cpu"))},
                         "max_logit_diff": round(max(float(np.abs(a - b).max()) for a, b in zip(ref, logits)), 4),
                         "load": os.getloadavg()[0]})
            del m
    return rows


def inside(args) -> int:
    global EARLY, BACKLOG
    EARLY, BACKLOG = args.early, not args.no_backlog
    out = {"load": os.getloadavg()}
    _engine()
    _recognizer_hook()
    hear_demo(live=False)  # once untimed: the per-call priors cached, as in a long session
    out["demo_replay"] = hear_demo(live=False)
    out["demo_live"] = hear_demo(live=True)
    out["clips"] = hear_clips(args.limit) if SPEECH.is_dir() else None
    if args.engine_options:
        out["engine_options"] = engine_options()
    print("RESULT " + json.dumps(out, default=float))
    return 0


# ----------------------------------------------------------------- the run
def run_tree(tree: Path, args, early: float | None = None) -> dict:
    return run_inside(tree, Path(__file__), ["--limit", str(args.limit)]
                      + (["--engine-options"] if args.engine_options else [])
                      + (["--no-backlog"] if args.no_backlog else [])
                      + (["--early", str(early)] if early is not None else []))


def _ms(values) -> str:
    v = np.asarray(values, float) * 1000
    return f"median {np.median(v):.0f} / p90 {np.percentile(v, 90):.0f} ms (n={len(v)})" if len(v) else "-"


def _load(v) -> str:
    return " ".join(f"{x:.1f}" for x in v)


def _stages(st: dict, n: int) -> str:
    """CPU per utterance of the encoder and of each kind of pass (ms), with rows per utterance."""
    n = max(1, n)
    return (f"encoder {1000 * st.get('encoder', 0) / n:.0f}, prompted passes {1000 * st.get('prompted', 0) / n:.0f} "
            f"({st.get('prompted rows', 0) / n:.1f} rows), unprompted {1000 * st.get('unprompted', 0) / n:.0f} "
            f"({st.get('unprompted rows', 0) / n:.1f} rows) ms per utterance")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default=None, help="git revision of the 'before' code (default: merge base with main)")
    ap.add_argument("--limit", type=int, default=40, help="English digit clips (and half as many Japanese talk clips)")
    ap.add_argument("--engine-options", action="store_true", help="also time the encoder per compute type and threads")
    ap.add_argument("--early", type=float, default=None,
                    help="a third column: this tree with ListenParams.early_s = this (s; default 0.1; 0: none)")
    ap.add_argument("--no-backlog", action="store_true",
                    help="live listeners never told they are behind (Listener.backlog): decoded as released")
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.inside:
        return inside(a)
    a.early = 0.1 if a.early is None else a.early
    rev = a.before or subprocess.run(["git", "-C", str(ROOT), "merge-base", "HEAD", "main"], capture_output=True,
                                     text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="bench-whisper-speed-") as tmp:
        before = Path(tmp) / "before"
        before.mkdir()
        subprocess.run(f"git -C {ROOT} archive {rev} | tar -x -C {before}", shell=True, check=True)
        print(f"Whisper speed benchmark: before = {rev[:10]}, after = this tree"
              + (f", early = this tree with ListenParams.early_s {a.early}" if a.early else "")
              + f"; load average at start {_load(os.getloadavg())}")
        res = {"before": run_tree(before, a), "after": run_tree(ROOT, a)}
        if a.early:
            res["early"] = run_tree(ROOT, a, a.early)
    cols = list(res.values())
    b = res["before"]
    print("\n| measure | " + " | ".join(res) + " |\n|---|" + "---|" * len(res))

    def row(label, cell):
        print(f"| {label} | " + " | ".join(cell(r) for r in cols) + " |")

    for key, label in (("demo_replay", "demo, 4 channels, no enrollment, replay"),
                       ("demo_live", "demo, 4 channels, no enrollment, live (no hold)")):
        def cell(r, key=key):
            d = r[key]
            per = 1000 * d["engine_cpu_s"] / max(1, d["utterances"])
            return (f"RTF {d['rtf']} ({d['cpu_s']} CPU-s / {d['audio_s']} s); Whisper {d['engine_cpu_s']} CPU-s, "
                    f"{per:.0f} ms and {d['calls'] / max(1, d['utterances']):.2f} generate calls per utterance "
                    f"({d['utterances']} utterances, {d['calls']} calls); load {_load(d['load'])}")
        row(label, cell)
        row("  of which (CPU)", lambda r, key=key: _stages(r[key].get("stage", {}), r[key]["utterances"]))
    row("demo live: word latency after the utterance ends (blocks in real time, one thread)",
        lambda r: _ms(r["demo_live"]["latency"]))
    row("demo live: early decodings (made / used / wasted)",
        lambda r: " / ".join(str(r["demo_live"].get("early", {}).get(k, "-")) for k in ("decoded", "used", "wasted")))
    row("demo: events the same as before, byte for byte (replay; live)",
        lambda r: "-" if r is b else (f"{'yes' if r['demo_replay']['events'] == b['demo_replay']['events'] else 'NO'} "
                                      f"({len(r['demo_replay']['events'])}); "
                                      f"{'yes' if r['demo_live']['events'] == b['demo_live']['events'] else 'NO'}"))
    if all(r["clips"] for r in cols):
        row("real clips, one at a time (live): counts",
            lambda r: f"{r['clips']['exact']}/{r['clips']['digits']} digits exact, "
                      f"{r['clips']['false']}/{r['clips']['talk']} talk heard as a call")
        row("real clips: word latency after the utterance ends (blocks in real time, one thread)",
            lambda r: _ms(r["clips"]["latency"]))
        row("  of which the wait for the detector's end (audio time)", lambda r: _ms(r["clips"].get("wait", [])))
        row("  processing of the releasing block (wall)", lambda r: _ms(r["clips"]["processing"]))
        row("real clips: early decodings (made / used / wasted)",
            lambda r: " / ".join(str(r["clips"].get("early", {}).get(k, "-")) for k in ("decoded", "used", "wasted")))
        row("real clips: Whisper CPU per utterance (live)",
            lambda r: f"{_ms(np.array(r['clips']['listener']['per_utterance_ms']) / 1000)}, "
                      f"{r['clips']['listener']['calls'] / max(1, r['clips']['listener']['utterances']):.2f} "
                      "generate calls per utterance")
        row("  of which (CPU)", lambda r: _stages(r["clips"]["listener"].get("stage", {}),
                                                 r["clips"]["listener"]["utterances"]))
        for mode, label in (("alone", "one at a time"), ("four", "four at a time (decode_many)")):
            def cell(r, mode=mode):
                w = r["clips"]["windows"].get(mode)
                n = max(1, w["utterances"])
                return f"{1000 * w['engine_cpu_s'] / n:.0f} ms, {w['calls'] / n:.2f} calls per utterance " \
                       f"(n={w['utterances']})"
            row(f"real clips' utterances decoded {label}", cell)
        def same(r):  # four at a time against before's one at a time (early: its own windows, its own)
            alone = (r if r is b or r is res.get("early") else b)["clips"]["windows"]["alone"]["heard"]
            four = "yes" if r["clips"]["windows"]["four"]["heard"] == alone else "NO"
            if r is b:
                return f"-; {four}"
            return f"{'yes' if r['clips']['events'] == b['clips']['events'] else 'NO'} ({r['clips']['clips']} clips); {four}"
        row("real clips: events the same as before; words four at a time = before's one at a time", same)
        row("(real clips: load at the end)", lambda r: _load(r["clips"]["load"]))
    for name, r in res.items():
        for item in r.get("engine_options", []):
            print(f"{name}: {item}")
    print(f"load average at the end {_load(os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

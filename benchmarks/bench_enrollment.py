"""How sure the enrolled voices are, on real voices (issue 30, item 1; issue 31, item 3):
accuracy per margin bin of a verifier — the log-mel DTW templates
(:class:`audio.enroll.Enrollment`) and/or the learned speech embedding
(:class:`audio.embedding.EmbeddingEnrollment`) — and the ``min_margin`` (and ``max_distance``)
a verdict needs to be right 99 % of the time, chosen on some speakers and reported on another
(leave-one-speaker-out).

    python benchmarks/bench_enrollment.py [--verifier dtw|embedding|both] [--takes 2] [--json]
    python benchmarks/bench_enrollment.py --embedding          # = --verifier both
    python benchmarks/bench_enrollment.py --verifier combined  # both, and the two combined

Material, read in place: ``../shared/data/speech`` (see its README), the English digits
"two" … "nine" of the Free Spoken Digit Dataset's three speakers (george, jackson, lucas),
ten takes each. Each speaker is enrolled as the referee enrols a player (``--takes`` takes of
every call, as ``referee calibrate --enroll`` takes them: trimmed to the utterance; the demo
enrols 2), and every other take is verified as that speaker's shout (``verify``, given the
0.3 s of its channel before it as its noise). Their "zero" and "one" (no call of the game
here) are verified too: any call accepted on them is wrong. Two conditions: quiet, and white
noise 10 dB below the speech (seeded). Each verifier is built with ``min_margin`` 0 (it names
its best call whatever the margin: the analysis chooses the threshold), and the CPU time of
each verification (its features and comparison) is measured.

An *observation* is a verdict that names a call; it is right when the call is the clip's
digit. The table gives, per margin bin (the verdict's margin: how much nearer the best call
is than the next; the bins are quantiles of each verifier's margins, whose scales differ),
how many verdicts and how many right. The threshold analysis: for each held-out speaker, the
lowest margin at which the OTHER two speakers' verdicts at or above it are right at least 99 %
of the time (``CLEAR``) — and, second, the margin with a distance cap that keep the most of
their verdicts at 99 % right — then on the held-out speaker: the verdicts kept, how many
right, the non-calls named, and the clips abstained. Only these held-out figures are a headline.

``--verifier combined`` (issue 31 item 3: "combine the engines by calibrated confidence, not
by order") runs both and then judges, per held-out speaker, the ways to combine them
(:data:`COMBINATIONS`, :func:`combine`) with each engine's thresholds chosen on the other two
speakers as above: a verdict is *sure* on its own engine's thresholds; one sure engine decides,
two sure engines that disagree abstain. The ``agree`` variants also accept a call both engines
lean to when neither is sure, with relaxed margins chosen on the other two speakers too.

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
#: the margin bins of the table: lower edges at these quantiles of each verifier's margins
QUANTILES = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9, 0.95)
#: the distance caps tried by the held-out analysis with a cap (:func:`clear_thresholds`)
DISTANCE_QUANTILES = tuple(np.round(np.arange(0.5, 1.0, 0.025), 3))
#: the held-out speaker's right/kept is also shown at this margin (the synthetic voices' choice
#: for the DTW templates)
DEFAULT_MARGIN = {"dtw": 0.3}
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


def make_verifier(name: str, rate: int, compare: str | None = None, pad_s: float | None = None):
    """A fresh enrollment of verifier ``name`` that names its best call at any margin
    (``min_margin`` 0): the analysis below sees every verdict's margin and chooses the threshold
    itself. The DTW templates keep their ``max_distance`` (5.0, as the referee runs them); the
    embedding has none here (its default was chosen by this analysis: at any distance)."""
    if name == "dtw":
        from audio.enroll import Enrollment

        return Enrollment(rate, min_margin=0.0)
    from audio import embedding

    return embedding.EmbeddingEnrollment(rate, min_margin=0.0, max_distance=float("inf"), compare=compare or embedding.COMPARE,
                                         pad_s=embedding.PAD_S if pad_s is None else pad_s)


def verdicts(takes: int, verifier: str = "dtw", **options) -> list[dict]:
    """Every clip not used for enrollment, verified per condition: speaker, token, got, margin,
    and the CPU seconds of the verification (features and comparison)."""
    from audio.enroll import trim

    rows = clips()
    out = []
    for speaker in sorted({r["speaker"] for r in rows}):
        mine = [r for r in rows if r["speaker"] == speaker]
        x0, rate = read(SPEECH / mine[0]["file"])
        enrollment = make_verifier(verifier, rate, **options)
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
                t0 = time.process_time()
                v = enrollment.verify(speaker, feats=enrollment.features(heard, before))
                cpu = time.process_time() - t0
                out.append({"speaker": speaker, "file": r["file"], "token": r["token"], "condition": condition,
                            "got": " ".join(v.tokens) if v.tokens else None, "margin": v.margin,
                            "distance": v.distance, "cpu_s": cpu})
    return out


def hash_seed(name: str, k: int) -> int:
    import zlib

    return zlib.crc32(f"{name}:{k}".encode()) & 0x7FFFFFFF


def observations(rows: list[dict], min_margin: float = 0.0,
                 max_distance: float = float("inf")) -> list[tuple[float, bool]]:
    """(margin, right) of every verdict that names a call at or above ``min_margin`` and at
    most ``max_distance`` from its nearest take."""
    return [(r["margin"], r["got"] == r["token"]) for r in rows
            if r["got"] is not None and r["margin"] >= min_margin and r["distance"] <= max_distance]


def lowest_clear(obs: list[tuple[float, bool]], clear: float = CLEAR) -> float | None:
    """The lowest margin m (one of the observed margins) such that the observations at or above
    m are right at least ``clear`` of the time; None when no margin reaches it."""
    for m in sorted({m for m, _ in obs}):
        kept = [ok for mm, ok in obs if mm >= m]
        if kept and sum(kept) / len(kept) >= clear:
            return m
    return None


def clear_thresholds(rows: list[dict], clear: float = CLEAR) -> tuple[float | None, float]:
    """The (min_margin, max_distance) that keep the most of ``rows``' verdicts while those kept
    are right at least ``clear`` of the time. ``max_distance`` is tried at the
    :data:`DISTANCE_QUANTILES` of the verdicts' distances and at infinity (no cap; kept on a tie):
    a word that is none of the calls ("zero", "one") can be far from every take yet clearly
    nearer one of them, which a margin alone cannot refuse."""
    distances = np.array([r["distance"] for r in rows if r["got"] is not None])
    caps = [float("inf")] + sorted({float(np.quantile(distances, q)) for q in DISTANCE_QUANTILES}, reverse=True)
    best: tuple[int, float | None, float] = (-1, None, float("inf"))
    for cap in caps:
        m = lowest_clear(observations(rows, 0.0, cap), clear)
        kept = len(observations(rows, m, cap)) if m is not None else 0
        if m is not None and kept > best[0]:
            best = (kept, m, cap)
    return best[1], best[2]


def bin_edges(obs: list[tuple[float, bool]]) -> list[float]:
    """Lower edges of the margin bins: the margins at :data:`QUANTILES` of the verifier's own
    verdicts (scale-free: the DTW templates' margins are log-mel distances, the embedding's
    cosine distances ~10x smaller; the same quantiles of each are comparable)."""
    margins = np.array(sorted(m for m, _ in obs))
    if not len(margins):
        return [0.0]
    return sorted({round(float(np.quantile(margins, q)), 4) for q in QUANTILES})


def binned(obs: list[tuple[float, bool]], edges: list[float]) -> list[tuple[str, int, int]]:
    edges = list(edges) + [float("inf")]
    out = []
    for lo, hi in zip(edges, edges[1:]):
        inside = [ok for m, ok in obs if lo <= m < hi]
        out.append((f"[{lo:g}, {hi:g})", len(inside), sum(inside)))
    return out


def held_out(rows: list[dict], default: float | None = None, cap: bool = False) -> list[dict]:
    """Per held-out speaker: the margin chosen on the other two (99 % of their verdicts right;
    ``cap``: with a distance cap too, :func:`clear_thresholds`), then on the held-out speaker's
    clips the verdicts kept at it, right, the non-calls ("zero", "one") named as a call, and the
    clips abstained; ``default``: the right/kept at that margin."""
    out = []
    for speaker in sorted({r["speaker"] for r in rows}):
        tune = [r for r in rows if r["speaker"] != speaker]
        test = [r for r in rows if r["speaker"] == speaker]
        m, d = clear_thresholds(tune) if cap else (lowest_clear(observations(tune)), float("inf"))
        kept = observations(test, m, d) if m is not None else []
        false_calls = sum(1 for r in test if not r["token"] and r["got"] is not None and m is not None
                          and r["margin"] >= m and r["distance"] <= d)
        out.append({"held_out": speaker, "min_margin": m, "max_distance": None if d == float("inf") else round(d, 4),
                    "clips": len(test), "kept": len(kept),
                    "right": sum(ok for _, ok in kept), "abstained": len(test) - len(kept),
                    "by_condition": {c: _right_at([r for r in test if r["condition"] == c], m, d) if m is not None
                                     else (0, 0) for c in CONDITIONS},
                    "non_calls": sum(1 for r in test if not r["token"]), "non_calls_named": false_calls,
                    "right_at_default": _right_at(test, default) if default is not None else None})
    return out


def _right_at(rows: list[dict], m: float, d: float = float("inf")) -> tuple[int, int]:
    """(right, kept) of ``rows``' verdicts at margin ``m`` and distance cap ``d``."""
    obs = observations(rows, m, d)
    return sum(ok for _, ok in obs), len(obs)


def report(name: str, rows: list[dict], default: float | None) -> list[dict]:
    """Print one verifier's bins, CPU and held-out figures; return the held-out rows (by margin
    alone, and by margin and a distance cap)."""
    edges = bin_edges(observations(rows))
    cpu = np.array([r["cpu_s"] for r in rows]) * 1000
    print(f"\n=== {name}: {len(rows)} verifications, CPU per verification median {np.median(cpu):.1f} ms, "
          f"p90 {np.quantile(cpu, 0.9):.1f} ms, total {cpu.sum() / 1000:.1f} s")
    print("margin bins: lower edges at the " + ", ".join(f"{q:.0%}" for q in QUANTILES)
          + " quantiles of its margins (all conditions)")
    for condition in CONDITIONS + ("all",):
        sub = [r for r in rows if condition in ("all", r["condition"])]
        print(f"  {condition}: margin bin      verdicts  right")
        for label, n, right in binned(observations(sub), edges):
            print(f"    {label:18s} {n:8d} {right:6d}" + (f"  {right / n:.1%}" if n else ""))
        print(f"    abstained (beyond max_distance): {sum(r['got'] is None for r in sub)} of {len(sub)}")
    both = {}
    for cap in (False, True):
        print(f"  leave-one-speaker-out: {'margin and distance cap' if cap else 'margin'} chosen on the other two "
              f"so that {CLEAR:.0%} of their verdicts are right:")
        out = both["margin_and_cap" if cap else "margin"] = held_out(rows, None if cap else default, cap)
        for h in out:
            line = (f"    held out {h['held_out']:14s} min_margin {h['min_margin']}"
                    + (f", max_distance {h['max_distance']}" if cap else "")
                    + f": kept {h['kept']} of {h['clips']}, right {h['right']}"
                    + (f" ({h['right'] / h['kept']:.1%})" if h["kept"] else "")
                    + f", non-calls named {h['non_calls_named']} of {h['non_calls']}, abstained {h['abstained']}"
                    + "; " + ", ".join(f"{c} {r}/{n}" for c, (r, n) in h["by_condition"].items()))
            if h["right_at_default"] is not None:
                right0, n0 = h["right_at_default"]
                line += f"; at {default}: right {right0} of {n0}"
            print(line)
        kept, right = sum(h["kept"] for h in out), sum(h["right"] for h in out)
        print(f"    all three held out: kept {kept} of {sum(h['clips'] for h in out)}, right {right}"
              + (f" ({right / kept:.1%})" if kept else ""))
    m, d = clear_thresholds(rows)
    print(f"  chosen on all three speakers (a default, not a held-out figure): min_margin {m}, "
          f"max_distance {round(d, 4)}; by margin alone: min_margin {lowest_clear(observations(rows))}")
    m0, d0 = shipped(name)
    right, kept = _right_at(rows, m0, d0)
    print(f"  at the verifier's defaults (min_margin {m0}, max_distance {d0}; chosen on these clips, not held out): "
          f"kept {kept} of {len(rows)}, right {right}" + (f" ({right / kept:.1%})" if kept else ""))
    out = both
    return out


def shipped(name: str) -> tuple[float, float]:
    """The ``min_margin`` and ``max_distance`` a verifier is built with outside this benchmark."""
    import dataclasses

    if name == "dtw":
        from audio.enroll import Enrollment as cls
    else:
        from audio.embedding import EmbeddingEnrollment as cls
    fields = {f.name: f.default for f in dataclasses.fields(cls)}
    return fields["min_margin"], fields["max_distance"]


#: the ways to combine the two engines that ``--verifier combined`` judges held out: which
#: thresholds make each engine *sure* (``dtw``: its margin alone, as shipped, or its margin and
#: a distance cap; the embedding: always its margin and cap), and whether a call both engines
#: lean to is accepted when neither is sure (``agree``)
COMBINATIONS = {
    "sure (dtw margin)": {"dtw_cap": False, "agree": False},
    "sure (dtw margin + cap)": {"dtw_cap": True, "agree": False},
    "sure + agree (dtw margin)": {"dtw_cap": False, "agree": True},
    "sure + agree (dtw margin + cap)": {"dtw_cap": True, "agree": True},
}
#: the relaxed margins the ``agree`` variants try: these quantiles of each engine's margins
AGREE_QUANTILES = tuple(np.round(np.arange(0.0, 0.95, 0.05), 3))


def paired(rows_dtw: list[dict], rows_emb: list[dict]) -> list[dict]:
    """One row per verification with both engines' verdicts (``dtw``/``embedding``: got,
    distance, margin), matched by speaker, file and condition."""
    emb = {(r["speaker"], r["file"], r["condition"]): r for r in rows_emb}
    out = []
    for r in rows_dtw:
        e = emb[(r["speaker"], r["file"], r["condition"])]
        out.append({"speaker": r["speaker"], "file": r["file"], "token": r["token"], "condition": r["condition"],
                    "dtw": r, "embedding": e})
    return out


def is_sure(v: dict, th: tuple[float, float]) -> bool:
    """Whether one engine's verdict names a call at its thresholds (min_margin, max_distance)."""
    return v["got"] is not None and v["margin"] >= th[0] and v["distance"] <= th[1]


def combine(row: dict, th: dict, agree: tuple[float, float] | None = None) -> tuple[str | None, str | None]:
    """(call, engine) of the combined verdict: the sure engine's call; None when neither is sure
    or both are and disagree — unless ``agree`` (relaxed margins, dtw's and the embedding's)
    and both engines lean to the same call at them (the embedding within its distance cap)."""
    sure = {name: is_sure(row[name], th[name]) for name in ("dtw", "embedding")}
    d, e = row["dtw"], row["embedding"]
    if sure["dtw"] and sure["embedding"]:
        return (d["got"], "both") if d["got"] == e["got"] else (None, "conflict")
    for name in ("embedding", "dtw"):
        if sure[name]:
            return row[name]["got"], name
    if agree is not None and d["got"] is not None and d["got"] == e["got"] and d["margin"] >= agree[0] \
            and e["margin"] >= agree[1] and e["distance"] <= th["embedding"][1]:
        return d["got"], "agree"
    return None, None


def _combined_counts(rows: list[dict], th: dict, agree=None) -> tuple[int, int]:
    """(kept, right) of the combined verdicts over ``rows``."""
    got = [(combine(r, th, agree)[0], r["token"]) for r in rows]
    kept = [g == t for g, t in got if g is not None]
    return len(kept), sum(kept)


def engine_thresholds(rows: list[dict], dtw_cap: bool) -> dict:
    """Each engine's (min_margin, max_distance) chosen on ``rows`` (99 % of its verdicts right)."""
    th = {}
    for name in ("dtw", "embedding"):
        sub = [r[name] for r in rows]
        if name == "embedding" or dtw_cap:
            m, d = clear_thresholds(sub)
        else:
            m, d = lowest_clear(observations(sub)), float("inf")
        th[name] = (float("inf") if m is None else m, d)
    return th


def agree_margins(rows: list[dict], th: dict) -> tuple[float, float] | None:
    """The relaxed (dtw, embedding) margins at which the combined verdicts over ``rows`` stay
    right at least :data:`CLEAR` of the time and keep the most (None: no relaxation does)."""
    grid = {name: sorted({float(np.quantile([r[name]["margin"] for r in rows if r[name]["got"] is not None], q))
                          for q in AGREE_QUANTILES}) for name in ("dtw", "embedding")}
    best, out = _combined_counts(rows, th)[0], None
    for md in grid["dtw"]:
        for me in grid["embedding"]:
            kept, right = _combined_counts(rows, th, (md, me))
            if kept > best and right >= CLEAR * kept:
                best, out = kept, (md, me)
    return out


def held_out_combined(rows: list[dict], dtw_cap: bool, agree: bool) -> list[dict]:
    """Per held-out speaker: the combined verdicts at each engine's thresholds (and the agree
    margins) chosen on the other two speakers; kept, right, non-calls named, who decided."""
    out = []
    for speaker in sorted({r["speaker"] for r in rows}):
        tune = [r for r in rows if r["speaker"] != speaker]
        test = [r for r in rows if r["speaker"] == speaker]
        th = engine_thresholds(tune, dtw_cap)
        ag = agree_margins(tune, th) if agree else None
        got = [(combine(r, th, ag), r) for r in test]
        kept = [(g, by, r) for (g, by), r in got if g is not None]
        by: dict[str, int] = {}
        for (_, b), _r in got:
            by[str(b)] = by.get(str(b), 0) + 1
        out.append({"held_out": speaker, "thresholds": {k: [None if x == float("inf") else x for x in v] for k, v in th.items()},
                    "agree": ag, "clips": len(test), "kept": len(kept),
                    "right": sum(g == r["token"] for g, _, r in kept),
                    "non_calls": sum(1 for r in test if not r["token"]),
                    "non_calls_named": sum(1 for _, _, r in kept if not r["token"]),
                    "by_condition": {c: (sum(g == r["token"] for g, _, r in kept if r["condition"] == c),
                                         sum(1 for _, _, r in kept if r["condition"] == c)) for c in CONDITIONS},
                    "by": by})
    return out


def shipped_combined(rows: list[dict]) -> tuple[int, int]:
    """(kept, right) of :func:`audio.voices.decide` (what the hearing runs) on each engine's
    verdict at its shipped thresholds."""
    from audio.enroll import Verdict
    from audio.voices import decide

    def verdict(v: dict, name: str) -> Verdict:
        tokens = tuple(v["got"].split()) if is_sure(v, shipped(name)) else None
        return Verdict(tokens, v["distance"], v["margin"], tuple(v["got"].split()) if v["got"] else None, by=name)

    got = [(decide(verdict(r["dtw"], "dtw"), verdict(r["embedding"], "embedding")).tokens, r["token"]) for r in rows]
    kept = [" ".join(g) == t for g, t in got if g is not None]
    return len(kept), sum(kept)


def report_combined(rows: list[dict]) -> dict:
    """Print the held-out figures of every way to combine (:data:`COMBINATIONS`) and the
    combined verifier at the shipped thresholds; return the held-out rows."""
    print(f"\n=== combined: {len(rows)} verifications; each engine sure at its own thresholds, chosen on the "
          f"other two speakers ({CLEAR:.0%} of their verdicts right); both sure and disagreeing: abstain")
    results = {}
    for label, how in COMBINATIONS.items():
        out = results[label] = held_out_combined(rows, **how)
        print(f"  {label}:")
        for h in out:
            th = ", ".join(f"{k} {v[0]}/{'no cap' if v[1] is None else round(v[1], 4)}" for k, v in h["thresholds"].items())
            print(f"    held out {h['held_out']:14s} ({th}" + (f"; agree at {h['agree'][0]:g}/{h['agree'][1]:g}"
                                                                 if h["agree"] else "") + ")"
                  + f": kept {h['kept']} of {h['clips']}, right {h['right']}"
                  + (f" ({h['right'] / h['kept']:.1%})" if h["kept"] else "")
                  + f", non-calls named {h['non_calls_named']} of {h['non_calls']}; "
                  + ", ".join(f"{c} {r}/{n}" for c, (r, n) in h["by_condition"].items())
                  + "; by " + ", ".join(f"{k} {v}" for k, v in sorted(h["by"].items())))
        kept, right = sum(h["kept"] for h in out), sum(h["right"] for h in out)
        print(f"    all three held out: kept {kept} of {sum(h['clips'] for h in out)}, right {right}"
              + (f" ({right / kept:.1%})" if kept else ""))
    th = {name: shipped(name) for name in ("dtw", "embedding")}
    kept, right = shipped_combined(rows)
    print(f"  at the engines' shipped thresholds, combined by audio.voices.decide (dtw {th['dtw'][0]}/{th['dtw'][1]}, "
          f"embedding {th['embedding'][0]}/{th['embedding'][1]}; the embedding's chosen on these clips, not held out): "
          f"kept {kept} of {len(rows)}, right {right}" + (f" ({right / kept:.1%})" if kept else ""))
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--takes", type=int, default=2, help="takes of each call enrolled per speaker (default 2)")
    ap.add_argument("--verifier", choices=("dtw", "embedding", "both", "combined"), default="dtw",
                    help="the log-mel DTW templates (audio.enroll), the speech embedding (audio.embedding), "
                         "both side by side, or both and the two combined (audio.voices)")
    ap.add_argument("--embedding", action="store_const", const="both", dest="verifier",
                    help="same as --verifier both")
    ap.add_argument("--compare", choices=("dtw", "mean"), default=None,
                    help="the embedding's comparison (default: audio.embedding.COMPARE)")
    ap.add_argument("--pad", type=float, default=None, help="the embedding's padding in s (default: audio.embedding.PAD_S)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if not (SPEECH / "labels.csv").is_file():
        print(f"skipped: no real speech at {SPEECH} (../shared/data/speech)")
        return 0
    sys.path.insert(0, str(ROOT))
    t0, load0 = time.time(), os.getloadavg()
    names = ("dtw", "embedding") if a.verifier in ("both", "combined") else (a.verifier,)
    print(f"enrolled voices on real speech ({a.takes} takes enrolled per call, {', '.join(CONDITIONS)}); "
          f"load average at start {' '.join(f'{x:.2f}' for x in load0)} (2 cores)")
    results, all_rows = {}, {}
    for name in names:
        options = {"compare": a.compare, "pad_s": a.pad} if name == "embedding" else {}
        if name == "embedding":
            from audio import embedding

            if not embedding.available():
                print(f"\n=== embedding: skipped: {embedding.PACKAGE_HINT}")
                continue
            print(f"embedding: compare {a.compare or embedding.COMPARE}, pad {embedding.PAD_S if a.pad is None else a.pad} s")
        rows = all_rows[name] = verdicts(a.takes, name, **options)
        results[name] = report(name, rows, DEFAULT_MARGIN.get(name))
    if a.verifier == "combined" and "embedding" in all_rows:
        results["combined"] = report_combined(paired(all_rows["dtw"], all_rows["embedding"]))
    print(f"\nload average at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {time.time() - t0:.0f} s")
    if a.json:
        print(json.dumps({"held_out": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

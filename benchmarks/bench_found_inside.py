"""The word found inside its span, on real voices held out from every setting (issue 31 item 6):
does the search (:mod:`audio.found_inside`) find the right call where babble was taken into the
utterance before the word, and does it ever find a wrong one?

    python benchmarks/bench_found_inside.py [--lead 0,0.1,0.2] [--json]

Material, read in place: ``../shared/data/speech``, the FSDD speakers' digits as
``bench_enrollment.py`` uses them (each speaker enrolled with takes 0-1 of "two" … "nine", both
engines as the referee enrols a player; every other take is a shout, and their "zero" and
"one" are no call: any call named on them is wrong). Each shout is laid on one channel under
babble 10 dB below its active level (``bench_vad.py``'s babble: six Japanese voices of the same
folder, seeded) with 1 s of babble before it, and handed to the listener as an utterance that
starts ``--lead`` seconds early (the babble before the word taken in, as the onset detector did
on the demo under babble: 41-248 ms) and ends at the word's end. Per lead: the whole span's
verdict (right, wrong, abstained) and, where it abstained, what the search found (right,
wrong, nothing) and how far its onset lies from the word's trimmed start (ms, signed); where the
rise found nothing, what the free-start search (:mod:`audio.found_start`) found (``by`` "free").
``--tail S``: the span handed S s past the word's end (the detector held open by the babble
after it); ``--no-free-end``: ``FoundParams.free_end`` off. ``--opened``: the channel quiet
before the handed span (the babble starts with it: a burst that opened the utterance, nothing
for the rise to rise out of).

No setting is chosen here: every threshold of the search was fixed a priori (its docstring).
Nothing derived from the clips is written anywhere.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

SNR_DB = 10.0
BEFORE_S = 1.0
SEED = 31


def reader(speaker: str, verifier, x: np.ndarray, rate: int):
    """``(samples, read)`` for :func:`audio.found_inside.find_inside` over one channel ``x``:
    a span read by the enrolled voices as the listener reads one (``ListenParams.
    verify_pre_roll_s`` before it, the noise before that, the post-roll after it)."""
    from audio.listen import ListenParams

    pre = int(ListenParams().verify_pre_roll_s * rate)
    noise = verifier.noise

    def samples(channel: int, start: int, end: int) -> np.ndarray:
        return x[max(0, start) : max(0, end)]

    def read(seg):
        a = max(seg.start - pre, 0)
        said = (x[a : seg.end], x[max(0, a - int(noise.noise_s * rate)) : a],
                x[seg.end : seg.end + int(noise.post_roll_s * rate)])
        feats = verifier.features(*said)
        return verifier.verify(speaker, feats=feats), feats

    return samples, read


def group_b(folder: Path) -> tuple[list[dict], object]:
    """The rows of nicolas, theo and yweweler (FSDD speakers only the mirror has, ``$FSDD_MIRROR``;
    never used to design the search): takes 0-9 of every digit shouted ("zero" and "one" no
    call), takes 10-11 of "two" … "nine" enrolled, as ``table_sim --scenarios outside``; and
    their reader (16 kHz, the hearing's rate). The clips are written to ``folder`` (temporary)."""
    import table_sim as ts

    mirror = ts.fsdd_dir(None)
    rows = [{"speaker": f"fsdd:{who}", "file": str(ts.fsdd_clip(mirror, who, d, k, folder)),
             "token": str(d) if d >= 2 else "", "enroll": d >= 2 and k in ts.OUTSIDE_ENROLL_TAKES}
            for who in ts.FSDD_MIRROR_ONLY for d in range(10)
            for k in ts.OUTSIDE_SHOUT_TAKES + (ts.OUTSIDE_ENROLL_TAKES if d >= 2 else ())]
    return rows, lambda r: (ts.read_clip(Path(r["file"])), ts.RATE)


def shout_rows(leads: list[float], opened: bool = False, tail: float = 0.0, found=None,
               group: str = "a") -> list[dict]:
    from audio.embedding import EmbeddingEnrollment
    from audio.enroll import Enrollment, trim
    from audio.found_inside import FoundParams, find_inside
    from audio.found_start import find_from_start
    from audio.listen import ListenParams
    from audio.onset import Segment
    from audio.voices import CombinedEnrollment
    import bench_enrollment as be
    import bench_vad as bv

    if group == "b":
        import tempfile

        rows, read_word = group_b(Path(tempfile.mkdtemp(prefix="found-b-")))
    else:
        rows = [dict(r, enroll=bool(r["token"]) and r["take"] < 2) for r in be.clips()]
        read_word = lambda r: be.read(be.SPEECH / r["file"])  # noqa: E731
    found_p = found or FoundParams()
    rng = np.random.default_rng(SEED)
    ja = bv.rows(("other", "sentence"), "ja")
    talkers = [bv.read_clip(be.SPEECH / ja[i]["file"]) for i in rng.choice(len(ja), bv.BABBLE_TALKERS, replace=False)]
    out = []
    for speaker in sorted({r["speaker"] for r in rows}):
        mine = [r for r in rows if r["speaker"] == speaker]
        _, rate = read_word(mine[0])
        verifier = CombinedEnrollment(Enrollment(rate), EmbeddingEnrollment(rate))
        for r in mine:
            if r["enroll"]:
                verifier.add(speaker, (r["token"],), trim(read_word(r)[0], rate))
        for r in mine:
            if r["enroll"]:
                continue
            word = trim(read_word(r)[0], rate)
            level = bv.active_rms(word) * 10 ** (-SNR_DB / 20)
            a = int(BEFORE_S * rate)
            n = a + len(word) + int((0.3 + tail) * rate)
            key = r["file"] if group == "a" else Path(r["file"]).name  # (b: in a temporary folder)
            x = bv.babble(n, np.random.default_rng(be.hash_seed(key, 7)), talkers) * level
            x[a : a + len(word)] += word
            for lead in leads:
                seg = Segment(0, a - int(lead * rate), a + len(word) + int(tail * rate), rate)
                y = x.copy()
                if opened:
                    y[: seg.start] = 0.0
                samples, read = reader(speaker, verifier, y, rate)
                whole, _ = read(seg)
                row = {"speaker": speaker, "file": r["file"], "token": r["token"], "lead": lead,
                       "whole": " ".join(whole.tokens) if whole.tokens else None, "found": None, "onset_ms": None,
                       "by": None}
                if whole.tokens is None and not whole.conflict:
                    found = find_inside(seg, samples, read, ListenParams().own_db, found_p)
                    row["by"] = "rise"
                    if found is None:
                        found = find_from_start(seg, samples, read, verifier.templates[speaker], rate,
                                                ListenParams().own_db, found_p)
                        row["by"] = "free"
                    if found is not None:
                        row["found"] = " ".join(found[1].tokens)
                        row["onset_ms"] = round((found[0].start - a) / rate * 1000, 1)
                out.append(row)
    return out


def spread(values: list[float]) -> list[float] | None:
    """Median, 10th and 90th percentile (None: no values)."""
    return [float(np.percentile(values, q)) for q in (50, 10, 90)] if values else None


def summary(rows: list[dict]) -> list[dict]:
    table = []
    for lead in sorted({r["lead"] for r in rows}):
        mine = [r for r in rows if r["lead"] == lead]
        calls = [r for r in mine if r["token"]]
        other = [r for r in mine if not r["token"]]
        abst = [r for r in calls if r["whole"] is None]
        found = [r for r in abst if r["found"]]
        onsets = [r["onset_ms"] for r in found]
        table.append({
            "lead_s": lead, "calls": len(calls),
            "whole_right": sum(r["whole"] == r["token"] for r in calls),
            "whole_wrong": sum(r["whole"] is not None and r["whole"] != r["token"] for r in calls),
            "abstained": len(abst), "found_right": sum(r["found"] == r["token"] for r in found),
            "found_wrong": sum(r["found"] != r["token"] for r in found),
            "non_calls": len(other), "non_calls_whole_named": sum(r["whole"] is not None for r in other),
            "non_calls_found_named": sum(r["found"] is not None for r in other),
            "free_right_wrong": (sum(r["found"] == r["token"] for r in found if r["by"] == "free"),
                                 sum(r["found"] != r["token"] for r in found if r["by"] == "free")),
            "free_non_calls_named": sum(r["found"] is not None and r["by"] == "free" for r in other),
            "free_onset_ms_median_p10_p90": spread([r["onset_ms"] for r in found if r["by"] == "free"]),
            "per_speaker_free_right_wrong": {s.split(":")[-1]: (
                sum(r["found"] == r["token"] for r in found if r["speaker"] == s and r["by"] == "free"),
                sum(r["found"] != r["token"] for r in found if r["speaker"] == s and r["by"] == "free"))
                for s in sorted({r["speaker"] for r in mine})},
            "onset_ms_median": float(np.median(onsets)) if onsets else None,
            "onset_ms_p10_p90": [float(np.percentile(onsets, 10)), float(np.percentile(onsets, 90))] if onsets else None,
            "per_speaker_found_right_wrong": {s.split(":")[-1]: (sum(r["found"] == r["token"] for r in found if r["speaker"] == s),
                                                                 sum(r["found"] != r["token"] for r in found if r["speaker"] == s))
                                              for s in sorted({r["speaker"] for r in mine})},
        })
    return table


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lead", default="0,0.1,0.2", help="how early (s) the handed span starts, comma-separated")
    ap.add_argument("--opened", action="store_true", help="the channel quiet before the span (the babble opens it)")
    ap.add_argument("--tail", type=float, default=0.0, help="the span handed this long (s) past the word's end (babble)")
    ap.add_argument("--no-free-end", action="store_true", help="FoundParams.free_end off")
    ap.add_argument("--group", choices=("a", "b"), default="a",
                    help="a: george, jackson, lucas (../shared); b: nicolas, theo, yweweler ($FSDD_MIRROR)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from audio.found_inside import FoundParams

    table = summary(shout_rows([float(v) for v in args.lead.split(",")], args.opened, args.tail,
                               FoundParams(free_end=not args.no_free_end), args.group))
    for row in table:
        print(row)
    if args.json:
        print(json.dumps(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

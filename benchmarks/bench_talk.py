"""Real talk heard as a call: every clip, every gate it passed (issue 31: false alarms ≤ 3 %).

    python benchmarks/bench_talk.py --out FILE.jsonl [--kinds talk,digits] [--conds quiet,white10,pink10] [--limit N]

Each clip of ``../shared/data/speech`` (read in place) goes through the hearing the pipeline
uses, as ``bench_hearing.py``'s ``measure_speech`` does (one seat's channel, IKATAKO co-op, no
enrolled voice; the same padding, hiss and noise seeds), and one JSON line per clip and
condition is written: the clip's speaker/source and text, the shouts heard (words, ``conf``,
whether the judge acts on it: ``conf`` ≥ ``Clarity.word_conf``) and, for every utterance
whose words were read, the gates' scores (prompted/unprompted log-probability, lift, "goes
on", no-speech, the look that stood), the segment's length and the model's free transcription
of the look that stood (greedy, unprompted, 12 tokens, its log-probability; measured here,
not by the listener). ``talk``: Japanese words and sentences and English "zero"; ``digits``:
English two..nine (the tuning speakers george, jackson, lucas).

Nothing is written into the repository: ``--out`` names a file outside it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_hearing as bh  # noqa: E402
import noises  # noqa: E402

FREE_TOKENS = 12


def channel(row: dict, cond: str, seed: int) -> np.ndarray:
    """The clip as bench_hearing lays it on a seat's channel: quiet, white or pink 10 dB under it."""
    if cond in ("quiet", "white10"):
        return bh.seat_channel(row, None if cond == "quiet" else 10.0, seed)[0]
    x, _ = bh.seat_channel(row, None, seed)  # hiss only, then pink 10 dB under the speech
    rng = np.random.default_rng(seed + 10_000)
    return x + noises.pink(len(x), rng) * bh.speech_level(x) * 10 ** (-10 / 20)


def look_encoding(rec, window: np.ndarray, view: int | None):
    """The encoder output of the look whose call stood (1 / None: the first look)."""
    if not view or view == 1:
        return rec.encode(window, bh.RATE)
    return rec.encode_view(window, bh.RATE, rec.p.second_views[view - 2])


def free_text(rec, enc) -> tuple[str, float, int, bool]:
    """The model's free (unprompted, greedy) transcription: text, summed log-probability, tokens,
    and whether it ended within :data:`FREE_TOKENS`."""
    from audio.whisper_calls import generate_features

    plain = rec.plain_prompt
    r = rec.model.generate(generate_features([(enc, 1)]), [plain], beam_size=1, length_penalty=0.0,
                           max_length=len(plain) + FREE_TOKENS, return_scores=True)[0]
    ids = r.sequences_ids[0]
    body = [i for i in ids if i < rec.eot_id]
    return rec.tok.decode(body).strip(), float(r.scores[0]), len(body), len(body) < FREE_TOKENS


def every_look(rec, window: np.ndarray) -> list[dict]:
    """Every look the recognizer may take at ``window`` (the first, then ``second_views`` where the
    room is noisy), each judged with the "goes on" gate off: its call, whether it passes every
    other gate, and how much the model expects the speech to go on after it."""
    import dataclasses

    from audio.whisper import WhisperRecognizer

    relaxed = WhisperRecognizer(rec.vocab, rec.lang, dataclasses.replace(rec.p, max_goes_on=None))
    looks = [(rec.encode(window, bh.RATE), "first")]
    looks += [(rec.encode_view(window, bh.RATE, v), v) for v in rec.p.second_views]
    out = []
    for n, (enc, view) in enumerate(looks):
        if enc is None:
            continue
        best, sure, extra = relaxed.judge_looks([enc], view)[0][:3]
        out.append({"look": n + 1, "call": list(best.tokens), "sure": sure, "goes_on": extra.get("goes_on"),
                    "lift": extra.get("lift")})
    return out


def utterance(rec, seg, window, heard, looks: bool = False) -> dict:
    ex = dict(getattr(heard, "extra", {}))
    u = {"t": round(seg.t, 3), "t_end": round(seg.t_end, 3), "dur": round(seg.t_end - seg.t, 3),
         "window_s": round(len(window) / bh.RATE, 3), "words": list(heard.words), "conf": heard.conf,
         "best": list(ex.get("below_conf", [])) or list(heard.parsed.tokens)}
    for key in ("call_logprob", "unprompted_logprob", "lift", "goes_on", "no_speech", "view", "rejected", "speech"):
        if key in ex:
            u[key] = ex[key]
    u["views"] = {k: v for k, v in ex.items() if k.startswith("view") and k != "view"}
    if getattr(rec, "p", None) is not None and "call_logprob" in ex:
        text, score, n, ended = free_text(rec, look_encoding(rec, window, ex.get("view")))
        u["free"] = {"text": text, "logprob": round(score, 3), "tokens": n, "ended": ended}
    if looks and getattr(rec, "p", None) is not None:
        u["looks"] = every_look(rec, window)
    return u


def run(kinds: list[str], conds: list[str], limit: int | None, out: Path, word_conf: float, looks: bool) -> None:
    rows = bh.speech_rows()
    sel = {"talk": [r for r in rows if r["kind"] in ("other", "sentence") and r["text"] != "one"],
           "digits": [r for r in rows if r["kind"] == "keyword"]}
    listener_for = bh.seat_listeners()
    with open(out, "a", encoding="utf-8") as f:
        for kind in kinds:
            clips = sel[kind][:: max(1, len(sel[kind]) // limit)] if limit else sel[kind]
            for cond in conds:
                t0 = time.time()
                for i, r in enumerate(clips):
                    x = channel(r, cond, seed=i)  # bench_hearing's seeds: clip i of its set
                    seen: list = []
                    events, _, _ = bh.hear_clip(listener_for(r["lang"]), x, [], seen)
                    listener = seen[0]
                    utts = [utterance(listener.recognizer, *s, looks=looks) for s in seen[1:]]
                    shouts = [{"words": e["words"], "conf": e.get("conf"),
                               "acted": e.get("conf") is None or e["conf"] >= word_conf, "t": e["t"]}
                              for e in events if e.get("type") == "shout" and e.get("words")]
                    f.write(json.dumps({"kind": kind, "cond": cond, "file": r["file"], "speaker": r["speaker"],
                                        "lang": r["lang"], "text": r["text"], "token": r["token"],
                                        "half": bh.half_of(r["file"]), "shouts": shouts, "utterances": utts},
                                       ensure_ascii=False) + "\n")
                    f.flush()
                print(f"{kind} {cond}: {len(clips)} clips, {time.time() - t0:.0f} s, load "
                      f"{' '.join(f'{v:.1f}' for v in os.getloadavg())}", flush=True)


def main(argv=None) -> int:
    from referee.judging.unclear import WORD_CONF

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path, help="JSON lines written here (appended; outside the repository)")
    ap.add_argument("--kinds", default="talk", help="talk, digits or both (comma-separated)")
    ap.add_argument("--conds", default="quiet,white10", help="quiet, white10, pink10 (comma-separated)")
    ap.add_argument("--limit", type=int, default=None, help="about N clips per set (a quick look)")
    ap.add_argument("--looks", action="store_true",
                    help="every look of every utterance judged again with the 'goes on' gate off (slow)")
    a = ap.parse_args(argv)
    print(f"start {time.strftime('%H:%M:%S', time.gmtime())} UTC, load {' '.join(f'{v:.1f}' for v in os.getloadavg())}",
          flush=True)
    run(a.kinds.split(","), a.conds.split(","), a.limit, a.out, WORD_CONF, a.looks)
    print(f"end {time.strftime('%H:%M:%S', time.gmtime())} UTC", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A cut-short word read whole, on real voices held out from its design (issue 31 item 6,
stop 50): when the trim has cut a seat's word in a reverberant room and the whole span is read
(:mod:`audio.read_whole`), is the call it takes right, and does the neighbour test stop the
whole span's call where it is the neighbour's word leaking in?

    python benchmarks/bench_read_whole.py [--offset 0.1,0.3] [--speakers shared|mirror] [--json]

Material, read in place: ``../shared/data/speech``, the FSDD speakers' digits as
``bench_enrollment.py`` uses them; each speaker enrolled with takes 0-1 of "two" … "nine", both
engines, and those takes also heard through :data:`audio.rooms.ROOMS` (as the referee enrols
in a room the calibration did not hear). Every other take is a seat's shout (their "zero" and
"one" no call: any call taken on them is wrong). A two-seat table in a room of RT60 0.6 s
(:func:`audio.rooms.response`, 8 dB direct to reverberant, seeds 201 and 202: one response per
microphone, not :data:`audio.rooms.ROOMS`' seeds): the seat's word on microphone 0, a
neighbour (the next speaker in name order) starting ``--offset`` s after it on microphone 1,
each leaking into the other's microphone 10 dB down (the demo's leak left uncancelled in such
a room, ``demix.session_leaks_db``), both words at one RMS. The neighbour says either **another
digit** (its take of the seat's digit + 1, cyclic) or **the same digit**.

Per case, the readings of the rule, as the listener takes them (the cut part: to 30 ms after
the neighbour's start, where the trim would cut, or the word's end); the seat's whole span
(from its word's start to 0.15 s after the later word's end on microphone 0, the detector's
end after its tail) by the seat's enrolled voices, and the neighbour's channel over the same
span by the neighbour's. Counted: the whole span's call right / wrong (undecided the rest), and
per rule (:data:`RULES`) the calls taken right / wrong, per seat speaker.
The trim and the detector are not run: every case is read as if the trim had cut it short.

No setting is chosen here (the rule has none of its own); the rule's *design* was (the cut test
added after ``whole`` made wrong calls on george, jackson and lucas; docs/hearing.md, stop 50). Nothing derived from the clips is
written anywhere.
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

LEAK_DB = -10.0
RT60_S, DRR_DB, SEEDS = 0.6, 8.0, (201, 202)
BEFORE_S, AFTER_S, END_S = 1.0, 1.0, 0.15
#: where the trim cuts: 30 ms (``audio.trim.TAIL_S``) after the neighbour's start (its leak
#: takes the seat's dominance there), or the word's end
CUT_S = 0.03
DIGITS = ("2", "3", "4", "5", "6", "7", "8", "9")  # the calls, as labels.csv spells them


def enrolled(rows, rate):
    """Both engines, each speaker's takes 0-1 of the calls, and those takes through the rooms."""
    from audio.embedding import EmbeddingEnrollment
    from audio.enroll import Enrollment, trim
    from audio.rooms import reverberant
    from audio.voices import CombinedEnrollment
    import bench_enrollment as be

    verifier = CombinedEnrollment(Enrollment(rate), EmbeddingEnrollment(rate))
    for r in rows:
        if r["token"] and r["take"] < 2:
            word = trim(be.read(be.SPEECH / r["file"])[0], rate)
            for heard in [word, *reverberant(word, rate)]:
                verifier.add(r["speaker"], (r["token"],), np.asarray(heard, np.float64))
    return verifier


def table(own: np.ndarray, other: np.ndarray, offset: int, rate: int) -> tuple[np.ndarray, int, int]:
    """``(channels, start, end)``: the two microphones, the seat's word's start and the whole
    span's end (0.15 s after the later word's end)."""
    from scipy.signal import fftconvolve

    from audio.rooms import RoomParams, response

    a = int(BEFORE_S * rate)
    n = a + max(len(own), offset + len(other)) + int(AFTER_S * rate)
    dry = np.zeros((n, 2))
    dry[a : a + len(own), 0] += own
    dry[a + offset : a + offset + len(other), 1] += other
    leak = 10 ** (LEAK_DB / 20)
    mics = np.stack([dry[:, 0] + leak * dry[:, 1], dry[:, 1] + leak * dry[:, 0]], axis=1)
    x = np.stack([fftconvolve(mics[:, k], response(RoomParams(RT60_S, DRR_DB, SEEDS[k]), rate))[:n]
                  for k in range(2)], axis=1)
    x += np.random.default_rng(7).standard_normal(x.shape) * 1e-4  # a microphone's own hiss
    return x, a, a + max(len(own), offset + len(other)) + int(END_S * rate)


def read(verifier, speaker: str, x: np.ndarray, start: int, end: int, rate: int):
    """The enrolled voices' verdict of ``x[start:end]`` as the listener reads a span."""
    from audio.listen import ListenParams

    a = max(start - int(ListenParams().verify_pre_roll_s * rate), 0)
    noise = verifier.noise
    said = (x[a:end], x[max(0, a - int(noise.noise_s * rate)) : a], x[end : end + int(noise.post_roll_s * rate)])
    return verifier.verify(speaker, feats=verifier.features(*said))


def mirror_rows(folder: Path) -> list[dict]:
    """nicolas's, theo's and yweweler's clips from the FSDD mirror (``$FSDD_MIRROR``; written
    into ``folder``, a temporary folder), as :func:`bench_enrollment.clips` gives the others:
    their takes 0-9 of each digit, "zero" and "one" no call."""
    import table_sim as ts

    mirror = ts.fsdd_dir(None)
    if mirror is None:
        raise SystemExit(f"--speakers mirror: set ${ts.FSDD_ENV} to the FSDD mirror")
    return [{"speaker": f"fsdd:{who}", "file": str(ts.fsdd_clip(mirror, who, d, k, folder)),
             "token": str(d) if d >= 2 else "", "take": k}
            for who in ts.FSDD_MIRROR_ONLY for d in range(10) for k in range(10)]


def speaker_pairs(rows: list[dict]):
    """Each speaker's shouts (the non-calls, and the calls' takes from the third on: the first two
    are enrolled) as ``(speaker, neighbour, row, theirs)``: the neighbour is the next speaker in
    name order, ``theirs`` their calls by ``(token, take)``."""
    speakers = sorted({r["speaker"] for r in rows})
    shouts = {s: [r for r in rows if r["speaker"] == s and not (r["token"] and r["take"] < 2)] for s in speakers}
    for i, speaker in enumerate(speakers):
        neighbour = speakers[(i + 1) % len(speakers)]
        theirs = {(r["token"], r["take"]): r for r in shouts[neighbour] if r["token"]}
        for r in shouts[speaker]:
            yield speaker, neighbour, r, theirs


def neighbour_word(theirs: dict, token: str, take: int, own: np.ndarray, rate: int) -> np.ndarray:
    """The neighbour's take of ``token`` (the same take number, else their third), trimmed, at the
    RMS of the seat's own word ``own``."""
    from audio.enroll import trim
    import bench_enrollment as be

    other_row = theirs.get((token, take)) or theirs.get((token, 2))
    other = trim(be.read(be.SPEECH / other_row["file"])[0], rate)
    other *= np.sqrt(np.mean(own ** 2) / max(np.mean(other ** 2), 1e-20))
    return other


def case_rows(offsets: list[float], rows: list[dict]) -> list[dict]:
    from audio.enroll import trim
    from audio.read_whole import contains_cut
    import bench_enrollment as be

    rate = be.read(be.SPEECH / rows[0]["file"])[1]
    verifier = enrolled(rows, rate)
    out = []
    for speaker, neighbour, r, theirs in speaker_pairs(rows):
        own = trim(be.read(be.SPEECH / r["file"])[0], rate)
        k = DIGITS.index(r["token"]) if r["token"] else r["take"] % len(DIGITS)
        for kind, token in (("another", DIGITS[(k + 1) % len(DIGITS)]), ("same", r["token"])):
            if not token:
                continue  # a non-call said by the seat: only "another" digit beside it
            other = neighbour_word(theirs, token, r["take"], own, rate)
            for offset in offsets:
                x, a, end = table(own, other, int(offset * rate), rate)
                whole = read(verifier, speaker, x[:, 0], a, end, rate)
                near = read(verifier, neighbour, x[:, 1], a, end, rate)
                cut = read(verifier, speaker, x[:, 0], a, min(a + int((offset + CUT_S) * rate), a + len(own)), rate)
                call = whole.tokens
                out.append({"speaker": speaker, "file": r["file"], "token": r["token"] or None, "kind": kind,
                            "offset": offset, "whole": " ".join(call) if call else None, "by": whole.by,
                            "cut": " ".join(cut.tokens) if cut.tokens else None,
                            "cut_leans": " ".join(cut.nearest) if cut.nearest else None,
                            "contains_cut": call is not None and contains_cut(whole, cut),
                            "neighbour_says": call is not None and call in (near.tokens, near.nearest)})
    return out


#: what the listener takes of a cut-short word, per rule: ``today`` (before stop 50: the cut
#: span's call when the whole span's is the same, else unclear); ``whole`` (the whole span's
#: call, decided, no neighbour naming or leaning to it: tried, dropped for wrong calls);
#: ``whole+both`` (... both engines sure of it); ``whole+leans`` (``whole`` and the cut span
#: names or leans to the same call, :func:`audio.read_whole.contains_cut`). The listener (stop
#: 50) takes ``whole+leans|today``: that rule's call, else today's
RULES = {
    "today": lambda r: r["cut"] if r["cut"] is not None and r["cut"] == r["whole"] else None,
    "whole": lambda r: r["whole"] if r["whole"] and not r["neighbour_says"] else None,
    "whole+both": lambda r: r["whole"] if r["whole"] and not r["neighbour_says"] and r["by"] == "both" else None,
    "whole+leans": lambda r: r["whole"] if r["whole"] and not r["neighbour_says"] and r["contains_cut"] else None,
}
#: what the listener then takes: the rule's call, else today's
RULES.update({f"{name}|today": (lambda rule: lambda r: rule(r) or RULES["today"](r))(RULES[name])
              for name in ("whole", "whole+leans")})


def summary(rows: list[dict]) -> list[dict]:
    table_rows = []
    for kind in ("another", "same"):
        for offset in sorted({r["offset"] for r in rows}):
            mine = [r for r in rows if r["kind"] == kind and r["offset"] == offset]
            row = {"neighbour": kind, "offset_s": offset, "cases": len(mine),
                   "non_calls": sum(r["token"] is None for r in mine),
                   "whole_right": sum(r["whole"] == r["token"] for r in mine),
                   "whole_wrong": sum(r["whole"] is not None and r["whole"] != r["token"] for r in mine)}
            for name, rule in RULES.items():
                taken = [(r, rule(r)) for r in mine if rule(r) is not None]
                row[name] = {s.split(":")[-1]: (sum(c == r["token"] for r, c in taken if r["speaker"] == s),
                                                sum(c != r["token"] for r, c in taken if r["speaker"] == s))
                             for s in sorted({r["speaker"] for r in mine})}
                row[name + "_wrong_files"] = sorted(f"{r['file']} as {c}" for r, c in taken if c != r["token"])
            table_rows.append(row)
    return table_rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--offset", default="0.1,0.3", help="the neighbour's start after the seat's (s), comma-separated")
    ap.add_argument("--speakers", choices=("shared", "mirror"), default="shared",
                    help="george, jackson, lucas (../shared/data/speech) or nicolas, theo, yweweler ($FSDD_MIRROR)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    import tempfile

    import bench_enrollment as be

    with tempfile.TemporaryDirectory() as tmp:
        rows = be.clips() if args.speakers == "shared" else mirror_rows(Path(tmp))
        table_rows = summary(case_rows([float(v) for v in args.offset.split(",")], rows))
    for row in table_rows:
        print(row)
    if args.json:
        print(json.dumps(table_rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Is each observation as sure as it says? Accuracy per confidence bin, and the threshold
that makes "clear" mean "right at least 99 % of the time", chosen on some speakers/photos
and reported on the others (issue 30, item 1).

    python benchmarks/bench_confidence.py [--senses words,hands,cards] [--limit N] [--show-wrong]

Real material only, read in place from ``../shared/data`` (searched upward from the repo, as
``bench_hearing.py`` does; skipped with a message when absent). Prints, with counts, the load
average at start and end and the run time:

* **words** — every keyword clip (English digits two..nine, 3 speakers x 10 takes) and every
  clip that is no game word (``other``, ``sentence``; "one" is the co-op total 1, so not
  counted) heard through the pipeline's hearing (``bench_hearing.seat_listeners``: one seat's
  channel, IKATAKO co-op), in quiet and with white noise 10 dB below the speech. An
  observation is a ``shout`` event with words: right when the words are exactly the clip's
  token; any shout with words on a no-game-word clip is a wrong observation (a false alarm).
  Folds: leave one keyword speaker out; the no-game-word clips of an FSDD speaker go with that
  speaker, the others to one of the three folds by a hash of the file name.
* **hands** — each labelled person's left and right arm (ambiguous labels skipped), pose on the
  person box as the seat crop (static mode, as ``vision.bench.labelled_poses``), "raised" by
  the pipeline's own rule (``Landmarks.raised``), conf = the wrist's visibility (a hand
  event's ``conf``); right when it matches the label. As taken and as a worse camera would
  give the photo (:data:`HAND_VIEWS`: webcam size and JPEG, far and small, a dim room).
  Folds: leave one photo out (every view of it together). An arm of a person pose did not
  find gives no observation (the pipeline says "not seen", no conf); counted.
* **cards** — each query photo of the two decks with references, recognised
  (``vision.cards.recognise``) with its own deck's references, as taken and in the views of
  ``bench_seeing.VIEWS`` (angles, webcam); an accepted match (``ok``) is an observation, conf =
  its score (a ``card`` event's ``conf``); right when the code is one of the photo's cards
  (once per true card). Uncertain matches give no card event (a warning): counted, not
  observations. Folds: leave one photo out (every view of a photo together). And a card the
  references lack (each card's own code left out, as taken and at 45 degrees): a code read
  that is no card of the photo is a wrong observation.

For each fold the threshold is the lowest confidence whose accuracy on the *other* folds'
observations is at least 99 % (:func:`lowest_threshold`); the held-out fold is then reported
above it (right / clear) and what it abstained on. Only the held-out figures are headlines.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT, Path(__file__).resolve().parent):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

#: the confidence bins of the tables: [0, .5), [.5, .7), ... [.95, 1]
BINS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0)
#: "clear" means right at least this often (issue 30)
TARGET = 0.99
#: the fixed thresholds of the descriptive per-fold table (and the judge's default word_conf)
FIXED = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9)


def shared_data() -> Path | None:
    """``shared/data`` beside the repository or one of its parents (a worktree is deeper)."""
    return next((p / "shared" / "data" for p in ROOT.parents if (p / "shared" / "data").is_dir()), None)


# ----------------------------------------------------------------------------- the analysis


@dataclass(frozen=True)
class Observation:
    """One thing a sense reported, how sure it said it was, and whether it was right.
    ``fold``: what is held out together (a speaker, a photo); ``cond``: quiet, white10, a
    view; ``what``: a short description for ``--show-wrong``."""

    conf: float
    right: bool
    fold: str
    cond: str = ""
    what: str = ""


@dataclass(frozen=True)
class Bin:
    lo: float
    hi: float
    n: int
    right: int

    @property
    def accuracy(self) -> float | None:
        return self.right / self.n if self.n else None


def bins(obs: Iterable[Observation], edges: Sequence[float] = BINS) -> list[Bin]:
    """Observations per confidence bin ``[lo, hi)``, the last bin closed (``[.95, 1]``)."""
    obs = list(obs)
    out = []
    for k, (lo, hi) in enumerate(zip(edges, edges[1:])):
        last = k == len(edges) - 2
        inside = [o for o in obs if lo <= o.conf < hi or (last and o.conf == hi)]
        out.append(Bin(lo, hi, len(inside), sum(o.right for o in inside)))
    return out


def above(obs: Iterable[Observation], threshold: float | None) -> list[Observation]:
    """The observations a threshold keeps as clear (None: no threshold reached the target,
    nothing is clear)."""
    return [] if threshold is None else [o for o in obs if o.conf >= threshold]


def lowest_threshold(obs: Iterable[Observation], target: float = TARGET) -> float | None:
    """The lowest confidence threshold (one of the observed confidences) whose clear
    observations are right at least ``target`` of the time; None when none is."""
    obs = list(obs)
    for t in sorted({o.conf for o in obs}):
        kept = above(obs, t)
        if kept and sum(o.right for o in kept) >= target * len(kept):
            return t
    return None


@dataclass(frozen=True)
class Fold:
    """One fold held out: the threshold chosen on the others, and the held-out observations."""

    name: str
    threshold: float | None
    n: int  # held-out observations
    clear: int  # ... at or above the threshold
    right: int  # ... of those right
    wrong_total: int  # held-out wrong observations, whatever their conf


def held_out(obs: Sequence[Observation], target: float = TARGET) -> list[Fold]:
    """Each fold held out in turn: the threshold chosen on the other folds' observations."""
    out = []
    for name in sorted({o.fold for o in obs}):
        train = [o for o in obs if o.fold != name]
        test = [o for o in obs if o.fold == name]
        t = lowest_threshold(train, target)
        kept = above(test, t)
        out.append(Fold(name, t, len(test), len(kept), sum(o.right for o in kept), sum(not o.right for o in test)))
    return out


# ----------------------------------------------------------------------------- printing


def pct(right: int, n: int) -> str:
    return f"{right}/{n} ({100 * right / n:.1f} %)" if n else "0/0 (-)"


def print_bins(title: str, obs: Sequence[Observation]) -> None:
    print(f"\n{title} ({len(obs)} observations, {sum(o.right for o in obs)} right)")
    print("| conf | n | right | accuracy |\n|---|---|---|---|")
    for b in bins(obs):
        close = "]" if b.hi == BINS[-1] else ")"
        acc = "-" if b.accuracy is None else f"{100 * b.accuracy:.1f} %"
        print(f"| [{b.lo:g}, {b.hi:g}{close} | {b.n} | {b.right} | {acc} |")


def print_held_out(title: str, obs: Sequence[Observation], units: int | None = None,
                   unit_name: str = "") -> list[Fold]:
    folds = held_out(obs)
    print(f"\n{title}: threshold = lowest conf right >= {TARGET:.0%} on the other folds; held-out fold above it")
    print("| held out | threshold | clear right | abstained (below it) | wrong in fold |\n|---|---|---|---|---|")
    for f in folds:
        t = "none reaches" if f.threshold is None else f"{f.threshold:.3f}"
        print(f"| {f.name} | {t} | {pct(f.right, f.clear)} | {f.n - f.clear}/{f.n} | {f.wrong_total} |")
    clear, right, n = sum(f.clear for f in folds), sum(f.right for f in folds), sum(f.n for f in folds)
    print(f"| **all held out** | | **{pct(right, clear)}** | {pct(n - clear, n)} | {sum(f.wrong_total for f in folds)} |")
    if units:
        print(f"  {unit_name}: a clear right observation for {pct(right, units)} of {units}")
    whole = lowest_threshold(obs)
    print(f"  chosen on every fold together (the deployable value, not a headline): "
          f"{'none reaches' if whole is None else f'{whole:.3f}'}")
    return folds


def print_fixed(title: str, obs: Sequence[Observation], thresholds: Sequence[float]) -> None:
    """Each fold's clear observations at fixed thresholds: descriptive (every fold is looked
    at), so never a headline; it shows how far the folds differ."""
    folds = sorted({o.fold for o in obs})
    print(f"\n{title}: every fold at fixed thresholds (descriptive, not held out)")
    print("| threshold | " + " | ".join(folds) + " | all |\n|---|" + "---|" * (len(folds) + 1))
    for t in thresholds:
        cells = [above([o for o in obs if o.fold == f], t) for f in folds] + [above(obs, t)]
        print(f"| {t:g} | " + " | ".join(pct(sum(o.right for o in c), len(c)) for c in cells) + " |")


def show_wrong(obs: Sequence[Observation], top: int = 25) -> None:
    wrong = sorted((o for o in obs if not o.right), key=lambda o: -o.conf)[:top]
    for o in wrong:
        print(f"  wrong at conf {o.conf:.3f} [{o.fold}, {o.cond}]: {o.what}")


def dump(measured: dict[str, list[Observation]], path: Path) -> None:
    import dataclasses
    import json

    if ROOT in path.resolve().parents:
        raise SystemExit(f"--dump {path}: not inside the repository (derived from the shared data)")
    with open(path, "w", encoding="utf-8") as f:
        for sense, obs in measured.items():
            for o in obs:
                f.write(json.dumps({"sense": sense, **dataclasses.asdict(o)}, ensure_ascii=False) + "\n")


def load(label: str) -> str:
    return f"load average {label} " + " ".join(f"{v:.2f}" for v in os.getloadavg())


# ----------------------------------------------------------------------------- words


def speech_fold(row: dict, speakers: Sequence[str]) -> str:
    """A keyword speaker's clips are that speaker's fold; a no-game-word clip goes with its
    FSDD speaker, else to a fold by a hash of its file name."""
    if row["speaker"] in speakers:
        return row["speaker"]
    return speakers[zlib.crc32(row["file"].encode()) % len(speakers)]


def word_rows(limit: int | None) -> tuple[list[dict], list[dict]]:
    import bench_hearing as bh

    rows = bh.speech_rows()
    keyword = [r for r in rows if r["kind"] == "keyword"]
    other = [r for r in rows if r["kind"] in ("other", "sentence") and r["text"] != "one"]
    if limit:
        keyword, other = keyword[:: max(1, len(keyword) // limit)], other[:: max(1, len(other) // limit)]
    return keyword, other


def measure_words(limit: int | None) -> tuple[list[Observation], int, int]:
    """Observations of words (see the module docstring); the keyword clips heard and the
    no-game-word clips heard (per condition, summed)."""
    import bench_hearing as bh

    keyword, other = word_rows(limit)
    speakers = sorted({r["speaker"] for r in keyword})
    listener_for = bh.seat_listeners()
    obs: list[Observation] = []
    decode_s: list[float] = []
    for cond, snr in (("quiet", None), ("white10", 10.0)):
        for rows, is_keyword in ((keyword, True), (other, False)):
            for i, r in enumerate(rows):
                x, _ = bh.seat_channel(r, snr, seed=i)
                events, _, _ = bh.hear_clip(listener_for(r["lang"]), x, decode_s)
                for e in events:
                    if e.get("type") != "shout" or not e.get("words"):
                        continue
                    words = tuple(e["words"])
                    right = is_keyword and words == (r["token"],)
                    obs.append(Observation(float(e["conf"]) if e.get("conf") is not None else 1.0, right,
                                           speech_fold(r, speakers), cond,
                                           f"{r['file'].split('/')[-1]} ({r['text'][:16]}) heard {' '.join(words)}"))
    return obs, 2 * len(keyword), 2 * len(other)


def report_words(obs: list[Observation], keyword_clips: int, other_clips: int, wrong: bool) -> None:
    print(f"\n## words: {keyword_clips // 2} keyword clips and {other_clips // 2} no-game-word clips, "
          "each in quiet and white noise 10 dB")
    print_bins("words, all conditions", obs)
    for cond in ("quiet", "white10"):
        print_bins(f"words, {cond}", [o for o in obs if o.cond == cond])
    print_held_out("words, leave one speaker out (both conditions)", obs, keyword_clips, "keyword clips")
    for cond in ("quiet", "white10"):
        part = [o for o in obs if o.cond == cond]
        print_held_out(f"words, leave one speaker out, {cond} only (threshold chosen on {cond})", part,
                       keyword_clips // 2, "keyword clips")
    from referee.judging.unclear import WORD_CONF

    print_fixed("words, both conditions", obs, sorted({*FIXED, WORD_CONF}))
    if wrong:
        show_wrong(obs)


# ----------------------------------------------------------------------------- hands


def _scaled(image, box, longest: int, quality: int):
    """The photo as a smaller, compressed camera would give it, and the person box on it."""
    import cv2

    f = min(1.0, longest / max(image.shape[:2]))
    small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else image
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), tuple(int(round(v * f)) for v in box)


def _dim(image, box):
    """The photo in a dim room: a third of the light, a sensor's noise, JPEG 60."""
    import cv2
    import numpy as np

    rng = np.random.default_rng(0)
    dark = np.clip(image.astype(np.float32) * 0.3 + rng.normal(0, 6, image.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", dark, [cv2.IMWRITE_JPEG_QUALITY, 60])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), box


#: the views of each pose photo: ``(name, (image, box) -> (image, box))``
HAND_VIEWS = (("as taken", lambda i, b: (i, b)),
              ("webcam 640 px JPEG 40", lambda i, b: _scaled(i, b, 640, 40)),
              ("far: 320 px JPEG 30", lambda i, b: _scaled(i, b, 320, 30)),
              ("dim room", _dim))


def measure_hands(data: Path, views: Sequence[tuple[str, Callable]] = HAND_VIEWS) -> tuple[list[Observation], int]:
    """Observations of arms (see the module docstring), in each of ``views``; the labelled
    arms of people pose did not find (per view, summed)."""
    import csv

    import cv2

    from vision import hands

    obs, unseen = [], 0
    for r in csv.DictReader(open(data / "poses" / "labels.csv", newline="")):
        photo = cv2.imread(str(data / "poses" / r["file"]))
        sides = [(side, r[f"{side}_raised"]) for side in ("left", "right") if r[f"{side}_raised"] in ("0", "1")]
        for view, fn in views:
            image, box = fn(photo, tuple(int(r[k]) for k in ("x1", "y1", "x2", "y2")))
            est = hands.PoseEstimator(box, video=False)  # one seat crop, as the pipeline runs pose
            try:
                lm = est.estimate(image)
            finally:
                est.close()
            for side, label in sides:
                if lm is None:
                    unseen += 1
                    continue
                said = bool(lm.raised(side, box))
                conf = min(1.0, max(0.0, float(lm[f"{side}_wrist"].visibility)))
                obs.append(Observation(conf, said == (label == "1"), r["file"], view,
                                       f"{r['file']} person {r['person']} {side} ({view}): said "
                                       f"{'raised' if said else 'down'}, label {'raised' if label == '1' else 'down'}"))
    return obs, unseen


def labelled_raised(o: Observation) -> bool:
    return o.what.endswith("label raised")


def said_raised(o: Observation) -> bool:
    """An arm the pose said raised: what becomes a ``hand`` event (``hand_conf`` applies)."""
    return o.right == labelled_raised(o)


def report_hands(obs: list[Observation], unseen: int, wrong: bool) -> None:
    raises = [o for o in obs if said_raised(o)]
    labelled_up = sum(labelled_raised(o) for o in obs if o.cond == "as taken")
    print(f"\n## hands: {len(obs)} arm observations in {len(HAND_VIEWS)} views of the photos "
          f"({sum(o.cond == 'as taken' for o in obs)} as taken, of which {labelled_up} labelled raised — few: "
          f"indications only); {unseen} arms of people pose did not find (no observation)")
    print_bins("hands, every arm in every view (raised or down as said)", obs)
    for view, _ in HAND_VIEWS:
        print_bins(f"hands, {view}", [o for o in obs if o.cond == view])
    print_bins("hands, arms said raised (what becomes a hand event)", raises)
    print_held_out("hands, leave one photo out (all views of it)", obs)
    print_held_out("hands said raised (hand_conf applies to these), leave one photo out", raises)
    if wrong:
        show_wrong(obs)


# ----------------------------------------------------------------------------- cards


CARD_DECKS = ("USPCC-bicycle-like", "wmcnicho-deck")


def measure_cards(data: Path, views: Sequence[tuple[str, Callable]]) -> tuple[list[Observation], int, int]:
    """Observations of cards (see the module docstring); the true cards shown (per view,
    summed) and the uncertain matches (no card event)."""
    from vision import cards
    from vision.bench import card_queries, card_rows, deck_reference_images

    rows = card_rows(data)
    obs, shown, uncertain = [], 0, 0
    for deck in CARD_DECKS:
        refs = cards.References.from_images(deck_reference_images(rows, deck))
        for file, img, truth in card_queries(rows, deck):
            for view, fn in views:
                shown += len(truth)
                left = list(truth)
                for m in cards.recognise(fn(img), refs):
                    if m.status == "uncertain":
                        uncertain += 1
                    if m.status != "ok":
                        continue
                    right = m.code in left
                    if right:
                        left.remove(m.code)
                    obs.append(Observation(min(1.0, float(m.score)), right, file, view,
                                           f"{file} ({view}): read {m.code}, cards {' '.join(truth)}"))
    return obs, shown, uncertain


def measure_cards_left_out(data: Path, views: Sequence[tuple[str, Callable]]) -> tuple[list[Observation], int]:
    """A card the references lack (a deck's card missing from the calibration): each card's
    own code left out of its deck's references, as ``bench_seeing.bench_left_out``; a code
    read that is no card of the photo is this card misread, a wrong observation (the right
    reads of the photo's other cards are counted by :func:`measure_cards`, not again here).
    Also the cards so tried."""
    from vision import cards
    from vision.bench import card_queries, card_rows, deck_reference_images

    rows = card_rows(data)
    obs, tried = [], 0
    for deck in CARD_DECKS:
        full = cards.References.from_images(deck_reference_images(rows, deck))
        for file, img, truth in card_queries(rows, deck):
            for view, fn in views:
                seen = fn(img)
                for code in sorted(set(truth)):
                    tried += 1
                    refs = cards.References([r for r in full.refs if r.code != code])
                    for m in cards.recognise(seen, refs):
                        if m.status == "ok" and m.code not in truth:
                            obs.append(Observation(min(1.0, float(m.score)), False, file, f"{view}, own code left out",
                                                   f"{file} ({view}): {code} left out, read {m.code}"))
    return obs, tried


def report_cards(obs: list[Observation], shown: int, uncertain: int, left_out: list[Observation], tried: int,
                 wrong: bool) -> None:
    photos = len({o.fold for o in obs})
    print(f"\n## cards: {shown} cards shown ({photos} photos x views), {len(obs)} read, "
          f"{uncertain} uncertain (no card event)")
    print_bins("cards, every view", obs)
    print_bins("cards, as taken", [o for o in obs if o.cond == "as taken"])
    print_held_out("cards, leave one photo out (all views of it)", obs, shown, "cards shown")
    print(f"\ncards whose own code the references lack: {tried} tried, {len(left_out)} misread as another card "
          "(the rest unread or uncertain)")
    if left_out:
        print_bins("cards misread when their own code is left out", left_out)
        print_held_out("cards with those misreads added, leave one photo out", obs + left_out)
    if wrong:
        show_wrong(obs + left_out)


# ----------------------------------------------------------------------------- the run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--senses", default="words,hands,cards", help="comma-separated: words, hands, cards")
    ap.add_argument("--limit", type=int, default=None, help="words: at most about N clips of each kind (quick look)")
    ap.add_argument("--views", default="all", help="cards: 'all' (bench_seeing.VIEWS) or 'taken' (as taken only)")
    ap.add_argument("--show-wrong", action="store_true", help="list the wrong observations, most confident first")
    ap.add_argument("--dump", type=Path, default=None,
                    help="also write every observation as JSON lines to this file (outside the repository: "
                         "it is derived from the shared data)")
    a = ap.parse_args(argv)
    senses = {s.strip() for s in a.senses.split(",") if s.strip()}
    data = shared_data()
    t0 = time.perf_counter()
    print(f"confidence benchmark ({', '.join(sorted(senses))}; {os.cpu_count()} cores); {load('at start')}", flush=True)
    if data is None:
        print("skipped: shared/data not found above the repository (the shared real data)")
        return 0
    measured: dict[str, list[Observation]] = {}
    if "words" in senses:
        words = measure_words(a.limit)
        measured["words"] = words[0]
        report_words(*words, a.show_wrong)
    if "hands" in senses:
        arms = measure_hands(data)
        measured["hands"] = arms[0]
        report_hands(*arms, a.show_wrong)
    if "cards" in senses:
        from bench_seeing import VIEWS

        cards_read = measure_cards(data, VIEWS if a.views == "all" else VIEWS[:1])
        # the open set as bench_seeing checks it: as taken and at 45 degrees
        left_out = measure_cards_left_out(data, [VIEWS[0], VIEWS[2]] if a.views == "all" else VIEWS[:1])
        measured["cards"] = cards_read[0] + left_out[0]
        report_cards(*cards_read, *left_out, a.show_wrong)
    if a.dump:
        dump(measured, a.dump)
    print(f"\nrun time {time.perf_counter() - t0:.0f} s; {load('at end')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

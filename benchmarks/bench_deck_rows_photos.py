"""A deck's references cut from multi-card photos (issue 34, item 1), read on other photos.

    python benchmarks/bench_deck_rows_photos.py [--shared DIR]

Real photos of ``../shared/data/cards`` (read in place, never copied; skipped when absent).
Held out: the references come from some photos, the reading is of others.

- eepong: references cut from ``eepong_scenes/8cards_top.jpg`` (8 cards) and
  ``green_many.jpg`` (6) by :func:`calibration.deck_shot.capture_shot`, named in the shot's
  reading order (the names below, written down from the photos as a group would lay them);
  read: the other eepong scenes (``test2``, ``green_close``) and the 52 single-card photos of
  ``eepong/`` (:func:`vision.card_spread.read_spread`). A card of a code without a reference
  must come out unclear or nothing, never another code.
- jacky: references from ``jacky/2.jpg`` (6 cards, a table seen at an angle); read:
  ``jacky/1.jpg`` (the same 6 cards, another photo).
- wmcnicho (webcam, white cards on white paper): each ``train*.jpg`` is a one-card shot (as
  the joker's); read: the 16 ``test*.jpg``.

Counts: cards found, read right, read as another (must be 0), unclear; and each shot's checks.
No setting was chosen on these photos.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration import steps  # noqa: E402
from calibration.deck_shot import capture_shot  # noqa: E402

SHOTS = {
    "eepong": [("eepong_scenes/8cards_top.jpg", ("9S", "QS", "AD", "10H", "AC", "4S", "7C", "6C")),
               ("eepong_scenes/green_many.jpg", ("9D", "4H", "5C", "JS", "AC", "2C"))],
    "jacky": [("jacky/2.jpg", ("JC", "6S", "6H", "AS", "5D", "10D"))],
}


def take(shared: Path, shots) -> tuple[dict, list[str]]:
    refs: dict = {}
    lines = []
    for rel, codes in shots:
        shot = capture_shot(cv2.imread(str(shared / rel)), codes, refs, rel)
        for c in shot.checks + [c for cap in shot.captures for c in cap.checks]:
            if c.level != "ok":
                lines.append(str(c))
        for cap in shot.captures:
            if cap.image is not None and not steps.failed(cap.checks):
                refs[cap.code] = cap.image
    return refs, lines


def read(shared: Path, refs: dict, queries: list[tuple[str, list[str]]]) -> dict:
    """Counts over the cards of ``queries``: those of a code with a reference (the headline:
    a calibrated deck has every code) and those without (a partial set: their nearest code
    may be read, which a whole deck's references would not leave open)."""
    from vision.card_spread import read_spread
    from vision.cards import References

    r = References.from_images(refs)
    fig = {"photos": len(queries), "outlines_reported": 0, "another_list": []}
    for part in ("with_reference", "without_reference"):
        fig[part] = {"cards": 0, "right": 0, "another": 0, "unclear_or_missed": 0}
    for rel, truth in queries:
        got = read_spread(cv2.imread(str(shared / rel)), r)
        fig["outlines_reported"] += len(got)
        read_codes = [c.code for c in got if c.status == "read"]
        for t in truth:
            part = fig["with_reference" if t in refs else "without_reference"]
            part["cards"] += 1
            if t in read_codes:
                part["right"] += 1
                read_codes.remove(t)
            else:
                part["unclear_or_missed"] += 1
        for code in read_codes:  # read codes left over: cards read as another
            wrong = [t for t in truth if t not in [c.code for c in got if c.status == "read"]]
            part = fig["with_reference" if wrong and wrong[0] in refs else "without_reference"]
            part["another"] += 1
            part["unclear_or_missed"] -= 1
            fig["another_list"].append(f"{rel}: {code}")
    return fig


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", type=Path, default=Path("../shared/data/cards"))
    a = ap.parse_args()
    if not (a.shared / "labels.csv").is_file():
        print(f"skipped: {a.shared} not found")
        return
    labels = {row["file"]: row["cards"].split(";") for row in csv.DictReader(open(a.shared / "labels.csv"))}
    print(f"load before: {os.getloadavg()}", flush=True)
    t0 = time.process_time()
    eep, lines = take(a.shared, SHOTS["eepong"])
    q = [(f, labels[f]) for f in ("eepong_scenes/test2.jpg", "eepong_scenes/green_close.jpg")]
    q += [(f, c) for f, c in labels.items() if f.startswith("eepong/")]
    print(json.dumps({"set": "eepong", "references": sorted(eep), "shot_problems": lines, **read(a.shared, eep, q)}))
    jac, lines = take(a.shared, SHOTS["jacky"])
    print(json.dumps({"set": "jacky", "references": sorted(jac), "shot_problems": lines,
                      **read(a.shared, jac, [("jacky/1.jpg", labels["jacky/1.jpg"])])}))
    wm: dict = {}
    lines = []
    for f, codes in labels.items():
        if f.startswith("wmcnicho/train"):
            shot = capture_shot(cv2.imread(str(a.shared / f)), tuple(codes), wm, f)
            lines += [str(c) for c in shot.checks + [c for cap in shot.captures for c in cap.checks] if c.level != "ok"]
            wm.update({c.code: c.image for c in shot.captures if c.image is not None and not steps.failed(c.checks)})
    q = [(f, c) for f, c in labels.items() if f.startswith("wmcnicho/test")]
    print(json.dumps({"set": "wmcnicho", "references": len(wm), "shot_problems": lines, **read(a.shared, wm, q)}))
    print(f"cpu {time.process_time() - t0:.1f} s; load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

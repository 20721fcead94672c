"""Several standard cards in one zone, read against the group's own deck references (issue 34,
item 4): the figures, with counts and the load average.

    python benchmarks/bench_turnbased_camera.py [--shared DIR] [--quick]

Real photos of ``../shared/data/cards`` (read in place; skipped with a message when absent):

- ``eepong_scenes`` (phone photos with 1, 6 and 8 cards, some touching) against the
  ``eepong`` references (one photo per card of the same deck): **the headline** — no
  setting of :mod:`vision.card_spread` was chosen on them;
- ``wmcnicho`` queries (webcam photos, white cards on white paper) against the wmcnicho
  references: the **tuning** set — :attr:`SpreadParams.unclear_score` and
  :attr:`SpreadParams.whole_share` were chosen on them (no outline that is no card said
  unclear; every clean card's whole-face share above ``whole_share``).

Each set is read as taken and in the metamorphic views of the tests: re-encoded as a
webcam delivers it (640 px, JPEG 40), darker (x0.5), gamma 1.8, seen at 30 and 45 degrees
(:func:`vision.degrade.oblique`), and with a drawn hand over each card in turn (the covered
card must be unclear or right, never another card; the others are counted too).

Per set and view: ``right / unclear / wrong of N`` cards (unclear = not read: said unclear
or not found), the unclear answers beyond the true cards (``extra``), CPU ms per photo.
Targets: >= 99 % read, 0 wrong. Nothing is asserted.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from vision import degrade, synth  # noqa: E402
from vision.card_references import References  # noqa: E402
from vision.bench import tally_spread  # noqa: E402
from vision.card_spread import read_spread  # noqa: E402

SETS = [("eepong_scenes (headline)", "USPCC-bicycle-like", "eepong_scenes/"),
        ("wmcnicho (tuning)", "wmcnicho-deck", "wmcnicho/")]


def darker(img: np.ndarray, gain: float = 0.5) -> np.ndarray:
    return np.clip(img.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def gamma(img: np.ndarray, g: float = 1.8) -> np.ndarray:
    lut = (255.0 * (np.arange(256) / 255.0) ** g).astype(np.uint8)
    return lut[img]


VIEWS = [
    ("as taken", lambda i: i),
    ("webcam 640 px JPEG 40", degrade.webcam),
    ("darker x0.5", darker),
    ("gamma 1.8", gamma),
    ("seen at 30 deg", lambda i: degrade.oblique(i, 30)),
    ("seen at 45 deg", lambda i: degrade.oblique(i, 45)),
]


def covered(img: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """``img`` with a drawn hand over the card of ``quad`` (its centre, 0.45 card widths)."""
    out = img.copy()
    w = float(np.linalg.norm(quad[0] - quad[1]))
    synth.draw_hand_blob(out, tuple(int(v) for v in quad.mean(0)), int(w * 0.45))
    return out


def load() -> str:
    return f"[load average {os.getloadavg()[0]:.1f}]"


def bench_set(label: str, queries, refs: References, quick: bool) -> None:
    views = VIEWS[:2] if quick else VIEWS
    for view, fn in views:
        right = unc = wrong = extra = n = 0
        t0 = time.process_time()
        for _, img, truth in queries:
            r, u, w, e = tally_spread(read_spread(fn(img), refs), truth)
            right, unc, wrong, extra, n = right + r, unc + u, wrong + w, extra + e, n + len(truth)
        ms = (time.process_time() - t0) / len(queries) * 1000
        print(f"{label}, {view}: {right} right / {unc} unclear / {wrong} wrong of {n} cards "
              f"({right / n:.1%} read), {extra} extra unclear, {ms:.0f} ms CPU/photo {load()}", flush=True)
    # a hand over each card in turn
    hid = [0, 0, 0]  # the covered card: right, unclear, wrong
    said = 0  # ... of which said unclear (not only left out)
    rest = [0, 0, 0, 0]
    for _, img, truth in (queries[:3] if quick else queries):
        for card in read_spread(img, refs):
            if card.status != "read":
                continue
            out = read_spread(covered(img, card.quad), refs)
            near = [c for c in out if np.hypot(*(np.subtract(c.centre, card.centre))) < 0.3 * np.linalg.norm(card.quad[0] - card.quad[2])]
            got = [c.code for c in near if c.status == "read"]
            k = 2 if any(g != card.code for g in got) else (0 if got else 1)
            hid[k] += 1
            said += k == 1 and any(c.status == "unclear" for c in near)
            others = [c for c in out if c not in near]
            r, u, w, e = tally_spread(others, [t for t in truth if t != card.code] if card.code in truth else truth)
            rest = [rest[0] + r, rest[1] + u, rest[2] + w, rest[3] + len(truth) - 1]
    print(f"{label}, a hand over each card: the covered card {hid[0]} right / {hid[1]} unclear ({said} said so, "
          f"the rest not found) / {hid[2]} wrong of {sum(hid)}; the other cards {rest[0]} right / {rest[1]} unclear (the arm covers some) / "
          f"{rest[2]} wrong of {rest[3]} {load()}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", default=str(ROOT.parent / "shared" / "data"), help="the shared data folder")
    ap.add_argument("--quick", action="store_true", help="two views, three photos with a hand")
    args = ap.parse_args(argv)
    data = Path(args.shared)
    if not (data / "cards" / "labels.csv").is_file():
        print(f"skipped: no real card photos at {data / 'cards'} (the shared data is absent)")
        return 0
    from vision.bench import card_queries, card_rows, deck_reference_images

    print(f"start {load()}", flush=True)
    rows = card_rows(data)
    for label, deck, prefix in SETS:
        refs = References.from_images(deck_reference_images(rows, deck))
        queries = [q for q in card_queries(rows, deck) if q[0].startswith(prefix)]
        bench_set(label, queries, refs, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())

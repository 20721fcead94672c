"""Several standard cards in one zone, read against the group's own deck references (issue 34,
item 4): the figures, with counts and the load average.

    python benchmarks/bench_turnbased_camera.py [--shared DIR] [--quick]
                                                [--only photos|seasaltpaper|toratanu] [--no-replay]

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

The rendered Sea Salt & Paper demo (``fixtures/seasaltpaper``, drawn faces against its drawn
references, no shared data): the two reveal frames (both players' spreads, 34 cards) in the
same views and with a hand over each card, then the demo replayed end to end (the calls
heard, the spreads read once still): each player's round tally right / unclear / wrong
against the truth's verdicts, and the replay's CPU time (``--no-replay`` skips it).
Nothing of the demo was tuned on (the settings of :mod:`vision.spread_watch` were chosen
on the tests' own drawn scenes).

The rendered TORATANU demo (``fixtures/toratanu``, drawn faces against its drawn references):
the frames with every revealed hand (three players, 27 cards a night, 54 in all) in the same
views, each hand zone with a hand over each card in turn (that player's tally unclear or
exactly right, never other cards), then the demo replayed: each player's night tally right /
unclear / wrong against the truth's verdicts. Nothing of it was tuned on.

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
            others = [c for c in out if not any(c is n for n in near)]  # (identity: a card's quad is an array)
            left = list(truth)
            if card.code in left:
                left.remove(card.code)  # (one copy: a spread may hold two mermaids)
            r, u, w, e = tally_spread(others, left)
            rest = [rest[0] + r, rest[1] + u, rest[2] + w, rest[3] + len(truth) - 1]
    print(f"{label}, a hand over each card: the covered card {hid[0]} right / {hid[1]} unclear ({said} said so, "
          f"the rest not found) / {hid[2]} wrong of {sum(hid)}; the other cards {rest[0]} right / {rest[1]} unclear (the arm covers some) / "
          f"{rest[2]} wrong of {rest[3]} {load()}", flush=True)


SSP_DEMO = ROOT / "fixtures" / "seasaltpaper"


def ssp_queries() -> list[tuple[str, np.ndarray, list[str]]]:
    """The demo's reveal frames (0.6 s after the last hand landed), with every card on the
    table then (both spreads), in the references' names (``crab-blue``)."""
    import json

    from vision.video import frames_at

    truth = [json.loads(x) for x in (SSP_DEMO / "truth.jsonl").read_text(encoding="utf-8").splitlines()]
    full = sorted((e for e in truth if e.get("type") == "choice" and len(e["cards"]) > 4), key=lambda e: e["t"])
    rounds = [full[i:i + 2] for i in range(0, len(full), 2)]  # (two players: one reveal each per round)
    times = [max(e["t"] for e in r) + 0.6 for r in rounds]
    frames = frames_at(SSP_DEMO / "session.mp4", times, tolerance=0.5)
    return [(f"t={t:.1f}", frames[t], [c.replace(":", "-", 1) for e in r for c in e["cards"]])
            for t, r in zip(times, rounds)]


def ssp_zones_with_a_hand(refs: References, quick: bool) -> None:
    """Each player's spread zone as :mod:`vision.spread_watch` writes it, with a hand over
    each card in turn: the spread is *unclear* (no score for that player) or its cards are
    exactly the truth (right); anything else is a tally scored on cards that are not the
    truth (wrong). The zone is first seen empty (the demo's first frame)."""
    import json

    from vision.spread_watch import SpreadWatcher, SpreadWatchParams
    from vision.video import frames_at

    cal = json.loads((SSP_DEMO / "calibration.json").read_text(encoding="utf-8"))
    empty = next(iter(frames_at(SSP_DEMO / "session.mp4", [0.0], tolerance=0.5).values()))
    counts = {"right": 0, "unclear": 0, "wrong": 0}
    for _, img, truth in ssp_queries()[: 1 if quick else None]:
        for zone, box in sorted(cal["zones"].items()):
            mine = None
            for card in read_spread(img, refs, box):
                w = SpreadWatcher(zone, box, refs, SpreadWatchParams(settle_reads=1))
                w.update(0, 0.0, empty)
                ev = w.update(1, 1.0, covered(img, card.quad))[0]
                if mine is None:
                    mine = sorted(c.code for c in read_spread(img, refs, box))
                cards = sorted(c.replace(":", "-", 1) for c in ev.get("cards"))
                counts["unclear" if ev.get("unclear") else "right" if cards == mine else "wrong"] += 1
    print(f"Sea Salt & Paper demo, each spread zone with a hand over each card: {counts['right']} right / "
          f"{counts['unclear']} unclear / {counts['wrong']} wrong of {sum(counts.values())} spreads {load()}", flush=True)


def tallies(got: list[dict], want: list[dict], same: tuple[str, ...]) -> tuple[int, int, int, int]:
    """Each player's tally of each verdict against the truth's: right (the score, and the
    verdict's ``same`` fields, as the truth's), unclear, wrong, and how many there are."""
    right = unclear = wrong = 0
    for g, w in zip([x for x in got if x["type"] == "verdict"], [x for x in want if x["type"] == "verdict"]):
        for p, s in w["scores"].items():
            if p in (g.get("unclear") or {}):
                unclear += 1
            elif g["scores"].get(p) == s and all(g[k] == w[k] for k in same):
                right += 1
            else:
                wrong += 1
    return right, unclear, wrong, sum(len(w["scores"]) for w in want if w["type"] == "verdict")


def ssp_replay() -> None:
    """The demo replayed: each player's round tally against the truth's verdicts."""
    import dataclasses
    import json
    import tempfile

    from referee.replay import ReplaySettings, replay

    want = [json.loads(x) for x in (SSP_DEMO / "expected.jsonl").read_text(encoding="utf-8").splitlines()]
    settings = dataclasses.replace(ReplaySettings(game="seasaltpaper", workers=0, no_enroll=True), lang="en")
    c0 = time.process_time()
    with tempfile.TemporaryDirectory() as out:
        got = replay(SSP_DEMO / "session.mp4", SSP_DEMO / "calibration.json", audio=SSP_DEMO / "seats.wav",
                     out=Path(out) / "r", settings=settings).judgement.lines
    cpu = time.process_time() - c0
    right, unclear, wrong, n = tallies(got, want, ("caller", "call"))
    print(f"Sea Salt & Paper demo replayed: {right} right / {unclear} unclear / {wrong} wrong of {n} round tallies, "
          f"result {'as the truth' if got[-1] == want[-1] else 'NOT as the truth'}; {cpu:.1f} CPU-s in this process "
          f"(the hearing's own process not counted) {load()}", flush=True)


TORA_DEMO = ROOT / "fixtures" / "toratanu"


def tora_queries() -> list[tuple[str, np.ndarray, list[str]]]:
    """The TORATANU demo's revealed hands, each cut out of the frame 0.6 s after the night's
    last hand was turned over (its zone and 20 px around: the escape rows above are no hand),
    with its true cards in the references' names (``owl-blue-5-white``)."""
    import json

    from vision.video import frames_at

    truth = [json.loads(x) for x in (TORA_DEMO / "truth.jsonl").read_text(encoding="utf-8").splitlines()]
    cal = json.loads((TORA_DEMO / "calibration.json").read_text(encoding="utf-8"))
    shown = sorted((e for e in truth if e.get("type") == "choice"), key=lambda e: e["t"])
    nights = [shown[i:i + 3] for i in range(0, len(shown), 3)]  # (three players: one hand each a night)
    times = [max(e["t"] for e in n) + 0.6 for n in nights]
    frames = frames_at(TORA_DEMO / "session.mp4", times, tolerance=0.5)
    out = []
    for t, night in zip(times, nights):
        for e in night:
            x1, y1, x2, y2 = cal["zones"][e["zone"]]
            crop = frames[t][max(0, y1 - 20):y2 + 20, max(0, x1 - 20):x2 + 20].copy()
            out.append((f"t={t:.1f} {e['player']}", crop, [c.replace(":", "-") for c in e["cards"]]))
    return out


def tora_zones_with_a_hand(refs: References, quick: bool) -> None:
    """Each player's hand zone as :mod:`vision.spread_watch` writes it (the whole frame, the
    zone's box), with a hand over each card in turn: *unclear* (no score for that player), or
    exactly the truth (right); anything else is a tally scored on other cards (wrong). The
    zone is first seen empty (the demo's first frame)."""
    import json

    from vision.spread_watch import SpreadWatcher, SpreadWatchParams
    from vision.video import frames_at

    cal = json.loads((TORA_DEMO / "calibration.json").read_text(encoding="utf-8"))
    truth = [json.loads(x) for x in (TORA_DEMO / "truth.jsonl").read_text(encoding="utf-8").splitlines()]
    shown = [e for e in truth if e.get("type") == "choice"][: 3 if quick else None]
    times = [0.0] + [e["t"] + 0.6 for e in shown]
    frames = frames_at(TORA_DEMO / "session.mp4", times, tolerance=0.5)
    counts = {"right": 0, "unclear": 0, "wrong": 0}
    for e in shown:
        img, box = frames[e["t"] + 0.6], cal["zones"][e["zone"]]
        mine = sorted(c.code for c in read_spread(img, refs, box))
        for card in read_spread(img, refs, box):
            w = SpreadWatcher(e["zone"], box, refs, SpreadWatchParams(settle_reads=1))
            w.update(0, 0.0, frames[0.0])
            ev = w.update(1, 1.0, covered(img, card.quad))[0]
            cards = sorted(c.replace(":", "-") for c in ev.get("cards"))
            counts["unclear" if ev.get("unclear") else "right" if cards == mine else "wrong"] += 1
    print(f"TORATANU demo, each hand zone with a hand over each card: {counts['right']} right / {counts['unclear']} "
          f"unclear / {counts['wrong']} wrong of {sum(counts.values())} hands {load()}", flush=True)


def tora_replay() -> None:
    """The TORATANU demo replayed: each player's night tally against the truth's verdicts."""
    import json
    import tempfile

    from referee.replay import ReplaySettings, replay

    want = [json.loads(x) for x in (TORA_DEMO / "expected.jsonl").read_text(encoding="utf-8").splitlines()]
    settings = ReplaySettings(game="toratanu", workers=0, no_enroll=True, options={"games": 2})
    c0 = time.process_time()
    with tempfile.TemporaryDirectory() as out:
        got = replay(TORA_DEMO / "session.mp4", TORA_DEMO / "calibration.json", audio=None, out=Path(out) / "r",
                     settings=settings).judgement.lines
    cpu = time.process_time() - c0
    right, unclear, wrong, n = tallies(got, want, ("special",))
    print(f"TORATANU demo replayed: {right} right / {unclear} unclear / {wrong} wrong of {n} night tallies, "
          f"result {'as the truth' if got[-1] == want[-1] else 'NOT as the truth'}; {cpu:.1f} CPU-s {load()}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", default=str(ROOT.parent / "shared" / "data"), help="the shared data folder")
    ap.add_argument("--quick", action="store_true", help="two views, three photos with a hand")
    ap.add_argument("--only", choices=["photos", "seasaltpaper", "toratanu"], help="one part only")
    ap.add_argument("--no-replay", action="store_true", help="not the rendered demos' replays")
    args = ap.parse_args(argv)
    print(f"start {load()}", flush=True)
    if args.only in (None, "toratanu"):
        refs = References.from_folder(TORA_DEMO / "refs")
        queries = tora_queries()
        bench_set("TORATANU demo (drawn)", queries, refs, args.quick)
        tora_zones_with_a_hand(refs, args.quick)
        if not args.no_replay:
            tora_replay()
    if args.only == "toratanu":
        return 0
    if args.only != "photos":
        refs = References.from_folder(SSP_DEMO / "refs")
        bench_set("Sea Salt & Paper demo (drawn)", ssp_queries(), refs, args.quick)
        ssp_zones_with_a_hand(refs, args.quick)
        if not args.no_replay:
            ssp_replay()
    if args.only == "seasaltpaper":
        return 0
    data = Path(args.shared)
    if not (data / "cards" / "labels.csv").is_file():
        print(f"skipped: no real card photos at {data / 'cards'} (the shared data is absent)")
        return 0
    from vision.bench import card_queries, card_rows, deck_reference_images

    rows = card_rows(data)
    for label, deck, prefix in SETS:
        refs = References.from_images(deck_reference_images(rows, deck))
        queries = [q for q in card_queries(rows, deck) if q[0].startswith(prefix)]
        bench_set(label, queries, refs, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Seeing a real table (issue 14): the figures before (the code on main) and after, in one run.

    python benchmarks/bench_seeing.py [--quick] [--stills] [--shared DIR] [--base main]

``--stills``: only the still cards (1.; the open-set check at 45 degrees only).

Prints, with counts and the load average:

1. cards on the real photos of the own deck (``../shared/data/cards``, own-deck references):
   as taken, seen at an angle (:func:`vision.degrade.oblique`: the table turned 30/45/60
   degrees about its horizontal centre line, 45 about the vertical), as a webcam delivers
   them (640 px, JPEG 40), and both; right / total, wrong and uncertain, before and after;
   and each card's own code left out of the references (a card the deck's references lack:
   anything read is wrong), as taken and at 45 degrees;
2. the demo video ``fixtures/demo/session.mp4`` re-encoded (MPEG-4 300 kb/s; x264 crf 35
   veryfast; 640x360 and 640x480 with the calibration scaled), its card zone watched:
   cards within one frame of the truth, before and after, and after also the "card not
   recognised" warnings; plus the CPU seconds of the card zone;
3. raised arms on the real pose photos (``../shared/data/poses``), without and with the
   half-raise rule, all photos and leave one photo out (as ``vision/bench.py``);
4. the audio-video offset recovered from generated slap clips with known offsets.

"Before" is ``vision/cards.py`` as on the ``--base`` branch (``git show``; with the modules
split from it, ``vision/card_*.py``, when the base has them), imported from a temporary copy; the half-raise "before" is the same detector with ``half_raise`` off (the
rule on main). Nothing is asserted: the targets (>= 99 % of cards, 0 wrong; 10/10 demo cards
within one frame or a warning; >= 98 % raised arms, 0 false raises; offset <= 5 ms) are
compared by reading.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from vision import cards as cards_new  # noqa: E402
from vision import degrade  # noqa: E402


def _load(label: str) -> str:
    return f"[load average {os.getloadavg()[0]:.1f}]"


def old_cards(base: str, tmp: Path):
    """``vision.cards`` of ``base`` as a module (None when git cannot show it): the one file
    ``vision/cards.py``, or with the modules split from it (``vision/card_*.py``), copied into
    a temporary package whose ``vision.card_*`` imports point at the copies."""
    try:
        names = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", base, "vision/"], check=True,
                               capture_output=True, text=True).stdout.split()
        files = [n for n in names if n == "vision/cards.py" or (n.startswith("vision/card_") and n.endswith(".py"))]
        srcs = {n: subprocess.run(["git", "-C", str(ROOT), "show", f"{base}:{n}"], check=True,
                                  capture_output=True, text=True).stdout for n in files}
    except (OSError, subprocess.CalledProcessError):
        return None
    if "vision/cards.py" not in srcs:
        return None
    pkg = tmp / "cards_before"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    for n, src in srcs.items():
        (pkg / Path(n).name).write_text(src.replace("from vision.card", "from cards_before.card"), encoding="utf-8")
    if str(tmp) not in sys.path:
        sys.path.insert(0, str(tmp))
    return importlib.import_module("cards_before.cards")


VIEWS = [
    ("as taken", lambda i: i),
    ("tilted 30 deg", lambda i: degrade.oblique(i, 30)),
    ("tilted 45 deg", lambda i: degrade.oblique(i, 45)),
    ("tilted 60 deg", lambda i: degrade.oblique(i, 60)),
    ("turned 45 deg sideways", lambda i: degrade.oblique(i, 45, "y")),
    ("webcam 640 px JPEG 40", lambda i: degrade.webcam(i)),
    ("tilted 45 deg + webcam", lambda i: degrade.webcam(degrade.oblique(i, 45))),
]


def bench_stills(data: Path, mods: list[tuple[str, object]]) -> None:
    from vision.bench import card_queries, card_rows, deck_reference_images, score_cards

    rows = card_rows(data)
    for deck in ("USPCC-bicycle-like", "wmcnicho-deck"):
        queries = [(img, truth) for _, img, truth in card_queries(rows, deck)]
        refs_imgs = deck_reference_images(rows, deck)
        refs = {name: mod.References.from_images(refs_imgs) for name, mod in mods}
        for view, fn in VIEWS:
            imgs = [(fn(img), truth) for img, truth in queries]
            line = []
            for name, mod in mods:
                right = wrong = unc = total = 0
                t0 = time.process_time()
                for img, truth in imgs:
                    total += len(truth)
                    r, w, u = score_cards(mod.recognise(img, refs[name]), truth)
                    right, wrong, unc = right + r, wrong + w, unc + u
                line.append(f"{name} {right}/{total} = {right / total:.0%}, {wrong} wrong, {unc} uncertain "
                            f"({(time.process_time() - t0) / len(imgs) * 1000:.0f} ms CPU/image)")
            print(f"cards {deck}, {view} ({len(imgs)} photos): " + "; ".join(line) + f" {_load('')}", flush=True)


def bench_left_out(data: Path, mods: list[tuple[str, object]], quick: bool) -> None:
    """Each card's own code left out of the references (a card not in the deck, or whose
    reference is missing): anything read is wrong. As taken and in the oblique views."""
    from vision.bench import card_queries, card_rows, deck_reference_images

    rows = card_rows(data)
    views = [VIEWS[0], VIEWS[2]] if not quick else VIEWS[2:3]
    for deck in ("USPCC-bicycle-like", "wmcnicho-deck"):
        queries = card_queries(rows, deck)
        imgs = deck_reference_images(rows, deck)
        full = {name: mod.References.from_images(imgs) for name, mod in mods}
        for view, fn in views:
            seen = [(fn(img), truth) for _, img, truth in queries]
            line = []
            for name, mod in mods:
                wrong = unc = n = 0
                for img, truth in seen:
                    for code in sorted(set(truth)):
                        refs = mod.References([r for r in full[name].refs if r.code != code])
                        n += 1
                        for m in mod.recognise(img, refs):
                            # a read code that is no other card of the photo is this card, misread
                            if m.status == "ok" and m.code not in truth:
                                wrong += 1
                            unc += m.status == "uncertain"
                line.append(f"{name} {wrong} wrong, {unc} uncertain")
            print(f"cards {deck}, {view}, each card's own code left out of the references ({n} cards): "
                  + "; ".join(line) + f" {_load('')}", flush=True)


def reencoded(tmp: Path, quick: bool) -> list[tuple[str, Path]]:
    from vision.video import read_frames

    src = ROOT / "fixtures" / "demo" / "session.mp4"
    out = [("as committed (x264, 1280x720)", src)]
    todo = [("MPEG-4 300 kb/s", "mpeg4_300k.mp4", dict(codec="mpeg4", bit_rate=300_000)),
            ("x264 crf 35 veryfast", "x264_crf35.mp4", dict(crf=35, preset="veryfast")),
            ("640x360 (x264 crf 23)", "s640x360.mp4", dict(size=(640, 360), crf=23, preset="veryfast")),
            ("640x480 stretched (x264 crf 23)", "s640x480.mp4", dict(size=(640, 480), crf=23, preset="veryfast"))]
    if not quick:
        todo.append(("640x360 x264 crf 35", "s640x360_crf35.mp4", dict(size=(640, 360), crf=35, preset="veryfast")))
    for name, fname, kw in todo:
        p = tmp / fname
        degrade.reencode((f.image for f in read_frames(src)), p, **kw)
        out.append((name, p))
    return out


def bench_demo(videos: list[tuple[str, Path]], mods: list[tuple[str, object]]) -> None:
    from session.calibration import Box, load
    from vision.video import read_frames

    cal = load(ROOT / "fixtures" / "demo" / "calibration.json")
    truth = [json.loads(x) for x in open(ROOT / "fixtures" / "demo" / "truth.jsonl")]
    tc = [e for e in truth if e["type"] == "card"]
    fps = cal.fps or 30
    refs = {name: mod.References.from_folder(cal.references) for name, mod in mods}
    for vname, path in videos:
        frames = list(read_frames(path))
        h, w = frames[0].image.shape[:2]
        sx, sy = w / cal.width, h / cal.height
        b = cal.zones["field"]
        box = Box(int(b.x1 * sx), int(b.y1 * sy), int(round(b.x2 * sx)), int(round(b.y2 * sy)))
        line = []
        for name, mod in mods:
            wt = mod.CardZoneWatcher("field", box, refs[name])
            got = []
            realigned = getattr(refs[name], "realigned", None)  # the ECC re-alignments of misfit faces
            t0 = time.process_time()
            for fr in frames:
                got += wt.update(fr.index, fr.t, fr.image)
            cpu = time.process_time() - t0
            ecc = "n/a" if realigned is None else refs[name].realigned - realigned
            cardsev = [g for g in got if g.type == "card"]
            warns = [g for g in got if g.type == "warning"]
            errs, used = [], set()
            for e in tc:
                c = [(abs(g.t - e["t"]), i) for i, g in enumerate(cardsev)
                     if i not in used and g.card == e["card"] and abs(g.t - e["t"]) < 1.0]
                if c:
                    i = min(c)[1]
                    used.add(i)
                    errs.append(round((cardsev[i].t - e["t"]) * fps))
                else:
                    errs.append(None)
            within = sum(x is not None and abs(x) <= 1 for x in errs)
            missing = [f"{e['card']}@{e['t']:.1f}s" for e, x in zip(tc, errs) if x is None or abs(x) > 1]
            warned = "" if not warns else f", warnings {[g.message for g in warns]}"
            line.append(f"{name} {within}/{len(tc)} within one frame (frames off {errs}; not: {missing or 'none'}; "
                        f"extra {len(cardsev) - len(used)}{warned}; {cpu:.1f} s CPU, {wt.analysed} analyses, "
                        f"{ecc} ECC re-alignments)")
        print(f"demo cards, {vname} {w}x{h}: " + "; ".join(line) + f" {_load('')}", flush=True)


def bench_arms(data: Path) -> None:
    from vision import hands
    from vision.bench import arm_rule, labelled_poses

    arms = []
    for r, box, lm in labelled_poses(data):
        for side in ("left", "right"):
            lab = r[f"{side}_raised"]
            if lab not in ("0", "1"):
                continue
            h = box[3] - box[1]
            arms.append({"file": r["file"], "raised": lab == "1",
                         "lift": None if lm is None else lm.lift(side, h),
                         "upright": lm is not None and lm.upright(side, box),
                         "below_nose": None if lm is None else _below_nose(lm, side, h),
                         "old": lm is not None and lm.raised(side, box, half_raise=False),
                         "new": lm is not None and lm.raised(side, box, half_raise=True)})
    n, up = len(arms), sum(a["raised"] for a in arms)
    for key, what in (("old", "before (no half-raise: main's rule)"), ("new", "after (half_raise on, the default)")):
        found = sum(a[key] and a["raised"] for a in arms)
        false = sum(a[key] and not a["raised"] for a in arms)
        print(f"arms (real photos), {what}: raised found {found}/{up} = {found / up:.1%}, false raises {false}/{n - up}, "
              f"{sum(a[key] == a['raised'] for a in arms)}/{n} right")

    def rule(a, below: float | None) -> bool:
        return arm_rule(a, half_below=below)

    grid = [round(-0.2 + 0.02 * k, 2) for k in range(21)]
    files = sorted({a["file"] for a in arms})
    for name, fam in (("fixed, no half-raise", [None]), (f"fixed half-raise ({hands.HALF_RAISE_BELOW_NOSE} below the nose)",
                                                         [hands.HALF_RAISE_BELOW_NOSE]),
                      ("half-raise level fitted per fold", grid)):
        found = false = 0
        for f in files:
            train = [a for a in arms if a["file"] != f]
            best = max(fam, key=lambda p: (sum(rule(a, p) == a["raised"] for a in train),
                                           -abs((p or 0) - hands.HALF_RAISE_BELOW_NOSE)))
            for a in arms:
                if a["file"] == f:
                    found += rule(a, best) and a["raised"]
                    false += rule(a, best) and not a["raised"]
        print(f"arms, leave one photo out ({len(files)} photos), {name}: raised found {found}/{up} = {found / up:.1%}, "
              f"false raises {false}/{n - up}")


def _below_nose(lm, side: str, crop_h: float) -> float | None:
    from vision import hands

    n, w = lm["nose"], lm[f"{side}_wrist"]
    if n.visibility < hands.HALF_RAISE_NOSE_VISIBILITY:
        return None
    ls, rs = lm["left_shoulder"], lm["right_shoulder"]
    width = max(float(np.hypot(ls.x - rs.x, ls.y - rs.y)), hands.MIN_SHOULDER_FRACTION * crop_h)
    return (w.y - n.y) / width


def bench_av(quick: bool) -> None:
    from calibration.steps import av_offset
    from vision.contact import slap_clip

    rate = 16000
    errs = []
    cases = [(off, tc) for off in (0.0, 0.0837, 0.15, -0.021) for tc in (1.0, 1.0123, 1.0251)]
    if quick:
        cases = cases[::3]
    for k, (true, tc) in enumerate(cases):
        clip = slap_clip(tc)
        rng = np.random.default_rng(k)
        x = rng.normal(0, 0.002, 2 * rate)
        n = int(round((tc - true) * rate))
        x[n:n + 400] += 0.5 * np.exp(-np.arange(400) / 60) * np.sign(np.sin(np.arange(400) * 0.7) + 0.1)
        got, _ = av_offset(clip, x, rate)
        errs.append(None if got is None else (got - true) * 1000)
    ok = [abs(e) for e in errs if e is not None]
    print(f"audio-video offset (generated slaps, 30 fps, 16 kHz, {len(cases)} clips, offsets -21..150 ms, contact "
          f"between frames): recovered {len(ok)}/{len(cases)}, |error| max {max(ok):.2f} ms, median "
          f"{sorted(ok)[len(ok) // 2]:.2f} ms")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--stills", action="store_true", help="only the still cards (section 1)")
    ap.add_argument("--shared", type=Path)
    ap.add_argument("--base", default="main", help="the branch whose vision/cards.py is 'before'")
    a = ap.parse_args(argv)
    data = None
    for p in filter(None, [a.shared, os.environ.get("REFEREE_SHARED") and Path(os.environ["REFEREE_SHARED"]),
                           ROOT.parent / "shared", Path("/work/shared")]):
        if (Path(p) / "data").is_dir():
            data = Path(p) / "data"
            break
    print(f"seeing benchmark ({'quick' if a.quick else 'full'}; {os.cpu_count()} cores) {_load('')}", flush=True)
    with tempfile.TemporaryDirectory(prefix="seeing-") as tmp:
        old = old_cards(a.base, Path(tmp))
        mods = ([("before", old)] if old is not None else []) + [("after", cards_new)]
        if old is None:
            print(f"before: git show {a.base}:vision/cards.py failed; only 'after' is measured")
        if not a.stills:
            bench_av(a.quick)
        if data is None:
            print("real data: shared/data not found, real-photo figures skipped")
        else:
            bench_stills(data, mods)
            bench_left_out(data, mods, a.quick or a.stills)
        if not a.stills:
            bench_demo(reencoded(Path(tmp), a.quick), mods)
            if data is not None:
                bench_arms(data)
    print(f"done {_load('')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

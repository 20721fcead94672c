"""A deck's references from layout photos in rows (issue 34, item 1): rendered layouts.

    python benchmarks/bench_deck_rows.py [--out DIR] [--widths 40,50,60,80,110]

The TAKOYAKI deck (53 cards) in 5 rendered 1280x720 shots (each suit in two rows of 7 and 6,
the joker alone; :mod:`benchmarks.deck_layouts`, seeded) in several views: as rendered,
re-encoded (JPEG 60) and darker (x0.6), the layout turned 8 degrees, and cards of several
widths (pixels). Per view: cards found in the right number per shot, references taken,
their checks (fail / warn), and the CPU time of the cut. ``--out``: the references of the
view as rendered, and a copy of the demo's calibration pointing at them
(``referee replay fixtures/takoyaki/session.mp4 --calibration OUT/calibration.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fixtures.deck_layouts import ROOT, layout  # noqa: E402
from calibration import steps  # noqa: E402
from calibration.deck_rows import deck_shots  # noqa: E402
from calibration.deck_shot import capture_shot  # noqa: E402
from calibration.decks import deck_cards  # noqa: E402


def run_view(name: str, **kw) -> tuple[dict, dict]:
    """Every shot of the deck in one view: figures and every reference cut (a failed
    check's too, as ``--force`` writes them)."""
    captured: dict = {}
    forced: dict = {}  # every reference cut, as --force writes them
    t0 = time.process_time()
    counts_ok = fails = warns = 0
    lines = []
    for i, codes in enumerate(deck_shots(deck_cards("takoyaki"))):
        img, _ = layout(codes, seed=i, **kw)
        shot = capture_shot(img, codes, captured, f"shot {i + 1}")
        counts_ok += bool(shot.captures)
        for c in shot.checks + [c for cap in shot.captures for c in cap.checks]:
            fails += c.level == "fail"
            warns += c.level == "warn"
            if c.level != "ok":
                lines.append(str(c))
        for cap in shot.captures:
            if cap.image is not None:
                forced[cap.code] = cap.image
            if cap.image is not None and not steps.failed(cap.checks):
                captured[cap.code] = cap.image
    cpu = time.process_time() - t0
    return ({"view": name, "shots_counted_right": counts_ok, "references": len(captured), "fails": fails,
             "warns": warns, "cpu_s": round(cpu, 1), "problems": lines}, forced)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path)
    ap.add_argument("--widths", default="40,50,60,80")
    ap.add_argument("--out-width", type=float, default=110.0, help="card width (px) of the view written to --out")
    ap.add_argument("--only-out", action="store_true", help="only the view written to --out")
    a = ap.parse_args()
    print(f"load before: {os.getloadavg()}", flush=True)
    views = [(f"as rendered ({a.out_width:.0f} px cards)", {"card_w": a.out_width}),
             ("JPEG 60, darker x0.6", {"jpeg": 60, "gain": 0.6}),
             ("layout turned 8 degrees", {"tilt": 8.0})]
    views += [(f"{w} px cards, JPEG 60", {"card_w": float(w), "jpeg": 60}) for w in a.widths.split(",") if w]
    for k, (name, kw) in enumerate(views[:1] if a.only_out else views):
        fig, refs = run_view(name, **kw)
        print(json.dumps(fig), flush=True)
        if k == 0 and a.out is not None:
            (a.out / "refs").mkdir(parents=True, exist_ok=True)
            for code, img in refs.items():
                cv2.imwrite(str(a.out / "refs" / f"{code}.png"), img)
            cal = json.loads((ROOT / "fixtures" / "takoyaki" / "calibration.json").read_text())
            cal["references"] = "refs"
            (a.out / "calibration.json").write_text(json.dumps(cal, indent=1))
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

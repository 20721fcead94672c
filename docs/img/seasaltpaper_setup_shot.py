"""The README's picture of a Sea Salt & Paper camera set-up: the demo's frame after both
players laid their hands (round 1), with the calibrated spread zones drawn and labelled and
each card as the camera read it.

    python docs/img/seasaltpaper_setup_shot.py   # -> docs/img/seasaltpaper-setup.png
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vision.card_references import References  # noqa: E402
from vision.card_spread import read_spread  # noqa: E402
from vision.spread_watch import file_code  # noqa: E402
from vision.video import frames_at  # noqa: E402

DEMO = ROOT / "fixtures" / "seasaltpaper"
OUT = ROOT / "docs" / "img" / "seasaltpaper-setup.png"
AT_S = 5.6  # round 1: both hands laid after aki's STOP
ZONE, READ = (0, 220, 255), (120, 255, 120)


def label(img, text, org, scale=0.62, colour=(255, 255, 255), thick=2):
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    x, y = org
    cv2.rectangle(img, (x - 4, y - h - 6), (x + w + 4, y + 6), (20, 20, 20), -1)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def main() -> int:
    cal = json.loads((DEMO / "calibration.json").read_text(encoding="utf-8"))
    refs = References.from_folder(DEMO / "refs")
    img = next(iter(frames_at(DEMO / "session.mp4", [AT_S], tolerance=0.5).values())).copy()
    for zone, (x1, y1, x2, y2) in sorted(cal["zones"].items()):
        for c in read_spread(img, refs, (x1, y1, x2, y2)):
            q = np.round(c.quad).astype(np.int32)
            cv2.polylines(img, [q], True, (255, 255, 255), 1, cv2.LINE_AA)
            code = file_code(c.code) if c.status == "read" else "unclear"
            # over the card's middle: its printed kind (top) and colour (bottom) stay visible
            (tw, _), _ = cv2.getTextSize(code, cv2.FONT_HERSHEY_SIMPLEX, 0.42, 1)
            label(img, code, (int(q[:, 0].mean() - tw / 2), int(q[:, 1].mean()) + 24), 0.42, READ, 1)
        cv2.rectangle(img, (x1, y1), (x2 - 1, y2 - 1), ZONE, 3)
        player = zone.split(":")[1]
        chan = next(s["channel"] for s in cal["seats"] if s["name"] == player)
        label(img, f"zone {zone}: {player}'s cards (played duos + the hand laid after the call)", (x1 + 6, y1 - 14),
              0.5, ZONE)
        label(img, f"{player}'s microphone: channel {chan}", (x1 + 6, y1 - 44), 0.5)
    label(img, "camera above the table; aki said \"stop\": each spread is read once it lies still (1.5 s)", (24, 34),
          0.62)
    label(img, "green: each card as read (kind:colour); a card not read is 'unclear', never another card", (24, 70),
          0.55, READ)
    label(img, "the draw pile (not read)", (620, 150), 0.5)
    cv2.imwrite(str(OUT), cv2.resize(img, (1024, 576), interpolation=cv2.INTER_AREA), [cv2.IMWRITE_PNG_COMPRESSION, 9])
    print(OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Regenerate docs/img/live-window-seasaltpaper.png (and, with ``--game toratanu``,
docs/img/live-window-toratanu.png): the live window on a spread game's demo under Xvfb.

    referee demo --game seasaltpaper --live --no-window --no-voice --hold-result 0 --out /tmp/ssp
    Xvfb :98 -screen 0 1600x1000x24 &  DISPLAY=:98 python docs/img/seasaltpaper_window_shot.py /tmp/ssp 12.8 /tmp/shot.png
    convert /tmp/shot.png -crop 1280x720+0+0 -resize 900x -strip -colors 128 PNG8:docs/img/live-window-seasaltpaper.png

    referee demo --game toratanu --live --no-window --no-voice --hold-result 0 --out /tmp/tora
    DISPLAY=:98 python docs/img/seasaltpaper_window_shot.py --game toratanu /tmp/tora 13.5 /tmp/shot.png

The window (referee.live.window.LiveWindow, opened at 1280x720) is fed as the live run fed it:
the live record's events up to ``T`` seconds (``OUT/session.jsonl``: the calls heard, the hands
the camera read with each card's box), the verdicts said by then and the recording's frame at
``T``, so the tallies drawn match the camera image. ``--final``: the game's end, with its banner.
"""
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from session import calibration as cal_mod
from session.record import read_record
from vision.video import Frame, frames_at
from referee.commands.demo_files import SEASALTPAPER_DEMO, TORATANU_DEMO
from referee.live.state import LiveState
from referee.live.window import LiveWindow

argv = sys.argv[1:]
demo = SEASALTPAPER_DEMO
if "--game" in argv:  # (--game toratanu: the TORATANU demo's calibration)
    i = argv.index("--game")
    demo = {"seasaltpaper": SEASALTPAPER_DEMO, "toratanu": TORATANU_DEMO}[argv[i + 1]]
    del argv[i:i + 2]
args = [a for a in argv if a != "--final"]
out, until = Path(args[0]), float(args[1]) if len(args) > 1 else 12.8
record = read_record(out / "session.jsonl")
lines = [json.loads(s) for s in (out / "session.jsonl").read_text().splitlines() if '"verdict"' in s]
win = LiveWindow(LiveState(cal_mod.load(demo / "calibration.json"), voice="on"))
win.start(record.header)
win.status({"camera": {"fps": 15.0, "dropped": 0, "skipped": 0}, "levels": [-60.0, -60.0]})
for ev in record.events:
    if ev.t <= until and ev.type != "warning":
        win.event(ev)
        win.verdicts([v for v in lines if v.get("type") == "verdict" and v["t"] == ev.t])
img = frames_at(out / "video.mp4", [until])[until]
win.frame(Frame(0, until, img), [])
if "--final" in sys.argv:  # (the game's end: its result line, as the live run gives it before it finishes)
    win.verdicts([json.loads(s) for s in (out / "session.jsonl").read_text().splitlines() if '"result"' in s])
    win.finish(None)
win.open()
time.sleep(2.5)
subprocess.run(["import", "-window", "root", args[2] if len(args) > 2 else "/tmp/shot.png"])
win.press("x")
win.close()
print("redraws", win.redraws, win.error)

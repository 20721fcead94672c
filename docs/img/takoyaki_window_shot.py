"""Regenerate docs/img/live-window-takoyaki.png: the live window on the TAKOYAKI demo under Xvfb.

    Xvfb :98 -screen 0 1600x1000x24 &  DISPLAY=:98 python docs/img/takoyaki_window_shot.py 24.0 /tmp/shot.png
    convert /tmp/shot.png -crop 1280x720+0+0 -resize 900x -strip -colors 128 PNG8:docs/img/live-window-takoyaki.png

The window (referee.live.window.LiveWindow, opened at 1280x720) is fed as the live run feeds it:
the demo's verdicts up to ``T`` seconds (fixtures/takoyaki/expected.jsonl, the verdicts the
replay and ``referee demo --game takoyaki --live`` give) and the recording's frame at ``T``, so
the griddles drawn match the camera image. ``--final``: the game's end, with its banner.
"""
import json
import subprocess
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from session import calibration as cal_mod
from session.events import CardEvent, SessionHeader
from vision.video import Frame, frames_at
from referee.commands.demo_files import TAKOYAKI_DEMO
from referee.live.state import LiveState
from referee.live.window import LiveWindow

args = [a for a in sys.argv[1:] if a != "--final"]
until = float(args[0]) if args else 24.0
win = LiveWindow(LiveState(cal_mod.load(TAKOYAKI_DEMO / "calibration.json"), voice="on"))
win.start(SessionHeader(t=0.0, game="takoyaki", mode="versus", players=("aki", "ben")))
win.status({"camera": {"fps": 15.0, "dropped": 0, "skipped": 0}})
lines = [json.loads(s) for s in (TAKOYAKI_DEMO / "expected.jsonl").read_text().splitlines() if s.strip()]
for line in lines:
    if line.get("type") == "verdict" and line["t"] <= until:
        win.event(CardEvent(t=line["t"], card=line["card"], zone=line["zone"]))
        win.verdicts([line])
img = frames_at(TAKOYAKI_DEMO / "session.mp4", [until])[until]
win.frame(Frame(0, until, img), [])
if "--final" in sys.argv:
    win.finish(None)
win.open()
time.sleep(2.5)
subprocess.run(["import", "-window", "root", args[1] if len(args) > 1 else "/tmp/shot.png"])
win.press("x")
win.close()
print("redraws", win.redraws, win.error)

"""Regenerate docs/img/live-window.png: the live window on the demo at t=24.5 s under Xvfb.

    Xvfb :99 -screen 0 1600x1000x24 &  DISPLAY=:99 python docs/img/live_window_shot.py 24.5 /tmp/shot.png
    convert /tmp/shot.png -crop 1280x720+0+0 -resize 900x -strip -colors 96 PNG8:docs/img/live-window.png

(The window opens at 1280x720 on a screen that holds it: referee.live.window.window_size.)
The screenshots of docs/live.md ("The window, its keys and labels") are of real runs: see there.
"""
import time, sys
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from vision.video import frames_at, Frame
from referee.live.state import LiveState
from referee.live.window import LiveWindow
from tests.live.helpers import demo_calibration, drive, DEMO
until = float(sys.argv[1]) if len(sys.argv) > 1 else 24.5
win = LiveWindow(LiveState(demo_calibration(), voice="on"))
drive(win, until=until, status={"camera": {"fps": 29.8, "dropped": 2, "skipped": 5}, "levels": [-18.0, -42.0, -75.0, -30.0], "lag_ms": 140})
img = frames_at(DEMO / "session.mp4", [until])[until]
win.frame(Frame(0, until, img), [])
win.event(__import__("session.events", fromlist=["WarningEvent"]).WarningEvent(t=until, message="microphones back: clock re-anchored on the adc time"))
win.open()
time.sleep(2.5)
win.press("x")
time.sleep(1.0)
import subprocess
subprocess.run(["import", "-window", "root", sys.argv[2] if len(sys.argv) > 2 else "/tmp/shot.png"])
win.close()
print("redraws", win.redraws, win.error)

"""Where the bundled demo lives (``fixtures/demo`` of a clone): ``referee demo`` replays it,
``referee demo --live`` plays it through the live path."""

from pathlib import Path

#: the project's folder (a clone: the demo files are not installed with the package)
ROOT = Path(__file__).resolve().parents[2]
#: the bundled IKATAKO recording: session.mp4, seats.wav, calibration.json, its truth
DEMO = ROOT / "fixtures" / "demo"
#: the rendered TAKOYAKI game (``fixtures/make_takoyaki_demo.py``): session.mp4 (no audio),
#: calibration.json (the griddles' slots and the discards), refs/, its truth and verdicts
TAKOYAKI_DEMO = ROOT / "fixtures" / "takoyaki"
#: the rendered Sea Salt & Paper rounds' ends (``fixtures/make_seasaltpaper_demo.py``):
#: session.mp4, seats.wav (the calls said aloud), calibration.json (each player's spread),
#: refs/, its truth and verdicts
SEASALTPAPER_DEMO = ROOT / "fixtures" / "seasaltpaper"
#: the rendered TORATANU nights' tallies (``fixtures/make_toratanu_demo.py``): session.mp4 (no
#: audio: nothing is said at a tally), calibration.json (each player's hand, the special
#: card), refs/, its truth and verdicts
TORATANU_DEMO = ROOT / "fixtures" / "toratanu"

"""The OpenCV window under Xvfb: the drawn card and the verdict are on the screen (a
screenshot of the X root window, as a person would see it)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import start_xvfb

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def xvfb():
    if not (shutil.which("Xvfb") and shutil.which("import")):
        pytest.skip("Xvfb or ImageMagick's import is not installed (apt-get install xvfb imagemagick)")
    proc, display = start_xvfb("1000x720x24")
    yield display
    proc.terminate()
    proc.wait(5)


def _shoot(display: str, lang: str, shot: Path) -> dict:
    """The window shown and photographed in a process of its own (``window_shot.py``)."""
    res = subprocess.run([sys.executable, "-m", "tests.referee.teach.window_shot", lang, str(shot)], cwd=ROOT,
                         env={**os.environ, "DISPLAY": display}, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_window_shows_the_card_and_the_verdict(xvfb, tmp_path):
    seen = _shoot(xvfb, "en", tmp_path / "shot.png")
    assert seen["red"] > 20000 and seen["purple"] > 3000  # the tako card and WRONG; the Mirror card


def test_window_writes_japanese_with_a_real_font(xvfb, tmp_path):
    """``--lang ja``: the question, the verdict and the reason in Japanese on the screen (the
    frame shown is the one drawn with the font: the screenshot holds its reason row)."""
    seen = _shoot(xvfb, "ja", tmp_path / "shot.png")
    if seen.get("no_font"):
        pytest.skip("no Japanese font installed (apt-get install fonts-noto-cjk)")
    assert seen["row_white"] > 800  # the reason line: Japanese glyphs, white
    assert seen["row_match"] < 0.02  # that row is on the screen

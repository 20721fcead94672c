"""The OpenCV window under Xvfb: the drawn card and the verdict are on the screen (a
screenshot of the X root window, as a person would see it)."""

import os
import shutil
import subprocess
import time

import pytest

from tests.conftest import start_xvfb


@pytest.fixture(scope="module")  # one display per process: HighGUI's Qt cannot move to another
def xvfb():
    if not (shutil.which("Xvfb") and shutil.which("import")):
        pytest.skip("Xvfb or ImageMagick's import is not installed (apt-get install xvfb imagemagick)")
    proc, display = start_xvfb("1000x720x24")
    old = os.environ.get("DISPLAY")
    os.environ["DISPLAY"] = display
    yield display
    if old is None:
        os.environ.pop("DISPLAY", None)
    else:
        os.environ["DISPLAY"] = old
    proc.terminate()
    proc.wait(5)


def test_window_shows_the_card_and_the_verdict(xvfb, tmp_path):
    import cv2
    from referee.teach import drills
    from referee.teach.core import Press
    from referee.teach.window import WindowView
    d = drills.get("ikatako")
    s, lv = d.situation("tako|mirror"), d.level_of("one_trouble")
    view = WindowView()
    info = {"n": 1, "of": 1, "level": lv, "index": 2}
    view.show(d.screen(s, "en"), info)
    view.feedback(d.feedback(s, [Press("f", 0.4), Press("i", 0.5), Press("enter", 0.6)], lv, "en"), info)
    shot = tmp_path / "shot.png"
    deadline = time.monotonic() + 10  # a loaded machine paints the window late (CI runs shot a blank
    while True:  # screen after 2 s at load 5-6, on two test workers): look again, up to ~10 s
        for _ in range(20):
            cv2.waitKey(10)
        subprocess.run(["import", "-display", xvfb, "-window", "root", str(shot)], check=True, timeout=20)
        img = cv2.imread(str(shot))
        assert img is not None
        red_card = (img[..., 2] > 180) & (img[..., 1] < 90) & (img[..., 0] < 90)  # the tako card and WRONG
        purple = (img[..., 2] > 120) & (img[..., 0] > 110) & (img[..., 1] < 80)  # the Mirror card
        if (red_card.sum() > 20000 and purple.sum() > 3000) or time.monotonic() > deadline:
            break
    view.close()
    assert red_card.sum() > 20000 and purple.sum() > 3000


def test_window_writes_japanese_with_a_real_font(xvfb, tmp_path):
    """``--lang ja``: the question, the verdict and the reason in Japanese on the screen (the
    frame shown is the one drawn with the font: the screenshot holds its reason row)."""
    import cv2
    from referee.teach import drills, fonts
    from referee.teach.core import Press
    from referee.teach.window import WindowView
    fonts.reset()
    if not fonts.have_font():
        pytest.skip("no Japanese font installed (apt-get install fonts-noto-cjk)")
    d = drills.get("ikatako")
    s, lv = d.situation("tako|mirror"), d.level_of("one_trouble")
    view = WindowView(lang="ja")
    info = {"n": 1, "of": 1, "level": lv, "index": 2}
    view.show(d.screen(s, "ja"), info)
    view.feedback(d.feedback(s, [Press("f", 0.4), Press("i", 0.5), Press("enter", 0.6)], lv, "ja"), info)
    frame = view.frame.copy()
    row = frame[440:480, 20:600]  # the reason line: Japanese glyphs, white
    assert (row > 200).all(axis=2).sum() > 800
    shot = tmp_path / "shot.png"
    deadline = time.monotonic() + 10  # a loaded machine paints the window late (CI runs shot a blank
    while True:  # screen after 2 s at load 5-6, on two test workers): look again, up to ~10 s
        for _ in range(20):
            cv2.waitKey(10)
        subprocess.run(["import", "-display", xvfb, "-window", "root", str(shot)], check=True, timeout=20)
        hits = cv2.matchTemplate(cv2.imread(str(shot)), row, cv2.TM_SQDIFF_NORMED)
        if hits.min() < 0.02 or time.monotonic() > deadline:
            break
    view.close()
    assert hits.min() < 0.02  # that row is on the screen

"""The voice renders and queues without blocking (no speakers needed); explain walks the demo
game; the window's frame is drawn deterministically."""

import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from audio.voice import RATE, Engine, Espeak, Voice, find_engine
from referee.cli import cli
from referee.teach.phrases import LANGS, fixed_keys, spoken_text

ROOT = Path(__file__).resolve().parents[3]


class SlowTone(Engine):
    """A fake engine: 50 ms per phrase, a tone whose length says which text it was."""

    name, lang = "tone", "en"

    def __init__(self):
        self.calls = []

    def render(self, text):
        self.calls.append(text)
        time.sleep(0.05)
        return np.full(100 * len(text), 0.1, np.float32)


def test_say_never_blocks_and_plays_from_the_cache(tmp_path):
    played = []
    eng = SlowTone()
    v = Voice("en", lambda k: spoken_text(k, "en"), engine=eng, player=lambda x, r: played.append((len(x), r)),
              cache=tmp_path)
    t0 = time.monotonic()
    v.say("wrong", "r:mirror", "hand:right", "w:ika")
    assert time.monotonic() - t0 < 0.02  # queued, not rendered on the caller's thread
    assert v.wait(10)
    assert v.spoken == [("wrong", "r:mirror", "hand:right", "w:ika")] and len(played) == 1
    assert played[0][1] == RATE
    # cached on disk: a new voice renders nothing again
    eng2 = SlowTone()
    v2 = Voice("en", lambda k: spoken_text(k, "en"), engine=eng2, player=lambda x, r: None, cache=tmp_path)
    v2.prepare(["wrong", "r:mirror"])
    assert v2.wait(10) and eng2.calls == []
    assert np.array_equal(v2.render("wrong"), v.render("wrong"))


def test_no_engine_or_no_device_is_silent_with_one_warning():
    warned = []
    v = Voice("xx", lambda k: k, player=lambda x, r: None, warn=warned.append)  # a device, no engine
    v.say("wrong")
    v.say("wrong")
    assert not v.active and v.wait(1) and len(warned) == 1 and "no speech engine" in warned[0]
    from audio.voice import default_player
    if default_player()[0] is None:  # this machine has no sound device: one warning, no engine loaded
        warned.clear()
        v = Voice("en", lambda k: k, warn=warned.append)
        v.say("wrong")
        assert not v.active and len(warned) == 1 and "no sound output" in warned[0]


def test_every_phrase_has_text_in_both_languages():
    for lang in LANGS:
        for k in fixed_keys():
            assert spoken_text(k, lang)
    assert spoken_text("n:12", "ja") == "12" and spoken_text("slot:1", "en") == "slot ace"


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (apt-get install espeak-ng)")
def test_espeak_renders_english_phrases():
    x = Espeak("en").render(spoken_text("hand:right", "en"))
    assert x.dtype == np.float32 and 0.2 * RATE < len(x) < 3 * RATE and np.abs(x).max() > 0.05


def test_japanese_engine_renders_when_installed():
    engine, why = find_engine("ja")
    if engine is None:
        pytest.skip(f"no Japanese engine here: {why}")
    x = engine.render(spoken_text("w:ika", "ja"))
    assert 0.1 * RATE < len(x) < 3 * RATE and np.abs(x).max() > 0.01


def test_explain_the_demo_game():
    r = CliRunner().invoke(cli, ["teach", "explain", str(ROOT / "fixtures" / "demo" / "truth.jsonl")])
    assert r.exit_code == 0, r.output
    assert "Mirror is in the field: tako → RIGHT hand, say ika" in r.output
    assert "wrong: chie: raised left hand, expected right hand" in r.output
    assert "9 mistake(s) to drill:" in r.output and "ikatako tako|mirror  # chie" in r.output
    r = CliRunner().invoke(cli, ["teach", "explain", "nope.jsonl"])
    assert r.exit_code == 2 and "no such session record" in r.output


def test_drawn_scene_is_deterministic_and_shows_the_card():
    from referee.teach.draw import draw_card, draw_scene
    a = draw_scene("tako", ("mirror",), "ikatako", "React!", ("field: Mirror",), ("WRONG", ("why",), (80, 80, 240)))
    b = draw_scene("tako", ("mirror",), "ikatako", "React!", ("field: Mirror",), ("WRONG", ("why",), (80, 80, 240)))
    assert np.array_equal(a, b) and a.shape == (640, 900, 3)
    tako, ika = draw_card("tako"), draw_card("ika")
    assert not np.array_equal(tako, ika)
    # the face colour tells them apart at a glance (mean colour differs a lot)
    assert np.abs(tako.mean(axis=(0, 1)) - ika.mean(axis=(0, 1))).sum() > 100


def test_explain_mistakes_become_drills(tmp_path):
    runner = CliRunner()
    out = tmp_path / "drills.txt"
    r = runner.invoke(cli, ["teach", "explain", str(ROOT / "fixtures" / "demo" / "truth.jsonl"), "-o", str(out)])
    assert r.exit_code == 0 and out.read_text().count("\n") == 9
    r = runner.invoke(cli, ["teach", "ikatako", "--drills", str(out), "--script", "oracle", "--no-voice",
                            "--cards", "8", "--data", str(tmp_path)])
    assert r.exit_code == 0, r.output
    from referee.teach.progress import Progress
    asked = {a["situation"] for a in Progress.open("you", tmp_path).answers}
    wanted = {line.split()[1] for line in out.read_text().splitlines()}
    assert asked <= wanted and len(asked) >= 6  # the game's mistakes, nothing else


def test_a_nine_card_hand_is_drawn_whole_above_the_lines():
    """A TORATANU hand of nine cards: every card drawn above the text lines (a third row ran
    into them and lost the cards there)."""
    import cv2
    import numpy as np

    from referee.teach.draw import CARD_H, draw_scene

    hand = ("kangaroo", "rabbit", "owl", "panda", "tiger", "fox", "lion", "bear", "hippo")
    img = draw_scene("", hand, "toratanu", "Arrange the best sets", ("a line",), ("RIGHT", ("why",), (80, 220, 80)))
    band = img[60:70 + CARD_H + 16]
    light = (band.min(axis=2) > 200).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(light)
    cards = [s for s in stats[1:] if s[cv2.CC_STAT_AREA] > 2000]
    assert len(cards) == 9

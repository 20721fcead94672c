"""Japanese in the teach window: a real TrueType font through Pillow when one is installed,
romaji (and one warning, never an error) when none is."""

from __future__ import annotations

import numpy as np
import pytest

from referee.teach import fonts


@pytest.fixture
def no_font(monkeypatch):
    monkeypatch.setenv(fonts.ENV, "/nonexistent/font.ttf")
    fonts.reset()
    yield
    monkeypatch.delenv(fonts.ENV)
    fonts.reset()


def test_kana_in_romaji():
    assert fonts.romaji("イカタコ") == "ikatako"
    assert fonts.romaji("うずしお") == "uzushio"
    assert fonts.romaji("ミラー") == "miraa"
    assert fonts.romaji("サルベージ") == "sarubeeji"
    assert fonts.romaji("フライング") == "furaingu"
    assert fonts.fallback("場: ミラー") == fonts.NO_FONT_LINE  # kanji left: a pointer, not garbage
    assert fonts.fallback("タコ → 左手") == fonts.NO_FONT_LINE and fonts.fallback("タコ、イカ") == "tako, ika"


def test_without_a_font_the_window_writes_romaji_and_warns_once(no_font, capsys):
    from referee.teach.draw import draw_card, draw_scene
    a = draw_card("tako", sub="タコ")
    b = draw_card("tako", sub="tako")
    assert np.array_equal(a, b)  # the romaji of タコ is drawn
    draw_scene("tako", ("mirror",), "ikatako", "反応して!", ("場: ミラー",), ("不正解", ("場にミラー",), (80, 80, 240)))
    err = capsys.readouterr().err
    assert err.count("no Japanese font found") == 1 and "fonts-noto-cjk" in err


def test_with_a_font_japanese_is_drawn_and_deterministic(capsys):
    fonts.reset()
    if not fonts.have_font():
        pytest.skip("no Japanese font installed (apt-get install fonts-noto-cjk)")
    img = np.zeros((60, 300, 3), np.uint8)
    fonts.put_text(img, "不正解 0.66 秒", (5, 45), 30, (255, 255, 255))
    other = np.zeros_like(img)
    fonts.put_text(other, "正解 0.66 秒", (5, 45), 30, (255, 255, 255))
    again = np.zeros_like(img)
    fonts.put_text(again, "不正解 0.66 秒", (5, 45), 30, (255, 255, 255))
    assert (img > 0).sum() > 500 and not np.array_equal(img, other) and np.array_equal(img, again)
    # the digits come from the Latin font, not the Japanese font's missing-glyph box
    digits = np.zeros((60, 120, 3), np.uint8)
    fonts.put_text(digits, "0.66", (5, 45), 30, (255, 255, 255))
    tofu = np.zeros_like(digits)
    fonts.put_text(tofu, "\U0010fffd", (5, 45), 30, (255, 255, 255))
    assert (digits > 0).sum() > 100 and not np.array_equal(digits[:, :30], tofu[:, :30])
    assert fonts.wrap("場にミラー: タコ → 右手、「イカ」; あなたは左手を上げた", 200, 20)[0] != ""
    assert all(fonts.text_width(x, 20) <= 200 for x in fonts.wrap("場にミラー: タコ → 右手、「イカ」; あなたは左手を上げた", 200, 20))
    assert "warning" not in capsys.readouterr().err

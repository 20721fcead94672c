"""Text in the teach window: Japanese (and every other character) with a real TrueType font
through Pillow's ``ImageFont``, since OpenCV's Hershey fonts are ASCII only.

The font is looked up once: ``$TABLE_REFEREE_FONT`` (a font file), else the first of
:data:`CANDIDATES` that exists (Debian's ``fonts-noto-cjk``, ``fonts-ipafont-gothic``,
``fonts-droid-fallback``), else fontconfig's best match for Japanese (``fc-match :lang=ja``).
Nothing downloads. Without a font (or without Pillow) the window falls back to Hershey with
the kana written in romaji (``イカ`` → ``ika``); a line that still holds kanji is replaced by
a pointer to the terminal, where the full Japanese text is printed anyway. The fallback is
announced by one warning, never an error.

Deterministic: the same font file and text give the same pixels.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import unicodedata
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

ENV = "TABLE_REFEREE_FONT"
#: font files tried in order (Debian package in the comment)
CANDIDATES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",  # fonts-noto-cjk
    "/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf",  # fonts-ipafont-gothic
    "/usr/share/fonts/truetype/fonts-japanese-gothic.ttf",  # (the Debian alternative link)
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",  # fonts-droid-fallback
)
#: the font for what the Japanese font lacks (CJK fallback fonts have no Latin, no arrows)
LATIN = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",  # fonts-dejavu-core
         "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf")  # fonts-noto-core
HERSHEY = cv2.FONT_HERSHEY_DUPLEX
NO_FONT_LINE = "(no Japanese font: see the terminal)"


def find_font() -> Path | None:
    """The font file to use, or None (see the module doc)."""
    env = os.environ.get(ENV)
    if env:
        return Path(env) if Path(env).is_file() else None
    for c in CANDIDATES:
        if Path(c).is_file():
            return Path(c)
    if shutil.which("fc-match"):
        try:
            out = subprocess.run(["fc-match", "-f", "%{file}", ":lang=ja"], capture_output=True, text=True,
                                 timeout=5).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            out = ""
        if out and Path(out).is_file() and _covers_japanese(Path(out)):
            return Path(out)
    return None


def _covers_japanese(path: Path) -> bool:
    """fc-match always answers something: keep it only if it draws a kana and a kanji."""
    try:
        from PIL import ImageFont
        font = ImageFont.truetype(str(path), 24)
        return all(font.getmask(ch).getbbox() is not None for ch in "イ判")
    except Exception:
        return False


_warned: list[str] = []


def _warn_once(msg: str) -> None:
    if not _warned:
        _warned.append(msg)
        print(f"referee: warning: {msg}", file=sys.stderr)


@lru_cache(maxsize=1)
def _font_path() -> Path | None:
    try:
        import PIL  # noqa: F401
    except ImportError:
        _warn_once("Pillow is not installed: the window writes Japanese in romaji (pip install Pillow)")
        return None
    path = find_font()
    if path is None:
        _warn_once("no Japanese font found (install fonts-noto-cjk or fonts-ipafont-gothic, or set "
                   f"${ENV}): the window writes Japanese in romaji, the terminal has the full text")
    return path


@lru_cache(maxsize=32)
def _pil_font(size: int):
    from PIL import ImageFont
    return ImageFont.truetype(str(_font_path()), int(round(size)))


@lru_cache(maxsize=1)
def _latin_path() -> str | None:
    for c in LATIN:
        if Path(c).is_file():
            return c
    if shutil.which("fc-match"):
        try:
            out = subprocess.run(["fc-match", "-f", "%{file}", "sans"], capture_output=True, text=True,
                                 timeout=5).stdout.strip()
            return out if out and Path(out).is_file() else None
        except (OSError, subprocess.SubprocessError):
            return None
    return None


@lru_cache(maxsize=32)
def _latin_font(size: int):
    from PIL import ImageFont
    path = _latin_path()
    return ImageFont.truetype(path, size) if path else _pil_font(size)


@lru_cache(maxsize=4096)
def _has_glyph(ch: str) -> bool:
    """Whether the Japanese font draws ``ch`` (a missing glyph draws the same box as a
    private-use code point the font surely lacks)."""
    if ch.isspace():
        return True
    font = _pil_font(24)
    missing = font.getmask("\U0010fffd")
    mask = font.getmask(ch)
    return not (mask.size == missing.size and bytes(mask) == bytes(missing))


def _runs(s: str, px: int) -> list[tuple[str, object]]:
    """``s`` cut into runs drawn by one font each: the Japanese font where it has the
    glyph, the Latin font for the rest."""
    out: list[tuple[str, object]] = []
    for ch in s:
        font = _pil_font(px) if ord(ch) >= 128 and _has_glyph(ch) else _latin_font(px)
        if out and out[-1][1] is font:
            out[-1] = (out[-1][0] + ch, font)
        else:
            out.append((ch, font))
    return out


def have_font() -> bool:
    return _font_path() is not None


def _is_ascii(s: str) -> bool:
    return all(ord(c) < 128 for c in s)


def text_width(s: str, px: int) -> int:
    """The drawn width of ``s`` at ``px`` pixels (the wrapping measure)."""
    if not _is_ascii(s) and have_font():
        return int(sum(f.getlength(r) for r, f in _runs(s, int(round(px)))))
    (w, _), _ = cv2.getTextSize(fallback(s), HERSHEY, px / 30.0, 1)
    return w


def put_text(img: np.ndarray, s: str, org: tuple[int, int], px: float, colour, bold: bool = False) -> None:
    """Write ``s`` on the BGR image ``img`` with its baseline at ``org`` (as ``cv2.putText``),
    ``px`` pixels tall (Hershey at scale ``px / 30`` for ASCII, the TrueType font otherwise)."""
    if not s:
        return
    if _is_ascii(s) or not have_font():  # Latin stays in Hershey (crisp, as the cards' names)
        cv2.putText(img, fallback(s), org, HERSHEY, px / 30.0, colour, 2 if bold else 1, cv2.LINE_AA)
        return
    from PIL import Image, ImageDraw
    size = int(round(px))
    runs = _runs(s, size)
    ascent = max(f.getmetrics()[0] for _, f in runs)
    descent = max(f.getmetrics()[1] for _, f in runs)
    x, y = org
    y0 = max(0, y - ascent)
    x1, y1 = min(img.shape[1], x + text_width(s, px) + 4), min(img.shape[0], y + descent + 2)
    if x1 <= x or y1 <= y0:
        return
    region = Image.fromarray(np.ascontiguousarray(img[y0:y1, x:x1, ::-1]))
    draw = ImageDraw.Draw(region)
    rgb = (int(colour[2]), int(colour[1]), int(colour[0]))
    dx = 0.0
    for run, font in runs:
        draw.text((dx, y - y0), run, font=font, fill=rgb, anchor="ls", stroke_width=1 if bold else 0, stroke_fill=rgb)
        dx += font.getlength(run)
    img[y0:y1, x:x1] = np.asarray(region)[..., ::-1]


def wrap(s: str, width_px: int, px: int) -> list[str]:
    """Lines of ``s`` no wider than ``width_px``: at spaces, and anywhere in Japanese (no spaces)."""
    out, cur = [], ""
    tokens = s.split(" ") if _is_ascii(s) else _ja_tokens(s)
    for tok in tokens:
        sep = " " if cur and (_is_ascii(tok) and _is_ascii(cur[-1:])) else ""
        cand = f"{cur}{sep}{tok}" if cur else tok
        if cur and text_width(cand, px) > width_px:
            out.append(cur)
            cur = tok.lstrip()
        else:
            cur = cand
    return out + ([cur] if cur else [])


def _ja_tokens(s: str) -> list[str]:
    """Words for wrapping mixed text: ASCII runs stay whole (with their spaces), other
    characters break anywhere."""
    toks, run = [], ""
    for ch in s:
        if ord(ch) < 128:
            run += ch
        else:
            if run:
                toks.append(run)
                run = ""
            toks.append(ch)
    if run:
        toks.append(run)
    return toks


# ----------------------------------------------------------------------------- fallback

_KANA = {
    "キャ": "kya", "キュ": "kyu", "キョ": "kyo", "シャ": "sha", "シュ": "shu", "ショ": "sho", "チャ": "cha", "チュ": "chu",
    "チョ": "cho", "ニャ": "nya", "ニュ": "nyu", "ニョ": "nyo", "ヒャ": "hya", "ヒュ": "hyu", "ヒョ": "hyo", "ミャ": "mya",
    "ミュ": "myu", "ミョ": "myo", "リャ": "rya", "リュ": "ryu", "リョ": "ryo", "ギャ": "gya", "ギュ": "gyu", "ギョ": "gyo",
    "ジャ": "ja", "ジュ": "ju", "ジョ": "jo", "ビャ": "bya", "ビュ": "byu", "ビョ": "byo", "ピャ": "pya", "ピュ": "pyu",
    "ピョ": "pyo", "ティ": "ti", "ディ": "di", "ファ": "fa", "フィ": "fi", "フェ": "fe", "フォ": "fo", "ウィ": "wi",
    "ウェ": "we", "ウォ": "wo", "ヴァ": "va",
    "ア": "a", "イ": "i", "ウ": "u", "エ": "e", "オ": "o", "カ": "ka", "キ": "ki", "ク": "ku", "ケ": "ke", "コ": "ko",
    "サ": "sa", "シ": "shi", "ス": "su", "セ": "se", "ソ": "so", "タ": "ta", "チ": "chi", "ツ": "tsu", "テ": "te",
    "ト": "to", "ナ": "na", "ニ": "ni", "ヌ": "nu", "ネ": "ne", "ノ": "no", "ハ": "ha", "ヒ": "hi", "フ": "fu",
    "ヘ": "he", "ホ": "ho", "マ": "ma", "ミ": "mi", "ム": "mu", "メ": "me", "モ": "mo", "ヤ": "ya", "ユ": "yu",
    "ヨ": "yo", "ラ": "ra", "リ": "ri", "ル": "ru", "レ": "re", "ロ": "ro", "ワ": "wa", "ヲ": "o", "ン": "n",
    "ガ": "ga", "ギ": "gi", "グ": "gu", "ゲ": "ge", "ゴ": "go", "ザ": "za", "ジ": "ji", "ズ": "zu", "ゼ": "ze",
    "ゾ": "zo", "ダ": "da", "ヂ": "ji", "ヅ": "zu", "デ": "de", "ド": "do", "バ": "ba", "ビ": "bi", "ブ": "bu",
    "ベ": "be", "ボ": "bo", "パ": "pa", "ピ": "pi", "プ": "pu", "ペ": "pe", "ポ": "po", "ヴ": "vu",
    "ァ": "a", "ィ": "i", "ゥ": "u", "ェ": "e", "ォ": "o", "ャ": "ya", "ュ": "yu", "ョ": "yo",
}
_PUNCT = {"、": ", ", "。": ". ", "「": '"', "」": '"', "（": "(", "）": ")", "：": ": ", "→": "->", "…": "...",
          "×": "x", "−": "-", "・": " ", "ー": "-", "　": " ", "！": "!", "？": "?"}


def romaji(s: str) -> str:
    """Kana to romaji (hiragana through katakana), punctuation to ASCII; other characters kept."""
    kata = "".join(chr(ord(c) + 0x60) if "ぁ" <= c <= "ゖ" else c for c in s)
    out, i = [], 0
    while i < len(kata):
        two, one = kata[i:i + 2], kata[i]
        if one == "ッ" and i + 1 < len(kata):  # the small tsu doubles the next consonant
            nxt = _KANA.get(kata[i + 1:i + 3]) or _KANA.get(kata[i + 1], "")
            out.append(nxt[:1])
            i += 1
        elif two in _KANA:
            out.append(_KANA[two])
            i += 2
        elif one == "ー" and out:
            out.append(out[-1][-1:])  # a long vowel: the vowel again
            i += 1
        else:
            out.append(_KANA.get(one, _PUNCT.get(one, one)))
            i += 1
    return "".join(out)


def fallback(s: str) -> str:
    """What Hershey can draw of ``s``: ASCII as is, kana in romaji; a line with anything else
    left (kanji) becomes :data:`NO_FONT_LINE`."""
    if _is_ascii(s):
        return s
    r = unicodedata.normalize("NFKC", romaji(s))
    r = "".join(_PUNCT.get(c, c) for c in r)
    return r if _is_ascii(r) else NO_FONT_LINE


def reset() -> None:
    """Forget the font found (tests that change ``$TABLE_REFEREE_FONT``)."""
    for f in (_font_path, _pil_font, _latin_path, _latin_font, _has_glyph):
        f.cache_clear()
    _warned.clear()

"""The small pieces of teaching's words a game's drills write with (both languages side by
side). Apart from :mod:`referee.teach.phrases`, which knows every game's words through the
drills' declarations: the drills import these, the phrases import the drills, never back."""

from __future__ import annotations


def word_key(token: str) -> str:
    """The phrase key of a spoken game token (``ika`` → ``w:ika``, ``8`` → ``n:8``)."""
    return f"n:{token}" if token.isdigit() else f"w:{token}"


def text(lang: str, en: str, ja: str) -> str:
    """Pick the screen text of one language (the drill modules write both side by side)."""
    return ja if lang == "ja" else en


HAND_TEXT = {"en": {"left": "LEFT hand", "right": "RIGHT hand", "both": "BOTH hands", "none": "no hand"},
             "ja": {"left": "左手", "right": "右手", "both": "両手", "none": "手は上げない"}}

"""What the live table hears and reads of a TORATANU night (the live voice and the window's
headline ask the judging module: :mod:`referee.live.voice`, ``game_words``).

A night's verdict is said once, as phrases from a finite set (:func:`phrases`), so a voice
can render them all when the session starts: "night scored", then each player whose tally
was not read ("ben", "not scored"), or "special card not read" when tonight's special card
was not (then nobody is scored). The scores and each player's best arrangement are on the
screen, not said (numbers up to a few hundred, read better than heard;
:mod:`referee.live.nights`). The game's end is the window's final result, as for every game."""

from __future__ import annotations

from typing import Any

from referee.judging.base import SpokenWords

FIXED = ("night scored", "not scored", "special card not read")
#: the fixed phrases in Japanese (``--lang ja``); names as they are
JA_WORDS = {"night scored": "夜の得点を数えました", "not scored": "は得点なし",
            "special card not read": "特別カードが読めません"}


def _special_unread(line: dict[str, Any]) -> bool:
    """Whether the night went unscored because its special card was not read (every player
    is then unclear for the same reason, :class:`referee.judging.toratanu.Judge`)."""
    return line.get("special") is None and bool(line.get("unclear")) and not line.get("scores") \
        and all("special card" in str(why) for why in (line.get("unclear") or {}).values())


def announcement(line: dict[str, Any]) -> tuple[str, ...]:
    """The phrases said for one night's verdict (none for any other line)."""
    if line.get("type") != "verdict" or "game" not in line:
        return ()
    if _special_unread(line):
        return ("special card not read",)
    said: tuple[str, ...] = ("night scored",)
    for p in (line.get("unclear") or {}):
        said += (str(p), "not scored")
    return said


WORDS = SpokenWords(FIXED, JA_WORDS)
#: every phrase :func:`announcement` can say at a table of players; a phrase in the table's language
phrases, phrase_text = WORDS.phrases, WORDS.phrase_text


def announcement_text(line: dict[str, Any]) -> str | None:
    """One night's outcome as one line for the live window: "night 1 scored: aki 185, ben 130,
    chie 100", "night 2 scored: aki 89, chie 87 (ben not scored: unclear)", "night 1 not
    scored: the special card was not read"; None for any other line."""
    if not announcement(line):
        return None
    night = line.get("game")
    if _special_unread(line):
        return f"night {night} not scored: the special card was not read"
    scores = line.get("scores") or {}
    unclear = list((line.get("unclear") or {}).keys())
    text = f"night {night} scored: " + (", ".join(f"{p} {s}" for p, s in scores.items()) or "nobody")
    return text + (f" ({', '.join(unclear)} not scored: unclear)" if unclear else "")

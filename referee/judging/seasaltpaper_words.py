"""What the live table hears and reads of a Sea Salt & Paper round (the live voice and the
window's headline ask the judging module: :mod:`referee.live.voice`, ``game_words``).

A round's verdict is said once, as phrases from a finite set (:func:`phrases`), so a voice
can render them all when the session starts: the caller and the call ("aki", "STOP"), then
the outcome ("round scored"; LAST CHANCE: "won the bet" / "lost the bet"; "not settled" when
a hand was not all read), a caller under 7 card points ("fewer than 7 points") and each
player whose cards were not all read ("ben", "not scored"). The numbers are on the screen,
not said (each player's tally, :mod:`referee.live.tallies`)."""

from __future__ import annotations

from typing import Any

from referee.judging.base import SpokenWords

CALL_SAID = {"stop": "STOP", "lastchance": "LAST CHANCE"}
FIXED = ("STOP", "LAST CHANCE", "round scored", "won the bet", "lost the bet", "not settled",
         "fewer than 7 points", "not scored", "the deck ran out", "four mermaids", "wins the game")
#: the fixed phrases in Japanese (``--lang ja``); names as they are
JA_WORDS = {"STOP": "ストップ", "LAST CHANCE": "ラストチャンス", "round scored": "得点しました",
            "won the bet": "の賭けは成功", "lost the bet": "の賭けは失敗", "not settled": "決まりません",
            "fewer than 7 points": "7点未満", "not scored": "は得点なし", "the deck ran out": "山札切れ",
            "four mermaids": "人魚4枚", "wins the game": "の勝ち"}


def announcement(line: dict[str, Any]) -> tuple[str, ...]:
    """The phrases said for one round's verdict (none for any other line)."""
    if line.get("type") != "verdict" or "round" not in line:
        return ()
    call, caller = line.get("call"), str(line.get("caller") or "")
    if call == "emptydeck":
        return ("the deck ran out",)
    if call == "mermaids":
        return (caller, "four mermaids", "wins the game")
    said: tuple[str, ...] = (caller, CALL_SAID.get(str(call), str(call)))
    unclear = list((line.get("unclear") or {}).keys())
    if call == "lastchance" and not line.get("scores"):
        return said + ("not settled",)
    if line.get("legal") is False:
        said += ("fewer than 7 points",)
    if call == "lastchance":
        said += ("won the bet" if line.get("caller_won") else "lost the bet",)
    else:
        said += ("round scored",)
    for p in unclear:
        said += (str(p), "not scored")
    return said


WORDS = SpokenWords(FIXED, JA_WORDS)
#: every phrase :func:`announcement` can say at a table of players; a phrase in the table's language
phrases, phrase_text = WORDS.phrases, WORDS.phrase_text


def announcement_text(line: dict[str, Any]) -> str | None:
    """One round's outcome as one line for the live window: "aki called STOP: round scored",
    "ben called LAST CHANCE and won the bet", "LAST CHANCE not settled: aki's cards not all
    read"; None for any other line."""
    said = announcement(line)
    if not said:
        return None
    call = line.get("call")
    if call in ("emptydeck", "mermaids"):
        return "the deck ran out: no points" if call == "emptydeck" else f"{said[0]} holds the four mermaids and wins"
    head = f"{said[0]} called {said[1]}"
    unclear = list((line.get("unclear") or {}).keys())
    if "not settled" in said:
        own = [p for p, why in (line.get("unclear") or {}).items() if not str(why).startswith("the LAST CHANCE bet")]
        return f"{said[1]} not settled: " + ", ".join(f"{p}'s cards not all read" for p in own or unclear)
    short = " (fewer than 7 points)" if line.get("legal") is False else ""
    if call == "lastchance":
        return f"{head}{short} and {'won' if line.get('caller_won') else 'lost'} the bet"
    return f"{head}{short}: round scored" + (f" ({', '.join(unclear)} not scored: cards unclear)" if unclear else "")

"""What the IKATAKO drills say and show: the keys, the card and rule texts, what the learner did
and what was not perceived, in English and Japanese."""

from __future__ import annotations

from typing import Sequence

from referee.teach.core import Situation
from referee.teach.drills.base import RivalAnswer
from referee.teach.texts import HAND_TEXT, text
from rules import ikatako as R


WORD_KEYS = {"i": "ika", "t": "tako", "k": "ikatako", "u": "uzushio", "s": "salvage",
             "2": "2", "3": "3", "4": "4", "5": "5", "8": "8", "0": "10"}


NAME_KEYS = {"i": "ika", "t": "tako", "k": "ikatako", "u": "uzushio", "s": "salvage"}


HAND_KEYS = {"f": "left", "j": "right"}


KEY_OF_WORD = {v: k for k, v in WORD_KEYS.items()}


TROUBLE_TEXT = {"en": {"mirror": "Mirror", "number": "Number", "repeat": "Repeat"},
                "ja": {"mirror": "ミラー", "number": "ナンバー", "repeat": "リピート"}}


#: the calls' Japanese as the game declares it (rules.ikatako: GAME.calls)
SAID_JA = {w.token: w.shown("ja") for w in R.GAME.calls.words}


CARD_TEXT_JA = {**{t: SAID_JA[t] for t in ("ika", "tako", "ikatako")}, "uzushio6": SAID_JA["uzushio"] + "6",
                "uzushio9": SAID_JA["uzushio"] + "9", "salvage": SAID_JA["salvage"], "mirror": "ミラー",
                "number": "ナンバー", "repeat": "リピート"}


def card_text(card: str, lang: str) -> str:
    return CARD_TEXT_JA.get(card, card) if lang == "ja" else card


def situation(rule: str, card: str, troubles: Sequence[str] = ()) -> Situation:
    ordered = tuple(t for t in R.TROUBLES if t in troubles)
    return Situation("ikatako", rule, f"{card}|{'+'.join(ordered)}", {"card": card, "troubles": list(ordered)})


def fact_text(card: str, exp: R.Reaction, lang: str) -> str:
    c = card_text(card, lang)
    if not exp.required:
        return text(lang, f"{c} → nobody reacts (it stays in the field)", f"{c} → 誰も反応しない(場に残る)")
    say = " ".join(card_text(w, lang) for w in exp.say)
    hands = HAND_TEXT[lang][exp.hands]
    return text(lang, f"{c} → {hands}, say {say}", f"{c} → {hands}、「{say}」")


def rule_text(card: str, troubles: Sequence[str], lang: str) -> tuple[str, list[str]]:
    kind = R.kind(card)
    if kind == "trouble":
        return text(lang, "A trouble card", "トラブルカード"), ["r:trouble"]
    if card == "ikatako":
        return text(lang, "Ikatako is always both hands, whatever lies in the field",
                    "イカタコは場に何があっても両手"), ["r:ikatako"]
    if kind == "special":
        return text(lang, "A special card: no hand, say its name", "スペシャルカード: 手は上げず名前を言う"), ["r:special"]
    if kind == "normal":
        if troubles:
            names = joined([TROUBLE_TEXT[lang][t] for t in troubles], lang)
            verb = "is" if len(troubles) == 1 else "are"
            return text(lang, f"{names} {verb} in the field, but troubles change only ika and tako",
                        f"場に{names}、でもトラブルが変えるのはイカとタコだけ"), ["r:plain"]
        return text(lang, "A number card: no hand, say the number", "数字カード: 手は上げず数字を言う"), ["r:plain"]
    if not troubles:
        return text(lang, "No trouble in the field", "場にトラブルなし"), ["r:plain"]
    names = joined([TROUBLE_TEXT[lang][t] for t in troubles], lang)
    verb = "is" if len(troubles) == 1 else "are"
    return text(lang, f"{names} {verb} in the field", f"場に{names}"), [f"r:{t}" for t in troubles]


def joined(items: list[str], lang: str) -> str:
    if lang == "ja":
        return "と".join(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def not_perceived(reason: str, lang: str) -> str:
    """What the drill says when the referee could not judge the learner (the verdict's
    ``unclear`` reason): it could not see them (a seat not seen), else it could not hear them
    — never "wrong"."""
    if "not seen" in reason:
        return text(lang, f"I could not see you ({reason}): not judged, try again",
                    f"見えませんでした ({reason}): 判定なし、もう一度")
    return text(lang, f"I could not hear you ({reason}): not judged, try again",
                f"聞き取れませんでした ({reason}): 判定なし、もう一度")


def did_text(hands: set[str], words: list[str], exp: R.Reaction, verdict: str, lang: str) -> str:
    if verdict == "missed":
        return text(lang, "you did nothing in time", "時間内に何もしなかった")
    if verdict == "correct":
        return ""
    parts = []
    side = "both" if hands == {"left", "right"} else (next(iter(hands)) if hands else "none")
    if side != exp.hands:
        h = HAND_TEXT[lang][side]
        parts.append(text(lang, f"you raised {h.replace(' hand', '').replace(' hands', '')}" if hands
                          else "you raised no hand", f"あなたは{h}を上げた" if hands else "あなたは手を上げなかった"))
    if tuple(words) != tuple(exp.say):
        said = " ".join(card_text(w, lang) for w in words)
        parts.append(text(lang, f"you said {said}" if words else "you said nothing",
                          f"あなたは「{said}」と言った" if words else "あなたは何も言わなかった"))
    return text(lang, ", ".join(parts), "、".join(parts))


def rival_text(v: dict, learner: str, rival: RivalAnswer, lang: str) -> str:
    first = v.get("first")
    tie = v.get("tie") or []
    if learner in tie:
        return text(lang, f"tie with the rival ({rival.t:.2f} s)", f"ライバルと同時 ({rival.t:.2f} 秒)")
    if first == "rival" and learner not in v.get("correct", []):
        return text(lang, f"the rival took the card ({rival.t:.2f} s)", f"ライバルがカードを取った ({rival.t:.2f} 秒)")
    if first == "rival":
        return text(lang, f"the rival was first ({rival.t:.2f} s)", f"ライバルが先 ({rival.t:.2f} 秒)")
    if first == learner:
        margin = v.get("margin")
        by = f" by {margin:.2f} s" if margin is not None else ""
        return text(lang, f"you beat the rival{by}", f"ライバルに勝った{' ' + format(margin, '.2f') + ' 秒差' if margin else ''}")
    return text(lang, "nobody took the card", "誰もカードを取らなかった") if rival.correct is False else ""


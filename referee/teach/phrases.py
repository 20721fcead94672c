"""The words of teaching, in English and Japanese: what the screen shows and what the voice says.

Spoken feedback is a sequence of **phrase keys** (``correct``, ``r:mirror``, ``hand:right``,
``w:ika``, ``n:12`` …), each one short clip the voice renders once per session and plays
from its cache; :func:`spoken_text` gives the text of a key. Numbers (``n:N``) are the only
open-ended keys (co-op totals, scores); they are rendered when first needed. The game words
(``w:<token>``) are the ones each game's teaching says (``Teaching.words``), spelled as the
game declares its calls (``Game.calls``: the one copy of their Japanese).
"""

from __future__ import annotations

from functools import lru_cache

from referee.teach.texts import text, word_key  # noqa: F401 (text: the drills' words, said here too)

LANGS = ("en", "ja")

_FIXED: dict[str, tuple[str, str]] = {
    # verdicts
    "correct": ("correct", "正解"),
    "wrong": ("wrong", "ちがいます"),
    "missed": ("too late", "時間切れ"),
    "false_start": ("false start", "フライング"),
    "unclear": ("I could not hear you", "聞き取れませんでした"),
    "slow": ("correct, but slow", "正解、でも遅い"),
    "level_up": ("level up", "レベルアップ"),
    "rival_first": ("the rival was first", "ライバルが先"),
    "you_first": ("you were first", "あなたが先"),
    # IKATAKO rules and answers
    "r:plain": ("no trouble in the field", "場にトラブルなし"),
    "r:mirror": ("mirror", "ミラー"),
    "r:number": ("number", "ナンバー"),
    "r:repeat": ("repeat", "リピート"),
    "r:trouble": ("a trouble card: nobody reacts", "トラブルカード、反応しない"),
    "r:ikatako": ("ikatako: always both hands", "イカタコは、いつも両手"),
    "r:special": ("a special card: say its name", "スペシャルカード、名前を言う"),
    "r:total": ("the running total", "合計"),
    "r:uzushio": ("uzushio reverses the order", "うずしおで順番が逆"),
    "hand:left": ("left hand", "左手"),
    "hand:right": ("right hand", "右手"),
    "hand:both": ("both hands", "両手"),
    "hand:none": ("no hand", "手は上げない"),
    "nothing": ("do nothing", "何もしない"),
    "next": ("next", "次は"),
    # MOKOCHAKA
    "r:gabu": ("gabu eats moko", "ガブがモコを食べる"),
    "r:pome": ("pome first", "ポメが先"),
    "r:same": ("all the same: twice", "全部同じ、二回"),
    "r:most": ("most first", "多い順"),
    "r:specialcall": ("a special call", "特別コール"),
    "r:grab": ("grab the token", "トークンを取る"),
    # TAKOYAKI
    "slot": ("slot", "スロット"),
    "discard": ("discard", "捨てる"),
    "goes_on": ("the turn goes on", "続ける"),
    "ends": ("the turn ends", "ターン終了"),
    # Sea Salt & Paper, TORATANU
    "points": ("points", "点"),
    "may_stop": ("may say stop", "ストップできる"),
    "may_not_stop": ("may not say stop", "ストップできない"),
    "best": ("the best is", "最高は"),
}

_JA_SLOT = {1: "エース"}


def spoken_text(key: str, lang: str) -> str:
    """The text of phrase ``key`` in ``lang`` (``n:N`` a number, ``slot:N`` a griddle slot)."""
    i = LANGS.index(lang)
    if key.startswith("n:"):
        return key[2:]
    if key.startswith("slot:"):
        n = int(key[5:])
        if lang == "ja":
            return f"スロット{_JA_SLOT.get(n, str(n))}"
        return "slot ace" if n == 1 else f"slot {n}"
    if key.startswith("w:"):
        return _words()[key[2:]][i]
    return _FIXED[key][i]


def fixed_keys() -> tuple[str, ...]:
    """Every closed-set phrase key (what a session renders up front)."""
    return tuple(_FIXED) + tuple(word_key(t) for t in _words())


@lru_cache(maxsize=1)
def _words() -> dict[str, tuple[str, str]]:
    """Each game word the teaching says -> (English, Japanese): the token, and its words'
    Japanese run together (a MOKOCHAKA special call is its names said in one go)."""
    import rules
    from audio.calls import name_words
    from referee.teach.drills import games, teaching

    out: dict[str, tuple[str, str]] = {}
    for game in games():
        vocab = rules.get(game).vocabulary() if rules.get(game).calls is not None else None
        for token in teaching(game).words:
            out[token] = (token, "".join(w.shown("ja") for w in name_words(vocab, token)))
    return out


VERDICT_TEXT = {"en": {"correct": "CORRECT", "wrong": "WRONG", "missed": "TOO LATE", "false_start": "FALSE START",
                       "unclear": "NOT JUDGED"},
                "ja": {"correct": "正解", "wrong": "不正解", "missed": "時間切れ", "false_start": "フライング",
                       "unclear": "判定なし"}}

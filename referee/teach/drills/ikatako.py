"""IKATAKO drills: versus reactions with 0–3 trouble cards, and co-op's running total and
uzushio's reversal. Every right answer comes from ``rules.ikatako``; every answer is judged
by the referee's IKATAKO judge on a small drill record.

Keys (versus): ``f`` LEFT hand, ``j`` RIGHT hand (both: press both), words ``i`` ika,
``t`` tako, ``k`` ikatako, ``u`` uzushio, ``s`` salvage, ``2``–``5`` and ``8`` the numbers,
``0`` ten; a word pressed twice is said twice (Repeat). Co-op: the same hand and name keys,
the digits type the total (``1`` ``2`` → 12). Uzushio drill: ``1``–``4`` the next player.
``enter`` submits (with nothing pressed: "I do nothing", the answer to a trouble card).

Decisions: the drill record's trouble cards are revealed before the drilled card (nobody
reacts to them, so they cost nothing); the learner's first word press is the shout's onset
and every word before ``enter`` belongs to it (one utterance); a "do nothing" answer is timed
at its ``enter``. The uzushio drill's answer (who plays next) comes from the rules' co-op
state after a correct declaration (a question about the order, not a declaration: no record).
"""

from __future__ import annotations

from typing import Sequence

from rules import ikatako as R
from referee.judging.verdicts import verdict_of
from referee.judging.verdicts.ikatako import CoopVerdict, VersusVerdict
from referee.teach.core import CARD_T, Feedback, Level, Press, Situation, false_start, header, judge_lines, \
    presses_before, rt, verdict_at
from session.events import CardEvent, EndEvent, Event, HandEvent, ShoutEvent
from referee.teach.drills.base import CardLook, Drill, DrillEntry, RivalAnswer, Screen, Teaching, words_of
from referee.teach.texts import HAND_TEXT, text, word_key

WORD_KEYS = {"i": "ika", "t": "tako", "k": "ikatako", "u": "uzushio", "s": "salvage",
             "2": "2", "3": "3", "4": "4", "5": "5", "8": "8", "0": "10"}
NAME_KEYS = {"i": "ika", "t": "tako", "k": "ikatako", "u": "uzushio", "s": "salvage"}
HAND_KEYS = {"f": "left", "j": "right"}
_KEY_OF_WORD = {v: k for k, v in WORD_KEYS.items()}
TROUBLE_TEXT = {"en": {"mirror": "Mirror", "number": "Number", "repeat": "Repeat"},
                "ja": {"mirror": "ミラー", "number": "ナンバー", "repeat": "リピート"}}
#: the calls' Japanese as the game declares it (rules.ikatako: GAME.calls)
_SAID = {w.token: w.shown("ja") for w in R.GAME.calls.words}
CARD_TEXT_JA = {**{t: _SAID[t] for t in ("ika", "tako", "ikatako")}, "uzushio6": _SAID["uzushio"] + "6",
                "uzushio9": _SAID["uzushio"] + "9", "salvage": _SAID["salvage"], "mirror": "ミラー",
                "number": "ナンバー", "repeat": "リピート"}


def _card_text(card: str, lang: str) -> str:
    return CARD_TEXT_JA.get(card, card) if lang == "ja" else card


def _sit(rule: str, card: str, troubles: Sequence[str] = ()) -> Situation:
    ordered = tuple(t for t in R.TROUBLES if t in troubles)
    return Situation("ikatako", rule, f"{card}|{'+'.join(ordered)}", {"card": card, "troubles": list(ordered)})


def _versus_levels() -> tuple[Level, ...]:
    T = R.TROUBLES
    numbers = tuple(_sit("numbers", c) for c in ("2", "3", "4", "5", "uzushio6", "uzushio9", "salvage"))
    creatures = tuple(_sit("creatures", c) for c in ("ika", "tako", "ikatako"))
    one = tuple(_sit("one_trouble", c, [t]) for t in T for c in ("ika", "tako")) + tuple(
        _sit("one_trouble", t) for t in T) + (_sit("one_trouble", "ikatako", ["mirror"]),
                                             _sit("one_trouble", "3", ["number"]))
    pairs = [(a, b) for i, a in enumerate(T) for b in T[i + 1:]]
    stacked = tuple(_sit("stacked", c, p) for p in pairs + [tuple(T)] for c in ("ika", "tako")) + (
        _sit("stacked", "ikatako", T), _sit("stacked", "5", ("mirror", "number")))
    fast = tuple(_sit("fast", s.data["card"], s.data["troubles"]) for s in one[:6] + stacked[:8])
    title = lambda en, ja: {"en": en, "ja": ja}  # noqa: E731
    return (
        Level("numbers", title("numbers and specials: say the card", "数字とスペシャル: カードを言う"), numbers, 1.5),
        Level("creatures", title("ika and tako: the hand and the name", "イカとタコ: 手と名前"), creatures, 1.6),
        Level("one_trouble", title("one trouble card in the field", "場にトラブル1枚"), one, 2.0),
        Level("stacked", title("stacked troubles (Mirror → Number → Repeat)", "トラブルの重ね(ミラー→ナンバー→リピート)"),
              stacked, 2.5),
        Level("fast", title("the same, in a 1.5 s window", "同じ問題を1.5秒以内に"), fast, 1.3, window_s=1.5),
    )


def _fact(card: str, exp: R.Reaction, lang: str) -> str:
    c = _card_text(card, lang)
    if not exp.required:
        return text(lang, f"{c} → nobody reacts (it stays in the field)", f"{c} → 誰も反応しない(場に残る)")
    say = " ".join(_card_text(w, lang) for w in exp.say)
    hands = HAND_TEXT[lang][exp.hands]
    return text(lang, f"{c} → {hands}, say {say}", f"{c} → {hands}、「{say}」")


def _rule(card: str, troubles: Sequence[str], lang: str) -> tuple[str, list[str]]:
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
            names = _join([TROUBLE_TEXT[lang][t] for t in troubles], lang)
            verb = "is" if len(troubles) == 1 else "are"
            return text(lang, f"{names} {verb} in the field, but troubles change only ika and tako",
                        f"場に{names}、でもトラブルが変えるのはイカとタコだけ"), ["r:plain"]
        return text(lang, "A number card: no hand, say the number", "数字カード: 手は上げず数字を言う"), ["r:plain"]
    if not troubles:
        return text(lang, "No trouble in the field", "場にトラブルなし"), ["r:plain"]
    names = _join([TROUBLE_TEXT[lang][t] for t in troubles], lang)
    verb = "is" if len(troubles) == 1 else "are"
    return text(lang, f"{names} {verb} in the field", f"場に{names}"), [f"r:{t}" for t in troubles]


def _join(items: list[str], lang: str) -> str:
    if lang == "ja":
        return "と".join(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _not_perceived(reason: str, lang: str) -> str:
    """What the drill says when the referee could not judge the learner (the verdict's
    ``unclear`` reason): it could not see them (a seat not seen), else it could not hear them
    — never "wrong"."""
    if "not seen" in reason:
        return text(lang, f"I could not see you ({reason}): not judged, try again",
                    f"見えませんでした ({reason}): 判定なし、もう一度")
    return text(lang, f"I could not hear you ({reason}): not judged, try again",
                f"聞き取れませんでした ({reason}): 判定なし、もう一度")


def _did(hands: set[str], words: list[str], exp: R.Reaction, verdict: str, lang: str) -> str:
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
        said = " ".join(_card_text(w, lang) for w in words)
        parts.append(text(lang, f"you said {said}" if words else "you said nothing",
                          f"あなたは「{said}」と言った" if words else "あなたは何も言わなかった"))
    return text(lang, ", ".join(parts), "、".join(parts))


class VersusDrill(Drill):
    """IKATAKO versus: the hand(s) and the word(s) for a card with troubles in the field."""

    def __init__(self) -> None:
        super().__init__(name="ikatako", game="ikatako", mode="versus", reaction=True,
                         _levels=_versus_levels())

    def make(self, key: str) -> Situation | None:
        known = self.situation(key)
        if known is not None:
            return known
        card, _, rest = key.partition("|")
        troubles = [t for t in rest.split("+") if t]
        try:
            R.expected_reaction(card, troubles)
        except Exception:
            return None
        kind = R.kind(card)
        rule = ("stacked" if len(troubles) > 1 else "one_trouble" if troubles or kind == "trouble"
                else "creatures" if kind == "danger" else "numbers")
        return _sit(rule, card, troubles)

    def screen(self, sit: Situation, lang: str) -> Screen:
        troubles = tuple(sit.data["troubles"])
        field = text(lang, "field: ", "場: ") + (", ".join(TROUBLE_TEXT[lang][t] for t in troubles) or "-")
        return Screen(title=text(lang, "React!", "反応して!"), card=sit.data["card"], field=troubles,
                      lines=(field,), game="ikatako",
                      keys=text(lang, "F left  J right  |  i ika  t tako  k ikatako  u uzushio  s salvage  "
                                "2-5 8 0=10  (twice = Repeat)  |  enter: done",
                                "F 左  J 右 | i イカ t タコ k イカタコ u うずしお s サルベージ 2-5 8 0=10 (二回=リピート) | enter 決定"))

    def oracle(self, sit: Situation) -> list[str]:
        exp = R.expected_reaction(sit.data["card"], sit.data["troubles"])
        keys = [k for k, side in HAND_KEYS.items() if side in exp.sides]
        return keys + [_KEY_OF_WORD[w] for w in exp.say] + ["enter"]

    def answer_text(self, sit: Situation, presses: Sequence[Press]) -> str:
        ans = presses_before(presses)
        hands = sorted({HAND_KEYS[p.key] for p in ans if p.key in HAND_KEYS})
        words, _ = words_of(ans, WORD_KEYS)
        return f"{'+'.join(hands) or 'none'}:{' '.join(words)}"

    def record(self, sit: Situation, presses: Sequence[Press], level: Level, learner: str,
               rival: RivalAnswer | None) -> list[Event]:
        players = [learner, "rival"]  # versus needs two; without a ghost the rival does nothing
        rec: list[Event] = [header("ikatako", players, {"window": level.window_s}, sit, mode="versus")]
        for i, t in enumerate(sit.data["troubles"]):
            rec.append(CardEvent(t=rt(0.1 * (i + 1)), card=t, zone="field"))
        rec.append(CardEvent(t=CARD_T, card=sit.data["card"], zone="field"))
        ans = presses_before(presses)
        for p in ans:
            if p.key in HAND_KEYS:
                rec.append(HandEvent(t=rt(CARD_T + p.t), player=learner, side=HAND_KEYS[p.key], state="up"))
        words, first = words_of(ans, WORD_KEYS)
        if words:
            rec.append(ShoutEvent(t=rt(CARD_T + first), player=learner, words=tuple(words)))
        if rival:
            exp = R.expected_reaction(sit.data["card"], sit.data["troubles"])
            if rival.correct and exp.required:
                for side in sorted(exp.sides):
                    rec.append(HandEvent(t=rt(CARD_T + rival.t - 0.05), player="rival", side=side, state="up"))
                rec.append(ShoutEvent(t=rt(CARD_T + rival.t), player="rival", words=tuple(exp.say)))
        rec.append(EndEvent(t=rt(CARD_T + level.window_s + 0.5)))
        return rec

    def feedback(self, sit, presses, level, lang, learner="you", rival=None) -> Feedback:
        exp = R.expected_reaction(sit.data["card"], sit.data["troubles"])
        rec = self.record(sit, presses, level, learner, rival)
        lines = judge_lines(rec)
        v = verdict_at(lines, CARD_T) or {}
        ans = presses_before(presses)
        hands = {HAND_KEYS[p.key] for p in ans if p.key in HAND_KEYS}
        words, _ = words_of(ans, WORD_KEYS)
        last = rt(ans[-1].t) if ans else None
        if last is None and not exp.required:
            submit = [p.t for p in presses if p.key == "enter" and p.t >= 0]
            last = submit[0] if submit else None
        fb = self.explain(sit, v, learner, hands, words, lang, early=false_start(presses), last=last)
        fb.answered, fb.record, fb.lines = self.answer_text(sit, presses), rec, lines
        if fb.verdict == "wrong":  # (a false start is no confusion: nothing was answered in time)
            fb.answered_as = self.answered_as(sit, presses)
        if rival:
            fb.rival = _rival_text(v, learner, rival, lang)
        return fb

    def explain(self, sit: Situation, v, learner: str, hands: set[str], words: Sequence[str], lang: str,
                *, early: bool = False, last: float | None = None) -> Feedback:
        """The feedback of the judge's verdict line ``v`` for ``learner`` on ``sit``: what
        the keyboard drill and the camera/microphone drill (:mod:`referee.teach.drills.ikatako_sensed`)
        both say. ``hands``/``words``: what the learner did in the window (the reason's
        "you raised …"); ``early``: a false start; ``last``: the reaction shown when the
        judge has none (a wrong answer: the learner's last act, seconds after the card)."""
        v = verdict_of("ikatako", v)
        card, troubles = sit.data["card"], list(sit.data["troubles"])
        exp = R.expected_reaction(card, troubles)
        if early:
            verdict = "false_start"
        elif learner in v.wrong:
            verdict = "wrong"
        elif learner in v.missed:
            verdict = "missed"
        elif learner in v.unclear:  # the referee did not clearly perceive it: no judgement
            verdict = "unclear"
        else:
            verdict = "correct"
        reaction = v.times.get(learner)
        if reaction is None:
            reaction = last
        rule, rule_keys = _rule(card, troubles, lang)
        fact = _fact(card, exp, lang)
        did = _did(set(hands), list(words), exp, "wrong" if verdict == "false_start" else verdict, lang)
        if verdict == "false_start":
            did = text(lang, "you pressed before the card appeared", "カードが出る前に押した")
        elif verdict == "unclear":
            did = _not_perceived(v.unclear[learner], lang)
        spoken = (verdict,) if verdict in ("correct", "unclear") else (
            verdict, *rule_keys, f"hand:{exp.hands}" if exp.required else "nothing", *(word_key(w) for w in exp.say))
        answered = f"{'+'.join(sorted(hands)) or 'none'}:{' '.join(words)}"
        fb = Feedback(verdict=verdict, reaction=reaction, rule=rule, fact=fact, did=did, spoken=spoken,
                      answered=answered)
        if verdict == "wrong":  # (a false start is no confusion: it is counted as a false start)
            fb.answered_as = self.answered_as_text(sit, answered)
        return fb

    def phrase_keys(self) -> tuple[str, ...]:
        return tuple(word_key(w) for w in WORD_KEYS.values())

    def _parts(self, key: str) -> tuple[str, list[str]] | None:
        sit = self.make(key)
        return None if sit is None else (sit.data["card"], list(sit.data["troubles"]))

    def words(self, key: str, lang: str) -> str:
        """``tako|mirror`` → "tako with Mirror in the field"; ``mirror|`` → "the trouble card
        Mirror"; ``ikatako|`` → "ikatako, nothing in the field"."""
        parts = self._parts(key)
        if parts is None:
            return key
        card, troubles = parts
        c = _card_text(card, lang)
        if R.kind(card) == "trouble":
            c = text(lang, f"the trouble card {TROUBLE_TEXT['en'][card]}", f"トラブルカード{TROUBLE_TEXT['ja'][card]}")
        if not troubles:
            return text(lang, f"{c}, nothing in the field", f"場に何もなし、{c}")
        names = _join([TROUBLE_TEXT[lang][t] for t in troubles], lang)
        return text(lang, f"{c} with {names} in the field", f"場に{names}、{c}")

    def answer_words(self, answered_as: str, lang: str) -> str:
        """The situation and its right reaction: "the trouble card Mirror, nothing in the
        field (nobody reacts)"."""
        parts = self._parts(answered_as)
        if parts is None:
            return answered_as
        card, troubles = parts
        exp = R.expected_reaction(card, troubles)
        if not exp.required:
            what = text(lang, "nobody reacts", "誰も反応しない")
        else:
            say = " ".join(_card_text(w, lang) for w in exp.say)
            what = text(lang, f"{HAND_TEXT[lang][exp.hands]}, say {say}", f"{HAND_TEXT[lang][exp.hands]}、「{say}」")
        return f"{self.words(answered_as, lang)} ({what})"

    def rule_words(self, key: str, lang: str) -> str | None:
        parts = self._parts(key)
        if parts is None:
            return None
        card, troubles = parts
        rule = _rule(card, troubles, lang)[0]
        return f"{rule}: {_fact(card, R.expected_reaction(card, troubles), lang)}"


def _rival_text(v: dict, learner: str, rival: RivalAnswer, lang: str) -> str:
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


# ----------------------------------------------------------------------------- co-op

#: totals the running-total drill starts from (small enough to reach with normal cards)
COOP_TOTALS = (0, 4, 7, 9, 12, 15, 18, 23, 27)
COOP_CARDS = ("2", "3", "4", "5", "tako", "ika", "ikatako", "uzushio6", "uzushio9", "salvage")
PLAYERS4 = ("you", "ben", "chie", "dai")


def _prelude(total: int, card: str = "") -> list[str]:
    """Normal cards (the co-op deck's 2–5, less the drilled ``card``'s copy) that add up to
    ``total``: the cards flipped before the drilled one, largest first (deterministic)."""
    stock = {5: 3, 4: 3, 3: 4, 2: 4}
    if card.isdigit():
        stock[int(card)] -= 1
    best: dict[int, list[int]] = {0: []}
    for v in (5, 4, 3, 2):
        for _ in range(stock[v]):
            for s, cards in sorted(best.items(), reverse=True):
                if s + v <= total and s + v not in best:
                    best[s + v] = cards + [v]
    if total not in best:
        raise ValueError(f"no prelude for total {total}")
    return [str(v) for v in sorted(best[total], reverse=True)]


def _coop_levels() -> tuple[Level, ...]:
    totals = tuple(Situation("ikatako", "total", f"{t}+{c}", {"card": c, "total": t})
                   for t in COOP_TOTALS for c in COOP_CARDS)
    uzu = tuple(Situation("ikatako", "uzushio", f"{c}@{a}{'<' if rev else '>'}",
                          {"card": c, "active": a, "reversed": rev})
                for c in ("uzushio6", "uzushio9", "3", "ika") for a in range(4) for rev in (False, True)
                if not (rev and c.startswith("uzushio") and c != "uzushio9") and not (rev and c == "ika"))
    return (
        Level("total", {"en": "co-op: say the running total", "ja": "協力: 合計を言う"}, totals, 3.0, 4.0),
        Level("uzushio", {"en": "co-op: uzushio reverses the turn order", "ja": "協力: うずしおで順番が逆"}, uzu, 2.0, 4.0),
    )


class CoopDrill(Drill):
    """IKATAKO co-op: declare the running total; after uzushio, who plays next."""

    def __init__(self) -> None:
        super().__init__(name="ikatako-coop", game="ikatako", mode="coop", reaction=False, _levels=_coop_levels())

    def make(self, key: str) -> Situation | None:
        known = self.situation(key)
        if known is not None or "+" not in key:
            return known
        total, _, card = key.partition("+")
        try:
            R.coop_reaction(card, int(total))
            _prelude(int(total), card)
        except Exception:
            return None
        return Situation("ikatako", "total", key, {"card": card, "total": int(total)})

    def screen(self, sit: Situation, lang: str) -> Screen:
        card = sit.data["card"]
        if sit.rule == "total":
            return Screen(title=text(lang, "Declare!", "宣言して!"), card=card, game="ikatako",
                          lines=(text(lang, f"running total so far: {sit.data['total']}", f"ここまでの合計: {sit.data['total']}"),),
                          keys=text(lang, "F left  J right  |  i t k u s names  |  digits: the total  |  enter: done",
                                    "F 左 J 右 | i t k u s 名前 | 数字: 合計 | enter 決定"))
        ring = "  ".join(f"{i + 1}:{p}" for i, p in enumerate(PLAYERS4))
        arrow = "←" if sit.data["reversed"] else "→"
        active = PLAYERS4[sit.data["active"]]
        return Screen(title=text(lang, "Who plays next?", "次は誰?"), card=card, game="ikatako",
                      lines=(ring, text(lang, f"order {arrow} ; {active} flips this card and declares it right",
                                        f"順番 {arrow} ; {active} がこのカードをめくって正しく宣言した")),
                      keys=text(lang, "1-4: the next player  |  enter: done", "1-4: 次の人 | enter 決定"))

    def _next(self, sit: Situation) -> int:
        st = R.GAME.new_state(list(PLAYERS4), mode="coop")
        a, card = sit.data["active"], sit.data["card"]
        if sit.data["reversed"]:
            other = "uzushio6" if card != "uzushio6" else "uzushio9"
            st.apply(R.Reveal(other, by=PLAYERS4[(a + 1) % 4]))
            st.apply(R.Declare(True))
        st.apply(R.Reveal(card, by=PLAYERS4[a]))
        st.apply(R.Declare(True))
        return PLAYERS4.index(st.active_player)

    def oracle(self, sit: Situation) -> list[str]:
        if sit.rule == "uzushio":
            return [str(self._next(sit) + 1), "enter"]
        exp = R.coop_reaction(sit.data["card"], sit.data["total"])
        keys = [k for k, side in HAND_KEYS.items() if side in exp.sides]
        for w in exp.say:
            keys += list(w) if w.isdigit() else [{v: k for k, v in NAME_KEYS.items()}[w]]
        return keys + ["enter"]

    def _tokens(self, presses: Sequence[Press]) -> tuple[list[str], float | None]:
        words: list[str] = []
        first = None
        prev_digit = False
        for p in presses:
            if p.key in NAME_KEYS:
                words.append(NAME_KEYS[p.key])
                prev_digit = False
            elif p.key.isdigit() and len(p.key) == 1:
                if prev_digit:
                    words[-1] += p.key
                else:
                    words.append(p.key)
                prev_digit = True
            else:
                continue
            first = p.t if first is None else first
        return words, first

    def answer_text(self, sit: Situation, presses: Sequence[Press]) -> str:
        ans = presses_before(presses)
        if sit.rule == "uzushio":
            return "next:" + "".join(p.key for p in ans if p.key in "1234")
        hands = sorted({HAND_KEYS[p.key] for p in ans if p.key in HAND_KEYS})
        return f"{'+'.join(hands) or 'none'}:{' '.join(self._tokens(ans)[0])}"

    def answered_as(self, sit, presses):  # the confusion of a total is its card, not another total
        return None if sit.rule == "total" else super().answered_as(sit, presses)

    def feedback(self, sit, presses, level, lang, learner="you", rival=None) -> Feedback:
        if sit.rule == "uzushio":
            return self._uzushio_feedback(sit, presses, level, lang)
        card, total = sit.data["card"], sit.data["total"]
        exp = R.coop_reaction(card, total)
        ans = presses_before(presses)
        rec: list[Event] = [header("ikatako", [learner], {"window": level.window_s}, sit, mode="solo")]
        running, t = 0, 0.0
        prelude = _prelude(total, card)
        step = (CARD_T - 0.05) / max(1, len(prelude))
        for c in prelude:  # the earlier cards, declared right (the drill starts from their total)
            running += R.value(c)
            rec.append(CardEvent(t=rt(t), card=c, zone="field", by=learner, extra={"teach": "prelude"}))
            rec.append(ShoutEvent(t=rt(t + step / 2), player=learner, words=(str(running),), extra={"teach": "prelude"}))
            t += step
        rec.append(CardEvent(t=CARD_T, card=card, zone="field", by=learner))
        for p in ans:
            if p.key in HAND_KEYS:
                rec.append(HandEvent(t=rt(CARD_T + p.t), player=learner, side=HAND_KEYS[p.key], state="up"))
        words, first = self._tokens(ans)
        if words:
            rec.append(ShoutEvent(t=rt(CARD_T + first), player=learner, words=tuple(words)))
        rec.append(EndEvent(t=rt(CARD_T + level.window_s + 0.5)))
        lines = judge_lines(rec)
        v = verdict_at(lines, CARD_T) or {}
        verdict = "correct" if v.get("ok") else ("missed" if not ans else "wrong")
        reaction = v.get("time") if v.get("ok") else (rt(ans[-1].t) if ans else None)
        c = _card_text(card, lang)
        say = " ".join(_card_text(w, lang) for w in exp.say)
        hands = HAND_TEXT[lang][exp.hands]
        fact = text(lang, f"{total} + {c} ({R.value(card)}) = {exp.say[-1]} → {hands}, say {say}",
                    f"{total} + {c} ({R.value(card)}) = {exp.say[-1]} → {hands}、「{say}」")
        hands = {HAND_KEYS[p.key] for p in ans if p.key in HAND_KEYS}
        did = _did(hands, words, exp, verdict, lang)
        rule = text(lang, "The running total", "合計") if R.kind(card) == "normal" else text(
            lang, "Name, then the running total", "名前、それから合計")
        spoken = ("correct",) if verdict == "correct" else (
            verdict, "r:total", *((f"hand:{exp.hands}",) if exp.hands != "none" else ()),
            *(word_key(w) for w in exp.say))
        return Feedback(verdict=verdict, reaction=reaction, rule=rule, fact=fact, did=did, spoken=spoken,
                        answered=self.answer_text(sit, presses), record=rec, lines=lines)

    def _uzushio_feedback(self, sit, presses, level, lang) -> Feedback:
        ans = presses_before(presses)
        nxt = self._next(sit)
        picked = [int(p.key) - 1 for p in ans if p.key in "1234"]
        a = sit.data["active"]
        card = sit.data["card"]
        if not picked:
            verdict = "missed"
        else:
            verdict = "correct" if picked[-1] == nxt else "wrong"
        reaction = ans[-1].t if ans else None
        rev = sit.data["reversed"]
        turning = card.startswith("uzushio")
        now_rev = rev != turning
        rule = text(lang, "Uzushio reverses the turn order", "うずしおで順番が逆になる") if turning else text(
            lang, "Only uzushio changes the order", "順番を変えるのはうずしおだけ")
        dir_t = text(lang, "backwards" if now_rev else "forwards", "逆回り" if now_rev else "正回り")
        fact = text(lang, f"{_card_text(card, lang)} by {PLAYERS4[a]} → the order runs {dir_t}: next is {PLAYERS4[nxt]}",
                    f"{PLAYERS4[a]}の{_card_text(card, lang)} → {dir_t}: 次は{PLAYERS4[nxt]}")
        did = "" if verdict == "correct" else (text(lang, f"you picked {PLAYERS4[picked[-1]]}",
                                                    f"あなたは{PLAYERS4[picked[-1]]}を選んだ") if picked else
                                               text(lang, "you picked nobody", "誰も選ばなかった"))
        spoken = ("correct",) if verdict == "correct" else (verdict, "r:uzushio" if turning else "r:special", "next")
        return Feedback(verdict=verdict, reaction=reaction, rule=rule, fact=fact, did=did, spoken=spoken,
                        answered=self.answer_text(sit, presses), answered_as=None if verdict == "correct" else
                        self.answered_as(sit, presses), record=[], lines=[])

    def phrase_keys(self) -> tuple[str, ...]:
        return tuple(f"n:{n}" for n in range(2, 46))


_WHITE = (255, 255, 255)


def _card_kind(card: str) -> tuple[str, str, int] | None:
    """A trouble card's face, and an uzushio's with its number (the rest: the generic rule)."""
    if card in R.TROUBLES:
        return "trouble", card.upper(), 0
    if card.startswith("uzushio"):
        return "uzushio", "UZUSHIO " + card[7:], 0
    return None


def _walk_versus(n: int, v: VersusVerdict, lang: str, drills: list[str]) -> list[str]:
    v = verdict_of("ikatako", v)  # a bare line reads too
    card, troubles = v.card, list(v.troubles)
    exp = R.expected_reaction(card, troubles)
    rule, _ = _rule(card, troubles, lang)
    lines = [f"{n:3}  {v.t:8.3f}  {rule}: {_fact(card, exp, lang)}"]
    if v.card_time_uncertain:  # the camera saw the card late
        since = v.counted_from
        lines.append("      " + text(lang, f"the camera saw the card late: reactions from {since:.2f} s count",
                                     f"カードの検出が遅れた: {since:.2f} 秒からの反応を数える"))
    if v.first_unknown:
        from referee.judging.ikatako import first_unknown_text
        lines.append("      " + text(lang, first_unknown_text(v),
                                     f"一番は不明: {', '.join(v.first_unknown)} は判定できず (一番だったかもしれない)"
                                     + (f" — 判定: {v.first}" if v.first else " — 判定で決めてください")))
    elif v.first:
        lines.append("      " + text(lang, f"first: {v.first} ({v.times[v.first]:.2f} s)",
                                     f"一番: {v.first} ({v.times[v.first]:.2f} 秒)"))
    elif v.tie:
        lines.append("      " + text(lang, f"tie: {', '.join(v.tie)}", f"同時: {', '.join(v.tie)}"))
    key = f"{card}|{'+'.join(t for t in R.TROUBLES if t in troubles)}"
    for p in v.wrong + v.missed:
        why = v.why.get(p, "")
        tag = text(lang, "wrong", "不正解") if p in v.wrong else text(lang, "missed", "時間切れ")
        lines.append(f"      {tag}: {p}: {why}")
        drills.append(f"ikatako {key}  # {p}: {why}")
    for p, why in v.unclear.items():  # not judged: nothing to drill
        lines.append(f"      {text(lang, 'unclear', '判定できず')}: {p}: {why}")
    return lines


def _walk_coop(n: int, v: CoopVerdict, lang: str, drills: list[str]) -> list[str]:
    v = verdict_of("ikatako", v)  # a bare line reads too
    exp = v.expected
    say = " ".join(exp.get("say", []))
    unclear = bool(v.unclear or v.unjudged)
    ok = text(lang, "right", "正解") if v.ok else text(lang, "unclear", "判定できず") if unclear \
        else text(lang, "MISS", "ミス")
    lines = [f"{n:3}  {v.t:8.3f}  {v.card}: {v.player} → {exp.get('hands')} + {say}  {ok}"
             + (f"  ({v.why})" if v.why else "") + (f"  [{v.effect}]" if v.effect else "")]
    if not v.ok and not unclear:
        total = int(v.total) - _value(v.card)
        drills.append(f"ikatako-coop {total}+{v.card}  # {v.player}: {v.why}")
    return lines


def _value(card: str) -> int:
    return R.value(card)


def _walk(n: int, v, lang: str, drills: list[str]) -> list[str] | None:
    """``referee teach explain``: a versus or co-op verdict line by line (None: not IKATAKO's)."""
    if isinstance(v, VersusVerdict):
        return _walk_versus(n, v, lang, drills)
    if isinstance(v, CoopVerdict):
        return _walk_coop(n, v, lang, drills)
    return None


TEACHING = Teaching(
    drills=(DrillEntry("ikatako", None, VersusDrill, sensed="referee.teach.drills.ikatako_sensed:run_sensed"),
            DrillEntry("ikatako-coop", "coop", CoopDrill)),
    look=CardLook(faces={"tako": (60, 60, 220), "ika": (235, 235, 235), "ikatako": (40, 170, 240),
                         "uzushio": (200, 120, 30), "salvage": (90, 160, 60), "trouble": (150, 60, 140)},
                  ink={"tako": _WHITE, "trouble": _WHITE, "uzushio": _WHITE, "salvage": _WHITE},
                  kind=_card_kind, names_ja=CARD_TEXT_JA),
    words=("ika", "tako", "ikatako", "uzushio", "salvage"), walk=_walk)

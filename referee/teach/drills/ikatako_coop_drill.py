"""The IKATAKO co-op drill: the running total, each card's declaration, and uzushio's reversal
of who plays next."""

from __future__ import annotations

from typing import Sequence

from referee.teach.core import (CARD_T, Feedback, Level, Press, Situation, header, judge_lines, presses_before, rt,
                                verdict_at)
from referee.teach.drills.base import Drill, Screen
from referee.teach.drills.ikatako_texts import HAND_KEYS, NAME_KEYS, card_text, did_text
from referee.teach.texts import HAND_TEXT, text, word_key
from rules import ikatako as R
from session.events import CardEvent, EndEvent, Event, HandEvent, ShoutEvent


#: totals the running-total drill starts from (small enough to reach with normal cards)
COOP_TOTALS = (0, 4, 7, 9, 12, 15, 18, 23, 27)


COOP_CARDS = ("2", "3", "4", "5", "tako", "ika", "ikatako", "uzushio6", "uzushio9", "salvage")


PLAYERS4 = ("you", "ben", "chie", "dai")


def coop_prelude(total: int, card: str = "") -> list[str]:
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


def coop_levels() -> tuple[Level, ...]:
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
        super().__init__(name="ikatako-coop", game="ikatako", mode="coop", reaction=False, _levels=coop_levels())

    def make(self, key: str) -> Situation | None:
        known = self.situation(key)
        if known is not None or "+" not in key:
            return known
        total, _, card = key.partition("+")
        try:
            R.coop_reaction(card, int(total))
            coop_prelude(int(total), card)
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
        prelude = coop_prelude(total, card)
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
        c = card_text(card, lang)
        say = " ".join(card_text(w, lang) for w in exp.say)
        hands = HAND_TEXT[lang][exp.hands]
        fact = text(lang, f"{total} + {c} ({R.value(card)}) = {exp.say[-1]} → {hands}, say {say}",
                    f"{total} + {c} ({R.value(card)}) = {exp.say[-1]} → {hands}、「{say}」")
        hands = {HAND_KEYS[p.key] for p in ans if p.key in HAND_KEYS}
        did = did_text(hands, words, exp, verdict, lang)
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
        fact = text(lang, f"{card_text(card, lang)} by {PLAYERS4[a]} → the order runs {dir_t}: next is {PLAYERS4[nxt]}",
                    f"{PLAYERS4[a]}の{card_text(card, lang)} → {dir_t}: 次は{PLAYERS4[nxt]}")
        did = "" if verdict == "correct" else (text(lang, f"you picked {PLAYERS4[picked[-1]]}",
                                                    f"あなたは{PLAYERS4[picked[-1]]}を選んだ") if picked else
                                               text(lang, "you picked nobody", "誰も選ばなかった"))
        spoken = ("correct",) if verdict == "correct" else (verdict, "r:uzushio" if turning else "r:special", "next")
        return Feedback(verdict=verdict, reaction=reaction, rule=rule, fact=fact, did=did, spoken=spoken,
                        answered=self.answer_text(sit, presses), answered_as=None if verdict == "correct" else
                        self.answered_as(sit, presses), record=[], lines=[])

    def phrase_keys(self) -> tuple[str, ...]:
        return tuple(f"n:{n}" for n in range(2, 46))


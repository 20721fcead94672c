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

from referee.judging.verdicts import verdict_of
from referee.teach.core import (CARD_T, Feedback, Level, Press, Situation, false_start, header, judge_lines,
                                presses_before, rt, verdict_at)
from referee.teach.drills.base import CardLook, Drill, DrillEntry, RivalAnswer, Screen, Teaching, words_of
from referee.teach.drills.ikatako_coop_drill import CoopDrill
from referee.teach.drills.ikatako_texts import (CARD_TEXT_JA, HAND_KEYS, KEY_OF_WORD, TROUBLE_TEXT, WORD_KEYS,
                                                card_text, did_text, fact_text, joined, not_perceived, rival_text,
                                                rule_text, situation)
from referee.teach.drills.ikatako_walk import walk_verdict
from referee.teach.texts import HAND_TEXT, text, word_key
from rules import ikatako as R
from session.events import CardEvent, EndEvent, Event, HandEvent, ShoutEvent


def _versus_levels() -> tuple[Level, ...]:
    T = R.TROUBLES
    numbers = tuple(situation("numbers", c) for c in ("2", "3", "4", "5", "uzushio6", "uzushio9", "salvage"))
    creatures = tuple(situation("creatures", c) for c in ("ika", "tako", "ikatako"))
    one = tuple(situation("one_trouble", c, [t]) for t in T for c in ("ika", "tako")) + tuple(
        situation("one_trouble", t) for t in T) + (situation("one_trouble", "ikatako", ["mirror"]),
                                                   situation("one_trouble", "3", ["number"]))
    pairs = [(a, b) for i, a in enumerate(T) for b in T[i + 1:]]
    stacked = tuple(situation("stacked", c, p) for p in pairs + [tuple(T)] for c in ("ika", "tako")) + (
        situation("stacked", "ikatako", T), situation("stacked", "5", ("mirror", "number")))
    fast = tuple(situation("fast", s.data["card"], s.data["troubles"]) for s in one[:6] + stacked[:8])
    title = lambda en, ja: {"en": en, "ja": ja}  # noqa: E731
    return (
        Level("numbers", title("numbers and specials: say the card", "数字とスペシャル: カードを言う"), numbers, 1.5),
        Level("creatures", title("ika and tako: the hand and the name", "イカとタコ: 手と名前"), creatures, 1.6),
        Level("one_trouble", title("one trouble card in the field", "場にトラブル1枚"), one, 2.0),
        Level("stacked", title("stacked troubles (Mirror → Number → Repeat)", "トラブルの重ね(ミラー→ナンバー→リピート)"),
              stacked, 2.5),
        Level("fast", title("the same, in a 1.5 s window", "同じ問題を1.5秒以内に"), fast, 1.3, window_s=1.5),
    )


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
        return situation(rule, card, troubles)

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
        return keys + [KEY_OF_WORD[w] for w in exp.say] + ["enter"]

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
            fb.rival = rival_text(v, learner, rival, lang)
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
        rule, rule_keys = rule_text(card, troubles, lang)
        fact = fact_text(card, exp, lang)
        did = did_text(set(hands), list(words), exp, "wrong" if verdict == "false_start" else verdict, lang)
        if verdict == "false_start":
            did = text(lang, "you pressed before the card appeared", "カードが出る前に押した")
        elif verdict == "unclear":
            did = not_perceived(v.unclear[learner], lang)
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
        c = card_text(card, lang)
        if R.kind(card) == "trouble":
            c = text(lang, f"the trouble card {TROUBLE_TEXT['en'][card]}", f"トラブルカード{TROUBLE_TEXT['ja'][card]}")
        if not troubles:
            return text(lang, f"{c}, nothing in the field", f"場に何もなし、{c}")
        names = joined([TROUBLE_TEXT[lang][t] for t in troubles], lang)
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
            say = " ".join(card_text(w, lang) for w in exp.say)
            what = text(lang, f"{HAND_TEXT[lang][exp.hands]}, say {say}", f"{HAND_TEXT[lang][exp.hands]}、「{say}」")
        return f"{self.words(answered_as, lang)} ({what})"

    def rule_words(self, key: str, lang: str) -> str | None:
        parts = self._parts(key)
        if parts is None:
            return None
        card, troubles = parts
        rule = rule_text(card, troubles, lang)[0]
        return f"{rule}: {fact_text(card, R.expected_reaction(card, troubles), lang)}"


_WHITE = (255, 255, 255)


def _card_kind(card: str) -> tuple[str, str, int] | None:
    """A trouble card's face, and an uzushio's with its number (the rest: the generic rule)."""
    if card in R.TROUBLES:
        return "trouble", card.upper(), 0
    if card.startswith("uzushio"):
        return "uzushio", "UZUSHIO " + card[7:], 0
    return None


TEACHING = Teaching(
    drills=(DrillEntry("ikatako", None, VersusDrill, sensed="referee.teach.drills.ikatako_sensed:run_sensed"),
            DrillEntry("ikatako-coop", "coop", CoopDrill)),
    look=CardLook(faces={"tako": (60, 60, 220), "ika": (235, 235, 235), "ikatako": (40, 170, 240),
                         "uzushio": (200, 120, 30), "salvage": (90, 160, 60), "trouble": (150, 60, 140)},
                  ink={"tako": _WHITE, "trouble": _WHITE, "uzushio": _WHITE, "salvage": _WHITE},
                  kind=_card_kind, names_ja=CARD_TEXT_JA),
    words=("ika", "tako", "ikatako", "uzushio", "salvage"), walk=walk_verdict)


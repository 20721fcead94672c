"""Sea Salt & Paper drills: score this hand (card points), and may this hand say STOP /
LAST CHANCE (card points ≥ 7).

Hands are drawn from the base deck with a fixed ``random.Random`` per situation (so the
ladder is the same everywhere); the answer is judged by the Sea Salt & Paper judge on a
drill record: the learner calls STOP and declares the hand, the rival declares nothing
(an empty hand); the verdict's ``scores`` and ``legal`` are the truth.

Keys: digits type the card points, ``enter`` submits; for STOP: ``y`` may, ``n`` may not.
Decision: the STOP drill's record always holds the call (the question is "would this call
be legal?"), whatever the learner answered.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from rules import seasaltpaper as R
from referee.teach.core import CARD_T, Feedback, Level, Press, Situation, header, judge_lines, presses_before, rt
from session.events import ChoiceEvent, EndEvent, Event, ShoutEvent
from referee.teach.drills.base import CameraHands, Drill, DrillEntry, Screen, Seen, Teaching
from referee.teach.texts import text

N_HANDS = 30


def _hand(seed: int) -> list[str]:
    rng = random.Random(f"seasaltpaper-{seed}")
    deck = [c for c in R.BASE_DECK]
    return sorted(rng.sample(deck, rng.randint(5, 9)))


def _levels() -> tuple[Level, ...]:
    score = tuple(Situation("seasaltpaper", "score", f"score#{i}", {"hand": _hand(i)}) for i in range(N_HANDS))
    stop = tuple(Situation("seasaltpaper", "stop", f"stop#{i}", {"hand": _hand(100 + i)}) for i in range(N_HANDS))
    return (Level("score", {"en": "count the card points", "ja": "カード点を数える"}, score, 20.0, 60.0),
            Level("stop", {"en": "may this hand say STOP / LAST CHANCE?", "ja": "ストップ/ラストチャンスできる?"}, stop, 10.0, 60.0))


class SeaSaltPaperDrill(Drill):
    def __init__(self) -> None:
        super().__init__(name="seasaltpaper", game="seasaltpaper", _levels=_levels())

    def make(self, key: str) -> Situation | None:
        """``score=crab:blue,…`` / ``stop=…``: this hand's points, or whether it may say STOP
        (a recorded game's hand, ``referee teach explain``)."""
        known = self.situation(key)
        if known is not None:
            return known
        rule, _, cards = key.partition("=")
        hand = sorted(c for c in cards.split(",") if c)
        if rule not in ("score", "stop") or not hand:
            return None
        try:
            R.score(hand)
        except Exception:
            return None
        return Situation("seasaltpaper", rule, f"{rule}={','.join(hand)}", {"hand": hand})

    def screen(self, sit: Situation, lang: str) -> Screen:
        hand = tuple(sit.data["hand"])
        q = text(lang, "Card points of this hand?", "この手のカード点は?") if sit.rule == "score" else text(
            lang, "May this hand say STOP / LAST CHANCE?", "ストップ/ラストチャンスできる?")
        keys = text(lang, "digits: the points  |  enter: done", "数字: 点数 | enter 決定") if sit.rule == "score" else text(
            lang, "y yes  n no  |  enter: done", "y はい n いいえ | enter 決定")
        return Screen(title=q, field=hand, game="seasaltpaper", lines=("  ".join(hand),), keys=keys)

    def oracle(self, sit: Situation) -> list[str]:
        s = R.score(sit.data["hand"])
        if sit.rule == "score":
            return list(str(s.card_points)) + ["enter"]
        return ["y" if s.card_points >= R.STOP_MIN else "n", "enter"]

    def answer_text(self, sit: Situation, presses: Sequence[Press]) -> str:
        ans = presses_before(presses)
        if sit.rule == "score":
            return "".join(p.key for p in ans if p.key.isdigit() and len(p.key) == 1)
        yn = [p.key for p in ans if p.key in ("y", "n")]
        return yn[-1] if yn else ""

    def answered_as(self, sit, presses):
        return None  # a wrong count is no other situation

    def feedback(self, sit, presses, level, lang, learner="you", rival=None) -> Feedback:
        hand = sit.data["hand"]
        ans = presses_before(presses)
        rec: list[Event] = [
            header("seasaltpaper", [learner, "rival"], {}, sit),
            ChoiceEvent(t=CARD_T, player=learner, action="call", extra={"call": "stop"}),
            ChoiceEvent(t=rt(CARD_T + 0.01), player=learner, action="hand", extra={"cards": list(hand)}),
            ChoiceEvent(t=rt(CARD_T + 0.02), player="rival", action="hand", extra={"cards": []}),
            EndEvent(t=rt(CARD_T + 0.1)),
        ]
        lines = judge_lines(rec)
        v = next((x for x in lines if x.get("type") == "verdict"), {})
        points = v["scores"][learner]["card_points"]
        legal = bool(v["legal"])
        s = R.score(hand)
        given = self.answer_text(sit, presses)
        if not given:
            verdict = "missed"
        elif sit.rule == "score":
            verdict = "correct" if int(given) == points else "wrong"
        else:
            verdict = "correct" if (given == "y") == legal else "wrong"
        breakdown = ", ".join(f"{k} {n}" for k, n in sorted(s.breakdown.items())) or text(lang, "nothing scores", "点なし")
        if sit.rule == "score":
            rule = text(lang, "Card points: duos, mermaids, collectors, multipliers", "カード点: ペア、人魚、コレクター、倍率")
            fact = text(lang, f"{breakdown} = {points}", f"{breakdown} = {points}点")
            did = "" if verdict == "correct" else text(lang, f"you said {given or 'nothing'}", f"あなたは{given or '無回答'}")
            spoken = ("correct",) if verdict == "correct" else (verdict, f"n:{points}", "points")
        else:
            rule = text(lang, "STOP or LAST CHANCE needs 7 card points", "ストップ/ラストチャンスにはカード点7以上")
            fact = text(lang, f"{breakdown} = {points} → " + ("may" if legal else "may not"),
                        f"{breakdown} = {points}点 → " + ("できる" if legal else "できない"))
            did = "" if verdict == "correct" else text(lang, f"you said {'yes' if given == 'y' else 'no'}",
                                                       f"あなたは「{'はい' if given == 'y' else 'いいえ'}」")
            spoken = ("correct",) if verdict == "correct" else (verdict, f"n:{points}", "points",
                                                                "may_stop" if legal else "may_not_stop")
        return Feedback(verdict=verdict, reaction=rt(ans[-1].t) if ans else None, rule=rule, fact=fact, did=did,
                        spoken=spoken, answered=given, record=rec, lines=lines)

    def phrase_keys(self) -> tuple[str, ...]:
        return tuple(f"n:{n}" for n in range(0, 31))


class Explainer:
    """An illegal STOP / LAST CHANCE (under 7 card points) becomes the drill of that hand."""

    def __init__(self, rec):
        self.hands = [(e.t, e.player, list(e.extra.get("cards") or [])) for e in rec.events
                      if e.type == "choice" and getattr(e, "action", None) == "hand"]

    def verdict(self, v: dict[str, Any], lang: str) -> list[tuple[str, str]]:
        caller = v.get("caller")
        if v.get("legal") is not False or caller is None:
            return []
        hand = [h for t, p, h in self.hands if p == caller and t <= float(v.get("t", 0)) + 1e-9]
        if not hand or not hand[-1]:
            return []
        key = "stop=" + ",".join(sorted(hand[-1]))
        return [(f"seasaltpaper {key}  # {caller}: {v.get('why')}",
                 text(lang, f"drill: may {caller}'s hand say {v.get('call')}?", f"練習: {caller}の手で{v.get('call')}できる?"))]


#: the calls that end a round (the words the hearing gives, a typed call's ``call``)
CALLS = ("stop", "lastchance")


class CameraReader:
    """The camera drill's questions (``referee teach seasaltpaper --calibration``): each hand
    the camera reads laid out in the learner's spread zone (a ``choice`` ``hand`` from the
    camera) becomes a question about those cards: before a call in the round, "may this
    hand say STOP / LAST CHANCE?"; after one (heard or typed), "its card points?" (``rule``,
    a ``--level``, asks one of them always). A hand with a card found but not read is
    unclear; the same hand read again is not asked twice."""

    def __init__(self, drill: "SeaSaltPaperDrill", seat: str, rule: str | None = None, lang: str = "en"):
        self.drill, self.rule = drill, rule
        self.called = False
        self.hands = CameraHands(seat)

    def event(self, ev: Event) -> list[Seen]:
        if isinstance(ev, ShoutEvent) and set(ev.words) & set(CALLS) or \
                isinstance(ev, ChoiceEvent) and ev.action == "call" and ev.extra.get("call") in CALLS:
            self.called = True
        cards, unclear = self.hands.take(ev)
        if not cards:
            return unclear
        sit = self.drill.make(f"{self.rule or ('score' if self.called else 'stop')}={','.join(cards)}")
        return [Seen(sit, ev.t)] if sit is not None else []

    def verdict(self, v: dict[str, Any]) -> list[Seen]:
        if v.get("type") == "verdict" and v.get("round") is not None:
            self.called = False  # the round is scored: the next hands are the next round's
        return []


TEACHING = Teaching(drills=(DrillEntry("seasaltpaper", None, SeaSaltPaperDrill,
                                       sensed="referee.teach.drills.cards_sensed:run_cards_sensed", keys_answer=True),),
                    explainer=Explainer, reader=CameraReader)

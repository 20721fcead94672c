"""TORATANU drill: the best arrangement of this hand into sets, against the exact search
(``rules.toratanu.best_arrangement``). The learner's sets are judged by the TORATANU judge
on a drill record (a ``tally`` with the learner's ``sets``): the verdict's ``missed`` (points
the best arrangement would have scored more) is 0 for a right answer.

Hands: 9 cards written with their colour and points (``owl:red:3``; the catalogue lacks
most printed colours, so the drill names them itself), from a fixed ``random.Random`` per
situation: a few animals of the rulebook's herd list in three or four colours, so herd
sets and colour sets compete. Level ``special`` names a special card (+50 to its herd,
+5 per colour set of its colour).

Keys: ``1``–``9`` the cards of a set (three digits), ``space`` between sets, ``enter`` submits.
Decision: a set that is not legal (not 3 of one animal nor 3 of one colour) makes the answer
wrong with the rules' reason; the judge then scores the best arrangement for the record.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from rules import toratanu as R
from session.errors import RulesError
from referee.teach.core import CARD_T, Feedback, Level, Press, Situation, header, judge_lines, presses_before, rt
from session.events import CardEvent, ChoiceEvent, EndEvent, Event, WarningEvent
from referee.teach.drills.base import CameraHands, Drill, DrillEntry, Screen, Seen, Teaching
from referee.teach.texts import text

ANIMALS = ("rabbit", "kangaroo", "owl", "gorilla", "lion", "goat", "horse", "hippo")
COLOURS = ("red", "blue", "yellow", "green")
N_HANDS = 24


def _card(animal: str, rng: random.Random, colours: Sequence[str]) -> str:
    """A card of ``animal``: its catalogue colour and points where the catalogue states them,
    else a colour of ``colours`` and drawn points."""
    known = {c: v for c, v in (R.default_catalogue().animal(animal).colours or {}).items() if v is not None}
    if known:
        c = rng.choice(sorted(known))
        return f"{animal}:{c}:{known[c]}"
    return f"{animal}:{rng.choice(colours)}:{rng.randint(1, 12)}"


def _hand(seed: int) -> list[str]:
    rng = random.Random(f"toratanu-{seed}")
    animals = rng.sample(ANIMALS, 4)
    colours = rng.sample(COLOURS, 3)
    cards = []
    for i in range(9):
        a = animals[0] if i < 3 else rng.choice(animals)
        cards.append(_card(a, rng, colours))
    rng.shuffle(cards)
    return cards


def _levels() -> tuple[Level, ...]:
    best = tuple(Situation("toratanu", "best", f"best#{i}", {"hand": _hand(i), "special": None}) for i in range(N_HANDS))
    special = []
    for i in range(N_HANDS):
        hand = _hand(200 + i)
        rng = random.Random(f"toratanu-special-{i}")
        a = rng.choice(hand).split(":")[0]
        special.append(Situation("toratanu", "special", f"special#{i}",
                                 {"hand": hand, "special": _card(a, rng, COLOURS)}))
    return (Level("best", {"en": "the best three sets", "ja": "最高の3セット"}, best, 45.0, 120.0),
            Level("special", {"en": "the best sets with a special card", "ja": "スペシャルカードありの最高セット"},
                  tuple(special), 45.0, 120.0))


def _sets(presses: Sequence[Press]) -> list[list[int]]:
    sets, cur = [], []
    for p in presses:
        if p.key == "space":
            if cur:
                sets.append(cur)
            cur = []
        elif len(p.key) == 1 and p.key in "123456789":
            cur.append(int(p.key) - 1)
    if cur:
        sets.append(cur)
    return sets


class ToratanuDrill(Drill):
    def __init__(self) -> None:
        super().__init__(name="toratanu", game="toratanu", _levels=_levels())

    def make(self, key: str) -> Situation | None:
        """``best=tiger:red:5;…`` (``@SPECIAL`` after it when a special card was named): the best
        arrangement of a recorded game's hand (``referee teach explain``); at most 9 cards, the
        digit keys' reach."""
        known = self.situation(key)
        if known is not None:
            return known
        rule, _, rest = key.partition("=")
        cards, _, special = rest.partition("@")
        hand = [c for c in cards.split(";") if c]
        if rule not in ("best", "special") or not 3 <= len(hand) <= 9:
            return None
        try:
            R.best_arrangement(hand, special or None)
        except Exception:
            return None
        return Situation("toratanu", "special" if special else "best", key, {"hand": hand, "special": special or None})

    def screen(self, sit: Situation, lang: str) -> Screen:
        hand = sit.data["hand"]
        numbered = [f"{i + 1}: {c}" for i, c in enumerate(hand)]
        # three to a line: a nine-card hand and the special card in the window's four lines
        lines = tuple("   ".join(numbered[i:i + 3]) for i in range(0, len(numbered), 3))
        sp = sit.data.get("special")
        if sp:
            lines += (text(lang, f"special card: {sp}", f"スペシャルカード: {sp}"),)
        return Screen(title=text(lang, "Arrange the best sets", "最高のセットを作って"), field=tuple(hand), lines=lines,
                      game="toratanu",
                      keys=text(lang, "1-9: three cards per set  space: next set  |  enter: done",
                                "1-9: 1セット3枚 space: 次のセット | enter 決定"))

    def _best(self, sit: Situation) -> R.Arrangement:
        return R.best_arrangement(sit.data["hand"], sit.data.get("special"))

    def oracle(self, sit: Situation) -> list[str]:
        hand = list(sit.data["hand"])
        keys: list[str] = []
        used: set[int] = set()
        for s in self._best(sit).sets:
            for card in s.cards:
                i = next(i for i, c in enumerate(hand) if i not in used and str(R.parse_card(c)) == str(card))
                used.add(i)
                keys.append(str(i + 1))
            keys.append("space")
        return keys + ["enter"]

    def answer_text(self, sit: Situation, presses: Sequence[Press]) -> str:
        return " ".join("".join(str(i + 1) for i in sorted(s)) for s in sorted(_sets(presses_before(presses))))

    def answered_as(self, sit, presses):
        return None

    def feedback(self, sit, presses, level, lang, learner="you", rival=None) -> Feedback:
        hand = list(sit.data["hand"])
        special = sit.data.get("special")
        ans = presses_before(presses)
        picked = _sets(ans)
        sets = [[hand[i] for i in s if i < len(hand)] for s in picked]
        problem = None
        if any(len(set(s)) != len(s) for s in picked):
            problem = text(lang, "a card is used twice", "同じカードを二回使った")
        else:
            flat = [i for s in picked for i in s]
            if len(flat) != len(set(flat)):
                problem = text(lang, "a card is in two sets", "カードが二つのセットにある")
        if problem is None and sets:
            try:
                loose = [c for i, c in enumerate(hand) if i not in {j for s in picked for j in s}]
                R.score_arrangement(sets, loose, special)
            except RulesError as exc:
                problem = str(exc)
        tally = {"hand": hand, **({"sets": sets} if sets and problem is None else {})}
        rec: list[Event] = [
            header("toratanu", [learner], {"games": 1}, sit),
            ChoiceEvent(t=0.5, player=None, action="special", extra={"card": special or "fox:black:0"}),
            ChoiceEvent(t=CARD_T, player=learner, action="tally", extra=tally),
            EndEvent(t=rt(CARD_T + 0.1)),
        ]
        lines = judge_lines(rec)
        v = next((x for x in lines if x.get("type") == "verdict"), {})
        best = self._best(sit)
        got = v.get("scores", {}).get(learner)
        if not ans:
            verdict = "missed"
        elif problem is not None or not sets:
            verdict = "wrong"
        else:
            verdict = "correct" if v.get("missed", {}).get(learner) == 0 else "wrong"
        rule = text(lang, "Herd set: 3 of one animal (its herd points); colour set: 3 of one colour (their points)",
                    "群れセット: 同じ動物3枚(群れの点)、色セット: 同じ色3枚(点の合計)")
        fact = text(lang, "best: ", "最高: ") + "; ".join(best.explain())
        if verdict == "correct":
            did = ""
        elif problem:
            did = text(lang, f"your sets are not legal: {problem}", f"セットが正しくない: {problem}")
        elif not sets:
            did = text(lang, "you made no set", "セットを作らなかった")
        else:
            did = text(lang, f"your sets score {got}, {best.total - got} less", f"あなたのセットは{got}点、{best.total - got}点少ない")
        spoken = ("correct",) if verdict == "correct" else (verdict, "best", f"n:{best.total}", "points")
        return Feedback(verdict=verdict, reaction=rt(ans[-1].t) if ans else None, rule=rule, fact=fact, did=did,
                        spoken=spoken, answered=self.answer_text(sit, presses), record=rec, lines=lines)


class Explainer:
    """A tally that scored less than the best arrangement becomes the drill of that hand."""

    def __init__(self, rec):
        self.tallies = [e for e in rec.events if e.type == "choice" and getattr(e, "action", None) == "tally"]

    def verdict(self, v: dict[str, Any], lang: str) -> list[tuple[str, str]]:
        out = []
        special = v.get("special")
        for p, lost in sorted((v.get("missed") or {}).items()):
            if not lost:
                continue
            tally = [e for e in self.tallies if e.player == p and e.t <= float(v.get("t", 0)) + 1e-9]
            if not tally:
                continue
            ev = tally[-1]
            if ev.extra.get("captured") or ev.extra.get("doubutsuen"):
                continue
            hand = [str(c) for c in ev.extra.get("hand") or []]
            if not 3 <= len(hand) <= 9:
                continue
            sp = special if isinstance(special, str) else None
            key = "best=" + ";".join(hand) + (f"@{sp}" if sp else "")
            out.append((f"toratanu {key}  # {p}: {lost} points below the best arrangement",
                        text(lang, f"drill: the best sets of {p}'s hand ({lost} points missed)",
                             f"練習: {p}の手の最高セット({lost}点損)")))
        return out


#: the calibration's zone of the special card (``referee.judging.toratanu.SPECIAL_ZONE``)
SPECIAL_ZONE = "pile0"
#: the most cards a question can hold: the digit keys ``1``-``9`` pick them
MAX_CARDS = 9


class CameraReader:
    """The camera drill's questions (``referee teach toratanu --calibration``): the hand the
    learner reveals in their spread zone (a ``choice`` ``hand`` from the camera) becomes
    "arrange the best sets" with the night's special card as the camera read it (the last
    card in the special zone). A hand with a card found but not read is unclear, as is an
    unread special card; the same hand read again is not asked twice."""

    def __init__(self, drill: "ToratanuDrill", seat: str, rule: str | None = None, lang: str = "en"):
        self.drill, self.lang = drill, lang
        self.special: str | None = None
        self.hands = CameraHands(seat)

    def event(self, ev: Event) -> list[Seen]:
        if isinstance(ev, CardEvent) and ev.zone == SPECIAL_ZONE:
            self.special = str(ev.card).replace("-", ":")  # a card zone writes owl-blue-5
            return []
        if isinstance(ev, WarningEvent) and ev.extra.get("unread") and ev.extra.get("zone") == SPECIAL_ZONE:
            return [Seen(None, ev.t, unclear=ev.message)]
        cards, unclear = self.hands.take(ev)
        if not cards:
            return unclear
        if len(cards) > MAX_CARDS:
            return [Seen(None, ev.t, unclear=text(self.lang, f"{len(cards)} cards read: the keys pick at most "
                                                             f"{MAX_CARDS}", f"{len(cards)}枚: キーで選べるのは{MAX_CARDS}枚まで"))]
        sit = self.drill.make("best=" + ";".join(cards) + (f"@{self.special}" if self.special else ""))
        return [Seen(sit, ev.t)] if sit is not None else []

    def verdict(self, v: dict[str, Any]) -> list[Seen]:
        return []


TEACHING = Teaching(drills=(DrillEntry("toratanu", None, ToratanuDrill,
                                       sensed="referee.teach.drills.cards_sensed:run_cards_sensed", keys_answer=True),),
                    explainer=Explainer, reader=CameraReader)

"""TAKOYAKI drill: where does this card go on this griddle, and does the turn go on?

The right answer is ``rules.takoyaki.placement``; the answer is judged by the TAKOYAKI judge
on a drill record of a 2-player game: the learner's earlier turn lays the griddle's face-up
slots as one legal chain (ending with a K discarded), the rival's turn passes (a Q drawn and
discarded), then the learner draws the drilled card and places or discards it as answered.

Keys: ``1``–``9`` slot (``1`` is the A slot), ``0`` slot 10, ``d`` discard; then ``c`` the
turn goes on or ``e`` it ends; ``enter`` submit. Decision: the turn "goes on" when a face-down
card comes into the hand; a card that fills the griddle wins, so the turn ends.
"""

from __future__ import annotations

from typing import Any, Sequence

from rules import takoyaki as R
from referee.teach.core import CARD_T, Feedback, Level, Press, Situation, header, judge_lines, presses_before, rt
from session.events import CardEvent, EndEvent, Event, WarningEvent
from referee.teach.drills.base import CardLook, Drill, DrillEntry, Screen, Seen, Teaching
from referee.teach.texts import text

GRIDDLES = ((1, 3), (2, 5, 7), (1, 2, 3, 4, 5), (6, 8, 9, 10), (1, 2, 3, 4, 5, 6, 8, 9, 10), ())
NUMBER_CARDS = ("AH", "3H", "5D", "7D", "8H", "10D")
FACE_CARDS = ("JH", "QD", "KH", "JK")
SLOT_KEYS = {str(i): i for i in range(1, 10)} | {"0": 10}
#: the time to answer a griddle (15 s: a turn-based question, read the griddle and think; the
#: reaction games' 3 s window timed a person out before they had read it)
ANSWER_S = 15.0


def _grid(up: Sequence[int]) -> str:
    return "".join("x" if i + 1 in up else "." for i in range(10))


def _levels() -> tuple[Level, ...]:
    def sits(rule, cards):
        return tuple(Situation("takoyaki", rule, f"{_grid(g)}/{c}", {"up": list(g), "card": c})
                     for g in GRIDDLES for c in cards)
    return (Level("slots", {"en": "number cards: their own slot, or discard", "ja": "数字カード: 自分のスロットか捨てる"},
                  sits("slots", NUMBER_CARDS), 4.0, window_s=ANSWER_S),
            Level("faces", {"en": "J, Q, K and the joker", "ja": "J・Q・Kとジョーカー"}, sits("faces", FACE_CARDS), 4.0,
                  window_s=ANSWER_S))


def _answer(presses: Sequence[Press]) -> tuple[int | None, bool, bool | None]:
    """(slot or None, discarded, goes on or None) of the answer presses."""
    slot, disc, cont = None, False, None
    for p in presses:
        if p.key in SLOT_KEYS:
            slot, disc = SLOT_KEYS[p.key], False
        elif p.key == "d":
            slot, disc = None, True
        elif p.key in ("c", "e"):
            cont = p.key == "c"
    return slot, disc, cont


class TakoyakiDrill(Drill):
    def __init__(self) -> None:
        super().__init__(name="takoyaki", game="takoyaki", _levels=_levels())

    def make(self, key: str) -> Situation | None:
        """``x..x....../5S``: the griddle (``x`` face up, slots A..10) and the card drawn —
        also a recorded game's (``referee teach explain``)."""
        known = self.situation(key)
        if known is not None:
            return known
        grid, _, card = key.partition("/")
        if len(grid) != 10 or set(grid) - {"x", "."}:
            return None
        up = [i + 1 for i, c in enumerate(grid) if c == "x"]
        try:
            R.placement(card, [i + 1 in up for i in range(10)])
        except Exception:
            return None
        rule = "faces" if card == R.JOKER or card[:-1] in R.FACE else "slots"
        return Situation("takoyaki", rule, key, {"up": up, "card": card})

    def screen(self, sit: Situation, lang: str) -> Screen:
        up = set(sit.data["up"])
        row = lambda a, b: "  ".join(("[%s]" % R.slot_name(i)) if i in up else f" {R.slot_name(i)} " for i in range(a, b))  # noqa: E731
        slots = tuple(f"{'up' if i in up else 'down'}:{R.slot_name(i)}" for i in range(1, 11))
        return Screen(title=text(lang, "Where does it go? Does the turn go on?", "どこに置く? ターンは続く?"),
                      card=sit.data["card"], game="takoyaki", field=slots,
                      lines=(text(lang, "griddle ([x] face up):", "鉄板 ([x] 表):"), row(1, 6), row(6, 11)),
                      keys=text(lang, "1-9 slot (1 = A)  0 slot 10  d discard  |  c goes on  e ends  |  enter: done",
                                "1-9 スロット(1=A) 0 スロット10 d 捨てる | c 続く e 終わり | enter 決定"))

    def oracle(self, sit: Situation) -> list[str]:
        p = R.placement(sit.data["card"], [i + 1 in sit.data["up"] for i in range(10)])
        first = [next(k for k, v in SLOT_KEYS.items() if v == p.slots[0])] if p.slots else ["d"]
        return first + ["c" if (p.continues and not p.wins) else "e", "enter"]

    def answer_text(self, sit: Situation, presses: Sequence[Press]) -> str:
        slot, disc, cont = _answer(presses_before(presses))
        where = f"slot{slot}" if slot else ("discard" if disc else "-")
        return f"{where}:{'' if cont is None else ('c' if cont else 'e')}"

    def answer_of(self, sit: Situation) -> str:
        # a joker may go on any face-down slot: its first one stands for all
        return super().answer_of(sit)

    def record(self, sit: Situation, presses: Sequence[Press], learner: str) -> list[Event]:
        up = sorted(sit.data["up"])
        rec: list[Event] = [header("takoyaki", [learner, "rival"], {}, sit)]
        t = 0.05
        chain = [f"{R.slot_name(v)}S" for v in up]  # the earlier turn: one legal chain, ended by a K
        rec.append(CardEvent(t=t, card=chain[0] if chain else "KS", zone=f"p:{learner}:draw"))
        for c, v in zip(chain, up):
            t += 0.05
            rec.append(CardEvent(t=rt(t), card=c, zone=f"p:{learner}:slot{v}"))
        t += 0.05
        rec.append(CardEvent(t=rt(t), card="KS", zone="discard", by=learner))
        rec.append(CardEvent(t=rt(t + 0.05), card="QC", zone="p:rival:draw"))
        rec.append(CardEvent(t=rt(t + 0.1), card="QC", zone="discard", by="rival"))
        rec.append(CardEvent(t=CARD_T, card=sit.data["card"], zone=f"p:{learner}:draw"))
        ans = presses_before(presses)
        slot, disc, _ = _answer(ans)
        when = [p.t for p in ans if p.key in SLOT_KEYS or p.key == "d"]
        at = rt(CARD_T + (when[-1] if when else 0.5))
        if slot:
            rec.append(CardEvent(t=at, card=sit.data["card"], zone=f"p:{learner}:slot{slot}"))
        elif disc:
            rec.append(CardEvent(t=at, card=sit.data["card"], zone="discard", by=learner))
        rec.append(EndEvent(t=rt(at + 0.5)))
        return rec

    def feedback(self, sit, presses, level, lang, learner="you", rival=None) -> Feedback:
        card = sit.data["card"]
        p = R.placement(card, [i + 1 in sit.data["up"] for i in range(10)])
        goes_on = p.continues and not p.wins
        rec = self.record(sit, presses, learner)
        lines = judge_lines(rec)
        ans = presses_before(presses)
        slot, disc, cont = _answer(ans)
        v = [x for x in lines if x.get("type") == "verdict" and x.get("t", 0) > CARD_T] or [{}]
        v = v[-1]
        placed_ok = bool(v.get("legal")) and (slot is not None or disc)
        if not ans:
            verdict = "missed"
        else:
            verdict = "correct" if placed_ok and cont == goes_on else "wrong"
        reaction = rt(ans[-1].t) if ans else None
        rule = p.why.split(":")[0] if ":" in p.why and card == R.JOKER else (
            text(lang, "J, Q and K have no slot", "J・Q・Kにはスロットがない") if card[:-1] in R.FACE else
            text(lang, "A card goes on the slot of its rank", "カードは自分の数のスロットへ"))
        where = (text(lang, "slot ", "スロット") + "/".join(R.slot_name(s) for s in p.slots)) if p.slots else \
            text(lang, "discard", "捨てる")
        turn = text(lang, "the turn goes on" if goes_on else "the turn ends", "ターンは続く" if goes_on else "ターン終了")
        why_fact = p.why if lang == "en" else ""
        fact = text(lang, f"{card} → {where}, {turn} ({why_fact})", f"{card} → {where}、{turn}")
        did = ""
        if verdict != "correct":
            bits = []
            if not v.get("legal") and (slot or disc):
                bits.append(text(lang, f"the judge: {v.get('why')}", f"審判: {v.get('why')}"))
            elif not (slot or disc):
                bits.append(text(lang, "you placed nothing", "置かなかった"))
            if cont is None:
                bits.append(text(lang, "you did not say whether the turn goes on", "続くかどうか答えなかった"))
            elif cont != goes_on:
                bits.append(text(lang, "you said it goes on" if cont else "you said it ends",
                                 "「続く」と答えた" if cont else "「終わり」と答えた"))
            did = "; ".join(bits)
        spoken = ("correct",) if verdict == "correct" else (
            verdict, *((f"slot:{p.slots[0]}",) if p.slots else ("discard",)), "goes_on" if goes_on else "ends")
        fb = Feedback(verdict=verdict, reaction=reaction, rule=rule, fact=fact, did=did, spoken=spoken,
                      answered=self.answer_text(sit, presses), record=rec, lines=lines)
        if verdict == "wrong":
            fb.answered_as = self.answered_as(sit, presses)
        return fb

    def phrase_keys(self) -> tuple[str, ...]:
        return tuple(f"slot:{i}" for i in range(1, 11))


class Explainer:
    """Each player's griddle (the slots face up) through the verdicts: an illegal placement
    becomes the drill of that card on that griddle."""

    def __init__(self, rec):
        self.up: dict[str, set[int]] = {}

    def verdict(self, v: dict[str, Any], lang: str) -> list[tuple[str, str]]:
        p, zone, card = v.get("player"), str(v.get("zone") or ""), v.get("card")
        if p is None or card is None:
            return []
        up = self.up.setdefault(p, set())
        out = []
        if v.get("action") in ("place", "discard") and v.get("legal") is False:
            key = f"{_grid(sorted(up))}/{card}"
            why = v.get("why")
            out.append((f"takoyaki {key}  # {p}: {why}", text(lang, f"drill: {card} on {p}'s griddle", f"練習: {p}の鉄板に{card}")))
        if v.get("action") == "place" and zone.startswith(f"p:{p}:slot"):
            try:
                up.add(int(zone.rsplit("slot", 1)[1]))
            except ValueError:
                pass
        if isinstance(v.get("face_up"), int) and v["face_up"] == 0:
            up.clear()  # a new round (or nothing face up yet)
        return out


class CameraReader:
    """The camera drill's questions (``referee teach takoyaki --calibration``): each card the
    live referee judged the learner to have played (its verdict line: the player whose turn
    it was, the card the camera read on a slot or the discards) becomes "where does it go,
    does the turn go on?" on the learner's griddle as it was before it (the slots turned
    face up by the learner's earlier placements, as :class:`Explainer` follows them); the
    table's own move and the judge's reason go with the feedback. A card the camera saw
    but did not recognise on the learner's slots or the discards is unclear."""

    def __init__(self, drill: "TakoyakiDrill", seat: str, rule: str | None = None, lang: str = "en"):
        self.drill, self.seat, self.lang = drill, seat, lang
        self.griddle = Explainer(None)

    def event(self, ev: Event) -> list[Seen]:
        zone = str(ev.extra.get("zone") or "") if isinstance(ev, WarningEvent) else ""
        if zone and ev.extra.get("unread") and (zone.startswith(f"p:{self.seat}:slot") or zone in ("pile0", "discard")):
            return [Seen(None, ev.t, unclear=ev.message)]
        return []

    def verdict(self, v: dict[str, Any]) -> list[Seen]:
        if v.get("type") != "verdict" or v.get("player") != self.seat or v.get("action") not in ("place", "discard"):
            return []
        up = sorted(self.griddle.up.get(self.seat, set()))
        self.griddle.verdict(v, "en")
        sit = self.drill.make(f"{_grid(up)}/{v.get('card')}")
        if sit is None:
            return []
        zone = str(v.get("zone") or "")
        slot = R.slot_name(int(zone.rsplit("slot", 1)[1])) if "slot" in zone else None
        ok = bool(v.get("legal"))
        why = "" if ok else f" ({v.get('why')})"  # (a legal move's reason is the question's own)
        said = text(self.lang, f"at the table: {v.get('card')} on {f'slot {slot}' if slot else 'the discards'}: "
                               f"{'legal' if ok else 'ILLEGAL'}{why}",
                    f"卓上: {v.get('card')} → {f'スロット{slot}' if slot else '捨て札'}: {'正しい' if ok else '反則'}{why}")
        return [Seen(sit, float(v.get("t", 0.0)), said=said)]


def _card_kind(card: str) -> tuple[str, str, int]:
    """The joker, or a card's rank and suit on a red or plain face."""
    if card == "JK":
        return "joker", "JOKER", 0
    suit = card[-1]
    return ("red" if suit in "HD" else "plain"), card[:-1] + {"S": "s", "H": "h", "D": "d", "C": "c"}.get(suit, suit), 0


TEACHING = Teaching(
    drills=(DrillEntry("takoyaki", None, TakoyakiDrill, sensed="referee.teach.drills.cards_sensed:run_cards_sensed",
                       keys_answer=True),),
    look=CardLook(faces={"red": (60, 60, 200), "black": (40, 40, 40), "joker": (60, 160, 200)}, kind=_card_kind,
                  table="griddle"),
    explainer=Explainer, reader=CameraReader)

"""MOKOCHAKA drills: three pile tops → the call (names, Pome first, Gabu eats Moko, doubled
names, the special calls), and the token grab on a special call. The right call comes from
``rules.mokochaka.call_for``; the answer is judged by the MOKOCHAKA judge on a drill record
(two players: the learner plays the third top and calls; the rival only holds cards).

Keys: ``m`` moko, ``p`` paka, ``o`` pome, ``g`` gabu (names run together in the order
pressed: ``p`` ``m`` → pakamoko), ``1`` mokochaka, ``2`` chakamoko, ``3`` chakamokochaka,
``space`` grab the token, ``enter`` submit.

Decisions: the record's setup is the deal of a 2-player game (3 piles and the one leftover
card under the third pile's top); the situations are every set of three tops the default
deck can show, sorted by a stable hash and sorted into the rule they train (the first rule
of: special call, Gabu present, Pome present, else names); at most ``PER_LEVEL`` each.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections import Counter
from typing import Sequence

from rules import mokochaka as R
from referee.teach.core import CARD_T, Feedback, Level, Press, Situation, false_start, header, judge_lines, \
    presses_before, rt, verdict_at
from session.events import CardEvent, EndEvent, Event, GrabEvent, ShoutEvent
from audio.calls import name_words
from referee.judging.verdicts import verdict_of
from referee.judging.verdicts.mokochaka import PlayVerdict
from referee.teach.drills.base import CardLook, Drill, DrillEntry, RivalAnswer, Screen, Teaching
from referee.teach.texts import text, word_key

NAME_KEYS = {"m": "moko", "p": "paka", "o": "pome", "g": "gabu"}
SPECIAL_KEYS = {"1": "mokochaka", "2": "chakamoko", "3": "chakamokochaka"}
GRAB = "space"
PER_LEVEL = 24
#: the calls' Japanese as the game declares it (rules.mokochaka: GAME.calls); a special call
#: is its words run together
_SAID = {w.token: w.shown("ja") for w in R.GAME.calls.words}
JA = {**{k: _SAID[k] for k in R.KINDS},
      **{c: "".join(w.shown("ja") for w in name_words(R.GAME.vocabulary(), c)) for c in reversed(R.SPECIAL_CALLS)}}


def _deck() -> Counter:
    return Counter(R.deck_from_option(None))


def _classify(call: R.Call) -> str:
    if call.special:
        return "special"
    if call.counts["gabu"]:
        return "gabu"
    if call.counts["pome"]:
        return "pome"
    return "names"


def _situations() -> dict[str, list[Situation]]:
    deck = _deck()
    ids = sorted(deck)
    out: dict[str, list[tuple[str, Situation]]] = {"names": [], "pome": [], "gabu": [], "special": []}
    for tops in itertools.combinations_with_replacement(ids, 3):
        need = Counter(tops)
        if any(need[c] > deck[c] for c in need):
            continue
        call = R.call_for(tops)
        rule = _classify(call)
        key = "+".join(tops)
        h = hashlib.sha1(key.encode()).hexdigest()
        out[rule].append((h, Situation("mokochaka", rule, key, {"tops": list(tops)})))
    return {r: [s for _, s in sorted(v)[:PER_LEVEL]] for r, v in out.items()}


def _levels() -> tuple[Level, ...]:
    s = _situations()
    grab = tuple(Situation("mokochaka", "grab", x.key + "!", dict(x.data)) for x in s["special"])
    t = lambda en, ja: {"en": en, "ja": ja}  # noqa: E731
    return (
        Level("names", t("names: most first, all the same twice", "名前: 多い順、全部同じなら二回"), tuple(s["names"]), 2.5),
        Level("pome", t("Pome is always named first", "ポメはいつも最初"), tuple(s["pome"]), 2.5),
        Level("gabu", t("Gabu eats Moko", "ガブはモコを食べる"), tuple(s["gabu"]), 3.0),
        Level("special", t("special calls", "特別コール"), tuple(s["special"]), 3.0),
        Level("grab", t("special call and grab the token", "特別コールでトークンを取る"), grab, 2.5),
    )


def _filler(tops: Sequence[str]) -> list[str]:
    """Two cards to lie under the third top (the deal's pile start and leftover), from what
    the deck has left after the tops; deterministic."""
    left = _deck() - Counter(tops)
    out = []
    for c in sorted(left):
        while left[c] and len(out) < 2:
            out.append(c)
            left[c] -= 1
    return out


def _why(call: R.Call, lang: str) -> tuple[str, list[str]]:
    c, eff = call.counts, call.effective
    present = {k: v for k, v in eff.items() if k != "gabu"}
    if call.special:
        if "chakamokochaka" in call.accepted:
            return text(lang, "Moko, Paka and Pome all present with the same count",
                        "モコ・パカ・ポメが全部同じ数"), ["r:specialcall"]
        if "chakamoko" in call.accepted and "mokochaka" in call.accepted:
            return text(lang, "Moko, Paka and Pome all present, two with the same count: either call",
                        "モコ・パカ・ポメが全部いて二つが同じ数: どちらでも"), ["r:specialcall"]
        if "chakamoko" in call.accepted:
            return text(lang, "Moko, Paka and Pome all present", "モコ・パカ・ポメが全部いる"), ["r:specialcall"]
        return text(lang, "two kinds with the same count", "二種類が同じ数"), ["r:specialcall"]
    parts, keys = [], []
    if c["gabu"]:
        parts.append(text(lang, f"Gabu eats Moko (moko {c['moko']} − gabu {c['gabu']} = {c['moko'] - c['gabu']})",
                          f"ガブがモコを食べる (モコ {c['moko']} − ガブ {c['gabu']} = {c['moko'] - c['gabu']})"))
        keys.append("r:gabu")
    if len(set(call.tops and [R.parse_card(x).kind for x in call.tops])) == 1 and len(call.tops) == 3:
        parts.append(text(lang, "all three tops the same animal: the name twice", "三枚とも同じ動物: 名前を二回"))
        keys.append("r:same")
    elif "pome" in present:
        parts.append(text(lang, "Pome first", "ポメが最初"))
        keys.append("r:pome")
    elif not present:
        parts.append(text(lang, "only Gabu is left", "残るのはガブだけ"))
    else:
        parts.append(text(lang, "the most first", "多い順"))
        keys.append("r:most")
    return text(lang, "; ".join(parts), "、".join(parts)), keys


def _call_keys(call: str) -> list[str]:
    """The phrase keys that say a call: a special call is one word, names one key each."""
    if call in R.SPECIAL_CALLS:
        return [word_key(call)]
    keys, rest = [], call
    while rest:
        name = next(k for k in ("moko", "paka", "pome", "gabu") if rest.startswith(k))
        keys.append(word_key(name))
        rest = rest[len(name):]
    return keys


def _counts_text(call: R.Call, lang: str) -> str:
    items = [(k, v) for k, v in call.counts.items() if v]
    if lang == "ja":
        return " + ".join(f"{JA[k]} {v}" for k, v in items)
    return " + ".join(f"{k} {v}" for k, v in items)


def _top_text(card: str, lang: str) -> str:
    """``paka3`` → "paka 3" (ja: パカ 3)."""
    c = R.parse_card(card)
    return f"{JA.get(c.kind, c.kind) if lang == 'ja' else c.kind} {c.count}"


def _call_text(call: str, lang: str) -> str:
    if lang != "ja":
        return call
    out, rest = "", call
    for name in ("chakamokochaka", "chakamoko", "mokochaka"):
        if rest == name:
            return JA[name]
    while rest:
        for k in ("moko", "paka", "pome", "gabu"):
            if rest.startswith(k):
                out += JA[k]
                rest = rest[len(k):]
                break
        else:
            return call
    return out


class MokochakaDrill(Drill):
    def __init__(self) -> None:
        super().__init__(name="mokochaka", game="mokochaka", reaction=True, _levels=_levels())

    def make(self, key: str) -> Situation | None:
        known = self.situation(key)
        if known is not None:
            return known
        tops = sorted(key.rstrip("!").split("+"))
        if len(tops) != 3 or any(Counter(tops)[c] > _deck()[c] for c in tops):
            return None  # the drill shows three piles
        try:
            rule = _classify(R.call_for(tops))
        except Exception:
            return None
        return Situation("mokochaka", rule, "+".join(tops), {"tops": tops})

    def screen(self, sit: Situation, lang: str) -> Screen:
        tops = tuple(sit.data["tops"])
        grab = sit.rule == "grab"
        return Screen(title=text(lang, "Call!" + (" (and grab)" if grab else ""), "コール!" + ("(取って)" if grab else "")),
                      card=tops[2], field=tops, game="mokochaka",
                      lines=(text(lang, "pile tops: ", "山の一番上: ") + "  ".join(tops),),
                      keys=text(lang, "m moko  p paka  o pome  g gabu (in order)  |  1 mokochaka  2 chakamoko  "
                                "3 chakamokochaka  |  space grab  |  enter: done",
                                "m モコ p パカ o ポメ g ガブ(順番に) | 1 モコチャカ 2 チャカモコ 3 チャカモコチャカ | space 取る | enter 決定"))

    def _call_of(self, presses: Sequence[Press]) -> tuple[str, float | None]:
        names, first = "", None
        for p in presses:
            if p.key in SPECIAL_KEYS and not names:
                return SPECIAL_KEYS[p.key], p.t
            if p.key in NAME_KEYS:
                names += NAME_KEYS[p.key]
                first = p.t if first is None else first
        return names, first

    def oracle(self, sit: Situation) -> list[str]:
        call = R.call_for(sit.data["tops"])
        token = call.accepted[0]
        inv = {v: k for k, v in SPECIAL_KEYS.items()}
        if token in inv:
            keys = [inv[token]]
        else:
            keys, rest = [], token
            while rest:
                for k, name in NAME_KEYS.items():
                    if rest.startswith(name):
                        keys.append(k)
                        rest = rest[len(name):]
                        break
        if sit.rule == "grab":
            keys.append(GRAB)
        return keys + ["enter"]

    def answer_text(self, sit: Situation, presses: Sequence[Press]) -> str:
        ans = presses_before(presses)
        call, _ = self._call_of(ans)
        grab = any(p.key == GRAB for p in ans)
        return call + ("!" if grab and sit.rule == "grab" else "")

    def answer_of(self, sit: Situation) -> str:
        # every accepted call is right: the first one stands for them all
        return super().answer_of(sit)

    def record(self, sit: Situation, presses: Sequence[Press], level: Level, learner: str,
               rival: RivalAnswer | None = None) -> list[Event]:
        tops = list(sit.data["tops"])
        under = _filler(tops)
        rec: list[Event] = [
            header("mokochaka", [learner, "rival"], {"window": level.window_s}, sit),
            CardEvent(t=0.1, card=tops[0], zone="pile0"),
            CardEvent(t=0.2, card=tops[1], zone="pile1"),
            CardEvent(t=0.3, card=under[0], zone="pile2"),
            CardEvent(t=0.4, card=under[1], zone="pile2"),
            CardEvent(t=CARD_T, card=tops[2], zone="pile2", by=learner),
        ]
        ans = presses_before(presses)
        call, first = self._call_of(ans)
        if call:
            rec.append(ShoutEvent(t=rt(CARD_T + first), player=learner, words=(call,)))
        grabs = [p.t for p in ans if p.key == GRAB]
        if grabs:
            rec.append(GrabEvent(t=rt(CARD_T + grabs[0]), player=learner))
        call = R.call_for(tops)
        if rival and rival.correct and call.special:  # the ghost races for the token
            rec.append(ShoutEvent(t=rt(CARD_T + max(0.05, rival.t - 0.15)), player="rival", words=(call.accepted[0],)))
            rec.append(GrabEvent(t=rt(CARD_T + rival.t), player="rival"))
        rec.append(EndEvent(t=rt(CARD_T + level.window_s + 0.5)))
        return rec

    def feedback(self, sit, presses, level, lang, learner="you", rival=None) -> Feedback:
        tops = sit.data["tops"]
        call = R.call_for(tops)
        rec = self.record(sit, presses, level, learner, rival)
        lines = judge_lines(rec)
        v = verdict_at(lines, CARD_T) or {}
        ans = presses_before(presses)
        said, first = self._call_of(ans)
        grabbed = any(p.key == GRAB for p in ans)
        mine = (v.get("calls") or {}).get(learner)
        penalised = [p for p in v.get("penalties", []) if p.get("player") == learner]
        if false_start(presses):
            verdict = "false_start"
        elif not ans:
            verdict = "missed"
        else:
            ok = mine in call.accepted and not penalised and not v.get("late")
            if sit.rule == "grab":  # a right call and a grab; beaten to the token by the rival is still right
                ok = ok and grabbed and v.get("grab_winner") in (learner, "rival")
            verdict = "correct" if ok else ("missed" if v.get("late") else "wrong")
        times = v.get("times") or {}
        reaction = times.get(learner)
        grab_t = [p.t for p in ans if p.key == GRAB]
        if sit.rule == "grab" and grab_t and reaction is not None:
            reaction = rt(max(reaction, grab_t[0]))
        if reaction is None and ans:
            reaction = rt(ans[-1].t)
        rule, keys = _why(call, lang)
        accepted = text(lang, " or ", " か ").join(_call_text(a, lang) for a in call.accepted)
        fact = text(lang, f"{_counts_text(call, lang)} → call {accepted}", f"{_counts_text(call, lang)} → 「{accepted}」")
        if sit.rule == "grab":
            fact += text(lang, ", and grab the token", "、そしてトークンを取る")
        did = ""
        if verdict == "false_start":
            did = text(lang, "you pressed before the card appeared", "カードが出る前に押した")
        elif verdict != "correct":
            bits = []
            if said and said not in call.accepted:
                bits.append(text(lang, f"you called {said}", f"あなたは「{_call_text(said, lang)}」とコールした"))
            elif not said:
                bits.append(text(lang, "you made no call", "コールしなかった"))
            if sit.rule == "grab" and not grabbed:
                bits.append(text(lang, "you did not grab", "トークンを取らなかった"))
            elif grabbed and not call.special:
                bits.append(text(lang, "you grabbed with no special call", "特別コールなしで取った"))
            for p in penalised:
                reason = p.get("reason", "")
                if reason and reason not in ("wrong_call", "no_call"):
                    bits.append(text(lang, f"penalty: {reason.replace('_', ' ')}", f"ペナルティ: {reason}"))
            did = text(lang, ", ".join(bits), "、".join(bits))
        spoken = ("correct",) if verdict == "correct" else (
            verdict, *keys, *_call_keys(call.accepted[0]), *(("r:grab",) if sit.rule == "grab" else ()))
        fb = Feedback(verdict=verdict, reaction=reaction, rule=rule, fact=fact, did=did, spoken=spoken,
                      answered=self.answer_text(sit, presses), record=rec, lines=lines)
        if verdict == "wrong":
            fb.answered_as = self.answered_as(sit, presses)
        if rival and call.special:
            winner = v.get("grab_winner")
            fb.rival = (text(lang, f"the rival grabbed the token first ({rival.t:.2f} s)", f"ライバルが先にトークンを取った ({rival.t:.2f} 秒)")
                        if winner == "rival" else text(lang, "you grabbed the token before the rival", "ライバルより先にトークンを取った")
                        if winner == learner else "")
        return fb

    def answered_as(self, sit, presses):
        # the confusion of a call is the call given (situations sharing it are many)
        given = self.answer_text(sit, presses)
        return f"call:{given}" if given else None

    def words(self, key: str, lang: str) -> str:
        """``moko2+paka3+paka4`` → "the tops moko 2, paka 3, paka 4" (and "grab" for ``!``)."""
        sit = self.make(key)
        if sit is None:
            return key
        tops = ", ".join(_top_text(t, lang) for t in sit.data["tops"])
        grab = key.endswith("!")
        return text(lang, f"the tops {tops}" + (" (grab)" if grab else ""), f"山の一番上 {tops}" + ("(取る)" if grab else ""))

    def answer_words(self, answered_as: str, lang: str) -> str:
        """``call:pome`` → "the call pome" (a call is what the learner gave, not a situation)."""
        if answered_as.startswith("call:"):
            call = answered_as[5:]
            return text(lang, f"the call {call}", f"「{_call_text(call, lang)}」のコール")
        return self.words(answered_as, lang)

    def confusion_text(self, asked: str, answered_as: str, n: int, lang: str) -> str:
        """"the tops moko 2, paka 3, paka 4: you called pome (2 times). The right call:
        pakamoko — the most first"."""
        sit = self.make(asked)
        if sit is None or not answered_as.startswith("call:"):
            return super().confusion_text(asked, answered_as, n, lang)
        call = R.call_for(sit.data["tops"])
        rule, _ = _why(call, lang)
        right = " / ".join(_call_text(c, lang) for c in call.accepted)
        times = text(lang, f"{n} time" + ("s" if n != 1 else ""), f"{n}回")
        given = _call_text(answered_as[5:], lang)
        return text(lang, f"{self.words(asked, lang)}: you called {given} ({times}). The right call: {right}, "
                          f"because {rule} ({_counts_text(call, lang)})",
                    f"{self.words(asked, lang)}: 「{given}」とコールした ({times})。正しいコール: {right}、{rule} "
                    f"({_counts_text(call, lang)})")


def _card_kind(card: str) -> tuple[str, str, int] | None:
    """``paka3``: the paka face, its name, three pips."""
    m = re.fullmatch(r"(moko|paka|pome|gabu)([1-4])", card)
    return (m[1], m[1].upper(), int(m[2])) if m else None


def _walk(n: int, v, lang: str, drills: list[str]) -> list[str] | None:
    """``referee teach explain``: a play's tops, the call they ask for, and its penalties as drills."""
    if not isinstance(v, PlayVerdict):
        return None
    v = verdict_of("mokochaka", v)  # a bare line reads too
    call = R.call_for(v.tops)
    rule, _ = _why(call, lang)
    lines = [f"{n:3}  {v.t:8.3f}  {' '.join(v.tops)}: {rule}: {_counts_text(call, lang)} → {' / '.join(call.accepted)}"]
    for p in v.penalties:
        lines.append(f"      {text(lang, 'penalty', 'ペナルティ')}: {p['player']}: {', '.join(p.get('reasons', [p.get('reason')]))}")
        drills.append(f"mokochaka {'+'.join(sorted(v.tops))}  # {p['player']}: {p.get('reason')}")
    return lines


TEACHING = Teaching(
    drills=(DrillEntry("mokochaka", None, MokochakaDrill),),
    look=CardLook(faces={"moko": (200, 200, 235), "paka": (120, 200, 240), "pome": (200, 170, 250),
                         "gabu": (90, 110, 90)},
                  ink={"gabu": (255, 255, 255)}, kind=_card_kind, table="piles",
                  names_ja={f"{k}{n}": v for k, v in JA.items() for n in range(1, 5)}),
    words=("moko", "paka", "pome", "gabu", "mokochaka", "chakamoko", "chakamokochaka"),
    walk=_walk)

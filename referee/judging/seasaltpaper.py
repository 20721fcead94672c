"""Judging Sea Salt & Paper from the table's declarations (docs/rules.md, Sea Salt & Paper).

Record shape (our decision; docs/record.md leaves it to the game): ``choice`` events.
- ``{"action": "call", "player": P, "call": "stop" | "lastchance"}``: P ends the round.
- ``{"action": "emptydeck", "player": P}``: P's turn ended with an empty deck: the round
  ends with no points.
- ``{"action": "hand", "player": P, "cards": ["crab:blue", ...]}``: P's cards at the end
  of the round (in hand and played: both count). A later declaration replaces an earlier
  one of the same round. A hand with the four mermaids wins the game at once.
A round is scored (one verdict) as soon as its call and every player's hand are in, in
any order. Verdicts carry ``round``, ``call``, ``caller``, ``legal`` (the caller had ≥ 7
card points), ``why``, ``caller_won`` (LAST CHANCE), ``scores`` per player and the
running ``totals``; the game ends at 40/35/30 (option ``double``: 80/70/60) and the
result names the winner (ties: who played last in the final round).

Decisions: an illegal call (< 7 card points) is flagged and still scored as the table
played it; a round left incomplete when the record ends is not scored (warning); a hand
naming an unknown card is ignored with a warning naming the card.

**The round's end from the camera** (issue 34 item 2). At the table the caller says
"STOP" or "LAST CHANCE" aloud, then everyone lays their hand face up beside the cards they
played. So:
- a call is a ``choice`` ``call`` (typed: ``referee live`` has no key for it yet) **or a spoken call**: a
  ``shout`` of one player whose words are exactly ``stop`` or ``lastchance`` (the game's
  vocabulary, ``rules.seasaltpaper``). A shout nobody is credited with ends no round (a
  warning says so). While a call waits for the hands, another call is ignored with a
  warning: the same call heard twice, or an echo credited to a neighbour, must not change
  the caller.
- a hand read by the camera (``source`` ``camera``: :mod:`vision.spread_watch`, a player's
  ``p:NAME:spread`` zone once still) counts only when it is read after the round's call:
  before it, the spread shows the duos played during the round, not the hand. A typed hand
  counts in any order, as before. A later read of the same round replaces an earlier one
  until the round is scored (once every player's hand is in).
- a camera hand with a card found but not read (its ``unclear`` reasons) makes that
  player's tally **unclear**: no score this round (the verdict's ``unclear`` gives the
  reason and ``scores`` leaves the player out), never scored as another card. After STOP
  the others are scored (each scores their own card points); the caller's 7-point check is
  then unknown (``legal`` null). After LAST CHANCE the bet compares every player's card
  points, so an unclear hand leaves the whole round unscored (every player unclear).
- known limit: a player whose spread does not change after the call (every card already
  played, none in hand) is not read again; the round waits (correct it with a typed hand).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from session.errors import RulesError
from session.events import ChoiceEvent, EndEvent, Event, ShoutEvent
from rules.seasaltpaper import CALLS, last_played_order, resolve_round, score, target, winners
from referee.judging.base import GameJudge, LivePlay
from referee.judging.verdicts.seasaltpaper import RoundVerdict, SeaSaltPaperResult
from referee.report_spread import spread_evidence, spread_times


@dataclass(frozen=True)
class RoundInPlay:
    """What :attr:`Judge.state` gives: the round being played (``round``, from 1), its call
    (``caller``, ``call`` ``stop``/``lastchance``, ``call_t``; None: not yet), the hands in
    (``{player: cards}``; a camera hand counts only after the call), why a hand is unclear,
    the running ``totals`` and the ``winners`` once the game is won."""

    round: int
    caller: str | None
    call: str | None
    call_t: float | None
    hands: dict[str, list[str]]
    unclear: dict[str, str]
    totals: dict[str, int]
    winners: list[str]

    def result(self) -> dict[str, Any]:
        """The totals as a result line has them (the live scoreboard)."""
        return {"scores": dict(self.totals)}


class Judge(GameJudge):
    """A round's verdict is said at the declaration that completes it (the call and every
    hand, in any order, or the empty deck, or four mermaids): nothing later can change it."""

    def __init__(self, session) -> None:
        super().__init__(session)
        self.players = list(session.players)
        self.goal = target(len(self.players), session.options["double"])
        self.totals = {p: 0 for p in self.players}
        self.hands: dict[str, list[str]] = {}
        self.unclear: dict[str, str] = {}  # player -> why their hand was not all read
        self.call: ChoiceEvent | None = None
        self.rounds = 0
        self.won: list[str] = []
        self.ended = False

    def feed(self, ev: Event) -> list[dict[str, Any]]:
        if not self.ended and isinstance(ev, ShoutEvent):
            ev = self._spoken_call(ev)
        if self.ended or not isinstance(ev, ChoiceEvent):
            self.ended = self.ended or isinstance(ev, EndEvent)
            return []
        warn = self.session.warn
        if self.won:
            warn(f"t={ev.t}: {ev.action} after the game ended: ignored", ev)
            return []
        if ev.player not in self.totals:
            warn(f"t={ev.t}: {ev.action} by {ev.player!r}, who is not playing: ignored", ev)
            return []
        if ev.action == "hand":
            cards = ev.get("cards")
            if not isinstance(cards, list):
                warn(f"t={ev.t}: hand of {ev.player} without a 'cards' list: ignored", ev)
                return []
            try:
                s = score(cards)
            except RulesError as exc:
                warn(f"t={ev.t}: hand of {ev.player} ignored: {exc}", ev)
                return []
            camera = ev.get("source") == "camera"
            if camera and self.call is None:
                return []  # the spread during the round (duos played), not the round's hand
            self.hands[ev.player] = list(cards)
            self.unclear.pop(ev.player, None)
            if camera and ev.get("unclear"):
                self.unclear[ev.player] = hand_unclear_why(ev.get("unclear"))
            if s.instant_win and ev.player not in self.unclear:
                self.rounds += 1
                self.won = [ev.player]
                return [RoundVerdict(t=ev.t, round=self.rounds, call="mermaids", caller=ev.player, legal=True,
                                     why=f"{ev.player} holds the four mermaids and wins the game at once",
                                     scores={}, totals=dict(self.totals)).to_dict()]
        elif ev.action == "emptydeck":
            self.rounds += 1
            self.hands, self.call, self.unclear = {}, None, {}
            return [RoundVerdict(t=ev.t, round=self.rounds, call="emptydeck", caller=ev.player, legal=True,
                                 why="the deck ran out: the round ends with no points",
                                 scores={p: {"card_points": 0, "color_bonus": 0, "score": 0} for p in self.players},
                                 totals=dict(self.totals)).to_dict()]
        elif ev.action == "call":
            if str(ev.get("call", "")).lower() not in CALLS:
                warn(f"t={ev.t}: call {ev.get('call')!r} is neither stop nor lastchance: ignored", ev)
                return []
            if self.call is not None:
                warn(f"t={ev.t}: {ev.player}'s call {ev.get('call')} while {self.call.player}'s "
                     f"{self.call.get('call')} waits for the hands: ignored", ev)
                return []
            self.call = ev
        else:
            return []
        return self._score_round(ev)

    @property
    def state(self) -> "RoundInPlay":
        """The round as it stands, read-only (the live tallies and scoreboard): the call heard
        or typed, each hand in and why one is unclear, the running totals."""
        call = self.call
        return RoundInPlay(round=self.rounds + 1, caller=call.player if call is not None else None,
                           call=str(call.get("call")).lower() if call is not None else None,
                           call_t=call.t if call is not None else None, hands={p: list(c) for p, c in self.hands.items()},
                           unclear=dict(self.unclear), totals=dict(self.totals), winners=list(self.won))

    def _spoken_call(self, ev: ShoutEvent) -> Event:
        """A shout that is exactly one call, as the ``choice`` ``call`` it stands for (else the shout)."""
        words = tuple(str(w).lower() for w in ev.words)
        if len(words) != 1 or words[0] not in CALLS:
            return ev
        if ev.player is None:
            self.session.warn(f"t={ev.t}: {words[0]} heard but not credited to a player: no round ends", ev)
            return ev
        return ChoiceEvent(t=ev.t, player=ev.player, action="call", extra={"call": words[0], "source": "spoken"})

    def _score_round(self, ev: ChoiceEvent) -> list[dict[str, Any]]:
        """The round's verdict once its call and every hand are in (else nothing yet)."""
        call = self.call
        if call is None or not all(p in self.hands for p in self.players):
            return []
        self.rounds += 1
        kind = str(call.get("call")).lower()
        unclear = dict(self.unclear)
        if unclear and kind == "lastchance":
            out = {"call": kind, "caller": call.player, "legal": None if call.player in unclear else
                   score(self.hands[call.player]).card_points >= 7, "scores": {},
                   "why": "LAST CHANCE not settled: the bet compares every player's card points, and "
                          + ", ".join(f"{p}'s cards were not all read" for p in unclear)}
            unclear = {p: unclear.get(p, "the LAST CHANCE bet needs every hand: " + ", ".join(
                f"{q}'s cards were not all read" for q in self.unclear)) for p in self.players}
        else:
            clear = {p: self.hands[p] for p in self.players if p not in unclear}
            out = resolve_round(clear if call.player in clear else {**clear, call.player: []}, call.player,
                                kind).to_dict()
            if call.player in unclear:
                out["legal"] = None
                out["why"] = f"{call.player}'s cards were not all read: the 7-point check is unknown; " \
                             + out["why"].split("; ")[-1]
                out["scores"].pop(call.player, None)
        for p, s in out["scores"].items():
            self.totals[p] += s["score"]
        verdict = RoundVerdict(t=ev.t, round=self.rounds, **out, totals=dict(self.totals), unclear=unclear).to_dict()
        if max(self.totals.values()) >= self.goal:
            self.won = winners(self.totals, last_played_order(self.players, call.player, kind))
        self.hands, self.call, self.unclear = {}, None, {}
        return [verdict]

    def finish(self) -> list[dict[str, Any]]:
        if self.call is not None or self.hands:
            self.session.warn("the record ends in a round that was not complete (a call and every hand): not scored")
        return [SeaSaltPaperResult(scores=dict(self.totals), target=self.goal, rounds=self.rounds,
                                   winners=list(self.won), finished=bool(self.won)).to_dict()]


CALL_WORDS = {"stop": "STOP", "lastchance": "LAST CHANCE", "emptydeck": "the deck ran out", "mermaids": "four mermaids"}


def describe(verdict):
    """A round for people (the dispute report): who called what, each player's tally or why
    it is unclear. (No "heard" row: the call comes before the hands are laid out, outside the
    verdict's window; the record has it.)"""
    from referee.judging.view import UNCLEAR, VerdictView, text

    if verdict.get("type") != "verdict":
        from referee.judging.view import generic

        return generic(verdict)
    unclear = verdict.get("unclear") or {}
    call = CALL_WORDS.get(verdict.get("call"), str(verdict.get("call")))
    legal = verdict.get("legal")
    check = "unknown (the caller's cards were not all read)" if legal is None else "yes" if legal else "NO: fewer than 7"
    tallies = []
    for p, total in (verdict.get("totals") or {}).items():
        s = (verdict.get("scores") or {}).get(p)
        if p in unclear:
            tallies.append((p, [[(f"unclear: {unclear[p]}", UNCLEAR), (f"  (total {total})", None)]]))
        elif s is not None:
            tallies.append((p, text(f"card points {s['card_points']}, colour bonus {s['color_bonus']}: "
                                    f"scores {s['score']} (total {total})")))
    title = f"Round {verdict.get('round')}: {verdict.get('caller')} — {call}"
    columns = [("round", text(verdict.get("round"))), ("call", text(call)), ("caller", text(verdict.get("caller"))),
               ("unclear", text(", ".join(unclear) or "-"))]
    facts = [("how it was scored", text(verdict.get("why", ""))), ("caller had 7 card points", text(check))] + tallies
    return VerdictView(title=title, columns=columns, facts=facts, status={p: UNCLEAR for p in unclear})


#: the dispute report's evidence beside a round's verdict: each card's crop and code (referee.report)
report_evidence = spread_evidence
#: the frames that evidence shows, decoded with the report's others in one pass
report_evidence_times = spread_times


def hand_unclear_why(reasons) -> str:
    """One player's unclear hand in words (the reasons of its cards not read)."""
    items = [str(r) for r in reasons] if isinstance(reasons, list) else [str(reasons)]
    n = len(items)
    return f"{n} card{'s' if n != 1 else ''} not read: " + "; ".join(items)


def format_table(judgement, header) -> str:
    lines = []
    for obj in judgement.lines:
        if obj.get("type") == "verdict":
            lines.append(f"round {obj['round']}: {obj['call']} by {obj['caller']}"
                         + ("  (7-point check unknown)" if obj["legal"] is None else "" if obj["legal"] else "  ILLEGAL") + f"  ({obj['why']})")
            for p, why in (obj.get("unclear") or {}).items():
                lines.append(f"    {p:8} unclear: {why}  total {obj['totals'][p]:3}")
            for p, s in obj["scores"].items():
                lines.append(f"    {p:8} card points {s['card_points']:3}  colour bonus {s['color_bonus']:2}  "
                             f"scores {s['score']:3}  total {obj['totals'][p]:3}")
        elif obj.get("type") == "result":
            w = ", ".join(obj["winners"]) or "nobody yet"
            lines.append(f"winner: {w}  (target {obj['target']}; "
                         + ", ".join(f"{p} {v}" for p, v in obj["scores"].items()) + ")")
    return "\n".join(lines)


#: live: no reaction to strike, no tie to settle, no prompt (the call is heard or typed)
LIVE = LivePlay(keys=())
#: the live voice's words of a round (referee.live.voice asks the judging module)
from referee.judging.seasaltpaper_words import announcement, announcement_text, phrase_text, phrases  # noqa: E402,F401

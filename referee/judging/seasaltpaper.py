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
"""

from __future__ import annotations

from typing import Any

from session.errors import RulesError
from session.events import ChoiceEvent, EndEvent, Event
from rules.seasaltpaper import last_played_order, resolve_round, score, target, winners
from referee.judging.base import GameJudge
from referee.judging.verdicts.seasaltpaper import RoundVerdict, SeaSaltPaperResult


class Judge(GameJudge):
    """A round's verdict is said at the declaration that completes it (the call and every
    hand, in any order, or the empty deck, or four mermaids): nothing later can change it."""

    def __init__(self, session) -> None:
        super().__init__(session)
        self.players = list(session.players)
        self.goal = target(len(self.players), session.options["double"])
        self.totals = {p: 0 for p in self.players}
        self.hands: dict[str, list[str]] = {}
        self.call: ChoiceEvent | None = None
        self.rounds = 0
        self.won: list[str] = []
        self.ended = False

    def feed(self, ev: Event) -> list[dict[str, Any]]:
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
            self.hands[ev.player] = list(cards)
            if s.instant_win:
                self.rounds += 1
                self.won = [ev.player]
                return [RoundVerdict(t=ev.t, round=self.rounds, call="mermaids", caller=ev.player, legal=True,
                                     why=f"{ev.player} holds the four mermaids and wins the game at once",
                                     scores={}, totals=dict(self.totals)).to_dict()]
        elif ev.action == "emptydeck":
            self.rounds += 1
            self.hands, self.call = {}, None
            return [RoundVerdict(t=ev.t, round=self.rounds, call="emptydeck", caller=ev.player, legal=True,
                                 why="the deck ran out: the round ends with no points",
                                 scores={p: {"card_points": 0, "color_bonus": 0, "score": 0} for p in self.players},
                                 totals=dict(self.totals)).to_dict()]
        elif ev.action == "call":
            if str(ev.get("call", "")).lower() not in ("stop", "lastchance"):
                warn(f"t={ev.t}: call {ev.get('call')!r} is neither stop nor lastchance: ignored", ev)
                return []
            self.call = ev
        else:
            return []
        return self._score_round(ev)

    def _score_round(self, ev: ChoiceEvent) -> list[dict[str, Any]]:
        """The round's verdict once its call and every hand are in (else nothing yet)."""
        call = self.call
        if call is None or not all(p in self.hands for p in self.players):
            return []
        self.rounds += 1
        res = resolve_round({p: self.hands[p] for p in self.players}, call.player, str(call.get("call")).lower())
        for p, s in res.scores.items():
            self.totals[p] += s.score
        verdict = RoundVerdict(t=ev.t, round=self.rounds, **res.to_dict(), totals=dict(self.totals)).to_dict()
        if max(self.totals.values()) >= self.goal:
            self.won = winners(self.totals, last_played_order(self.players, call.player, res.call))
        self.hands, self.call = {}, None
        return [verdict]

    def finish(self) -> list[dict[str, Any]]:
        if self.call is not None or self.hands:
            self.session.warn("the record ends in a round that was not complete (a call and every hand): not scored")
        return [SeaSaltPaperResult(scores=dict(self.totals), target=self.goal, rounds=self.rounds,
                                   winners=list(self.won), finished=bool(self.won)).to_dict()]


def format_table(judgement, header) -> str:
    lines = []
    for obj in judgement.lines:
        if obj.get("type") == "verdict":
            lines.append(f"round {obj['round']}: {obj['call']} by {obj['caller']}"
                         + ("" if obj["legal"] else "  ILLEGAL") + f"  ({obj['why']})")
            for p, s in obj["scores"].items():
                lines.append(f"    {p:8} card points {s['card_points']:3}  colour bonus {s['color_bonus']:2}  "
                             f"scores {s['score']:3}  total {obj['totals'][p]:3}")
        elif obj.get("type") == "result":
            w = ", ".join(obj["winners"]) or "nobody yet"
            lines.append(f"winner: {w}  (target {obj['target']}; "
                         + ", ".join(f"{p} {v}" for p, v in obj["scores"].items()) + ")")
    return "\n".join(lines)

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

from typing import Any, Iterator

from session.errors import RulesError
from session.events import ChoiceEvent, EndEvent
from rules.seasaltpaper import last_played_order, resolve_round, score, target, winners


def judge(session) -> Iterator[dict[str, Any]]:
    players = list(session.players)
    goal = target(len(players), session.options["double"])
    totals = {p: 0 for p in players}
    hands: dict[str, list[str]] = {}
    call: ChoiceEvent | None = None
    rounds = 0
    won: list[str] = []
    for ev in session.events:
        if isinstance(ev, EndEvent):
            break
        if not isinstance(ev, ChoiceEvent):
            continue
        if won:
            session.warn(f"t={ev.t}: {ev.action} after the game ended: ignored", ev)
            continue
        if ev.player not in totals:
            session.warn(f"t={ev.t}: {ev.action} by {ev.player!r}, who is not playing: ignored", ev)
            continue
        if ev.action == "hand":
            cards = ev.get("cards")
            if not isinstance(cards, list):
                session.warn(f"t={ev.t}: hand of {ev.player} without a 'cards' list: ignored", ev)
                continue
            try:
                s = score(cards)
            except RulesError as exc:
                session.warn(f"t={ev.t}: hand of {ev.player} ignored: {exc}", ev)
                continue
            hands[ev.player] = list(cards)
            if s.instant_win:
                rounds += 1
                won = [ev.player]
                yield {"type": "verdict", "t": ev.t, "round": rounds, "call": "mermaids", "caller": ev.player,
                       "legal": True, "why": f"{ev.player} holds the four mermaids and wins the game at once",
                       "scores": {}, "totals": dict(totals)}
                continue
        elif ev.action == "emptydeck":
            rounds += 1
            hands, call = {}, None
            yield {"type": "verdict", "t": ev.t, "round": rounds, "call": "emptydeck", "caller": ev.player,
                   "legal": True, "why": "the deck ran out: the round ends with no points",
                   "scores": {p: {"card_points": 0, "color_bonus": 0, "score": 0} for p in players},
                   "totals": dict(totals)}
            continue
        elif ev.action == "call":
            if str(ev.get("call", "")).lower() not in ("stop", "lastchance"):
                session.warn(f"t={ev.t}: call {ev.get('call')!r} is neither stop nor lastchance: ignored", ev)
                continue
            call = ev
        else:
            continue
        if call is not None and all(p in hands for p in players):
            rounds += 1
            res = resolve_round({p: hands[p] for p in players}, call.player, str(call.get("call")).lower())
            for p, s in res.scores.items():
                totals[p] += s.score
            verdict = {"type": "verdict", "t": ev.t, "round": rounds, **res.to_dict(), "totals": dict(totals)}
            yield verdict
            if max(totals.values()) >= goal:
                won = winners(totals, last_played_order(players, call.player, res.call))
            hands, call = {}, None
    if call is not None or hands:
        session.warn("the record ends in a round that was not complete (a call and every hand): not scored")
    yield {"type": "result", "scores": totals, "target": goal, "rounds": rounds, "winners": won,
           "finished": bool(won)}


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

"""Judging TAKOYAKI from ``card`` events (docs/rules.md, TAKOYAKI).

Zones: ``p:NAME:draw`` (NAME drew this card from the deck), ``p:NAME:take`` (NAME took
the top discard, option ``take_discard``), ``p:NAME:slotN`` (this card went face up on
NAME's slot N; ``slot1`` is the A slot; a turned card is seen when it is placed or
discarded), ``discard`` (the card went onto the discards; the player is ``by`` or, without
it, whoever is playing). The deal is face down and never seen.

Every card event gives one verdict: ``player``, ``action`` (draw/take/place/discard),
``legal`` and ``why`` (for an illegal move the exact reason: ``wrong slot``, ``slot
already face up``, ``J/Q/K placed``, ``turn should have ended``, ``placeable card
discarded``, ``out of turn``), ``next`` (who plays next by the rules) and ``face_up``.

Decisions (the spec is silent):
- The first ``draw`` decides who starts (the table decides by rock-paper-scissors).
- The referee's griddle model follows the table: an illegal placement is flagged but the
  card is where it was put (face up); a turn that should have ended (J/Q/K or a card of a
  face-up slot was placed) ends, for ``next``, at that card; later placements in the same
  chain are judged ``turn should have ended``.
- A griddle filled through an illegal placement is not a win; a filled griddle of legal
  placements is, and events after the win are ignored (with a warning).
- When the next player draws before the current player's discard was seen, the turn is
  passed with a warning (perception may have missed the discard).
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from session.errors import RulesError
from session.events import CardEvent, EndEvent
from rules.takoyaki import (GAME, JOKER, decks_for, full_deck, parse_card, placement, rank_value,
                            ranking, slot_name)

ZONE = re.compile(r"^p:(?P<player>[^:]+):(?P<what>draw|take|slot(?P<slot>\d+))$")
UNKNOWN = "?"  # a card turned from a slot and not seen yet


class _Table:
    def __init__(self, session) -> None:
        self.session = session
        self.players = list(session.players)
        base = session.options["griddle"]
        sizes = session.options.get("sizes") or {}
        self.sizes = {p: int(sizes.get(p, base)) for p in self.players}
        self.up = {p: [False] * self.sizes[p] for p in self.players}
        self.legal_fill = {p: [True] * self.sizes[p] for p in self.players}
        self.turn: str | None = None
        self.hand: str | None = None  # card in the active player's hand, UNKNOWN, or None
        self.ended_by: str | None = None  # card at which this turn should have ended
        self.last_discarder: str | None = None
        self.winner: str | None = None
        self.turns = {p: 0 for p in self.players}
        self.illegal = {p: 0 for p in self.players}
        n = len(self.players)
        decks = 1 if session.header.mode == "solo" else decks_for(n)
        total = len(full_deck(decks, session.options["jokers"]))
        self.deck_left = total - sum(self.sizes.values())
        self.discards: list[str] = []

    def next_of(self, player: str) -> str:
        return self.players[(self.players.index(player) + 1) % len(self.players)]


def _verdict(ev: CardEvent, player: str, action: str, legal: bool, why: str, nxt: str | None,
             table: _Table, card: str) -> dict[str, Any]:
    if not legal:
        table.illegal[player] += 1
    return {"type": "verdict", "t": ev.t, "player": player, "card": card, "zone": ev.zone,
            "action": action, "legal": legal, "why": why, "next": nxt,
            "face_up": sum(table.up[player])}


def judge(session) -> Iterator[dict[str, Any]]:
    # the rules validate the players, the mode and the griddle sizes (RulesError names them)
    GAME.new_state(list(session.players), mode=session.header.mode, options=session.options)
    tb = _Table(session)
    for ev in session.events:
        if isinstance(ev, EndEvent):
            break
        if not isinstance(ev, CardEvent):
            continue
        if tb.winner is not None:
            if not (ev.zone == "discard" and (ev.by in (None, tb.winner))):
                session.warn(f"t={ev.t}: card {ev.card} after {tb.winner} won: ignored", ev)
            continue
        try:
            card = parse_card(ev.card)
        except RulesError as exc:
            session.warn(f"t={ev.t}: {exc}: event ignored", ev)
            continue
        zone = ev.zone or ""
        m = ZONE.match(zone)
        if zone == "discard":
            yield _discard(tb, ev, card)
        elif m and m["player"] in tb.up:
            player = m["player"]
            if m["what"] in ("draw", "take"):
                yield _draw(tb, ev, card, player, m["what"])
            else:
                yield _place(tb, ev, card, player, int(m["slot"]))
        else:
            session.warn(f"t={ev.t}: card {card} in zone {zone or '(none)'}, which takoyaki does not use: ignored", ev)
    face_up = {p: sum(tb.up[p]) for p in tb.players}
    result: dict[str, Any] = {"type": "result", "winners": [tb.winner] if tb.winner else [],
                              "face_up": face_up, "ranking": ranking(face_up, tb.winner),
                              "turns": tb.turns, "illegal": tb.illegal}
    if session.options["kachinuki"] and tb.winner:
        nxt = dict(tb.sizes)
        nxt[tb.winner] -= 1
        result["next_sizes"] = nxt
        result["champion"] = tb.winner if tb.sizes[tb.winner] == 1 else None
    if tb.winner is None:
        result["finished"] = False
    if session.header.mode == "solo":
        result["turns_needed"] = tb.turns[tb.players[0]] if tb.winner else None
    yield result


def _draw(tb: _Table, ev: CardEvent, card: str, player: str, what: str) -> dict[str, Any]:
    legal, why = True, f"{player} draws {card}"
    if tb.turn is None:
        tb.turn = player
    expected = tb.turn if tb.hand is None else tb.next_of(tb.turn)
    if tb.hand is not None and player == tb.turn:
        legal, why = False, f"out of turn: {player} still holds a card; place or discard it before drawing"
    elif player != expected:
        if player == tb.last_discarder:
            legal, why = False, f"turn should have ended: {player} discarded; it is {expected}'s turn"
        else:
            legal, why = False, f"out of turn: it is {expected}'s turn"
    elif tb.hand is not None:
        tb.session.warn(f"t={ev.t}: no discard seen for {tb.turn} before {player} drew; turn passed", ev)
    if what == "take":
        if not tb.session.options["take_discard"]:
            legal, why = False, "taking the discard is not allowed (option take_discard is off)"
        elif not tb.discards or tb.discards[-1] != card:
            top = tb.discards[-1] if tb.discards else "nothing"
            legal, why = False, f"{card} is not the top discard (the top is {top})"
        elif not placement(card, tb.up[player]).slots:
            legal, why = False, f"{card} cannot be placed, so it may not be taken from the discards"
        else:
            why = f"{player} takes {card} from the discards"
        if tb.discards and tb.discards[-1] == card:
            tb.discards.pop()
    else:
        if tb.deck_left <= 0:  # the discards were shuffled into a new deck
            tb.deck_left, tb.discards = len(tb.discards), []
        tb.deck_left -= 1
    tb.turn, tb.hand, tb.ended_by = player, card, None
    tb.turns[player] += 1
    nxt = player
    return _verdict(ev, player, what, legal, why, nxt, tb, card)


def _place(tb: _Table, ev: CardEvent, card: str, owner: str, slot: int) -> dict[str, Any]:
    size = tb.sizes[owner]
    answer = placement(card, tb.up[owner])
    continues = True
    if owner != tb.turn or tb.hand is None:
        if owner == tb.last_discarder and tb.hand is None:
            why = f"turn should have ended: {owner} already discarded"
        elif tb.turn is None:
            why = f"{owner} placed a card before anyone drew"
        else:
            why = f"out of turn: it is {tb.turn}'s turn"
        legal = False
    elif tb.ended_by is not None:
        legal, why = False, f"turn should have ended at {tb.ended_by}"
    elif tb.hand not in (UNKNOWN, card):
        legal, why = False, f"not the card in hand: {owner} holds {tb.hand}, placed {card}"
    elif not 1 <= slot <= size:
        legal, why = False, f"wrong slot: slot {slot} does not exist on a {size}-card griddle"
        continues = bool(answer.slots)
    elif slot in answer.slots:
        legal, why = True, answer.why
    elif card != JOKER and card[:-1] in ("J", "Q", "K"):
        legal, why, continues = False, f"J/Q/K placed: {card} has no slot; it is discarded and ends the turn", False
    elif card != JOKER and rank_value(card) > size:
        legal, why, continues = False, f"wrong slot: {card} has no slot on a {size}-card griddle; it ends the turn", False
    elif card != JOKER and tb.up[owner][rank_value(card) - 1]:
        v = slot_name(rank_value(card))
        legal, why, continues = False, f"slot already face up: slot {v} is filled; {card} is discarded and ends the turn", False
    elif card == JOKER:
        legal, why = False, f"slot already face up: slot {slot_name(slot)} is filled; a joker goes on a face-down slot"
    else:
        legal, why = False, f"wrong slot: {card} goes on slot {slot_name(rank_value(card))}, not slot {slot_name(slot)}"
    if owner == tb.turn and tb.ended_by is None and not continues:
        tb.ended_by = card
    if 1 <= slot <= size:
        tb.up[owner][slot - 1] = True
        tb.legal_fill[owner][slot - 1] = legal
    if owner == tb.turn:
        tb.hand = UNKNOWN
    nxt = owner if (continues and tb.ended_by is None) else tb.next_of(owner)
    v = _verdict(ev, owner, "place", legal, why, nxt, tb, card)
    if all(tb.up[owner]):
        if all(tb.legal_fill[owner]):
            tb.winner = owner
            v["winner"] = owner
            v["next"] = None
            v["why"] = f"{answer.why.split(':')[0]}: {owner} has filled the griddle and wins"
        else:
            v["why"] += "; the griddle is full only through an illegal placement: not a win"
    return v


def _discard(tb: _Table, ev: CardEvent, card: str) -> dict[str, Any]:
    player = ev.by or tb.turn
    tb.discards.append(card)
    if player is None or player not in tb.up:
        tb.session.warn(f"t={ev.t}: discard of {card} before anyone played", ev)
        return {"type": "verdict", "t": ev.t, "player": player, "card": card, "zone": ev.zone,
                "action": "discard", "legal": False, "why": "discard before anyone drew",
                "next": None, "face_up": 0}
    if player != tb.turn or tb.hand is None:
        legal, why = False, (f"turn should have ended: {player} already discarded" if player == tb.last_discarder
                             else f"out of turn: it is {tb.turn}'s turn")
    elif tb.hand not in (UNKNOWN, card):
        legal, why = False, f"not the card in hand: {player} holds {tb.hand}, discarded {card}"
    else:
        answer = placement(card, tb.up[player])
        if answer.slots and tb.ended_by is None:
            where = " or ".join(map(slot_name, answer.slots))
            legal, why = False, f"placeable card discarded: {card} goes on slot {where}; the turn should have gone on"
        else:
            legal = True
            why = answer.why if not answer.slots else f"the turn had ended at {tb.ended_by}"
    nxt = tb.next_of(player)
    if player == tb.turn:
        tb.hand, tb.ended_by, tb.last_discarder, tb.turn = None, None, player, nxt
    return _verdict(ev, player, "discard", legal, why, nxt, tb, card)


def format_table(judgement, header) -> str:
    """One line per card: time, player, action, card, legal or the reason, who is next."""
    lines = []
    for obj in judgement.lines:
        if obj.get("type") == "verdict":
            mark = "ok " if obj["legal"] else "BAD"
            nxt = f"next {obj['next']}" if obj.get("next") else "game over"
            lines.append(f"{obj['t']:8.2f}  {obj['player'] or '-':8} {obj['action']:7} {obj['card']:>3}  "
                         f"{mark}  {nxt:12}  {obj['why']}")
        elif obj.get("type") == "result":
            winners = ", ".join(obj["winners"]) or "nobody (unfinished)"
            lines.append(f"winner: {winners}")
            for rank, group in enumerate(obj["ranking"], start=1):
                for p in group:
                    lines.append(f"  {rank}. {p:8} face up {obj['face_up'][p]:2}  turns {obj['turns'][p]:3}  "
                                 f"illegal {obj['illegal'][p]}")
    return "\n".join(lines)

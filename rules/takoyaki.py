"""TAKOYAKI (docs/rules.md, TAKOYAKI, seed 001): turn the face-down "griddle" face up, slot by slot.

Cards use standard notation: rank ``A 2 … 10 J Q K`` + suit ``S H D C`` (``AS``, ``10H``,
``QD``), ``JK`` for a joker. Slot ``n`` of a griddle takes rank ``n`` (A = 1).

A whole game is a list of actions: :class:`Shuffle` (chance: the deal, and every
reshuffle of the discards into a new deck), :class:`Draw`, :class:`TakeDiscard` (option
``take_discard``), :class:`Place` (the card in hand onto a slot; the face-down card there
comes into the hand and the chain goes on) and :class:`Discard` (the card in hand cannot
go anywhere: the turn ends). A placeable card must be placed; an unplaceable one must be
discarded.

The judge follows a real table with the same state (``new_state(..., hidden=True)``): the
deal is face down and unseen, and each move is given as the table made it (``strict=False``,
with the player and the card seen), applied as it happened and judged legal or not, with
the reason (:meth:`TakoyakiState._follow`), so the turn and win logic exists once.

Decisions where the rulebook is silent (docs/rules.md) (also in the final report):
- Two decks from 4 players up, and up to 6 players (the rulebook: "4 or more: two decks").
- ``jokers`` counts jokers *per deck* (two decks with ``jokers=2`` hold 4 jokers).
- A joker goes on a face-down slot only (the rulebook: 裏向きの好きな場所), never on a slot
  that is already face up, and it fills that slot for good.
- The card turned from under the last face-down slot is discarded: the game is won.
- The game ends at the first player to fill their griddle whatever the player count;
  the others rank by face-up count (ties share a rank).
- Solo (mode ``solo``): one player, one deck; the result is the number of turns taken.
- ``kachinuki``: ``sizes`` gives each player's griddle size this game (default the full
  griddle); the winner's size for the next game is one less; a winner at size 1 is the
  champion. A griddle of size ``n`` has slots A..n, so every rank above n ends the turn.
- The deal gives each player their slots A..n in order from the shuffled deck.
- The game cannot block: with at most 7 players a rank still needed by someone always has
  a copy outside the face-down slots (4 copies per deck vs. one slot per player).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from session.errors import IllegalAction, RulesError, UnknownCard
from rules.base import Game, Option, Outcome, Shuffle, State

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
JOKER = "JK"
FACE = ("J", "Q", "K")


def parse_card(card: str) -> str:
    """The canonical id of a card (``10h`` -> ``10H``); :class:`UnknownCard` otherwise."""
    if not isinstance(card, str):
        raise UnknownCard(f"unknown card {card!r}: use rank+suit like AS, 10H, QD, or JK")
    c = card.strip().upper()
    if c in (JOKER, "JOKER"):
        return JOKER
    if len(c) >= 2 and c[:-1] in RANKS and c[-1] in SUITS:
        return c
    if c.startswith("1") and c[:-1] == "1" and c[-1] in SUITS:  # "1S" for the ace
        return "A" + c[-1]
    raise UnknownCard(f"unknown card {card!r}: use rank+suit like AS, 10H, QD, or JK for a joker")


def rank_value(card: str) -> int | None:
    """1..13 for a rank card (A=1, J=11, Q=12, K=13); None for a joker."""
    if card == JOKER:
        return None
    return RANKS.index(card[:-1]) + 1


def full_deck(decks: int, jokers: int) -> list[str]:
    one = [r + s for s in SUITS for r in RANKS] + [JOKER] * jokers
    return one * decks


def decks_for(players: int) -> int:
    return 2 if players >= 4 else 1


@dataclass(frozen=True)
class Placement:
    """Where a card may go on a griddle, and why (the answer of ``rules takoyaki place``)."""

    card: str
    slots: tuple[int, ...]  # legal slots (empty: the card is discarded)
    continues: bool  # the turn goes on (a face-down card comes into the hand)
    wins: bool  # placing fills the griddle
    why: str

    def to_dict(self) -> dict[str, Any]:
        return {"card": self.card, "slots": list(self.slots), "continues": self.continues,
                "wins": self.wins, "why": self.why}


def slot_name(n: int) -> str:
    return "A" if n == 1 else str(n)


def placement(card: str, face_up: Sequence[bool]) -> Placement:
    """Where ``card`` may go on a griddle whose slot ``i+1`` is face up iff ``face_up[i]``."""
    card = parse_card(card)
    size = len(face_up)
    down = [i + 1 for i, up in enumerate(face_up) if not up]
    if card == JOKER:
        if not down:
            return Placement(card, (), False, False, "no face-down slot left for the joker")
        return Placement(card, tuple(down), True, len(down) == 1,
                         "a joker goes on any face-down slot: " + ", ".join(map(slot_name, down)))
    v = rank_value(card)
    if card[:-1] in FACE:
        return Placement(card, (), False, False,
                         f"{card} has no slot: J, Q and K are discarded and end the turn")
    if v > size:
        return Placement(card, (), False, False,
                         f"{card} has no slot on a {size}-card griddle: discard it, the turn ends")
    if face_up[v - 1]:
        return Placement(card, (), False, False,
                         f"slot {slot_name(v)} is already face up: discard {card}, the turn ends")
    return Placement(card, (v,), True, len(down) == 1,
                     f"{card} goes on slot {slot_name(v)}" + (
                         ": the griddle is full, the game is won" if len(down) == 1
                         else "; turn the card that was there and go on"))


def parse_griddle(text: str) -> list[bool]:
    """Griddle notation: one character per slot A, 2, 3, … in order, ``x`` (or ``j`` for a
    joker) = face up, ``.`` = face down; the length (1–10) is the griddle size.
    ``x.x.......`` = a 10-card griddle with A and 3 face up."""
    if not isinstance(text, str) or not 1 <= len(text) <= 10 or any(c not in "xXjJ." for c in text):
        raise RulesError(
            f"malformed griddle {text!r}: give one character per slot from A up (1 to 10 slots), "
            "'x' (or 'j' for a joker) face up, '.' face down, e.g. x.x......."
        )
    return [c != "." for c in text]


# ----------------------------------------------------------------------------- actions
# ``player`` and ``card`` say what the table was seen doing; ``strict=False`` follows the
# table (the judge): the move is applied as it happened, legal or not, and its outcome says
# whether it was legal and why (see :meth:`TakoyakiState.apply`). In a strict move they may
# be left out; given, they must match the player to play and the card in hand.
@dataclass(frozen=True)
class Draw:
    player: str | None = None
    card: str | None = None
    strict: bool = True


@dataclass(frozen=True)
class TakeDiscard:
    player: str | None = None
    card: str | None = None
    strict: bool = True


@dataclass(frozen=True)
class Place:
    slot: int
    player: str | None = None
    card: str | None = None
    strict: bool = True


@dataclass(frozen=True)
class Discard:
    player: str | None = None
    card: str | None = None
    strict: bool = True


UNKNOWN = "?"  # following a table: the card turned from a slot, not seen until placed or discarded


class TakoyakiState(State):
    """One game. ``hidden=True`` (the judge) follows a table whose deal is face down and
    never seen: the griddles' cards and the deck are unknown (``None``), the first draw says
    who starts, and every move is a ``strict=False`` one (see :meth:`apply`)."""

    def __init__(self, players: Sequence[str], mode: str, options: Mapping[str, Any], hidden: bool = False):
        self.players = tuple(players)
        self.mode = mode
        self.options = dict(options)
        self.hidden = hidden
        n = len(self.players)
        self.decks = 1 if mode == "solo" else decks_for(n)
        self.all_cards = full_deck(self.decks, self.options["jokers"])
        base = self.options["griddle"]
        sizes = self.options["sizes"] or {}
        for name, size in sizes.items():
            if name not in self.players:
                raise RulesError(f"option 'sizes' names {name!r}, who is not playing")
            if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= base:
                raise RulesError(f"option 'sizes': {name}'s griddle must be 1..{base} cards, got {size!r}")
        self.sizes = {p: sizes.get(p, base) for p in self.players}
        self.phase = "draw" if hidden else "deal"
        # index 0 = top; hidden: as many unknown cards as the deal left
        self.deck: list[str | None] = ([None] * (len(self.all_cards) - sum(self.sizes.values())) if hidden
                                       else list(self.all_cards))
        self.discard: list[str] = []  # last = top
        self.cards: dict[str, list[str | None]] = {p: [None] * self.sizes[p] for p in self.players}
        self.up: dict[str, list[bool]] = {p: [False] * self.sizes[p] for p in self.players}
        # a slot is False when it was turned face up by an illegal placement (no win through it)
        self.legal_fill: dict[str, list[bool]] = {p: [True] * self.sizes[p] for p in self.players}
        self.current: int | None = None if hidden else 0  # hidden: nobody until the first draw
        self.hand: str | None = None  # the card in hand, UNKNOWN (following a table), or None
        self.ended_by: str | None = None  # following a table: the card at which the turn should have ended
        self.last_discarder: str | None = None
        self.turns = {p: 0 for p in self.players}
        self.winner: str | None = None

    # -- helpers
    @property
    def player(self) -> str | None:
        """Whose turn it is (None only while a hidden game has not started)."""
        return None if self.current is None else self.players[self.current]

    def next_of(self, player: str) -> str:
        """Who plays after ``player`` (seat order)."""
        return self.players[(self.players.index(player) + 1) % len(self.players)]

    def fills(self, player: str) -> bool:
        """``player`` has won: every slot face up, none through an illegal placement."""
        return all(self.up[player]) and all(self.legal_fill[player])

    def _placement(self, card: str) -> Placement:
        return placement(card, self.up[self.player])

    def legal_actions(self) -> list[Any]:
        if self.phase in ("deal", "reshuffle") or self.hidden:
            return []  # chance: see random_action; a hidden game only follows the table
        if self.phase == "draw":
            acts: list[Any] = [Draw()]
            if self.options["take_discard"] and self.discard and self._placement(self.discard[-1]).slots:
                acts.append(TakeDiscard())
            return acts
        if self.phase == "place":
            p = self._placement(self.hand)
            return [Place(s) for s in p.slots] if p.slots else [Discard()]
        return []

    # -- State interface
    def random_action(self, rng: random.Random):
        if self.phase == "over" or self.hidden:
            return None
        if self.phase == "deal":
            return Shuffle.draw(len(self.deck), rng)
        if self.phase == "reshuffle":
            return Shuffle.draw(len(self.discard), rng)
        return rng.choice(self.legal_actions())

    def apply(self, action: Any) -> Outcome:
        """Apply a move. A strict move must be legal (:class:`IllegalAction` otherwise). A
        ``strict=False`` move follows the table: it is applied as it happened and its outcome
        says ``legal`` and ``why`` (see :meth:`_follow`)."""
        if self.phase == "over":
            raise IllegalAction("the game is over")
        if isinstance(action, Shuffle):
            return self._shuffle(action)
        if isinstance(action, (Draw, TakeDiscard, Place, Discard)) and not action.strict:
            return self._follow(action)
        if self.hidden:
            raise IllegalAction(f"{action!r}: a hidden game follows the table with strict=False moves")
        action = self._bare(action)
        if action not in self.legal_actions():
            raise IllegalAction(f"{action!r} is not legal now (phase {self.phase}, {self.player} to play"
                                + (f", holding {self.hand})" if self.hand else ")"))
        p = self.player
        if isinstance(action, Draw):
            self.hand = self.deck.pop(0)
            self.turns[p] += 1
            self.phase = "place"
            return Outcome("draw", {"player": p, "card": self.hand})
        if isinstance(action, TakeDiscard):
            self.hand = self.discard.pop()
            self.turns[p] += 1
            self.phase = "place"
            return Outcome("take", {"player": p, "card": self.hand})
        if isinstance(action, Place):
            i = action.slot - 1
            card, self.hand = self.hand, self.cards[p][i]
            self.cards[p][i] = card
            self.up[p][i] = True
            if self.fills(p):
                self.discard.append(self.hand)
                self.hand = None
                self.winner = p
                self.phase = "over"
                return Outcome("win", {"player": p, "card": card, "slot": action.slot})
            return Outcome("place", {"player": p, "card": card, "slot": action.slot, "turned": self.hand})
        if isinstance(action, Discard):
            card, self.hand = self.hand, None
            self.discard.append(card)
            self.last_discarder = p
            self.current = self.players.index(self.next_of(p))
            self.phase = "draw" if self.deck else "reshuffle"
            return Outcome("discard", {"player": p, "card": card, "next": self.player})
        raise IllegalAction(f"unknown action {action!r}")

    def _bare(self, action: Any) -> Any:
        """A strict move with the named player and card checked, then left out."""
        if not isinstance(action, (Draw, TakeDiscard, Place, Discard)):
            return action
        if action.player is not None and action.player != self.player:
            raise IllegalAction(f"{action!r}: it is {self.player}'s turn, not {action.player}'s")
        if action.card is not None:
            card = parse_card(action.card)
            held = (self.deck[0] if isinstance(action, Draw) and self.deck else
                    self.discard[-1] if isinstance(action, TakeDiscard) and self.discard else self.hand)
            if card != held:
                raise IllegalAction(f"{action!r}: the card there is {held}, not {card}")
        return replace(action, player=None, card=None)

    def _shuffle(self, action: Shuffle) -> Outcome:
        pile = self.deck if self.phase == "deal" else self.discard
        if self.phase not in ("deal", "reshuffle") or sorted(action.order) != list(range(len(pile))):
            raise IllegalAction(f"a shuffle of {len(pile)} cards is not legal now (phase {self.phase})")
        cards = [pile[i] for i in action.order]
        if self.phase == "deal":
            for p in self.players:
                for i in range(self.sizes[p]):
                    self.cards[p][i] = cards.pop(0)
            self.deck = cards
            self.phase = "draw"
            return Outcome("deal", {"deck": len(self.deck)})
        self.discard = []
        self.deck = cards
        self.phase = "draw"
        return Outcome("reshuffle", {"deck": len(self.deck)})

    # -- following a table (strict=False): the moves as they happened, legal or not
    def _follow(self, action: Any) -> Outcome:
        """Apply a move the table made and judge it. The outcome's details: ``player``,
        ``card``, ``legal``, ``why`` (for an illegal move the exact reason), ``next`` (who
        plays next by the rules), ``face_up`` (the player's face-up slots), ``notes``
        (what the referee had to assume) and, for the winning placement, ``winner``.

        The model follows the table (decisions, also in the judge's docstring): an illegal
        placement is flagged but the card lies where it was put; a turn that should have
        ended (J/Q/K or a card of a face-up slot was placed) ends, for ``next``, at that card,
        and later placements in the chain are "turn should have ended"; a griddle filled
        through an illegal placement is no win; a draw before the current player's discard
        was seen passes the turn (with a note); an empty deck is refilled with the discards.
        """
        if action.card is None:
            raise IllegalAction(f"{action!r}: following the table needs the card that was seen")
        card = parse_card(action.card)
        if isinstance(action, Discard):
            return self._follow_discard(action.player, card)
        if action.player not in self.players:
            raise IllegalAction(f"{action!r} names {action.player!r}, who is not playing")
        if isinstance(action, Place):
            return self._follow_place(action.player, card, action.slot)
        return self._follow_draw(action.player, card, "take" if isinstance(action, TakeDiscard) else "draw")

    def _judged(self, kind: str, player: str | None, card: str, legal: bool, why: str, nxt: str | None,
                notes: Sequence[str] = ()) -> Outcome:
        face_up = sum(self.up[player]) if player in self.up else 0
        return Outcome(kind, {"player": player, "card": card, "legal": legal, "why": why, "next": nxt,
                              "face_up": face_up, "notes": list(notes)})

    def _follow_draw(self, player: str, card: str, what: str) -> Outcome:
        legal, why, notes = True, f"{player} draws {card}", []
        if self.current is None:  # the first draw decides who starts
            self.current = self.players.index(player)
        turn = self.player
        expected = turn if self.hand is None else self.next_of(turn)
        if self.hand is not None and player == turn:
            legal, why = False, f"out of turn: {player} still holds a card; place or discard it before drawing"
        elif player != expected:
            if player == self.last_discarder:
                legal, why = False, f"turn should have ended: {player} discarded; it is {expected}'s turn"
            else:
                legal, why = False, f"out of turn: it is {expected}'s turn"
        elif self.hand is not None:
            notes.append(f"no discard seen for {turn} before {player} drew; turn passed")
        if what == "take":
            if not self.options["take_discard"]:
                legal, why = False, "taking the discard is not allowed (option take_discard is off)"
            elif not self.discard or self.discard[-1] != card:
                top = self.discard[-1] if self.discard else "nothing"
                legal, why = False, f"{card} is not the top discard (the top is {top})"
            elif not placement(card, self.up[player]).slots:
                legal, why = False, f"{card} cannot be placed, so it may not be taken from the discards"
            else:
                why = f"{player} takes {card} from the discards"
            if self.discard and self.discard[-1] == card:
                self.discard.pop()
        else:
            if not self.deck:  # the discards were shuffled into a new deck
                self.deck, self.discard = [None] * len(self.discard), []
            if self.deck:
                self.deck.pop(0)
        self.current, self.hand, self.ended_by = self.players.index(player), card, None
        self.turns[player] += 1
        self.phase = "place"
        return self._judged(what, player, card, legal, why, player, notes)

    def _follow_place(self, owner: str, card: str, slot: int) -> Outcome:
        size = self.sizes[owner]
        answer = placement(card, self.up[owner])
        turn = self.player
        continues = True
        if owner != turn or self.hand is None:
            if owner == self.last_discarder and self.hand is None:
                why = f"turn should have ended: {owner} already discarded"
            elif turn is None:
                why = f"{owner} placed a card before anyone drew"
            else:
                why = f"out of turn: it is {turn}'s turn"
            legal = False
        elif self.ended_by is not None:
            legal, why = False, f"turn should have ended at {self.ended_by}"
        elif self.hand not in (UNKNOWN, card):
            legal, why = False, f"not the card in hand: {owner} holds {self.hand}, placed {card}"
        elif not 1 <= slot <= size:
            legal, why = False, f"wrong slot: slot {slot} does not exist on a {size}-card griddle"
            continues = bool(answer.slots)
        elif slot in answer.slots:
            legal, why = True, answer.why
        elif card != JOKER and card[:-1] in FACE:
            legal, why, continues = False, f"J/Q/K placed: {card} has no slot; it is discarded and ends the turn", False
        elif card != JOKER and rank_value(card) > size:
            legal, why, continues = False, f"wrong slot: {card} has no slot on a {size}-card griddle; it ends the turn", False
        elif card != JOKER and self.up[owner][rank_value(card) - 1]:
            v = slot_name(rank_value(card))
            legal, why, continues = False, f"slot already face up: slot {v} is filled; {card} is discarded and ends the turn", False
        elif card == JOKER:
            legal, why = False, f"slot already face up: slot {slot_name(slot)} is filled; a joker goes on a face-down slot"
        else:
            legal, why = False, f"wrong slot: {card} goes on slot {slot_name(rank_value(card))}, not slot {slot_name(slot)}"
        if owner == turn and self.ended_by is None and not continues:
            self.ended_by = card
        if 1 <= slot <= size:
            self.up[owner][slot - 1] = True
            self.cards[owner][slot - 1] = card
            self.legal_fill[owner][slot - 1] = legal
        if owner == turn:
            self.hand = UNKNOWN  # the card turned from under the slot: seen when it is played
        nxt = owner if (continues and self.ended_by is None) else self.next_of(owner)
        out = self._judged("place", owner, card, legal, why, nxt)
        if all(self.up[owner]):
            if self.fills(owner):
                self.winner, self.phase, self.hand = owner, "over", None
                out.details.update(next=None, winner=owner,
                                   why=f"{answer.why.split(':')[0]}: {owner} has filled the griddle and wins")
            else:
                out.details["why"] += "; the griddle is full only through an illegal placement: not a win"
        return out

    def _follow_discard(self, by: str | None, card: str) -> Outcome:
        turn = self.player
        player = by or turn
        self.discard.append(card)
        if player is None or player not in self.players:
            return self._judged("discard", player, card, False, "discard before anyone drew", None,
                                [f"discard of {card} before anyone played"])
        if player != turn or self.hand is None:
            legal, why = False, (f"turn should have ended: {player} already discarded" if player == self.last_discarder
                                 else f"out of turn: it is {turn}'s turn")
        elif self.hand not in (UNKNOWN, card):
            legal, why = False, f"not the card in hand: {player} holds {self.hand}, discarded {card}"
        else:
            answer = placement(card, self.up[player])
            if answer.slots and self.ended_by is None:
                where = " or ".join(map(slot_name, answer.slots))
                legal, why = False, f"placeable card discarded: {card} goes on slot {where}; the turn should have gone on"
            else:
                legal = True
                why = answer.why if not answer.slots else f"the turn had ended at {self.ended_by}"
        nxt = self.next_of(player)
        if player == turn:
            self.hand, self.ended_by, self.last_discarder = None, None, player
            self.current, self.phase = self.players.index(nxt), "draw"
        return self._judged("discard", player, card, legal, why, nxt)

    # -- the standing
    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def face_up(self) -> dict[str, int]:
        return {p: sum(self.up[p]) for p in self.players}

    def kachinuki(self) -> dict[str, Any]:
        """``kachinuki``: the griddle sizes of the next game (the winner's one less) and the
        champion (a winner at size 1); empty without the option or a winner."""
        if not self.options["kachinuki"] or not self.winner:
            return {}
        nxt = dict(self.sizes)
        nxt[self.winner] -= 1
        return {"next_sizes": nxt, "champion": self.winner if self.sizes[self.winner] == 1 else None}

    def result(self) -> dict[str, Any]:
        face_up = self.face_up()
        out: dict[str, Any] = {"face_up": face_up, "turns": dict(self.turns),
                               "winners": [self.winner] if self.winner else []}
        if self.mode == "solo":
            out["cleared"] = self.winner is not None
            out["turns_needed"] = self.turns[self.players[0]] if self.winner else None
            return out
        out["ranking"] = ranking(face_up, self.winner)
        out.update(self.kachinuki())
        return out

    def snapshot(self) -> dict[str, Any]:
        return {"phase": self.phase, "current": self.current, "hand": self.hand,
                "deck": list(self.deck), "discard": list(self.discard),
                "cards": {p: list(c) for p, c in self.cards.items()},
                "up": {p: list(u) for p, u in self.up.items()},
                "legal_fill": {p: list(u) for p, u in self.legal_fill.items()},
                "ended_by": self.ended_by, "last_discarder": self.last_discarder,
                "turns": dict(self.turns), "winner": self.winner}

    def check_invariants(self) -> None:
        if not self.hidden:
            held = list(self.deck) + list(self.discard) + ([self.hand] if self.hand else [])
            for p in self.players:
                held += [c for c in self.cards[p] if c is not None]
            assert Counter(held) == Counter(self.all_cards), "cards are not conserved"
            for p in self.players:
                for i, up in enumerate(self.up[p]):
                    c = self.cards[p][i]
                    if up:
                        assert c == JOKER or rank_value(c) == i + 1, f"{p}: {c} face up on slot {i + 1}"
        if self.phase == "place":
            assert self.hand is not None
        if self.winner:
            assert self.fills(self.winner)


def ranking(face_up: Mapping[str, int], winner: str | None) -> list[list[str]]:
    """Winner first, then the others by face-up count (ties share a rank), in seat order."""
    rest = [p for p in face_up if p != winner]
    counts = sorted({face_up[p] for p in rest}, reverse=True)
    out = [[winner]] if winner else []
    return out + [[p for p in rest if face_up[p] == c] for c in counts]


class Takoyaki(Game):
    name = "takoyaki"
    title = "TAKOYAKI"
    rank = 2
    modes = ("versus", "solo")
    zones = ("p:", "pile0")  # the griddles' slots, the discards
    uses_hands = False  # the verdicts read the cards only: no pose
    #: every rank of every suit, then the joker
    faces = tuple(f"{r}{s}" for s in SUITS for r in RANKS) + (JOKER,)

    def calibration_zones(self, seats):
        """A griddle of ten slots (A..10) per player, and the discards (``pile0``: the
        calibration's name of the table's one shared pile; the judge reads it as ``discard``)."""
        return [f"p:{n}:slot{k}" for n in seats for k in range(1, 11)] + ["pile0"]

    def zone_label(self, zone):
        """``p:aki:slot1`` is "aki A", ``p:aki:slot7`` "aki 7", ``pile0`` "discards"."""
        if zone == "pile0":
            return "discards"
        seat, _, slot = zone.removeprefix("p:").partition(":slot")
        if zone.startswith("p:") and slot.isdigit():
            return f"{seat} {'A' if slot == '1' else slot}"
        return super().zone_label(zone)
    min_players = 2
    max_players = 6
    options = (
        Option("jokers", 2, "jokers per deck (0, 1 or 2)", int, (0, 1, 2)),
        Option("take_discard", False, "a player may take the top discard instead of drawing when it is placeable", bool),
        Option("griddle", 10, "griddle size: 10 (A-10) or 6 (A-6, 7-10 then end the turn)", int, (10, 6)),
        Option("kachinuki", False, "winners lay one card fewer next game (the result gives next_sizes)", bool),
        Option("sizes", {}, "kachinuki: each player's griddle size this game, e.g. {\"aki\": 9}", dict),
    )

    def new_state(self, players, mode=None, options=None, hidden: bool = False):
        """A new game; ``hidden=True``: the judge's view of a table (see :class:`TakoyakiState`)."""
        mode = mode or self.modes[0]
        if mode not in self.modes:
            raise RulesError(f"unknown takoyaki mode {mode!r} (known: {', '.join(self.modes)})")
        players = list(players)
        if mode == "solo" and len(players) != 1:
            raise RulesError("takoyaki solo is played by exactly one player")
        if mode == "versus" and not self.min_players <= len(players) <= self.max_players:
            raise RulesError(f"takoyaki versus needs {self.min_players}-{self.max_players} players, got {len(players)}")
        return TakoyakiState(players, mode, self.resolve_options(options), hidden=hidden)


GAME = Takoyaki()

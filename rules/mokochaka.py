"""MOKOCHAKA rules (docs/rules.md, MOKOCHAKA), pure: no clocks, no I/O, randomness only via rng.

Cards are ``kind + animal count`` (``moko3``, ``gabu1``). The rulebook gives the number of
cards per kind (Moko 10, Paka 10, Pome 6, Gabu 6) but not the animal count printed on each
card, so the deck list is data: :data:`DEFAULT_DECK` is a documented guess that a table
overrides with the ``deck`` option (a list of card ids, or ``{card id: copies}``) once it has
counted its own printed deck.

The call is a pure function of the visible pile tops (:func:`call_for`). A game is a list of
actions: one chance action :class:`Setup` (3 face-up piles, the equal deal, leftovers on the
piles), then per turn a :class:`Play` (flip the top card onto a pile) and one
:class:`Resolve` describing everything the table did about that card (each player's call
and its onset relative to the placement, token touches in time order, the players'
choices). Resolving applies the penalties in time order, then the token bonus, and says
who plays next. :class:`DeclareGabu` records the Gabu counts the table reports at the end.

Decisions where the rulebook is silent (docs/rules.md) (also in the README, section MOKOCHAKA):

- The first player in the header's list starts (the rulebook's "slept the least").
- A player's call is their FIRST call token in the play (self-corrections do not count).
- Only the active player's normal call is judged; another player's normal call is ignored
  (noted in ``why``): their call is their first SPECIAL call if they make one (so muttering
  the normal call along does not spoil a later grab), and a special call that does not
  hold is a wrong call.
- "Late" (a call starting ``window`` s or more after the card) applies to the active
  player only; the others simply race for the token.
- A player is penalised at most once per play, even with several faults (e.g. a wrong
  call and a grab); ``why`` lists every fault. The penalty takes the time of the earliest.
- The time of a "no call" / "stuck" penalty is ``window`` s after the card.
- A player penalised for a late call cannot win the token with it.
- A touch after the token is won is ignored (the token is in the winner's hand).
- Penalties with equal times are applied in turn order starting from the active player.
- Cards given in a penalty: as many as the giver has, up to 1 (2 with 2 players).
- Won piles go to the bottom of the winner's hand in the order chosen, each pile from its
  bottom card to its top card; fewer non-empty piles than the bonus allows: all of them.
- Winners count hand cards minus Gabu only when every player's Gabu count is known
  (declared, or the hand is fully known); otherwise by hand size, with a note.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from session.errors import IllegalAction, OptionError, UnknownCard
from rules.base import Game, Option, Outcome, State
from session.calls import Calls, Word

KINDS = ("moko", "paka", "pome", "gabu")
ANIMALS = ("moko", "paka", "pome")  # the kinds special calls are about (Gabu excluded)
CARDS_PER_KIND = {"moko": 10, "paka": 10, "pome": 6, "gabu": 6}
DECK_SIZE = sum(CARDS_PER_KIND.values())  # 32
N_PILES = 3
SPECIAL_CALLS = ("chakamokochaka", "chakamoko", "mokochaka")
CALL_FAULTS = frozenset({"no_call", "wrong_call", "late", "stuck"})  # faults of the caller's call

# Default animal counts per card (the rulebook does not print them): each kind has every
# count 1-4, weighted towards small counts. Per kind: {count: copies}.
DEFAULT_COUNTS = {
    "moko": {1: 3, 2: 3, 3: 2, 4: 2},
    "paka": {1: 3, 2: 3, 3: 2, 4: 2},
    "pome": {1: 2, 2: 2, 3: 1, 4: 1},
    "gabu": {1: 2, 2: 2, 3: 1, 4: 1},
}
DEFAULT_DECK: tuple[str, ...] = tuple(
    f"{kind}{count}" for kind in KINDS for count, copies in DEFAULT_COUNTS[kind].items() for _ in range(copies)
)

_CARD_RE = re.compile(r"^(moko|paka|pome|gabu)([1-4])$")
_CALL_RE = re.compile(r"^(?:moko|paka|pome|gabu)+$")


# ----------------------------------------------------------------------------- cards

@dataclass(frozen=True, order=True)
class Card:
    kind: str
    count: int

    @property
    def id(self) -> str:
        return f"{self.kind}{self.count}"


def parse_card(card: str) -> Card:
    """``"moko3"`` -> Card("moko", 3); anything else raises :class:`UnknownCard` naming it."""
    m = _CARD_RE.match(card.strip().lower()) if isinstance(card, str) else None
    if m is None:
        raise UnknownCard(
            f"unknown MOKOCHAKA card {card!r}: a card is a kind (moko, paka, pome, gabu) "
            "followed by its animal count 1-4, e.g. moko3"
        )
    return Card(m.group(1), int(m.group(2)))


def card_id(card: str) -> str:
    """The canonical id of a card (validated, lower case)."""
    return parse_card(card).id


def deck_from_option(value: Any) -> tuple[str, ...]:
    """The deck a table plays with: None (the default), a list of ids, or {id: copies}.

    The kinds must match the rulebook (Moko 10, Paka 10, Pome 6, Gabu 6 = 32 cards).
    """
    if value is None:
        return DEFAULT_DECK
    if isinstance(value, Mapping):
        ids: list[str] = []
        for cid, copies in value.items():
            if isinstance(copies, bool) or not isinstance(copies, int) or not 0 <= copies <= DECK_SIZE:
                raise OptionError(f"option 'deck': copies of {cid!r} must be a whole number in 0..{DECK_SIZE}, "
                                  f"got {copies!r}"[:160])
            ids.extend([card_id(cid)] * copies)
    elif isinstance(value, (list, tuple)):
        ids = [card_id(c) for c in value]
    else:
        raise OptionError(f"option 'deck' must be a list of card ids or an object id -> copies, got {value!r}")
    per_kind = Counter(parse_card(c).kind for c in ids)
    for kind, want in CARDS_PER_KIND.items():
        if per_kind.get(kind, 0) != want:
            raise OptionError(
                f"option 'deck' has {per_kind.get(kind, 0)} {kind} cards; the game has {want} "
                "(Moko 10, Paka 10, Pome 6, Gabu 6)"
            )
    return tuple(sorted(ids, key=lambda c: (KINDS.index(parse_card(c).kind), parse_card(c).count)))


# ----------------------------------------------------------------------------- the call

def is_call_token(token: str) -> bool:
    """Whether a spoken token is a MOKOCHAKA call (names run together, or a special call)."""
    return token in SPECIAL_CALLS or bool(_CALL_RE.match(token))


@dataclass(frozen=True)
class Call:
    """What may be called over some pile tops.

    ``accepted``: every correct call, sorted alphabetically (so ``chakamoko`` before
    ``mokochaka`` in the either-is-correct case); ``special``: a token race is on;
    ``counts``: animals per kind on the tops; ``effective``: after Gabu eats Moko, only
    the kinds present (count > 0) among Moko/Paka/Pome plus Gabu.
    """

    accepted: tuple[str, ...]
    special: bool
    counts: Mapping[str, int]
    effective: Mapping[str, int]
    tops: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"accepted": list(self.accepted), "special": self.special, "tops": list(self.tops),
                "counts": dict(self.counts), "effective": dict(self.effective)}


def call_for(tops: Iterable[str]) -> Call:
    """The correct call(s) over the visible pile tops (docs/rules.md, MOKOCHAKA "The call")."""
    cards = [parse_card(c) for c in tops]
    if not cards:
        raise IllegalAction("no pile shows a card: there is nothing to call")
    counts = {k: 0 for k in KINDS}
    for c in cards:
        counts[c.kind] += c.count
    eff = {"moko": counts["moko"] - counts["gabu"], "paka": counts["paka"], "pome": counts["pome"]}
    present = {k: v for k, v in eff.items() if v > 0}
    effective = dict(present)
    if counts["gabu"]:
        effective["gabu"] = counts["gabu"]
    ids = tuple(c.id for c in cards)

    specials: set[str] = set()
    values = list(present.values())
    if len(present) == 3 and len(set(values)) == 1:
        specials.add("chakamokochaka")
    else:
        if len(present) == 3:
            specials.add("chakamoko")
        if len(values) != len(set(values)):  # two present kinds with the same count
            specials.add("mokochaka")
    if specials:
        return Call(tuple(sorted(specials)), True, counts, effective, ids)

    if len(cards) == N_PILES and len({c.kind for c in cards}) == 1:
        token = cards[0].kind * 2
    elif present:
        order = (["pome"] if "pome" in present else []) + sorted(
            (k for k in present if k != "pome"), key=lambda k: (-present[k], ANIMALS.index(k))
        )
        token = "".join(order)
    else:
        token = "gabu"
    return Call((token,), False, counts, effective, ids)


# ----------------------------------------------------------------------------- actions

@dataclass(frozen=True)
class Setup:
    """Chance: the 3 face-up piles (bottom -> top, leftovers stacked on them) and the deal.

    ``hands`` follows the players' order, top card first; ``None`` is a face-down card
    the referee cannot see. ``strict=False`` (the judge, following a record) lets the
    hands differ in size and a pile start empty.
    """

    piles: tuple[tuple[str, ...], ...]
    hands: tuple[tuple[str | None, ...], ...]
    strict: bool = True


@dataclass(frozen=True)
class Play:
    """``player`` flips the top card of their hand (``card``) onto pile ``pile`` (0-2).

    ``strict=False`` (the judge, following a record) lets a player play out of turn or
    onto an existing pile while one is empty; the record is what happened.
    """

    player: str
    pile: int
    card: str
    strict: bool = True


@dataclass(frozen=True)
class Shout:
    """A player's call and its onset, ``dt`` seconds after the card was placed."""

    player: str
    call: str
    dt: float


@dataclass(frozen=True)
class Touch:
    """A player's hand touched the token ``dt`` seconds after the card was placed."""

    player: str
    dt: float


@dataclass(frozen=True)
class Resolve:
    """Everything the table did about the last card.

    ``calls``: every call (a player's first one by onset counts); ``grabs``: token touches
    in time order (equal ``dt`` keeps the given order); ``penalty_to``: (penalised,
    receiver) choices overriding the receiver policy; ``piles``: the token winner's chosen
    piles, overriding the pile policy.

    What the referee could not judge (it did not clearly perceive it, docs/rules.md "The
    referee's own uncertainty"): ``excused`` players pay no penalty on this play, whatever
    their faults would be; ``hold_token``: the token's winner rests on such an observation,
    so nobody wins it on this play (no bonus; a touch that would win is no fault either).
    """

    calls: tuple[Shout, ...] = ()
    grabs: tuple[Touch, ...] = ()
    penalty_to: tuple[tuple[str, str], ...] = ()
    piles: tuple[int, ...] | None = None
    excused: tuple[str, ...] = ()
    hold_token: bool = False


@dataclass(frozen=True)
class DeclareGabu:
    """The table reports how many Gabu cards ``player`` holds (counted at the end)."""

    player: str
    count: int


# ----------------------------------------------------------------------------- the state

@dataclass
class _Fault:
    dt: float
    reasons: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)


class MokochakaState(State):
    """A MOKOCHAKA game. Hands are lists, top card first; ``None`` = a hidden card.

    ``hidden=True`` (the judge) keeps every hand card hidden: the referee only sees the
    piles, so it counts hand cards instead of knowing them.
    """

    def __init__(self, players: Sequence[str], options: Mapping[str, Any], hidden: bool = False):
        if len(players) < MokochakaGame.min_players:
            raise IllegalAction(f"MOKOCHAKA needs at least {MokochakaGame.min_players} players, got {len(players)}")
        self.players = tuple(players)
        self.options = dict(options)
        self.deck = deck_from_option(options.get("deck"))
        self.hidden = hidden
        self.phase = "setup"  # setup -> play <-> resolve -> over
        self.hands: dict[str, list[str | None]] = {p: [] for p in self.players}
        self.piles: list[list[str]] = [[] for _ in range(N_PILES)]
        self.to_play: str = self.players[0]
        self.active: str | None = None
        self.emptied = False  # the active player played their last card
        self.call: Call | None = None
        self.gabu: dict[str, int] = {}
        self.plays = 0
        self.ended_by: str | None = None

    # -- helpers
    @property
    def n(self) -> int:
        return len(self.players)

    def tops(self) -> tuple[str, ...]:
        return tuple(p[-1] for p in self.piles if p)

    def counts(self) -> dict[str, int]:
        return {p: len(self.hands[p]) for p in self.players}

    def _index(self, player: str) -> int:
        try:
            return self.players.index(player)
        except ValueError:
            raise IllegalAction(f"unknown player {player!r} (players: {', '.join(self.players)})") from None

    def _left_with_cards(self, player: str) -> str:
        """The first player after ``player`` in turn order holding cards (``player`` last)."""
        i = self._index(player)
        for k in range(1, self.n + 1):
            q = self.players[(i + k) % self.n]
            if self.hands[q]:
                return q
        return self.players[(i + 1) % self.n]

    def _to_hand(self, card: str | None) -> str | None:
        return None if self.hidden else card

    @property
    def penalty_cards(self) -> int:
        return 2 if self.n == 2 else 1

    @property
    def bonus_piles(self) -> int:
        return 1 if self.n == 2 else 2

    # -- the interface
    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def apply(self, action: Any) -> Outcome:
        if isinstance(action, DeclareGabu):
            return self._declare(action)
        if self.phase == "over":
            raise IllegalAction("the game is over")
        if isinstance(action, Setup):
            return self._setup(action)
        if isinstance(action, Play):
            return self._play(action)
        if isinstance(action, Resolve):
            return self._resolve(action)
        raise IllegalAction(f"not a MOKOCHAKA action: {action!r}")

    def _setup(self, a: Setup) -> Outcome:
        if self.phase != "setup":
            raise IllegalAction("the game is already set up")
        if len(a.piles) != N_PILES:
            raise IllegalAction(f"setup needs {N_PILES} piles, got {len(a.piles)}")
        if len(a.hands) != self.n:
            raise IllegalAction(f"setup deals {len(a.hands)} hands for {self.n} players")
        piles = [[card_id(c) for c in pile] for pile in a.piles]
        hands = [[None if c is None else card_id(c) for c in h] for h in a.hands]
        total = sum(map(len, piles)) + sum(map(len, hands))
        if total != len(self.deck):
            raise IllegalAction(f"setup places {total} cards; the deck has {len(self.deck)}")
        if a.strict:
            if any(not p for p in piles):
                raise IllegalAction("setup: every pile starts with a face-up card")
            if len({len(h) for h in hands}) != 1:
                raise IllegalAction(f"setup: the deal must be equal, got hand sizes {[len(h) for h in hands]}")
            leftovers = sum(map(len, piles)) - N_PILES
            if leftovers >= self.n:
                raise IllegalAction(f"setup: {leftovers} leftover cards on the piles; fewer than {self.n} expected")
            self._check_known([c for p in piles for c in p] + [c for h in hands for c in h if c is not None])
        self.piles = piles
        for p, h in zip(self.players, hands):
            self.hands[p] = [self._to_hand(c) for c in h]
        self.phase = "play"
        self.to_play = self.players[0] if self.hands[self.players[0]] else self._left_with_cards(self.players[0])
        return Outcome("setup", {"piles": [list(p) for p in self.piles], "hands": self.counts(),
                                 "to_play": self.to_play})

    def _check_known(self, cards: Iterable[str]) -> None:
        over = Counter(cards) - Counter(self.deck)
        if over:
            card = sorted(over)[0]
            raise IllegalAction(f"more {card} cards than the deck holds ({Counter(self.deck)[card]})")

    def _play(self, a: Play) -> Outcome:
        if self.phase != "play":
            raise IllegalAction(f"no card may be played now (phase {self.phase})")
        card = card_id(a.card)
        self._index(a.player)
        hand = self.hands[a.player]
        if not hand:
            raise IllegalAction(f"{a.player} has no cards to play")
        if not 0 <= a.pile < N_PILES:
            raise IllegalAction(f"pile {a.pile} does not exist (piles 0-{N_PILES - 1})")
        notes = []
        if a.player != self.to_play:
            if a.strict:
                raise IllegalAction(f"it is {self.to_play}'s turn, not {a.player}'s")
            notes.append(f"{a.player} played out of turn ({self.to_play} was to play)")
        empty = [i for i, p in enumerate(self.piles) if not p]
        if empty and self.piles[a.pile]:
            if a.strict:
                raise IllegalAction(f"pile {empty[0]} is empty: a new pile must be started first")
            notes.append(f"played on pile {a.pile} while pile {empty[0]} was empty")
        top = hand[0]
        if top is not None and top != card:
            if a.strict:
                raise IllegalAction(f"{a.player}'s top card is {top}, not {card}")
            notes.append(f"{a.player}'s top card was {top}, the record shows {card}")
        hand.pop(0)
        self.piles[a.pile].append(card)
        self.active = a.player
        self.emptied = not hand
        self.call = call_for(self.tops())
        self.phase = "resolve"
        self.plays += 1
        return Outcome("play", {"player": a.player, "pile": a.pile, "card": card,
                                "call": self.call.to_dict(), "notes": notes})

    def _resolve(self, a: Resolve) -> Outcome:
        if self.phase != "resolve":
            raise IllegalAction("there is no played card to resolve")
        assert self.call is not None and self.active is not None
        call, active = self.call, self.active
        window = float(self.options["window"])
        slack = float(self.options["grab_slack"])
        order = {p: (i - self._index(active)) % self.n for i, p in enumerate(self.players)}

        first: dict[str, Shout] = {}
        for s in sorted(a.calls, key=lambda s: s.dt):
            self._index(s.player)
            if s.player != active and s.call in SPECIAL_CALLS and first.get(s.player, s).call not in SPECIAL_CALLS:
                first[s.player] = s  # another player's first SPECIAL call is their call
            first.setdefault(s.player, s)
        faults: dict[str, _Fault] = {}
        why: dict[str, str] = {}

        def fault(player: str, dt: float, code: str, reason: str) -> None:
            f = faults.setdefault(player, _Fault(dt))
            f.dt = min(f.dt, dt)
            f.codes.append(code)
            f.reasons.append(reason)

        expected = " or ".join(call.accepted)
        mine = first.get(active)
        if mine is None:
            if not call.special:
                fault(active, window, "no_call", f"no call within {window:g} s, expected {expected}")
        elif mine.call not in call.accepted:
            fault(active, mine.dt, "wrong_call", f"said {mine.call}, expected {expected}")
        elif mine.dt >= window:
            fault(active, mine.dt, "late", f"called {mine.call} {mine.dt:.2f} s after the card (limit {window:g} s)")
        for p, s in first.items():
            if p == active:
                continue
            if s.call in SPECIAL_CALLS and s.call not in call.accepted:
                fault(p, s.dt, "wrong_call", f"said {s.call}, expected " + (expected if call.special else "no special call"))
            elif s.call not in SPECIAL_CALLS:
                why[p] = f"said {s.call}: ignored, only {active} makes the normal call"

        winner: str | None = None
        grabbed: set[str] = set()
        last_dt = float("-inf")
        for g in a.grabs:
            self._index(g.player)
            if g.dt < last_dt:
                raise IllegalAction("grabs must be given in time order")
            last_dt = g.dt
            if winner is not None or g.player in grabbed:
                continue
            grabbed.add(g.player)
            s = first.get(g.player)
            if not call.special:
                fault(g.player, g.dt, "grab_no_special", f"grabbed the token at {g.dt:.2f} s with no special call holding")
            elif s is None or s.call not in call.accepted:
                said = "without calling" if s is None else f"calling {s.call}"
                fault(g.player, g.dt, "grab_without_call", f"grabbed the token {said}, expected {expected}")
            elif s.dt > g.dt + slack:
                fault(g.player, g.dt, "grab_before_call",
                      f"grabbed the token {s.dt - g.dt:.2f} s before calling {s.call} (slack {slack:g} s)")
            elif g.player in faults and "late" in faults[g.player].codes:
                pass
            elif not a.hold_token:
                winner = g.player
                why[g.player] = f"won the token with {s.call}"

        if call.special and mine is None:
            reacted = any(s.call in SPECIAL_CALLS and s.dt < window for s in first.values()) or any(
                g.dt < window for g in a.grabs)
            if not reacted:
                fault(active, window, "stuck", f"stuck: nobody called {expected} within {window:g} s")

        caller_codes = set(faults[active].codes) if active in faults else set()
        faults = {p: f for p, f in faults.items() if p not in a.excused}
        # validate every choice before moving any card
        bonus_piles = self._bonus_piles(a.piles) if winner is not None else ()
        # penalties in time order (ties: turn order from the active player), then the bonus
        receivers = {}
        for who, to in a.penalty_to:
            self._index(who)
            self._index(to)
            if who == to:
                raise IllegalAction(f"{who} cannot give a penalty card to themselves")
            receivers[who] = to
        penalties = []
        for p in sorted(faults, key=lambda p: (faults[p].dt, order[p])):
            f = faults[p]
            to = receivers.get(p) or self._receiver(p)
            k = min(self.penalty_cards, len(self.hands[p]))
            moved = [self.hands[p].pop(0) for _ in range(k)]
            self.hands[to].extend(self._to_hand(c) for c in moved)
            why[p] = "; ".join(f.reasons)
            penalties.append({"player": p, "reason": f.codes[0], "reasons": list(f.codes), "dt": round(f.dt, 6),
                              "to": to, "cards": k, "chosen": p in receivers})

        bonus = None
        if winner is not None:
            piles = bonus_piles
            taken = 0
            for i in piles:
                taken += len(self.piles[i])
                self.hands[winner].extend(self._to_hand(c) for c in self.piles[i])
                self.piles[i] = []
            extra = {}
            if call.accepted == ("chakamokochaka",):
                for p in self.players:
                    if p != winner and self.hands[p]:
                        self.hands[winner].append(self._to_hand(self.hands[p].pop(0)))
                        extra[p] = 1
            bonus = {"player": winner, "piles": list(piles), "cards": taken, "from_players": extra,
                     "chosen": a.piles is not None}

        if self.emptied and not self.hands[active]:
            self.phase = "over"
            self.ended_by = active
            nxt = None
        else:
            self.phase = "play"
            if winner is not None:
                nxt = winner
            elif penalties:
                nxt = self._left_with_cards(penalties[-1]["player"])
            else:
                nxt = self._left_with_cards(active)
            self.to_play = nxt
        return Outcome("resolve", {
            "caller": active, "call": None if mine is None else mine.call,
            "accepted": list(call.accepted), "special": call.special,
            "ok": not caller_codes & CALL_FAULTS,
            "late": mine is not None and mine.dt >= window,
            "grab_winner": winner, "penalties": penalties, "bonus": bonus, "why": why,
            "next": nxt, "over": self.phase == "over", "hands": self.counts(),
            "calls": {p: {"call": first[p].call, "dt": first[p].dt} for p in self.players if p in first},
        })

    def _receiver(self, giver: str) -> str:
        others = [self.players[(self._index(giver) + k) % self.n] for k in range(1, self.n)]
        if self.options["penalty_receiver"] == "left":
            return others[0]
        fewest = min(len(self.hands[p]) for p in others)
        return next(p for p in others if len(self.hands[p]) == fewest)

    def _bonus_piles(self, chosen: tuple[int, ...] | None) -> tuple[int, ...]:
        non_empty = [i for i in range(N_PILES) if self.piles[i]]
        want = min(self.bonus_piles, len(non_empty))
        if chosen is not None:
            chosen = tuple(chosen)
            if len(set(chosen)) != len(chosen) or any(i not in non_empty for i in chosen) or len(chosen) != want:
                raise IllegalAction(
                    f"the token winner takes {want} of the non-empty piles {non_empty}, got {list(chosen)}")
            return chosen
        if self.options["bonus_piles"] == "fewest":
            key = lambda i: (len(self.piles[i]), i)  # noqa: E731
        else:
            key = lambda i: (-len(self.piles[i]), i)  # noqa: E731
        return tuple(sorted(non_empty, key=key)[:want])

    def _declare(self, a: DeclareGabu) -> Outcome:
        self._index(a.player)
        if isinstance(a.count, bool) or not isinstance(a.count, int) or not 0 <= a.count <= len(self.hands[a.player]):
            raise IllegalAction(
                f"{a.player} cannot hold {a.count!r} Gabu cards with {len(self.hands[a.player])} cards in hand")
        self.gabu[a.player] = a.count
        return Outcome("gabu", {"player": a.player, "count": a.count})

    def _gabu_of(self, player: str) -> int | None:
        if player in self.gabu:
            return self.gabu[player]
        hand = self.hands[player]
        if any(c is None for c in hand):
            return None
        return sum(1 for c in hand if c is not None and c.startswith("gabu"))

    def result(self) -> dict[str, Any]:
        hands = self.counts()
        gabu = {p: self._gabu_of(p) for p in self.players}
        missing = [p for p in self.players if gabu[p] is None]
        if missing:
            scores = dict(hands)
            note = f"Gabu count not given for {', '.join(missing)}: winners by hand size"
        else:
            scores = {p: hands[p] - (gabu[p] or 0) for p in self.players}
            note = None
        best = max(scores.values())
        out = {"over": self.is_over, "ended_by": self.ended_by, "hands": hands, "gabu": gabu,
               "scores": scores, "winners": [p for p in self.players if scores[p] == best],
               "piles": [len(p) for p in self.piles]}
        if note:
            out["note"] = note
        return out

    def snapshot(self) -> dict[str, Any]:
        return {"phase": self.phase, "players": list(self.players), "to_play": self.to_play,
                "active": self.active, "hands": {p: list(h) for p, h in self.hands.items()},
                "piles": [list(p) for p in self.piles], "gabu": dict(self.gabu), "plays": self.plays,
                "ended_by": self.ended_by}

    def check_invariants(self) -> None:
        total = sum(map(len, self.piles)) + sum(len(h) for h in self.hands.values())
        if self.phase != "setup":
            assert total == len(self.deck), f"{total} cards in play, the deck has {len(self.deck)}"
        known = [c for p in self.piles for c in p] + [c for h in self.hands.values() for c in h if c is not None]
        assert not (Counter(known) - Counter(self.deck)), "more copies of a card than the deck holds"
        if self.phase in ("play", "resolve"):
            assert self.to_play in self.players

    # -- random legal actions (conformance test, fixtures)
    def random_action(self, rng: random.Random) -> Any | None:
        if self.phase == "over":
            return None
        if self.phase == "setup":
            cards = list(self.deck)
            rng.shuffle(cards)
            piles = [[cards.pop()] for _ in range(N_PILES)]
            per = len(cards) // self.n
            hands = tuple(tuple(cards[i * per:(i + 1) * per]) for i in range(self.n))
            for c in cards[self.n * per:]:
                piles[rng.randrange(N_PILES)].append(c)
            return Setup(tuple(tuple(p) for p in piles), hands)
        if self.phase == "play":
            p = self.to_play
            empty = [i for i, pile in enumerate(self.piles) if not pile]
            pile = rng.choice(empty) if empty else rng.randrange(N_PILES)
            card = self.hands[p][0]
            if card is None:  # hidden hands: any card of the deck not visible on the piles
                card = rng.choice(list((Counter(self.deck) - Counter(c for q in self.piles for c in q)).elements()))
            return Play(p, pile, card)
        return self._random_resolve(rng)

    def _random_resolve(self, rng: random.Random) -> Resolve:
        assert self.call is not None and self.active is not None
        call, active = self.call, self.active
        calls: list[Shout] = []
        grabs: list[Touch] = []
        dt = lambda lo, hi: round(rng.uniform(lo, hi), 3)  # noqa: E731
        r = rng.random()
        if call.special:
            racer = rng.choice(self.players)
            if r < 0.8:
                t = dt(0.2, 1.5)
                calls.append(Shout(racer, rng.choice(call.accepted), t))
                grabs.append(Touch(racer, round(t + rng.uniform(-0.4, 0.3), 3)))
            if rng.random() < 0.15:
                grabs.append(Touch(rng.choice(self.players), dt(0.1, 2.0)))
            if rng.random() < 0.2:
                calls.append(Shout(active, rng.choice(["pakamoko", "mokochaka", "gabu"]), dt(0.1, 2.0)))
        else:
            if r < 0.85:
                calls.append(Shout(active, call.accepted[0], dt(0.2, 2.8)))
            elif r < 0.9:
                calls.append(Shout(active, rng.choice(["pakamoko", "pomepaka", "mokomoko", "chakamoko"]), dt(0.2, 2.8)))
            elif r < 0.95:
                calls.append(Shout(active, call.accepted[0], dt(3.0, 4.0)))
            if rng.random() < 0.05:
                grabs.append(Touch(rng.choice(self.players), dt(0.1, 2.0)))
        grabs.sort(key=lambda g: g.dt)
        penalty_to: tuple[tuple[str, str], ...] = ()
        if rng.random() < 0.2:
            giver = rng.choice(self.players)
            to = rng.choice([p for p in self.players if p != giver])
            penalty_to = ((giver, to),)
        return Resolve(tuple(calls), tuple(grabs), penalty_to, None)


class MokochakaGame(Game):
    """MOKOCHAKA: 2+ players, one mode; options are the rule options of docs/rules.md (MOKOCHAKA)."""

    name = "mokochaka"
    title = "MOKOCHAKA"
    rank = 1
    modes = ("default",)
    zones = ("pile0", "pile1", "pile2", "token")
    #: every kind-count face of the default deck
    faces = tuple(dict.fromkeys(DEFAULT_DECK))
    min_players = 2
    max_players = 8
    #: names run together into one call token (``paka`` + ``moko`` = ``pakamoko``)
    calls = Calls(words=(Word("moko", "モコ", "moko"), Word("paka", "パカ", "paka"), Word("pome", "ポメ", "pome"),
                         Word("gabu", "ガブ", "gabu"), Word("chaka", "チャカ", "chaka")), join_names=True)
    test_word = "moko"
    options = (
        Option("window", 3.0, "seconds to call after placing the card; a call starting this late or later is late",
               kind=float, minimum=0.0, exclusive_minimum=True, maximum=60.0),
        Option("grab_slack", 0.25, "seconds a correct special call may start after the token touch and still "
               "count as calling while grabbing (a measurement tolerance)", kind=float, minimum=0.0, maximum=10.0),
        Option("deck", None, "the deck: a list of card ids or {id: copies}; default DEFAULT_DECK",
               kind=(type(None), list, dict)),
        Option("penalty_receiver", "fewest", "who receives a penalty card unless a choice says: 'fewest' cards "
               "(ties: first after the penalised) or 'left' (the next player)", kind=str, choices=("fewest", "left")),
        Option("bonus_piles", "most", "which piles the token winner takes unless a choice says: the 'most' or "
               "'fewest' cards (ties: lower pile number)", kind=str, choices=("most", "fewest")),
    )

    def new_state(self, players: Sequence[str], mode: str | None = None,
                  options: Mapping[str, Any] | None = None, hidden: bool = False) -> MokochakaState:
        if mode not in (None, *self.modes):
            raise IllegalAction(f"MOKOCHAKA has no mode {mode!r} (modes: {', '.join(self.modes)})")
        return MokochakaState(players, self.resolve_options(options), hidden=hidden)


GAME = MokochakaGame()

"""IKATAKO (docs/rules.md, IKATAKO): the deck, the expected reaction to a card, and the game states.

Pure: no clocks, no I/O, randomness only through the ``rng`` handed to ``random_action``.

* :func:`expected_reaction` answers "what must everyone do when this card appears?" in
  versus (troubles stack Mirror → Number → Repeat; ``ikatako`` is always both hands and
  ``ikatako``; a trouble card asks for no reaction at all).
* :func:`coop_reaction` / :func:`coop_sequence` answer the same for the running-total
  declarations of co-op and solo.
* :class:`VersusState` and :class:`CoopState` play a whole game as explicit actions:
  chance actions (:class:`Remove`, :class:`Reveal`), one :class:`ReactionOutcome` per
  versus card (who took it, who was wrong or missed), one :class:`Declare` per co-op card,
  the players' :class:`Choice` of special effects, and :class:`End` when a record stops.

Decisions where the rulebook is silent (docs/rules.md) (also in the README):

* The deck order is not enforced: a revealed card must merely still be in the deck
  (a multiset). In versus the 2 removed cards are usually unseen (``Remove(None)``); the
  deck then ends when 28 cards have been revealed.
* Co-op and solo keep the 3 trouble cards in an ``unused`` zone so that all 30 cards are
  conserved in every mode; a trouble card revealed in co-op is illegal.
* A penalty with no ``choice`` turns the lowest-value point card face down
  (``penalty_card`` option: ``lowest`` or ``highest``); a ``penalty`` choice names a card.
* ``salvage`` without a named card turns the player's highest-value penalty back.
* ``uzushio`` with a ``penalty`` field moves that penalty of the taker to ``to``; without
  it the uzushio card itself becomes ``to``'s penalty.
* An effect can only be chosen by the player who just took the special card and only
  before the next card is revealed.
* Co-op uzushio reverses the direction at once: the next player is the one *before* the
  active player in the old direction.
* Co-op score: the last correctly declared total (a miss resets the running total but not
  the score); a sunk submarine (3 miss piles) scores 0.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from session.errors import IllegalAction, OptionError, RulesError, UnknownCard
from rules.base import Game, Option, Outcome, State
from session.calls import Calls, Word

# ----------------------------------------------------------------------------- the deck

#: card id -> (kind, value, copies); value None for trouble cards.
CARDS: dict[str, tuple[str, int | None, int]] = {
    "2": ("normal", 2, 4),
    "3": ("normal", 3, 4),
    "4": ("normal", 4, 3),  # the correction: 4 and 5 ×3 (the print says "3 and 4")
    "5": ("normal", 5, 3),
    "uzushio6": ("special", 6, 1),
    "uzushio9": ("special", 9, 1),
    "salvage": ("special", 1, 2),
    "tako": ("danger", 8, 4),
    "ika": ("danger", 10, 4),
    "ikatako": ("danger", 18, 1),
    "repeat": ("trouble", None, 1),
    "mirror": ("trouble", None, 1),
    "number": ("trouble", None, 1),
}
DECK: Counter = Counter({cid: copies for cid, (_, _, copies) in CARDS.items()})
DECK_SIZE = sum(DECK.values())  # 30
TROUBLES = ("mirror", "number", "repeat")  # the order they act in
REMOVED = 2  # versus: cards removed unseen before the game
MAX_MISS_PILES = 3
HANDS = ("none", "left", "right", "both")


def check_card(card: str) -> str:
    """The canonical id of ``card``; :class:`UnknownCard` names it and lists the valid ids."""
    cid = card.strip().lower() if isinstance(card, str) else card
    if cid not in CARDS:
        raise UnknownCard(f"unknown IKATAKO card {card!r} (valid: {', '.join(CARDS)})")
    return cid


def kind(card: str) -> str:
    return CARDS[check_card(card)][0]


def value(card: str) -> int:
    """Points of a card (trouble cards have none and are never taken)."""
    v = CARDS[check_card(card)][1]
    if v is None:
        raise RulesError(f"trouble card {card!r} has no value")
    return v


@dataclass(frozen=True)
class Reaction:
    """What a player must do: raise ``hands`` and say ``say`` (an empty ``say`` with
    ``hands == "none"`` means: do nothing at all)."""

    hands: str
    say: tuple[str, ...]

    @property
    def required(self) -> bool:
        return bool(self.say) or self.hands != "none"

    @property
    def sides(self) -> frozenset[str]:
        return frozenset({"none": (), "left": ("left",), "right": ("right",),
                          "both": ("left", "right")}[self.hands])

    def to_dict(self) -> dict[str, Any]:
        return {"hands": self.hands, "say": list(self.say)}


_CREATURE_HAND = {"tako": "left", "ika": "right"}
_SWAP = {"tako": "ika", "ika": "tako"}


def _check_troubles(troubles: Iterable[str]) -> frozenset[str]:
    out = set()
    for name in troubles:
        cid = check_card(name)
        if CARDS[cid][0] != "trouble":
            raise UnknownCard(f"{name!r} is not a trouble card (troubles: {', '.join(TROUBLES)})")
        out.add(cid)
    return frozenset(out)


def expected_reaction(card: str, troubles: Iterable[str] = ()) -> Reaction:
    """The versus reaction to ``card`` with ``troubles`` lying in the field.

    Troubles change ``tako`` and ``ika`` only and stack in a fixed order: Mirror swaps the
    creature (hand, name and number follow), Number says its number instead of its name,
    Repeat says it twice. Repeat + Mirror + Number, ``ika`` → left hand, ``8 8``.
    """
    cid = check_card(card)
    active = _check_troubles(troubles)
    kind_, val, _ = CARDS[cid]
    if kind_ == "trouble":
        return Reaction("none", ())
    if kind_ == "normal":
        return Reaction("none", (str(val),))
    if cid in ("uzushio6", "uzushio9"):
        return Reaction("none", ("uzushio",))
    if cid == "salvage":
        return Reaction("none", ("salvage",))
    if cid == "ikatako":
        return Reaction("both", ("ikatako",))
    creature = _SWAP[cid] if "mirror" in active else cid
    word = str(CARDS[creature][1]) if "number" in active else creature
    say = (word, word) if "repeat" in active else (word,)
    return Reaction(_CREATURE_HAND[creature], say)


def coop_reaction(card: str, total_before: int = 0) -> Reaction:
    """The co-op/solo declaration for ``card`` after a declared total ``total_before``.

    Normal: the new total (``7``); special: name then total (``uzushio 8``); danger: the
    hand(s), name then total (``ika 12``). Trouble cards are not in the co-op deck.
    """
    cid = check_card(card)
    kind_, val, _ = CARDS[cid]
    if kind_ == "trouble":
        raise UnknownCard(f"trouble card {cid!r} is not used in co-op or solo "
                          f"(valid: {', '.join(c for c in CARDS if CARDS[c][0] != 'trouble')})")
    total = str(total_before + val)
    if kind_ == "normal":
        return Reaction("none", (total,))
    if kind_ == "special":
        return Reaction("none", ("uzushio" if cid.startswith("uzushio") else "salvage", total))
    return Reaction(expected_reaction(cid).hands, (cid, total))


def coop_sequence(cards: Sequence[str]) -> list[Reaction]:
    """The declarations for ``cards`` flipped in this order without a miss.

    The co-op deck holds each card only so often (no miss → no salvaged pile comes back),
    so a sequence with a 5th ``ika`` is an error.
    """
    ids = [check_card(c) for c in cards]
    coop_deck = Counter({c: n for c, n in DECK.items() if CARDS[c][0] != "trouble"})
    used = Counter()
    out, total = [], 0
    for cid in ids:
        r = coop_reaction(cid, total)
        used[cid] += 1
        if used[cid] > coop_deck[cid]:
            raise RulesError(f"the co-op deck holds only {coop_deck[cid]} {cid!r} card(s)")
        total += CARDS[cid][1]
        out.append(r)
    return out


# ----------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class Remove:
    """Versus setup (chance): 2 cards removed; ``None`` when nobody saw them."""

    cards: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Reveal:
    """Chance: the next card from the deck appears (``by``: who flipped it, if known)."""

    card: str
    by: str | None = None


@dataclass(frozen=True)
class ReactionOutcome:
    """Versus: how one card was settled. ``first`` takes it (None: nobody — no correct
    player, or an unsettled tie); ``wrong`` and ``missed`` each lose a point card;
    ``penalty_choices`` ((player, card), …) name the card a player turns face down."""

    first: str | None = None
    wrong: tuple[str, ...] = ()
    missed: tuple[str, ...] = ()
    penalty_choices: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Choice:
    """Versus special effect chosen by the player who just took ``uzushio``/``salvage``.

    ``uzushio``: ``to`` receives the taker's ``penalty`` card, or (``penalty`` None) the
    uzushio card itself as a penalty. ``salvage``: the taker's penalty ``card`` (None: the
    highest) becomes points again.
    """

    player: str
    action: str
    to: str | None = None
    penalty: str | None = None
    card: str | None = None


@dataclass(frozen=True)
class SkipEffect:
    """Versus: the taker of a special card uses no effect."""


@dataclass(frozen=True)
class Declare:
    """Co-op/solo: the active player's declaration for the card in play was right or not."""

    ok: bool


@dataclass(frozen=True)
class End:
    """The record ends here: the game stops, its result is the standing now."""


# ----------------------------------------------------------------------------- game

#: the longest reaction window a table may set (s): a reaction game reacts within seconds;
#: a longer window is a typo (``window=300``) that would swallow the next cards' reactions
MAX_WINDOW_S = 60.0
#: the widest tie a table may set (ms): a tie wider than a second is no reaction race
MAX_TIE_MS = 1000.0

OPTIONS = (
    Option("window", 3.0, "seconds after a reveal in which reactions count (ends early at the next card)", float,
           minimum=0.0, exclusive_minimum=True, maximum=MAX_WINDOW_S),
    Option("tie_ms", 33, "correct players within this many ms of the fastest are tied (inclusive)", (int, float),
           minimum=0.0, maximum=MAX_TIE_MS),
    Option("penalty_card", "lowest", "the point card a penalised player turns face down when they do not choose",
           str, ("lowest", "highest")),
    Option("three_count", False, "co-op/solo variant: the declaration must come within 3 s", bool),
    # a perception rule: the camera reads it (vision.hands.HALF_RAISE), the judge only keeps it
    Option("half_raise", True, "a hand raised quickly to head height counts as raised (the rulebook says only "
           "'raise your hand'); false: the wrist must clear the shoulder line", bool),
)
THREE_COUNT_S = 3.0


class IkatakoGame(Game):
    name = "ikatako"
    title = "IKATAKO"
    rank = 0
    modes = ("versus", "coop", "solo")
    zones = ("field",)
    #: asked in the demo deck's order: numbers, creatures, Uzushio 6 then 9, Salvage, troubles
    faces = ("2", "3", "4", "5", "tako", "ika", "ikatako", "uzushio6", "uzushio9", "salvage", "mirror",
             "number", "repeat")
    options = OPTIONS
    min_players = 1
    max_players = 8
    #: versus calls 2..5, 8 and 10 (Number trouble); co-op and solo say the running total, up
    #: to the sum of the 27 co-op cards (154). A smaller grammar is heard better, so versus
    #: (the default) gets only its own numbers.
    calls = Calls(
        words=(Word("ika", "イカ", "ika", ("squid",)), Word("tako", "タコ", "tako", ("octopus",)),
               Word("ikatako", "イカタコ", "ikatako", ("squid octopus",)),
               Word("uzushio", "ウズシオ", "uzushio", ("whirlpool",), ja_text="うずしお"),
               Word("salvage", "サルベージ", "salvage")),
        numbers={None: (2, 3, 4, 5, 8, 10), "coop": tuple(range(1, 155)), "solo": tuple(range(1, 155))},
        totals=("coop", "solo"))
    test_word = "ika"
    default_mode = "versus"

    def new_state(self, players: Sequence[str], mode: str | None = None,
                  options: Mapping[str, Any] | None = None) -> State:
        mode = mode or "versus"
        if mode not in self.modes:
            raise OptionError(f"unknown IKATAKO mode {mode!r} (modes: {', '.join(self.modes)})")
        players = tuple(players)
        if not players or len(set(players)) != len(players):
            raise RulesError(f"IKATAKO needs distinct player names, got {list(players)}")
        opts = self.resolve_options(options)
        if mode == "versus":
            if len(players) < 2:
                raise RulesError("IKATAKO versus needs at least 2 players (solo is its own mode)")
            return VersusState(players, opts)
        if mode == "solo" and len(players) != 1:
            raise RulesError(f"IKATAKO solo is played by one player, got {len(players)}")
        return CoopState(players, opts, mode)


def _total(cards: Iterable[str]) -> int:
    return sum(CARDS[c][1] for c in cards)


class VersusState(State):
    """Versus: points, penalties, discard, troubles in the field, winners."""

    def __init__(self, players: tuple[str, ...], options: dict[str, Any]):
        self.players = players
        self.options = options
        self.deck: Counter = Counter(DECK)
        self.removed: list[str] = []
        self.hidden_removed = 0  # removed unseen: still counted in ``deck``
        self.setup_done = False
        self.troubles: list[str] = []
        self.current: str | None = None  # revealed, not yet settled
        self.points: dict[str, list[str]] = {p: [] for p in players}
        self.penalties: dict[str, list[str]] = {p: [] for p in players}
        self.discard: list[str] = []
        self.pending_effect: tuple[str, str] | None = None  # (player, card) may use an effect
        self.turn = 0
        self.revealed = 0
        self.ended = False

    # -- queries
    @property
    def cards_left(self) -> int:
        return sum(self.deck.values()) - self.hidden_removed

    @property
    def is_over(self) -> bool:
        return self.ended or (self.setup_done and self.cards_left == 0 and self.current is None
                              and self.pending_effect is None)

    def score(self, player: str) -> int:
        return _total(self.points[player]) - _total(self.penalties[player])

    def result(self) -> dict[str, Any]:
        scores = {p: self.score(p) for p in self.players}
        sunk = [p for p in self.players if scores[p] <= 0]
        alive = [p for p in self.players if scores[p] > 0]
        best = max((scores[p] for p in alive), default=None)
        return {
            "scores": scores,
            "points": {p: _total(self.points[p]) for p in self.players},
            "penalties": {p: _total(self.penalties[p]) for p in self.players},
            "sunk": sunk,
            "winners": [p for p in alive if scores[p] == best],
            "finished": self.cards_left == 0 and self.current is None,
            "cards_left": self.cards_left,
        }

    def snapshot(self) -> dict[str, Any]:
        return {
            "deck": dict(sorted(self.deck.items())), "removed": list(self.removed),
            "hidden_removed": self.hidden_removed, "troubles": list(self.troubles),
            "current": self.current, "points": {p: list(v) for p, v in self.points.items()},
            "penalties": {p: list(v) for p, v in self.penalties.items()},
            "discard": list(self.discard), "pending_effect": self.pending_effect,
            "turn": self.turn, "revealed": self.revealed, "ended": self.ended,
        }

    def check_invariants(self) -> None:
        held = Counter(self.deck) + Counter(self.removed) + Counter(self.troubles) + Counter(self.discard)
        if self.current is not None:
            held[self.current] += 1
        for p in self.players:
            held += Counter(self.points[p]) + Counter(self.penalties[p])
        assert held == DECK, f"cards not conserved: {held - DECK} extra, {DECK - held} missing"
        assert self.cards_left >= 0
        assert self.revealed + self.cards_left + len(self.removed) + self.hidden_removed == DECK_SIZE \
            or not self.setup_done
        for p in self.players:
            assert all(CARDS[c][0] != "trouble" for c in self.points[p] + self.penalties[p])

    # -- actions
    def apply(self, action: Any) -> Outcome:
        if self.is_over:
            raise IllegalAction(f"the game is over; cannot apply {action!r}")
        if isinstance(action, End):
            self.ended = True
            return Outcome("end")
        if isinstance(action, Remove):
            return self._remove(action)
        if not self.setup_done:
            self._remove(Remove(None))
        if isinstance(action, Reveal):
            return self._reveal(action)
        if isinstance(action, ReactionOutcome):
            return self._settle(action)
        if isinstance(action, Choice):
            return self._choice(action)
        if isinstance(action, SkipEffect):
            if self.pending_effect is None:
                raise IllegalAction("no special effect is pending")
            self.pending_effect = None
            return Outcome("skip")
        raise IllegalAction(f"not an IKATAKO versus action: {action!r}")

    def _remove(self, action: Remove) -> Outcome:
        if self.setup_done:
            raise IllegalAction("the 2 cards are already removed")
        self.setup_done = True
        if action.cards is None:
            self.hidden_removed = REMOVED
            return Outcome("removed", {"cards": None})
        cards = [check_card(c) for c in action.cards]
        if len(cards) != REMOVED or Counter(cards) - self.deck:
            raise IllegalAction(f"remove exactly {REMOVED} cards of the deck, got {action.cards!r}")
        self.deck -= Counter(cards)
        self.removed = cards
        return Outcome("removed", {"cards": list(cards)})

    def _player(self, name: str | None, what: str) -> str:
        if name not in self.players:
            raise IllegalAction(f"{what} names {name!r}, who is not playing ({', '.join(self.players)})")
        return name

    def _reveal(self, action: Reveal) -> Outcome:
        cid = check_card(action.card)
        if self.current is not None:
            raise IllegalAction(f"card {self.current!r} is not settled yet")
        if self.cards_left <= 0:
            raise IllegalAction(f"the deck is empty; {cid!r} cannot be revealed")
        if self.deck[cid] <= 0:
            raise IllegalAction(f"no {cid!r} is left in the deck (the deck holds {CARDS[cid][2]})")
        if action.by is not None:
            self.turn = self.players.index(self._player(action.by, "the reveal"))
        self.deck[cid] -= 1
        if self.deck[cid] == 0:
            del self.deck[cid]
        flipper = self.players[self.turn]
        self.turn = (self.turn + 1) % len(self.players)
        self.revealed += 1
        self.pending_effect = None
        self.current = cid
        return Outcome("revealed", {"card": cid, "by": flipper, "troubles": list(self.troubles)})

    def penalty_card(self, player: str, chosen: str | None = None) -> str | None:
        """The point card ``player`` turns face down: ``chosen`` if they hold it, else by policy."""
        pts = self.points[player]
        if not pts:
            return None
        if chosen is not None and chosen in pts:
            return chosen
        pick = min if self.options["penalty_card"] == "lowest" else max
        return pick(pts, key=lambda c: (CARDS[c][1], c))

    def _settle(self, action: ReactionOutcome) -> Outcome:
        cid = self.current
        if cid is None:
            raise IllegalAction("no card is waiting to be settled")
        wrong = [self._player(p, "a wrong reaction") for p in action.wrong]
        missed = [self._player(p, "a missed reaction") for p in action.missed]
        if len(set(wrong) | set(missed)) != len(wrong) + len(missed):
            raise IllegalAction("a player is both wrong and missed, or listed twice")
        trouble = CARDS[cid][0] == "trouble"
        if action.first is not None:
            self._player(action.first, "the first player")
            if trouble:
                raise IllegalAction(f"nobody can take the trouble card {cid!r}")
            if action.first in wrong or action.first in missed:
                raise IllegalAction(f"{action.first} cannot be first and wrong")
        if trouble and missed:
            raise IllegalAction("nobody can miss a trouble card: no reaction is required")
        chosen = dict(action.penalty_choices)
        penalties: dict[str, str | None] = {}
        for p in sorted(set(wrong) | set(missed), key=self.players.index):
            card = self.penalty_card(p, chosen.get(p))
            penalties[p] = card
            if card is not None:
                self.points[p].remove(card)
                self.penalties[p].append(card)
        self.current = None
        if trouble:
            self.troubles.append(cid)  # it stays in the field for the rest of the game
            return Outcome("trouble", {"card": cid, "penalties": penalties})
        if action.first is None:
            self.discard.append(cid)
            return Outcome("discarded", {"card": cid, "penalties": penalties})
        self.points[action.first].append(cid)
        if CARDS[cid][0] == "special":
            self.pending_effect = (action.first, cid)
        return Outcome("taken", {"card": cid, "taken_by": action.first, "penalties": penalties})

    def _choice(self, c: Choice) -> Outcome:
        if self.pending_effect is None:
            raise IllegalAction(f"{c.player} has no special card to use now")
        taker, card = self.pending_effect
        if c.player != taker:
            raise IllegalAction(f"only {taker}, who took {card!r}, may use its effect (not {c.player})")
        effect = "salvage" if card == "salvage" else "uzushio"
        if c.action != effect:
            raise IllegalAction(f"{taker} took {card!r}: its effect is {effect!r}, not {c.action!r}")
        if effect == "salvage":
            pens = self.penalties[taker]
            if not pens:
                raise IllegalAction(f"{taker} has no penalty to salvage")
            back = c.card if c.card is not None else max(pens, key=lambda x: (CARDS[x][1], x))
            if back not in pens:
                raise IllegalAction(f"{taker} has no penalty {back!r} to salvage")
            pens.remove(back)
            self.points[taker].append(back)
            self.pending_effect = None
            return Outcome("salvage", {"player": taker, "card": back})
        to = self._player(c.to, "the uzushio")
        if to == taker:
            raise IllegalAction("uzushio pushes a penalty onto another player, not oneself")
        if c.penalty is None:
            self.points[taker].remove(card)
            self.penalties[to].append(card)
            moved = card
        else:
            if c.penalty not in self.penalties[taker]:
                raise IllegalAction(f"{taker} has no penalty {c.penalty!r} to move")
            self.penalties[taker].remove(c.penalty)
            self.penalties[to].append(c.penalty)
            moved = c.penalty
        self.pending_effect = None
        return Outcome("uzushio", {"player": taker, "to": to, "card": moved})

    def legal_effects(self) -> list[Any]:
        if self.pending_effect is None:
            return []
        taker, card = self.pending_effect
        out: list[Any] = [SkipEffect()]
        if card == "salvage":
            out += [Choice(taker, "salvage", card=c) for c in sorted(set(self.penalties[taker]))]
        else:
            for to in self.players:
                if to == taker:
                    continue
                out.append(Choice(taker, "uzushio", to=to))
                out += [Choice(taker, "uzushio", to=to, penalty=c) for c in sorted(set(self.penalties[taker]))]
        return out

    def random_action(self, rng: random.Random) -> Any | None:
        if self.is_over:
            return None
        if not self.setup_done:
            pool = sorted(self.deck.elements())
            return Remove(tuple(rng.sample(pool, REMOVED)))
        if self.current is None:
            effects = self.legal_effects()
            if effects and (self.cards_left == 0 or rng.random() < 0.5):
                return rng.choice(effects)
            return Reveal(rng.choice(sorted(self.deck.elements())))
        roles = {p: rng.choice(("correct", "wrong", "missed", "missed")) for p in self.players}
        if CARDS[self.current][0] == "trouble":
            return ReactionOutcome(None, wrong=tuple(p for p in self.players if roles[p] == "wrong"))
        correct = [p for p in self.players if roles[p] == "correct"]
        first = rng.choice(correct) if correct and rng.random() < 0.9 else None
        return ReactionOutcome(
            first,
            wrong=tuple(p for p in self.players if roles[p] == "wrong"),
            missed=tuple(p for p in self.players if roles[p] == "missed"),
        )


class CoopState(State):
    """Co-op and solo: one running total, miss piles, the turn order and its direction."""

    def __init__(self, players: tuple[str, ...], options: dict[str, Any], mode: str = "coop"):
        self.players = players
        self.options = options
        self.mode = mode
        self.deck: Counter = Counter({c: n for c, n in DECK.items() if CARDS[c][0] != "trouble"})
        self.unused: list[str] = sorted(c for c in DECK if CARDS[c][0] == "trouble")
        self.stack: list[str] = []  # cards declared since the last miss (and the one in play)
        self.miss_piles: list[list[str]] = []  # oldest first
        self.current: str | None = None
        self.active = 0
        self.direction = 1
        self.total = 0  # running total (0 after a start or a miss)
        self.last_declared = 0  # the score: last correctly declared total
        self.ended = False

    @property
    def sunk(self) -> bool:
        return len(self.miss_piles) >= MAX_MISS_PILES

    @property
    def cards_left(self) -> int:
        return sum(self.deck.values())

    @property
    def is_over(self) -> bool:
        return self.ended or self.sunk or (self.cards_left == 0 and self.current is None)

    @property
    def active_player(self) -> str:
        return self.players[self.active]

    def result(self) -> dict[str, Any]:
        cleared = not self.sunk and self.cards_left == 0 and self.current is None
        return {
            "cleared": cleared,
            "score": 0 if self.sunk else self.last_declared,
            "miss_piles": len(self.miss_piles),
            "sunk": self.sunk,
            "total": self.total,
            "cards_left": self.cards_left,
        }

    def snapshot(self) -> dict[str, Any]:
        return {
            "deck": dict(sorted(self.deck.items())), "unused": list(self.unused),
            "stack": list(self.stack), "miss_piles": [list(p) for p in self.miss_piles],
            "current": self.current, "active": self.active, "direction": self.direction,
            "total": self.total, "last_declared": self.last_declared, "ended": self.ended,
        }

    def check_invariants(self) -> None:
        held = Counter(self.deck) + Counter(self.unused) + Counter(self.stack)
        for pile in self.miss_piles:
            held += Counter(pile)
        assert held == DECK, f"cards not conserved: {held - DECK} extra, {DECK - held} missing"
        declared = self.stack[:-1] if self.current is not None else self.stack
        assert self.total == _total(declared), f"running total {self.total} != {declared}"
        assert len(self.miss_piles) <= MAX_MISS_PILES

    def expected(self) -> Reaction:
        """The declaration the active player owes for the card in play."""
        if self.current is None:
            raise IllegalAction("no card is in play")
        return coop_reaction(self.current, self.total)

    def apply(self, action: Any) -> Outcome:
        if self.is_over:
            raise IllegalAction(f"the game is over; cannot apply {action!r}")
        if isinstance(action, End):
            self.ended = True
            return Outcome("end")
        if isinstance(action, Reveal):
            cid = check_card(action.card)
            if self.current is not None:
                raise IllegalAction(f"card {self.current!r} has no declaration yet")
            if CARDS[cid][0] == "trouble":
                raise IllegalAction(f"trouble card {cid!r} is not used in {self.mode}")
            if self.deck[cid] <= 0:
                raise IllegalAction(f"no {cid!r} is left in the deck")
            if action.by is not None:
                if action.by not in self.players:
                    raise IllegalAction(f"the reveal names {action.by!r}, who is not playing")
                self.active = self.players.index(action.by)
            self.deck[cid] -= 1
            if self.deck[cid] == 0:
                del self.deck[cid]
            self.current = cid
            self.stack.append(cid)
            return Outcome("revealed", {"card": cid, "player": self.active_player,
                                        "expected": self.expected().to_dict()})
        if isinstance(action, Declare):
            cid = self.current
            if cid is None:
                raise IllegalAction("no card is waiting for a declaration")
            player = self.active_player
            self.current = None
            if action.ok:
                self.total += CARDS[cid][1]
                self.last_declared = self.total
                details: dict[str, Any] = {"player": player, "ok": True, "total": self.total}
                if cid.startswith("uzushio"):
                    self.direction = -self.direction
                    details["effect"] = "reversed"
                elif cid == "salvage" and self.miss_piles:
                    pile = self.miss_piles.pop(0)
                    self.deck += Counter(pile)
                    details["effect"] = "salvaged"
                    details["salvaged"] = list(pile)
                self._advance()
                return Outcome("declared", details)
            pile, self.stack = self.stack, []
            self.miss_piles.append(pile)
            self.total = 0
            self._advance()
            return Outcome("miss", {"player": player, "ok": False, "pile": list(pile),
                                    "miss_piles": len(self.miss_piles)})
        raise IllegalAction(f"not an IKATAKO {self.mode} action: {action!r}")

    def _advance(self) -> None:
        self.active = (self.active + self.direction) % len(self.players)

    def random_action(self, rng: random.Random) -> Any | None:
        if self.is_over:
            return None
        if self.current is None:
            return Reveal(rng.choice(sorted(self.deck.elements())))
        return Declare(rng.random() < 0.85)


GAME = IkatakoGame()

"""Sea Salt & Paper (docs/rules.md, Sea Salt & Paper, seed 002): card points, colour bonus, rounds, the game.

Cards are written ``kind[:colour]``: ``crab:blue``, ``mermaid``, ``lighthouse:purple``.
Kinds: crab boat fish swimmer shark shell octopus penguin sailor mermaid lighthouse shoal
colony captain, and Extra Salt: starfish jellyfish lobster crabcolony seahorse.
Colours: blue lightblue black yellow green grey purple lightorange pink orange (aliases:
darkblue, lightgreen, lightgrey, gray). A mermaid is white: it has no colour.

Scoring (:func:`score`) is a pure function of the cards a player holds and has played
(both count). Decisions where the rulebook is silent (docs/rules.md) (also in the report):
- A card written without a colour counts for no colour (no mermaid or colour-bonus help).
- Starfish: each starfish joins one duo (at most one starfish per duo) and adds 2 points;
  a starfish with no duo to join scores nothing. (Its "effect void" only matters in play.)
- Lobster pairs with a crab, jellyfish with a swimmer; pairs are counted the way that makes
  the most duos (a swimmer pairs with a shark or a jellyfish).
- Seahorse: one extra card of the collection (shell/octopus/penguin/sailor) where it adds
  most, and only where the player has at least one of that collection; it counts for the
  collector score, not for the multipliers (colony, captain). Beyond the table's last
  step a collection keeps its top value.
- Four mermaids held or played win at once.
- The ≥ 7 check uses card points (hand + played, no colour bonus).
- LAST CHANCE: "the caller's card points ≥ every opponent's" compares card points.
- A tie at game end goes to the tied player who played last in the final round: after
  STOP or an empty deck the round-ender played last, then the players before them in
  reverse seat order; after LAST CHANCE the player just before the caller played last
  and the caller played first.

The game state (:class:`SeaSaltState`) plays whole games for the conformance test. The
rulebook gives no colour per printed card, so random games use an assumed colour spread
(:data:`BASE_DECK`); real hands always carry the colours the table reads off the cards.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from session.errors import IllegalAction, RulesError, UnknownCard
from rules.base import Game, Option, Outcome, Shuffle, State
from session.calls import Calls, Word

BASE_KINDS = ("crab", "boat", "fish", "swimmer", "shark", "shell", "octopus", "penguin", "sailor",
              "mermaid", "lighthouse", "shoal", "colony", "captain")
SALT_KINDS = ("starfish", "jellyfish", "lobster", "crabcolony", "seahorse")
KINDS = BASE_KINDS + SALT_KINDS
KIND_ALIASES = {"shoaloffish": "shoal", "penguincolony": "colony", "crab_colony": "crabcolony",
                "mermaids": "mermaid"}
COLOURS = ("blue", "lightblue", "black", "yellow", "green", "grey", "purple", "lightorange", "pink", "orange")
COLOUR_ALIASES = {"darkblue": "blue", "lightgreen": "green", "lightgrey": "grey", "gray": "grey",
                  "lightgray": "grey", "lightpink": "pink"}

COLLECTORS = {
    "shell": (0, 2, 4, 6, 8, 10),
    "octopus": (0, 3, 6, 9, 12),
    "penguin": (1, 3, 5),
    "sailor": (0, 5),
}
MULTIPLIERS = {"lighthouse": ("boat", 1), "shoal": ("fish", 1), "colony": ("penguin", 2),
               "captain": ("sailor", 3), "crabcolony": ("crab", 1)}
TARGETS = {2: 40, 3: 35, 4: 30}
STOP_MIN = 7

# copies per kind in the printed decks (base 58, Extra Salt 8)
COPIES = {"crab": 9, "boat": 8, "fish": 7, "swimmer": 5, "shark": 5, "shell": 6, "octopus": 5,
          "penguin": 3, "sailor": 2, "mermaid": 4, "lighthouse": 1, "shoal": 1, "colony": 1,
          "captain": 1, "starfish": 3, "jellyfish": 2, "lobster": 1, "crabcolony": 1, "seahorse": 1}


def _assumed_deck(kinds: Iterable[str]) -> tuple[str, ...]:
    """An assumed colour spread (the rulebook lists none): each kind cycles the colours."""
    out = []
    for k, kind in enumerate(kinds):
        for i in range(COPIES[kind]):
            out.append(kind if kind == "mermaid" else f"{kind}:{COLOURS[(k + i) % len(COLOURS)]}")
    return tuple(out)


BASE_DECK = _assumed_deck(BASE_KINDS)
SALT_DECK = _assumed_deck(SALT_KINDS)


@dataclass(frozen=True)
class Card:
    kind: str
    colour: str | None

    def __str__(self) -> str:
        return self.kind if self.colour is None else f"{self.kind}:{self.colour}"


def parse_card(text: str) -> Card:
    """``crab:blue`` -> Card; :class:`UnknownCard` names what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise UnknownCard(f"unknown card {text!r}: write kind[:colour], e.g. crab:blue")
    kind, _, colour = text.strip().lower().partition(":")
    kind = KIND_ALIASES.get(kind.replace(" ", ""), kind.replace(" ", ""))
    if kind not in KINDS:
        raise UnknownCard(f"unknown card {text!r}: no kind {kind!r} (kinds: {', '.join(KINDS)})")
    if not colour:
        return Card(kind, None)
    colour = COLOUR_ALIASES.get(colour, colour)
    if kind == "mermaid":
        if colour == "white":
            return Card(kind, None)
        raise UnknownCard(f"card {text!r}: a mermaid is white and has no other colour")
    if colour not in COLOURS:
        raise UnknownCard(f"card {text!r}: unknown colour {colour!r} (colours: {', '.join(COLOURS)})")
    return Card(kind, colour)


def parse_cards(texts: Iterable[str]) -> list[Card]:
    return [c if isinstance(c, Card) else parse_card(c) for c in texts]


@dataclass(frozen=True)
class CardScore:
    card_points: int
    color_bonus: int
    breakdown: dict[str, int]
    mermaids: int

    @property
    def instant_win(self) -> bool:
        return self.mermaids >= 4

    def to_dict(self) -> dict[str, Any]:
        return {"card_points": self.card_points, "color_bonus": self.color_bonus,
                "breakdown": dict(self.breakdown)}


def _collector(kind: str, n: int) -> int:
    table = COLLECTORS[kind]
    return 0 if n <= 0 else table[min(n, len(table)) - 1]


def colour_counts(cards: Sequence[Card]) -> list[int]:
    """Cards per colour, most first (mermaids and colourless cards count for none)."""
    c = Counter(card.colour for card in cards if card.colour is not None and card.kind != "mermaid")
    return sorted(c.values(), reverse=True)


def score(cards: Iterable[str | Card]) -> CardScore:
    """Card points (with a named breakdown) and the colour bonus of one player's cards."""
    cards = parse_cards(cards)
    n = Counter(c.kind for c in cards)
    parts: dict[str, int] = {}
    # duos
    crab, lobster = n["crab"], n["lobster"]
    best = max(((x + (crab - x) // 2), x) for x in range(min(lobster, crab) + 1))
    crab_lobster = best[1]
    duos = {"duo:crab": (crab - crab_lobster) // 2, "duo:crab+lobster": crab_lobster,
            "duo:boat": n["boat"] // 2, "duo:fish": n["fish"] // 2}
    sw_sh = min(n["swimmer"], n["shark"])
    duos["duo:swimmer+shark"] = sw_sh
    duos["duo:swimmer+jellyfish"] = min(n["swimmer"] - sw_sh, n["jellyfish"])
    for k, v in duos.items():
        if v:
            parts[k] = v
    if n["starfish"]:
        parts["starfish"] = 2 * min(n["starfish"], sum(duos.values()))
    # mermaids
    counts = colour_counts(cards)
    if n["mermaid"]:
        parts["mermaids"] = sum(counts[: n["mermaid"]])
    # collectors (+ seahorse where it adds most)
    have = {k: n[k] for k in COLLECTORS if n[k]}
    seahorse_to = None
    if n["seahorse"] and have:
        gain = {k: _collector(k, have[k] + 1) - _collector(k, have[k]) for k in have}
        seahorse_to = max(have, key=lambda k: (gain[k], -list(COLLECTORS).index(k)))
    for k, count in have.items():
        extra = n["seahorse"] if k == seahorse_to else 0
        key = f"collector:{k}" + ("+seahorse" if extra else "")
        parts[key] = _collector(k, count + min(extra, 1))
    # multipliers
    for k, (of, per) in MULTIPLIERS.items():
        for _ in range(n[k]):
            parts[k] = parts.get(k, 0) + per * n[of]
    return CardScore(sum(parts.values()), counts[0] if counts else 0, parts, n["mermaid"])


@dataclass(frozen=True)
class RoundScore:
    player: str
    card_points: int
    color_bonus: int
    score: int

    def to_dict(self) -> dict[str, Any]:
        return {"card_points": self.card_points, "color_bonus": self.color_bonus, "score": self.score}


@dataclass(frozen=True)
class RoundResult:
    call: str
    caller: str | None
    scores: dict[str, RoundScore]
    caller_won: bool | None  # LAST CHANCE only
    legal: bool  # the caller had ≥ 7 card points
    why: str
    instant_winner: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"call": self.call, "caller": self.caller, "legal": self.legal, "why": self.why,
               "scores": {p: s.to_dict() for p, s in self.scores.items()}}
        if self.caller_won is not None:
            out["caller_won"] = self.caller_won
        if self.instant_winner:
            out["instant_winner"] = self.instant_winner
        return out


CALLS = ("stop", "lastchance")


def resolve_round(hands: Mapping[str, Iterable[str | Card]], caller: str, call: str) -> RoundResult:
    """Everyone's round score after ``caller`` said ``call`` (``stop`` / ``lastchance``).

    ``hands`` holds each player's cards in hand and played. An illegal call (fewer than 7
    card points) is still scored as the table played it, with ``legal`` False.
    """
    call = call.lower().replace(" ", "").replace("_", "")
    if call not in CALLS:
        raise RulesError(f"unknown call {call!r}: stop or lastchance")
    if caller not in hands:
        raise RulesError(f"the caller {caller!r} has no hand (hands given: {', '.join(hands)})")
    cs = {p: score(cards) for p, cards in hands.items()}
    for p, s in cs.items():
        if s.instant_win:
            scores = {q: RoundScore(q, cs[q].card_points, cs[q].color_bonus, 0) for q in cs}
            return RoundResult(call, caller, scores, None, True, f"{p} holds the four mermaids and wins the game", p)
    mine = cs[caller].card_points
    legal = mine >= STOP_MIN
    why = "" if legal else f"{caller} has {mine} card points: {STOP_MIN} are needed to end the round; "
    if call == "stop":
        scores = {p: RoundScore(p, s.card_points, s.color_bonus, s.card_points) for p, s in cs.items()}
        return RoundResult(call, caller, scores, None, legal, why + "STOP: everyone scores their card points")
    won = all(mine >= s.card_points for p, s in cs.items() if p != caller)
    scores = {}
    for p, s in cs.items():
        if p == caller:
            pts = s.card_points + s.color_bonus if won else s.color_bonus
        else:
            pts = s.color_bonus if won else s.card_points
        scores[p] = RoundScore(p, s.card_points, s.color_bonus, pts)
    why += ("LAST CHANCE won: the caller scores card points + colour bonus, the others their colour bonus"
            if won else "LAST CHANCE lost: the caller scores the colour bonus, the others their card points")
    return RoundResult(call, caller, scores, won, legal, why)


def target(players: int, double: bool = False) -> int:
    t = TARGETS.get(players, 30 if players > 4 else 40)
    return 2 * t if double else t


def last_played_order(players: Sequence[str], ender: str, call: str) -> list[str]:
    """The players by who played last in the round, latest first (the tie-break)."""
    i = players.index(ender)
    n = len(players)
    if call == "lastchance":  # the others played after the caller, in seat order
        return [players[(i - k) % n] for k in range(1, n)] + [ender]
    return [players[(i - k) % n] for k in range(n)]


def winners(totals: Mapping[str, int], order_latest_first: Sequence[str]) -> list[str]:
    best = max(totals.values())
    tied = [p for p in totals if totals[p] == best]
    if len(tied) == 1:
        return tied
    return [next(p for p in order_latest_first if p in tied)]


# --------------------------------------------------------------------------- the game
@dataclass(frozen=True)
class DrawTwo:
    pass


@dataclass(frozen=True)
class Keep:
    """Of the two drawn cards keep ``index`` and discard the other onto ``pile``."""
    index: int
    pile: int


@dataclass(frozen=True)
class TakeDiscard:
    pile: int


@dataclass(frozen=True)
class DrawOne:
    """The only move under a jellyfish: draw one card from the deck."""


@dataclass(frozen=True)
class PlayDuo:
    """Play two hand cards (indices) as a duo, with a starfish (index) to make a trio."""
    first: int
    second: int
    starfish: int | None = None


@dataclass(frozen=True)
class Pick:
    """A duo effect's choice: crab (pile, index), lobster (index of the top 5), shark (player, index)."""
    source: str
    index: int


@dataclass(frozen=True)
class EndTurn:
    pass


@dataclass(frozen=True)
class Call:
    call: str


DUO_PAIRS = {frozenset(["crab"]): "crab", frozenset(["boat"]): "boat", frozenset(["fish"]): "fish",
             frozenset(["swimmer", "shark"]): "shark", frozenset(["swimmer", "jellyfish"]): "jellyfish",
             frozenset(["crab", "lobster"]): "lobster"}


class SeaSaltState(State):
    def __init__(self, players: Sequence[str], options: Mapping[str, Any]):
        self.players = tuple(players)
        self.options = dict(options)
        self.all_cards = BASE_DECK + (SALT_DECK if self.options["extra_salt"] else ())
        self.target = target(len(self.players), self.options["double"])
        self.totals = {p: 0 for p in self.players}
        self.rounds: list[dict[str, Any]] = []
        self.starter = 0
        self.winners: list[str] = []
        self._new_round_state()
        self.phase = "shuffle"

    def _new_round_state(self) -> None:
        self.deck: list[str] = list(self.all_cards)
        self.piles: list[list[str]] = [[], []]
        self.hands = {p: [] for p in self.players}
        self.played = {p: [] for p in self.players}
        self.current = self.starter
        self.drawn: list[str] = []
        self.pending: tuple[str, Any] | None = None  # a duo effect waiting for its pick
        self.extra_turn = False
        self.caller: str | None = None
        self.last_turns: list[str] = []  # players still to take a LAST CHANCE turn
        self.jellied: set[str] = set()
        self.turn_no = 0
        self.last_turn = {p: -1 for p in self.players}

    @property
    def player(self) -> str:
        return self.players[self.current]

    def cards_of(self, p: str) -> list[str]:
        return self.hands[p] + self.played[p]

    def card_points(self, p: str) -> int:
        return score(self.cards_of(p)).card_points

    # ------------------------------------------------------------ legal actions
    def _protected(self) -> set[str]:
        if self.caller is None:
            return set()
        done = [p for p in self.players if p not in self.last_turns and p != self.player]
        return set(done) | {self.caller}

    def legal_actions(self) -> list[Any]:
        p = self.player
        if self.phase == "turn":
            if p in self.jellied:
                return [DrawOne()] if self.deck else []
            acts: list[Any] = [DrawTwo()] if self.deck else []
            acts += [TakeDiscard(i) for i in (0, 1) if self.piles[i]]
            return acts
        if self.phase == "keep":
            empty = [i for i in (0, 1) if not self.piles[i]]
            targets = empty or [0, 1]
            return [Keep(i, pile) for i in range(len(self.drawn)) for pile in targets] if len(self.drawn) == 2 \
                else [Keep(0, 0)]
        if self.phase == "pick":
            source, data = self.pending
            return [Pick(source, i) for i in range(len(data))]
        if self.phase == "play":
            acts = [EndTurn()]
            hand = self.hands[p]
            kinds = [parse_card(c).kind for c in hand]
            for i in range(len(hand)):
                for j in range(i + 1, len(hand)):
                    if frozenset([kinds[i], kinds[j]]) in DUO_PAIRS:
                        acts.append(PlayDuo(i, j))
                        star = next((k for k, kind in enumerate(kinds) if kind == "starfish"), None)
                        if star is not None:
                            acts.append(PlayDuo(i, j, star))
            if self.caller is None and self.card_points(p) >= STOP_MIN:
                acts += [Call("stop"), Call("lastchance")]
            return acts
        return []

    def random_action(self, rng: random.Random):
        if self.phase == "over":
            return None
        if self.phase == "shuffle":
            return Shuffle.draw(len(self.all_cards), rng)
        acts = self.legal_actions()
        if not acts:
            return EndTurn()
        return rng.choice(acts)

    # ------------------------------------------------------------ applying
    def apply(self, action: Any) -> Outcome:
        if self.phase == "over":
            raise IllegalAction("the game is over")
        if isinstance(action, Shuffle):
            if self.phase != "shuffle" or sorted(action.order) != list(range(len(self.all_cards))):
                raise IllegalAction("a shuffle is not legal now")
            self.deck = [self.all_cards[i] for i in action.order]
            self.piles = [[self.deck.pop(0)], [self.deck.pop(0)]]
            self.phase = "turn"
            return Outcome("deal", {"start": self.player})
        legal = self.legal_actions()
        if action not in legal and not (isinstance(action, EndTurn) and not legal):
            raise IllegalAction(f"{action!r} is not legal now (phase {self.phase}, {self.player} to play)")
        p = self.player
        if isinstance(action, DrawTwo):
            self.drawn = [self.deck.pop(0) for _ in range(min(2, len(self.deck)))]
            self.phase = "keep"
            return Outcome("draw", {"player": p, "cards": list(self.drawn)})
        if isinstance(action, DrawOne):
            self.hands[p].append(self.deck.pop(0))
            self.jellied.discard(p)
            return self._end_turn(p)
        if isinstance(action, Keep):
            self.hands[p].append(self.drawn.pop(action.index))
            if self.drawn:
                self.piles[action.pile].append(self.drawn.pop())
            self.phase = "play"
            return self._check_mermaids(p) or Outcome("keep", {"player": p})
        if isinstance(action, TakeDiscard):
            self.hands[p].append(self.piles[action.pile].pop())
            self.phase = "play"
            return self._check_mermaids(p) or Outcome("take", {"player": p, "pile": action.pile})
        if isinstance(action, PlayDuo):
            return self._duo(p, action)
        if isinstance(action, Pick):
            return self._pick(p, action)
        if isinstance(action, Call):
            self.caller = p
            if action.call == "stop":
                return self._end_round(p, "stop")
            self.last_turns = [self.players[(self.current + k) % len(self.players)]
                               for k in range(1, len(self.players))]
            return self._end_turn(p, called=True)
        if isinstance(action, EndTurn):
            return self._end_turn(p)
        raise IllegalAction(f"unknown action {action!r}")

    def _check_mermaids(self, p: str) -> Outcome | None:
        if sum(1 for c in self.cards_of(p) if c == "mermaid") >= 4:
            self.winners = [p]
            self.phase = "over"
            return Outcome("mermaids", {"player": p})
        return None

    def _duo(self, p: str, action: PlayDuo) -> Outcome:
        hand = self.hands[p]
        idx = sorted({action.first, action.second} | ({action.starfish} if action.starfish is not None else set()),
                     reverse=True)
        kinds = frozenset(parse_card(hand[i]).kind for i in (action.first, action.second))
        effect = DUO_PAIRS[kinds]
        cards = [hand.pop(i) for i in idx]
        self.played[p].extend(reversed(cards))
        if action.starfish is not None:
            return Outcome("trio", {"player": p, "cards": cards})
        if effect == "boat":
            self.extra_turn = True
        elif effect == "fish" and self.deck:
            self.hands[p].append(self.deck.pop(0))
        elif effect == "crab":
            choices = [(i, j) for i in (0, 1) for j in range(len(self.piles[i]))]
            if choices:
                self.pending, self.phase = ("crab", choices), "pick"
        elif effect == "lobster" and self.deck:
            self.pending, self.phase = ("lobster", list(range(min(5, len(self.deck))))), "pick"
        elif effect == "shark":
            protected = self._protected()
            choices = [(q, j) for q in self.players if q != p and q not in protected for j in range(len(self.hands[q]))]
            if choices:
                self.pending, self.phase = ("shark", choices), "pick"
        elif effect == "jellyfish":
            self.jellied = {q for q in self.players if q != p}
        return self._check_mermaids(p) or Outcome("duo", {"player": p, "effect": effect, "cards": cards})

    def _pick(self, p: str, action: Pick) -> Outcome:
        source, data = self.pending
        choice = data[action.index]
        if source == "crab":
            pile, j = choice
            card = self.piles[pile].pop(j)
        elif source == "lobster":
            card = self.deck.pop(choice)
        else:
            q, j = choice
            card = self.hands[q].pop(j)
        self.hands[p].append(card)
        self.pending, self.phase = None, "play"
        return self._check_mermaids(p) or Outcome("pick", {"player": p, "source": source, "card": card})

    def _end_turn(self, p: str, called: bool = False) -> Outcome:
        """End ``p``'s turn: empty deck ends the round; LAST CHANCE turns; boat extra turn."""
        self.turn_no += 1
        self.last_turn[p] = self.turn_no
        if not self.deck:
            return self._end_round(p, "emptydeck")
        if self.caller is not None:
            if not called and p in self.last_turns:
                self.last_turns.remove(p)
            if not self.last_turns:
                return self._end_round(self.caller, "lastchance")
            self.current = self.players.index(self.last_turns[0])
            self.extra_turn = False  # no extra turns once LAST CHANCE is called
        elif self.extra_turn:
            self.extra_turn = False  # the boat duo: the same player plays again
        else:
            self.current = (self.current + 1) % len(self.players)
        self.phase = "turn"
        return Outcome("turn", {"player": p, "next": self.player})

    def _end_round(self, ender: str, call: str) -> Outcome:
        """End the round; the outcome also gives ``cards``: each player's cards (hand and
        played) at the end, what the table declares and a judge scores."""
        cards = {q: list(self.cards_of(q)) for q in self.players}
        if call == "emptydeck":
            scored = {q: 0 for q in self.players}
            detail: dict[str, Any] = {"call": "emptydeck", "ender": ender, "scores": scored}
        else:
            res = resolve_round({q: self.cards_of(q) for q in self.players}, ender, call)
            scored = {q: s.score for q, s in res.scores.items()}
            detail = res.to_dict()
        for q, pts in scored.items():
            self.totals[q] += pts
        self.rounds.append(detail)
        order = last_played_order(list(self.players), ender, call if call != "emptydeck" else "stop")
        if max(self.totals.values()) >= self.target:
            self.winners = winners(self.totals, order)
            self.phase = "over"
            return Outcome("game", {"round": detail, "winners": self.winners, "cards": cards})
        self.starter = (self.players.index(ender) + 1) % len(self.players)
        self._new_round_state()
        self.phase = "shuffle"
        return Outcome("round", {**detail, "cards": cards})

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def result(self) -> dict[str, Any]:
        return {"scores": dict(self.totals), "target": self.target, "rounds": len(self.rounds),
                "winners": list(self.winners)}

    def snapshot(self) -> dict[str, Any]:
        return {"phase": self.phase, "current": self.current, "deck": list(self.deck),
                "piles": [list(x) for x in self.piles], "hands": {p: list(h) for p, h in self.hands.items()},
                "played": {p: list(h) for p, h in self.played.items()}, "drawn": list(self.drawn),
                "totals": dict(self.totals), "caller": self.caller, "last_turns": list(self.last_turns),
                "rounds": list(self.rounds), "winners": list(self.winners),
                "pending": None if self.pending is None else [self.pending[0], [list(x) if isinstance(x, tuple) else x for x in self.pending[1]]]}

    def check_invariants(self) -> None:
        if self.phase == "shuffle":
            return
        held = list(self.deck) + self.piles[0] + self.piles[1] + list(self.drawn)
        for p in self.players:
            held += self.hands[p] + self.played[p]
        assert Counter(held) == Counter(self.all_cards), "cards are not conserved"
        assert all(v >= 0 for v in self.totals.values())


class SeaSaltPaper(Game):
    name = "seasaltpaper"
    title = "Sea Salt & Paper"
    rank = 3
    modes = ("default",)
    #: ``p:SEAT:spread``: the cards face up in front of a seat, read at the round's end
    #: (referee.judging.seasaltpaper); ``scoring``: a shared scoring area (typed records)
    zones = ("scoring", "p:")
    uses_hands = False  # the verdicts read the cards and the calls: no pose
    min_players = 2
    max_players = 4
    calls = Calls(words=(Word("stop", "ストップ", "stop"), Word("lastchance", "ラストチャンス", "last chance")))
    options = (
        Option("double", False, "Double points: play to 80/70/60 instead of 40/35/30", bool),
        Option("extra_salt", False, "add the Extra Salt cards (starfish, jellyfish, lobster, crab colony, seahorse)", bool),
    )

    def calibration_zones(self, seats):
        """Each seat's spread: the cards face up in front of that player."""
        return [f"p:{s}:spread" for s in seats]

    def has_zone(self, zone: str) -> bool:
        return zone == "scoring" or (zone.startswith("p:") and zone.endswith(":spread"))

    def zones_text(self) -> str:
        return "scoring, p:SEAT:spread"

    def new_state(self, players, mode=None, options=None):
        if mode not in (None, "default"):
            raise RulesError(f"unknown seasaltpaper mode {mode!r} (known: default)")
        if not self.min_players <= len(players) <= self.max_players:
            raise RulesError(f"Sea Salt & Paper needs 2-4 players, got {len(players)}")
        return SeaSaltState(players, self.resolve_options(options))


GAME = SeaSaltPaper()

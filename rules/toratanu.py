"""TORATANU (docs/rules.md, TORATANU, seed 003): the tally, the best arrangement, and whole games.

Card data comes from a catalogue (``rules/data/toratanu.toml``, read with tomllib) that
holds what the rulebook states and leaves out what it does not; loading an incomplete
catalogue is fine, scoring a card whose data is missing is a :class:`RulesError` naming
the card and the catalogue field. Cards are written ``animal[:colour][:points][:white]``
(``owl:blue``, ``kangaroo:red:3``, ``rabbit:yellow:2:white``): a table reads colour and
points off the printed card where the catalogue lacks them.

Scoring (:func:`best_arrangement`): a hand makes up to ``len(cards) // 3`` sets (3 with 9
cards) of 3: a herd set (3 of one animal: its herd points) or a colour set (3 of one
colour, not all one animal: the sum of colour points). Bonuses: the special card's animal
+50 on that herd set (captured ones too), its colour +5 per colour set, Doubutsuen (4 of
one animal declared in the round) +50, full colour (every card one colour, no capture)
+50, Komondor +25 per White card, Orangutan +30 per 20-point herd set; a captured herd
set scores half its herd points. The search is exact: the score is a sum over sets plus
terms that do not depend on the arrangement, so a memoised search over the remaining
cards finds the maximum.

Decisions where the rulebook is silent (docs/rules.md) (also in the report):
- Up to ``len(cards) // 3`` sets: 3 from 9 or 10 cards (after a Doubutsuen draw), 4 from
  the 12-card hands of the 2-player game.
- Captured and Doubutsuen sets count among those sets; captured 20-point herds count for
  the Orangutan ("special" effects work on captured sets), and White cards in captured
  sets count for the Komondor (the rulebook says so).
- Chameleon and ragdoll count as black for full colour; tanuki has no colour and so a
  hand holding it is never full colour; a card given without colour never is either.
- A card of a White animal is White when it is marked ``:white`` or its colour is the
  catalogue's White colour; when the catalogue lacks that colour, an unmarked card counts
  as not White and the explanation says so, naming ``animals.<animal>.white`` (the table
  sees the White mark on the card and writes it).
- Herd and escape effects the catalogue lacks are not applied.
- Games: the first player moves one seat on each of the 5 games; a capture goes to the
  first eligible player after the escaper (in seat order) who takes it; Doubutsuen is
  declared on one's own turn after drawing; in random games the cards whose colour points
  the catalogue lacks carry no colour (they form herd sets only), and animals whose
  copies it lacks are assumed to have 4 cards.
"""

from __future__ import annotations

import random
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from session.errors import IllegalAction, RulesError, UnknownCard
from rules.base import Game, Option, Outcome, Shuffle, State

CATALOGUE_PATH = Path(__file__).resolve().parent / "data" / "toratanu.toml"
BLACK_FOR_FULL_COLOUR = ("chameleon", "ragdoll")
SPECIAL_HERD = 50
SPECIAL_COLOUR = 5
DOUBUTSUEN = 50
FULL_COLOUR = 50
KOMONDOR = 25
ORANGUTAN = 30
GAMES = 5
SETUP = {2: (12, 15), 3: (9, 12), 4: (9, 10)}  # players -> (hand size, turns each)


@dataclass(frozen=True)
class Animal:
    name: str
    herd: int | None
    copies: int | None
    colours: Mapping[str, int | None] | None  # None: not stated; value None: points not stated
    white: str | None  # colour of its White card, "?" if it has one of unknown colour
    special: str | None


@dataclass(frozen=True)
class Catalogue:
    animals: Mapping[str, Animal]
    colours: tuple[str, ...]
    removed_for_two: tuple[str, ...]

    def animal(self, name: str) -> Animal:
        a = self.animals.get(name)
        if a is None:
            raise UnknownCard(f"unknown animal {name!r} (the catalogue has: {', '.join(sorted(self.animals))})")
        return a

    def missing(self) -> list[str]:
        """Every field the catalogue still lacks, as ``animals.<name>.<field>``."""
        out = []
        for a in self.animals.values():
            if a.copies is None:
                out.append(f"animals.{a.name}.copies")
            if a.colours is None:
                out.append(f"animals.{a.name}.colours")
            else:
                out += [f"animals.{a.name}.colours.{c}" for c, v in a.colours.items() if v is None]
            if a.white == "?":
                out.append(f"animals.{a.name}.white")
        return out


def _merged(base: dict, over: Mapping) -> dict:
    """``base`` with ``over``'s values laid over it, table by table."""
    out = dict(base)
    for k, v in over.items():
        out[k] = _merged(out[k], v) if isinstance(v, Mapping) and isinstance(out.get(k), dict) else v
    return out


def load_catalogue(path: str | Path | None = None, answers: Mapping | None = None) -> Catalogue:
    """Read a catalogue; a malformed one is a :class:`RulesError` naming the field.
    ``answers`` (the same shape: ``{"animals": {"kangaroo": {"colours": {"red": 3}}}}``) is
    laid over the file: the fields a table filled in for the rulebook's silences."""
    path = Path(path) if path else CATALOGUE_PATH
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise RulesError(f"TORATANU catalogue {path} not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"TORATANU catalogue {path} is not valid TOML: {exc}") from None
    if answers:
        data = _merged(data, answers)
    pack = data.get("pack", {})
    colours = tuple(pack.get("colours", ()))
    if not colours:
        raise RulesError(f"TORATANU catalogue {path}: field pack.colours is missing")
    animals = {}
    for name, a in data.get("animals", {}).items():
        def num(key, value):
            if value is None or value == "?":
                return None
            if isinstance(value, bool) or not isinstance(value, int):
                raise RulesError(f"TORATANU catalogue: field animals.{name}.{key} must be a number or \"?\", got {value!r}")
            return value
        cols = a.get("colours")
        if cols is not None:
            for c in cols:
                if c not in colours:
                    raise RulesError(f"TORATANU catalogue: animals.{name}.colours names {c!r}, not in pack.colours")
            cols = {c: num(f"colours.{c}", v) for c, v in cols.items()}
        animals[name] = Animal(name, num("herd", a.get("herd")), num("copies", a.get("copies")), cols,
                               a.get("white"), a.get("special"))
    return Catalogue(animals, colours, tuple(pack.get("removed_for_two", ())))


@lru_cache(maxsize=1)
def default_catalogue() -> Catalogue:
    return load_catalogue()


@dataclass(frozen=True)
class Card:
    animal: str
    colour: str | None = None
    points: int | None = None
    white: bool | None = None  # None: the catalogue cannot tell

    def __str__(self) -> str:
        parts = [self.animal] + ([self.colour] if self.colour else []) + (
            [str(self.points)] if self.points is not None else []) + (["white"] if self.white else [])
        return ":".join(parts)


def parse_card(text: str | Card, catalogue: Catalogue | None = None) -> Card:
    """``kangaroo:red:3`` -> Card, completed from the catalogue; errors name the problem."""
    if isinstance(text, Card):
        return text
    cat = catalogue or default_catalogue()
    if not isinstance(text, str) or not text.strip():
        raise UnknownCard(f"unknown card {text!r}: write animal[:colour][:points][:white], e.g. owl:blue")
    name, *rest = [s.strip() for s in text.strip().lower().split(":")]
    a = cat.animal(name)
    colour = points = None
    marked_white = False
    for seg in rest:
        if seg in cat.colours and colour is None:
            colour = seg
        elif seg.isdigit() and points is None:
            points = int(seg)
        elif seg == "white" and not marked_white:
            marked_white = True
        else:
            raise UnknownCard(f"card {text!r}: cannot read {seg!r} (colours: {', '.join(cat.colours)}; "
                              "then colour points, then 'white')")
    if a.colours is not None and not a.colours and colour:
        raise UnknownCard(f"card {text!r}: {name} belongs to no colour")
    if points is not None and colour is None:
        raise UnknownCard(f"card {text!r}: colour points without a colour")
    if colour and a.colours is not None and colour in a.colours and a.colours[colour] is not None:
        if points is not None and points != a.colours[colour]:
            raise RulesError(f"card {text!r}: the catalogue gives {name} {colour} {a.colours[colour]} colour points")
        points = a.colours[colour]
    if marked_white and a.white is None:
        raise UnknownCard(f"card {text!r}: {name} has no White card")
    if marked_white:
        white: bool | None = True
    elif a.white is None:
        white = False
    elif a.white != "?" and colour is not None:
        white = colour == a.white
    else:
        white = None
    return Card(name, colour, points, white)


@dataclass(frozen=True)
class ScoredSet:
    kind: str  # herd | colour | captured | doubutsuen
    cards: tuple[Card, ...]
    points: int  # base points of the set (herd points, halved when captured; colour sum)
    bonus: Mapping[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.points + sum(self.bonus.values())

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "cards": [str(c) for c in self.cards], "points": self.points,
                "bonus": dict(self.bonus), "total": self.total}


@dataclass(frozen=True)
class Arrangement:
    sets: tuple[ScoredSet, ...]
    loose: tuple[Card, ...]
    bonuses: Mapping[str, int]
    total: int
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total, "sets": [s.to_dict() for s in self.sets],
                "loose": [str(c) for c in self.loose], "bonuses": dict(self.bonuses),
                "notes": list(self.notes)}

    def explain(self) -> list[str]:
        out = []
        for s in self.sets:
            extra = "".join(f" +{v} {k}" for k, v in s.bonus.items())
            out.append(f"{s.kind} set {', '.join(map(str, s.cards))}: {s.points}{extra} = {s.total}")
        if self.loose:
            out.append("not in a set: " + ", ".join(map(str, self.loose)))
        for k, v in self.bonuses.items():
            out.append(f"{k}: +{v}")
        out += self.notes
        out.append(f"total: {self.total}")
        return out


def _herd_set(kind: str, cards: Sequence[Card], special: Card | None, cat: Catalogue) -> ScoredSet:
    animal = cards[0].animal
    a = cat.animal(animal)
    if a.herd is None or any(c.animal != animal for c in cards):
        raise RulesError(f"{', '.join(map(str, cards))} is not a herd set (3 of one herd animal)")
    pts = a.herd // 2 if kind == "captured" else a.herd
    bonus = {}
    if special is not None and special.animal == animal:
        bonus["special animal"] = SPECIAL_HERD
    if kind == "doubutsuen":
        bonus["doubutsuen"] = DOUBUTSUEN
    return ScoredSet(kind, tuple(cards), pts, bonus)


def _colour_set(cards: Sequence[Card], special: Card | None) -> ScoredSet:
    for c in cards:
        if c.points is None:
            raise RulesError(f"cannot score card {c}: its colour points are missing (catalogue field "
                             f"animals.{c.animal}.colours.{c.colour}); write it as {c.animal}:{c.colour}:N "
                             "or complete rules/data/toratanu.toml")
    bonus = {"special colour": SPECIAL_COLOUR} if special is not None and special.colour == cards[0].colour else {}
    return ScoredSet("colour", tuple(cards), sum(c.points for c in cards), bonus)


def best_arrangement(hand: Iterable[str | Card], special: str | Card | None = None,
                     captured: Iterable[Iterable[str | Card]] = (), doubutsuen: Iterable[Iterable[str | Card]] = (),
                     max_sets: int | None = None, catalogue: Catalogue | None = None) -> Arrangement:
    """The best-scoring arrangement of ``hand`` (plus open captured / Doubutsuen sets)."""
    cat = catalogue or default_catalogue()
    free = [parse_card(c, cat) for c in hand]
    sp = parse_card(special, cat) if special is not None else None
    fixed = [_herd_set("captured", [parse_card(c, cat) for c in s], sp, cat) for s in captured]
    for s in doubutsuen:
        cards = [parse_card(c, cat) for c in s]
        if len(cards) != 4:
            raise RulesError(f"a Doubutsuen is 4 cards of one animal, got {len(cards)}")
        fixed.append(_herd_set("doubutsuen", cards, sp, cat))
    for s in fixed:
        if s.kind == "captured" and len(s.cards) != 3:
            raise RulesError(f"a captured set is 3 cards of one animal, got {len(s.cards)}")
    everything = free + [c for s in fixed for c in s.cards]
    limit = max(1, len(everything) // 3) if max_sets is None else max_sets
    left = limit - len(fixed)
    if left < 0:
        raise RulesError(f"{len(fixed)} open sets but at most {limit} sets")
    # arrangement-independent terms
    bonuses: dict[str, int] = {}
    notes: list[str] = []
    animals = Counter(c.animal for c in everything)
    if animals["komondor"]:
        unknown = sorted({c.animal for c in everything if c.white is None})
        if unknown:
            notes.append(f"Komondor: unmarked {', '.join(unknown)} cards counted as not White (the catalogue "
                         f"lacks {', '.join(f'animals.{a}.white' for a in unknown)}; mark a White card as ANIMAL:...:white)")
        whites = sum(1 for c in everything if c.white)
        bonuses["komondor"] = KOMONDOR * whites * animals["komondor"]
    orangutan = animals["orangutan"] > 0
    if not any(s.kind == "captured" for s in fixed):
        cols = {("black" if c.animal in BLACK_FOR_FULL_COLOUR else c.colour) for c in everything}
        if len(cols) == 1 and None not in cols:
            bonuses["full colour"] = FULL_COLOUR
        elif None in cols and len(cols - {None}) <= 1 and any(c.colour is None and c.animal != "tanuki" for c in everything):
            notes.append("cards without a colour were not counted for full colour")
    # candidate sets among the free cards
    n = len(free)
    by_low: list[list[tuple[int, ScoredSet]]] = [[] for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                trio = (free[i], free[j], free[k])
                if trio[0].animal == trio[1].animal == trio[2].animal:
                    if cat.animal(trio[0].animal).herd is not None:
                        s = _herd_set("herd", trio, sp, cat)
                    else:
                        continue
                elif trio[0].colour is not None and trio[0].colour == trio[1].colour == trio[2].colour:
                    s = _colour_set(trio, sp)
                else:
                    continue
                by_low[i].append(((1 << i) | (1 << j) | (1 << k), s))

    def value(s: ScoredSet) -> int:
        extra = ORANGUTAN if orangutan and s.kind != "colour" and cat.animal(s.cards[0].animal).herd == 20 else 0
        return s.total + extra

    memo: dict[tuple[int, int], tuple[int, tuple[ScoredSet, ...]]] = {}

    def search(mask: int, k: int) -> tuple[int, tuple[ScoredSet, ...]]:
        if k == 0 or mask == 0:
            return 0, ()
        key = (mask, k)
        if key in memo:
            return memo[key]
        i = (mask & -mask).bit_length() - 1
        best = search(mask & ~(1 << i), k)
        for bits, s in by_low[i]:
            if bits & mask == bits:
                v, rest = search(mask & ~bits, k - 1)
                v += value(s)
                if v > best[0]:
                    best = (v, (s,) + rest)
        memo[key] = best
        return best

    _, chosen = search((1 << n) - 1, left)
    used = {id(c) for s in chosen for c in s.cards}
    loose = tuple(c for c in free if id(c) not in used)
    sets = tuple(fixed) + chosen
    herd20 = sum(1 for s in sets if s.kind != "colour" and cat.animal(s.cards[0].animal).herd == 20)
    if orangutan and herd20:
        bonuses["orangutan"] = ORANGUTAN * herd20
    total = sum(s.total for s in sets) + sum(bonuses.values())
    return Arrangement(sets, loose, bonuses, total, tuple(notes))


def score_arrangement(sets: Sequence[Sequence[str | Card]], loose: Iterable[str | Card] = (),
                      special: str | Card | None = None, captured: Iterable[Iterable[str | Card]] = (),
                      doubutsuen: Iterable[Iterable[str | Card]] = (),
                      catalogue: Catalogue | None = None) -> int:
    """The score of one given arrangement (for checking a declared one and for tests)."""
    cat = catalogue or default_catalogue()
    chosen = [[parse_card(c, cat) for c in s] for s in sets]
    flat = [c for s in chosen for c in s] + [parse_card(c, cat) for c in loose]
    fixed_cap = [[parse_card(c, cat) for c in s] for s in captured]
    fixed_zoo = [[parse_card(c, cat) for c in s] for s in doubutsuen]
    base = best_arrangement(flat, special, fixed_cap, fixed_zoo, max_sets=len(chosen) + len(fixed_cap) + len(fixed_zoo),
                            catalogue=cat)
    # score exactly the given sets: rebuild with the same bonus rules
    sp = parse_card(special, cat) if special is not None else None
    total = sum(base.bonuses.get(k, 0) for k in ("komondor", "full colour"))
    all_sets = [_herd_set("captured", s, sp, cat) for s in fixed_cap] + [_herd_set("doubutsuen", s, sp, cat) for s in fixed_zoo]
    for s in chosen:
        if len(s) != 3:
            raise RulesError(f"a set is 3 cards, got {len(s)}")
        if s[0].animal == s[1].animal == s[2].animal:
            all_sets.append(_herd_set("herd", s, sp, cat))
        elif s[0].colour is not None and s[0].colour == s[1].colour == s[2].colour:
            all_sets.append(_colour_set(s, sp))
        else:
            raise RulesError(f"{', '.join(map(str, s))} is neither a herd set nor a colour set")
    orangutan = any(c.animal == "orangutan" for c in flat + [c for s in fixed_cap + fixed_zoo for c in s])
    herd20 = sum(1 for s in all_sets if s.kind != "colour" and cat.animal(s.cards[0].animal).herd == 20)
    return total + sum(s.total for s in all_sets) + (ORANGUTAN * herd20 if orangutan else 0)


# ------------------------------------------------------------------------- the game
@dataclass(frozen=True)
class Draw:
    pass


@dataclass(frozen=True)
class Escape:
    index: int  # hand index


@dataclass(frozen=True)
class Declare:
    """Doubutsuen: lay down 4 cards of ``animal`` and draw one."""
    animal: str


@dataclass(frozen=True)
class Capture:
    player: str
    put: int  # index (in the hand after taking the pair out) of the card put in the escape row


@dataclass(frozen=True)
class Pass:
    pass


def game_deck(catalogue: Catalogue, players: int) -> dict[str, Card]:
    """Card id -> Card for a random game (see the module's decisions)."""
    deck: dict[str, Card] = {}
    for name, a in catalogue.animals.items():
        if players == 2 and name in catalogue.removed_for_two:
            continue
        copies = a.copies if a.copies is not None else (4 if a.herd is not None else 1)
        known = [(c, p) for c, p in (a.colours or {}).items() if p is not None]
        for i in range(copies):
            colour, pts = known[i] if i < len(known) else (None, None)
            white = a.white is not None and (colour == a.white if a.white != "?" else i == 0)
            deck[f"{name}#{i + 1}"] = Card(name, colour, pts, white)
    return deck


class ToratanuState(State):
    def __init__(self, players: Sequence[str], options: Mapping[str, Any], catalogue: Catalogue):
        self.players = tuple(players)
        self.options = dict(options)
        self.cat = catalogue
        self.cards = game_deck(catalogue, len(self.players))
        self.ids = tuple(self.cards)
        self.hand_size, self.turns_each = SETUP[len(self.players)]
        self.game_no = 0
        self.totals = {p: 0 for p in self.players}
        self.history: list[dict[str, int]] = []
        self.phase = "shuffle"
        self._reset()

    def _reset(self) -> None:
        self.deck: list[str] = list(self.ids)
        self.hands: dict[str, list[str]] = {p: [] for p in self.players}
        self.captured: dict[str, list[list[str]]] = {p: [] for p in self.players}
        self.zoo: dict[str, list[list[str]]] = {p: [] for p in self.players}
        self.escaped: dict[str, list[str]] = {p: [] for p in self.players}
        self.special: str | None = None
        self.current = self.game_no % len(self.players)
        self.turns = {p: 0 for p in self.players}
        self.last_escape: tuple[str, int] | None = None

    @property
    def player(self) -> str:
        return self.players[self.current]

    def _animal(self, cid: str) -> str:
        return self.cards[cid].animal

    def legal_actions(self) -> list[Any]:
        p = self.player
        if self.phase == "draw":
            return [Draw()]
        if self.phase == "escape":
            acts: list[Any] = [Escape(i) for i in range(len(self.hands[p]))]
            count = Counter(self._animal(c) for c in self.hands[p])
            acts += [Declare(a) for a in sorted(count) if count[a] >= 4 and self.cat.animal(a).herd is not None and self.deck]
            return acts
        if self.phase == "capture":
            owner, slot = self.last_escape
            animal = self._animal(self.escaped[owner][slot])
            acts = [Pass()]
            if self.cat.animal(animal).herd is None:
                return acts
            for q in self.players:
                if q != owner and sum(1 for c in self.hands[q] if self._animal(c) == animal) >= 2:
                    acts += [Capture(q, i) for i in range(len(self.hands[q]) - 2)]
            return acts
        return []

    def random_action(self, rng: random.Random):
        if self.phase == "over":
            return None
        if self.phase == "shuffle":
            return Shuffle.draw(len(self.ids), rng)
        return rng.choice(self.legal_actions())

    def apply(self, action: Any) -> Outcome:
        if self.phase == "over":
            raise IllegalAction("the game is over")
        if isinstance(action, Shuffle):
            if self.phase != "shuffle" or sorted(action.order) != list(range(len(self.ids))):
                raise IllegalAction("a shuffle is not legal now")
            self.deck = [self.ids[i] for i in action.order]
            for p in self.players:
                self.hands[p] = [self.deck.pop(0) for _ in range(self.hand_size)]
            self.special = self.deck.pop(0)
            self.phase = "draw"
            return Outcome("deal", {"special": str(self.cards[self.special])})
        if action not in self.legal_actions():
            raise IllegalAction(f"{action!r} is not legal now (phase {self.phase}, {self.player} to play)")
        p = self.player
        if isinstance(action, Draw):
            if self.deck:
                self.hands[p].append(self.deck.pop(0))
            self.phase = "escape"
            return Outcome("draw", {"player": p})
        if isinstance(action, Declare):
            four = [c for c in self.hands[p] if self._animal(c) == action.animal][:4]
            for c in four:
                self.hands[p].remove(c)
            self.zoo[p].append(four)
            self.hands[p].append(self.deck.pop(0))
            return Outcome("doubutsuen", {"player": p, "animal": action.animal})
        if isinstance(action, Escape):
            card = self.hands[p].pop(action.index)
            self.escaped[p].append(card)
            self.turns[p] += 1
            self.last_escape = (p, len(self.escaped[p]) - 1)
            self.phase = "capture"
            return Outcome("escape", {"player": p, "card": str(self.cards[card])})
        if isinstance(action, Capture):
            owner, slot = self.last_escape
            card = self.escaped[owner][slot]
            animal = self._animal(card)
            pair = [c for c in self.hands[action.player] if self._animal(c) == animal][:2]
            for c in pair:
                self.hands[action.player].remove(c)
            self.captured[action.player].append(pair + [card])
            self.escaped[owner][slot] = self.hands[action.player].pop(action.put)
            return self._next(Outcome("capture", {"player": action.player, "animal": animal}))
        if isinstance(action, Pass):
            return self._next(Outcome("pass", {}))
        raise IllegalAction(f"unknown action {action!r}")

    def _next(self, outcome: Outcome) -> Outcome:
        if all(self.turns[q] >= self.turns_each for q in self.players):
            return self._tally()
        self.current = (self.current + 1) % len(self.players)
        self.phase = "draw"
        return outcome

    def tally_scores(self) -> dict[str, Arrangement]:
        sp = self.cards[self.special] if self.special else None
        out = {}
        for p in self.players:
            out[p] = best_arrangement([self.cards[c] for c in self.hands[p]], sp,
                                      [[self.cards[c] for c in s] for s in self.captured[p]],
                                      [[self.cards[c] for c in s] for s in self.zoo[p]], catalogue=self.cat)
        return out

    def _tally(self) -> Outcome:
        """Score the game; the outcome also gives each player's ``tallies`` (the cards in
        hand, the captured and the Doubutsuen sets, as card text), what the table declares."""
        tallies = {p: {"hand": [str(self.cards[c]) for c in self.hands[p]],
                       "captured": [[str(self.cards[c]) for c in s] for s in self.captured[p]],
                       "doubutsuen": [[str(self.cards[c]) for c in s] for s in self.zoo[p]]}
                   for p in self.players}
        scores = {p: a.total for p, a in self.tally_scores().items()}
        for p, v in scores.items():
            self.totals[p] += v
        self.history.append(scores)
        self.game_no += 1
        if self.game_no >= self.options["games"]:
            self.phase = "over"
        else:
            self._reset()
            self.phase = "shuffle"
        return Outcome("tally", {"scores": scores, "tallies": tallies})

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def result(self) -> dict[str, Any]:
        best = max(self.totals.values())
        return {"scores": dict(self.totals), "games": [dict(h) for h in self.history],
                "winners": [p for p in self.players if self.totals[p] == best] if self.is_over else []}

    def snapshot(self) -> dict[str, Any]:
        return {"phase": self.phase, "game": self.game_no, "current": self.current, "deck": list(self.deck),
                "hands": {p: list(h) for p, h in self.hands.items()},
                "captured": {p: [list(s) for s in v] for p, v in self.captured.items()},
                "zoo": {p: [list(s) for s in v] for p, v in self.zoo.items()},
                "escaped": {p: list(v) for p, v in self.escaped.items()}, "special": self.special,
                "totals": dict(self.totals), "history": [dict(h) for h in self.history]}

    def check_invariants(self) -> None:
        if self.phase == "shuffle":
            return
        held = list(self.deck) + ([self.special] if self.special else [])
        for p in self.players:
            held += self.hands[p] + self.escaped[p]
            held += [c for s in self.captured[p] + self.zoo[p] for c in s]
        assert Counter(held) == Counter(self.ids), "cards are not conserved"
        for p in self.players:
            in_sets = 3 * len(self.captured[p]) + 4 * len(self.zoo[p])
            size = len(self.hands[p]) + in_sets - len(self.zoo[p])  # a Doubutsuen draws one card
            expected = self.hand_size + (1 if self.phase == "escape" and p == self.player else 0)
            assert size == expected, f"{p} holds {size} cards, expected {expected}"
            assert len(self.escaped[p]) == self.turns[p]


class Toratanu(Game):
    name = "toratanu"
    title = "TORATANU"
    rank = 4
    modes = ("default",)
    zones = ("scoring", "pile0", "p:")  # (camera: the special card, each player's hand at the tally)
    uses_hands = False  # the verdicts read the cards only: no pose
    min_players = 2
    max_players = 4
    options = (Option("games", GAMES, "games (nights) in a match; the rulebook plays 5", int, minimum=1, maximum=100),)

    def calibration_zones(self, seats):
        """Each seat's hand at the tally (``p:NAME:spread``: the cards turned face up in front
        of that player, the escape row left outside it) and the special card (``pile0``)."""
        return [f"p:{s}:spread" for s in seats] + ["pile0"]

    def zone_label(self, zone):
        """``p:aki:spread`` is "aki's hand at the tally", ``pile0`` "special card"."""
        if zone == "pile0":
            return "special card"
        if zone.startswith("p:") and zone.endswith(":spread"):
            return f"{zone.split(':')[1]}'s hand at the tally"
        return super().zone_label(zone)

    def __init__(self, catalogue: Catalogue | None = None):
        self._catalogue = catalogue

    @property
    def catalogue(self) -> Catalogue:
        return self._catalogue or default_catalogue()

    def new_state(self, players, mode=None, options=None):
        if mode not in (None, "default"):
            raise RulesError(f"unknown toratanu mode {mode!r} (known: default)")
        if not 2 <= len(players) <= 4:
            raise RulesError(f"TORATANU is played by 2-4 players, got {len(players)}")
        opts = self.resolve_options(options)
        if opts["games"] < 1:
            raise RulesError("option 'games' must be at least 1")
        return ToratanuState(players, opts, self.catalogue)


GAME = Toratanu()

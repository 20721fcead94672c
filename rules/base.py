"""The one interface every game's rules implement (OpenSpiel-like), and what they share.

A game module is pure: no clocks, no I/O, no global randomness. Its :class:`Game` makes
:class:`State` objects; a state changes only through :meth:`State.apply` with an action
(a small frozen dataclass of the module). Shuffles and deals are explicit chance actions,
and the simultaneous reactions of a reaction game are one explicit action per card, so
a whole game is a list of actions: replayable, comparable, testable.

``random_action(rng)`` draws one legal action (chance or player) with the caller's
``random.Random``; the conformance test plays random games with it and checks that
nothing crashes, that the same seed gives the same game, and that
``check_invariants()`` (e.g. "cards are conserved") holds after every action.
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Sequence

from session.calls import Calls, Vocabulary
from session.errors import OptionError, RulesError


@dataclass(frozen=True)
class Option:
    """A rule option the table may change (a [policy] point of the rules, docs/rules.md), with
    its default.

    A number is range-checked where it is parsed: ``minimum``/``maximum`` bound it
    (``exclusive_minimum``: strictly above ``minimum``, e.g. a window of 0 s would judge
    nothing). NaN, infinities and integers beyond the float range are refused whatever the
    bounds, with one line naming the option, so a verdict is never computed from them.
    """

    name: str
    default: Any
    doc: str
    kind: type | tuple[type, ...] = object
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False

    def check(self, value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            raise OptionError(f"option {self.name!r} must be a finite number, got {value!r}")
        if self.kind is float and isinstance(value, int) and not isinstance(value, bool):
            self._check_range(value)
            if abs(value) > MAX_INT_OPTION:
                raise OptionError(f"option {self.name!r} must be a number of at most {MAX_INT_OPTION:g}, "
                                  f"got {_short(value)}")
            value = float(value)
        if isinstance(value, bool) and self.kind is not bool and self.kind is not object:
            raise OptionError(f"option {self.name!r} must be {self._kind_name()}, got {value!r}")
        if not isinstance(value, self.kind):
            raise OptionError(f"option {self.name!r} must be {self._kind_name()}, got {_short(value)}")
        if self.choices is not None and value not in self.choices:
            raise OptionError(
                f"option {self.name!r} must be one of {', '.join(map(str, self.choices))}, got {_short(value)}"
            )
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            self._check_range(value)
            if isinstance(value, int) and abs(value) > MAX_INT_OPTION:
                raise OptionError(f"option {self.name!r} must be a number of at most {MAX_INT_OPTION:g}, "
                                  f"got {_short(value)}")
        return value

    def _check_range(self, value: int | float) -> None:
        low = self.minimum is not None and (value <= self.minimum if self.exclusive_minimum
                                            else value < self.minimum)
        high = self.maximum is not None and value > self.maximum
        if low or high:
            raise OptionError(f"option {self.name!r} must be{self._range_text()}, got {_short(value)}")

    def _range_text(self) -> str:
        parts = []
        if self.minimum is not None:
            parts.append(f"{'>' if self.exclusive_minimum else '≥'} {self.minimum:g}")
        if self.maximum is not None:
            parts.append(f"≤ {self.maximum:g}")
        return (" " + " and ".join(parts)) if parts else ""

    def _kind_name(self) -> str:
        kinds = self.kind if isinstance(self.kind, tuple) else (self.kind,)
        return " or ".join(k.__name__ for k in kinds)


#: the largest integer any option takes (2**53: every integer up to it is exact as a float)
MAX_INT_OPTION = 2 ** 53


def _short(value: Any, limit: int = 40) -> str:
    """``repr`` of a value cut to one readable piece (a 400-digit integer is not a message;
    ``str`` of an integer of more than 4300 digits even raises)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** 30:
        from session.events import digit_count

        return f"an integer of {digit_count(value)} digits"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def resolve_options(declared: Sequence[Option], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The full option set: defaults overridden by ``given``; unknown names are errors."""
    by_name = {o.name: o for o in declared}
    out = {o.name: o.default for o in declared}
    for name, value in (given or {}).items():
        if name not in by_name:
            known = ", ".join(sorted(by_name)) or "none"
            raise OptionError(f"unknown rule option {name!r} (this game knows: {known})")
        out[name] = by_name[name].check(value)
    return out


@dataclass(frozen=True)
class Shuffle:
    """Chance action: the cards' new order, as a permutation of their positions."""

    order: tuple[int, ...]

    @staticmethod
    def draw(n: int, rng: random.Random) -> "Shuffle":
        """A uniformly random shuffle of ``n`` cards, drawn with the caller's ``rng``."""
        order = list(range(n))
        rng.shuffle(order)
        return Shuffle(tuple(order))


@dataclass(frozen=True)
class Outcome:
    """What one applied action did, as data (python-chess style): a kind and details."""

    kind: str
    details: Mapping[str, Any] = field(default_factory=dict)


class State(ABC):
    """One game in progress."""

    @abstractmethod
    def apply(self, action: Any) -> Outcome:
        """Apply a legal action; raise :class:`session.errors.IllegalAction` otherwise."""

    @abstractmethod
    def random_action(self, rng: random.Random) -> Any | None:
        """A legal action drawn with ``rng``; None when the game is over."""

    @property
    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def result(self) -> dict[str, Any]:
        """The standing now (final when ``is_over``), as a JSON-able dict."""

    @abstractmethod
    def snapshot(self) -> dict[str, Any]:
        """Everything that defines the state, JSON-able, for determinism checks."""

    def check_invariants(self) -> None:
        """Raise AssertionError if the state breaks a rule of the game (cards conserved…)."""


class Game(ABC):
    """The rules of one game: its name, modes, options, and how to start a state — and the
    game's declaration for the registry (``rules.get``/``rules.names``), which every other
    part of the referee asks instead of listing the games itself: its title for people, its
    place in the list, the camera zones a calibration may name (``p:`` = any
    ``p:<seat>:slot<N>``), the card faces a calibration shows the camera (empty: the table
    names them), and the zones a calibration must have."""

    name: ClassVar[str]
    #: the game's name for people (reports, tables)
    title: ClassVar[str] = ""
    #: place in the registry's list (the seed rulebooks' order; a new game: any larger number)
    rank: ClassVar[int] = 100
    modes: ClassVar[tuple[str, ...]] = ("default",)
    options: ClassVar[tuple[Option, ...]] = ()
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 8
    #: the zones of ``card`` events this game's calibration may define
    zones: ClassVar[tuple[str, ...]] = ("field",)
    #: the distinct card faces the camera must tell apart, in the order calibration asks for them
    faces: ClassVar[tuple[str, ...]] = ()
    #: what the players say (words, spellings, numbers per mode); None: no spoken calls
    calls: ClassVar[Calls | None] = None
    #: the word each seat says at calibration, to find its microphone channel
    test_word: ClassVar[str] = "hello"
    #: whether any verdict of this game uses the players' hands (raised hands, a grab: the
    #: camera's pose of each seat). False: replay and live run no pose at all (no seat
    #: workers, no hand events), which saves most of a replay's CPU; a game whose verdicts
    #: read only cards (and calls) says False.
    uses_hands: ClassVar[bool] = True
    #: the mode of a session that names none (None: the record names no mode)
    default_mode: ClassVar[str | None] = None
    #: a game kept outside the referee (a test's own): the module holding its referee-side
    #: parts — ``Judge``, its lines (``TYPES``, ``parse``), ``LIVE``, ``TEACHING``, the ``cli``
    #: of ``referee rules`` — in place of ``referee/judging/<name>.py``,
    #: ``referee/judging/verdicts/<name>.py``, ``referee/teach/drills/<name>.py`` and
    #: ``referee/commands/rules_<name>.py``; "" for the referee's own games
    home: ClassVar[str] = ""

    def vocabulary(self, mode: str | None = None) -> Vocabulary:
        """The calls hearing listens for in ``mode``; :class:`RulesError` for a game without calls."""
        if self.calls is None:
            raise RulesError(f"game {self.name!r} has no spoken calls to listen for")
        return self.calls.vocabulary(self.name, mode)

    def calibration_zones(self, seats: Sequence[str]) -> list[str]:
        """The zones a calibration of this game must have (default: every declared zone)."""
        return [z for z in self.zones if z != "p:"]

    def has_zone(self, zone: str) -> bool:
        return any(zone == z or (z == "p:" and zone.startswith("p:")) for z in self.zones)

    def zones_text(self) -> str:
        return ", ".join("p:SEAT:slotN" if z == "p:" else z for z in self.zones)

    def zone_label(self, zone: str) -> str:
        """A calibration zone in the table's words, for pictures of the set-up: ``p:aki:spread``
        is "aki spread", any other zone its own name; a game whose zones have names the players
        use says them (TAKOYAKI's slots and discards)."""
        if zone.startswith("p:") and zone.count(":") == 2:
            _, seat, part = zone.split(":")
            return f"{seat} {part}"
        return zone

    @abstractmethod
    def new_state(self, players: Sequence[str], mode: str | None = None,
                  options: Mapping[str, Any] | None = None) -> State:
        """A new game for ``players`` in turn order (mode None = the game's first mode)."""

    def resolve_options(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        return resolve_options(self.options, given)

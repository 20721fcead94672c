"""What the referee did not clearly perceive, and the table's answers about it (docs/rules.md,
"The referee's own uncertainty"; RULES.md section 0).

The judge penalises and awards only on what it clearly perceived. An observation it is not
sure of — a shout whose word it could not make out (``words: []``) or made out below
:attr:`Clarity.word_conf`, a hand or grab event below :attr:`Clarity.hand_conf`, a card below
:attr:`Clarity.card_conf` — makes that player
**unclear** for that card when the verdict depends on it: no penalty, no point, no card taken
on it, and the reason in words. A verdict that every reading of the unclear observations
gives the same way stands (a clearly wrong hand is wrong whatever the word was); a penalty
that is *wrong* only if the unclear observation was a reaction is *missed*
(:func:`clear_penalty`).

*Readings*: each unclear observation could have been several things — an unclear shout the
right words, wrong words, or no utterance at all (cross-talk, a cough); an unclear hand event
real or not. A game judges the player under every combination (:func:`readings`) and keeps
the verdict only when all agree (:func:`agree`).

The table's **answers** (:class:`Answers`) come as ``decision`` events with ``card_index``
(in the record, live or appended later) or from ``referee judge --decide``; the card is then
re-judged as if the observation had been clear. An answer settles an unclear item only: a
player judged on clear evidence is overridden by a ``correction`` of the record line, not by
an answer.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

from session.errors import OptionError
from session.events import ANSWER_VERDICTS, CardEvent, DecisionEvent, Event, GrabEvent, HandEvent, ShoutEvent

#: a player with more unclear observations in one window than this many readings is unclear
#: without weighing them one by one (3 unclear shouts and 3 unclear hands give 216)
MAX_READINGS = 729
#: what an unclear shout may have been: the right words, other words, or no utterance
SHOUT_READINGS = ("right", "wrong", "none")
#: the default of :attr:`Clarity.word_conf` (its docstring; the measurement in docs/hearing.md)
WORD_CONF = 0.677
#: the fields of :class:`Clarity` (``referee judge --min-conf NAME=VALUE`` names them without ``_conf``)
THRESHOLDS = ("card_conf", "hand_conf", "word_conf")


@dataclass(frozen=True)
class Clarity:
    """How sure an observation must be for a verdict to rest on it. Each threshold trades
    penalties on doubtful evidence (too low) against players left unjudged (too high)."""

    card_conf: float = 0.5
    """A ``card`` event whose ``conf`` is below this is *card not read*: nobody is judged on it
    (the verdict lists every player as unclear; the card's best reading still moves the game
    on). 0.5 is the card recogniser's own acceptance score (``vision.card_references.
    MIN_SCORE``), so a camera record never falls below it: it guards hand-written records and
    other producers. Measured (``benchmarks/bench_confidence.py``; docs/seeing.md, *How sure is
    a hand, a card*): 222 real cards read with their deck's references, 0 wrong, all at 0.837
    or more; a card whose reference is missing is misread at 0.80-0.94, as sure as a right
    read, so no threshold guards that (complete references do). Cost of raising it: more
    cards go unjudged until a person corrects them."""

    hand_conf: float = 0.5
    """A ``hand`` (or ``grab``) event whose ``conf`` is below this is *hand unclear*: it may or
    may not have happened. ``conf`` is MediaPipe's wrist visibility at the raise; below 0.5
    the model itself rates the wrist more likely unseen than seen (the demo's lowest raise is
    0.70). Measured on real photos (``benchmarks/bench_confidence.py``; docs/seeing.md): the
    thresholds chosen leaving one photo out are 0.51-0.53, held out 178/180 arms right; raises
    above 0.5 are right 37/38 (as taken 11/11) — too few raised arms to show 99 % or to move
    it. Cost of raising it: more raises with a blurred wrist leave the player unjudged;
    of lowering it: a penalty may rest on a wrist the camera barely saw."""

    word_conf: float = WORD_CONF
    """A ``shout`` whose words the speech engine made out with a ``conf`` below this is *word
    unclear*, as if no word had been made out (the reason names the word and its confidence).
    ``conf`` is Whisper's probability of the call under the keyword prompt; a shout whose
    words an enrolled voice decided carries no ``conf`` and is not affected (the voice's own
    distance gate decides it). Chosen on real speakers' digits and talk, leave one speaker
    out (``benchmarks/bench_confidence.py``; docs/hearing.md, *How sure is a word*): the
    lowest confidence at which the speakers' words were right at least 99 % of the time, on
    all three together; held out one speaker at a time that rule reaches 97.0 % (193/199), not
    99 %. Cost: in quiet 228 -> 177 of 240 real digit clips keep a clear right word (wrong
    6 -> 1), in white noise 10 dB 194 -> 89 (wrong 31 -> 1); the espeak voices of ``referee
    demo --no-enroll`` score 0.11-0.81, so 14 of its 16 words become unclear. Raising it leaves
    more words heard right unjudged (the table is asked); lowering it lets a penalty rest on
    a word heard wrong."""

    def __post_init__(self) -> None:
        for name in THRESHOLDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    math.isfinite(value) and 0.0 <= value <= 1.0):
                raise OptionError(f"threshold {name!r} must be a number in 0..1, got {value!r}")

    @classmethod
    def parse(cls, pairs: Iterable[str]) -> "Clarity":
        """``["card=0.6", "hand=0.4", "word=0.8"]`` (``referee judge --min-conf``) → a Clarity."""
        given: dict[str, float] = {}
        for pair in pairs:
            name, sep, value = pair.partition("=")
            field_name = f"{name.strip()}_conf"
            if not sep or field_name not in THRESHOLDS:
                raise OptionError(f"--min-conf takes card=VALUE, hand=VALUE or word=VALUE, got {pair!r}")
            try:
                given[field_name] = float(value)
            except ValueError:
                raise OptionError(f"--min-conf {name.strip()} must be a number in 0..1, got {value!r}") from None
        return cls(**given)


# ----------------------------------------------------------------------------- observations


def shout_unclear(ev: ShoutEvent, clarity: Clarity) -> bool:
    """A shout whose word was not made out: the speech layer heard an utterance (its onset is
    known) but gave no token, or gave one less sure than :attr:`Clarity.word_conf`."""
    return not ev.words or word_below(ev, clarity)


def word_below(ev: ShoutEvent, clarity: Clarity) -> bool:
    """A shout with words whose ``conf`` is below :attr:`Clarity.word_conf` (no conf: not)."""
    return bool(ev.words) and ev.conf is not None and ev.conf < clarity.word_conf


def hand_unclear(ev: Event, clarity: Clarity) -> bool:
    """A hand or grab event the camera was not sure of."""
    conf = getattr(ev, "conf", None)
    return isinstance(ev, (HandEvent, GrabEvent)) and conf is not None and conf < clarity.hand_conf


def card_not_read(card: CardEvent, clarity: Clarity) -> str | None:
    """Why nobody is judged on a card that was not read (None: it was read)."""
    if card.conf is not None and card.conf < clarity.card_conf:
        return (f"card not read: {card.card} at confidence {card.conf:.2f} (below {clarity.card_conf:g}); "
                "nobody judged on it")
    return None


def shout_reason(ev: ShoutEvent, t0: float, clarity: Clarity) -> str:
    if word_below(ev, clarity):
        return (f"heard a shout at +{ev.t - t0:.3f} s: '{' '.join(ev.words)}' at confidence {ev.conf:.2f}, "
                f"below {clarity.word_conf:g} — unclear")
    why = unclear_why(ev)
    return f"heard a shout at +{ev.t - t0:.3f} s, the word was unclear" + (f" ({why})" if why else "")


def unclear_why(ev: ShoutEvent) -> str | None:
    """Why the ears gave no word, in the players' terms, from what the record says of the
    shout (None: nothing more to say than "unclear")."""
    extra = ev.extra or {}
    if "cut_short" in extra:
        return "cut short while the player was still speaking under the others' words"
    if "mixed_with" in extra:
        return f"{extra['mixed_with']}'s voice ran into it"
    if "disagree" in extra:
        return "the ways of hearing it disagreed"
    return None


def hand_reason(ev: Event, t0: float, clarity: Clarity) -> str:
    what = f"{ev.side} hand {ev.state}" if isinstance(ev, HandEvent) else "token grab"
    return f"hand unclear: {what} at +{ev.t - t0:.3f} s, confidence {ev.conf:.2f} (below {clarity.hand_conf:g})"


# ----------------------------------------------------------------------------- readings


@dataclass(frozen=True)
class Reading:
    """One way a player's unclear observations could have been: per unclear shout one of
    :data:`SHOUT_READINGS`, per unclear hand event whether it happened."""

    shouts: tuple[str, ...]
    hands: tuple[bool, ...]

    @property
    def favourable(self) -> bool:
        """Every unclear shout the right words and every unclear hand real: the reading the
        record itself suggests, with the benefit of the doubt on the words."""
        return all(s == "right" for s in self.shouts) and all(self.hands)


def count(n_shouts: int, n_hands: int) -> int:
    return 3 ** n_shouts * 2 ** n_hands


def readings(n_shouts: int, n_hands: int) -> Iterator[Reading]:
    """Every reading of ``n_shouts`` unclear shouts and ``n_hands`` unclear hand events, the
    favourable one first."""
    for shouts in itertools.product(SHOUT_READINGS, repeat=n_shouts):
        for hands in itertools.product((True, False), repeat=n_hands):
            yield Reading(shouts, hands)


PENALISED = frozenset({"wrong", "missed"})


def agree(statuses: Sequence[str]) -> bool:
    """Whether every reading gives the player the same outcome: all correct, all without a
    due reaction, or all penalised (wrong and missed cost the same penalty)."""
    kinds = {("penalised" if s in PENALISED else s) for s in statuses}
    return len(kinds) == 1


def clear_penalty(results: Sequence[tuple[str, object]]) -> tuple[str, object]:
    """The penalty every reading gives (all penalised, :func:`agree`), named by what was
    clearly perceived: where some readings say *wrong* and others *missed*, only an unclear
    observation (a sound whose word was not made out, perhaps cross-talk or babble; a hand
    the camera barely saw) would make it *wrong* — a reading that drops it leaves no reaction
    at all, so nothing the player clearly did was wrong: *missed* (the same penalty; issue
    31, fairness: a wordless sound on a silent player's channel turned "missed" into
    "wrong"). All readings wrong: the favourable one (its why, not the unclear word's)."""
    missed = [r for r in results if r[0] == "missed"]
    if missed and len(missed) < len(results):
        return missed[0]
    return results[0]


# ----------------------------------------------------------------------------- answers


@dataclass(frozen=True)
class Answer:
    """One answer of the table about card ``card_index`` (its verdict number): ``player`` was
    ``verdict``, or ``first`` takes the card. ``line``: the record line (0: the command line)."""

    card_index: int
    player: str | None = None
    verdict: str | None = None
    first: str | None = None
    line: int = 0

    @classmethod
    def of(cls, ev: DecisionEvent) -> "Answer":
        return cls(ev.card_index, ev.player, ev.verdict, ev.first, ev.line)

    @classmethod
    def parse(cls, text: str) -> "Answer":
        """``3:ben=correct``, ``3:ben=wrong`` or ``3:first=ben`` (``referee judge --decide``)."""
        index, sep, rest = text.partition(":")
        who, eq, what = rest.partition("=")
        if not (sep and eq and index.strip().isdigit() and int(index) >= 1 and who.strip() and what.strip()):
            raise OptionError(f"--decide takes CARD:PLAYER=correct|wrong or CARD:first=PLAYER, got {text!r}")
        who, what = who.strip(), what.strip()
        if who == "first":
            return cls(int(index), first=what)
        if what not in ANSWER_VERDICTS:
            raise OptionError(f"--decide {text!r}: the answer must be correct or wrong, got {what!r}")
        return cls(int(index), player=who, verdict=what)

    def describe(self) -> str:
        where = f"line {self.line}" if self.line else "--decide"
        what = f"first={self.first}" if self.first else f"{self.player}={self.verdict}"
        return f"decision {self.card_index}:{what} ({where})"


@dataclass
class CardAnswers:
    """The answers about one card: each player's (the last one counts) and who takes it."""

    verdicts: dict[str, Answer] = field(default_factory=dict)
    first: Answer | None = None

    def __bool__(self) -> bool:
        return bool(self.verdicts) or self.first is not None


@dataclass
class Answers:
    """Every answer of the table, in the order given (the record's, then ``--decide``'s);
    a game judge takes a card's answers when it judges that card."""

    items: list[Answer] = field(default_factory=list)
    _taken: set[int] = field(default_factory=set)

    def card(self, index: int) -> CardAnswers:
        self._taken.add(index)
        out = CardAnswers()
        for a in self.items:
            if a.card_index != index:
                continue
            if a.first is not None:
                out.first = a
            else:
                out.verdicts[a.player] = a
        return out

    def untaken(self) -> list[Answer]:
        """Answers about cards that never got a verdict (no such card)."""
        return [a for a in self.items if a.card_index not in self._taken]

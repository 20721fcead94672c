"""PINPON, the sixth test game: it plugs into the referee without a change to shared code.

A card says ``ping`` or ``pong``; the first player to call the card's word takes it. The
whole game is this one module (its ``Game.home``): the rules (``GAME``), the calls, the judge
and its lines, the drill and the ``referee rules`` questions. ``rules.PLUGINS`` names it
(``TABLE_REFEREE_GAMES=tests.games.pinpon``) and ``referee rules``, ``referee judge`` and
``referee teach`` then know it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import click

from referee.judging.base import GameJudge
from referee.judging.verdicts.base import Result, Verdict, fact, read_line
from referee.teach.core import CARD_T, Feedback, Level, Press, Situation, header, judge_lines, presses_before, rt
from referee.teach.drills.base import Drill, DrillEntry, Screen, Teaching
from rules.base import Game, Outcome, Shuffle, State
from session.calls import Calls, Word
from session.errors import IllegalAction
from session.events import CardEvent, EndEvent, Event, ShoutEvent

CARDS = {"ping": "ping", "pong": "pong"}
DECK = ("ping", "pong") * 4


# ---------------------------------------------------------------------------- rules
@dataclass(frozen=True)
class Reveal:
    """One card turned up, and who called it first (None: nobody)."""

    card: str
    first: str | None


class PinponState(State):
    def __init__(self, players: Sequence[str]):
        self.players, self.order, self.index = list(players), None, 0
        self.scores = {p: 0 for p in self.players}

    def apply(self, action: Any) -> Outcome:
        if isinstance(action, Shuffle) and self.order is None:
            self.order = [DECK[i] for i in action.order]
            return Outcome("shuffle")
        if not isinstance(action, Reveal) or self.is_over or self.order is None or action.card != self.order[self.index]:
            raise IllegalAction(f"not the next card: {action!r}")
        self.index += 1
        if action.first is not None:
            self.scores[action.first] += 1
        return Outcome("card", {"first": action.first})

    def random_action(self, rng: random.Random) -> Any | None:
        if self.order is None:
            return Shuffle.draw(len(DECK), rng)
        return None if self.is_over else Reveal(self.order[self.index], rng.choice(self.players + [None]))

    @property
    def is_over(self) -> bool:
        return self.order is not None and self.index == len(self.order)

    def result(self) -> dict[str, Any]:
        return {"scores": dict(self.scores)}

    def snapshot(self) -> dict[str, Any]:
        return {"order": self.order, "index": self.index, "scores": dict(self.scores)}

    def check_invariants(self) -> None:
        assert sum(self.scores.values()) <= self.index


class Pinpon(Game):
    name = "pinpon"
    title = "PINPON"
    rank = 50
    modes = ("default",)
    zones = ("field",)
    faces = ("ping", "pong")
    min_players, max_players = 2, 4
    calls = Calls(words=(Word("ping", "ピン", "ping"), Word("pong", "ポン", "pong")))
    test_word = "ping"
    home = __name__

    def new_state(self, players, mode=None, options=None) -> State:
        return PinponState(players)


GAME = Pinpon()


# ---------------------------------------------------------------------------- judge
@dataclass(frozen=True, kw_only=True)
class CardWon(Verdict):
    """One card and who took it."""

    card: str = fact("the card", "")
    first: str | None = fact("who called it first (null: nobody)")


@dataclass(frozen=True, kw_only=True)
class PinponResult(Result):
    """The cards each player took."""

    scores: dict[str, int] = fact("`{player: cards taken}`", factory=dict)


TYPES = (CardWon, PinponResult)


def parse(line: Mapping[str, Any]) -> CardWon | PinponResult:
    return read_line(line, CardWon, PinponResult)


class Judge(GameJudge):
    """A card's verdict when the next card (or the end) comes: its first right call."""

    def __init__(self, session) -> None:
        super().__init__(session)
        self.scores = {p: 0 for p in session.players}
        self.card: CardEvent | None = None
        self.first: str | None = None

    def feed(self, event: Event) -> list[dict[str, Any]]:
        if isinstance(event, CardEvent):
            out, self.card, self.first = self._close(), event, None
            return out
        if isinstance(event, ShoutEvent) and self.card is not None and self.first is None \
                and tuple(event.words) == (self.card.card,) and event.player in self.scores:
            self.first = event.player
        return []

    def _close(self) -> list[dict[str, Any]]:
        if self.card is None:
            return []
        if self.first is not None:
            self.scores[self.first] += 1
        line = CardWon(t=self.card.t, card=self.card.card, first=self.first).to_dict()
        self.card = None
        return [line]

    def finish(self) -> list[dict[str, Any]]:
        return self._close() + [PinponResult(scores=dict(self.scores)).to_dict()]


# ---------------------------------------------------------------------------- drill
KEYS = {"i": "ping", "o": "pong"}


class PinponDrill(Drill):
    """Call the card's word: ``i`` ping, ``o`` pong, ``enter``."""

    def __init__(self) -> None:
        sits = tuple(Situation("pinpon", "call", c, {"card": c}) for c in ("ping", "pong"))
        super().__init__(name="pinpon", game="pinpon", reaction=True,
                         _levels=(Level("call", {"en": "say the card", "ja": "カードを言う"}, sits, 1.5),))

    def screen(self, sit: Situation, lang: str) -> Screen:
        return Screen(title="Call!", card=sit.data["card"], keys="i ping  o pong  |  enter", game="pinpon")

    def oracle(self, sit: Situation) -> list[str]:
        return [next(k for k, w in KEYS.items() if w == sit.data["card"]), "enter"]

    def answer_text(self, sit: Situation, presses: Sequence[Press]) -> str:
        return " ".join(KEYS[p.key] for p in presses_before(presses) if p.key in KEYS)

    def feedback(self, sit, presses, level, lang, learner="you", rival=None) -> Feedback:
        said = presses_before(presses)
        words = tuple(KEYS[p.key] for p in said if p.key in KEYS)
        rec: list[Event] = [header("pinpon", [learner, "rival"], {}, sit), CardEvent(t=CARD_T, card=sit.data["card"])]
        if words:
            rec.append(ShoutEvent(t=rt(CARD_T + said[0].t), player=learner, words=words))
        rec.append(EndEvent(t=rt(CARD_T + 5.0)))
        lines = judge_lines(rec)
        took = next(x for x in lines if x["type"] == "verdict")["first"] == learner
        verdict = "correct" if took else ("wrong" if words else "missed")
        return Feedback(verdict=verdict, reaction=rt(said[0].t) if said else None, rule="say the card",
                        fact=f"the card is {sit.data['card']}", did="" if took else f"you said {' '.join(words) or 'nothing'}",
                        spoken=(verdict,), answered=" ".join(words), record=rec, lines=lines)


TEACHING = Teaching(drills=(DrillEntry("pinpon", None, PinponDrill),), words=("ping", "pong"))


# ---------------------------------------------------------------------------- referee rules pinpon
@click.group("pinpon")
def cli() -> None:
    """PINPON: who takes a card."""


@cli.command("expect")
@click.argument("card", type=click.Choice(sorted(CARDS)))
def expect(card: str) -> None:
    """What to call on CARD."""
    click.echo(f"{card}: say {card}")

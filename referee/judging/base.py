"""The one interface of a game's judging: an incremental judge fed one event at a time.

``feed(event)`` takes the next event in canonical order (:mod:`session.order`; the record's
corrections already applied) and returns the verdict lines that can no longer change (for a
reaction game: a card's verdict once the next card is revealed, since the table's decision
and choices may come until then); ``advance(t)`` says no event earlier than ``t`` can still
arrive (the pipeline's watermark; a game may close a window by time); ``finish()`` returns
what is left and the one ``result`` line; ``announce(t)`` gives what a live table may hear
before a verdict is final (the first correct player as soon as nobody can still beat them). Batch judging is a loop over ``feed`` (``referee.
judge.judge``), so judging a record event by event gives byte for byte what batch judging
gives — the judging conformance test checks it for every game at every prefix.

A game's judging module defines ``Judge`` (a :class:`GameJudge`) and may define
``format_table(judgement, header) -> str`` and ``describe`` (the report's view of a verdict,
:mod:`referee.judging.view`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from session.events import Event


class GameJudge:
    """Base of the five games' incremental judges; ``session`` is a :class:`referee.judge.Session`
    (header, resolved options, ``warn``); its ``events`` list is not used."""

    #: whether the game applies the table's answers about unclear observations
    #: (``Session.answers``, :mod:`referee.judging.unclear`); the others ignore them, with a warning
    takes_answers = False

    def __init__(self, session) -> None:
        self.session = session

    def feed(self, event: Event) -> list[dict[str, Any]]:
        raise NotImplementedError

    def advance(self, t: float) -> list[dict[str, Any]]:
        return []

    def unread_card(self, warning: Event) -> list[dict[str, Any]]:
        """The camera saw a card arrive but could not read it (a ``warning`` event with
        ``unread``; ``zone`` in its extra). Default: nothing (the game has no use for it)."""
        return []

    def card_seen_late(self, warning: Event) -> list[dict[str, Any]]:
        """The camera may have seen the next card late (a ``warning`` event with
        ``card_time_uncertain``, ``earliest``, ``zone``; it comes just before that card's event).
        Default: nothing (the card's time stands as recorded)."""
        return []

    def announce(self, t: float) -> list[dict[str, Any]]:
        """Provisional announcements that can be said at watermark ``t`` (each once), before
        the verdict line is final: e.g. ``{"type": "announce", "what": "first", ...}`` when the
        first correct player of a card is settled. Not part of the judgement's lines (the
        verdict that follows is); a live table hears them early. Default: none."""
        return []

    def finish(self) -> list[dict[str, Any]]:
        raise NotImplementedError


@dataclass(frozen=True)
class LivePlay:
    """What a live table shows and asks for one game, declared in its judging module
    (``LIVE`` in ``referee/judging/<game>.py``; none: nothing of the game's own).

    ``prompts(item, players, state)``: the choices an announcement opens to the table
    (:class:`referee.live.controls.Prompt` objects; ``state`` is the judge's rules state).
    ``expect(card, field)``: what the table must do on ``card`` in words, shown as it is
    revealed (``field``: the cards that stay in play, which it may extend), in the modes
    ``expect_modes``. ``legend``: per mode, the game's own words a table meets on the screen,
    explained under the verdicts. ``keys``: which of the table's game-specific keys do
    something in this game (:data:`referee.live.controls.GAME_KEYS`: ``strike`` a reaction,
    settle a ``tie``, answer a ``prompt``); the live views list only those."""

    prompts: Callable[[dict[str, Any], Sequence[str], Any], list[Any]] | None = None
    expect: Callable[[str, list[str]], str | None] | None = None
    expect_modes: tuple[str, ...] = ()
    legend: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    keys: tuple[str, ...] = ()


def live_play(game: str | None) -> LivePlay:
    """The live declaration of ``game`` (an empty one for none, or a game declaring nothing)."""
    if not game:
        return LivePlay()
    from referee import judging

    found = getattr(judging.module(game), "LIVE", None)
    return found if isinstance(found, LivePlay) else LivePlay()


@dataclass(frozen=True)
class SpokenWords:
    """A turn-based game's finite live phrases (:mod:`referee.live.voice` renders them all when
    the session starts): the ``fixed`` phrases and the players' names, English as written and
    Japanese from ``ja`` (names as they are). Its judging words module exports
    ``phrases = WORDS.phrases`` and ``phrase_text = WORDS.phrase_text``."""

    fixed: tuple[str, ...]
    ja: Mapping[str, str]

    def phrases(self, players) -> set[str]:
        """Every phrase the game's announcements can say at a table of ``players``."""
        return set(self.fixed) | {str(p) for p in players}

    def phrase_text(self, phrase: str, lang: str) -> str:
        """A phrase in the table's language (English as it is; ``ja``: :attr:`ja`, names as they are)."""
        return phrase if lang == "en" else self.ja.get(phrase, phrase)

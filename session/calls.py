"""What players say: the words of a game's calls and which calls a table can make.

Why here, at the ground floor: a game declares its calls once, in its rules module
(``rules/<name>.py``: ``Game.calls``), and hearing (``audio/``), calibration and teaching
read them; ``audio`` and ``rules`` may not import each other, so the shape of the
declaration lives below both. The types are plain frozen data (hashable: a vocabulary is
a cache key of the speech engines).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping


@dataclass(frozen=True)
class Word:
    """One name a player calls, as each language says it (the one copy of its spellings)."""

    token: str
    #: Japanese as heard: katakana, read into sounds by OpenJTalk
    ja: str
    #: English as heard: letters
    en: str
    #: other English names an English table may call (RULES.md: "squid" -> ika)
    en_also: tuple[str, ...] = ()
    #: how teaching writes and says it in Japanese when not as heard (""): ``うずしお``
    ja_text: str = ""

    def said(self, lang: str) -> str:
        """How it is said in ``lang`` (``ja`` or ``en``), as heard."""
        return self.ja if lang == "ja" else self.en

    def shown(self, lang: str) -> str:
        """How teaching writes it: its Japanese text, or the token itself in English."""
        return (self.ja_text or self.ja) if lang == "ja" else self.token


@dataclass(frozen=True)
class Vocabulary:
    """The calls of one game (and mode): name tokens, spoken numbers, and whether names join."""

    game: str
    names: tuple[str, ...]
    numbers: tuple[int, ...] = ()
    join_names: bool = False
    totals: bool = False  # a name may be followed by a number (IKATAKO co-op: "ika 12")
    #: the spellings of every name token (and of the parts of joined names)
    words: tuple[Word, ...] = ()

    def word(self, token: str) -> Word:
        """The word of a name token; :class:`KeyError` if the game has none."""
        for w in self.words:
            if w.token == token:
                return w
        raise KeyError(token)

    def narrowed(self, names: tuple[str, ...], numbers: tuple[int, ...]) -> "Vocabulary":
        """The same words, fewer calls (no totals): a recognizer's grammar for a few tokens."""
        return replace(self, names=names, numbers=numbers, totals=False)


@dataclass(frozen=True)
class Calls:
    """A game's declaration of what its players say: its words and, per mode, which calls.

    ``numbers`` maps a mode to the numbers called in it (``None``: every mode not listed);
    ``totals`` lists the modes where a name is followed by the running total."""

    words: tuple[Word, ...]
    numbers: Mapping[str | None, tuple[int, ...]] = field(default_factory=dict)
    join_names: bool = False
    totals: tuple[str, ...] = ()

    def vocabulary(self, game: str, mode: str | None) -> Vocabulary:
        numbers = self.numbers.get(mode, self.numbers.get(None, ()))
        return Vocabulary(game, tuple(w.token for w in self.words), tuple(numbers), self.join_names,
                          bool(mode) and mode in self.totals, self.words)

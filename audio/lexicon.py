"""What a game's players say, how a model spells it, and how heard words become tokens.

A *lexicon* (one TOML file per model in ``audio/lexicons/``) maps every canonical token
of docs/rules.md (``ika``, ``tako``, ``8`` …) to the word sequences the model can
output for it. A *vocabulary* (:class:`session.calls.Vocabulary`, per game and mode: the
game's own declaration, ``rules.vocabulary(game, mode)``) says which tokens and numbers a
table can call.
Together they give the recognizer's runtime grammar (:func:`grammar_phrases`) and the
parser (:meth:`Lexicon.parse`) that turns the recognised words back into tokens.

Why parse ourselves: Vosk turns a grammar into a bigram over words, so it may output any
chain of grammar words (``이 카 이 카``), not only the listed phrases. The parser takes
the longest spelling at each position; a number is composed from number words the way
it is spoken (Japanese ``니 주 하치`` = 28, English ``twenty eight``); two numbers
spoken in a row stay two tokens (``하치 하치`` = ``8 8``, the Repeat trouble). Words
that spell nothing are reported as ``unparsed`` and dropped from the tokens.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from session.calls import Vocabulary, Word  # noqa: F401 - the game's calls, declared in rules/<game>.py
from session.errors import ModelMissing

LEXICON_DIR = Path(__file__).resolve().parent / "lexicons"

@dataclass(frozen=True)
class Parsed:
    """Tokens parsed from a recognised word sequence, and the words that spelled nothing."""

    tokens: tuple[str, ...]
    unparsed: tuple[str, ...] = ()


@dataclass
class Lexicon:
    """Spellings of tokens and number words for one model (see the module docstring)."""

    model: str
    languages: tuple[str, ...]
    tokens: dict[str, list[tuple[str, ...]]]
    numbers: dict[str, dict[int, list[tuple[str, ...]]]] = field(default_factory=dict)
    path: Path | None = None

    @classmethod
    def from_file(cls, path: Path) -> "Lexicon":
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ModelMissing(f"lexicon {path} is unreadable: {exc}") from None
        tokens = {tok: [tuple(s.split()) for s in spellings] for tok, spellings in data.get("tokens", {}).items()}
        numbers = {
            kind: {int(v): [tuple(s.split()) for s in spellings] for v, spellings in table.items()}
            for kind, table in data.get("numbers", {}).items()
        }
        return cls(str(data.get("model", Path(path).stem)), tuple(data.get("languages", ())), tokens, numbers, Path(path))

    @classmethod
    def for_model(cls, name: str) -> "Lexicon":
        """The lexicon shipped for model ``name``; :class:`ModelMissing` naming the known ones."""
        path = LEXICON_DIR / f"{name}.toml"
        if not path.is_file():
            known = ", ".join(sorted(p.stem for p in LEXICON_DIR.glob("*.toml")))
            raise ModelMissing(f"no lexicon for model {name!r} (lexicons exist for: {known}); add {path}")
        return cls.from_file(path)

    # -- spellings -----------------------------------------------------------------
    def number_words(self) -> dict[tuple[str, ...], tuple[str, int]]:
        """Each number-word spelling -> (kind, value)."""
        out: dict[tuple[str, ...], tuple[str, int]] = {}
        for kind, table in self.numbers.items():
            for value, spellings in table.items():
                for s in spellings:
                    out.setdefault(s, (kind, value))
        return out

    def spell_number(self, n: int) -> list[tuple[str, ...]]:
        """Word sequences for ``n`` (first spelling of each number word), or [] if unsayable."""
        first = {kind: {v: sp[0] for v, sp in table.items() if sp} for kind, table in self.numbers.items()}
        digit, mult = first.get("digit", {}), first.get("mult", {})
        teen, tens = first.get("teen", {}), first.get("tens", {})
        words: list[str] = []
        rest = n
        if rest >= 100:
            h, rest = divmod(rest, 100)
            if 100 not in mult or (h > 1 and h not in digit) or h > 9:
                return []
            words += ([] if h == 1 and not teen else list(digit[h])) + list(mult[100])
        if rest >= 10:
            if 10 <= rest <= 19 and rest in teen:
                return [tuple(words + list(teen[rest]))]
            t, rest = divmod(rest, 10)
            if t * 10 in tens:
                words += list(tens[t * 10])
            elif 10 in mult and (t == 1 or t in digit):
                words += ([] if t == 1 else list(digit[t])) + list(mult[10])
            else:
                return []
        if rest:
            if rest not in digit:
                return []
            words += list(digit[rest])
        return [tuple(words)] if words else []

    def token_spellings(self, vocab: Vocabulary) -> dict[str, list[tuple[str, ...]]]:
        """Spellings of the vocabulary's name tokens; a token the lexicon lacks is an error."""
        out = {}
        for name in vocab.names:
            if not self.tokens.get(name):
                raise ModelMissing(f"lexicon {self.path or self.model} has no spelling for token {name!r}")
            out[name] = list(self.tokens[name])
        return out

    def words(self, vocab: Vocabulary) -> set[str]:
        """Every model word the vocabulary's grammar uses (checked against the model)."""
        out = {w for spellings in self.token_spellings(vocab).values() for s in spellings for w in s}
        if vocab.numbers:
            out |= {w for s in self.number_words() for w in s}
        return out

    # -- parsing -------------------------------------------------------------------
    def parse(self, words: list[str] | tuple[str, ...], vocab: Vocabulary) -> Parsed:
        """Turn recognised model words into canonical tokens (see the module docstring)."""
        names = [(s, tok) for tok, spellings in self.token_spellings(vocab).items() for s in spellings]
        names.sort(key=lambda p: -len(p[0]))
        numwords = self.number_words() if vocab.numbers else {}
        tokens: list[str] = []
        unparsed: list[str] = []
        joined: list[str] = []  # running MOKOCHAKA call
        i = 0
        words = list(words)
        while i < len(words):
            name = next(((s, tok) for s, tok in names if tuple(words[i : i + len(s)]) == s), None)
            num = _parse_number(words, i, numwords) if numwords else None
            if num is not None and (name is None or num[1] - i >= len(name[0])):
                value, i = num
                if value in vocab.numbers:
                    tokens.append(str(value))
                else:
                    unparsed.append(str(value))
                continue
            if name is not None:
                spelling, tok = name
                i += len(spelling)
                if vocab.join_names:
                    joined.append(tok)
                    continue
                tokens.append(tok)
                continue
            unparsed.append(words[i])
            i += 1
        if joined:
            tokens.append("".join(joined))
        return Parsed(tuple(tokens), tuple(unparsed))


def _parse_number(words: list[str], i: int, numwords: dict) -> tuple[int, int] | None:
    """Parse one spoken number starting at ``words[i]`` -> (value, next index), or None.

    Shape: [digit] 100? then ([digit] 10 | tens | teen)? then digit? — the order numbers
    are spoken in, so a digit after a complete unit ends the number (``8 8``).
    """

    def word_at(j):
        for length in (3, 2, 1):
            key = tuple(words[j : j + length])
            if len(key) == length and key in numwords:
                return numwords[key], j + length
        return None, j

    start = i
    value = 0
    # hundreds
    (w, j) = word_at(i)
    if w and w[0] == "digit":
        (w2, j2) = word_at(j)
        if w2 == ("mult", 100):
            value += w[1] * 100
            i = j2
    elif w == ("mult", 100):
        value += 100
        i = j
    # tens
    (w, j) = word_at(i)
    teen = False
    if w and w[0] == "digit":
        (w2, j2) = word_at(j)
        if w2 == ("mult", 10):
            value += w[1] * 10
            i = j2
    elif w == ("mult", 10):
        value += 10
        i = j
    elif w and w[0] in ("tens", "teen"):
        value += w[1]
        teen = w[0] == "teen"
        i = j
    # units
    if not teen:
        (w, j) = word_at(i)
        if w and w[0] == "digit":
            value += w[1]
            i = j
    return (value, i) if i > start else None


def grammar_phrases(lexicon: Lexicon, vocab: Vocabulary) -> list[str]:
    """The runtime grammar: every token spelling, every number, and the pairs a call needs.

    Vosk keeps only word bigrams of these phrases, so every pair listed is a path noise
    can take: only the sequences the rules ask for are listed — a name twice (Repeat), a
    number twice (Repeat + Number), a name then a total (IKATAKO co-op only), MOKOCHAKA
    names run together — and only the number words the vocabulary's numbers use.
    """
    spellings = lexicon.token_spellings(vocab)
    phrases: list[str] = []
    for sp in spellings.values():
        phrases += [" ".join(s) for s in sp]
    numbers = {n: lexicon.spell_number(n) for n in vocab.numbers}
    numbers = {n: " ".join(sp[0]) for n, sp in numbers.items() if sp}
    used = {w for text in numbers.values() for w in text.split()}
    for spelling, (kind, value) in lexicon.number_words().items():
        first = lexicon.numbers[kind][value][0]
        if set(first) <= used:  # an alternative spelling of a number word in use
            phrases.append(" ".join(spelling))
    phrases += list(numbers.values())
    for sp in spellings.values():
        for s in sp:
            a = " ".join(s)
            if vocab.join_names:
                phrases += [f"{a} {' '.join(other[0])}" for other in spellings.values()]
            else:
                phrases.append(f"{a} {a}")
            if vocab.totals:
                phrases += [f"{a} {numbers[n]}" for n in sorted(numbers)[:10]]
    for n in sorted(numbers):
        if n <= 10:
            phrases.append(f"{numbers[n]} {numbers[n]}")
    return list(dict.fromkeys(p for p in phrases if p))

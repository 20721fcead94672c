"""Every call a table can make, as sounds, and the nearest call to what a speech model wrote.

Why sounds: an open-vocabulary model (Whisper) writes what it heard in any script — ``イカ``,
``いか``, ``烏賊``, ``8``, ``八``, ``はち``, ``eight``. Comparing spellings would need every
spelling; comparing *sounds* needs none: Japanese text is read into phonemes with
OpenJTalk (``pyopenjtalk.g2p``, which reads digits and kanji numerals as spoken), English
text into lower-case letters with digits spelled out. The heard sound is matched against
every call of the game (:func:`calls`; the words' spellings are the game's own declaration,
``Game.calls`` in ``rules/<name>.py``, carried by the :class:`Vocabulary`) by edit distance normalised by the longer string;
beyond :attr:`CallParams.max_distance` it is no call (talk at the table, not a shout).

A *call* is a token sequence the rules ask for (shared RULES.md): a name, a name twice
(Repeat), a number, a number twice, a name then the running total (IKATAKO co-op, up to
154), MOKOCHAKA names run together (one token).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from audio.lexicon import Vocabulary, Word
from session.params import check_ranges


@dataclass(frozen=True)
class CallParams:
    """Thresholds of the match between heard text and a call (measured in
    ``benchmarks/bench_hearing.py``)."""

    #: normalised edit distance beyond which the text is no call. Lower: fewer false alarms on
    #: talk (real たいこ is 0.20 from タコ), more calls lost to a mis-heard sound.
    max_distance: float = 0.25

    def __post_init__(self):
        check_ranges(self, fraction=("max_distance",))


@dataclass(frozen=True)
class Match:
    tokens: tuple[str, ...]
    distance: float
    sound: str  # the heard text as sounds (for the record)


_EN_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen " \
           "sixteen seventeen eighteen nineteen".split()
_EN_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def english_number(n: int) -> str:
    if n < 20:
        return _EN_ONES[n]
    if n < 100:
        t, u = divmod(n, 10)
        return _EN_TENS[t] + (f" {_EN_ONES[u]}" if u else "")
    h, rest = divmod(n, 100)
    return f"{_EN_ONES[h]} hundred" + (f" {english_number(rest)}" if rest else "")


@lru_cache(maxsize=4096)
def _g2p(text: str) -> tuple[str, ...]:
    import pyopenjtalk

    return tuple(p.lower() for p in pyopenjtalk.g2p(text).split() if p not in ("pau", "sil"))


# one character per phoneme, so that an edit is one phoneme
_PHONES: dict[str, str] = {}


def _chars(phones: tuple[str, ...]) -> str:
    out = []
    for p in phones:
        if p not in _PHONES:
            _PHONES[p] = chr(0xE000 + len(_PHONES))
        out.append(_PHONES[p])
    return "".join(out)


def sound(text: str, lang: str) -> str:
    """``text`` as a comparable sound string (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text)
    if lang == "ja":
        text = re.sub(r"[\s、。，．,.!?！？「」『』・~〜ー-]+$", "", text.strip())
        return _chars(_g2p(text)) if text else ""
    words = re.findall(r"[a-z]+|\d+", text.lower())
    spelled = [english_number(int(w)) if w.isdigit() and int(w) < 1000 else w for w in words]
    return "".join(" ".join(spelled).split())  # letters only: "twenty eight" = "twentyeight"


def _say(vocab: Vocabulary, tokens: tuple[str, ...], lang: str) -> str:
    parts = []
    for t in tokens:
        if t.isdigit():
            parts.append(t if lang == "ja" else english_number(int(t)))
        else:
            parts.append("".join(w.said(lang) for w in name_words(vocab, t)))
    return ("、" if lang == "ja" else " ").join(parts)


def says(vocab: Vocabulary, tokens: tuple[str, ...], lang: str) -> list[str]:
    """Every way of saying a call: :func:`_say`, and in English with the other English names
    of the words (:attr:`Word.en_also`: the creatures' English names) in place of the Japanese ones."""
    out = [_say(vocab, tokens, lang)]
    also = {t: other_names(vocab, t) for t in tokens if not t.isdigit()}
    if lang == "en" and any(also.values()):
        words = [[english_number(int(t))] if t.isdigit() else
                 [_say(vocab, (t,), lang), *also[t]] for t in tokens]
        combos = [[]]
        for w in words:
            combos = [c + [x] for c in combos for x in w]
        out += [" ".join(c) for c in combos]
    return list(dict.fromkeys(out))


def other_names(vocab: Vocabulary, token: str) -> tuple[str, ...]:
    try:
        return vocab.word(token).en_also
    except KeyError:  # a joined call has no other names
        return ()


def name_words(vocab: Vocabulary, token: str) -> list[Word]:
    """The word of a name token, or the words a joined MOKOCHAKA call runs together, in order."""
    try:
        return [vocab.word(token)]
    except KeyError:
        pass
    if not vocab.join_names:
        raise KeyError(token)
    out, rest = [], token
    while rest:
        part = next((w for w in vocab.words if rest.startswith(w.token)), None)
        if part is None:
            raise KeyError(token)
        out.append(part)
        rest = rest[len(part.token):]
    return out


def calls(vocab: Vocabulary) -> list[tuple[str, ...]]:
    """Every call of the vocabulary, as token sequences (order fixed: ties resolve the same way)."""
    out: list[tuple[str, ...]] = []
    if vocab.join_names:
        out += [(a,) for a in vocab.names] + [(a + b,) for a in vocab.names for b in vocab.names]
    else:
        out += [(a,) for a in vocab.names] + [(a, a) for a in vocab.names]
    nums = [str(n) for n in vocab.numbers]
    out += [(n,) for n in nums] + [(n, n) for n in nums if int(n) <= 10]
    if vocab.totals:
        out += [(a, n) for a in vocab.names for n in nums]
    return list(dict.fromkeys(out))


def enrollment_calls(vocab: Vocabulary) -> list[tuple[str, ...]]:
    """The calls a player records at calibration (:mod:`calibration.enrollment`): every name
    of the game and every number it calls, each alone, in the vocabulary's order.

    Why only these: a repeat (``ika ika``), a name with a running total (co-op) and MOKOCHAKA
    names run together are made of these words; enrolling every combination would take a
    table of four tens of minutes (IKATAKO co-op has 154 totals). What is enrolled is what the
    voices can settle; the rest goes to the speech model as it does without enrollment.
    Numbers above 10 are left to the speech model too (co-op totals; versus calls stop at 10)."""
    out = [(n,) for n in vocab.names] + [(str(n),) for n in vocab.numbers if n <= 10]
    return list(dict.fromkeys(out))


def say_call(vocab: Vocabulary, tokens: tuple[str, ...], lang: str) -> str:
    """How a call is written for a player to say it (``イカ``, ``8``, ``last chance``)."""
    return _say(vocab, tuple(tokens), lang)


class CallMatcher:
    """The nearest call of one game to a heard text, in one language."""

    def __init__(self, vocab: Vocabulary, lang: str, params: CallParams | None = None):
        self.vocab, self.lang, self.p = vocab, lang, params or CallParams()
        self.calls, self.sounds = [], []
        for c in calls(vocab):
            for said in says(vocab, c, lang):
                self.calls.append(c)
                self.sounds.append(sound(said, lang))

    def prompt(self) -> str:
        """The game's words for the model's prompt: the names and the small numbers."""
        names = [_say(self.vocab, (n,), self.lang) for n in self.vocab.names]
        nums = [str(n) for n in self.vocab.numbers if n <= 10]
        return ("、" if self.lang == "ja" else ", ").join(names + nums) + ("。" if self.lang == "ja" else ".")

    def match(self, text: str) -> Match | None:
        """The nearest call within ``max_distance``, else None (``text`` is no call)."""
        from rapidfuzz.distance import Levenshtein
        from rapidfuzz.process import extractOne

        heard = sound(text, self.lang)
        if not heard:
            return None
        best = extractOne(heard, self.sounds, scorer=Levenshtein.normalized_distance)
        _, dist, index = best
        dist = round(float(dist), 3)
        if dist > self.p.max_distance:
            return Match((), dist, heard)
        return Match(self.calls[index], dist, heard)

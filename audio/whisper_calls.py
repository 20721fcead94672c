"""Closed-set scoring: how likely Whisper finds each call of the game, against free speech.

Why: the lexicon of a game is tiny (a few names, numbers up to 154), so instead of reading
what the model wrote and looking for the nearest call (which fails when the model writes
"phone" for a noisy "four", or recites its prompt), every call is *scored* by the decoder:
the log-probability of the call's tokens after the utterance (teacher forcing), summed over
its spellings' tokens and closed by an end (end of text or a punctuation mark). The best
call is compared with the model's own free transcription of the same audio (a *filler*
model, as in keyword spotting): a call whose score is far below what the model would freely
write is no call (talk at the table, a word that is no game word).

The search walks a trie of the token sequences of every spelling (digits, words, kana,
kanji; a Repeat with and without a separator; a name and its total), one decoder pass per
depth for all the prefixes kept (``beam``) whose distribution the earlier passes' greedy
look-ahead did not already give, batched in one CTranslate2 call: a few decoder
steps per utterance, not one per call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from audio.calls import NAMES_EN, NAMES_EN_ALSO, NAMES_JA, _split_joined, calls, english_number
from audio.lexicon import Vocabulary

JA_DIGITS = "〇一二三四五六七八九"
#: how Japanese speakers read the small numbers (both readings where two are common)
JA_KANA = {1: ("いち",), 2: ("に",), 3: ("さん",), 4: ("よん", "し"), 5: ("ご",), 6: ("ろく",),
           7: ("なな", "しち"), 8: ("はち",), 9: ("きゅう", "く"), 10: ("じゅう",)}


def kanji_number(n: int) -> str:
    """``n`` (< 1000) in kanji numerals as written in words: 28 -> 二十八, 154 -> 百五十四."""
    out = ""
    h, rest = divmod(n, 100)
    t, u = divmod(rest, 10)
    if h:
        out += ("" if h == 1 else JA_DIGITS[h]) + "百"
    if t:
        out += ("" if t == 1 else JA_DIGITS[t]) + "十"
    if u or not out:
        out += JA_DIGITS[u]
    return out


def _number_spellings(n: int, lang: str) -> list[str]:
    if lang == "ja":
        out = [str(n), kanji_number(n)]
        for kana in JA_KANA.get(n, ()):
            out += [kana, "".join(chr(ord(c) + 0x60) if "ぁ" <= c <= "ゖ" else c for c in kana)]
        return out
    words = english_number(n)
    return [str(n), words, words.capitalize(), words.replace(" ", "-"), words.replace(" ", "-").capitalize()] \
        if " " in words else [str(n), words, words.capitalize()]


def _name_spellings(token: str, lang: str) -> list[str]:
    if lang == "ja":
        kata = NAMES_JA.get(token) or "".join(NAMES_JA[p] for p in _split_joined(token))
        hira = "".join(chr(ord(c) - 0x60) if "ァ" <= c <= "ヶ" else c for c in kata)
        return list(dict.fromkeys([kata, hira]))
    out = []
    for name in (NAMES_EN.get(token) or "".join(NAMES_EN[p] for p in _split_joined(token)),
                 *NAMES_EN_ALSO.get(token, ())):
        out += [name, name.capitalize(), name.title(), name.upper()]
    return list(dict.fromkeys(out))


def spellings(call: tuple[str, ...], lang: str) -> list[str]:
    """The ways Whisper may write one call (a token sequence of :func:`audio.calls.calls`)."""
    parts = [(_number_spellings(int(t), lang) if t.isdigit() else _name_spellings(t, lang)) for t in call]
    seps = ("、", "", " ") if lang == "ja" else (", ", " ")
    out = list(parts[0])
    for more in parts[1:]:
        out = [a + s + b for a in out for s in seps for b in more]
    if lang != "ja":
        out = [" " + s for s in out]
    return list(dict.fromkeys(out))


@dataclass(frozen=True)
class Scored:
    tokens: tuple[str, ...]  # the call (canonical tokens), () when none was scored
    score: float  # total log-probability of its best spelling, end included
    spelling: str


class CallTrie:
    """The token sequences of every spelling of every call of one vocabulary and language."""

    def __init__(self, vocab: Vocabulary | None, lang: str, encode, end_ids: list[int], only=None):
        self.end_ids = list(end_ids)
        self.children: dict[tuple[int, ...], set[int]] = {}
        self.leaves: dict[tuple[int, ...], tuple[tuple[str, ...], str]] = {}
        for call in (only if only is not None else calls(vocab)):
            for text in spellings(call, lang):
                ids = tuple(encode(text))
                if not ids or ids in self.leaves:
                    continue
                self.leaves[ids] = (call, text)
                for d in range(len(ids)):
                    self.children.setdefault(ids[:d], set()).add(ids[d])
        self.depth = max(len(k) for k in self.leaves)


def _log_softmax(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, np.float64).ravel()
    m = float(v.max())
    return v - m - math.log(float(np.exp(v - m).sum()))


def search(model, encoded, prompt: list[int], trie: CallTrie, beam: int, prune: float = math.inf,
           lookahead: int = 0) -> tuple[Scored, int, float]:
    """The best call by teacher-forced log-probability (see the module docstring), the number
    of decoder passes (``generate`` calls) it took, and the model's no-speech probability (from
    the first pass). ``encoded``: one utterance's encoder output. At most ``beam`` prefixes are
    kept per step, and none more than ``prune`` below the best of them. Ties resolve by token
    ids (deterministic).

    ``lookahead``: each pass also decodes that many tokens greedily after every prefix it
    forces, and keeps the distribution after each of them (the same numbers a forced pass
    would give: the decoder is causal). A clear word follows the model's own path — " 2" then
    an end — so one pass scores it where a pass per token was needed: a call costs ~20 ms of
    fixed work, a look-ahead token ~5 ms. The result does not depend on ``lookahead``."""
    import ctranslate2

    best = Scored((), -math.inf, "")
    frontier: list[tuple[float, tuple[int, ...]]] = [(0.0, ())]
    arr = None
    known: dict[tuple[int, ...], np.ndarray] = {}  # prefix -> log-distribution of the next token
    steps, no_speech = 0, 0.0
    for _ in range(trie.depth + 1):
        if not frontier:
            break
        need = [p for _, p in frontier if p not in known]
        for extra in (1 + lookahead, 3 + lookahead):  # CTranslate2 may stop short: then once more, longer
            if not need:
                break
            if len(need) == 1:
                feats = encoded
            else:
                arr = np.asarray(encoded) if arr is None else arr
                feats = ctranslate2.StorageView.from_array(np.ascontiguousarray(np.repeat(arr, len(need), axis=0)))
            prompts = [prompt + list(p) for p in need]
            # the tokens after the prompt's <|notimestamps|> are forced (a prefix) and their
            # logits are returned too: row ``len(prefix) + j`` is the distribution after the
            # prefix and the first ``j`` tokens the model then chose itself
            res = model.generate(feats, prompts, beam_size=1, max_length=len(prompts[0]) + extra,
                                 return_logits_vocab=True, suppress_blank=False, return_no_speech_prob=steps == 0)
            if steps == 0:
                no_speech = float(res[0].no_speech_prob)
            steps += 1
            for prefix, r in zip(need, res):
                rows, seq = r.logits[0], tuple(r.sequences_ids[0])
                chosen = seq[len(prefix):] if seq[:len(prefix)] == prefix else ()
                for j in range(min(len(rows) - len(prefix), len(chosen) + 1)):
                    known.setdefault(prefix + chosen[:j], _log_softmax(rows[len(prefix) + j]))
            need = [p for p in need if p not in known]
        grown: list[tuple[float, tuple[int, ...]]] = []
        for total, prefix in frontier:
            logp = known.get(prefix)
            if logp is None:  # CTranslate2 stopped inside the forced tokens: that prefix is not scored
                continue
            if prefix in trie.leaves:
                end = float(np.logaddexp.reduce(logp[trie.end_ids]))
                if total + end > best.score:
                    call, text = trie.leaves[prefix]
                    best = Scored(call, total + end, text)
            for t in sorted(trie.children.get(prefix, ())):
                grown.append((total + float(logp[t]), prefix + (t,)))
        grown.sort(key=lambda g: (-g[0], g[1]))
        frontier = [g for g in grown[:beam] if g[0] > best.score and g[0] >= grown[0][0] - prune]
    return best, steps, no_speech


def score_all(model, encoded, prompt: list[int], seqs: list[tuple[int, ...]], end_ids: list[int]
              ) -> list[float] | None:
    """The log-probability of each token sequence then an end, after ``prompt``: all in one
    batched pass (every token forced; the logits of every position come back), where a
    search takes a pass per depth. A row costs ~7 ms, a pass ~20 ms more. None when
    CTranslate2 returned too few rows for a sequence."""
    import ctranslate2

    if not seqs:
        return []
    feats = encoded if len(seqs) == 1 else ctranslate2.StorageView.from_array(
        np.ascontiguousarray(np.repeat(np.asarray(encoded), len(seqs), axis=0)))
    longest = max(len(s) for s in seqs)
    res = model.generate(feats, [prompt + list(s) for s in seqs], beam_size=1, max_length=len(prompt) + longest + 3,
                         return_logits_vocab=True, suppress_blank=False)
    out = []
    for ids, r in zip(seqs, res):
        rows = r.logits[0]
        if len(rows) <= len(ids) or tuple(r.sequences_ids[0][:len(ids)]) != tuple(ids):
            return None  # CTranslate2 stopped inside the forced tokens (seen on long ones): the caller searches
        total = sum(float(_log_softmax(rows[k])[t]) for k, t in enumerate(ids))
        out.append(total + float(np.logaddexp.reduce(_log_softmax(rows[len(ids)])[end_ids])))
    return out

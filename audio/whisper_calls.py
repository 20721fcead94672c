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

from audio.calls import calls, english_number, name_words, other_names
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


def _name_spellings(vocab: Vocabulary, token: str, lang: str) -> list[str]:
    said = "".join(w.said(lang) for w in name_words(vocab, token))
    if lang == "ja":
        hira = "".join(chr(ord(c) - 0x60) if "ァ" <= c <= "ヶ" else c for c in said)
        return list(dict.fromkeys([said, hira]))
    out = []
    for name in (said, *other_names(vocab, token)):
        out += [name, name.capitalize(), name.title(), name.upper()]
    return list(dict.fromkeys(out))


def spellings(vocab: Vocabulary | None, call: tuple[str, ...], lang: str) -> list[str]:
    """The ways Whisper may write one call (a token sequence of :func:`audio.calls.calls`;
    ``vocab`` spells its names, None for a call of numbers only)."""
    parts = [(_number_spellings(int(t), lang) if t.isdigit() else _name_spellings(vocab, t, lang)) for t in call]
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
            for text in spellings(vocab, call, lang):
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
    return search_many(model, [encoded], prompt, [trie], beam, prune, lookahead)[0]


def generate_features(parts: list[tuple[object, int]]):
    """The encoder outputs of a ``generate`` call: ``n`` rows of each utterance's output, in
    order (one utterance's output as it is when it is the only row)."""
    import ctranslate2

    if len(parts) == 1 and parts[0][1] == 1:
        return parts[0][0]
    rows = [np.repeat(np.asarray(enc), n, axis=0) for enc, n in parts]
    return ctranslate2.StorageView.from_array(np.ascontiguousarray(rows[0] if len(rows) == 1 else np.concatenate(rows)))


def search_many(model, encoded: list, prompt: list[int], tries: list[CallTrie], beam: int, prune: float = math.inf,
                lookahead: int = 0) -> list[tuple[Scored, int, float]]:
    """:func:`search` for several utterances at once (``encoded[i]`` searched in ``tries[i]``),
    in lock step: each decoder pass holds the prefixes every utterance needs at that depth, one
    ``generate`` call for all of them (a call costs ~20 ms of fixed work, a row ~7-13 ms). Each
    utterance gets what :func:`search` gives it alone — the same prefixes, passes and scores
    (rows of one depth have one length, so the call's ``max_length`` is what each would have
    had alone); the pass count is the calls that held a row of that utterance."""
    n = len(encoded)
    best = [Scored((), -math.inf, "") for _ in range(n)]
    frontier: list[list[tuple[float, tuple[int, ...]]]] = [[(0.0, ())] for _ in range(n)]
    known: list[dict[tuple[int, ...], np.ndarray]] = [{} for _ in range(n)]  # prefix -> log-distribution
    steps, no_speech = [0] * n, [0.0] * n
    for depth in range(max(t.depth for t in tries) + 1):
        live = [i for i in range(n) if frontier[i] and depth <= tries[i].depth]
        if not live:
            break
        need = {i: [p for _, p in frontier[i] if p not in known[i]] for i in live}
        for extra in (1 + lookahead, 3 + lookahead):  # CTranslate2 may stop short: then once more, longer
            rows = [(i, p) for i in live for p in need[i]]
            if not rows:
                break
            asked = [i for i in live if need[i]]
            first = {i for i in asked if steps[i] == 0}
            prompts = [prompt + list(p) for _, p in rows]
            # the tokens after the prompt's <|notimestamps|> are forced (a prefix) and their
            # logits are returned too: row ``len(prefix) + j`` is the distribution after the
            # prefix and the first ``j`` tokens the model then chose itself. Every row has the
            # same length (one depth), so ``max_length`` is each row's own.
            res = model.generate(generate_features([(encoded[i], len(need[i])) for i in asked]), prompts, beam_size=1,
                                 max_length=len(prompts[0]) + extra, return_logits_vocab=True, suppress_blank=False,
                                 return_no_speech_prob=bool(first))
            for (i, prefix), r in zip(rows, res):
                if i in first:  # the utterance's first row of its first pass, as alone
                    no_speech[i] = float(r.no_speech_prob)
                    first.discard(i)
                logits, seq = r.logits[0], tuple(r.sequences_ids[0])
                chosen = seq[len(prefix):] if seq[:len(prefix)] == prefix else ()
                for j in range(min(len(logits) - len(prefix), len(chosen) + 1)):
                    key = prefix + chosen[:j]
                    if key not in known[i]:
                        known[i][key] = _log_softmax(logits[len(prefix) + j])
            for i in asked:
                steps[i] += 1
                need[i] = [p for p in need[i] if p not in known[i]]
        for i in live:
            grown: list[tuple[float, tuple[int, ...]]] = []
            trie = tries[i]
            for total, prefix in frontier[i]:
                logp = known[i].get(prefix)
                if logp is None:  # CTranslate2 stopped inside the forced tokens: that prefix is not scored
                    continue
                if prefix in trie.leaves:
                    end = float(np.logaddexp.reduce(logp[trie.end_ids]))
                    if total + end > best[i].score:
                        call, text = trie.leaves[prefix]
                        best[i] = Scored(call, total + end, text)
                for t in sorted(trie.children.get(prefix, ())):
                    grown.append((total + float(logp[t]), prefix + (t,)))
            grown.sort(key=lambda g: (-g[0], g[1]))
            frontier[i] = [g for g in grown[:beam] if g[0] > best[i].score and g[0] >= grown[0][0] - prune]
    return [(best[i], steps[i], no_speech[i]) for i in range(n)]


def score_all(model, encoded, prompt: list[int], seqs: list[tuple[int, ...]], end_ids: list[int]
              ) -> list[float] | None:
    """The log-probability of each token sequence then an end, after ``prompt``: all in one
    batched pass (every token forced; the logits of every position come back), where a
    search takes a pass per depth. A row costs ~7 ms, a pass ~20 ms more. None when
    CTranslate2 returned too few rows for a sequence."""
    return score_all_many(model, [(encoded, seqs)], prompt, end_ids)[0]


def score_all_many(model, items: list[tuple[object, list[tuple[int, ...]]]], prompt: list[int], end_ids: list[int],
                   nexts: list | None = None) -> list[list[float] | None]:
    """:func:`score_all` for several utterances (``(encoded, seqs)`` each): one ``generate``
    call for all the utterances whose longest sequence has the same length (the call's
    ``max_length`` is then each one's own, so each gets what :func:`score_all` gives it).
    ``nexts``: a list, filled with one list per utterance of the log-distribution after each
    sequence (what the model expects *after* the call: :func:`goes_on`; no extra pass)."""
    out: list[list[float] | None] = [[] for _ in items]
    if nexts is not None:
        nexts[:] = [[] for _ in items]
    groups: dict[int, list[int]] = {}
    for k, (_, seqs) in enumerate(items):
        if seqs:
            groups.setdefault(max(len(s) for s in seqs), []).append(k)
    for longest, ks in sorted(groups.items()):
        rows = [(k, ids) for k in ks for ids in items[k][1]]
        res = model.generate(generate_features([(items[k][0], len(items[k][1])) for k in ks]),
                             [prompt + list(ids) for _, ids in rows], beam_size=1,
                             max_length=len(prompt) + longest + 3, return_logits_vocab=True, suppress_blank=False)
        for (k, ids), r in zip(rows, res):
            if out[k] is None:
                continue
            logits = r.logits[0]
            if len(logits) <= len(ids) or tuple(r.sequences_ids[0][:len(ids)]) != tuple(ids):
                out[k] = None  # CTranslate2 stopped inside the forced tokens (seen on long ones): the caller searches
                continue
            total = sum(float(_log_softmax(logits[j])[t]) for j, t in enumerate(ids))
            after = _log_softmax(logits[len(ids)])
            out[k].append(total + float(np.logaddexp.reduce(after[end_ids])))
            if nexts is not None:
                nexts[k].append(after)
    return out


def word_tokens(tok, size: int, text_below: int) -> np.ndarray:
    """Which of the ``size`` token ids are *word* tokens: text holding a letter, kana or kanji
    (not digits, punctuation, spaces; ids from ``text_below`` on are the special tokens).
    Cached per tokenizer and size (~0.5 s once per process)."""
    key = (id(tok), size, text_below)
    if key not in _WORDS:
        _WORDS[key] = np.array([t < text_below and any(c.isalpha() for c in tok.decode([t])) for t in range(size)])
    return _WORDS[key]


_WORDS: dict = {}


def goes_on(after: np.ndarray, words: np.ndarray, trie: CallTrie, prefix: tuple[int, ...]) -> float:
    """How much more likely the model finds that the speech *goes on* as a word after the call
    ``prefix`` than that it ends there: log P(a word token) - log P(an end), from ``after``,
    the log-distribution after the call's tokens. The word tokens that begin a spelling of a
    call or continue ``prefix`` into a longer one (a Repeat, "1" -> "12") are not counted:
    those are calls. Why: the start of a word that is no call ("一夫多妻", "午前", "睡眠")
    scores as a call ("1", "5", "3") and the search stops there, but the model, asked what
    comes next, expects the rest of the word ("分", "前", "名")."""
    mask = words.copy()
    for t in trie.children.get((), ()) | trie.children.get(tuple(prefix), set()):
        if t < len(mask):
            mask[t] = False
    return float(np.logaddexp.reduce(after[mask]) - np.logaddexp.reduce(after[trie.end_ids]))

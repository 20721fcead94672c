"""Several utterances decoded at once (``decode_many``, ``search_many``, ``score_all_many``; the
listener's ``hold_s``) hear exactly what each one hears alone: pure speed."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from audio import whisper_calls as wc

ROOT = Path(__file__).resolve().parents[2]
SPEECH = next((p / "shared" / "data" / "speech" for p in ROOT.parents if (p / "shared" / "data" / "speech").is_dir()),
              ROOT.parent / "shared" / "data" / "speech")


def _voice(seed: int, n: int = 16000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(n) / 16000
    return np.sin(2 * np.pi * (180 + 40 * seed) * t) * np.hanning(n) * 0.3 + rng.standard_normal(n) * 0.01


def _clips() -> list[np.ndarray]:
    """Real digits (every 80th clip) when the shared data is there, synthetic sounds and silence."""
    out = [_voice(s) for s in range(3)] + [np.random.default_rng(9).standard_normal(16000) * 1e-4]
    if SPEECH.is_dir():
        from audio.capture import read_all

        rows = [r for r in csv.DictReader(open(SPEECH / "labels.csv", encoding="utf-8")) if r["kind"] == "keyword"]
        for r in rows[::80]:  # (3 speakers; every 40th made the file 110 s of a 2-GHz AVX2 core)
            x, rate = read_all(SPEECH / r["file"])
            assert rate == 16000
            out.append(np.concatenate([np.zeros(9600), x.mean(axis=1), np.zeros(8000)]))
        # the same digits in white noise 10 dB below them: the second looks (``second_views``) run
        rng = np.random.default_rng(3)
        for x in out[4:]:
            speech = np.sqrt(np.mean(x[9600:-8000] ** 2))
            out.append(x + rng.standard_normal(len(x)) * speech * 10 ** (-10 / 20))
    return out


class _Counting:
    """The model, counting its ``generate`` calls."""

    def __init__(self, model):
        self.model, self.calls = model, 0

    def generate(self, *args, **kwargs):
        self.calls += 1
        return self.model.generate(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.model, name)


def _same(a, b):
    assert (a.text, a.parsed, a.conf) == (b.text, b.parsed, b.conf)
    assert a.extra.keys() == b.extra.keys()
    for k, v in a.extra.items():
        assert b.extra[k] == (pytest.approx(v, abs=2e-3) if isinstance(v, float) else v), k


def test_decode_many_hears_each_utterance_as_decode_alone_in_fewer_calls(english):
    clips = _clips()
    english.decode(clips[0], 16000)  # the priors of the likely calls cached before counting
    counting = english.model = _Counting(english.model)
    try:
        alone = [english.decode(x, 16000) for x in clips]
        calls_alone = counting.calls
        together = english.decode_many([(x, 16000) for x in clips])
        calls_together = counting.calls - calls_alone
    finally:
        english.model = counting.model
    assert len(together) == len(clips)
    for a, b in zip(alone, together):
        _same(a, b)
    assert calls_together < calls_alone, (calls_together, calls_alone)
    if SPEECH.is_dir():  # some noisy digit was looked at again, in the batch as alone
        assert any("view2" in h.extra for h in together)
    assert english.decode_many([]) == []


def test_decode_many_reads_at_most_batch_utterances_together_and_hears_the_same(english):
    """More utterances than ``WhisperParams.batch_utterances``: read in chunks of that many, in
    order (a cap on the rows, hence the memory, of one call), each heard as in one batch."""
    from dataclasses import replace

    from audio.whisper import WhisperParams

    clips = (_clips() * 2)[:7]  # (4 sounds without the shared data: some twice)
    items = [(x, 16000) for x in clips]
    english.decode(clips[0], 16000)  # the priors cached before counting
    whole = english.decode_many(items)
    params, chunks, chunk = english.p, [], english._decode_chunk
    english.p = replace(params, batch_utterances=3)
    english._decode_chunk = lambda part: chunks.append(len(part)) or chunk(part)
    try:
        capped = english.decode_many(items)
    finally:
        english.p = params
        del english._decode_chunk
    assert chunks == [3, 3, 1]
    for a, b in zip(whole, capped, strict=True):
        _same(a, b)
    with pytest.raises(ValueError, match="batch_utterances"):
        WhisperParams(batch_utterances=0)


def test_search_many_gives_each_utterance_its_own_search(english):
    encs = [english.encode(_voice(s), 16000) for s in range(3)]
    tries = [english.trie, english.call_trie(("4",)), english.trie]
    prompts = english.prompt_ids
    many = wc.search_many(english.model, encs, prompts, tries, 3, 2.0)
    for enc, trie, (best, steps, no_speech) in zip(encs, tries, many):
        one = wc.search(english.model, enc, prompts, trie, 3, 2.0)
        assert best.tokens == one[0].tokens and best.spelling == one[0].spelling
        assert best.score == pytest.approx(one[0].score, abs=1e-3)
        assert steps == one[1] and no_speech == pytest.approx(one[2], abs=1e-3)


def test_score_all_many_scores_each_utterance_as_score_all(english):
    encs = [english.encode(_voice(s), 16000) for s in range(3)]
    calls = [("4",), ("28",), ("4",)]  # two lengths of spellings: two calls of generate
    items = [(e, list(english.call_trie(c).leaves)) for e, c in zip(encs, calls)]
    ends = english.trie.end_ids
    many = wc.score_all_many(english.model, items, english._plain, ends)
    for (enc, seqs), got in zip(items, many):
        want = wc.score_all(english.model, enc, english._plain, seqs, ends)
        assert (got is None) == (want is None)
        if want is not None:
            assert got == pytest.approx(want, abs=1e-3)
    assert wc.score_all_many(english.model, [(encs[0], [])], english._plain, ends) == [[]]


class _Recording:
    """A recognizer that records how many utterances each call decodes."""

    def __init__(self, inner):
        self.inner, self.batches = inner, []
        self.pre_roll_s, self.post_roll_s = inner.pre_roll_s, inner.post_roll_s
        self.enrolled_first, self.engine = inner.enrolled_first, inner.engine
        self.decode_many = self._many

    def decode(self, samples, rate):
        self.batches.append(1)
        return self.inner.decode(samples, rate)

    def _many(self, items):
        self.batches.append(len(items))
        return self.inner.decode_many(items)


def test_a_held_listener_emits_the_same_events_and_decodes_utterances_together():
    """Four seats answering within 0.6 s, then one more: held 1 s (offline replay) the words are
    read several at once, from the very samples heard unheld (what had arrived when each was
    ready), so every event is the same, byte for byte."""
    from audio import synth
    from rules import vocabulary
    from audio.listen import ListenParams, Listener, listen
    from audio.whisper import WhisperRecognizer
    from session.errors import ModelMissing

    try:
        rec = WhisperRecognizer(vocabulary("ikatako", "versus"), "ja")
    except ModelMissing as exc:
        pytest.skip(str(exc))
    shouts = [synth.Shout(k, synth.say(w, "ja", k), at) for k, (w, at) in
              enumerate([("イカ", 0.5), ("タコ", 0.7), ("イカタコ", 0.9), ("ゴ", 1.1)])]
    shouts.append(synth.Shout(1, synth.say("サン", "ja", 1), 3.0))
    x = synth.mix_table(4, 4.5, shouts, snr_db=40, seed=4)
    from audio.capture import Block

    def heard(hold_s, recognizer):
        lis = Listener(["aki", "ben", "chie", "dai"], 4, synth.RATE, recognizer,
                       params=ListenParams(hold_s=hold_s, share_s=None))  # (unheld: read at release)
        events, late, mark, when = [], [], float("-inf"), []
        for k in range(0, len(x), 320):
            out = lis.update(Block(k, x[k:k + 320], synth.RATE, 0.0))
            late += [e for e in out if e["t"] < mark]  # an event before the promised watermark
            when += [k] * len(out)
            events += out
            mark = lis.watermark()
        events += lis.close_window()
        return events, late, when

    wrapped = _Recording(rec)
    alone, late, when_alone = heard(0.0, wrapped)
    batches_alone, wrapped.batches = wrapped.batches, []
    held, late_held, when_held = heard(1.0, wrapped)
    assert sum(e["type"] == "shout" for e in alone) >= 4
    assert held == alone and late == late_held == []
    assert max(batches_alone) <= 2 < max(wrapped.batches), (batches_alone, wrapped.batches)
    assert sum(wrapped.batches) == sum(batches_alone)
    # later, not different: no event comes sooner, and some come later
    assert when_held != when_alone and all(h >= a for h, a in zip(when_held, when_alone))
    # an engine that reads one utterance at a time (Vosk) is never held
    single = _Recording(rec)
    del single.decode_many
    one, _, when_one = heard(1.0, single)
    assert one == alone and when_one == when_alone and set(single.batches) == {1}


def test_the_priors_a_judgement_needs_are_scored_together_and_each_is_what_it_is_alone(english, monkeypatch):
    from audio import whisper

    calls = [("4",), ("28",), ("7",), ("4",)]
    monkeypatch.setattr(whisper, "_PRIORS", {})  # nothing cached: every prior is scored here
    counting = _Counting(english.model)
    monkeypatch.setattr(english, "model", counting)
    together = english.priors(calls)
    assert counting.calls == 2  # one call per length of spellings (1-2 and 3-4 tokens), not one per call
    assert together[0] == together[3]
    monkeypatch.setattr(whisper, "_PRIORS", {})
    alone = [english.prior(c) for c in calls]
    assert together == alone  # bit for bit: a row's scores do not depend on the other rows of its call
    assert counting.calls == 2 + 3


def test_a_live_listener_reads_words_said_over_each_other_together_and_emits_the_same_events():
    """Live (``hold_s`` 0): a word released while another seat is still saying its own waits
    for it (``ListenParams.share_s``) and the two are read in one ``decode_many``: every event
    the same, byte for byte, none before the promised watermark, in fewer reads; a word alone
    is not held, and none waits more than ``share_s`` of audio."""
    from audio import synth
    from rules import vocabulary
    from audio.capture import Block
    from audio.listen import ListenParams, Listener
    from audio.whisper import WhisperRecognizer
    from session.errors import ModelMissing

    try:
        rec = WhisperRecognizer(vocabulary("ikatako", "versus"), "ja")
    except ModelMissing as exc:
        pytest.skip(str(exc))
    # three seats answering over each other (each starts before the one before has ended), then one alone
    shouts = [synth.Shout(k, synth.say(w, "ja", k), at) for k, (w, at) in
              enumerate([("イカ", 0.5), ("タコ", 0.6), ("ゴ", 0.7)])]
    shouts.append(synth.Shout(3, synth.say("サン", "ja", 3), 3.0))
    x = synth.mix_table(4, 4.5, shouts, snr_db=40, seed=5)

    def heard(share_s):
        wrapped = _Recording(rec)
        lis = Listener(["aki", "ben", "chie", "dai"], 4, synth.RATE, wrapped,
                       params=ListenParams(hold_s=0.0, share_s=share_s))
        events, late, mark, when = [], [], float("-inf"), []
        for k in range(0, len(x), 320):
            out = lis.update(Block(k, x[k:k + 320], synth.RATE, 0.0))
            late += [e for e in out if e["t"] < mark]
            when += [(k + 320) / synth.RATE] * len(out)
            events += out
            mark = lis.watermark()
        events += lis.close_window()
        return events, late, when, wrapped.batches

    alone, late, when_alone, reads_alone = heard(None)
    shared, late_shared, when_shared, reads_shared = heard(0.2)
    assert sum(e["type"] == "shout" for e in alone) >= 3
    assert shared == alone and late == late_shared == []
    assert len(reads_shared) < len(reads_alone), (reads_alone, reads_shared)
    assert sum(reads_shared) == sum(reads_alone)
    delays = [b - a for a, b in zip(when_alone, when_shared)]
    assert all(0 <= d <= 0.2 + 0.02 for d in delays) and any(d > 0 for d in delays)
    assert when_shared[-1] == when_alone[-1]  # the word said alone: not held
    with pytest.raises(ValueError, match="share_s"):
        ListenParams(share_s=2.0)

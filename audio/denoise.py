"""The room's steady noise taken out of an utterance's mel power spectrum, before Whisper's log.

Why: the onset detector hands the word decoder each utterance with ``pre_roll_s`` (0.6 s) of
the room before it. Steady noise (a fan, hiss, white noise) fills the quiet mel bands there
and under the word; in Whisper's log-mel it sits a few units below the speech and the model
hears words in it (real English digits at 10 dB white: 68 % exact against 92 % in quiet).
That stretch is a measurement of the noise: its mean mel power per band is subtracted from
every frame (power spectral subtraction), with a floor so no band goes to zero, where
Whisper's features are computed anyway (:func:`audio.whisper.log_mel`). Cost: one mean and
one subtraction over an 80 x 300 array (well under 1 ms per utterance).

What it cannot do: noise that changes within the utterance (babble, a neighbour's word) is not
steady, so it is not measured by the pre-roll; speech *in* the pre-roll (a word right after
another) would be subtracted from the word — the estimate is therefore capped per band by the median
of the whole utterance's frames, which a word that fills less than half of the
window does not reach, and nothing is subtracted where the pre-roll is not steady (its loudest
frame ``max_swing_db`` over its quiet ones: a word or a knock, not a fan).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DenoiseParams:
    """Spectral subtraction in the mel-power domain: the room's steady noise, measured in the
    utterance's pre-roll, taken off each frame before Whisper's log. How the values were chosen
    (``benchmarks/bench_hearing.py``, half A of ``../shared/data/speech``): docs/settings.md,
    ``DenoiseParams``."""

    #: the leading part of the utterance that measures the noise (s): within the listener's
    #: 0.6 s pre-roll (the onset may be walked back up to 0.25 s, so its end is avoided)
    noise_s: float = 0.4
    #: frames skipped at the very start (the STFT's reflected padding)
    skip_frames: int = 2
    #: the estimate is capped per band by this percentile of all the utterance's real frames
    #: (speech in the pre-roll must not be subtracted from the word)
    cap_percentile: float = 50.0
    #: over-subtraction: the noise's mean times this comes off each frame. More: less residual
    #: noise, more of the word's soft consonants lost.
    over: float = 2.0
    #: the residual floor: what is left at least of each frame's power, as a fraction of the
    #: noise estimate (flat: no "musical" peaks). Lower: more noise off, a quiet room's marginal
    #: word scores lower.
    floor: float = 0.2
    #: the pre-roll is steady noise only if its loudest frame is at most this many dB over its
    #: 10th-percentile frame; else it holds a sound and nothing is subtracted. Cost: a noisy
    #: room with a knock in the pre-roll is not denoised for that utterance.
    max_swing_db: float = 6.0
    #: the utterance's loudest 10 ms frame brought to this level (dBFS) before the features
    #: (:func:`to_level`; Whisper's log-mel has no gain normalisation). None: as it comes.
    level_db: float | None = None

    def __post_init__(self):
        if self.noise_s <= 0:
            raise ValueError(f"DenoiseParams.noise_s must be > 0, got {self.noise_s}")
        if not 0 <= self.cap_percentile <= 100:
            raise ValueError(f"DenoiseParams.cap_percentile must be in [0, 100], got {self.cap_percentile}")
        if self.over < 0 or not 0 < self.floor <= 1:
            raise ValueError(f"DenoiseParams: over must be >= 0 and floor in (0, 1], got {self.over}, {self.floor}")
        if self.max_swing_db <= 0:
            raise ValueError(f"DenoiseParams.max_swing_db must be > 0, got {self.max_swing_db}")
        if self.level_db is not None and not (np.isfinite(self.level_db) and self.level_db <= 20):
            raise ValueError(f"DenoiseParams.level_db must be finite and <= 20 dBFS or None, got {self.level_db}")


def _pre_roll(real: np.ndarray, p: DenoiseParams, hop_s: float) -> np.ndarray:
    lo = min(p.skip_frames, real.shape[1] - 1)
    hi = max(lo + 1, min(real.shape[1], int(round(p.noise_s / hop_s))))
    return real[:, lo:hi]


def noise_estimate(mel: np.ndarray, real_frames: int, p: DenoiseParams, hop_s: float) -> np.ndarray:
    """The noise's mean mel power per band (80,), from the leading ``noise_s`` of the real
    frames, capped by the ``cap_percentile`` of all of them."""
    real = mel[:, : max(1, real_frames)]
    est = _pre_roll(real, p, hop_s).mean(axis=1)
    return np.minimum(est, np.percentile(real, p.cap_percentile, axis=1))


def worth_denoising(mel: np.ndarray, real_frames: int, p: DenoiseParams, hop_s: float) -> bool:
    """Whether the pre-roll is steady noise (``max_swing_db``): else it holds a sound and the
    utterance is left as it is."""
    real = mel[:, : max(1, real_frames)].astype(np.float64)
    pre = _pre_roll(real, p, hop_s).sum(axis=0)
    quiet = float(np.percentile(pre, 10))
    return quiet > 0 and pre.max() <= quiet * 10 ** (p.max_swing_db / 10)


def suppress(mel: np.ndarray, real_frames: int, p: DenoiseParams, hop_s: float) -> np.ndarray:
    """``mel`` (bands x frames, power) with the noise subtracted from its real frames (the
    frames past ``real_frames`` are the window's zero padding: left as they are)."""
    out = np.array(mel, np.float32, copy=True)
    n = min(real_frames, out.shape[1])
    if n <= p.skip_frames + 1 or not worth_denoising(out, n, p, hop_s):
        return out
    noise = noise_estimate(out, n, p, hop_s)[:, None].astype(np.float32)
    out[:, :n] = np.maximum(out[:, :n] - p.over * noise, p.floor * noise)
    return out


def noise_margin_db(mel: np.ndarray, real_frames: int, p: DenoiseParams, hop_s: float, percentile: float = 90.0) -> float:
    """How far (dB) the utterance's loud frames (``percentile`` of the real frames' total mel
    power) stand over the pre-roll's steady noise (:func:`noise_estimate`): a quiet room 35 dB
    and more, white noise 10 dB under the speech ~10-15 (inf where no noise is measured)."""
    real = mel[:, : max(1, real_frames)].astype(np.float64)
    noise = float(noise_estimate(real, real.shape[1], p, hop_s).sum())
    loud = float(np.percentile(real.sum(axis=0), percentile))
    return float("inf") if noise <= 0 else 10 * np.log10(max(loud, 1e-30) / noise)


def to_level(x: np.ndarray, level_db: float | None, frame: int = 160) -> np.ndarray:
    """``x`` scaled so its loudest ``frame``-sample frame (10 ms at 16 kHz) has the RMS
    ``level_db`` dBFS (None, or silence: ``x`` as it is)."""
    if level_db is None:
        return x
    x = np.asarray(x, np.float64)
    n = len(x) // frame
    if n == 0:
        return x
    peak = float(np.sqrt((x[: n * frame].reshape(n, frame) ** 2).mean(axis=1).max()))
    return x if peak <= 0 else x * (10 ** (level_db / 20) / peak)

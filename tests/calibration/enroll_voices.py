"""A table's voice-enrollment session, synthesised: each seat's espeak-ng voice (the demo's,
:mod:`fixtures.demo.voice`) saying each prompted call on its own channel, in the prompted
order, with the other seats' channels hearing it 20 dB down — as a file-backed source would
deliver a recording made by following the prompts.

Take ``k`` of a call is said at another pitch and speed than the others (``TAKES``), and none
is the voice the demo's session speaks with (:func:`fresh`), so a fresh take verified against
the recorded folder is not one of its own takes. Also used to make the WAV for trying the
step under tmux (``python -m tests.calibration.enroll_voices OUT.wav``).
"""

from __future__ import annotations

import shutil
import sys

import numpy as np
from scipy.signal import resample_poly

#: (pitch, speed) offsets of takes 1, 2, 3 from the seat's session voice
TAKES = ((-4, -10), (4, 10), (-2, 5))
GAP_BEFORE_S = 0.4
GAP_AFTER_S = 0.8  # > TakeParams.tail_s: the take ends before the next word
SILENT_S = 4.5  # > TakeParams.listen_s: a take in which nobody spoke
HISS = 0.001


def available() -> bool:
    return shutil.which("espeak-ng") is not None


def _to_rate(x: np.ndarray, sr: int, rate: int) -> np.ndarray:
    if sr == rate:
        return x.astype(np.float32)
    g = int(np.gcd(sr, rate))
    return resample_poly(x, rate // g, sr // g).astype(np.float32)


def word(call: str, seat: int, take: int, rate: int) -> np.ndarray:
    """Seat ``seat`` saying ``call`` (take ``take`` >= 1), peak 0.5, at ``rate``."""
    from fixtures.demo import voice
    from rules import vocabularies

    said = {w.token: w.ja for v in vocabularies().values() for w in v.words}

    dp, ds = TAKES[(take - 1) % len(TAKES)]
    pitch, speed = (35, 60, 80, 45)[seat % 4], (190, 175, 200, 165)[seat % 4]
    data, sr = voice.espeak(voice.KANA.get(call) or said[call], pitch + dp, speed + ds)
    x = _to_rate(data, sr, rate)
    return 0.5 * x / np.abs(x).max()


def fresh(call: str, seat: int, rate: int = 16000) -> np.ndarray:
    """The seat's own session voice (not one of the takes), padded as an utterance at the table."""
    from fixtures.demo import voice

    x = 0.5 * voice.say([call], seat, rate)
    pad = np.zeros(int(0.3 * rate), np.float32)
    y = np.concatenate([pad, x, pad])
    return y + np.random.default_rng(seat).normal(0, HISS, len(y)).astype(np.float32)


def session(plan, seats: list[str], channels: int, rate: int = 16000, *, silent: int | None = None,
            clipped: int | None = None, wrong: tuple[int, str] | None = None) -> np.ndarray:
    """``[n, channels]`` samples of the prompts ``plan`` said in order. Before prompt index
    ``silent`` a silent take (nobody speaks), before ``clipped`` the word shouted into
    clipping, before ``wrong[0]`` the call ``wrong[1]`` said instead: each must be asked again,
    and the right take follows."""
    parts = []
    def gap(s):
        return np.zeros(int(s * rate), np.float32)

    for i, p in enumerate(plan):
        seat = seats.index(p.player)
        call = p.tokens[0]
        say = [word(call, seat, p.take, rate)]
        if i == silent:
            say.insert(0, None)
        if i == clipped:
            say.insert(0, np.clip(8 * say[-1], -1, 1))
        if wrong is not None and i == wrong[0]:
            say.insert(0, word(wrong[1], seat, p.take, rate))
        for w in say:
            mono = gap(SILENT_S) if w is None else np.concatenate([gap(GAP_BEFORE_S), w, gap(GAP_AFTER_S)])
            x = np.zeros((len(mono), channels), np.float32)
            ch = p.channel if channels > 1 else 0
            x[:, :] = 0.1 * mono[:, None]
            x[:, ch] = mono
            parts.append(x)
    data = np.concatenate(parts)
    return data + np.random.default_rng(7).normal(0, HISS, data.shape).astype(np.float32)


def main(argv: list[str]) -> int:
    """Write the demo table's prompted session (4 seats, IKATAKO, 2 takes, one silent and one
    clipped take among aki's) as a 4-channel 48 kHz WAV: ``OUT.wav``."""
    from audio.synth import write_wav
    from calibration.enrollment import prompts

    seats = ["aki", "ben", "chie", "dai"]
    plan = prompts("ikatako", [(s, i) for i, s in enumerate(seats)], "ja", 2)
    data = session(plan, seats, 4, 48000, silent=3, clipped=6)
    write_wav(argv[0], data, 48000)
    print(f"wrote {argv[0]}: {len(data) / 48000:.0f} s, {len(plan)} prompts")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

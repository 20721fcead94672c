"""The neighbours' echo on a bystander's microphone: a burst without a word that does not stand
above what the neighbours' voices leave on that microphone is their sound, not the seat's
(issue 31, item 6).

Why (docs/hearing.md, 2026-12-07 "(stop 51): the neighbours' echo, not a shout"): in a room
the calibration did not hear, each microphone carries the neighbours' words with its own
reverberant tail, which the calibration's cancellation (a dry leak path) leaves in — measured on
the session per pair (:func:`audio.demix.session_leaks_db`, 8-11 dB under the neighbour on the
demo). The copy test (:meth:`audio.listen.Listener.copy_of`) does not find it: the tail heard on
this microphone is not a delayed copy of the neighbour's channel (r² low). So a seat that said
nothing while three neighbours shouted got a shout without a word (the demo at RT60 0.3 s and
0.6 s: ben at 10.0 s, dai at 24.1 s), and a player the truth has *missed* was judged *wrong*.

The test is the copy test's rule on energy: what explains the burst is the sum, over the other
channels, of each one's energy over the burst's span times the pair's measured leak; a burst
that stands less than ``ListenParams.echo_db`` (3 dB: those leaks explain at least half its
energy) above it is the neighbours' sound. Only a burst whose words the hearing could not make
out is dropped (a word decided is left as it was); a pair whose leak is not measured makes the
test say nothing (kept, as before). Cost: a seat's own unclear word said that close under its
neighbours' leak is no longer a shout: the player is judged as if silent (on the demo's
replays the genuine utterances stood 5.5-22.7 dB above it, the echoes 0.3-2.3 dB).
"""

from __future__ import annotations

import numpy as np


def above_neighbours_db(own: np.ndarray, others: dict[int, np.ndarray], leaks_db: dict[int, float]) -> float | None:
    """How far (dB, rounded to 0.1 so no decision rests on the last bits) the burst ``own``
    stands above what the other channels leave in it over the same samples: each channel's
    energy (``others``: channel -> its samples there) times its pair's leak (``leaks_db``:
    channel -> dB). None when a channel's leak is not measured (not finite) or a length differs."""
    x = np.asarray(own, dtype=np.float64)
    left = 0.0
    for j, y in others.items():
        leak = leaks_db.get(j)
        if leak is None or not np.isfinite(leak) or len(y) != len(x):
            return None
        y = np.asarray(y, dtype=np.float64)
        left += float(np.dot(y, y)) * 10 ** (leak / 10)
    if not len(x) or left <= 0.0:
        return None
    return round(10 * np.log10((float(np.dot(x, x)) + 1e-20) / left), 1)


def pair_leaks(leaks, into: int, channels: int) -> dict[int, float]:
    """The measured leak of every other channel into ``into`` (``leaks``: the per (mic, seat)
    matrix of :func:`audio.demix.session_leaks_db`, rows the microphones; NaN: not measured)."""
    if leaks is None or into >= len(leaks):
        return {}
    row = leaks[into]
    return {j: float(row[j]) if j < len(row) and row[j] is not None else float("nan")
            for j in range(channels) if j != into}

"""Live: a seat's enrolled voices heard before the detector decides the word's end.

The enrolled voices (:mod:`audio.voices`) read a word from its samples, the stretch of its
channel before it (its noise) and, in noise, the stretch after it
(``audio.enroll.NoiseParams.post_roll_s``). Live, they used to start once the onset detector
had decided the end (``OnsetParams.quick_end_s`` of quiet) and no other seat could still start
a word before it: ~20 ms of CPU (more under load: the hearing thread shares the GIL) on the
first correct player's announcement. :class:`EarlyVoices` keeps what they heard of an
utterance quiet for ``ListenParams.early_voice_s`` (the segment it would close as), and the
listener uses it at release only when the very same samples are compared: the utterance,
the noise before it, and the stretch after it when the features used it (in noise; in a
quiet room they do not) — so the verdict is the one the release would have reached. A word
that went on wastes its early reading (counted).
"""

from __future__ import annotations

import numpy as np


def uses_after(feats) -> bool:
    """Whether the enrolled voices' features of a word depend on the stretch after it: only
    in noise (``audio.enroll.Said.noise`` set; the combined verifier's templates part)."""
    said = getattr(feats, "dtw", feats)
    return getattr(said, "noise", None) is not None


class EarlyVoices:
    """Per utterance ``(channel, start, end)``: the samples compared, the features, the verdict."""

    def __init__(self):
        self._kept: dict[tuple[int, int, int], tuple] = {}
        self._tried: set[tuple[int, int, int]] = set()
        #: early readings made, used at release, and wasted (the word went on, or other samples)
        self.counts = {"made": 0, "used": 0, "wasted": 0}

    def first_try(self, key: tuple[int, int, int]) -> bool:
        """True the first time ``key`` is asked (each suspected end is read once)."""
        if key in self._tried:
            return False
        self._tried.add(key)
        return True

    def keep(self, key: tuple[int, int, int], said: tuple, feats, verdict) -> None:
        self._kept[key] = (said, feats, verdict)
        self.counts["made"] += 1

    def take(self, key: tuple[int, int, int], said: tuple):
        """``(verdict, feats)`` read early from exactly ``said`` (samples, before, after), or None."""
        got = self._kept.pop(key, None)
        if got is None:
            return None
        early, feats, verdict = got
        same = all(np.array_equal(a, b) for a, b in zip(early[:2], said[:2])) and (
            not uses_after(feats) or np.array_equal(early[2], said[2]))
        if not same:
            self.counts["wasted"] += 1
            return None
        self.counts["used"] += 1
        return verdict, feats

    def forget_before(self, sample: int) -> None:
        """Drop what ended before ``sample`` (the audio kept for decoding is gone)."""
        for key in [k for k in self._kept if k[2] < sample]:
            del self._kept[key]
            self.counts["wasted"] += 1
        self._tried = {k for k in self._tried if k[2] >= sample}

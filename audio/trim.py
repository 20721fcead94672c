"""Hearing a recording: the audio pipeline with each utterance's end trimmed to where the
seat's own voice still dominates the neighbours' leakage.

Why (measured on the demo, where four players shout within 0.4 s of each other): the onset
detector ends an utterance only after ``hangover_s`` of quiet on its channel, and while
neighbours keep talking their leakage (-10 dB) keeps it "loud": ends ran 100-430 ms late
(29 of 35 shouts), so the word decoder and the enrolled-voice verifier were handed the
neighbours' words too. Given the true spans, the verifier names 35/35 demo shouts right;
given the detector's spans, 9/35. This stage cuts the span after the last frame where the
seat's own channel stands :data:`DOMINANCE_DB` above the leakage the other channels
predict (``crosstalk_db`` of the calibration, their energy scaled by it). Onsets are not
changed (walking them back over the same test moved none of the late ones: a soft first
consonant under a neighbour's word does not dominate). A table without a measured ``crosstalk_db`` gets the plain pipeline.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from audio.listen import Listener

#: own-channel energy this far above the others' predicted leakage = the seat's own voice
DOMINANCE_DB = 6.0
#: frame of the dominance test (resolution of the trimmed end)
FRAME_S = 0.010
#: frames quieter than this below the utterance's loudest frame are not voice at all
QUIET_DB = 35.0
#: kept after the last dominant frame (a word's decaying tail)
TAIL_S = 0.03


class TrimmingListener(Listener):
    """:class:`audio.listen.Listener` whose segments end where the seat stops dominating."""

    def __init__(self, *args, crosstalk_db: float, **kwargs):
        super().__init__(*args, **kwargs)
        self.leak = 10 ** (crosstalk_db / 10)

    def trimmed_end(self, channel: int, start: int, end: int) -> int:
        hop = max(1, int(FRAME_S * self.rate))
        n = (end - start) // hop
        if n < 2 or self.used < 2:
            return end

        def energy(ch: int) -> np.ndarray:
            x = self._samples(ch, start, start + n * hop).astype(np.float64)
            if len(x) < n * hop:
                x = np.pad(x, (0, n * hop - len(x)))
            return (x.reshape(n, hop) ** 2).mean(axis=1)

        own = energy(channel)
        leak = self.leak * sum(energy(c) for c in range(self.used) if c != channel)
        voiced = own >= own.max() * 10 ** (-QUIET_DB / 10)
        dominant = np.flatnonzero(voiced & (own >= leak * 10 ** (DOMINANCE_DB / 10)))
        if not dominant.size:
            return end
        return min(end, start + (int(dominant[-1]) + 1) * hop + int(TAIL_S * self.rate))

    def _prepare(self, seg, dry: bool = False):
        end = self.trimmed_end(seg.channel, seg.start, seg.end)
        if end < seg.end:
            seg = replace(seg, end=end)
        return super()._prepare(seg, dry)

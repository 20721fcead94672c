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

A cut is not always the word's end. In a reverberant room (RT60 0.6 s) the neighbours' echoes
swamp the test while the seat is still speaking: "サルベージ" cut after "サ" was heard as "3"
(a player made wrong on a card the truth has them first on). So a span cut where the seat's
channel stays about as loud after the cut as in the word (:data:`CUT_SHORT_DB`) is marked
``cut_short``: the word may go on under the neighbours' words, and the listener makes it
unclear (no penalty, no point) instead of deciding on its beginning — unless the enrolled
voices name the same call for the whole span, cut part and all (:func:`_same_call`). On the
dry demo a cut channel falls 13-25 dB after the cut: nothing there is marked. A cut-short word
whose whole span the enrolled voices decide, a call no neighbour speaking after the cut may
have said, is read whole (:mod:`audio.read_whole`, stop 50).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from audio.found_inside import decided
from audio.listen import Listener
from audio.read_whole import contains_cut, neighbour_may_say
from audio.read_whole import record as whole_record

#: own-channel energy this far above the others' predicted leakage = the seat's own voice
DOMINANCE_DB = 6.0
#: frame of the dominance test (resolution of the trimmed end)
FRAME_S = 0.010
#: frames quieter than this below the utterance's loudest frame are not voice at all
QUIET_DB = 35.0
#: kept after the last dominant frame (a word's decaying tail)
TAIL_S = 0.03
#: a cut span whose channel's median level over :data:`CUT_SHORT_S` after the cut is within
#: this of the kept word's median level "cut short": its word is unclear. Lower: more cut words
#: kept (and, in a reverberant room, decided on their first syllable); higher: more unclear
CUT_SHORT_DB = 6.0
#: how long after the cut the channel's level is looked at; a span that the detector ends
#: (quiet) sooner after the cut is not marked
CUT_SHORT_S = 0.15


class TrimmingListener(Listener):
    """:class:`audio.listen.Listener` whose segments end where the seat stops dominating."""

    def __init__(self, *args, crosstalk_db: float, read_whole: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        self.leak = 10 ** (crosstalk_db / 10)
        #: a cut-short word whose whole span the enrolled voices decide, a call no neighbour
        #: speaking after the cut may have said, is read whole (:mod:`audio.read_whole`); False:
        #: unclear unless the cut span names the same call (before stop 50)
        self.read_whole = read_whole
        self._read_whole: dict[tuple[int, int], dict] = {}  # (channel, start) -> where the trim had cut

    def _energy(self, channel: int, start: int, n: int, hop: int) -> np.ndarray:
        x = self._samples(channel, start, start + n * hop).astype(np.float64)
        if len(x) < n * hop:
            x = np.pad(x, (0, n * hop - len(x)))
        return (x.reshape(n, hop) ** 2).mean(axis=1)

    def _trim(self, channel: int, start: int, end: int) -> tuple[int, bool]:
        """``(end, cut_short)``: where the seat stops dominating, and whether its channel stays
        within :data:`CUT_SHORT_DB` of the word's level after that (the word may go on)."""
        hop = max(1, int(FRAME_S * self.rate))
        n = (end - start) // hop
        if n < 2 or self.used < 2:
            return end, False
        own = self._energy(channel, start, n, hop)
        leak = self.leak * sum(self._energy(c, start, n, hop) for c in range(self.used) if c != channel)
        voiced = own >= own.max() * 10 ** (-QUIET_DB / 10)
        dominant = np.flatnonzero(voiced & (own >= leak * 10 ** (DOMINANCE_DB / 10)))
        if not dominant.size:
            return end, False
        trimmed = min(end, start + (int(dominant[-1]) + 1) * hop + int(TAIL_S * self.rate))
        cut, look = -(-(trimmed - start) // hop), max(1, int(round(CUT_SHORT_S / FRAME_S)))
        if cut + look > n:  # the span ends (quiet) within CUT_SHORT_S of the cut: the word ended
            return trimmed, False
        kept = own[:cut][voiced[:cut]]
        if not kept.size:
            return trimmed, False
        # in dB at 0.01: no decision on the last bits of a kernel's sum
        drop_db = round(float(10 * np.log10(np.median(kept) / max(np.median(own[cut: cut + look]), 1e-30))), 2)
        return trimmed, drop_db <= CUT_SHORT_DB

    def _prepare(self, seg, dry: bool = False):
        end, cut_short = self._trim(seg.channel, seg.start, seg.end)
        whole = None
        if cut_short and not dry:
            # the enrolled voices' call for the whole span, the cut part with it (asked before
            # the listener remembers the cut span's end as the channel's last)
            whole = self._enrolled(seg)[0]
            if self.read_whole and self._whole_call(seg, end, whole):
                self._read_whole[(seg.channel, seg.start)] = whole_record(seg, end)
                return super()._prepare(seg, dry)  # the word read whole (audio.read_whole)
        if end < seg.end:
            seg = replace(seg, end=end, cut_short=cut_short)
        job = super()._prepare(seg, dry)
        if whole is not None and isinstance(job, tuple) and _same_call(job[2], whole):
            job = (replace(job[0], cut_short=False), *job[1:])  # the cut did not change the call
        return job

    def _whole_call(self, seg, cut: int, whole) -> bool:
        """Whether the cut-short ``seg`` is read whole (:mod:`audio.read_whole`): the enrolled
        voices decide ``whole`` over it, a call that contains the cut part (the cut span, read
        again, names it or leans to it) and that no neighbour speaking after the cut may have said."""
        if not decided(whole) or not contains_cut(whole, self.read_voices(replace(seg, end=cut))[0]):
            return False
        knows = lambda j: self.verifier.knows(self.seats[j])  # noqa: E731
        neighbours = [j for j in range(self.used) if j != seg.channel and j not in self._dead]
        return not neighbour_may_say(seg, cut, whole.tokens, neighbours, self._own_voice, knows, self.read_voices)

    def _finish(self, job, group, heard):
        """The listener's events, a word read whole saying where the trim had cut it."""
        events = super()._finish(job, group, heard)
        cut = self._read_whole.pop((job[0].channel, job[0].start), None)
        for event in events if cut is not None else ():
            if event.get("type") == "shout":
                event["read_whole"] = cut  # the trim had cut the word there; it was read whole
        return events


def _same_call(cut, whole) -> bool:
    """Whether the enrolled voices name one call for the cut span and for the whole span: then
    what followed the cut did not change the word, and it is kept (in IKATAKO the neighbours
    mostly shout the same call, so the whole span often agrees; a prefix like "イカ" of
    "イカタコ", or "サ" of "サルベージ" heard as "3", does not)."""
    return cut is not None and cut.tokens is not None and cut.tokens == whole.tokens

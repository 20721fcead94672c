"""The hearing watermark's walk-back bound (``OnsetDetector.walk_back_bound``): tight on a
quiet channel, and never after the onset of an utterance that starts right after it was
given — also when that onset is walked back into a murmur the bound had already seen."""

from __future__ import annotations

import numpy as np

from audio.capture import Block
from audio.onset import OnsetDetector, OnsetParams

RATE = 16000
BLOCK = 320  # 20 ms, as the live source's


def _noise(rng, seconds: float, channels: int = 3, amp: float = 1e-3) -> np.ndarray:
    return (rng.standard_normal((int(seconds * RATE), channels)) * amp).astype(np.float32)


def _feed(det: OnsetDetector, x: np.ndarray, index: int) -> tuple[list, int]:
    segs = []
    for a in range(0, len(x), BLOCK):
        segs += det.update(Block(index + a, x[a:a + BLOCK], RATE, 0.0))
    return segs, index + len(x)


def _plain_bound(det: OnsetDetector, end: int) -> int:
    """The bound the watermark used before: ``refine_max_s`` + smoothing behind the last sample."""
    p = det.p
    return end - int(round((p.refine_max_s + p.smooth_s + 2 * p.hop_s) * RATE))


def test_quiet_channels_promise_nearly_their_last_sample():
    rng = np.random.default_rng(1)
    det = OnsetDetector(3, RATE)
    _, end = _feed(det, _noise(rng, 2.0), 0)
    bound = det.walk_back_bound()
    assert end - 0.01 * RATE <= bound <= end
    assert bound - _plain_bound(det, end) > 0.2 * RATE  # ~0.25 s tighter than before


def test_a_word_starting_right_after_the_bound_starts_at_or_after_it():
    rng = np.random.default_rng(2)
    det = OnsetDetector(3, RATE)
    _, end = _feed(det, _noise(rng, 1.5), 0)
    bound = det.walk_back_bound()
    word = _noise(rng, 0.6)
    word[:int(0.2 * RATE), 0] *= 30  # a loud word on seat 0 from the very next sample
    segs, end2 = _feed(det, np.concatenate([word, _noise(rng, 0.6)]), end)
    assert len(segs) == 1 and segs[0].channel == 0
    assert segs[0].start >= bound
    assert segs[0].start - end < 0.01 * RATE


def test_a_murmur_already_heard_holds_the_bound_where_the_walk_back_can_reach():
    """A weak start (above the walk's test, below the onset's) heard before the bound is
    given, the loud word after it: the detector walks the onset back into the murmur, so the
    bound must already lie at the murmur's start — and a bound at the last sample (the
    stretch ignored) would have been broken."""
    rng = np.random.default_rng(3)
    det = OnsetDetector(3, RATE)
    _, end = _feed(det, _noise(rng, 1.5), 0)
    murmur = _noise(rng, 0.03)
    murmur[:, 0] *= 10 ** (7.5 / 20)  # +7.5 dB: passes refine_db (6), not start_db (9)
    _, end_m = _feed(det, murmur, end)
    bound = det.walk_back_bound()
    assert bound <= end + 0.005 * RATE  # the stretch reaches back to the murmur's start
    assert bound >= _plain_bound(det, end_m)
    word = _noise(rng, 0.6)
    word[:int(0.2 * RATE), 0] *= 30
    segs, _ = _feed(det, np.concatenate([word, _noise(rng, 0.6)]), end_m)
    assert len(segs) == 1
    assert segs[0].start < end_m - 0.01 * RATE  # walked back into the murmur (the case that matters)
    assert segs[0].start >= bound


def test_an_open_utterance_holds_the_bound_at_its_onset():
    rng = np.random.default_rng(4)
    det = OnsetDetector(3, RATE)
    _, end = _feed(det, _noise(rng, 1.0), 0)
    word = _noise(rng, 0.3)
    word[:, 1] *= 30
    _, end2 = _feed(det, word, end)  # still speaking: the utterance is open
    assert det.chans[1].active
    assert det.walk_back_bound() == det._sample(det.chans[1].onset) <= end + 0.005 * RATE


def test_without_refinement_the_bound_is_the_next_frame():
    rng = np.random.default_rng(5)
    det = OnsetDetector(3, RATE, OnsetParams(refine=False))
    _, end = _feed(det, _noise(rng, 1.0), 0)
    assert end - det.hop <= det.walk_back_bound() <= end

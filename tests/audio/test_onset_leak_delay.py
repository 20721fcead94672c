"""A neighbour's voice reaches a seat's mic a few ms after its own, and so does what the
cancellation leaves of it: the onset walk's leak test takes the neighbour's loudest level over
``OnsetParams.refine_leak_delay_s`` (and, given them, each pair's own allowance,
``OnsetDetector(leak_db=...)``), so the leftover's tail in each of the speaker's pitch troughs
is not the seat's sound, and the seat's onset does not move when the neighbour's shout moves."""

from dataclasses import replace

import numpy as np

from audio.capture import Block
from audio.onset import OnsetDetector, OnsetParams
from tests.audio.conftest import tone_burst
from tests.audio.test_onset import RATE

SPEECH_DB = -15.0
#: as ``audio.demix.onset_params`` gives them for cancelled audio whose loudest leak left is 20 dB down
CANCELLED = OnsetParams(crosstalk_db=17.0, dominance_db=-6.0, refine_leak_db=1.0, refine_from_level=True)
DELAY_S = 0.003  # seat 1's voice reaches seat 0's mic this much later
#: what each seat may leave on each mic ([mic][seat], dB: ``audio.demix.leak_allowances``):
#: seat 1 into mic 0 its 20 dB leftover + 3 dB margin; every other pair 40 dB down
ALLOW = np.full((4, 4), -40.0)
ALLOW[0, 1] = -17.0
np.fill_diagonal(ALLOW, 0.0)


def _at(x: np.ndarray, db: float) -> np.ndarray:
    return (x * 10 ** (db / 20) / np.sqrt(np.mean(x.astype(np.float64) ** 2))).astype(np.float32)


def _table(shift_s: float, seed: int = 41) -> np.ndarray:
    """Seat 1 speaks from 0.20 s (+ ``shift_s``) for 0.6 s, its level swinging ~20 dB with a
    100 Hz pitch; what the cancellation leaves of it on seat 0's mic is 20 dB down and arrives
    ``DELAY_S`` later. Seat 0's word starts at 0.50 s."""
    rng = np.random.default_rng(seed)
    x = (1e-3 * rng.standard_normal((int(1.5 * RATE), 4))).astype(np.float32)  # room, -60 dB
    n = int(0.6 * RATE)
    t = np.arange(n) / RATE
    voice = _at(tone_burst(0.6, RATE, seed) * (0.05 + np.abs(np.sin(np.pi * 100 * t)) ** 4), SPEECH_DB)
    a, d = int((0.20 + shift_s) * RATE), int(DELAY_S * RATE)
    x[a : a + n, 1] += voice
    x[a + d : a + d + n, 0] += voice * 10 ** (-20 / 20)
    word = tone_burst(0.3, RATE, seed + 1)
    b = int(0.50 * RATE)
    x[b : b + len(word), 0] += _at(word, SPEECH_DB)
    return x


def _onset0(x: np.ndarray, params: OnsetParams, leak_db=ALLOW) -> float:
    det = OnsetDetector(4, RATE, params, speech_db=[SPEECH_DB] * 4, leak_db=leak_db)
    segs = []
    for i in range(0, len(x), 320):
        segs += det.update(Block(i, x[i : i + 320], RATE))
    segs = [s for s in segs + det.flush() if s.channel == 0]
    assert len(segs) == 1, [s.t for s in segs]
    return segs[0].t


def test_a_seat_s_onset_stays_when_a_neighbour_s_shout_moves_40_ms():
    for leak_db in (ALLOW, None):  # per-pair allowances, or the loudest pair's for every one
        onsets = [_onset0(_table(shift), CANCELLED, leak_db) for shift in (0.0, 0.04)]
        assert all(abs(t - 0.50) <= 0.005 for t in onsets), onsets
        assert abs(onsets[1] - onsets[0]) <= 0.005, onsets


def test_against_the_speaker_s_level_at_the_same_frame_its_leftover_s_tail_is_walked_into():
    """The mechanism: with no delay the leftover in each pitch trough (the speaker already
    quiet, its leftover not yet) passes as seat 0's own sound and the walk chains back over it."""
    same_frame = replace(CANCELLED, refine_leak_delay_s=0.0)
    onsets = [_onset0(_table(shift), same_frame) for shift in (0.0, 0.04)]
    assert min(0.50 - t for t in onsets) > 0.005, onsets


def test_while_a_seat_is_cancelled_by_its_fingerprint_every_pair_is_allowed_the_loudest_leak():
    """A dead or unfit seat (``OnsetDetector.fingerprinted``, kept by the listener) is cancelled
    from the others by its fingerprint, which leaves more than the calibration measured per
    pair: here seat 1's leftover on mic 0 is 20 dB down where its pair's allowance says 40. With
    the per-pair allowance the leftover is seat 0's sound (its onset 0.3 s early or a word of
    its own); told seat 1 is fingerprinted, the one allowance holds and the onset stays."""
    from audio.listen import Listener

    low = ALLOW.copy()
    low[0, 1] = -40.0
    x = _table(0.0)

    def first0(det):
        segs = []
        for i in range(0, len(x), 320):
            segs += det.update(Block(i, x[i : i + 320], RATE))
        return min(s.t for s in segs + det.flush() if s.channel == 0)

    assert first0(OnsetDetector(4, RATE, CANCELLED, speech_db=[SPEECH_DB] * 4, leak_db=low)) < 0.45
    det = OnsetDetector(4, RATE, CANCELLED, speech_db=[SPEECH_DB] * 4, leak_db=low)
    det.fingerprinted = frozenset({1})
    assert abs(first0(det) - 0.50) <= 0.005
    listener = Listener(["a", "b", "c", "d"], 4, RATE, recognizer=None, onset=CANCELLED, speech_db=[SPEECH_DB] * 4,
                        leak_db=low)
    listener.unfit(1)  # (a dead channel's notice does the same: audio.listen.Listener._notices)
    assert listener.detector.fingerprinted == {1} and abs(first0(listener.detector) - 0.50) <= 0.005


def test_the_delayed_levels_of_the_recordings_first_rows_look_back_at_no_later_row():
    """The leak test's look-back (``_delayed``) at the recording's very first rows, where the
    look-back reaches before row 0: each row is the loudest of itself and the kept rows
    before it — never a row from the other end (a negative slice end once took 19 rows for 2:
    a replay with loud babble from its first sample stopped with a ValueError)."""
    import numpy as np

    from audio.onset import OnsetDetector, OnsetParams

    det = OnsetDetector(4, 16000, OnsetParams(refine_leak_db=0.0))  # (the leak test on: the look-back runs)
    d = int(round(det.p.refine_leak_delay_s / det.p.hop_s))
    assert d >= 2
    levels = np.arange(20 * 4, dtype=float).reshape(20, 4)[::-1].copy()  # falling: a later row is softer
    for j in range(1, d + 2):
        out = det._delayed(levels, 0, j)
        want = np.stack([levels[max(0, r - d) : r + 1].max(axis=0) for r in range(j)])
        assert np.array_equal(out, want), j

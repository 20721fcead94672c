"""On cancelled audio the onset walk back judges "the seat's own sound" against what the
neighbours can *leave* on its channel (``OnsetParams.refine_leak_db``), not against their
level on their own channels: two neighbours speaking do not make a soft start late, and a
neighbour's leftover leak a few dB over the quiet channels is not walked into; a run begun on
a leak is walked from where it reaches its seat's level (``OnsetParams.refine_from_level``)."""

import numpy as np

from audio.capture import Block
from audio.onset import OnsetDetector, OnsetParams
from tests.audio.conftest import tone_burst
from tests.audio.test_onset import RATE

SPEECH_DB = -15.0  # every seat's speech level at its own mic (as measured at calibration)
#: as ``audio.demix.onset_params`` gives them for audio whose leak left is ~22 dB down
CANCELLED = OnsetParams(crosstalk_db=19.0, dominance_db=-6.0, refine_leak_db=1.0)
MEDIAN = OnsetParams(crosstalk_db=19.0, dominance_db=-6.0)  # the walk against the others' median


def _at(x: np.ndarray, db: float) -> np.ndarray:
    return (x * 10 ** (db / 20) / np.sqrt(np.mean(x.astype(np.float64) ** 2))).astype(np.float32)


def _run(mix: np.ndarray, params: OnsetParams) -> list:
    det = OnsetDetector(mix.shape[1], RATE, params, speech_db=[SPEECH_DB] * mix.shape[1])
    segs = []
    for i in range(0, len(mix), 320):
        segs += det.update(Block(i, mix[i : i + 320], RATE))
    return sorted(segs + det.flush(), key=lambda s: s.start)


def _seat0(mix: np.ndarray, params: OnsetParams) -> list:
    """The onsets the detector finds on seat 0's channel."""
    return [s for s in _run(mix, params) if s.channel == 0]


def _room(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (1e-3 * rng.standard_normal((int(1.5 * RATE), 4))).astype(np.float32)  # -60 dB


def _soft_start_between_two_speakers(seed: int = 11) -> np.ndarray:
    """Seats 1 and 3 speak (their speech level) from 0.20 s; what cancellation leaves of them
    on seats 0 and 2 is 25 dB down. Seat 0 starts softly at 0.50 s (-29 dB for 40 ms, 14 dB
    under the speakers' level, 20 dB over what they leave on its mic), then says its word."""
    x = _room(seed)
    a, soft_at = int(0.20 * RATE), int(0.50 * RATE)
    for k, seat in enumerate((1, 3)):
        voice = tone_burst(1.0, RATE, seed + k)
        x[a : a + len(voice), seat] += _at(voice, SPEECH_DB)
        for mic in (0, 2):
            x[a : a + len(voice), mic] += _at(voice, SPEECH_DB - 25.0)
    soft = tone_burst(0.04, RATE, seed + 5)
    word = tone_burst(0.3, RATE, seed + 6)
    x[soft_at : soft_at + len(soft), 0] += _at(soft, -29.0)
    b = soft_at + len(soft)
    x[b : b + len(word), 0] += _at(word, SPEECH_DB)
    return x


def test_a_soft_start_while_two_neighbours_speak_is_found_where_it_begins():
    x = _soft_start_between_two_speakers()
    new, old = _seat0(x, CANCELLED), _seat0(x, MEDIAN)
    assert len(new) == 1 and abs(new[0].t - 0.50) <= 0.005, [s.t for s in new]
    # against the others' median (a speaker's own level) the soft part was no own sound
    assert len(old) == 1 and old[0].t - 0.50 >= 0.010, [s.t for s in old]


def _leftover_then_word(seed: int = 21) -> np.ndarray:
    """Seat 1 speaks from 0.40 s; its leftover after cancellation is 20 dB down on seat 0's
    mic, 30 dB down on seats 2 and 3: on seat 0 it stands 10 dB over the quiet channels (the
    others' median) but no more than seat 1's voice leaves. Seat 0's word starts at 0.50 s."""
    x = _room(seed)
    voice = tone_burst(0.6, RATE, seed)
    word = tone_burst(0.3, RATE, seed + 1)
    a, b = int(0.40 * RATE), int(0.50 * RATE)
    x[a : a + len(voice), 1] += _at(voice, SPEECH_DB)
    for mic, down in ((0, 20.0), (2, 30.0), (3, 30.0)):
        x[a : a + len(voice), mic] += _at(voice, SPEECH_DB - down)
    x[b : b + len(word), 0] += _at(word, SPEECH_DB)
    return x


def test_a_neighbour_s_leftover_over_the_quiet_channels_is_not_the_seat_s_sound():
    x = _leftover_then_word()
    new, old = _seat0(x, CANCELLED), _seat0(x, MEDIAN)
    assert len(new) == 1 and abs(new[0].t - 0.50) <= 0.005, [s.t for s in new]
    # against the others' median the leftover passed as the seat's sound: walked to 0.40 s
    assert len(old) == 1 and 0.50 - old[0].t >= 0.05, [s.t for s in old]


def _leak_before_word(seed: int = 31) -> np.ndarray:
    """Seats 1-3 speak from 0.20 s (what cancellation leaves of them on seat 0: 25 dB down);
    from 0.475 s seat 0's channel also carries a leak the cancellation could not remove (a
    dead seat's, -30 dB: over the leak test's allowance, under the speakers' level), and seat
    0's own word starts at 0.50 s."""
    x = _room(seed)
    a = int(0.20 * RATE)
    for seat in (1, 2, 3):
        voice = tone_burst(1.0, RATE, seed + seat)
        x[a : a + len(voice), seat] += _at(voice, SPEECH_DB)
        x[a : a + len(voice), 0] += _at(voice, SPEECH_DB - 25.0)
    leak = tone_burst(0.025, RATE, seed + 7)
    word = tone_burst(0.3, RATE, seed + 8)
    b, c = int(0.475 * RATE), int(0.50 * RATE)
    x[b : b + len(leak), 0] += _at(leak, -30.0)
    x[c : c + len(word), 0] += _at(word, SPEECH_DB)
    return x


def test_a_run_begun_on_a_leak_is_walked_from_where_it_reaches_the_seat_s_level():
    x = _leak_before_word()
    from_level = OnsetParams(crosstalk_db=19.0, dominance_db=-6.0, refine_leak_db=1.0, refine_from_level=True)
    new, old = _seat0(x, from_level), _seat0(x, CANCELLED)
    assert len(new) == 1 and abs(new[0].t - 0.50) <= 0.005, [s.t for s in new]
    # from the run's start: the leak's first frame is the onset (0.475 s)
    assert len(old) == 1 and 0.50 - old[0].t >= 0.015, [s.t for s in old]


def test_under_three_speakers_the_walk_s_bar_is_under_their_median():
    """Every other seat speaking: no quiet channel to judge by, and their median is a
    speaker's own level; the bar a frame must reach to be the seat's own sound is that median
    lowered by ``refine_all_speaking_db`` (then ``refine_dominance_db`` over it), so a start
    as loud as a speaker's is the seat's (demo card 5: chie 34 ms late when a neighbour's
    shout moved). With one other quiet, the quiet median decides as before."""
    det = OnsetDetector(4, RATE, CANCELLED, speech_db=[SPEECH_DB] * 4)

    def bar_of(d, others):  # seat 0's bar, the other three channels' levels given (one frame)
        row = np.array([[-60.0] + others])
        return d._others_ref(row[:, 1:], np.delete(d._speaking(row), 0, axis=1), axis=1)[0]

    speakers = [SPEECH_DB - 1.0, SPEECH_DB, SPEECH_DB + 1.0]
    bar = bar_of(det, speakers)
    assert bar == SPEECH_DB + CANCELLED.refine_all_speaking_db + CANCELLED.refine_dominance_db
    assert bar <= SPEECH_DB  # a frame at a speaker's level passes (against the median +3 dB it did not)
    old = OnsetParams(crosstalk_db=19.0, dominance_db=-6.0, refine_leak_db=1.0, refine_all_speaking_db=0.0)
    det_old = OnsetDetector(4, RATE, old, speech_db=[SPEECH_DB] * 4)
    assert bar_of(det_old, speakers) == SPEECH_DB + 3.0
    one_quiet = [SPEECH_DB - 30.0, SPEECH_DB, SPEECH_DB + 1.0]
    for d in (det, det_old):  # the quiet one's level (+3 dB) or the leak test, whichever is higher
        assert bar_of(d, one_quiet) == max(
            SPEECH_DB - 27.0, SPEECH_DB + 1.0 - 19.0 + 1.0)

"""The neighbours' echo on a bystander's microphone (audio/echo.py): a burst without a word
that does not stand ``ListenParams.echo_db`` above what the neighbours' measured leaks leave
on that microphone is their sound, not a shout."""

import numpy as np
import pytest

from audio.capture import Block
from audio.echo import above_neighbours_db, pair_leaks
from audio.lexicon import Parsed
from audio.listen import Listener, ListenParams, listen
from audio.whisper import Heard
from tests.audio.conftest import tone_burst

RATE = 16000
SEATS = ["aki", "ben", "chie"]


class Mumbles:
    """A stand-in engine: speech, but no word made out."""

    engine = "test"

    def decode(self, samples, rate):
        return Heard("えっと", ("えっと",), 0.9, Parsed(()), {"speech": True})


class SaysIka(Mumbles):
    def decode(self, samples, rate):
        return Heard("イカ", ("イカ",), 0.9, Parsed(("ika",)), {"speech": True})


class _Source:
    def __init__(self, x):
        self.x = x

    def __iter__(self):
        for k in range(0, len(self.x), 320):
            yield Block(k, self.x[k : k + 320], RATE, 0.0)


def _leaks(db):
    """Every pair's measured leak ``db`` (None: not measured), NaN on the diagonal."""
    m = np.full((3, 3), np.nan if db is None else db)
    np.fill_diagonal(m, np.nan)
    return m


def _shouts(ben_db, leak_db, recognizer):
    """aki shouts; 50 ms later ben's microphone carries aki's word's echo — not a copy of aki's channel (the
    room's own tail on that microphone: another noise) — ``ben_db`` under aki's level; the
    pairs' leaks measured ``leak_db`` (None: not measured)."""
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((int(2.5 * RATE), 3)) * 1e-3).astype(np.float32)
    x[8000 : 8000 + 4800, 0] += tone_burst(0.3, RATE, seed=2)
    x[8800 : 8800 + 4800, 1] += tone_burst(0.3, RATE, seed=5) * np.float32(10 ** (ben_db / 20))
    lis = Listener(SEATS, 3, RATE, recognizer, params=ListenParams(copy_test=True))
    lis.leaks_db = None if leak_db is False else _leaks(leak_db)
    return {e["player"]: e for e in listen(_Source(x), lis) if e["type"] == "shout"}, lis


@pytest.mark.parametrize("ben_db, leak_db, ben_heard", [
    (-10.0, -10.0, False),  # the echo the leak predicts (0 dB above it): the neighbours' sound
    (-10.0, -11.0, False),  # ~2 dB above it: still the most of it theirs
    (-10.0, -20.0, True),   # 10 dB above the leak: ben's own
    (-10.0, None, True),    # the leak not measured: kept, as before
    (-10.0, False, True),   # no leaks given at all (the listener's default): as before
])
def test_a_wordless_burst_under_the_neighbours_leak_is_their_echo(ben_db, leak_db, ben_heard):
    shouts, lis = _shouts(ben_db, leak_db, Mumbles())
    assert "aki" in shouts
    assert ("ben" in shouts) == ben_heard
    assert (lis.dropped.get("the neighbours' echo", 0) == 1) == (not ben_heard)


def test_a_word_made_out_is_never_dropped_as_echo():
    """The test only drops what carries no word: a call decided is left to the other tests."""
    shouts, lis = _shouts(-10.0, -10.0, SaysIka())
    assert shouts["ben"]["words"] == ["ika"]
    assert "the neighbours' echo" not in lis.dropped


def test_off_keeps_the_echo():
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((int(2.5 * RATE), 3)) * 1e-3).astype(np.float32)
    x[8000 : 8000 + 4800, 0] += tone_burst(0.3, RATE, seed=2)
    x[8800 : 8800 + 4800, 1] += tone_burst(0.3, RATE, seed=5) * np.float32(10 ** (-10 / 20))
    lis = Listener(SEATS, 3, RATE, Mumbles(), params=ListenParams(copy_test=True, echo_db=None))
    lis.leaks_db = _leaks(-10.0)
    assert "ben" in {e["player"] for e in listen(_Source(x), lis) if e["type"] == "shout"}


def test_above_neighbours_db_sums_the_neighbours_leaks():
    one = np.ones(100)
    # two neighbours each as loud as the burst, each leaking 10 dB down: 10*log10(1 / 0.2) = 7.0
    assert above_neighbours_db(one, {1: one, 2: one}, {1: -10.0, 2: -10.0}) == 7.0
    assert above_neighbours_db(one, {1: one}, {1: float("nan")}) is None
    assert above_neighbours_db(one, {1: one[:50]}, {1: -10.0}) is None


def test_pair_leaks_reads_the_microphones_row():
    m = np.array([[np.nan, -11.0, -12.0], [-21.0, np.nan, -22.0], [-31.0, -32.0, np.nan]])
    assert pair_leaks(m, 1, 3) == {0: -21.0, 2: -22.0}
    assert pair_leaks(None, 1, 3) == {}

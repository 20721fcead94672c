"""The early start of the word (``ListenParams.early_s``): an utterance is decoded once its end
is suspected, and that result is what its event carries when the detector ends it there.

A stand-in engine (it records the windows it is handed and names them by their samples) lets
the tests see *when* and *what* was decoded; Whisper itself is measured by
``benchmarks/bench_whisper_speed.py``.
"""

from dataclasses import replace

import numpy as np
import pytest

from audio.capture import Block
from audio.lexicon import Parsed
from audio.listen import Listener, ListenParams
from audio.whisper import Heard

RATE = 16000


class Engine:
    """Records each window; hears a "call" named by the window's length and sum (so two
    different windows give different events); ``margin``: the room's loudness over its noise."""

    engine = "whisper-base"
    enrolled_first = True
    pre_roll_s, post_roll_s = 0.6, 0.5

    def __init__(self, margin: float = 40.0):
        self.margin, self.windows = margin, []

    def room_margin_db(self, samples, rate):
        return self.margin

    def decode(self, samples, rate):
        self.windows.append(np.array(samples))
        text = f"{len(samples)}:{float(np.sum(np.asarray(samples, np.float64))):.9f}"
        return Heard(text, (text,), 0.9, Parsed(("4",)), {})


def signal(pause_s: float | None = None) -> np.ndarray:
    """Hiss, a 0.3 s tone at 1 kHz from 1.0 s, then hiss; with ``pause_s``: the tone stops for
    that long — a steady hum ~5 dB over the hiss's floor: not loud (under the steady floor's
    ``OnsetParams.steady_start_db`` 6 dB; it was ~7 dB under the fixed 9 dB before), not back at
    the floor (over ``end_quiet_db`` 3), so only the 0.25 s hangover could end it — and goes on
    for 0.2 s more."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(3 * RATE) * 10 ** (-60 / 20)
    t = np.arange(int(0.3 * RATE)) / RATE
    tone = 0.1 * np.sin(2 * np.pi * 1000 * t)
    a = RATE
    x[a : a + len(tone)] += tone
    if pause_s is not None:
        b = a + len(tone)
        hum = np.sqrt(2) * 10 ** (-62 / 20) * np.sin(2 * np.pi * 1000 * np.arange(int(pause_s * RATE)) / RATE)
        x[b : b + len(hum)] += hum
        c = b + int(pause_s * RATE)
        x[c : c + int(0.2 * RATE)] += tone[: int(0.2 * RATE)]
    return x.astype(np.float32)


def hear(x: np.ndarray, params: ListenParams, engine: Engine, speculate: bool = True):
    """Events with the index of the block that returned each, and the blocks at which the
    engine was asked (block index per decoded window)."""
    lis = Listener(["aki"], 1, RATE, engine, params=params)
    if not speculate:
        lis._speculate = lambda: None
    events, asked = [], []
    for k in range(0, len(x), 320):
        n = len(engine.windows)
        for e in lis.update(Block(k, x[k : k + 320, None], RATE)):
            events.append((k, e))
        asked += [k] * (len(engine.windows) - n)
    events += [(len(x), e) for e in lis.close_window()]
    return events, asked, lis


EARLY = ListenParams(early_s=0.1)


def test_the_word_is_decoded_before_the_detector_ends_the_utterance_and_is_what_its_event_says():
    x = signal()
    early, asked, lis = hear(x, EARLY, Engine())
    (released, event), = [(k, e) for k, e in early if e["type"] == "shout"]
    assert len(asked) == 1 and asked[0] < released  # decoded once, blocks before the release
    assert lis.early == {"decoded": 1, "used": 1, "wasted": 0}
    # the same event as without the early decoding (the window does not depend on when)
    late, asked_late, _ = hear(x, EARLY, Engine(), speculate=False)
    assert [e for _, e in late] == [e for _, e in early] and asked_late[0] == released
    # the window: 0.6 s before the onset to the end + early_s
    assert event["text"].split(":")[0] == str(int(round((event["t_end"] + 0.1 - event["t"] + 0.6) * RATE)))


def test_an_utterance_that_goes_on_after_the_pause_drops_the_early_word():
    x = signal(pause_s=0.15)
    early, asked, lis = hear(x, EARLY, Engine())
    shouts = [e for _, e in early if e["type"] == "shout"]
    assert len(shouts) == 1 and shouts[0]["t_end"] > 1.5  # one utterance, through the pause
    # the first guess at its end (0.1 s into the pause) was decoded and dropped
    assert lis.early["wasted"] == 1 and lis.early["decoded"] == 1 + lis.early["used"]
    late, _, _ = hear(x, EARLY, Engine(), speculate=False)
    assert [e for _, e in late] == [e for _, e in early]


def test_in_a_noisy_room_nothing_is_decoded_early_and_the_window_is_as_before():
    x = signal()
    noisy, asked, lis = hear(x, EARLY, Engine(margin=10.0))
    plain, _, _ = hear(x, ListenParams(), Engine(margin=10.0))
    assert lis.early["decoded"] == 0
    assert [e for _, e in noisy] == [e for _, e in plain]


def test_off_by_default_and_in_a_replay_the_windows_are_as_before():
    x = signal()
    default, _, lis = hear(x, ListenParams(), Engine())
    held, _, held_lis = hear(x, replace(EARLY, hold_s=1.0), Engine())
    assert lis.early["decoded"] == held_lis.early["decoded"] == 0
    assert [e for _, e in default] == [e for _, e in held]
    # the window runs to what had arrived at release (more than end + 0.1 s: the wait)
    text = [e for _, e in default if e["type"] == "shout"][0]["text"]
    event = [e for _, e in default if e["type"] == "shout"][0]
    assert int(text.split(":")[0]) > (event["t_end"] + 0.1 - event["t"] + 0.6) * RATE


@pytest.mark.parametrize("bad", [0.0, -0.1, 0.6])
def test_an_early_start_out_of_range_is_refused(bad):
    with pytest.raises(ValueError, match="early_s"):
        ListenParams(early_s=bad)
    with pytest.raises(ValueError, match="backlog_hold_s"):
        ListenParams(backlog_hold_s=bad - 1.0)


class ManyEngine(Engine):
    """:class:`Engine` that also reads several windows at once (as Whisper's ``decode_many``)."""

    def __init__(self, margin: float = 40.0):
        super().__init__(margin)
        self.batches = []

    def decode_many(self, items):
        self.batches.append(len(items))
        return [self.decode(w, rate) for w, rate in items]


def two_seats() -> np.ndarray:
    """Two seats' words 0.3 s apart (each alone on its channel)."""
    one = signal()
    other = np.roll(signal(), int(0.3 * RATE))
    return np.stack([one, other], axis=1)


def hear_two(engine, behind_until: int | None):
    """Events of :func:`two_seats`; the listener is told it is behind for every block before
    sample ``behind_until`` (None: never asked)."""
    x = two_seats()
    lis = Listener(["aki", "ben"], 2, RATE, engine)
    now = {"k": 0}
    if behind_until is not None:
        lis.backlog = lambda: now["k"] < behind_until
    events = []
    for k in range(0, len(x), 320):
        now["k"] = k
        events += [(k, e) for e in lis.update(Block(k, x[k : k + 320], RATE))]
    return events + [(len(x), e) for e in lis.close_window()]


def test_behind_the_words_released_meanwhile_are_decoded_together_and_are_the_same():
    alone, together = ManyEngine(), ManyEngine()
    plain = hear_two(alone, None)
    behind = hear_two(together, behind_until=int(2.2 * RATE))  # behind until both words have ended
    assert alone.batches == [] and len(alone.windows) == 2  # released one at a time: one by one
    assert together.batches == [2]  # held while behind, then read in one call
    assert [e for _, e in behind] == [e for _, e in plain]  # the same events, in the same order
    assert [k for k, _ in behind] > [k for k, _ in plain]  # only later


def test_behind_for_too_long_the_word_is_read_anyway():
    engine = ManyEngine()
    behind = hear_two(engine, behind_until=10 ** 9)  # always behind
    plain = hear_two(ManyEngine(), None)
    assert [e for _, e in behind] == [e for _, e in plain]
    first = [k for k, e in behind if e["type"] == "shout"][0]
    assert first < len(two_seats())  # not held to the end: backlog_hold_s (1 s) after its end


def test_the_backlog_is_found_under_the_wrappers_of_a_live_source():
    from audio.hearing import backlog_of

    class Live:
        def backlog(self):
            return True

    class Wrap:
        def __init__(self, inner, name):
            setattr(self, name, inner)

    live = Live()
    assert backlog_of(Wrap(Wrap(live, "source"), "source"))() is True
    assert backlog_of(Wrap(Wrap(object(), "source"), "source")) is None


def test_behind_a_word_read_early_does_not_wait():
    x = signal()
    engine = ManyEngine()
    lis = Listener(["aki"], 1, RATE, engine, params=EARLY)
    behind = {"on": False}
    lis.backlog = lambda: behind["on"]
    released = None
    for k in range(0, len(x), 320):
        behind["on"] = lis.early["decoded"] > 0  # behind from the early decoding on (it took the time)
        if any(e["type"] == "shout" for e in lis.update(Block(k, x[k : k + 320, None], RATE))):
            released = k
    assert lis.early["used"] == 1 and released is not None
    first, _, _ = hear(x, EARLY, Engine())
    assert released == [k for k, e in first if e["type"] == "shout"][0]  # as soon as the detector ends it

"""The replay's trimmed ends (:mod:`audio.trim`): a span is cut where the seat stops dominating
its neighbours' predicted leak, and a cut while the seat's channel stays as loud is marked
``cut_short`` (its word may go on: the listener makes it unclear)."""

import numpy as np
import pytest

from audio.onset import Segment
from audio.trim import CUT_SHORT_DB, TrimmingListener

RATE = 16000


def _listener(x: np.ndarray, crosstalk_db: float = -10.0) -> TrimmingListener:
    """A TrimmingListener over the channels ``x`` (samples × channels), nothing else set up:
    only its trimming is asked."""
    lis = TrimmingListener.__new__(TrimmingListener)
    lis.rate, lis.used, lis.leak = RATE, x.shape[1], 10 ** (crosstalk_db / 10)
    lis.room, lis.verifier = False, None
    lis.read_whole = False  # (the word read whole: tests below, test_read_whole.py)
    lis._samples = lambda ch, a, b: x[max(a, 0): max(b, 0), ch]
    return lis


def _tone(seconds: float, db: float, f: float = 300.0) -> np.ndarray:
    t = np.arange(int(seconds * RATE)) / RATE
    return np.sqrt(2) * 10 ** (db / 20) * np.sin(2 * np.pi * f * t)


def _table(own_after_db: float) -> np.ndarray:
    """Seat 0 says a word at -20 dBFS for 0.3 s, then goes on at ``own_after_db`` for 0.4 s;
    from 0.3 s seat 1 shouts at -14 dBFS (its leak, -10 dB, then reaches seat 0's level)."""
    x = np.zeros((int(0.7 * RATE), 2))
    x[: int(0.3 * RATE), 0] = _tone(0.3, -20.0)
    x[int(0.3 * RATE):, 0] = _tone(0.4, own_after_db)
    x[int(0.3 * RATE):, 1] = _tone(0.4, -14.0, f=520.0)
    return x


@pytest.mark.parametrize("after_db, cut_short", [(-21.0, True), (-20.0 - CUT_SHORT_DB + 1, True),
                                                  (-20.0 - CUT_SHORT_DB - 1, False), (-40.0, False)])
def test_a_word_cut_while_its_channel_stays_loud_is_cut_short(after_db, cut_short):
    x = _table(after_db)
    lis = _listener(x)
    end, short = lis._trim(0, 0, len(x))
    assert end < len(x)  # the neighbour's leak stops the seat dominating: the span is cut ...
    assert abs(end / RATE - 0.33) < 0.02  # ... 30 ms after its last dominant frame
    assert short is cut_short  # ... and marked only where the channel stays within CUT_SHORT_DB


def test_a_span_ending_soon_after_the_cut_is_not_cut_short():
    """The detector ended the span (quiet) less than CUT_SHORT_S after the cut: the word ended."""
    x = _table(-21.0)[: int(0.4 * RATE)]
    end, short = _listener(x)._trim(0, 0, len(x))
    assert end < len(x) and not short


def test_a_span_the_seat_dominates_to_its_end_is_not_cut():
    x = _table(-21.0)
    x[:, 1] *= 0.01  # the neighbour 40 dB quieter: the seat dominates throughout
    assert _listener(x)._trim(0, 0, len(x)) == (len(x), False)


def test_the_cut_short_span_reaches_the_listener_as_a_segment(monkeypatch):
    """What the listener is handed: the trimmed span, marked."""
    from audio.listen import Listener

    x = _table(-21.0)
    lis = _listener(x)
    monkeypatch.setattr(Listener, "_prepare", lambda self, seg, dry=False: (seg, None, None, None, None))
    seg = lis._prepare(Segment(0, 0, len(x), RATE))[0]
    assert seg.cut_short and seg.end < len(x)


@pytest.mark.parametrize("cut, whole, kept", [(("3",), ("3",), True), (("3",), ("salvage",), False),
                                              (("ika",), None, False), (None, None, False)])
def test_a_cut_short_word_is_kept_when_the_enrolled_voices_hear_the_same_call_in_the_whole_span(
        monkeypatch, cut, whole, kept):
    from types import SimpleNamespace

    from audio.listen import Listener

    x = _table(-21.0)
    lis = _listener(x)
    asked = []

    def enrolled(seg):
        asked.append(seg.end)
        return SimpleNamespace(tokens=whole), None

    lis._enrolled = enrolled
    monkeypatch.setattr(Listener, "_prepare",
                        lambda self, seg, dry=False: (seg, None, SimpleNamespace(tokens=cut), None, None))
    seg = lis._prepare(Segment(0, 0, len(x), RATE))[0]
    assert asked == [len(x)]  # the whole span was asked, once
    assert seg.end < len(x) and seg.cut_short is not kept


def test_the_judge_says_why_a_cut_short_word_is_unclear():
    from referee.judging.unclear import Clarity, shout_reason, shout_unclear
    from session.events import ShoutEvent

    ev = ShoutEvent(t=20.2, player="chie", words=(), t_end=20.45, extra={"cut_short": ["3"]})
    assert shout_unclear(ev, Clarity())
    assert "cut short while the player was still speaking" in shout_reason(ev, 19.6, Clarity())
    mixed = ShoutEvent(t=20.2, player="chie", words=(), t_end=20.45, extra={"mixed_with": "aki"})
    assert "aki's voice ran into it" in shout_reason(mixed, 19.6, Clarity())


def test_a_cut_short_word_is_a_shout_without_words_keeping_what_it_sounded_like():
    """The listener's side: the engine's word for a cut-short span is kept in ``cut_short``,
    not in ``words`` (the judge then finds the player unclear), and a span that was not cut
    short keeps its word."""
    from audio.lexicon import Parsed
    from audio.listen import Listener
    from audio.whisper import Heard

    lis = Listener(["aki", "ben"], 2, RATE, recognizer=object())
    heard = Heard("さん", ("3",), 0.9, Parsed(("3",)), {})
    for cut_short in (True, False):
        seg = Segment(0, 0, int(0.25 * RATE), RATE, cut_short=cut_short)
        (event,) = lis._finish((seg, None, None, None, None), [seg], heard)
        assert event["player"] == "aki"
        assert event["words"] == ([] if cut_short else ["3"])
        assert event.get("cut_short") == (["3"] if cut_short else None)

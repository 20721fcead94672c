"""The first correct player's latency after the deciding word ends, step by step
(``referee.live.word_split``): the hearing's timings of a shout joined with when the loop
took it, the merge released it and the judge announced it, on the session clock."""

import time

from referee.live.word_split import STEPS, WordSplit


def test_a_words_steps_are_timed_after_its_end_and_the_stream_that_held_it_is_named():
    w = WordSplit()
    t0 = time.monotonic() - 10.0  # the session started 10 s ago
    w.start_clock(t0)
    # the word: onset 9.0 s, end 9.3 s; its end decided at 9.41 (audio read to 9.40), read at
    # 9.42, sent at 9.43; vision promised only 8.9 when the loop took it (at ~10.0 s)
    row = {"player": "aki", "t": 9.0, "t_end": 9.3, "heard_to": 9.40, "decided": t0 + 9.41, "ready": t0 + 9.41,
           "read": t0 + 9.42, "sent": t0 + 9.43, "by": "enrollment", "prepare_cpu_ms": 1.5, "decode_cpu_ms": 0.0}
    w.timings([row, dict(row, player=None)], {"vision": 8.9, "hearing": 8.0, "sources": 9.5})
    w.first("aki", 9.0, 9.3, released=10.2, announced=10.25)
    w.first("ben", 9.0, 9.3, released=10.2, announced=10.25)  # never heard: not counted
    f = w.figures()
    assert set(STEPS) <= set(f) and f["by"] == {"enrollment": 1} and f["held_by"] == {"vision": 1}
    (word,) = f["words"]
    ms = word["ms"]
    assert (ms["heard_to"], ms["decided"], ms["read"], ms["sent"]) == (100, 110, 120, 130)
    assert ms["released"] == 900 and ms["announced"] == 950 and 690 <= ms["taken"] <= 760
    assert f["announced"] == {"n": 1, "median": 950, "p90": 950, "max": 950}
    assert f["prepare_cpu_ms"]["median"] == 2  # (1.5 rounded half to even)


def test_no_first_correct_word_no_figures():
    w = WordSplit()
    w.start_clock(time.monotonic())
    assert w.figures() is None

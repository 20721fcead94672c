"""The pure parts of ``benchmarks/bench_room_words.py`` (words heard whole in a reverberant room,
held out on real voices): the neighbour test on the construction's microphones and the rules'
scoring. The benchmark itself reads FSDD clips for minutes; not run here."""

from __future__ import annotations

import numpy as np

from audio.enroll import Verdict
from tests.conftest import load_benchmark

RATE = 8000


def _row(token, emb_call, emb_distance, dtw_nearest, speaking=True, level=True):
    emb = Verdict((emb_call,) if emb_call else None, emb_distance, 0.03, (emb_call,) if emb_call else None,
                  by="embedding")
    dtw = Verdict(None, 4.4, 0.3, (dtw_nearest,), by="dtw")
    return {"speaker": "fsdd:x", "token": token, "rt60": 0.3, "neighbour": "another", "dtw": dtw, "emb": emb,
            "speaking": speaking, "level": level}


def test_a_silent_neighbours_microphone_is_no_neighbour_speaking_a_speaking_one_is():
    b = load_benchmark("bench_room_words")
    rng = np.random.default_rng(0)
    own, other = rng.standard_normal(RATE // 2), rng.standard_normal(RATE // 2)
    x, start, end = b.room_table(own, None, 0.6, b.SEEDS[1], RATE)
    assert not b.speaks(x[start:end], 1)  # only the seat's leak and echo there
    x, start, end = b.room_table(own, other, 0.6, b.SEEDS[1], RATE)
    assert b.speaks(x[start:end], 1)
    assert end == start + RATE // 2 + int(b.END_S * RATE)


def test_the_shipped_rule_widens_the_cap_only_under_a_neighbour_with_the_templates_agreeing():
    b = load_benchmark("bench_room_words")
    assert b.call_at(_row("4", "4", 0.085, "4"), 0.1, "lean+speaking") == "4"
    assert b.call_at(_row("4", "4", 0.085, "4", speaking=False), 0.1, "lean+speaking") is None
    assert b.call_at(_row("4", "4", 0.085, "5"), 0.1, "lean+speaking") is None  # the templates lean elsewhere
    assert b.call_at(_row("4", "4", 0.085, "4"), 0.075, "lean+speaking") is None  # the shipped cap
    assert b.call_at(_row("4", "4", 0.05, "5", speaking=False), 0.075, "lean+speaking") == "4"  # within: as ever
    assert b.call_at(_row(None, "9", 0.09, "5", speaking=False), 0.1, "cap") == "9"  # a non-call named: the cap alone


def test_the_totals_count_right_and_wrong_per_rule_and_speaker():
    b = load_benchmark("bench_room_words")
    rows = [_row("4", "4", 0.085, "4"), _row(None, "9", 0.09, "9", speaking=False), _row("2", None, 0.2, "3")]
    (another,) = [r for r in b.summary(rows) if r["neighbour"] == "another"]
    assert another["cases"] == 3 and another["non_calls"] == 1 and another["speaking"] == 2
    assert another["rules"]["lean+speaking 0.1"] == {"x": (1, 0)}
    assert another["rules"]["lean 0.1"] == {"x": (1, 1)}
    assert b.totals(b.summary(rows))["cap 0.075"] == {"x": (0, 0)}

"""The pure parts of ``benchmarks/bench_read_whole.py`` (a cut-short word read whole, held out
on real voices): the two-seat reverberant table and the rules' scoring. The benchmark itself
reads FSDD clips for minutes; not run here."""

from __future__ import annotations

import numpy as np

from tests.conftest import load_benchmark

RATE = 8000


def _row(token, whole, cut=None, leans=None, neighbour=False, contains=None):
    return {"speaker": "fsdd:x", "file": "f", "token": token, "kind": "another", "offset": 0.1, "whole": whole,
            "by": "dtw", "cut": cut, "cut_leans": leans, "neighbour_says": neighbour,
            "contains_cut": whole is not None and whole in (cut, leans) if contains is None else contains}


def test_the_table_puts_each_word_on_its_microphone_and_10_dB_down_on_the_other():
    b = load_benchmark("bench_read_whole")
    own, other = np.random.default_rng(0).standard_normal(RATE // 2), np.zeros(RATE // 2)
    x, start, end = b.table(own, other, RATE // 10, RATE)
    # the whole span ends 0.15 s after the later word (the neighbour's, 0.1 s later) ends
    assert start == int(b.BEFORE_S * RATE) and end == start + RATE // 10 + RATE // 2 + int(b.END_S * RATE)
    word = slice(start, start + RATE // 2)
    ratio_db = 10 * np.log10(np.mean(x[word, 0] ** 2) / np.mean(x[word, 1] ** 2))
    assert abs(ratio_db + b.LEAK_DB) < 1.0  # the leak; both microphones through rooms of one RT60


def test_the_shipped_rule_takes_the_whole_call_only_where_it_contains_the_cut_part():
    rules = load_benchmark("bench_read_whole").RULES
    shipped = rules["whole+leans|today"]
    assert shipped(_row("4", "4", leans="4")) == "4"  # the cut part leans to it: read whole
    assert shipped(_row("ikatako", "ikatako", cut="ika")) is None  # the cut part is another call: unclear
    assert shipped(_row("4", "4", leans="4", neighbour=True)) is None  # a neighbour may have said it
    assert shipped(_row("4", "4", cut="4")) == "4"  # as before: the cut span's call, the same
    assert rules["whole"](_row("one", "9", leans="5")) == "9"  # the dropped rule: a wrong call taken


def test_the_summary_counts_right_and_wrong_per_speaker():
    b = load_benchmark("bench_read_whole")
    rows = [_row("4", "4", leans="4"), _row(None, "9", leans="5"), _row("2", None)]
    (another,) = [r for r in b.summary(rows) if r["neighbour"] == "another"]
    assert another["cases"] == 3 and another["non_calls"] == 1
    assert another["whole_right"] == 1 and another["whole_wrong"] == 1
    assert another["whole"] == {"x": (1, 1)} and another["whole+leans|today"] == {"x": (1, 0)}

"""The analysis of ``benchmarks/bench_confidence.py`` on synthetic numbers (the benchmark itself
hears and sees the shared real data; too slow for the tests): the bins, the lowest threshold
right 99 % of the time, and that each fold's threshold is chosen without the fold."""

from __future__ import annotations

from tests.conftest import load_benchmark


def _bench():
    return load_benchmark("bench_confidence")


def obs(conf, right, fold="a"):
    return _bench().Observation(conf, right, fold)


def test_bins_count_each_observation_once_the_last_bin_closed():
    b = _bench()
    got = b.bins([obs(0.0, False), obs(0.49, True), obs(0.5, True), obs(0.95, False), obs(1.0, True)])
    assert [(x.lo, x.n, x.right) for x in got] == [(0.0, 2, 1), (0.5, 1, 1), (0.7, 0, 0), (0.8, 0, 0),
                                                   (0.9, 0, 0), (0.95, 2, 1)]
    assert got[2].accuracy is None and got[0].accuracy == 0.5


def test_the_lowest_threshold_right_99_percent_of_the_time():
    b = _bench()
    # 200 right at 0.6..0.99, one wrong at 0.7, four wrong below 0.5 (two at 0.45: 200/203 above it)
    many = [obs(0.6 + 0.39 * k / 199, True) for k in range(200)] + [obs(0.7, False)] + [obs(c, False) for c in (0.1, 0.2, 0.45, 0.45)]
    t = b.lowest_threshold(many)
    kept = b.above(many, t)
    assert sum(o.right for o in kept) / len(kept) >= 0.99
    assert t == 0.6  # one wrong in 201 is within 99 %; 3 in 203 are not
    assert b.lowest_threshold([obs(0.9, False), obs(0.8, True)]) is None  # the top one is wrong: none reaches
    assert b.lowest_threshold([obs(0.3, True), obs(0.9, True)]) == 0.3
    assert b.lowest_threshold([]) is None


def test_each_fold_is_held_out_of_its_own_threshold():
    b = _bench()
    # fold x is right from 0.5 on, fold y only from 0.8 on: each fold gets the other's threshold
    x = [obs(0.5, True, "x"), obs(0.9, True, "x")]
    y = [obs(0.6, False, "y"), obs(0.8, True, "y")]
    folds = {f.name: f for f in b.held_out(x + y)}
    assert folds["x"].threshold == 0.8 and (folds["x"].clear, folds["x"].right) == (1, 1)
    assert folds["y"].threshold == 0.5 and (folds["y"].clear, folds["y"].right, folds["y"].wrong_total) == (2, 1, 1)
    assert b.held_out([obs(0.5, False, "x"), obs(0.9, True, "y")])[1].threshold is None  # x alone reaches none

"""The adaptive pose rate: the stride climbs while the pose workers lag the clock and comes
back down once they keep up; its bounds and thresholds are validated."""

from __future__ import annotations

import pytest

from referee.live.pacing import PoseRate, PoseRateParams


P = PoseRateParams(min_every=4, max_every=12, behind_s=0.45, window_s=1.0, caught_up_s=0.25, calm_s=2.0, hold_s=1.0,
                   retry_s=0.0)


def _feed(rate, t0, t1, lag, step=0.1):
    """Readings every ``step`` s from t0 to t1 (inclusive); the changes they made."""
    out = []
    n = round((t1 - t0) / step)
    for k in range(n + 1):
        new = rate.update(round(t0 + k * step, 3), lag(t0 + k * step) if callable(lag) else lag)
        if new is not None:
            out.append((round(t0 + k * step, 3), new))
    return out


def test_the_stride_climbs_while_behind_and_comes_down_when_calm():
    rate = PoseRate(8, P)
    assert _feed(rate, 0.0, 0.9, 0.9) == []  # not a full window of readings yet
    assert _feed(rate, 1.0, 1.0, 0.9) == [(1.0, 12)]
    assert _feed(rate, 1.1, 5.0, 2.0) == []  # the upper bound
    assert _feed(rate, 5.1, 7.0, 0.3) == []  # between the thresholds: stays
    changes = _feed(rate, 7.1, 30.0, 0.1)
    assert [n for _, n in changes] == [8, 6, 4] and rate.every == 4  # down to the lower bound
    assert changes[0][0] == pytest.approx(8.1)  # once most of calm_s was calm
    assert all(b - a >= 2.0 - 1e-9 for (a, _), (b, _) in zip(changes, changes[1:]))
    assert [c[1] for c in rate.changes] == [12, 8, 6, 4]


def test_single_slow_readings_do_not_move_it_a_sustained_lag_does():
    rate = PoseRate(8, P)
    spiky = lambda t: 2.0 if round(t * 10) % 4 == 0 else 0.3  # noqa: E731  one reading in four slow
    assert _feed(rate, 0.0, 10.0, spiky) == []
    (when, new), = _feed(rate, 10.1, 12.0, 0.6)
    assert new == 12 and 10.1 < when <= 11.1  # once most of a window lags


def test_a_stride_the_workers_fell_behind_at_is_retried_later_and_later():
    rate = PoseRate(6, PoseRateParams(min_every=6, max_every=8, window_s=1.0, calm_s=2.0, hold_s=1.0, retry_s=10.0))
    assert _feed(rate, 0.0, 1.0, 0.9) == [(1.0, 8)]  # 6 fell behind
    assert _feed(rate, 1.1, 30.0, 0.1)[0] == (pytest.approx(11.0), 6)  # tried again after retry_s, not at once
    (when, new), = _feed(rate, 30.1, 31.5, 0.9)
    assert new == 8  # behind again
    again = _feed(rate, 31.6, 80.0, 0.1)
    assert again[0][1] == 6 and again[0][0] == pytest.approx(when + 20.0)  # twice as long this time


def test_the_start_is_clipped_to_the_bounds():
    assert PoseRate(2, PoseRateParams(min_every=4)).every == 4
    assert PoseRate(30, PoseRateParams(max_every=16)).every == 16
    assert PoseRate(30).every == 8


@pytest.mark.parametrize("kw", [dict(min_every=0), dict(min_every=8, max_every=4), dict(caught_up_s=0.5, behind_s=0.4),
                                dict(calm_s=0), dict(window_s=0), dict(hold_s=-1), dict(retry_s=-1)])
def test_bad_params_are_refused(kw):
    with pytest.raises(ValueError):
        PoseRateParams(**kw)


def test_a_seats_stride_changes_between_frames_with_what_depends_on_it():
    from vision.hands import LOWER_FRAMES, SeatHands
    from vision.parallel import set_every

    seat = SeatHands("aki", (0, 0, 100, 100), every=8, phase=1)
    fresh = SeatHands("aki", (0, 0, 100, 100), every=4, phase=1)
    set_every(seat, 4)
    assert seat.every == 4 and seat.due(3) and not seat.due(4)
    assert seat.arms["left"].lower_frames == fresh.arms["left"].lower_frames
    assert seat._crops.maxlen == fresh._crops.maxlen and seat.reanalyse
    set_every(seat, 1)
    assert seat.arms["right"].lower_frames == LOWER_FRAMES and not seat.reanalyse

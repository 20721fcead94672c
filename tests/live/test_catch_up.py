"""A stall of the live loop must not lose the hands raised during it.

On a loaded machine one vision-stage call took up to 1.5 s right after a card's reveal —
when the players react. The camera kept capturing; handing the stage only the newest frame
afterwards left no seat a frame of the raise. Here the live loop's frame choice
(:func:`referee.live.pacing.frames_for_stage`) runs on the demo's frames with that stall
replayed deterministically (frames handed at a loaded machine's rate, then nothing from
23.53 s to 25.0 s, the pattern of the run that lost the ``ika`` card's three hands), through
the seats' real pose and arm tracking at the live stride of 8."""

from __future__ import annotations

from collections import deque

import pytest

from referee.live.pacing import CatchUpParams, catch_up, frames_for_stage
from tests.live.helpers import DEMO, demo_calibration, demo_record
from vision.video import Frame

#: the stall seen at load 9.3 (capture times of the last frame before it and the first after)
STALL = (23.53, 25.0)
#: the stretch replayed: the ika card is revealed at 23.1 s, three hands go up at 23.68-23.87
#: and down at 25.1-25.3 s
SPAN = (22.0, 26.0)


def _f(t: float) -> Frame:
    return Frame(round(t * 30), round(t, 6), None)


def test_steady_skips_stay_skipped_and_a_stall_gives_its_frames_thinned_oldest_first():
    p = CatchUpParams(gap_s=0.25, step_s=0.066, ring_s=2.0)
    ring = [_f(k / 30) for k in range(0, 61)]  # 0.0 .. 2.0 s
    assert catch_up(ring, None, _f(1.0), p) == []  # the first frame: nothing before it
    assert catch_up(ring, 0.9, _f(1.0), p) == []  # a steady skip of two frames
    got = catch_up(ring, 0.5, _f(1.5), p)
    ts = [f.t for f in got]
    assert ts == sorted(ts) and all(0.5 < t < 1.5 for t in ts)
    gaps = [b - a for a, b in zip([0.5, *ts], [*ts, 1.5])]
    assert min(gaps) >= 0.066 - 1e-6 and max(gaps) <= 0.1 + 1e-6  # every 2nd frame of 30 fps
    assert [f.t for f in frames_for_stage(ring, 0.5, _f(1.5), p)] == [*ts, 1.5]
    assert [f.t for f in frames_for_stage(ring, 0.5, _f(1.5), None)] == [1.5]  # catch-up off
    # a stage that is quick as a rule catches a stall up; one slow on every frame (a steady
    # overload: catching up would only add lag) does not, one slow frame among quick ones does
    assert [f.t for f in frames_for_stage(ring, 0.5, _f(1.5), p, [0.002] * 15)] == [*ts, 1.5]
    assert [f.t for f in frames_for_stage(ring, 0.5, _f(1.5), p, [0.05] * 15)] == [1.5]
    assert [f.t for f in frames_for_stage(ring, 0.5, _f(1.5), p, [0.002] * 14 + [1.4])] == [*ts, 1.5]
    # nor while the pose workers lag as a rule (one stall's reading does not count)
    assert [f.t for f in frames_for_stage(ring, 0.5, _f(1.5), p, [0.002] * 15, [0.9] * 15)] == [1.5]
    assert [f.t for f in frames_for_stage(ring, 0.5, _f(1.5), p, [0.002] * 15, [0.1] * 14 + [1.5])] == [*ts, 1.5]
    with pytest.raises(ValueError):
        CatchUpParams(gap_s=0.05, step_s=0.1)


def _hands_seen_through_a_stall(params: CatchUpParams | None) -> set[tuple[str, str, str]]:
    """The live loop's choice of frames over :data:`SPAN`, with :data:`STALL`, through the
    seats as the pose workers run them (stride 8, staggered): the hand events found."""
    from vision.hands import SeatHands
    from vision.table import TableLayout
    from vision.video import read_frames

    layout = TableLayout.of(demo_calibration())
    seats = [SeatHands(name, box.to_list(), every=8, phase=i) for i, (name, box) in enumerate(layout.seats)]
    ring: deque[Frame] = deque(maxlen=params.ring_frames(30.0) if params else 8)  # the camera's ring
    events, processed, last_t = [], 0, None
    try:
        for fr in read_frames(DEMO / "session.mp4"):
            if fr.t < SPAN[0]:
                continue
            if fr.t > SPAN[1]:
                break
            ring.append(fr)
            k = fr.index
            stalled = STALL[0] + 1e-3 < fr.t < STALL[1] - 1e-3
            # a loaded loop takes about every second frame; nothing during the stall
            if stalled or (k % 2 and abs(fr.t - STALL[1]) > 1e-3):
                continue
            for f in frames_for_stage(list(ring), last_t, fr, params):
                last_t = f.t
                for s in seats:
                    events += s.update(processed, f.t, f.image)
                processed += 1
    finally:
        for s in seats:
            s.close()
    return {(e.player, e.side, e.state) for e in events if STALL[0] < e.t < STALL[1]}


def test_the_hands_raised_during_a_stall_are_seen():
    truth = {(e.player, e.side, e.state) for e in demo_record().events
             if e.type == "hand" and STALL[0] < e.t < STALL[1]}
    assert truth == {("ben", "right", "up"), ("aki", "left", "up"), ("chie", "left", "up")}
    seen = _hands_seen_through_a_stall(CatchUpParams())
    assert seen == truth

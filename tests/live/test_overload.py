"""Under overload the pose rate adapts: a recording paced in real time through the live path
with an artificially slow pose stage (every analysed seat costs 0.25 s more) — the stride
climbs, each change is a status event in the record, and the pose never falls seconds
behind the clock. Not a speed test: the bound is what the design guarantees under any load
(the camera hands over its newest frame, the rest are skipped and counted)."""

from __future__ import annotations

import io
import os
import time

import pytest

from session.record import read_record
from tests.live.helpers import DEMO, demo_clip

SECONDS = 8.0


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    return demo_clip(tmp_path_factory.mktemp("clip"), SECONDS)


#: seconds every frame costs more per seat whose pose is due on it
SLOW_POSE_S = 0.25


def slow_pose_stage(monkeypatch, seconds: float) -> None:
    """An overloaded machine, where a smaller stride costs more: every session frame (t >= 0:
    the warm-up's frames, stamped before 0, stay quick) costs ``seconds`` more per seat whose
    pose is due on it, inside the vision stage's call (the loop times it)."""
    from vision.table import TableWatcher

    update = TableWatcher.update

    def slow(self, frame):
        due = sum(1 for s in self.seats if s.due(frame.index)) if frame.t >= 0 else 0
        if due:
            time.sleep(seconds * due)
        return update(self, frame)

    monkeypatch.setattr(TableWatcher, "update", slow)


def test_a_slow_pose_stage_raises_the_stride_the_change_is_recorded_and_the_lag_stays_bounded(clip, tmp_path,
                                                                                             monkeypatch):
    from referee.live.run import LiveOptions, run_live
    from referee.live.terminal import TerminalView

    video, wav = clip
    slow_pose_stage(monkeypatch, SLOW_POSE_S)
    opts = LiveOptions(calibration=DEMO / "calibration.json", out=tmp_path / "out", from_video=video, audio=wav,
                       window=False, voice=False, pose_every=4)
    result = run_live(opts, say=lambda s: None,
                      view_factory=lambda state, controls: TerminalView(state, controls, out=io.StringIO(), keys=None))
    changes = result.figures["pose_every"]["changes"]
    assert changes and changes[0][1] > 4, changes  # it climbed
    rec = read_record(result.record)
    recorded = [e for e in rec.events if e.type == "warning" and e.extra.get("source") == "pose"]
    assert [e.extra["pose_every"] for e in recorded] == [c[1] for c in changes]
    assert "pose every" in recorded[0].message and "fell behind" in recorded[0].message
    lag = result.figures["latency"]["pose_lag_ms"]
    assert lag["n"] > 20 and lag["median"] < 1000, lag  # bounded: never seconds behind
    if lag["max"] >= 3000 and os.getloadavg()[0] > 2 * (os.cpu_count() or 1):
        # the pose workers themselves starved by other processes (not by this test's slow stage)
        pytest.xfail(f"pose lag max {lag['max']} ms at load {os.getloadavg()} (more than twice the cores)")
    assert lag["max"] < 3000, lag
    assert result.figures["skipped"] > 0  # the frames it had no time for were skipped (counted)

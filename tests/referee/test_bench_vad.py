"""The scoring of ``benchmarks/bench_vad.py`` on synthetic onsets (the benchmark itself runs
five voice-activity candidates over 40 minutes of audio; too slow for the tests)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import load_benchmark


def _bench():
    return load_benchmark("bench_vad")


def test_each_truth_and_each_detection_counted_once_closest_first():
    b = _bench()
    truths = [1.0, 3.5, 6.0, 8.5]
    # 3.5: two detections (the closer one counts, the other is unmatched); 6.0: too early
    # (-0.2 s); 8.5: late (+0.25 s) but within the window; 12.0: no shout there
    errors, extra = b.match(truths, [1.01, 3.45, 3.52, 5.8, 8.75, 12.0])
    assert sorted(round(e, 3) for e in errors) == [0.01, 0.02, 0.25]
    assert extra == 3  # 3.45 (the second at 3.5), 5.8, 12.0


def test_one_detection_between_two_truths_finds_only_one():
    b = _bench()
    errors, extra = b.match([1.0, 1.2], [1.15])
    assert [round(e, 3) for e in errors] == [-0.05] and extra == 0


def test_no_detections():
    b = _bench()
    errors, extra = b.match([1.0, 2.0], [])
    assert errors == [] and extra == 0
    r = b.summary(errors, 2, extra)
    assert r["found"] == 0 and r["share"] == 0 and np.isnan(r["med_ms"])


def test_summary_and_target():
    b = _bench()
    errors = [0.004, -0.006, 0.008, 0.05] + [0.002] * 96
    r = b.summary(errors, 100, 1)
    assert r["found"] == 100 and r["share"] == 1.0 and r["extra"] == 1
    assert r["med_ms"] == pytest.approx(2.0) and r["bias_ms"] == pytest.approx(2.0)
    assert b.meets(r)
    assert not b.meets(b.summary(errors[:96], 100, 0))  # 96 % found: under the 97 % target


def test_run_rule_joins_short_gaps_and_drops_short_runs():
    b = _bench()
    f = 0.01  # 10 ms frames: min speech 10 frames, a gap under 10 frames joins
    active = np.zeros(100, bool)
    active[5:9] = True  # 40 ms alone: too short
    active[30:36] = True
    active[40:46] = True  # joined with the run before over a 40 ms gap: 160 ms from frame 30
    active[80:92] = True  # 120 ms
    assert b.run_rule(active, f) == pytest.approx([0.30, 0.80])


def test_true_onset_is_the_first_frame_within_30_db_of_the_loudest():
    b = _bench()
    x = np.zeros(b.RATE)
    x[3200:3360] = 0.001 * np.sign(np.sin(np.arange(160)))  # -60 dB re the loud part: not the onset
    x[4000:8000] = 0.02  # -34 dB: still not
    x[8000:12000] = 1.0
    assert b.true_onset(x) == 8000


def test_found_per_speaker():
    b = _bench()
    truths = [1.0, 3.5, 6.0, 8.5]
    speakers = np.array(["fsdd:a", "fsdd:b", "fsdd:a", "fsdd:b"])
    assert b.per_speaker(truths, [1.01, 6.4, 8.52], speakers) == "a 1/2, b 1/2"  # 6.4: +0.4 s, outside


def test_the_oracle_line_measures_how_late_the_audible_onset_is():
    b = _bench()
    truths = np.array([1.0, 3.5, 6.0])
    audible = truths + np.array([0.01, 0.03, 0.05])  # the clean voice reaches the noise 10, 30, 50 ms in
    line = b.oracle_line("white", truths, audible)
    assert line.startswith("white: ") and "30 ms late at the median" in line and "(p90 46 ms)" in line


def test_the_candidates_include_the_detector_before_the_steady_floor():
    from audio.onset import OnsetParams

    b = _bench()
    names = b.candidates(-20.0)
    assert {"project", "project-fixed", "project-fixed+level"} <= set(names)
    assert OnsetParams().steady_gate_db is not None  # (so project and project-fixed differ)

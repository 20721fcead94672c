"""``referee replay VIDEO... --ray``: the sessions as Ray tasks give the local pool's records.

Marked ``ray`` and skipped without Ray (the optional extra ``[scale]``; CI does not install it):
``pip install -e '.[scale]' && pytest -m ray tests/referee/test_replay_ray.py``. The missing-Ray
error is tested without Ray too.

Kept short: a 2-second clip of the demo (cards 1 and 2, 60 frames) with the first two seats'
microphones as its own audio track (MKV, PCM), two seats, no enrolled voices (so Whisper hears
the shouts, from the worker's loaded model), pose in the session's process on every 3rd frame.
One Ray of 2 CPUs (``ray.init(num_cpus=2)``) serves the module.
"""

from __future__ import annotations

import importlib.util
import itertools
import logging
import os
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import FIXTURES, ROOT, two_seat_calibration

DEMO = FIXTURES / "demo"
#: the clip: the demo's frames 780-840 (26.0-28.0 s: card 2 and both seats' shouts)
FIRST, LAST = 780, 840
RAY_MISSING = importlib.util.find_spec("ray") is None
#: why a ``ray`` test is skipped
WITHOUT_RAY = "Ray is not installed (the optional extra: pip install -e '.[scale]')"
needs_ray = pytest.mark.skipif(RAY_MISSING, reason=WITHOUT_RAY)


def _write_clip(path: Path, frames: list, pcm: np.ndarray, rate: int) -> None:
    """Frames and the seats' samples in one file, as a recorder that keeps its audio does."""
    import av

    with av.open(str(path), "w") as out:
        v = out.add_stream("libx264", rate=Fraction(30))
        v.width, v.height, v.pix_fmt = frames[0].shape[1], frames[0].shape[0], "yuv420p"
        v.options = {"crf": "30", "preset": "veryfast"}
        a = out.add_stream("pcm_s16le", rate=rate, layout="stereo")
        for img in frames:
            for p in v.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(img), format="bgr24")):
                out.mux(p)
        for p in v.encode():
            out.mux(p)
        for k in range(0, len(pcm), rate // 10):
            block = np.ascontiguousarray(pcm[k:k + rate // 10].reshape(1, -1))
            af = av.AudioFrame.from_ndarray(block, format="s16", layout="stereo")
            af.sample_rate, af.pts = rate, k
            for p in a.encode(af):
                out.mux(p)
        for p in a.encode():
            out.mux(p)


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    from audio.capture import read_all
    from vision.video import read_frames

    d = tmp_path_factory.mktemp("ray-clip")
    frames = [f.image for f in itertools.islice(read_frames(DEMO / "session.mp4"), FIRST, LAST)]
    samples, rate = read_all(DEMO / "seats.wav")
    pcm = (np.clip(samples[int(FIRST / 30 * rate):int(LAST / 30 * rate), :2], -1, 1) * 32767).astype("<i2")
    _write_clip(d / "a.mkv", frames, pcm, rate)
    shutil.copy(d / "a.mkv", d / "b.mkv")
    (d / "broken.mkv").write_bytes(b"not a video at all")
    two_seat_calibration(d)
    return d


def _settings():
    from referee.replay import ReplaySettings

    return ReplaySettings(pose_every=3)


@pytest.fixture(scope="module")
def local_pool(clip):
    """The two sessions through this machine's process pool (``referee replay a b --jobs 2``)."""
    from referee.replay import replay_many

    return list(replay_many([clip / "a.mkv", clip / "b.mkv"], clip / "calibration.json", clip / "local",
                            _settings(), jobs=2))


@pytest.fixture(scope="module")
def ray2():
    if RAY_MISSING:
        pytest.skip(WITHOUT_RAY)
    import ray

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # (no report to Ray's servers from a test)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR,
             object_store_memory=128 * 2**20)
    yield ray
    ray.shutdown()


def _files(folder: Path) -> dict[str, bytes]:
    """A session's output folder (``.referee-run.json`` says which run wrote it and when: left out)."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name != ".referee-run.json"}


@pytest.mark.ray
@needs_ray
def test_ray_sessions_write_the_local_pools_records_and_reports(clip, local_pool, ray2):
    """Byte for byte: each session's record and report, where the local pool writes them; the
    summaries the CLI prints are the same; each worker read Whisper once, at its start."""
    from referee.replay_ray import replay_many_ray

    videos = [clip / "a.mkv", clip / "b.mkv"]
    summaries = list(replay_many_ray(videos, clip / "calibration.json", clip / "ray", _settings(), jobs=2))
    assert [s.video for s in summaries] == videos
    for local, remote in zip(local_pool, summaries):
        assert local.error is None and remote.error is None, (local.error, remote.error)
        assert remote.record == (clip / "ray" / local.video.stem / "session.jsonl").absolute()
        assert _files(remote.record.parent) == _files(local.record.parent)
        assert (remote.table, remote.jsonl, remote.warnings) == (local.table, local.jsonl, local.warnings)
        assert remote.attempts == 1
        assert remote.worker["model_reads"] == 1 and remote.worker["loaded"][0] == "whisper-base"
    assert b'"type": "shout"' in _files(summaries[0].record.parent)["session.jsonl"]  # (Whisper heard)
    assert len({s.worker["pid"] for s in summaries}) == 2  # (one session per worker, at once)


@pytest.mark.ray
@needs_ray
def test_a_failing_session_is_retried_then_reported_and_the_other_is_judged(clip, local_pool, ray2):
    """One worker runs all three attempts (good, broken, broken again): the broken video is
    reported as the local pool reports it, after SESSION_ATTEMPTS runs, and the worker's
    models were read once for every session it ran."""
    from referee.replay_ray import SESSION_ATTEMPTS, replay_many_ray

    videos = [clip / "a.mkv", clip / "broken.mkv"]
    good, bad = replay_many_ray(videos, clip / "calibration.json", clip / "retry", _settings(), jobs=1)
    assert good.error is None and _files(good.record.parent) == _files(local_pool[0].record.parent)
    assert bad.error is not None and "broken.mkv is unreadable" in bad.error and bad.record is None
    assert (bad.attempts, good.attempts) == (SESSION_ATTEMPTS, 1)
    assert not (clip / "retry" / "broken").exists()
    assert bad.worker["pid"] == good.worker["pid"] and bad.worker["sessions"] == 1 + SESSION_ATTEMPTS
    assert bad.worker["model_reads"] == 1


@pytest.mark.ray
@needs_ray
def test_the_cli_starts_its_own_ray_quietly_and_names_the_failed_session(clip, tmp_path):
    """``referee replay broken.mkv --ray`` in a process of its own: a local Ray started and
    stopped, nothing of Ray's on the terminal, the session's one error line."""
    shutil.copy(clip / "broken.mkv", tmp_path / "broken.mkv")
    run = subprocess.run([sys.executable, "-m", "referee", "replay", "broken.mkv", "--calibration",
                          str(clip / "calibration.json"), "--out", "out", "--ray", "--jobs", "1"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        "replaying 1 session(s) on a Ray of this machine's cores into out/",
        f"referee: error: broken.mkv: video {tmp_path / 'broken.mkv'} is unreadable: invalid data found when "
        "processing input",
        "referee: error: 1 of 1 sessions could not be replayed (see above)"]
    assert run.stdout == ""


@pytest.mark.ray
@needs_ray
def test_an_address_that_is_not_one_is_one_line(run_cli, tmp_path):
    res = run_cli("replay", "--ray", tmp_path / "a.mp4", tmp_path / "b.mp4", "--calibration", tmp_path / "c.json")
    assert res.exit_code == 2
    assert "a.mp4: not a Ray address (local, auto, HOST:PORT or ray://HOST:PORT); write the videos before --ray" \
        in res.stderr


@pytest.mark.ray
@needs_ray
def test_a_cluster_that_does_not_answer_is_said_at_once():
    from referee.replay_ray import _probe
    from session.errors import RefereeError

    with pytest.raises(RefereeError, match=r"cannot reach the Ray cluster at ray://127.0.0.1:1: .*ray start --head"):
        _probe("ray://127.0.0.1:1")


def test_without_ray_the_option_is_one_line_naming_the_extra(run_cli, tmp_path, monkeypatch):
    """Ray is not in the default install: ``--ray`` says how to get it, in one line, no traceback."""
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails, as without the extra
    res = run_cli("replay", tmp_path / "a.mp4", tmp_path / "b.mp4", "--calibration", tmp_path / "c.json", "--ray")
    assert res.exit_code == 2
    assert res.stderr == "referee: error: --ray needs Ray, which the default install leaves out: " \
                         "pip install -e '.[scale]'\n"
    from tests.test_readme import _blocks

    for command in _blocks((ROOT / "README.md").read_text(encoding="utf-8"))[:2]:  # (the default install)
        assert not re.search(r"\bray\b|scale", command), command

"""Parts of the live driver that need no recording: the new-game loop, the latency probe."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from session.events import CardEvent, SessionHeader
from referee.live import run as live_run
from referee.live.latency import LatencyProbe


def test_new_game_closes_the_session_and_starts_the_next_in_a_folder_of_its_own(monkeypatch, tmp_path):
    from referee.commands import live as cmd

    calls = []

    def fake_run_live(opts, **kw):
        calls.append(opts.out)
        return live_run.LiveResult(out=opts.out, record=opts.out / "session.jsonl", video=opts.out / "video.mp4",
                                   audio=opts.out / "seats.wav", judgement=None, lines=[], warnings=[],
                                   figures={}, new_game=len(calls) < 3)

    monkeypatch.setattr(live_run, "run_live", fake_run_live)
    from referee.live import selftest

    checked = []  # (the camera and the seats' input are checked once, before the first game)
    monkeypatch.setattr(selftest, "check_sources", lambda camera, device, channels: checked.append(camera))
    monkeypatch.setattr(cmd, "_calibration", lambda path: SimpleNamespace(seat_channels=[0, 1]))
    opts = live_run.LiveOptions(calibration=Path("cal.json"), out=tmp_path / "o")
    cmd._run(opts, no_voice=True)
    assert calls == [tmp_path / "o", tmp_path / "o" / "game-2", tmp_path / "o" / "game-3"]
    assert len(checked) == 1


def test_the_latency_probe_measures_on_the_session_clock(monkeypatch):
    probe = LatencyProbe()
    probe.start(SessionHeader(t=0.0, game="ikatako", mode="versus", players=("aki", "ben")))
    clock = {"now": 1000.0}
    monkeypatch.setattr(live_run.time, "monotonic", lambda: clock["now"])
    probe.start_clock(990.0)  # session time now: 10.0
    probe.event(CardEvent(t=9.5, card="ika"))
    probe.announce([{"type": "announce", "what": "first", "player": "aki", "time": 0.4, "card": "ika",
                     "card_t": 9.5, "t": 9.99}])
    probe.announce([{"type": "announce", "what": "wrong", "player": "ben", "card": "ika", "card_t": 6.0, "t": 9.99}])
    probe.verdicts([{"type": "verdict", "t": 6.5, "card": "3"}])
    f = probe.figures()
    assert f["event_known_ms"]["card"]["median"] == 500
    assert f["first_announced_after_reaction_and_tie_ms"]["median"] == 67  # 10 - (9.5 + 0.4 + 0.033)
    assert f["wrong_missed_announced_after_window_ms"]["median"] == 1000  # 10 - (6 + 3)
    assert f["verdict_after_window_ms"]["median"] == 500


def test_live_checks_its_inputs_with_the_replays_preflight(tmp_path):
    """A calibration without a card zone is refused before anything loads (as replay does),
    not run into a session that sees no card."""
    import json

    from referee.preflight import PreflightError
    from tests.live.helpers import DEMO

    cal = json.loads((DEMO / "calibration.json").read_text(encoding="utf-8"))
    cal.update(zones={}, references=str(DEMO / "refs"), enroll=str(DEMO / "enroll"))
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(cal), encoding="utf-8")
    opts = live_run.LiveOptions(calibration=path, out=tmp_path / "out", from_video=DEMO / "session.mp4",
                                audio=DEMO / "seats.wav", window=False, voice=False)
    with pytest.raises(PreflightError, match="no card zone"):
        live_run.run_live(opts, say=lambda s: None, view_factory=lambda state, controls: None)


def test_the_self_test_the_session_and_the_next_game_share_one_set_of_pose_workers(monkeypatch, tmp_path):
    from referee.commands import live as cmd
    from referee.live import selftest

    seen = []

    def fake_run_live(opts, **kw):
        seen.append(kw["engines"])
        figures = {"selftest": None} if kw.get("selftest") else {}
        return live_run.LiveResult(out=opts.out, record=opts.out / "session.jsonl", video=opts.out / "video.mp4",
                                   audio=opts.out / "seats.wav", judgement=None, lines=[], warnings=[],
                                   figures=figures, new_game=len(seen) == 2)

    monkeypatch.setattr(live_run, "run_live", fake_run_live)
    monkeypatch.setattr(selftest, "render_text", lambda result: [])
    monkeypatch.setattr(selftest, "require_pass", lambda result, force: [])
    monkeypatch.setattr(selftest, "check_sources", lambda camera, device, channels: None)
    monkeypatch.setattr(cmd, "_calibration", lambda path: SimpleNamespace(seat_channels=[0, 1]))
    cmd._run(live_run.LiveOptions(calibration=Path("cal.json"), out=tmp_path / "o"), no_voice=True, selftest=True)
    assert len(seen) == 3 and seen[0] is seen[1] is seen[2]  # self-test, game 1, game 2


def test_lent_pose_workers_are_reset_for_the_next_session_in_the_same_processes():
    from referee.live.engines import LiveEngines
    from tests.live.helpers import demo_calibration
    from vision.table import TableLayout, TableWatcher

    layout = TableLayout.of(demo_calibration())
    engines = LiveEngines()
    try:
        tw1 = TableWatcher(layout, pose_every=8, pipeline=2)
        tw1.workers = engines.lend(tw1, 2)
        pids = [p.pid for p in engines._pool.procs]
        tw1.close()  # the session ends: the loan is returned, the workers keep running
        assert all(p.is_alive() for p in engines._pool.procs)
        tw2 = TableWatcher(layout, pose_every=8, pipeline=2)
        tw2.workers = engines.lend(tw2, 2)
        assert [p.pid for p in engines._pool.procs] == pids and (engines.started, engines.reused) == (1, 1)
        import numpy as np

        from vision.video import Frame

        for k in range(4):  # the reset workers answer frames of the new session
            tw2.update(Frame(k, k / 30, np.zeros((layout.height, layout.width, 3), np.uint8)))
        assert len(tw2._pending) == 2 and tw2.workers.collected_t == 1 / 30
        import time

        assert tw2.in_flight == 2  # (no card thread here: the pose frames not back yet)
        deadline = time.monotonic() + 20
        while not tw2.workers.ready() and time.monotonic() < deadline:
            time.sleep(0.01)
        tw2.collect_ready()  # answered frames are taken without more frames
        assert tw2.workers.collected_t >= 2 / 30 and tw2.in_flight < 2
        tw2.finish()
        assert tw2.workers.collected_t == 3 / 30 and not tw2.workers.ready()
        tw2.close()
    finally:
        engines.close()
    assert engines._pool is None


def test_the_probe_splits_a_hands_and_a_shouts_latency_into_their_parts(monkeypatch):
    from session.events import HandEvent, ShoutEvent

    probe = LatencyProbe()
    clock = {"now": 1000.0}
    monkeypatch.setattr(live_run.time, "monotonic", lambda: clock["now"])
    probe.start_clock(990.0)  # session time now: 10.0
    probe.found([HandEvent(t=9.0, player="aki", side="left", state="up")], confirmed_at=9.6)
    probe.found([ShoutEvent(t=9.2, player="aki", words=("ika",), t_end=9.5)])
    f = probe.figures()
    assert f["event_found_ms"]["hand"]["median"] == 1000 and f["event_found_ms"]["shout"]["median"] == 800
    parts = {k: v["median"] for k, v in f["parts_ms"].items()}
    assert parts == {"hand_onset_to_confirming_frame": 600, "hand_confirming_frame_to_found": 400,
                     "shout_utterance": 300, "shout_end_to_found": 500}


def test_the_live_input_is_watched_even_without_cancellation():
    """--no-demix (or no calibration recording): a dead microphone is still noticed."""
    import numpy as np

    from audio.capture import Block
    from referee.live.run import _open_live_audio

    class Tap:
        rate, channels = 16000, 2

        def __iter__(self):
            x = (np.random.default_rng(0).standard_normal((48000, 2)) * 1e-3).astype(np.float32)
            x[16000:, 1] = 0.0  # channel 1 unplugged at 1 s
            for k in range(0, len(x), 1600):
                yield Block(k, x[k : k + 1600], 16000, 0.0)

    warnings: list[str] = []
    source, heard_from = _open_live_audio({"tap": Tap(), "heard_from": "mics"}, warnings)
    assert heard_from == "mics" and not warnings and source.rate == 16000 and source.channels == 2
    assert len(list(source)) == 30
    assert [(n.channel, n.what, n.t) for n in source.watch.notices] == [(1, "dead", 1.0)]

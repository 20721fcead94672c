"""Parts of the live driver that need no recording: the new-game loop, the latency probe."""

from __future__ import annotations

from pathlib import Path

import pytest

from session.events import CardEvent, SessionHeader
from referee.live import run as live_run


def test_new_game_closes_the_session_and_starts_the_next_in_a_folder_of_its_own(monkeypatch, tmp_path):
    from referee.commands import live as cmd

    calls = []

    def fake_run_live(opts, **kw):
        calls.append(opts.out)
        return live_run.LiveResult(out=opts.out, record=opts.out / "session.jsonl", video=opts.out / "video.mp4",
                                   audio=opts.out / "seats.wav", judgement=None, lines=[], warnings=[],
                                   figures={}, new_game=len(calls) < 3)

    monkeypatch.setattr(live_run, "run_live", fake_run_live)
    opts = live_run.LiveOptions(calibration=Path("cal.json"), out=tmp_path / "o")
    cmd._run(opts, no_voice=True)
    assert calls == [tmp_path / "o", tmp_path / "o" / "game-2", tmp_path / "o" / "game-3"]


def test_the_latency_probe_measures_on_the_session_clock(monkeypatch):
    probe = live_run.LatencyProbe()
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

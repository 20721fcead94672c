"""Live without pose for the card-only games (issues 34 item 6 and 35): a game whose verdicts
use no hands (``rules.Game.uses_hands``) runs no seats live, as replay; the warm-up is paced by
the card zones' thread, which the pose workers used to pace."""

from __future__ import annotations

import dataclasses
import time

from session import calibration as cal_mod
from referee.commands.demo_files import TAKOYAKI_DEMO
from referee.live import run as live_run
from referee.live import warmup
from referee.live.warmup import warm_up


def test_live_runs_no_seats_for_a_card_only_game_unless_a_room_microphone_credits_the_words():
    cal = cal_mod.load(TAKOYAKI_DEMO / "calibration.json")
    assert cal.seats, "the demo's calibration marks the seats"
    assert live_run.live_layout(cal, "takoyaki").seats == ()
    assert live_run.live_layout(cal, "seasaltpaper").seats == ()
    assert len(live_run.live_layout(cal, "ikatako").seats) == len(cal.seats)  # (hands are judged)
    room = dataclasses.replace(cal, extra={**cal.extra, "room_microphone": True})
    assert len(live_run.live_layout(room, "takoyaki").seats) == len(cal.seats)


def test_the_warm_up_waits_for_the_card_zones_and_stays_before_the_session():
    """Without seats nothing paced the warm-up: it gave the zones' thread frames as fast as the
    stage took them (830 000 in 30 s, stamped up to 55 000 s into the session) and no card of
    the live TAKOYAKI demo was released. Now each frame waits for the zones and every frame
    is stamped before 0."""
    from referee.pipeline.vision import VisionStage
    from vision.video import read_frames

    cal = cal_mod.load(TAKOYAKI_DEMO / "calibration.json")
    stage = VisionStage(live_run.live_layout(cal, "takoyaki"), fps=15.0, workers=0, card_every=2, pose_every=8,
                        pipeline=0)
    try:
        stage.tw.start_card_thread()
        image = next(iter(read_frames(TAKOYAKI_DEMO / "session.mp4"))).image
        c0 = time.monotonic()
        n, _ = warm_up(stage, image, 15.0, align=8)
        assert n % 8 == 1 and n < 200, n  # (12 quick frames, aligned; the zones' first look is slow)
        assert warmup.WARM_FROM_S + (n - 1) / 15.0 < 0
        assert stage.tw.card_thread.in_flight == 0
        assert time.monotonic() - c0 < warmup.WARM_MAX_S
    finally:
        stage.close()


def test_the_warm_up_never_stamps_a_frame_in_the_session(monkeypatch):
    """However quick the stage, the warm-up's frames end before the session's 0."""
    class Stage:
        class tw:
            card_thread = workers = None

        def __init__(self):
            self.stamps = []

        def update(self, frame):
            self.stamps.append(frame.t)
            time.sleep(0.2)  # never quick: only the frame bound ends it

    monkeypatch.setattr(warmup, "WARM_FROM_S", -1.0)
    stage = Stage()
    n, _ = warm_up(stage, None, 10.0)
    assert n == 9 and max(stage.stamps) < 0

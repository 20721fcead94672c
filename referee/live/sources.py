"""The live sources (:class:`referee.pipeline.driver.Source`), polled in this order each
round of a live session: the pacing (the camera's next frame, waited for briefly, and the
round's moment on the session clock), the hearing (:class:`referee.pipeline.sources.
HearingSource`), the devices' status, the camera's frames through the vision stage, and the
table's keys. Every source of a round dates what it says at the same moment
(:class:`RoundClock`): a pose-rate warning on the ``sources`` stream is then never before
that stream's watermark."""

from __future__ import annotations

import dataclasses
import math
import queue
import time
from typing import Callable

from referee.live.controls import Command
from referee.pipeline.driver import Batch
from session.events import Event, SkippedEvent, WarningEvent


class RoundClock:
    """The session clock (``time.monotonic()`` at the start) and the current round's moment."""

    def __init__(self, start: float):
        self.start = start
        self.t = 0.0

    def now(self) -> float:
        return time.monotonic() - self.start

    def tick(self) -> float:
        self.t = self.now()
        return self.t


#: the pacing's wait for the camera's next frame is cut into slices this long (s), and ends
#: early when the hearing has a message with a shout waiting (``Pacing.woken``): a word heard
#: between two frames was taken at the next frame (up to a frame, ~33 ms, of the first correct
#: player's announcement; ~15 ms on average). Shorter: sooner, more wake-ups (each ~20 µs of
#: CPU).
WAKE_SLICE_S = 0.004


class Pacing:
    """The round's start: the camera's next frame, waited for at most ``wait_s`` (the loop's
    pace when the table is still), then the round's moment. ``woken`` (live: the hearing has a
    message with a shout waiting) ends the wait early: the round goes on without a frame, so the message is
    taken at once. Never done: the session stops."""

    done = False

    def __init__(self, camera, clock: RoundClock, wait_s: float = 0.05, woken: Callable[[], bool] | None = None):
        self.camera, self.clock, self.wait_s, self.woken = camera, clock, wait_s, woken
        self.frame = None

    def poll(self, wait: bool = False) -> list[Batch]:
        if self.woken is None:
            self.frame = self.camera.next(timeout=self.wait_s)
        else:
            deadline = time.monotonic() + self.wait_s
            while True:
                left = deadline - time.monotonic()
                self.frame = self.camera.next(timeout=max(0.0, min(WAKE_SLICE_S, left)))
                if self.frame is not None or left <= WAKE_SLICE_S or self.woken():
                    break
        self.clock.tick()
        return []


class DeviceStatus:
    """The devices' own news on the ``sources`` stream: camera lost/back, clock fallbacks,
    microphones lost/back; what they promise is taken first (a warning raised meanwhile is
    dated after it). While the microphones are lost, hearing's watermark follows the clock
    (judging goes on with what is seen)."""

    done = False

    def __init__(self, camera, tap, audio, statuses: queue.Queue, clock: RoundClock, warn: Callable[[str], None],
                 hearing, marks: dict):
        self.camera, self.tap, self.audio, self.statuses = camera, tap, audio, statuses
        self.clock, self.warn, self.hearing, self.marks = clock, warn, hearing, marks
        self.audio_lost = False

    def poll(self, wait: bool = False) -> list[Batch]:
        from audio import capture

        t_now, camera, tap = self.clock.t, self.camera, self.tap
        # (microphones declared lost: a return is dated at its first block's capture, within
        # the plausible ADC window after it came; the stall before it holds like hearing's)
        audio_mark = math.inf if tap.ended else \
            max(tap.heard_until, t_now - self.audio.stall_s - 1.0) if self.audio_lost else tap.heard_until
        sources_mark = min(camera.promise(), audio_mark, t_now) - 1e-4  # (their times are rounded)
        events: list[Event] = list(camera.drain_events())
        while True:
            try:
                st = self.statuses.get_nowait()
            except queue.Empty:
                break
            events.append(capture.status_event(st) if st.state != "clock" else
                          WarningEvent(t=round(st.t, 4), message=st.detail, extra={"source": "microphones"}))
            if st.state in ("lost", "ok"):
                self.audio_lost = st.state == "lost"
        for ev in events:
            self.warn(getattr(ev, "message", None) or f"microphones {ev.state}")
        # (a fixed t_now - 0.5 s before: it held every verdict ~0.5 s, longer than
        # hearing's and vision's own watermarks)
        self.marks["sources"] = sources_mark
        out = [Batch("sources", events, sources_mark)]
        if not self.hearing.done and self.audio_lost:  # judging goes on with what is seen
            out.append(Batch("hearing", watermark=t_now - self.audio.stall_s - 1.0))
        return out


class CameraFrames:
    """The camera's newest frame to the vision stage — after a stall, the frames captured
    meanwhile (still in the camera's ring), thinned, go first: the newest alone would leave
    the stall's hands unseen. Between frames, what the card zones and the pose workers
    finished meanwhile; with the camera gone, vision's watermark follows the clock. The pose
    rate adapts to the lag (its changes are warnings on the ``sources`` stream). Each frame
    goes to the sinks that want frames (``Batch.shown``)."""

    done = False

    def __init__(self, pacing: Pacing, stage, clock: RoundClock, probe, *, catch_up, pacer, pose_rate,
                 keep: Callable[[Event], bool], warn: Callable[[str], None], processed: int):
        self.pacing, self.stage, self.clock, self.probe = pacing, stage, clock, probe
        self.catch_up, self.pacer, self.pose_rate = catch_up, pacer, pose_rate
        self.keep, self.warn = keep, warn
        #: frames given to the stage (the warm-up's first); the stage's frame count goes on from there
        self.processed = processed
        self.caught_up = 0
        self.last_t: float | None = None  # the capture time of the last frame the stage took

    def poll(self, wait: bool = False) -> list[Batch]:
        camera, stage = self.pacing.camera, self.stage
        out = self._frames(self.pacing.frame)
        if self.pacing.frame is None and self.last_t is not None:
            # between frames: what the card zones and the pose workers finished meanwhile
            # (a card or a hand known sooner), then vision's promise as of the last frame
            ready = stage.tw.take_cards() + stage.tw.collect_ready()
            if ready:
                self.probe.found(ready)
            out.append(Batch("vision", [e for e in ready if self.keep(e)], stage.watermark(self.last_t)))
        if self.pacing.frame is None and not camera.online and not stage.tw.in_flight:
            # judging goes on with what is heard — once every frame given to vision is
            # back: advanced by the clock before, a card the zones were still reading at
            # the video's end came after the promise (late)
            out.append(Batch("vision", watermark=self.clock.t - stage.lag_s - camera.params.stall_s))
        return out

    def _frames(self, frame) -> list[Batch]:
        from referee.live.pacing import frames_for_stage

        probe, catch = self.probe, self.catch_up
        if frame is None:
            return []
        batch = frames_for_stage(list(self.pacing.camera.ring), self.last_t, frame, catch,
                                 [ms / 1000 for ms in probe.stage_ms[-catch.window:]] if catch else (),
                                 [ms / 1000 for ms in probe.pose_lag_ms[-catch.window:]] if catch else ())
        self.caught_up += max(0, len(batch) - 1)
        out: list[Batch] = []
        for each in batch:
            out += self._frame(each, newest=each is frame)
        return out

    def _frame(self, frame, newest: bool) -> list[Batch]:
        from referee.live.pacing import pose_lag
        from vision.video import Frame

        stage, probe, clock = self.stage, self.probe, self.clock
        self.last_t = frame.t
        # the stage counts frames it was given (pose runs on every n-th of them): a
        # frame skipped because the referee was busy must not shift that count
        c0 = time.perf_counter()
        events = stage.update(Frame(self.processed, frame.t, frame.image))
        events += stage.tw.collect_ready()
        probe.stage_ms.append((time.perf_counter() - c0) * 1000)
        probe.taken_t.append(frame.t)
        probe.frame_age_ms.append((clock.now() - frame.t) * 1000)
        self.processed += 1
        lag = pose_lag(stage, frame.t, clock.now())
        probe.pose_lag_ms.append(lag * 1000)
        # (the pacer reads the lag once per loop, at the newest frame: a stall's frames
        # would stack readings of one moment in its window)
        out = self._pose_rate(frame, lag) if newest else []
        for w in stage.take_warnings():
            self.warn(w)
        probe.found(events, confirmed_at=getattr(stage.tw.workers, "collected_t", frame.t)
                    if stage.tw.workers is not None else frame.t)
        mark = stage.watermark(frame.t)
        probe.marks["vision"] = mark
        return out + [Batch("vision", [e for e in events if self.keep(e)], mark, shown=(frame, events))]

    def _pose_rate(self, frame, lag: float) -> list[Batch]:
        """A new pose stride when the workers fell behind or keep up again, said on the
        ``sources`` stream from the stage's next frame on (where a replay of video.mp4 follows it)."""
        from referee.pipeline.sources import set_pose_every

        new_every = self.pacer.update(self.clock.t, lag) if self.pacer is not None else None
        if new_every is None:
            return []
        set_pose_every(self.stage, new_every)
        t_now = self.clock.t
        why = "fell behind" if lag > self.pose_rate.behind_s else "keep up"
        return [Batch("sources", [WarningEvent(
            t=round(t_now, 4), message=f"pose every {new_every} frames: the pose workers {why} "
            f"(lag {lag * 1000:.0f} ms)", extra={"source": "pose", "pose_every": new_every,
                                                 "lag_ms": round(lag * 1000),
                                                 # from the stage's next frame on: where a
                                                 # replay of video.mp4 would follow it
                                                 "after_frame_t": round(frame.t, 6)})])]


class Keys:
    """The table's keys: quit, pause and resume (the pause recorded as skipped), a new game,
    and the table's answers (decisions, choices, corrections) on the session clock."""

    done = False

    def __init__(self, view, clock: RoundClock):
        self.view, self.clock = view, clock
        self.paused_at: float | None = None
        self.quit_asked = False
        self.new_game = False  # the table asked for a new game: this session ends, the next follows

    def poll(self, wait: bool = False) -> list[Batch]:
        t_now = self.clock.t
        events: list[Event] = []
        for item in self.view.drain():
            if isinstance(item, Command):
                events += self._command(item.name, t_now)
            else:
                events.append(dataclasses.replace(item, t=round(t_now, 4)))
        return [Batch("table", events, t_now - 0.01)]

    def _command(self, name: str, t_now: float) -> list[Event]:
        if name == "quit":
            self.quit_asked = True
        elif name == "pause":
            self.paused_at = t_now
            return [WarningEvent(t=round(t_now, 4), message="paused by the table")]
        elif name == "resume" and self.paused_at is not None:
            reason, paused_at = "paused by the table", self.paused_at
            self.paused_at = None
            return [SkippedEvent(t=round(paused_at, 4), what=w, start=round(paused_at, 4),
                                 stop=round(t_now, 4), reason=reason) for w in ("video", "audio")]
        elif name == "new_game":
            self.new_game = self.quit_asked = True  # this session ends here; the command starts the next
        return []

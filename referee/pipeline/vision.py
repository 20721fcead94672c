"""Seeing a recording: a reader thread decoding frames ahead into a bounded queue, and the
vision stage (``vision.table.TableWatcher``) that turns frames into typed events and says
how late its events can be (its watermark)."""

from __future__ import annotations

import bisect
import queue
import threading
import time
from pathlib import Path
from typing import Any

from collections import deque

from referee.pipeline.sinks import Sink
from session.closing import join_thread
from session.events import Event, WarningEvent
from vision.video import nearest_frame

#: frames decoded ahead of the watcher (memory: ~2.7 MB each at 1280x720)
QUEUE_FRAMES = 8


class FrameReader:
    """Decodes ``path`` on a thread of its own (PyAV; FFmpeg's threads run outside the GIL)
    into a queue of :data:`QUEUE_FRAMES`: ``get()`` gives a frame, an exception raised while
    reading, or None at the end. Frames that failed to decode are listed in :attr:`skipped`."""

    def __init__(self, path: Path, size: int = QUEUE_FRAMES):
        self.path = Path(path)
        self.q: queue.Queue = queue.Queue(maxsize=size)
        self.skipped: list[str] = []
        self.cpu = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="referee-reader", daemon=True)

    def start(self) -> "FrameReader":
        self._thread.start()
        return self

    def _run(self) -> None:
        from vision.video import read_frames

        c0 = time.thread_time()
        try:
            for fr in read_frames(self.path, self.skipped):
                while not self._stop.is_set():
                    try:
                        self.q.put(fr, timeout=0.2)
                        break
                    except queue.Full:
                        continue
                if self._stop.is_set():
                    return
            self.q.put(None)
        except BaseException as exc:  # handed to the consumer, raised there
            self.q.put(exc)
        finally:
            self.cpu = time.thread_time() - c0

    def get(self):
        return self.q.get()

    def stop(self) -> None:
        """Stop decoding; safe before :meth:`start` (a run that failed while setting up)."""
        self._stop.set()
        join_thread(self._thread, timeout=5)


class VisionStage:
    """Frames in, card/hand/grab events (and the card zones' warnings) out, with the stage's
    watermark: the newest frame's time minus :attr:`vision.table.TableWatcher.lag_frames`."""

    def __init__(self, layout, *, fps: float | None, workers: int, card_every: int, pose_every: int,
                 pipeline: int, keep_landmarks: bool = False, half_raise: bool | None = None):
        from vision.table import TableWatcher

        self.tw = TableWatcher(layout, workers=workers, card_every=card_every, pose_every=pose_every,
                               pipeline=pipeline, keep_landmarks=keep_landmarks, half_raise=half_raise)
        self.fps = fps or 30.0
        self.lag_s = self.tw.lag_frames / self.fps
        self.landmarks: dict[str, list[tuple[float, dict]]] = {p: [] for p in self.tw.players}
        self._warned = 0
        self._promised = float("-inf")
        #: the card zones' warnings, as they came (for the people watching)
        self.new_warnings: list[str] = []

    def update(self, frame) -> list[Event]:
        events = [self._kept_promise(e) for e in self.tw.update(frame)]
        self._keep_landmarks()
        ws = self.tw.warnings
        for w in ws[self._warned:]:
            self.new_warnings.append(w)
            events.append(WarningEvent(t=round(frame.t, 6), message=w))
        self._warned = len(ws)
        return events

    def watermark(self, t: float) -> float:
        """What the watcher promises now (:meth:`vision.table.TableWatcher.watermark`): the
        card zones' and seats' own bounds, never later than the newest frame ``t``; the
        worst case (:attr:`lag_s`, :attr:`vision.table.TableWatcher.lag_frames`) is only a figure now."""
        self._promised = max(self._promised, min(t, self.tw.watermark()))
        return self._promised

    def _kept_promise(self, e: Event) -> Event:
        """An event as the stage promised it: a card zone's "card not recognised" warning is
        timed where the zone began to change, which can lie before the watermark already
        given (a hand hovered over the zone for long); it is then recorded at the watermark,
        its own time kept in ``seen_from``. Its message goes to the people's warnings too."""
        if e.type != "warning":
            return e
        self.new_warnings.append(e.message)
        if e.t >= self._promised:
            return e
        from dataclasses import replace

        return replace(e, t=round(self._promised, 6), extra={**e.extra, "seen_from": e.t})

    def _keep_landmarks(self) -> None:
        for t, player, lm in self.tw.seen:
            self.landmarks[player].append((t, lm.to_dict()))
        self.tw.seen.clear()

    def finish(self) -> list[Event]:
        events = list(self.tw.finish())
        self._keep_landmarks()
        return events

    def close(self) -> None:
        self.tw.close()

    def stats(self) -> dict[str, Any]:
        return {"cards": self.tw.card_seconds, **self.tw.pose_stats()}


#: seconds of decoded frames :class:`EvidenceFrames` holds back, waiting for the events timed
#: in them to be released (the pipeline releases an event once no earlier one can come: on
#: the demo within 1.6 s of its frame). An event whose frames have left is not lost: the
#: report decodes the video again for it. Memory: this many seconds of decoded pictures
#: (YUV 4:2:0, ~1.4 MB per 720p frame: ~125 MB at 30 fps), plus the frames kept.
EVIDENCE_RING_S = 2.0
#: the report asks for a frame at an event's time as its verdict rounds it (to the ms: the
#: card's time and the reaction's offset, so up to 1 ms off); the frames kept around an event
#: reach this much further each way, so that the two frames around such a time are kept too
EVIDENCE_SLACK_S = 0.002
#: the event kinds whose frames the report can show (a card's appearance, a reaction, an
#: unclear observation snapped to the player's shout, hand or grab); others are not kept
EVIDENCE_KINDS = ("card", "hand", "shout", "grab")


class EvidenceFrames(Sink):
    """Keeps, during the replay's one decoding pass, the decoded frames around each released
    event's time, so that the report picks the same pictures as its own second pass
    (:func:`vision.video.frames_at`) without decoding the video again (on the demo that pass
    took 1.8 s of a 14 s replay). Frames come in time order (``frame``), events as the
    watermark releases them (``event``); the frames within one frame and
    :data:`EVIDENCE_SLACK_S` of an event are kept (by index). :meth:`known` gives, for the
    times asked, the nearest frame when the two frames around the time were both kept
    (consecutive indices: no other frame lies between them); the others are decoded as
    before. A source without decoded frames (a camera) or frames out of time order keep
    nothing."""

    wants_frames = True

    def __init__(self, fps: float | None = None, ring_s: float = EVIDENCE_RING_S,
                 slack_s: float = EVIDENCE_SLACK_S):
        self.reach = 1.0 / (fps or 30.0) + slack_s
        self._ring: deque = deque(maxlen=max(2, int(round(ring_s * (fps or 30.0)))))
        self._waiting: list[float] = []  # event times whose frames after them have not all come
        self._kept: dict[int, tuple[float, object]] = {}  # frame index -> (t, decoded frame)
        self._first: int | None = None  # the video's first frame index (nothing before it)
        self._last: tuple[int, float] | None = None  # the last frame seen, once the video ended
        self._ended = False
        self._broken = False
        self.lost = 0  # events whose frames before them had left the ring (a figure)

    def frame(self, frame, events) -> None:
        src = getattr(frame, "source", None)
        if self._broken or src is None or (self._ring and frame.t <= self._ring[-1][1]):
            self._broken = True  # (a camera, or frames out of order: the report decodes)
            self._kept.clear()
            return
        if self._first is None:
            self._first = frame.index
        self._ring.append((frame.index, frame.t, src))
        for e in events:  # the stage's own events, before their release: no ring needed
            self.event(e)
        still = []
        for w in self._waiting:
            if abs(frame.t - w) <= self.reach:
                self._kept[frame.index] = (frame.t, src)
            if frame.t <= w + self.reach:
                still.append(w)
        self._waiting = still

    def event(self, event: Event) -> None:
        if self._broken or event.type not in EVIDENCE_KINDS or (event.type == "hand" and event.state != "up"):
            return  # (a hand lowered is no reaction: the report shows raised hands)
        w = event.t
        if self._ring and self._ring[0][1] > w - self.reach and self._ring[0][0] != self._first:
            self.lost += 1  # the frames before it have left the ring
            return
        for index, t, src in self._ring:
            if abs(t - w) <= self.reach:
                self._kept[index] = (t, src)
        if not self._ring or self._ring[-1][1] <= w + self.reach:
            self._waiting.append(w)

    def finish(self, judgement) -> None:
        self._ended = True
        if self._ring:
            self._last = (self._ring[-1][0], self._ring[-1][1])
            self._kept.setdefault(self._ring[-1][0], self._ring[-1][1:])
        self._ring.clear()

    def known(self, times, tolerance: float = 0.5) -> dict[float, object]:
        """For each of ``times`` whose two surrounding frames were kept, the decoded frame
        :func:`vision.video.frames_at` would pick (None-free: a time with no frame within
        ``tolerance`` is left to it)."""
        if self._broken or not self._kept:
            return {}
        idx = sorted(self._kept)
        ts = [self._kept[i][0] for i in idx]
        out = {}
        for w in set(times):
            k = bisect.bisect_right(ts, w)  # idx[k - 1] is the last kept frame at or before w
            before = (ts[k - 1], self._kept[idx[k - 1]][1]) if k > 0 else None
            after = (ts[k], self._kept[idx[k]][1]) if k < len(idx) else None
            if before is None and (after is None or idx[k] != self._first):
                continue
            if after is None and (self._last is None or idx[k - 1] != self._last[0]):
                continue
            if before is not None and after is not None and idx[k] != idx[k - 1] + 1:
                continue  # a frame not kept lies between them
            pick = nearest_frame(w, before, after, tolerance)
            if pick is not None:
                out[w] = pick
        return out

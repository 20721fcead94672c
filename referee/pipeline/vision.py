"""Seeing a recording: a reader thread decoding frames ahead into a bounded queue, and the
vision stage (``vision.table.TableWatcher``) that turns frames into typed events and says
how late its events can be (its watermark)."""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path
from typing import Any

from session.closing import join_thread
from session.events import Event, WarningEvent

#: frames decoded ahead of the watcher (memory: ~2.7 MB each at 1280x720)
QUEUE_FRAMES = 8


def table_layout(calibration, game: str, *, room: bool = False):
    """The camera's layout of ``calibration`` (:class:`vision.table.TableLayout`) for
    ``game``: without the seats when the game says none of its verdicts uses the players'
    hands (``rules.Game.uses_hands``), so replay and live run no pose for it — unless the
    words are heard on one ``room`` microphone, where a seat's hands and mouth say who spoke
    (:mod:`referee.pipeline.crediting`)."""
    import rules
    from vision.table import TableLayout

    return TableLayout.of(calibration).for_hands(rules.get(game).uses_hands or room)


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
                 pipeline: int, keep_landmarks: bool = False, half_raise: bool | None = None, mouths: int = 0):
        from vision.table import TableLayout, TableWatcher

        self.tw = TableWatcher(layout, workers=workers, card_every=card_every, pose_every=pose_every,
                               pipeline=pipeline, keep_landmarks=keep_landmarks, half_raise=half_raise)
        self.mouths = None  # one room microphone only: every ``mouths``-th frame's mouths (vision.mouth)
        if mouths:
            from vision.mouth import MouthWatcher

            self.mouths = MouthWatcher(TableLayout.of(layout).seats, every=mouths)
        self.fps = fps or 30.0
        self.lag_s = self.tw.lag_frames / self.fps
        self.landmarks: dict[str, list[tuple[float, dict]]] = {p: [] for p in self.tw.players}
        self._warned = 0
        self._promised = float("-inf")
        #: the card zones' warnings, as they came (for the people watching)
        self.new_warnings: list[str] = []

    def update(self, frame) -> list[Event]:
        events = [self._kept_promise(e) for e in self.tw.update(frame)]
        if self.mouths is not None:
            events += self.mouths.update(frame)
        self._keep_landmarks()
        ws = self.tw.warnings
        for w in ws[self._warned:]:
            self.new_warnings.append(w)
            events.append(WarningEvent(t=round(frame.t, 6), message=w))
        self._warned = len(ws)
        return events

    def take_warnings(self) -> list[str]:
        """The card zones' warnings since the last call (each said once to the people)."""
        out, self.new_warnings = self.new_warnings, []
        return out

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
        if self.mouths is not None:
            self.mouths.close()

    def stats(self) -> dict[str, Any]:
        mouths = {"mouths": self.mouths.seconds} if self.mouths is not None else {}
        return {"cards": self.tw.card_seconds, **self.tw.pose_stats(), **mouths}

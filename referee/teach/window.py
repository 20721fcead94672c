"""The window view (OpenCV HighGUI): the drawn card, the field and, after an answer, the
verdict and its reason; the same text goes to the terminal (the window's fonts are Latin
only, so Japanese reasons are read there and heard).

Keys come from the window: HighGUI gives no event time, so the view polls ``waitKey`` every
``poll_ms`` (5 ms) on a reader of its own and stamps each key when ``waitKey`` returns it:
the stamp is at most one poll late. The camera and microphone paths of live play plug in
here later (the same window shows the camera view beside the card).
"""

from __future__ import annotations

import os
import queue
import sys
from typing import Any

import cv2

from referee.teach.core import Feedback
from referee.teach.draw import draw_scene
from referee.teach.drills.base import Screen
from referee.teach.keys import Clock, KeySource, key_name
from referee.teach.phrases import VERDICT_TEXT
from referee.teach.terminal import TerminalView
from session.errors import DeviceError

NAME = "referee teach"
VERDICT_BGR = {"correct": (80, 220, 80), "wrong": (80, 80, 240), "missed": (60, 200, 240), "false_start": (220, 80, 220)}


class WindowKeys(KeySource):
    """Keys of the OpenCV window (polled on the lesson's thread: HighGUI is not thread-safe)."""

    def __init__(self, view: "WindowView", clock: Clock | None = None, poll_ms: int = 5):
        self.view = view
        self.clock = clock or Clock()
        self.poll_ms = poll_ms
        self.q: queue.Queue = queue.Queue()

    def _poll(self) -> None:
        k = cv2.waitKey(self.poll_ms)
        if k >= 0:
            k &= 0xFF
            self.q.put((key_name(chr(k)) if k != 27 else "escape", self.clock.now()))

    def get(self, deadline: float) -> tuple[str, float] | None:
        while True:
            try:
                return self.q.get_nowait()
            except queue.Empty:
                pass
            if self.clock.now() >= deadline:
                return None
            self._poll()

    def drain(self) -> None:
        while not self.q.empty():
            self.q.get_nowait()


class WindowView:
    def __init__(self, lang: str = "en", size: tuple[int, int] = (640, 900)):
        if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            # HighGUI's Qt aborts the process without a display: say so first
            raise DeviceError("--window needs a display (DISPLAY is not set); without --window the terminal view is used")
        self.lang = lang
        self.size = size
        self.text = TerminalView(sys.stdout, lang=lang)
        self.screen: Screen | None = None
        self.frame = None
        cv2.namedWindow(NAME, cv2.WINDOW_AUTOSIZE)

    def keys(self, _terminal_keys: KeySource | None = None) -> WindowKeys:
        if _terminal_keys is not None:
            _terminal_keys.close()
        return WindowKeys(self)

    def _put(self, frame) -> None:
        self.frame = frame
        cv2.imshow(NAME, frame)
        cv2.waitKey(1)

    def ready(self, info: dict[str, Any]) -> None:
        self.text.game = info["level"].situations[0].game if info["level"].situations else ""
        self._put(draw_scene("", (), "", "ready...", (f"level {info['index'] + 1}: {info['level'].title['en']}",),
                             size=self.size))

    def show(self, screen: Screen, info: dict[str, Any]) -> None:
        self.screen = screen
        self.text.show(screen, info)
        self._put(draw_scene(screen.card, screen.field, screen.game, screen.title if self.lang == "en" else "",
                             screen.lines if self.lang == "en" else (), size=self.size))

    def feedback(self, fb: Feedback, info: dict[str, Any]) -> None:
        self.text.feedback(fb, info)
        s = self.screen
        head = VERDICT_TEXT["en"][fb.verdict] + (f"  {fb.reaction:.2f} s" if fb.reaction is not None else "")
        reason = (fb.reason(),) + ((fb.rival,) if fb.rival else ())
        if self.lang != "en":
            reason = ("(reason in the terminal)",)
        self._put(draw_scene(s.card, s.field, s.game, s.title if self.lang == "en" else "", s.lines if self.lang == "en" else (),
                             (head, reason, VERDICT_BGR[fb.verdict]), size=self.size))

    def message(self, text: str) -> None:
        self.text.message(text)

    def close(self) -> None:
        cv2.destroyAllWindows()

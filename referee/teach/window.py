"""The window view (OpenCV HighGUI): the drawn card, the field and, after an answer, the
verdict and its reason; the same text goes to the terminal. With ``--lang ja`` the window
writes the question, the reason and the cards' names in Japanese (a TrueType font through
:mod:`referee.teach.fonts`; romaji when none is installed).

Keys come from the window: HighGUI gives no event time, so the view polls ``waitKey`` every
``poll_ms`` (5 ms) on a reader of its own and stamps each key when ``waitKey`` returns it:
the stamp is at most one poll late. The camera and microphone paths of live play plug in
here later (the same window shows the camera view beside the card).
"""

from __future__ import annotations

import os
import queue
import sys
import textwrap
import time
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
#: a verdict drawn less than this long before the next card appears stays under it (2 s)
KEEP_VERDICT_S = 2.0
VERDICT_BGR = {"correct": (80, 220, 80), "wrong": (80, 80, 240), "missed": (60, 200, 240), "false_start": (220, 80, 220),
               "unclear": (220, 200, 80)}


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
        self.base = None
        self.thumb = None
        self.last = None  # the last verdict drawn: (head, reason, colour, when)
        cv2.namedWindow(NAME, cv2.WINDOW_AUTOSIZE | cv2.WINDOW_GUI_NORMAL)  # (no Qt zoom toolbar: as the live window)

    def keys(self, _terminal_keys: KeySource | None = None) -> WindowKeys:
        if _terminal_keys is not None:
            _terminal_keys.close()
        return WindowKeys(self)

    def _put(self, frame) -> None:
        self.base = frame
        self.frame = self._with_camera(frame)
        cv2.imshow(NAME, self.frame)
        cv2.waitKey(1)

    def camera(self, image) -> None:
        """The camera's newest image (the camera/microphone drill), inset top right: the
        learner sees themself as the referee does (not mirrored: the pose is read unmirrored)."""
        h, w = self.size
        tw = w // 3
        th = max(1, int(image.shape[0] * tw / image.shape[1]))
        self.thumb = cv2.resize(image, (tw, th), interpolation=cv2.INTER_AREA)
        if getattr(self, "base", None) is not None:
            self.frame = self._with_camera(self.base)
            cv2.imshow(NAME, self.frame)
            cv2.waitKey(1)

    def _with_camera(self, frame):
        thumb = getattr(self, "thumb", None)
        if thumb is None or self._griddle():
            return frame
        out = frame.copy()
        th, tw = thumb.shape[:2]
        y, x = 70, out.shape[1] - tw - 12  # beside the card and up to three troubles, above the text
        if y > 0 and x > 0:
            out[y:y + th, x:x + tw] = thumb
            cv2.rectangle(out, (x - 1, y - 1), (x + tw, y + th), (250, 250, 250), 1)
        return out

    def _griddle(self) -> bool:
        """The screen draws a griddle: its ten slots fill the width the camera inset takes
        (the TAKOYAKI camera drill shows no inset)."""
        if self.screen is None or not self.screen.game:
            return False
        from referee.teach.drills import teaching
        declared = teaching(self.screen.game)
        return declared is not None and declared.look.table == "griddle"

    def ready(self, info: dict[str, Any]) -> None:
        from referee.teach.terminal import head_text

        self.text.game = info["level"].situations[0].game if info["level"].situations else ""
        ready = "準備…" if self.lang == "ja" else "ready..."
        self._info = info
        self._put(draw_scene("", (), "", ready, (head_text(info, self.lang),), size=self.size))

    def countdown(self, left: float, presses) -> None:
        """The answer time left as a shrinking bar and seconds along the window's foot, with
        the quit keys (redrawn when the tenth of a second shown changes)."""
        shown = round(left, 1)
        if self.frame is None or shown == getattr(self, "_left", None):
            return
        self._left = shown
        img = self.frame.copy()
        h, w = img.shape[:2]
        window = getattr(getattr(self, "_info", {}).get("level"), "window_s", 3.0) or 3.0
        cv2.rectangle(img, (0, h - 34), (w, h), (30, 30, 30), -1)
        cv2.rectangle(img, (0, h - 34), (int(w * min(1.0, shown / window)), h - 28), (60, 200, 240), -1)
        label = f"{shown:.1f} s left  |  esc or q: quit"
        cv2.putText(img, label, (12, h - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (235, 235, 235), 1, cv2.LINE_AA)
        cv2.imshow(NAME, img)

    def show(self, screen: Screen, info: dict[str, Any]) -> None:
        self.screen = screen
        self._info, self._left = info, None
        self.text.show(screen, info)
        prev = None
        if self.last is not None and time.monotonic() - self.last[3] < KEEP_VERDICT_S:
            # the card before was judged just now (a recording's next card comes at once): keep
            # its verdict readable under the new card
            head, reason, colour, _ = self.last
            prev = (("前のカード: " if self.lang == "ja" else "previous card: ") + head, reason, colour)
        self._put(draw_scene(screen.card, screen.field, screen.game, screen.title, screen.lines, prev, size=self.size,
                             names=self._names()))

    def feedback(self, fb: Feedback, info: dict[str, Any]) -> None:
        self.text.feedback(fb, info)
        s = self.screen
        from referee.teach.fonts import have_font
        lang = self.lang if have_font() else "en"  # (no Japanese font: the verdict in English)
        unit = " 秒" if lang == "ja" else " s"
        head = VERDICT_TEXT[lang][fb.verdict] + (f"  {fb.reaction:.2f}{unit}" if fb.reaction is not None else "")
        reason = (fb.reason(),) + ((fb.rival,) if fb.rival else ())
        self.last = (head, reason, VERDICT_BGR[fb.verdict], time.monotonic())
        self._put(draw_scene(s.card, s.field, s.game, s.title, s.lines, (head, reason, VERDICT_BGR[fb.verdict]),
                             size=self.size, names=self._names()))

    def _names(self) -> dict[str, str]:
        """The cards' Japanese names, written under their Latin labels with ``--lang ja``."""
        if self.lang != "ja":
            return {}
        from referee.teach.drills import games, teaching
        return {card: name for g in games() for card, name in teaching(g).look.names_ja.items()}

    def message(self, text: str) -> None:
        self.text.message(text)

    def unclear(self, head: str, why: str) -> None:
        """A camera drill's cards not clearly read: said in the window (the question before is
        answered), why under it, and on the terminal."""
        self.text.message(f"{head} ({why})")
        self._put(draw_scene("", (), "", head, tuple(textwrap.wrap(why, 60)), size=self.size))

    def close(self) -> None:
        cv2.destroyAllWindows()

"""Time from answer to feedback in ``referee teach``, end to end on the real clock.

A simulated learner types the right answer (or a mistake every third card) into a pipe
0.3 s after each card is drawn; :class:`StreamKeys` stamps each key when its byte arrives
(as the terminal reader does); the figure is that stamp of the submitting key to the moment
the feedback has been drawn (the lesson's own ``latencies``: judging the drill record, the
reason, the terminal write). Also: judging alone per drill, and the voice rendering the
fixed phrase set once per engine found here. Prints the load average.
"""

from __future__ import annotations

import io
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.teach import drills  # noqa: E402
from referee.teach.keys import StreamKeys  # noqa: E402
from referee.teach.lesson import Lesson, LessonParams  # noqa: E402
from referee.teach.progress import Progress  # noqa: E402
from referee.teach.terminal import TerminalView  # noqa: E402


class TypingView(TerminalView):
    """The terminal view, plus a learner who types into the pipe once the card is drawn."""

    def __init__(self, drill, pipe_w):
        super().__init__(io.StringIO(), game=drill.game)
        self.drill, self.w, self.n = drill, pipe_w, 0
        self.sit = None

    def show(self, screen, info):
        super().show(screen, info)
        self.n += 1
        keys = self.drill.oracle(self.sit) if self.n % 3 else ["f", "enter"]
        text = "".join({"enter": "\n", "space": " "}.get(k, k) for k in keys)

        def type_it():
            time.sleep(0.3)
            os.write(self.w, text.encode())
        threading.Thread(target=type_it, daemon=True).start()


def run(name: str, cards: int, folder: str) -> list[float]:
    d = drills.get(name)
    r, w = os.pipe()
    keys = StreamKeys(os.fdopen(r, "r", buffering=1))
    view = TypingView(d, w)
    lesson = Lesson(d, Progress.open("bench", folder), keys, view, seed=1, placement=False,
                    params=LessonParams(cards=cards, foreperiod=(0.1, 0.2), pause_right=0.05, pause_wrong=0.05))
    pick = lesson.scheduler.pick

    def spy(*a, **k):
        view.sit = pick(*a, **k)
        return view.sit
    lesson.scheduler.pick = spy
    lesson.run()
    os.close(w)
    return lesson.latencies


def main() -> None:
    la = os.getloadavg()
    print(f"load average {la[0]:.2f} {la[1]:.2f} {la[2]:.2f}, cores {os.cpu_count()}")
    print("answer (key arrival) -> feedback drawn, real lesson loop:")
    print(f"  {'drill':14} {'n':>4} {'median ms':>10} {'p95 ms':>8} {'max ms':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for name in drills.names():
            t = sorted(run(name, 12, folder))
            p95 = t[int(0.95 * (len(t) - 1))]
            print(f"  {name:14} {len(t):4} {1000 * statistics.median(t):10.1f} {1000 * p95:8.1f} {1000 * t[-1]:8.1f}")
    from audio.voice import Voice, find_engine
    from referee.teach.phrases import fixed_keys, spoken_text
    print("voice: rendering the fixed phrase set once (then played from the cache):")
    for lang in ("en", "ja"):
        engine, why = find_engine(lang)
        if engine is None:
            print(f"  {lang}: {why}")
            continue
        v = Voice(lang, lambda k, lang=lang: spoken_text(k, lang), engine=engine, player=lambda x, r: None)
        keys = list(fixed_keys())
        t0 = time.monotonic()
        v.prepare(keys)
        v.wait(600)
        dt = time.monotonic() - t0
        print(f"  {lang}: {engine.name}: {len(keys)} phrases in {dt:.1f} s ({1000 * dt / len(keys):.0f} ms each)")
        v.close()
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

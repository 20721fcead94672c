"""The camera drill of the turn-based games (TAKOYAKI, Sea Salt & Paper, TORATANU): the
question is about the real cards the camera reads, the learner answers with keys, and the
answer is judged and explained by the game's keyboard drill (the same rules module, the
same judge, the same reason).

``referee teach GAME --calibration CAL --camera N`` (a real table) or ``--from-video
V.mp4`` (a recording released in real time through the live sources). As the IKATAKO
camera drill (:mod:`referee.teach.drills.ikatako_sensed`), this module runs no pipeline of
its own: it is a sink and a view plugged into :func:`referee.live.run.run_live`, so the
cards are read by the live referee's own vision stage and judged by its own judge. The
game's reader (``Teaching.reader``, in the game's drill module) turns the released events
and verdict lines into :class:`~referee.teach.drills.base.Seen` questions about the
learner's seat; a card not clearly read is never drilled: the drill says why and asks to
show it again. Questions wait in line while one is answered; those still waiting when a
recording ends are asked after it (:meth:`CardsSensedDrill.answer_rest`).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from referee.pipeline.sinks import Sink
from referee.teach.core import Feedback, Press, Situation
from referee.teach.drills.base import Seen
from referee.teach.keys import SUBMIT, FakeClock, KeySource
from referee.teach.lesson import QUIT_KEYS
from referee.teach.progress import Progress
from referee.teach.scheduler import Scheduler
from referee.teach.texts import text
from session.errors import RefereeError
from session.events import Event, SessionHeader
from session.params import check_ranges


class CardsSensedError(RefereeError):
    pass


@dataclass(frozen=True)
class CardsSensedParams:
    """The pace of a camera drill answered with keys."""

    #: the feedback stays this long before the next question is shown (s). Shorter: the
    #: reason is cut off; longer: a slower drill.
    pause: float = 2.0
    #: how often the window's camera inset is redrawn (s): 10 fps is enough to see the cards,
    #: and each redraw costs the perception loop ~3 ms of HighGUI.
    camera_every_s: float = 0.1
    #: how long :meth:`CardsSensedDrill.answer_rest` waits for a key at a time (s): the
    #: countdown's step. Longer: a coarser countdown.
    poll_s: float = 0.05

    def __post_init__(self):
        check_ranges(self, non_negative=("pause",), positive=("camera_every_s", "poll_s"))


@dataclass
class _Asked:
    seen: Seen
    info: dict[str, Any]
    shown: float  # on the keys' clock
    presses: list[Press]
    fb: Feedback | None = None


class CardsSensedDrill(Sink):
    """The drill as a pipeline sink: the released events and verdicts in (read by the game's
    reader), the questions and feedback out to ``view``, the answers from ``keys``."""

    wants_frames = True  # the window's camera inset, and a tick between statuses

    def __init__(self, drill, seat: str, view, keys: KeySource, *, paced: bool, lang: str = "en", cards: int = 20,
                 progress: Progress | None = None, level: str | None = None, voice=None,
                 start: datetime | None = None, params: CardsSensedParams = CardsSensedParams(), seed: int = 0):
        from referee.teach import drills

        self.drill, self.seat, self.view, self.keys = drill, seat, view, keys
        self.paced, self.lang, self.n_cards, self.progress, self.voice = paced, lang, cards, progress, voice
        self.params = params
        self.levels = drill.levels()
        if level is not None and level not in [lv.rule for lv in self.levels]:
            raise CardsSensedError(f"{drill.name} has no level {level!r} "
                                   f"(levels: {', '.join(lv.rule for lv in self.levels)})")
        self.reader = drills.teaching(drill.game).reader(drill, seat, level, lang)
        self.clock = keys.clock
        self.simulated = isinstance(self.clock, FakeClock)  # scripted keys: answered on their own clock
        self.scheduler = Scheduler(progress.cards.get(drill.name) if progress else None,
                                   progress.confusion(drill.name) if progress else None, seed)
        self.session = progress.next_session() if progress else 0
        self.start_at = start or datetime.now(timezone.utc).replace(microsecond=0)
        self.waiting: list[Seen] = []
        self.asked: _Asked | None = None
        self.done_cards: list[_Asked] = []
        self.unclear: list[Seen] = []
        self._free_at = -1e9
        self._camera_t = -1e9
        self.quit = False
        self.header: SessionHeader | None = None

    # ----------------------------------------------------------------- sink calls
    def start(self, header: SessionHeader) -> None:
        self.header = header
        if self.seat not in header.players:
            raise CardsSensedError(f"--seat {self.seat!r} is not at this table (seats: {', '.join(header.players)})")
        if self.progress is not None:
            self.progress.append({"type": "start", "session": self.session, "drill": self.drill.name,
                                  "at": self.start_at.isoformat(), "lang": self.lang,
                                  "sensed": "recording" if self.paced else "camera", "seat": self.seat})

    def event(self, ev: Event) -> None:
        self.waiting += self.reader.event(ev)
        self._tick()

    def verdicts(self, lines: list[dict[str, Any]]) -> None:
        for line in lines:
            self.waiting += self.reader.verdict(line)
        self._tick()

    def status(self, info: dict[str, Any]) -> None:
        self._tick()

    def frame(self, frame: Any, events: list[Event]) -> None:
        show = getattr(self.view, "camera", None)
        now = getattr(frame, "t", 0.0)
        if show is not None and now - self._camera_t >= self.params.camera_every_s:
            self._camera_t = now
            show(frame.image)
        self._tick()

    @property
    def done(self) -> bool:
        """The learner quit, or a camera drill has had its cards."""
        return self.quit or (not self.paced and len(self.done_cards) >= self.n_cards)

    def answer_rest(self) -> None:
        """After the live run: the questions still waiting are asked, one by one, until the
        learner has answered them all, has had the drill's cards, or quits (Ctrl-C too)."""
        try:
            while not self.quit and (self.asked is not None or (self.waiting and not self.done)):
                self._tick(block=self.params.poll_s)
                if self.asked is None and self.waiting and not self.simulated:
                    time.sleep(max(0.0, min(self.params.poll_s, self._free_at - self.clock.now())))
        except KeyboardInterrupt:
            self.quit = True

    # ----------------------------------------------------------------- asking
    def _tick(self, block: float = 0.0) -> None:
        while not self.quit:
            if self.asked is None:
                if not self.waiting or self.clock.now() < self._free_at or self.done:
                    return
                self._ask(self.waiting.pop(0))
                continue
            if not self._read_keys(block):
                return

    def _ask(self, seen: Seen) -> None:
        if seen.situation is None:
            self.unclear.append(seen)
            head = text(self.lang, "Not clearly read: show the cards again.", "はっきり読めない: もう一度見せて。")
            window = getattr(self.view, "unclear", None)
            if window is not None:
                window(head, seen.unclear)
            else:
                self.view.message(f"{head} ({seen.unclear})")
            return
        sit = seen.situation
        level = self.drill.level_of(sit.rule)
        info = {"n": len(self.done_cards) + 1, "of": None if self.paced else self.n_cards, "level": level,
                "index": self.levels.index(level), "levels": len(self.levels)}
        self.keys.drain()  # keys typed before the question are no answer to it
        self.view.show(self.drill.screen(sit, self.lang), info)
        shown = self.clock.now()
        self.keys.on_ready(shown, sit)
        self.asked = _Asked(seen, info, shown, [])

    def _read_keys(self, block: float) -> bool:
        """Take the keys that came; True when the question was answered (or timed out)."""
        a = self.asked
        window = a.info["level"].window_s
        deadline = a.shown + window if self.simulated else min(a.shown + window, self.clock.now() + block)
        countdown = getattr(self.view, "countdown", None)
        if countdown is not None and not self.simulated:
            countdown(max(0.0, a.shown + window - self.clock.now()), a.presses)
        while True:
            got = self.keys.get(deadline)
            if got is None:
                break
            key, t = got
            if key in QUIT_KEYS:
                self.quit = True
                return False
            a.presses.append(Press(key, round(t - a.shown, 4)))
            if key == SUBMIT:
                break
            echo = getattr(self.view, "pressed", None)
            if echo is not None:
                echo(a.presses)
        if not (a.presses and a.presses[-1].key == SUBMIT) and self.clock.now() < a.shown + window:
            return False
        self._judge(a)
        return True

    def _judge(self, a: _Asked) -> None:
        sit = a.seen.situation
        fb = self.drill.feedback(sit, a.presses, a.info["level"], self.lang, learner=self.seat)
        if a.seen.said:
            fb.did = "; ".join(x for x in (fb.did, a.seen.said) if x)
        a.fb = fb
        self.asked = None
        self.done_cards.append(a)
        self.view.feedback(fb, a.info)
        if self.voice:
            self.voice.say(*fb.spoken)
        self._store(sit, a, fb)
        if self.simulated:  # (a simulated clock moves only when told: the pause is taken at once)
            self.clock.sleep(self.params.pause)
        self._free_at = self.clock.now() + (0.0 if self.simulated else self.params.pause)

    def _store(self, sit: Situation, a: _Asked, fb: Feedback) -> None:
        level = a.info["level"]
        now = self.start_at + timedelta(seconds=round(a.seen.t, 3))
        fsrs_card = self.scheduler.review(sit, fb, level.target_s, now)
        if self.progress is None:
            return
        self.progress.append({"type": "answer", "session": self.session, "n": len(self.done_cards),
                              "drill": self.drill.name, "rule": sit.rule, "situation": sit.key,
                              "verdict": fb.verdict, "reaction": fb.reaction, "answered": fb.answered,
                              "answered_as": fb.answered_as, "placement": False, "at": now.isoformat(),
                              "sensed": True, "read_t": a.seen.t})
        self.progress.append({"type": "fsrs", "drill": self.drill.name, "situation": sit.key,
                              "card": fsrs_card.to_dict()})

    def summary(self) -> dict[str, Any]:
        fbs = [a.fb for a in self.done_cards if a.fb is not None]
        right = [f for f in fbs if f.ok]
        times = [f.reaction for f in right if f.reaction is not None]
        return {"cards": len(fbs), "right": len(right), "accuracy": len(right) / len(fbs) if fbs else 0.0,
                "median_reaction": statistics.median(times) if times else None, "feedback_after_window_s": None,
                "clock": "from the question to the last key",
                "unclear": len(self.unclear), "waiting": len(self.waiting),
                "verdicts": [(a.seen.t, a.seen.situation.key, a.fb.verdict) for a in self.done_cards if a.fb]}


def run_cards_sensed(*, calibration: Path, seat: str | None, out: Path, view, keys: KeySource, camera: Any = 0,
                     audio_device: Any = None, from_video: Path | None = None, audio: Path | None = None,
                     lang: str = "en", cards: int = 20, seed: int = 0, progress: Progress | None = None,
                     level: str | None = None, voice=None, say=print, start: datetime | None = None,
                     params: CardsSensedParams = CardsSensedParams(), workers: int = 2,
                     game: str | None = None) -> tuple[CardsSensedDrill, Any]:
    """Run the drill through the live sources (no ``audio`` and no ``audio_device``: the live
    path hears silence — these games are read by the camera alone and answered with keys, so
    no microphone is needed); returns the drill (its questions and feedback) and the live
    run's result."""
    from referee.language import table_language
    from referee.live.run import LiveOptions, run_live
    from referee.teach import drills
    from referee.teach.drills.ikatako_sensed import SensedView
    from session.calibration import load

    cal = load(Path(calibration))
    game = game or cal.game
    if cal.game != game:
        raise CardsSensedError(f"{calibration} is calibrated for {cal.game}, not {game}")
    seats = [s.name for s in cal.seats]
    seat = seat or seats[0]
    if seat not in seats:
        raise CardsSensedError(f"--seat {seat!r} is not in {calibration} (seats: {', '.join(seats)})")
    drill = CardsSensedDrill(drills.get(drills.for_game(game, None)), seat, view, keys, paced=from_video is not None,
                             lang=lang, cards=cards, progress=progress, level=level, voice=voice, start=start,
                             params=params, seed=seed)
    opts = LiveOptions(calibration=Path(calibration), out=Path(out), camera=camera, from_video=from_video,
                       audio_device=audio_device, audio=audio, game=game, window=False, voice=False,
                       workers=workers, lang=table_language(None, calibration), no_enroll=True,
                       silent=audio is None and audio_device is None)
    result = run_live(opts, extra_sinks=[drill], say=say, view_factory=lambda state, controls: SensedView(drill))
    drill.answer_rest()
    return drill, result

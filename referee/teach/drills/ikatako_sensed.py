"""The camera/microphone drill: the card is shown, the learner's hands and shouts are read by
the live referee's own perception stages, and each answer is judged by the same judge.

``referee teach ikatako --camera N --audio-device M --calibration CAL --seat NAME`` (a real
table seat) or ``--from-video V.mp4 --audio SEATS.wav`` (a recording released in real time
through the same live sources: :class:`vision.paced_camera.PacedFakeCamera`,
:class:`audio.capture.PacedStreamFactory`). This module does not run a pipeline of its own:
it is a sink and a view plugged into :func:`referee.live.run.run_live`, so the hands come
from :class:`referee.pipeline.vision.VisionStage`, the shouts from the hearing job, both on
the session (sensor) clock, released in the canonical order by the watermark merge.

Two ways to pick the cards:

- **drawn** (a camera): the drill draws a situation of the learner's level (the FSRS
  scheduler, as the keyboard drill), waits a random foreperiod, and shows the drawn card;
  its *shown* time is the session clock when it went on the screen. Each answer is a small
  record (the situation's troubles, the card at its shown time, the learner's hand and shout
  events) judged by the IKATAKO judge.
- **the recording's cards** (``--from-video``): the cards are the card flips the vision stage
  sees in the recording, shown when they are perceived; the shown time is the card event's
  time. The drill record is the recording's cards and the learner seat's events only (the
  other seats left out), so the field (troubles that stay) is the game's own and the
  learner's verdicts are those the referee gives that seat in the real game.

The reaction time is the judge's: from the shown time to the onset (the later of the
required hands going up and the shout's start) on the sensor clock. A verdict is given when
the merge has released everything up to the card's window end (or the next card).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from referee.pipeline.sinks import Sink
from referee.teach.core import Feedback, Level, Situation, header, judge_lines, rt
from referee.teach.drills.ikatako import VersusDrill
from referee.teach.progress import Progress
from referee.teach.scheduler import Scheduler
from session.errors import RefereeError
from session.events import (AudioStatusEvent, CardEvent, EndEvent, Event, HandEvent, SeatStatusEvent, SessionHeader,
                            ShoutEvent, SkippedEvent, WarningEvent)
from session.params import check_ranges

RIVAL = "rival"  # versus needs two players: the drill record's second, who never acts
#: the help line under a card (the keyboard drill's keys do not apply: hands and voice do)
REACT_HELP = {"en": "raise your hand(s) and call out: the camera and the microphone judge  |  Ctrl-C ends",
              "ja": "手を上げて声で答える: カメラとマイクが判定 | Ctrl-C で終了"}
#: said before an answer given again (the referee judged the card again after a late event)
REVISED = {"en": "card {n} ({card}) judged again: a hand or a word reached the referee late",
           "ja": "カード {n} ({card}) を判定し直し: 手か声が遅れて届きました"}


class SensedError(RefereeError):
    pass


@dataclass(frozen=True)
class SensedParams:
    """The pace of a teaching session played with real cards, hands and voices."""

    #: the random wait before a drawn card (s, from, to): longer than the keyboard's, so a
    #: hand from the last card is down again. Longer: a slower session.
    foreperiod: tuple[float, float] = (1.5, 3.0)
    #: feedback time before the next card is readied (s): the reason needs reading, the hands
    #: coming down. Shorter: feedback cut off.
    pause: float = 2.5
    #: the reaction window of the drawn cards (s; the rules' default; a recording's cards use
    #: its session's options).
    window_s: float = 3.0
    #: how often the window's camera inset is redrawn (s): 10 fps is enough to see oneself, and
    #: each redraw costs the perception loop ~3 ms of HighGUI.
    camera_every_s: float = 0.1

    def __post_init__(self):
        check_ranges(self, non_negative=("pause",), positive=("window_s", "camera_every_s"))


@dataclass
class _Card:
    sit: Situation | None
    shown: float
    card: str
    info: dict[str, Any] = field(default_factory=dict)
    fb: Feedback | None = None
    ready: float | None = None  # when "ready…" went up (a drawn card; an act after it is early)
    late: float | None = None  # feedback drawn this long after the card's window closed (session clock)
    end: float | None = None  # the end of the span judged (the window's end or the next card)
    n: int = 0  # its number among the answers (a revision rewrites that answer)


class SensedDrill(Sink):
    """The drill as a pipeline sink: the learner seat's events in, feedback out to ``view``
    (a teach view: :class:`referee.teach.terminal.TerminalView` or the window)."""

    wants_frames = True  # the window's camera inset (and the drawn cards' clock between statuses)

    def __init__(self, seat: str, view, *, paced: bool, lang: str = "en", cards: int = 20, seed: int = 0,
                 progress: Progress | None = None, level: str | None = None, params: SensedParams = SensedParams(),
                 voice=None, start: datetime | None = None):
        self.seat, self.view, self.paced, self.lang, self.voice = seat, view, paced, lang, voice
        self.params, self.n_cards, self.progress = params, cards, progress
        self.drill = VersusDrill()
        self.levels = self.drill.levels()
        names = [lv.rule for lv in self.levels]
        reached = level or (progress.level(self.drill.name) if progress else None)
        if level is not None and level not in names:
            raise SensedError(f"ikatako has no level {level!r} (levels: {', '.join(names)})")
        self.level = self.levels[names.index(reached) if reached in names else 0]
        self.rng = random.Random(seed)
        self.scheduler = Scheduler(progress.cards.get(self.drill.name) if progress else None,
                                   progress.confusion(self.drill.name) if progress else None, seed)
        self.session = progress.next_session() if progress else 0
        self.start_at = start or datetime.now(timezone.utc).replace(microsecond=0)
        self.window_s = params.window_s
        self.mine: list[Event] = []  # the learner seat's hand and shout events
        self.seen_cards: list[CardEvent] = []  # the recording's cards (paced)
        self.seen_late: list[WarningEvent] = []  # their "card seen late" warnings (the judge reads them)
        #: what the senses said of the learner's seat (video skipped, seat not seen, microphone
        #: lost): the judge makes the learner unclear there, never wrong
        self.senses: list[Event] = []
        self.cards: list[_Card] = []
        self.pending: list[_Card] = []
        self.done_cards: list[_Card] = []
        self.watermark = -1e9
        self._offset: float | None = None  # session clock = monotonic + offset
        self._next_show: float | None = None
        self._ready_at: float | None = None
        self._ready_t: float | None = None
        self._camera_t = -1e9
        self.finished = False
        self.header: SessionHeader | None = None

    # ----------------------------------------------------------------- clock
    def now(self) -> float | None:
        return None if self._offset is None else time.monotonic() + self._offset

    # ----------------------------------------------------------------- sink calls
    def start(self, header: SessionHeader) -> None:
        self.header = header
        if self.seat not in header.players:
            raise SensedError(f"--seat {self.seat!r} is not at this table (seats: {', '.join(header.players)})")
        if self.paced:
            from rules import get
            self.window_s = float(get("ikatako").resolve_options(dict(header.options)).get("window", 3.0))
        if self.progress is not None:
            self.progress.append({"type": "start", "session": self.session, "drill": self.drill.name,
                                  "at": self.start_at.isoformat(), "lang": self.lang,
                                  "sensed": "recording" if self.paced else "camera", "seat": self.seat})

    def event(self, ev: Event) -> None:
        if isinstance(ev, (HandEvent, ShoutEvent)) and ev.player == self.seat:
            self.mine.append(ev)
            self._revise_if_late(ev.t)
        elif isinstance(ev, WarningEvent) and ev.extra.get("card_time_uncertain") and self.paced \
                and ev.extra.get("zone", "field") == "field":
            self.seen_late.append(replace(ev, line=0))
            self._revise_if_late(ev.t)
        elif _about_seat(ev, self.seat):
            self.senses.append(replace(ev, line=0))
            self._revise_if_late(ev.t)
        elif isinstance(ev, CardEvent) and self.paced and ev.zone in (None, "field"):
            self.seen_cards.append(replace(ev, by=None, line=0))
            self.watermark = max(self.watermark, ev.t)
            self._close_due()  # the card before is closed by this one
            self._show_recorded(ev)
            return
        self.watermark = max(self.watermark, ev.t)
        self._close_due()

    def status(self, info: dict[str, Any]) -> None:
        now = info.get("now")
        if isinstance(now, (int, float)):
            self._offset = float(now) - time.monotonic()
            lag = info.get("lag_ms")
            if isinstance(lag, (int, float)):
                self.watermark = max(self.watermark, float(now) - lag / 1000.0)
        self._close_due()
        self._tick()

    def frame(self, frame: Any, events: list[Event]) -> None:
        show = getattr(self.view, "camera", None)
        now = getattr(frame, "t", 0.0)
        if show is not None and now - self._camera_t >= self.params.camera_every_s:
            self._camera_t = now
            show(frame.image)
        self._tick()

    def finish(self, judgement: Any) -> None:
        self.watermark = float("inf")
        self._close_due(final=True)
        self.finished = True

    # ----------------------------------------------------------------- drawn cards (a camera)
    def _tick(self) -> None:
        if self.paced or self.finished:
            return
        now = self.now()
        if now is None or self.pending or len(self.cards) >= self.n_cards:
            return
        if self._next_show is None:
            if self._ready_at is not None and now < self._ready_at:
                return
            sit = self.scheduler.pick(self.level.situations, self._when(now))
            self._next = sit
            self._next_show = now + self.rng.uniform(*self.params.foreperiod)
            self._ready_t = now
            self.view.ready(self._info())
            return
        if now >= self._next_show:
            sit = self._next
            self.view.show(self._screen(sit), self._info())
            shown = self.now()  # on the screen from here (the draw call returned)
            card = _Card(sit, rt(shown), sit.data["card"], self._info(), ready=self._ready_t)
            self.cards.append(card)
            self.pending.append(card)
            self._next_show = None

    def _info(self) -> dict[str, Any]:
        lv = self.level
        return {"n": len(self.cards) + 1, "of": self.n_cards, "level": lv, "index": self.levels.index(lv)}

    @property
    def done(self) -> bool:
        """A drawn-card drill has given all its cards' feedback."""
        return not self.paced and len(self.done_cards) >= self.n_cards

    # ----------------------------------------------------------------- the recording's cards
    def _show_recorded(self, ev: CardEvent) -> None:
        from rules import ikatako as R
        try:
            R.check_card(ev.card)
        except RefereeError:
            return
        troubles = self._field_before(len(self.seen_cards) - 1)
        sit = self.drill.make(f"{ev.card}|{'+'.join(t for t in R.TROUBLES if t in troubles)}")
        card = _Card(sit, rt(ev.t), ev.card)
        card.info = {"n": len(self.cards) + 1, "of": None, "level": self._level_of(sit),
                     "index": self.levels.index(self._level_of(sit))}
        self.cards.append(card)
        self.pending.append(card)
        if sit is not None:
            self.view.show(self._screen(sit), card.info)

    def _screen(self, sit: Situation):
        return replace(self.drill.screen(sit, self.lang), keys=REACT_HELP.get(self.lang, REACT_HELP["en"]))

    def _field_before(self, index: int) -> list[str]:
        """The troubles lying in the field when card ``index`` of the recording came (the
        rules' own state: a trouble card stays for the rest of the game)."""
        from rules import ikatako as R
        return [c.card for c in self.seen_cards[:index] if R.kind(c.card) == "trouble"]

    def _level_of(self, sit: Situation | None) -> Level:
        for lv in self.levels:
            if sit is not None and lv.rule == sit.rule:
                return lv
        return self.level

    # ----------------------------------------------------------------- judging
    def _close_due(self, final: bool = False) -> None:
        while self.pending:
            card = self.pending[0]
            nxt = [c.t for c in self.seen_cards if c.t > card.shown + 1e-9] if self.paced else []
            end = min([card.shown + self.window_s] + nxt[:1])
            if not final and self.watermark < end:
                return
            self.pending.pop(0)
            self._judge(card, end)

    def record(self, card: _Card, end: float) -> list[Event]:
        """The drill record of ``card``: header, the field, the card at its shown time, the
        learner's events (those before it keep the hands' state), an end after the window."""
        t_end = rt(max(end, card.shown + self.window_s) + 0.01)
        if self.paced:
            hdr = self.header
            cards = [c for c in self.seen_cards if c.t <= card.shown + 1e-9]
            nxt = [c for c in self.seen_cards if c.t > card.shown + 1e-9][:1]
            hd = SessionHeader(t=0.0, game="ikatako", mode="versus", players=(self.seat, RIVAL),
                               options={"window": self.window_s, "tie_ms": (hdr.options or {}).get("tie_ms", 33)},
                               extra={"teach": {"seat": self.seat, "from": "recording"}})
            evs: list[Event] = [*cards, *nxt]
            stop = nxt[0].t if nxt else t_end
            # a card seen late counts the reactions of the gap before it, as the live judge does
            evs += [w for w in self.seen_late if w.t <= stop + 1e-9]
            evs += [e for e in self.mine if e.t < stop]
            evs += [e for e in self.senses if e.t < stop]
            evs.append(EndEvent(t=rt(max(t_end, stop))))
            return [hd, *evs]
        sit = card.sit
        hd = header("ikatako", [self.seat, RIVAL], {"window": self.window_s}, sit, mode="versus")
        troubles = list(sit.data["troubles"])
        mine_before = [e for e in self.mine if e.t < card.shown]
        t_field = card.shown - 0.002 * (len(troubles) + 1)
        evs = [e for e in mine_before if e.t < t_field and isinstance(e, HandEvent)]
        evs += [CardEvent(t=rt(t_field + 0.002 * i), card=t, zone="field") for i, t in enumerate(troubles)]
        evs.append(CardEvent(t=card.shown, card=card.card, zone="field"))
        evs += [e for e in self.mine if card.shown <= e.t <= end]
        evs += [e for e in self.senses if e.t <= end]
        evs.append(EndEvent(t=t_end))
        return [hd, *evs]

    def _judge(self, card: _Card, end: float) -> None:
        fb = self._feedback(card, end)
        if fb is None:
            return
        card.fb, card.end, card.n = fb, end, len(self.done_cards) + 1
        self.done_cards.append(card)
        self.view.feedback(fb, card.info)
        now = self.now()
        if now is not None:
            card.late = round(now - end, 4)
        if self.voice:
            self.voice.say(*fb.spoken)
        self._store(card, fb)
        self._ready_at = (self.now() or 0.0) + self.params.pause

    def _revise_if_late(self, t: float) -> None:
        """An event of the learner's seat released after its time had passed (the merge lets a
        late event through, and the live judge then re-judges the record): each card already
        answered whose span ends at or after it is judged again, and a changed answer is shown
        and stored again, marked as a revision — the drill says what the referee says.
        The schedule keeps the first rating (rating twice would count one answer twice)."""
        if t >= self.watermark:
            return
        for card in self.done_cards:
            if card.end is None or card.end < t:
                continue
            fb = self._feedback(card, card.end)
            old = card.fb
            if fb is None or old is None or (fb.verdict, fb.reaction, fb.answered) == (old.verdict, old.reaction, old.answered):
                continue
            card.fb = fb
            self.view.message(REVISED.get(self.lang, REVISED["en"]).format(n=card.n, card=card.card))
            self.view.feedback(fb, card.info)
            self._store(card, fb, revises=True)

    def _feedback(self, card: _Card, end: float) -> Feedback | None:
        """The judged answer to ``card`` from the events up to ``end`` (None: the judge gave the
        card no verdict, or it is no drill situation)."""
        rec = self.record(card, end)
        lines = judge_lines(rec)
        v = _verdict_near(lines, card.shown) or {}
        if card.sit is None or not v:
            return None
        since = (v.get("card_time_uncertain") or {}).get("counted_from", card.shown)  # (a card seen late)
        acts = [e for e in self.mine if since <= e.t <= end]
        shout = next((e for e in acts if isinstance(e, ShoutEvent)), None)
        hands = {e.side for e in acts if isinstance(e, HandEvent) and e.state == "up"}
        hands |= _still_up(self.mine, since, shout.t if shout else end)
        words = list(shout.words) if shout else []
        early = [] if card.ready is None else [
            e for e in self.mine if card.ready <= e.t < card.shown and getattr(e, "state", "up") == "up"]
        first = rt(min(e.t for e in acts) - since) if acts else None
        fb = self.drill.explain(card.sit, v, self.seat, hands, words, self.lang, early=bool(early), last=first)
        fb.record, fb.lines = rec, lines
        return fb

    def _when(self, t: float | None) -> datetime:
        return self.start_at + timedelta(seconds=round(t or 0.0, 3))

    def _store(self, card: _Card, fb: Feedback, revises: bool = False) -> None:
        sit, level = card.sit, card.info.get("level") or self.level
        now = self._when(card.shown)
        # an answer the referee did not clearly perceive gets no rating (it would count as a
        # lapse or a success it was not); it is still written to the progress file
        unclear = fb.verdict == "unclear"
        fsrs_card = None if unclear or revises else self.scheduler.review(sit, fb, level.target_s, now)
        if self.progress is None:
            return
        self.progress.append({"type": "answer", "session": self.session, "n": card.n,
                              **({"revises": True} if revises else {}),
                              "drill": self.drill.name, "rule": sit.rule, "situation": sit.key,
                              "verdict": fb.verdict, "reaction": fb.reaction, "answered": fb.answered,
                              "answered_as": fb.answered_as, "placement": False, "at": now.isoformat(),
                              "sensed": True, "shown_t": card.shown})
        if fsrs_card is not None:
            self.progress.append({"type": "fsrs", "drill": self.drill.name, "situation": sit.key,
                                  "card": fsrs_card.to_dict()})

    def summary(self) -> dict[str, Any]:
        import statistics
        fbs = [c.fb for c in self.done_cards if c.fb is not None]
        right = [f for f in fbs if f.ok]
        times = [f.reaction for f in right if f.reaction is not None]
        late = sorted(c.late for c in self.done_cards if c.late is not None)
        return {"cards": len(fbs), "right": len(right), "accuracy": len(right) / len(fbs) if fbs else 0.0,
                "median_reaction": statistics.median(times) if times else None,
                "feedback_after_window_s": (statistics.median(late), late[-1]) if late else None,
                "verdicts": [(c.shown, c.card, c.fb.verdict, c.fb.reaction) for c in self.done_cards if c.fb]}


def _about_seat(ev: Event, seat: str) -> bool:
    """A status of the senses that concerns ``seat``: video skipped (for it or for everyone), its
    seat not seen, its microphone lost or back."""
    if isinstance(ev, SeatStatusEvent):
        return ev.player == seat
    if isinstance(ev, (SkippedEvent, AudioStatusEvent)):
        return ev.extra.get("player") in (seat, None)
    return False


def _still_up(events, shown: float, moment: float) -> set[str]:
    """Sides that were up when the card was shown and not lowered before ``moment`` (the
    judge counts them as raised: "still up from before")."""
    up: dict[str, bool] = {}
    for e in events:
        if isinstance(e, HandEvent) and e.t < shown:
            up[e.side] = e.state == "up"
    lowered = {e.side for e in events if isinstance(e, HandEvent) and shown <= e.t <= moment and e.state == "down"}
    return {s for s, u in up.items() if u and s not in lowered}


def _verdict_near(lines, t: float) -> dict[str, Any] | None:
    """The verdict of the card shown at ``t`` (the judge writes card times to the millisecond;
    sensed times have the frame's microseconds)."""
    for line in lines:
        if line.get("type") == "verdict" and abs(float(line.get("t", -1)) - t) <= 0.0006:
            return dict(line)
    return None


class SensedView(Sink):
    """What :func:`referee.live.run.run_live` wants of a view (a sink with ``drain`` and
    ``seen``), drawing the drill through a teach view; it asks the session to stop once a
    drawn-card drill is over."""

    def __init__(self, drill: SensedDrill):
        self.drill = drill

    def seen(self, events) -> None:
        pass

    def drain(self) -> list[Any]:
        if self.drill.done:
            from referee.live.controls import Command
            return [Command("quit")]
        return []


def run_sensed(*, calibration: Path, seat: str | None, out: Path, view, camera: Any = 0, audio_device: Any = None,
               from_video: Path | None = None, audio: Path | None = None, lang: str = "en", cards: int = 20,
               seed: int = 0, progress: Progress | None = None, level: str | None = None, voice=None,
               say=print, start: datetime | None = None, params: SensedParams = SensedParams(),
               workers: int = 2) -> tuple[SensedDrill, Any]:
    """Run the drill through the live sources; returns the drill (its cards and feedback)
    and the live run's result (the record, video and audio it wrote, its own verdicts)."""
    from referee.live.run import LiveOptions, run_live
    from session.calibration import load

    cal = load(Path(calibration))
    if cal.game != "ikatako":
        raise SensedError(f"the camera/microphone drill is IKATAKO's; {calibration} is calibrated for {cal.game}")
    seats = [s.name for s in cal.seats]
    seat = seat or seats[0]
    if seat not in seats:
        raise SensedError(f"--seat {seat!r} is not in {calibration} (seats: {', '.join(seats)})")
    drill = SensedDrill(seat, view, paced=from_video is not None, lang=lang, cards=cards, seed=seed,
                        progress=progress, level=level, params=params, voice=voice, start=start)
    opts = LiveOptions(calibration=Path(calibration), out=Path(out), camera=camera, from_video=from_video,
                       audio_device=audio_device, audio=audio, game="ikatako", mode="versus",
                       window=False, voice=False, workers=workers, lang="ja")
    result = run_live(opts, extra_sinks=[drill], say=say, view_factory=lambda state, controls: SensedView(drill))
    return drill, result

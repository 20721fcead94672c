"""The whole table: frames in, ``card`` / ``hand`` / ``grab`` events out, on the frame clock.

``TableWatcher.update(frame) -> [Event]`` runs one :class:`~vision.cards.CardZoneWatcher`
per card zone, one :class:`~vision.hands.SeatHands` per seat and, when the calibration has a
``token`` zone, a :class:`~vision.token.TokenWatcher`. Events come out when they are known
(a card after its confirmation, a hand after :data:`~vision.hands.RAISE_FRAMES`), carrying
the time they *happened*; :func:`watch_video` sorts them.

Speed (see ``python -m vision.bench`` and ``benchmarks/bench_replay.py``): ``workers`` > 0
runs whole seats (pose, arm states and the re-analysis around each hand change) in that
many processes (:class:`vision.parallel.SeatWorkers`, frames through shared memory) while
this one decodes and watches the cards — the output is the same as in one process;
``card_every`` > 1 analyses card zones on every n-th frame only (the walk-back over the ring
buffer keeps full-rate timing); ``pose_every`` > 1 runs each seat's pose on every n-th
frame, seats staggered, and re-analyses the ring-buffered frames around each hand
transition at full rate (where the seat lives, only then), so onsets keep full-rate
accuracy (:class:`~vision.hands.SeatHands`).
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from session.calibration import Box
from session.closing import close_all
from session.events import Event
from session.order import sort_key
from vision.cards import CardZoneWatcher, References
from vision.hands import SeatHands, pose_figures
from vision.token import TokenWatcher
from vision.spread_watch import SpreadWatcher, is_spread_zone
from vision.video import Frame, read_frames

#: frames in flight to the pose workers before this process waits for the oldest one's
#: landmarks (``watch_frames``; a live ``TableWatcher`` defaults to 0). Lets decoding, the
#: card zones and the re-analysis overlap the workers instead of waiting for them every
#: frame. Latency: hand/grab events come out this many frames later (their times unchanged).
PIPELINE_FRAMES = 4


@dataclass(frozen=True)
class TableLayout:
    """What the watcher needs to know of a table, as plain values: the image size, the zones
    (card zones, and ``token`` for MOKOCHAKA) and the seats' boxes (:class:`session.
    calibration.Box`, image pixels), and the folder of card reference images — not the whole
    calibration, whose other parts (audio, enrollment, decks) are none of vision's business."""

    width: int
    height: int
    zones: Mapping[str, Box]
    seats: tuple[tuple[str, Box], ...]
    references: Path | None = None

    def for_hands(self, hands: bool) -> "TableLayout":
        """This layout, or (``hands`` False: no verdict of the game uses the players' hands)
        the same without its seats, so no pose runs at all: no seat workers, no hand events."""
        return self if hands else replace(self, seats=())

    @property
    def card_zones(self) -> dict[str, Box]:
        return {k: v for k, v in self.zones.items() if k != "token"}

    @staticmethod
    def of(table: Any) -> "TableLayout":
        """The layout of a calibration (:class:`session.calibration.Calibration`) or a layout."""
        if isinstance(table, TableLayout):
            return table

        def box(b) -> Box:
            return b if isinstance(b, Box) else Box(*(int(v) for v in b))

        return TableLayout(int(table.width), int(table.height), {k: box(v) for k, v in sorted(table.zones.items())},
                           tuple((s.name, box(s.box)) for s in table.seats),
                           Path(table.references) if table.references is not None else None)


#: frames that may wait for the card zones' thread (live, :class:`CardThread`) to be
#: analysed; beyond it a frame is only *kept* in the zones' rings, not analysed (counted in
#: ``CardThread.unanalysed``; a frame a zone analyses waits up to twice this many) — the seats
#: still get every frame. Why: while a zone recognises a newly revealed card (0.2–2.2 s under
#: load; 2–8 s on a slow 2-core machine) the frames pile up, and analysing them all
#: afterwards kept the cards' watermark — and every verdict — 0.8–1.0 s behind at load 9–10.
#: Latency cost: at most this many frames of zone work after a recognition (~0.1 s). The
#: kept frames cost a crop's copy each, and the walk-back searches them for the card's first
#: frame as it searches any frame in the ring: before, such frames were not given at all,
#: and on a machine whose zones were always behind (a 2-GHz AVX2 EPYC, 2026-12-03: 390 of
#: 641 frames) a card revealed in them was timed at the next frame the zones analysed, up to
#: 1.9 s late — the players' reactions then fell to the card before (5 of the demo's 10
#: verdicts wrong). None: unbounded (tests).
CARD_BACKLOG_FRAMES = 6


@dataclass(frozen=True)
class _ZoneFrame:
    """A frame for the card thread: ``analyse`` it, or only keep it in the zones' rings."""

    index: int
    t: float
    image: Any
    analyse: bool


@dataclass(frozen=True)
class _ZonesDone:
    """The card thread's answer for one frame: its events, the zones' bound as of that frame,
    each zone's warning count, whether it was analysed, and an error to raise in the caller."""

    events: list
    bound: float
    said: list | None
    analysed: bool
    error: BaseException | None = None


class CardThread:
    """The card zones on a thread of their own (live): fed every frame the watcher gets, in
    order, so each zone sees exactly what it saw in the caller's thread — the same events,
    the same times — only *when* they come out changes. After each frame the thread hands
    back that frame's events together with the zones' bound as of that frame
    (:meth:`~vision.cards.CardZoneWatcher.earliest_event_t`), so the watermark never runs
    ahead of the events taken. Why: recognising a newly revealed card (:mod:`vision.cards`'
    matching) took 0.2–2.2 s of one stage call in the live loop's thread, just when the
    players react; OpenCV releases the GIL, so the loop keeps taking frames for the seats
    meanwhile. Replay keeps the zones in its own thread (no queue, nothing timing-dependent)."""

    def __init__(self, cards, max_backlog: int | None = CARD_BACKLOG_FRAMES):
        self.cards = cards
        self.max_backlog = max_backlog
        self.unanalysed = 0  # frames only kept in the zones' rings, not analysed (the backlog was full)
        self._in: queue.Queue = queue.Queue()
        self._out: queue.Queue = queue.Queue()
        #: the zones' bound as of the last frame whose events were taken (-inf: none yet)
        self.bound = float("-inf")
        self.seconds = 0.0  # CPU seconds of the zones (thread time)
        self.backlog_max = 0  # the most frames waiting for the zones (a figure)
        self._submitted = self._taken = 0  # every frame, kept or analysed
        self._waiting = 0  # frames to analyse not yet taken back (what the backlog bounds)
        #: the input has ended (:meth:`drain`): frames still waiting are analysed, kept ones too
        #: — nothing to hurry for, and a card revealed in the last second is confirmed as the
        #: unhurried zones confirm it (before, one could stay unread under load)
        self._finishing = False
        #: per zone, its warnings as of the last frame taken (the caller sees those only)
        self.said = [len(c.warnings) for c in cards]
        self._thread = threading.Thread(target=self._run, daemon=True, name="card-zones")
        self._thread.start()

    def submit(self, index: int, t: float, image) -> None:
        backlog = self._waiting
        if self.max_backlog is not None and backlog >= self.max_backlog:
            # a frame some zone analyses (``index % every == 0``) waits up to twice as long:
            # dropping those could leave a zone reading none of the frames it is given
            due = any(index % c.every == 0 for c in self.cards)
            if not due or backlog >= 2 * self.max_backlog:
                self.unanalysed += 1
                self.keep(index, t, image)  # into the rings only: the walk-back's
                return
        self._in.put(_ZoneFrame(index, t, image, True))
        self._submitted += 1
        self._waiting += 1
        self.backlog_max = max(self.backlog_max, self._waiting)

    def keep(self, index: int, t: float, image) -> None:
        """A frame into the zones' rings only, in order with the submitted ones (live: one the
        loop skipped; the walk-back may find a card's first frame in it)."""
        self._in.put(_ZoneFrame(index, t, image, False))
        self._submitted += 1

    def _run(self) -> None:
        while True:
            item = self._in.get()
            if item is None:
                return
            c0 = time.thread_time()
            try:
                events: list[Event] = []
                for c in self.cards:
                    if item.analyse or self._finishing:
                        events.extend(c.update(item.index, item.t, item.image))
                    else:
                        c.keep(item.index, item.t, item.image)
                marks = [c.earliest_event_t() for c in self.cards]
                said = [len(c.warnings) for c in self.cards]
                self._out.put(_ZonesDone(events, min(marks) if marks else float("inf"), said, item.analyse))
            except BaseException as exc:  # raised in the caller's thread by take()
                self._out.put(_ZonesDone([], self.bound, None, item.analyse, exc))
            self.seconds += time.thread_time() - c0

    def _one(self, timeout: float | None) -> list[Event] | None:
        try:
            done: _ZonesDone = self._out.get(timeout=timeout) if timeout != 0 else self._out.get_nowait()
        except queue.Empty:
            return None
        self._taken += 1
        self._waiting -= done.analysed
        if done.error is not None:
            raise done.error
        self.bound, self.said = done.bound, done.said
        return done.events

    @property
    def in_flight(self) -> int:
        """Frames given to the thread whose events have not been taken back yet."""
        return self._submitted - self._taken

    def take(self) -> list[Event]:
        """The events of the frames the zones have done (never waits)."""
        out: list[Event] = []
        while (got := self._one(0)) is not None:
            out.extend(got)
        return out

    def drain(self) -> list[Event]:
        """Every frame submitted done: their events (the end of the input)."""
        self._finishing = True
        out: list[Event] = []
        try:
            while self._taken < self._submitted:
                got = self._one(5.0)
                if got is None and not self._thread.is_alive():
                    break
                out.extend(got or [])
        finally:
            self._finishing = False  # (a caller that goes on after a drain: hurried again)
        return out

    @property
    def backlog(self) -> int:
        """Frames waiting to be analysed (those only kept are quick and not counted)."""
        return self._waiting

    def close(self) -> None:
        self._in.put(None)
        self._thread.join(timeout=5)


class TableWatcher:
    """``workers`` > 0 runs the seats (pose, arm states, re-analysis) in that many processes
    (:class:`vision.parallel.SeatWorkers`) while this one watches the cards; ``pipeline``
    frames may be in flight to them, and :attr:`seats` then stay idle here (their state
    lives in the workers). With ``keep_landmarks``, :attr:`seen` collects ``(t, player,
    landmarks)`` of every analysed seat whose person was found (the replay report's
    evidence; the caller drains it)."""

    def __init__(self, table: TableLayout | Any, refs: References | None = None, *, workers: int = 0,
                 card_every: int = 1, pose_every: int = 1, pipeline: int = 0, keep_landmarks: bool = False,
                 half_raise: bool | None = None):
        layout = TableLayout.of(table)
        if layout.card_zones and refs is None:
            refs = References.from_folder(layout.references)
        # a player's spread (``p:NAME:spread``: several cards read together once still,
        # vision.spread_watch) or one card at a time (the other zones)
        self.cards = [SpreadWatcher(name, box, refs) if is_spread_zone(name)
                      else CardZoneWatcher(name, box, refs, every=card_every)
                      for name, box in sorted(layout.card_zones.items())]
        from vision.hands import HALF_RAISE

        self.half_raise = HALF_RAISE if half_raise is None else bool(half_raise)  # the table's rule
        self.seats = [SeatHands(name, box.to_list(), every=pose_every, phase=i, half_raise=self.half_raise)
                      for i, (name, box) in enumerate(layout.seats)]
        self.players = [s.player for s in self.seats]
        self.token = TokenWatcher(layout.zones["token"]) if "token" in layout.zones else None
        self.width, self.height = layout.width, layout.height
        self.pipeline = max(0, pipeline)  # frames in flight to the workers (see PIPELINE_FRAMES)
        self.workers = None
        if workers > 0 and self.seats:
            from vision.parallel import RING_MARGIN, SeatWorkers

            self.workers = SeatWorkers([(s.player, s.box, s.every, s.phase, self.half_raise) for s in self.seats], workers,
                                       (layout.height, layout.width, 3), self.pipeline + RING_MARGIN)
        self._pending: deque[float] = deque()
        #: per seat, the earliest time a hand event still to come can carry (workers: as of
        #: the last collected frame); the time of the last frame whose hands are known
        self._seat_marks = [float("-inf")] * len(self.seats)
        self._collected_t = float("-inf")
        self.keep_landmarks = keep_landmarks
        self.seen: list[tuple[float, str, object]] = []
        self._card_seconds = 0.0  # CPU seconds spent on the card zones (benchmark figure)
        self.card_thread: CardThread | None = None  # the zones on their own thread (live)

    @property
    def card_seconds(self) -> float:
        return self._card_seconds + (self.card_thread.seconds if self.card_thread is not None else 0.0)

    def start_card_thread(self, max_backlog: int | None = CARD_BACKLOG_FRAMES) -> None:
        """Run the card zones on a thread of their own from now on (:class:`CardThread`)."""
        if self.card_thread is None and self.cards:
            self.card_thread = CardThread(self.cards, max_backlog)

    def card_marks(self) -> list[float]:
        """The card zones' bounds as the watermark uses them (with the card thread: as of the
        last frame whose events were taken — the zones themselves are busy on the thread)."""
        if self.card_thread is not None:
            return [self.card_thread.bound]
        return [c.earliest_event_t() for c in self.cards]

    def seat_marks(self) -> list[float]:
        """Each seat's bound as the watermark uses it (with workers: as of the last frame
        collected from them)."""
        if self.workers is not None:
            return list(self._seat_marks)
        return [s.earliest_event_t() for s in self.seats]

    def watermark(self) -> float:
        """No event not yet returned can be timed before this: the card zones' bounds
        (:meth:`~vision.cards.CardZoneWatcher.earliest_event_t`), each seat's
        (:meth:`~vision.hands.SeatHands.earliest_event_t`; with workers as of the last frame
        collected from them), and for the token the last frame whose hands are known. Much
        tighter than :attr:`lag_frames` (the worst case): a seat with no change under way
        promises its last analysed frame."""
        marks = self.card_marks() + self.seat_marks() + [self._collected_t]
        return min(marks)

    @property
    def lag_frames(self) -> int:
        """How many frames after it happened an event can still come out (the pipeline's
        watermark for vision: no event earlier than the newest frame's time minus this many
        frames will follow). Cards: the walk-back over the zone's ring; hands: the analysed
        frames a change needs at the reduced pose rate, the motion gate's skips and the
        re-analysis, plus the frames in flight to the workers. Conservative: a late event
        would be a broken promise, which the merge counts and reports."""
        from vision.cards import RING_FRAMES
        from vision.hands import LOWER_FRAMES, MOTION_MAX_SKIPS, RAISE_FRAMES

        cards = max([RING_FRAMES] + [c.ring.maxlen or 0 for c in self.cards])
        hands = max([0] + [s.every * (max(RAISE_FRAMES, -(-LOWER_FRAMES // s.every)) + MOTION_MAX_SKIPS + 2)
                           for s in self.seats])
        return self.pipeline + max(cards, hands) + 1

    @property
    def warnings(self) -> list[str]:
        if self.card_thread is not None:  # (as of the frames taken back from the thread)
            return [w for c, n in zip(self.cards, self.card_thread.said) for w in c.warnings[:n]]
        return [w for c in self.cards for w in c.warnings]

    def update(self, frame: Frame) -> list[Event]:
        """Events known after this frame. With workers and ``pipeline`` > 0 the hands and the
        token of a frame are observed ``pipeline`` frames later; :meth:`finish` drains them."""
        img = frame.image
        if self.workers is not None:
            self.workers.submit(frame.index, frame.t, img)
            self._pending.append(frame.t)
        events: list[Event] = []
        if self.card_thread is not None:
            self.card_thread.submit(frame.index, frame.t, img)
            events.extend(self.card_thread.take())
        else:
            t0 = time.thread_time()
            for c in self.cards:
                events.extend(c.update(frame.index, frame.t, img))
            self._card_seconds += time.thread_time() - t0
        if self.workers is not None:
            while len(self._pending) > self.pipeline:
                events.extend(self._collect())
        else:
            due = [s.due(frame.index) for s in self.seats]
            for seat, d in zip(self.seats, due):
                events.extend(seat.update(frame.index, frame.t, img))
                if d:
                    self._seen(frame.t, seat.player, seat.landmarks)
            events.extend(self._token(frame.t, due, [s.landmarks for s in self.seats]))
            self._collected_t = frame.t
        return events

    def _seen(self, t: float, player: str, lm) -> None:
        if lm is not None and self.keep_landmarks:
            self.seen.append((t, player, lm))

    def _collect(self) -> list[Event]:
        t = self._pending.popleft()
        events: list[Event] = []
        due, lms = [], []
        for k, (player, seat) in enumerate(zip(self.players, self.workers.collect())):
            events.extend(seat.events)
            due.append(seat.analysed)
            lms.append(seat.landmarks)
            self._seat_marks[k] = seat.earliest
            if seat.analysed:
                self._seen(t, player, seat.landmarks)
        self._collected_t = t
        return events + self._token(t, due, lms)

    def _token(self, t: float, due: list[bool], lms: list) -> list[Event]:
        """Only the seats analysed on this frame: at reduced pose rate the others' landmarks
        are older than ``t`` and would time a grab late."""
        if self.token is None:
            return []
        return self.token.observe(t, {p: lm if d else None for p, lm, d in zip(self.players, lms, due)})

    def finish(self) -> list[Event]:
        """The events of the frames still in flight to the workers and the card thread (end of
        the input)."""
        events: list[Event] = []
        if self.card_thread is not None:
            events.extend(self.card_thread.drain())
        while self._pending:
            events.extend(self._collect())
        return events

    def collect_ready(self) -> list[Event]:
        """The pose workers' results that are already there (frames in flight answered), taken
        now instead of when more frames push them out — live, that wait was 130–200 ms of
        every hand's latency for nothing. Never waits."""
        out: list[Event] = []
        while self.workers is not None and self._pending and self.workers.ready():
            out.extend(self._collect())
        return out

    @property
    def in_flight(self) -> int:
        """Frames given to the card thread or the pose workers whose events are not back yet:
        while any is, the watermark must not pass them (live: at the video's end, an advance by
        the clock alone let a card confirmed late come after its promise)."""
        return (self.card_thread.in_flight if self.card_thread is not None else 0) + len(self._pending)

    def take_cards(self) -> list[Event]:
        """The card thread's events ready now (none without it): the live loop takes them
        between frames too."""
        return self.card_thread.take() if self.card_thread is not None else []

    def close(self) -> None:
        """Stop the card thread, the pose workers and the seats' pose, each whether or not
        it started (:func:`session.closing.close_all`: one failing leaves none running)."""
        close_all(self.card_thread is not None and self.card_thread.close,
                  self.workers is not None and self.workers.close, *(s.close for s in self.seats))

    def pose_stats(self) -> dict:
        """Pose figures (benchmark): inferences, due frames skipped by the motion gate, frames re-analysed, and with workers their
        CPU seconds and busy seconds per worker (known after :meth:`close`)."""
        if self.workers is not None:
            st = self.workers.stats
            return {**{k: sum(x[k] for x in st) for k in ("inferences", "skipped", "reanalysed")},
                    "worker_cpu": [round(x["cpu"], 2) for x in st], "worker_busy": [round(x["busy"], 2) for x in st]}
        return pose_figures(self.seats)


def watch_frames(frames: Iterator[Frame], cal: TableLayout | Any, *, refs: References | None = None,
                 workers: int = 0, card_every: int = 1, pose_every: int = 1,
                 on_frame: Callable[[Frame], None] | None = None,
                 on_warning: Callable[[str], None] | None = None) -> list[Event]:
    """All events of a frame sequence, sorted by time (then kind, player, side, card)."""
    from session.errors import MediaError

    tw = TableWatcher(cal, refs, workers=workers, card_every=card_every, pose_every=pose_every,
                      pipeline=PIPELINE_FRAMES)
    events: list[Event] = []
    seen_warnings = 0
    try:
        for fr in frames:
            if fr.image.shape[1] != cal.width or fr.image.shape[0] != cal.height:
                raise MediaError(
                    f"frame {fr.index} is {fr.image.shape[1]}x{fr.image.shape[0]}, the calibration is for "
                    f"{cal.width}x{cal.height}: calibrate this camera setting")
            events.extend(tw.update(fr))
            if on_frame is not None:
                on_frame(fr)
            ws = tw.warnings
            if on_warning is not None:
                for w in ws[seen_warnings:]:
                    on_warning(w)
            seen_warnings = len(ws)
        events.extend(tw.finish())
    finally:
        tw.close()
    return sorted(events, key=sort_key)


def watch_video(path: str | Path, cal: TableLayout | Any, **kwargs) -> list[Event]:
    return watch_frames(read_frames(path), cal, **kwargs)

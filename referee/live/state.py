"""What the live views show, as one plain state object fed by the pipeline's sink calls.

The window (:mod:`referee.live.window`) and the terminal view (:mod:`referee.live.terminal`)
both keep a :class:`LiveState` and draw it; :class:`StateSink` is the part of the sink
interface they share (events, verdicts, announcements, status, frames → state). Keeping
the state apart from the drawing makes both views testable without a screen and shows the
same information in both.

Texts follow the issue's examples: the last verdict large (``ben +118 ms``, ``aki wrong:
raised right hand``); a provisional announcement (first correct player before the window
closes) shows the same way until the verdict replaces it.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Any, Callable

from session.calibration import Calibration
from session.events import (AudioStatusEvent, CardEvent, ChoiceEvent, CorrectionEvent, DecisionEvent, Event,
                            HandEvent, SeatStatusEvent, SessionHeader, ShoutEvent, WarningEvent)

from referee.judging.base import live_play
from referee.pipeline.sinks import Sink
from referee.live.headlines import (Headline, announce_headline, legend, lead_text, mode_played,  # noqa: F401
                                     result_text, verdict_headline, without_provisional)

#: how long a seat's last words stay on screen (s of session time): long enough to read a
#: word after the verdict, short enough not to be mistaken for the next card's
WORDS_VISIBLE_S = 4.0
#: warnings kept on screen (the newest); older ones are in the record
WARNINGS_SHOWN = 3
#: past verdict lines kept for the history strip
HISTORY = 6
#: the released declarations kept for a turn-based game's view (:attr:`LiveState.declared`):
#: a Sea Salt & Paper game writes a few dozen a round (each spread read, each call)
DECLARED_KEPT = 5000


@dataclass
class SeatView:
    name: str
    box: tuple[int, int, int, int] | None = None
    channel: int | None = None
    hands: dict[str, bool] = field(default_factory=lambda: {"left": False, "right": False})
    words: str = ""
    words_t: float | None = None
    level_db: float | None = None
    #: the net score (points - penalties), the value of the point cards taken, and the value
    #: of those turned down as penalties: the terminal table's and the report's three columns
    score: int = 0
    points: int = 0
    penalties: int = 0


class LiveState:
    """Everything the live views draw; updated by :class:`StateSink` (or directly in tests)."""

    def __init__(self, calibration: Calibration | None = None, voice: Any = None):
        self.calibration = calibration
        self.game: str | None = calibration.game if calibration else None
        self.mode: str | None = None
        self.players: list[str] = []
        self.seats: dict[str, SeatView] = {}
        if calibration is not None:
            for s in calibration.seats:
                self.seats[s.name] = SeatView(s.name, tuple(s.box.to_list()), s.channel)
            self.players = [s.name for s in calibration.seats]
        self.field_box = None
        if calibration is not None:
            zone = calibration.zones.get("field") or next(iter(calibration.card_zones.values()), None)
            self.field_box = tuple(zone.to_list()) if zone is not None else None
        self.card: str | None = None
        self.card_t: float | None = None
        self.troubles: list[str] = []
        self.expected: str | None = None
        self.headline: Headline | None = None
        self.history: collections.deque[str] = collections.deque(maxlen=HISTORY)
        self.warnings: collections.deque[str] = collections.deque(maxlen=WARNINGS_SHOWN)
        #: the pose stride the adaptive pose rate last set (None: not changed yet)
        self.pose_every: int | None = None
        self.now = 0.0
        self.fps: float | None = None
        self.dropped = 0
        self.skipped = 0
        self.lag_ms: float | None = None
        self.paused = False
        self.prompt: str | None = None
        self.message: str | None = None  # one line from the controls (e.g. "undone: card 5")
        self.image = None
        self.image_t: float | None = None
        self.image_size: tuple[int, int] | None = (calibration.width, calibration.height) if calibration else None
        self._shown: dict[tuple[str, str], float] = {}  # (player, side) -> time of the hand shown
        self.verdicts = 0
        self.judged: dict[Any, dict[str, Any]] = {}  # verdict lines by card time, as they stand
        self.header: SessionHeader | None = None
        #: the table's declarations released by the merge, in order: choices (a call typed, a
        #: hand the camera read), shouts, corrections (a turn-based game's view re-judges the
        #: round in play from them: referee.live.tallies)
        self.declared: collections.deque[Event] = collections.deque(maxlen=DECLARED_KEPT)
        #: ``() -> {player: (score, points, penalties)}`` from the judge's state
        #: (:func:`scoreboard`; the live driver wires it to its pipeline's judge)
        self.scores_from: Callable[[], dict[str, tuple[int, int, int]]] | None = None
        self.finished = False
        #: the game's result line once judged (the final banner: winners, scores, sunk)
        self.result: dict[str, Any] | None = None
        #: the spoken verdicts: "on", or "off: <why>", or a callable giving it (the voice may
        #: find it has no sound device only when it starts); shown in the status line of both
        #: views, not only once on stderr
        self.voice: Any = voice

    # ------------------------------------------------------------------ inputs
    def start(self, header: SessionHeader) -> None:
        self.header = header
        self.game, self.mode = header.game, header.mode
        self.players = list(header.players)
        for p in header.players:
            self.seats.setdefault(p, SeatView(p))

    def event(self, ev: Event) -> None:
        """An event (released by the merge, or :meth:`seen` early); an event older than what
        a seat or the field already shows does not turn the display back."""
        self.now = max(self.now, ev.t)
        if isinstance(ev, CardEvent):
            if self.card_t is None or ev.t > self.card_t or (ev.t == self.card_t and ev.card != self.card):
                self._card(ev)
        elif isinstance(ev, HandEvent) and ev.player in self.seats:
            key = (ev.player, ev.side)
            if ev.t >= self._shown.get(key, float("-inf")):
                self._shown[key] = ev.t
                self.seats[ev.player].hands[ev.side] = ev.state == "up"
        elif isinstance(ev, ShoutEvent) and ev.player in self.seats:
            seat = self.seats[ev.player]
            if seat.words_t is None or ev.t >= seat.words_t:
                seat.words, seat.words_t = " ".join(ev.words) or (ev.text or ""), ev.t
        elif isinstance(ev, WarningEvent) and (ev.extra or {}).get("source") == "pose":
            # the adaptive pose rate at work, not a fault: in the status line, never as a WARNING
            self.pose_every = (ev.extra or {}).get("pose_every", self.pose_every)
        elif isinstance(ev, WarningEvent):
            self.warnings.append(ev.message)
        elif isinstance(ev, AudioStatusEvent) and ev.state in ("lost", "ok", "overflow"):
            text = {"lost": "microphones lost", "ok": "microphones back", "overflow": "audio overflow"}[ev.state]
            self.warnings.append(text + (f": {ev.detail}" if ev.detail else ""))
        elif isinstance(ev, SeatStatusEvent) and ev.state in ("lost", "ok"):
            # at once: the table should know the camera cannot see a player (not judged on hands)
            self.warnings.append(f"camera: {ev.player}'s seat not seen — hands not judged" if ev.state == "lost"
                                 else f"camera: {ev.player}'s seat seen again")
        elif isinstance(ev, DecisionEvent) and ev.is_answer:  # the table's answer about an unclear item
            what = f"{ev.first} takes it" if ev.first else f"{ev.player} {ev.verdict}"
            self.message = f"card {ev.card_index}: {what}"
        elif isinstance(ev, DecisionEvent):
            self.message = f"tie settled: {ev.first} takes it"
        elif isinstance(ev, CorrectionEvent):
            self.message = f"correction of line {ev.ref}" + (" (deleted)" if ev.replace is None else "")
        elif isinstance(ev, ChoiceEvent) and ev.get("source") != "camera":  # (a hand read: the tally shows it)
            self.message = f"{ev.player or 'table'} chose {ev.action}"

    def released(self, ev: Event) -> None:
        """An event the merge released (in the judge's order; not one :meth:`event` shows
        early): a declaration, a card or a card not read is kept for the game's view
        (:attr:`declared`: a TORATANU night starts at its special card)."""
        if isinstance(ev, (ChoiceEvent, ShoutEvent, CorrectionEvent, CardEvent)) or \
                (isinstance(ev, WarningEvent) and (ev.extra or {}).get("unread")):
            self.declared.append(ev)

    def _card(self, ev: CardEvent) -> None:
        self.card, self.card_t = ev.card, ev.t
        self.expected = None
        live = live_play(self.game)
        if live.expect is not None and mode_played(self.game, self.mode) in live.expect_modes:
            try:
                self.expected = live.expect(ev.card, self.troubles)  # (a card that stays adds itself)
            except Exception:  # a card the deck lacks: the judge warns; the view shows the name
                self.expected = None

    def verdicts_in(self, lines: list[dict[str, Any]]) -> None:
        """Verdict lines (a later line for the same card — the final one after a provisional
        preview, or a revision after a correction — replaces the earlier; the scoreboard is
        the sum over the verdicts as they stand) and the result line."""
        for line in lines:
            if line.get("type") == "verdict":
                key = line.get("t")
                old = self.judged.get(key)
                self.judged[key] = line
                if old is not None and without_provisional(old) == without_provisional(line):
                    continue  # the preview said it already
                self.verdicts += 1
                self.headline = verdict_headline(line, self.game)
                if old is not None and not old.get("provisional"):
                    self.headline.text = "revised: " + self.headline.text
                what = f"card {line.get('card')}: " if line.get("card") else \
                    f"round {line.get('round')}: " if line.get("round") else ""  # (a round: Sea Salt & Paper)
                self.history.append(what + self.headline.text + (" | " + "; ".join(self.headline.notes)
                                                                 if self.headline.notes else ""))
                self._rescore()
            elif line.get("type") == "result" and isinstance(line.get("scores"), dict):
                self.result = dict(line)
                for p, s in line["scores"].items():
                    if p in self.seats:
                        self.seats[p].score = s
                for key in ("points", "penalties"):
                    for p, v in (line.get(key) if isinstance(line.get(key), dict) else {}).items():
                        if p in self.seats and isinstance(v, (int, float)):
                            setattr(self.seats[p], key, int(v))

    def announce(self, items: list[dict[str, Any]]) -> None:
        for item in items:
            head = announce_headline(item)
            if head is None:
                continue
            cur = self.headline
            if cur is not None and cur.provisional and cur.card_t == head.card_t and head.kind != "first":
                cur.notes.append(head.text)  # wrong/missed after the first: keep the first large
            else:
                self.headline = head

    def status(self, info: dict[str, Any]) -> None:
        cam = info.get("camera", info)
        if "fps" in cam:
            self.fps = cam["fps"]
        self.dropped = int(cam.get("dropped", self.dropped) or 0)
        self.skipped = int(cam.get("skipped", self.skipped) or 0)
        levels = info.get("levels")
        if isinstance(levels, dict):
            for p, db in levels.items():
                if p in self.seats:
                    self.seats[p].level_db = db
        elif isinstance(levels, (list, tuple)):
            for seat in self.seats.values():
                if seat.channel is not None and seat.channel < len(levels):
                    seat.level_db = levels[seat.channel]
        if "lag_ms" in info:
            self.lag_ms = info["lag_ms"]
        if "paused" in info:
            self.paused = bool(info["paused"])
        if "prompt" in info:
            self.prompt = info["prompt"]
        if "message" in info:
            self.message = info["message"]
        if "now" in info:
            self.now = max(self.now, float(info["now"]))

    def frame(self, frame: Any) -> None:
        self.image, self.image_t = frame.image, frame.t
        self.image_size = (frame.image.shape[1], frame.image.shape[0])
        self.now = max(self.now, frame.t)

    def _rescore(self) -> None:
        """The scoreboard as the judge's state has it (:attr:`scores_from`): never
        recomputed here from the verdict lines, so it cannot disagree with the rules."""
        if self.scores_from is None:
            return
        for p, (score, points, penalties) in self.scores_from().items():
            if p in self.seats:
                seat = self.seats[p]
                seat.score, seat.points, seat.penalties = score, points, penalties

    # ------------------------------------------------------------------ queries
    def words_of(self, seat: SeatView) -> str:
        """A seat's last words while they are recent and belong to the card in the field
        (words from before the reveal would read as a reaction to it), else empty."""
        if seat.words_t is None or self.now - seat.words_t > WORDS_VISIBLE_S:
            return ""
        if self.card_t is not None and seat.words_t < self.card_t:
            return ""
        return seat.words

    def scoreboard(self) -> list[tuple[str, int, int, int]]:
        """``(player, score, points, penalties)`` in seat order (values, as the table's)."""
        return [(p, s.score, s.points, s.penalties) for p, s in ((p, self.seats[p]) for p in self.players if p in self.seats)]

    def status_line(self) -> str:
        fps = "-" if self.fps is None else f"{self.fps:.0f}"
        parts = [f"camera {fps} fps", f"dropped {self.dropped}", f"skipped {self.skipped}"]
        if self.lag_ms is not None:
            parts.append(f"lag {self.lag_ms:.0f} ms")
        if self.pose_every is not None:
            parts.append(f"pose every {self.pose_every} frames")
        voice = self.voice() if callable(self.voice) else self.voice
        if voice is not None:
            parts.append("voice on" if voice == "on" else "VOICE " + str(voice).replace("off", "OFF", 1))
        return "  ".join(parts)


def scoreboard(judge: Any) -> dict[str, tuple[int, int, int]]:
    """``{player: (score, points, penalties)}`` from an incremental judge's rules state
    (:attr:`referee.judge.IncrementalJudge.state`), as the result line has them: the score
    is the net (points - penalties), points the value of the point cards taken, penalties
    the value of those turned down — the same three numbers as the terminal table's
    scoreboard and the report (one meaning of "score" everywhere). A game whose result has
    only ``scores`` gives those (points and penalties 0); co-op and solo have a team
    score, shown by the result line."""
    state = getattr(judge, "state", None)
    if state is None:
        return {}
    try:
        result = state.result()
    except Exception:  # a state that cannot give a result mid-game shows no scores
        return {}
    scores = result.get("scores") if isinstance(result, dict) else None
    if not isinstance(scores, dict):
        return {}
    points, penalties = result.get("points"), result.get("penalties")
    points = points if isinstance(points, dict) else {}
    penalties = penalties if isinstance(penalties, dict) else {}

    def num(d: dict, p: str) -> int:
        return int(d[p]) if isinstance(d.get(p), (int, float)) else 0

    return {p: (int(s), num(points, p), num(penalties, p)) for p, s in scores.items() if isinstance(s, (int, float))}


class StateSink(Sink):
    """The sink calls every live view shares: they land in :attr:`state`, then
    :meth:`changed` is called (a view that redraws on change overrides it)."""

    def __init__(self, state: LiveState | None = None):
        self.state = state or LiveState()

    def changed(self) -> None:
        pass

    def start(self, header: SessionHeader) -> None:
        self.state.start(header)
        self.changed()

    def event(self, event: Event) -> None:
        self.state.released(event)
        self.state.event(event)
        self.changed()

    def verdicts(self, lines: list[dict[str, Any]]) -> None:
        self.state.verdicts_in(lines)
        self.changed()

    def announce(self, items: list[dict[str, Any]]) -> None:
        self.state.announce(items)
        self.changed()

    def frame(self, frame: Any, events: list[Event]) -> None:
        self.state.frame(frame)
        self.seen(events)

    def seen(self, events: list[Event]) -> None:
        """Events as the stages found them, before the merge releases them (which waits for
        every stage's watermark, ~2 s): the seats' hands, the field's card and the words
        heard follow the camera image instead of lagging it. Only the display: controls and
        verdicts wait for the released events."""
        for ev in events:
            if isinstance(ev, (CardEvent, HandEvent, ShoutEvent)):
                self.state.event(ev)
        self.changed()

    def status(self, info: dict[str, Any]) -> None:
        self.state.status(info)
        self.changed()

    def finish(self, judgement: Any) -> None:
        lines = getattr(judgement, "lines", None) or []
        for line in lines:
            if line.get("type") == "result":
                self.state.verdicts_in([line])
        self.state.finished = True
        self.changed()

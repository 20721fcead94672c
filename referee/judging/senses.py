"""Which senses were there: the stretches where a player's audio (or the camera) was missing,
from the record's status events, so that a verdict never penalises a player on evidence that
was not there.

``skipped`` events (``what``: ``audio``/``video``, ``from``/``to``, ``reason``; a ``player``
field narrows an audio stretch to that seat) and ``audio_status`` events (``lost`` until the
next ``ok``; a ``player`` field narrows it to that seat; ``room``, one room microphone: every
seat's own audio is missing from then on, and a seat is heard only through the words
credited to it, :mod:`referee.pipeline.crediting`) are noted as they are fed, and so are
``seat_status`` events (the camera found no person at a seat: ``lost`` until the next ``ok``). Decision
(the rulebook is silent): a player whose audio was missing at any moment of a card's window
and who was heard saying nothing is *not heard* on that card — no penalty, and not correct
either; what the camera did see still counts (a wrong hand is still wrong). Likewise a
player the camera could not see and who raised no hand is *not seen* where a hand was due.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from session.events import AUDIO_ROOM, AudioStatusEvent, Event, SeatStatusEvent, SkippedEvent


#: the reason a seat is not heard at a one-room-microphone table (``audio_status`` ``room``)
ROOM_REASON = "one room microphone"
#: ...and how a verdict says it
ROOM_MISSING = "no word credited to this seat (one room microphone)"
#: a missing stretch's reason longer than this is not repeated in every verdict (the record's
#: warning says it once)
SHORT_REASON = 40


@dataclass
class Senses:
    """Missing stretches per sense: ``(start, stop, player or None for everyone, reason)``."""

    gaps: dict[str, list[tuple[float, float, str | None, str]]] = field(
        default_factory=lambda: {"audio": [], "video": []})
    _lost: dict[str | None, tuple[float, str]] = field(default_factory=dict)
    #: seats the camera lost sight of (``seat_status`` lost, until its ok): player → (since, why)
    _unseen: dict[str | None, tuple[float, str]] = field(default_factory=dict)

    def note(self, event: Event) -> None:
        player = event.extra.get("player") if isinstance(event.extra.get("player"), str) else None
        if isinstance(event, SkippedEvent) and event.what in self.gaps:
            self.gaps[event.what].append((event.start, event.stop, player, event.reason or f"{event.what} skipped"))
        elif isinstance(event, AudioStatusEvent):
            if event.state == "lost":
                self._lost.setdefault(player, (event.t, event.detail or "the microphone was lost"))
            elif event.state == AUDIO_ROOM:  # no seat's own channel: a seat's words are its credited ones
                self._lost.setdefault(player, (event.t, ROOM_REASON))
            elif event.state == "ok" and player in self._lost:
                t0, why = self._lost.pop(player)
                self.gaps["audio"].append((t0, event.t, player, why))
        elif isinstance(event, SeatStatusEvent) and event.player:
            if event.state == "lost":
                self._unseen.setdefault(event.player, (event.t, event.detail or f"{event.player}'s seat not seen"))
            elif event.state == "ok" and event.player in self._unseen:
                t0, why = self._unseen.pop(event.player)
                self.gaps["video"].append((t0, event.t, event.player, why))

    def gap(self, sense: str, player: str, start: float, stop: float) -> tuple[float, float, str] | None:
        """The first stretch where ``sense`` was missing for ``player`` during [start, stop]:
        ``(from, to, reason)`` (``to`` is infinite while a device is still lost), or None."""
        spans = list(self.gaps[sense])
        open_now = self._lost if sense == "audio" else self._unseen
        spans += [(t0, math.inf, p, why) for p, (t0, why) in open_now.items()]
        for a, b, p, why in spans:
            if (p is None or p == player) and a < stop and b > start:
                return a, b, why
        return None

    def missing(self, sense: str, player: str, start: float, stop: float) -> str | None:
        """Why ``sense`` was missing for ``player`` during [start, stop], or None."""
        found = self.gap(sense, player, start, stop)
        if found is None:
            return None
        a, b, why = found
        if why == ROOM_REASON:  # (not a device that failed: no seat has a microphone of its own)
            return ROOM_MISSING
        until = "" if b == math.inf else f" to {b:.2f} s"
        # a short reason helps ("device unplugged"); a long one is the record's warning
        return f"{sense} missing from {a:.2f} s{until}" + (f" ({why})" if len(why) <= SHORT_REASON else "")

    def missing_near(self, sense: str, player: str, t: float, seconds: float) -> str | None:
        """Why ``sense`` was missing for ``player`` within ``seconds`` after ``t``, timed from
        ``t`` (for verdicts whose times are relative to their card, e.g. MOKOCHAKA), or None."""
        found = self.gap(sense, player, t, t + seconds)
        if found is None:
            return None
        a, b, why = found
        if why == ROOM_REASON:
            return ROOM_MISSING
        since = f"since {t - a:.2f} s before the card" if a < t else f"from +{a - t:.2f} s"
        until = "" if b == math.inf else f" to +{b - t:.2f} s"
        return f"{sense} missing {since}{until}" + (f" ({why})" if len(why) <= SHORT_REASON else "")

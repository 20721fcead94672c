"""MOKOCHAKA's token: who reached it first, as ``grab`` events.

A seat grabs when one of its tracked hand points (pose wrist or index fingertip, the
person's own left or right) enters the token zone, grown by :data:`TOKEN_MARGIN` of its
size. The seat is known from the arm itself (each seat has its own pose), so crossing arms
are attributed right. The entry time is interpolated between the last frame outside and the
first inside (distance to the zone edge), like the hand onset. Every seat that reaches the
token in one *episode* gets one event, in time order; seats that arrive within
:data:`TIE_TOLERANCE` of the first carry ``tie`` (the judge's own ``tie_ms`` still decides).
An episode ends when no hand has been near the token for :data:`RESET_FRAMES` frames.

Decision (spec silent): the seat box must include the seat's reach to the token; pose
landmarks outside the crop are extrapolated by MediaPipe and less reliable.
"""

from __future__ import annotations

from typing import Mapping

from session.events import GrabEvent
from vision.hands import Landmarks

#: the token zone is grown by this fraction of its size on each side (a hand covers it)
TOKEN_MARGIN = 0.15
#: seats reaching the token within this many seconds of the first are marked as a tie
TIE_TOLERANCE = 0.033
#: analysed frames with no hand at the token before a new grab episode may start
RESET_FRAMES = 10
#: hand points used: wrist and index fingertip of each arm
POINTS = ("left_wrist", "left_index", "right_wrist", "right_index")
#: a point seen with less visibility is ignored
MIN_VISIBILITY = 0.05


class TokenWatcher:
    """``observe(t, {player: Landmarks|None}) -> [GrabEvent]``."""

    def __init__(self, box, *, margin: float = TOKEN_MARGIN, tie: float = TIE_TOLERANCE,
                 reset_frames: int = RESET_FRAMES):
        mx, my = (box.x2 - box.x1) * margin, (box.y2 - box.y1) * margin
        self.x1, self.y1, self.x2, self.y2 = box.x1 - mx, box.y1 - my, box.x2 + mx, box.y2 + my
        self.tie = tie
        self.reset_frames = reset_frames
        self.grabbed: dict[str, float] = {}
        self.idle = 0
        self.last: dict[str, tuple[float, float]] = {}  # player -> (t, distance outside)

    def distance(self, lm: Landmarks) -> float | None:
        """How far outside the zone the closest hand point is (<= 0: inside), pixels."""
        best = None
        for name in POINTS:
            p = lm.points.get(name)
            if p is None or p.visibility < MIN_VISIBILITY:
                continue
            dx = max(self.x1 - p.x, 0.0, p.x - self.x2)
            dy = max(self.y1 - p.y, 0.0, p.y - self.y2)
            d = (dx * dx + dy * dy) ** 0.5
            if d == 0.0:  # inside: negative depth to the nearest edge
                d = -min(p.x - self.x1, self.x2 - p.x, p.y - self.y1, self.y2 - p.y)
            best = d if best is None else min(best, d)
        return best

    def observe(self, t: float, seats: Mapping[str, Landmarks | None]) -> list[GrabEvent]:
        out = []
        anyone = seen = False
        for player in sorted(seats):
            lm = seats[player]
            if lm is None:
                continue
            d = self.distance(lm)
            if d is None:
                continue
            seen = True
            prev = self.last.get(player)
            self.last[player] = (t, d)
            if d <= 0:
                anyone = True
                if player not in self.grabbed:
                    when = t
                    if prev is not None and prev[1] > 0:
                        when = prev[0] + (prev[1] / (prev[1] - d)) * (t - prev[0])
                    self.grabbed[player] = when
                    out.append((when, player))
        if anyone:
            self.idle = 0
        elif seen:  # a frame where no seat was analysed (reduced pose rate) is no information
            self.idle += 1
            if self.idle >= self.reset_frames:
                self.grabbed.clear()
        events = []
        first = min(self.grabbed.values()) if self.grabbed else None
        for when, player in sorted(out):
            tied = sorted(p for p, w in self.grabbed.items() if p != player and abs(w - when) <= self.tie)
            extra = {"tie": tied} if tied and first is not None else {}
            events.append(GrabEvent(t=round(when, 6), player=player, extra=extra))
        return events

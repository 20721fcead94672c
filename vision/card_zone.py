"""Timed card events of one zone in a video (:class:`CardZoneWatcher`; part of :mod:`vision.cards`)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace

import cv2
import numpy as np

from session.events import CardEvent, Event, WarningEvent
from vision.card_outlines import ZONE_AREA_RANGE, ZONE_ASPECT_RANGE, quad_overlap
from vision.card_references import MIN_MARGIN, MIN_SCORE, References, warp_card
from vision.card_match import Match, match_face
from vision.card_recognise import keep_best, outline_matches, recognise

#: analysed frames in a row with the same accepted code before a card event (latency: this
#: many frames, recovered by the walk-back)
CONFIRM_FRAMES = 2



#: "a card came but could not be read": a zone whose picture (the 4x reduced, light-levelled
#: thumbnail of :data:`STILL_DIFF`) differs from the last picture it was accounted for in
#: (a card read, the start, or an earlier such warning) by more than this mean grey
#: difference, and has then been still for :data:`SETTLE_FRAMES` analysed frames without a
#: card being read there, gives a ``warning`` event (t = when the change began) instead of
#: silence: the judge then knows a card came. A card in a calibrated field covers a sixth
#: of it or more (the field is the cards' extent plus 0.35 card widths) and changes the
#: thumbnail by 15-40; a card shaking by a pixel or two with the camera by 3-8; a hand
#: passing and gone leaves nothing (the picture is as before)
UNREAD_DIFF = 12.0



#: ... "still" for that meaning: consecutive thumbnails differ by less than this mean grey
#: level (a card shaking by a pixel or two with the camera: 3-4; a hand moving over the
#: zone: 30 and more)
SETTLE_DIFF = 5.0



#: ... still for this many analysed frames (0.3 s at 30 fps: a thrown card has landed and
#: would have been read; latency of the warning only, its time is when the change began)
SETTLE_FRAMES = 9



#: frames kept for the walk-back (1.5 s at 30 fps); memory: frames x zone size
RING_FRAMES = 45



#: frames without a decision (a hand over the card) the walk-back may cross
WALK_GAP = 2



#: a card whose first recognised frame comes more than this long (s) after the frame before
#: it in the ring — frames the live referee had no time to take (it fell behind), or the
#: walk-back ran out of ring — may have come up to that much earlier than it is timed: the
#: zone says so in a ``warning`` event (``extra``: ``card_time_uncertain``, ``earliest``)
#: next to the card event, so the table, the report and the record know its verdict rests
#: on an uncertain time. 0.15 s: no player reacts sooner (the players' reactions are timed
#: against the card; a card timed at most this late still has every reaction after it). A
#: replay gives the zones every frame: never, unless the ring runs out.
CARD_GAP_S = 0.15



#: a zone whose mean absolute change since the last analysis (grey levels, on a 4x
#: reduced image scaled to mean 128, so that a light change alone does not count) is below
#: this is not re-analysed (saves most of the cost between cards)
STILL_DIFF = 1.5



@dataclass
class Slot:
    index: int
    t: float
    image: np.ndarray
    #: the outline matches of this frame when it was analysed online (the walk-back ranks
    #: them again instead of searching the frame a second time)
    outlines: list | None = None



class CardZoneWatcher:
    """One zone (the IKATAKO field, a MOKOCHAKA pile, a griddle slot, a scoring area):
    ``update(index, t, frame) -> [CardEvent]`` with ``t`` = the first frame in which the new
    top card was recognisable.

    ``every`` > 1 analyses only every n-th frame online (reduced-rate tracking); the ring
    buffer keeps every frame, so the walk-back still times the card at full rate.

    A zone that changed and settled without a card being read there (:data:`UNREAD_DIFF`)
    gives a :class:`~session.events.WarningEvent` ("card in the field not recognised at
    23.1 s", ``extra``: ``zone``, ``unread`` True, and ``uncertain`` [code, code] when it was
    two look-alikes) among the returned events, so the record says a card came.
    """

    def __init__(self, zone_name: str, box, refs: References, *, every: int = 1,
                 confirm: int = CONFIRM_FRAMES, ring: int = RING_FRAMES,
                 min_score: float = MIN_SCORE, min_margin: float = MIN_MARGIN):
        self.zone = zone_name
        self.box = box
        self.refs = refs
        self.every = max(1, every)
        self.confirm = confirm
        self.min_score, self.min_margin = min_score, min_margin
        self.ring: deque[Slot] = deque(maxlen=max(ring, confirm * self.every + WALK_GAP + 2))
        self.current: str | None = None
        self._current_seen_t: float | None = None  # the last analysed frame showing ``current``
        self.pending: tuple[str | None, int] = (None, 0)
        self.uncertain_warned: set[tuple[str, str]] = set()
        self.warnings: list[str] = []
        self._last_analysed: np.ndarray | None = None
        self._last_result: Match | None = None
        self.analysed = 0
        self._thumb: np.ndarray | None = None  # this update's thumbnail
        self._prev_thumb: np.ndarray | None = None
        self._accounted: np.ndarray | None = None  # the picture last accounted for
        self._still = 0  # analysed frames in a row without change
        self._change_t: float | None = None  # when the zone began to differ from the accounted picture
        #: the last analysed frame at which the zone was as accounted for, nothing pending
        self._as_accounted_t: float | None = None
        self.unread = 0  # warnings of cards not read (benchmark figure)

    def _crop(self, frame: np.ndarray) -> np.ndarray:
        b = self.box
        return frame[b.y1:b.y2, b.x1:b.x2]

    def _analyse(self, crop: np.ndarray) -> Match | None:
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        # 4x smaller: averages sensor noise away, so an unchanged zone reads as still
        small = cv2.resize(gray, (max(1, gray.shape[1] // 4), max(1, gray.shape[0] // 4)),
                           interpolation=cv2.INTER_AREA).astype(np.float32)
        small *= 128.0 / max(1.0, float(small.mean()))  # a global light change is no change
        self._thumb = small
        if (self._last_analysed is not None and self._last_analysed.shape == small.shape
                and float(np.abs(small - self._last_analysed).mean()) < STILL_DIFF):
            return self._last_result
        self.analysed += 1
        om = outline_matches(crop, self.refs, self.min_score, self.min_margin, area_range=ZONE_AREA_RANGE,
                             aspect_range=ZONE_ASPECT_RANGE)
        if self.ring and self.ring[-1].image is crop:
            # without their normalised faces (about 1 MB each): the walk-back warps again
            # only a look-alike pair's face for the second stage
            self.ring[-1].outlines = [replace(m, look=None) for m in om]
        ms = keep_best(crop, om, self.refs, self.min_score, self.min_margin)
        ok = [m for m in ms if m.status == "ok"]
        res = ok[0] if ok else (ms[0] if ms else None)
        self._last_analysed, self._last_result = small, res
        return res

    def keep(self, index: int, t: float, frame: np.ndarray) -> None:
        """``frame`` into the ring only, not analysed (live, the zones behind: a frame they had
        no time for). The walk-back still finds a card's first frame among such frames, where
        a frame never given would leave a gap the card's time falls into."""
        self.ring.append(Slot(index, t, self._crop(frame).copy()))

    def update(self, index: int, t: float, frame: np.ndarray) -> list[Event]:
        self.keep(index, t, frame)
        crop = self.ring[-1].image
        if index % self.every:
            return []
        m = self._analyse(crop)
        if m is not None and m.status == "uncertain":
            key = tuple(sorted((m.code or "?", m.runner_up or "?")))
            if key not in self.uncertain_warned:
                self.uncertain_warned.add(key)
                self.warnings.append(
                    f"t={t:.3f}s zone {self.zone}: card uncertain between {key[0]} and {key[1]} "
                    f"(score {m.score:.2f}, margin {m.margin:.2f}); not reported")
            code = None
        else:
            code = m.code if m is not None and m.status == "ok" else None
        out: list[Event] = self._unread(t, code, m)
        if code is not None and code == self.current:
            self._current_seen_t = t
        if code is None or code == self.current:
            self.pending = (None, 0)
            if self._change_t is None and self._accounted is not None:
                self._as_accounted_t = t
            return out
        n = self.pending[1] + 1 if self.pending[0] == code else 1
        self.pending = (code, n)
        if n < self.confirm:
            return out
        self.current = code
        self._current_seen_t = t
        self.pending = (None, 0)
        self._accounted, self._change_t = self._thumb, None
        first, conf = self._walk_back(code, m.score, m.quad)
        card = CardEvent(t=round(first.t, 6), card=code, zone=self.zone, conf=round(conf, 3),
                         extra={"frame": first.index})
        return out + [card] + self._uncertain_time(card, first)

    def _uncertain_time(self, card: CardEvent, first: Slot) -> list[Event]:
        """The warning of :data:`CARD_GAP_S`: the card's first frame follows a gap in the
        frames seen, or is the oldest of a full ring."""
        slots = list(self.ring)
        k = next(i for i, s in enumerate(slots) if s is first)
        if k > 0:
            earliest = slots[k - 1].t
        elif len(slots) == self.ring.maxlen:
            earliest = None  # the ring ran out: how much earlier is not known
        else:
            return []  # the zone's first frame: nothing came before it
        if earliest is not None and first.t - earliest <= CARD_GAP_S:
            return []
        since = "an unknown time" if earliest is None else f"up to {first.t - earliest:.2f} s"
        why = ("the frames before it are no longer kept" if earliest is None
               else "the frames before it were not seen: the referee fell behind")
        return [WarningEvent(t=card.t, message=f"card {card.card} in the {self.zone} timed at {card.t:.3f} s may "
                             f"have come {since} earlier ({why}); its verdict rests on that time",
                             extra={"zone": self.zone, "card": card.card, "card_time_uncertain": True,
                                    "earliest": None if earliest is None else round(earliest, 6)})]

    def earliest_event_t(self) -> float:
        """No card event of this zone not yet returned can be timed before this (the
        pipeline's watermark): a new card's walk-back stops at any frame where another card
        is recognised, so it cannot reach behind the last analysed frame that showed the
        current card; a zone whose last analysed frame was still the picture last accounted
        for (no change under way, nothing pending: a face-down slot, an empty mat) had no new
        card then, so none can be timed at or before that frame; otherwise the ring's oldest
        frame bounds it; a change under way not yet read is bounded by where it began."""
        oldest = self.ring[0].t if self.ring else float("-inf")
        bound = oldest if self._current_seen_t is None else max(oldest, self._current_seen_t)
        if self._change_t is not None:  # an "unread card" warning is timed where the change began
            return min(bound, self._change_t)
        if self.pending[0] is None and self._as_accounted_t is not None:
            bound = max(bound, self._as_accounted_t)
        return bound

    def _unread(self, t: float, code: str | None, m: Match | None) -> list[Event]:
        """The "card came but could not be read" warning (:data:`UNREAD_DIFF`)."""
        thumb, prev = self._thumb, self._prev_thumb
        self._prev_thumb = thumb
        if thumb is None:
            return []
        if self._accounted is None or self._accounted.shape != thumb.shape:
            self._accounted = thumb
            return []
        moved = prev is None or prev.shape != thumb.shape or float(np.abs(thumb - prev).mean()) >= SETTLE_DIFF
        self._still = 0 if moved else self._still + 1
        if float(np.abs(thumb - self._accounted).mean()) <= UNREAD_DIFF:
            self._change_t = None  # as accounted for (a hand came and went)
            return []
        if self._change_t is None:
            self._change_t = t
        if self._still < SETTLE_FRAMES or self.pending[0] is not None:
            return []
        start, self._accounted, self._change_t = self._change_t, thumb, None
        if code is not None:  # the card already reported lies there still (moved, uncovered)
            return []
        self.unread += 1
        extra: dict = {"zone": self.zone, "unread": True}
        why = ""
        if m is not None and m.status == "uncertain":
            extra["uncertain"] = sorted([m.code or "?", m.runner_up or "?"])
            why = f" (uncertain between {extra['uncertain'][0]} and {extra['uncertain'][1]})"
        return [WarningEvent(t=round(start, 6), message=f"card in the {self.zone} not recognised at {start:.1f} s{why}",
                             extra=extra)]

    def _walk_back(self, code: str, score: float, quad: np.ndarray | None = None) -> tuple[Slot, float]:
        """The earliest buffered frame of the run in which ``code`` is recognised, crossing at
        most :data:`WALK_GAP` undecided frames and stopping at any other card.

        A frame whose outlines do not give the card (a hand over its edge, or the card on a
        pile of light cards: the outline merges with the cards under it) is also compared
        *where the card was last recognised* (``quad``, from the later frame): if the face
        there is the same code, accepted by the same score and margin, the card was already
        lying there, recognisable. A card still sliding in does not match at its final place,
        and a different card there stops the walk."""
        slots = list(self.ring)
        first = slots[-1]
        gap = 0
        for slot in reversed(slots[:-1]):
            if slot.outlines is not None:  # analysed online: the same outlines, ranked without ECC
                ms = keep_best(slot.image, slot.outlines, self.refs, self.min_score, self.min_margin, refine=False)
            else:
                ms = recognise(slot.image, self.refs, self.min_score, self.min_margin, refine=False,
                               area_range=ZONE_AREA_RANGE, aspect_range=ZONE_ASPECT_RANGE)
            ok = [m for m in ms if m.status == "ok"]
            hit = bool(ok) and ok[0].code == code
            if not hit and quad is not None and not any(quad_overlap(m.quad, quad) >= 0.5 for m in ok):
                at = match_face(warp_card(slot.image, quad), self.refs, self.min_score, self.min_margin, quad)
                if at.status == "ok" and at.code == code:
                    ok, hit = [at], True
            if hit:
                first, gap = slot, 0
                score = max(score, ok[0].score)
                quad = ok[0].quad
            elif ok:
                break
            else:
                gap += 1
                if gap > WALK_GAP:
                    break
        return first, score

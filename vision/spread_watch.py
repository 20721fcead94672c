"""A player's spread zone (``p:NAME:spread``): the cards lying face up in front of a player,
read together (:func:`vision.card_spread.read_spread`) once they lie still, and written as a
``choice`` ``hand`` event of that player (Sea Salt & Paper's round-end read, issue 34 item 2).

What the camera writes: each time the zone's reading has *settled* — the same cards (codes,
and how many unclear) on :attr:`SpreadWatchParams.settle_reads` reads in a row, one every
:attr:`SpreadWatchParams.read_every_s` — and differs from the last one written, one event
timed at the first read of that run (a :class:`session.events.ChoiceEvent`; its fields)::

    {"action": "hand", "player": "aki", "source": "camera",
     "zone": "p:aki:spread", "cards": ["crab:blue", ...],
     "seen": [{"card": "crab:blue", "box": [x1, y1, x2, y2]},
              {"card": null, "box": [...], "why": "covered in part ..."}],
     "unclear": ["covered in part ..."]}

``cards`` are the codes read; ``unclear`` the reason of each card found but not read (never
guessed as another card: the judge gives that player no score). ``seen`` lists every card
with its box, the report's evidence. An empty zone writes nothing. Which of these hands
count for a round is the game's decision (:mod:`referee.judging.seasaltpaper`: those read
after the round's call).

Reference files cannot carry ``:`` on every system: a reference named ``crab-blue`` reads as
``crab:blue`` (the first ``-``; the spread's codes only).

Cost: a read only when the zone changed since the last read (:attr:`SpreadWatchParams.
still_diff`); a still zone repeats its last reading (deterministic: the same frames give the
same events).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from session.events import ChoiceEvent, Event
from vision.card_spread import read_spread

SPREAD_SUFFIX = ":spread"


def is_spread_zone(name: str) -> bool:
    return name.startswith("p:") and name.endswith(SPREAD_SUFFIX)


@dataclass(frozen=True)
class SpreadWatchParams:
    """When a spread is read and when its reading counts as settled."""

    #: seconds between two reads of a zone (more often: a settled hand is written sooner, more CPU)
    read_every_s: float = 0.5
    #: reads in a row that must agree before the reading is written: with 0.5 s, 1.5 s of
    #: stillness. Fewer: a hand pausing over the cards while they are laid out may be written
    #: as the hand (a card unclear); more: the round's verdict comes later
    settle_reads: int = 4
    #: the zone has not changed since the last read when fewer than :attr:`still_pixels`
    #: pixels of its quarter-size grey image differ by more than this (0-255); then the last
    #: reading is repeated without reading again. Video noise (H.264 at CRF 30) stays well
    #: under it; a hand's edge, a card laid or taken away far over it
    still_diff: float = 30.0
    #: ... how many such pixels (quarter size: 16 image pixels each) make a change: 12 is
    #: about 1 % of a 104-px card. Higher: cheaper, but a small change could be missed (the
    #: last reading kept); lower: video noise makes a still zone read again (CPU only)
    still_pixels: int = 12
    #: a pixel of the zone (quarter size) differs from the empty zone's look when a channel
    #: differs by more than this (0-255): light changes and video noise stay under it, a hand
    #: or a card's face over the table exceed it. Lower: shadows count as something over the
    #: spread (an unclear hand for nothing); higher: a dark sleeve on a dark table is missed
    cover_diff: float = 40.0
    #: what differs from the empty zone outside every card found, as a share of one card's
    #: area, beyond which something lies over the spread (a hand, a sleeve, a card no outline
    #: of which is left): the spread is unclear (``why`` says so), never scored without the
    #: card that may lie under it. A drawn hand of radius 40 over a 104-px card: 0.3-0.4.
    #: Lower: a crumb or a shadow makes a spread unclear; higher: a smaller cover is missed
    cover_share: float = 0.15

    def __post_init__(self) -> None:
        if self.read_every_s <= 0:
            raise ValueError(f"read_every_s must be > 0, got {self.read_every_s}")
        if self.settle_reads < 1:
            raise ValueError(f"settle_reads must be >= 1, got {self.settle_reads}")
        if not 0 < self.still_diff < 255:
            raise ValueError(f"still_diff must be in (0, 255), got {self.still_diff}")
        if self.still_pixels < 1:
            raise ValueError(f"still_pixels must be >= 1, got {self.still_pixels}")
        if not 0 < self.cover_diff < 255:
            raise ValueError(f"cover_diff must be in (0, 255), got {self.cover_diff}")
        if self.cover_share <= 0:
            raise ValueError(f"cover_share must be > 0, got {self.cover_share}")


SPREAD_WATCH = SpreadWatchParams()
#: the highest frame rate :attr:`SpreadWatcher.ring` is sized for (the watcher's worst lag)
MAX_FPS = 60


def code_of_file(name: str) -> str:
    """A reference file's name -> the card's code (``crab-blue`` -> ``crab:blue``,
    ``owl-blue-5-white`` -> ``owl:blue:5:white``: a file name cannot carry ``:`` on every
    system; no game's kinds, animals or colours have a ``-``)."""
    return name.replace("-", ":")


class SpreadWatcher:
    """One spread zone; the same face as :class:`vision.cards.CardZoneWatcher` for the table
    watcher (``update``, ``keep``, ``earliest_event_t``, ``warnings``, ``ring``, ``every``)."""

    #: the frames it analyses: every one given (it reads once every ``read_every_s`` by
    #: itself); the live card thread asks it, as of any zone, when its backlog is full
    every = 1

    def __init__(self, name: str, box, refs, params: SpreadWatchParams = SPREAD_WATCH):
        self.name = name
        self.player = name.split(":")[1]
        b = box.to_list() if hasattr(box, "to_list") else list(box)
        self.box = tuple(int(v) for v in b)
        self.refs = refs
        self.params = params
        self.warnings: list[str] = []
        #: sized for the worst lag (a run of settle_reads reads at MAX_FPS): the table
        #: watcher's lag_frames reads it
        self.ring: deque = deque(maxlen=int(np.ceil((params.settle_reads + 1) * params.read_every_s * MAX_FPS)))
        self._last_read_t = float("-inf")
        self._last_small: np.ndarray | None = None
        self._empty: np.ndarray | None = None  # the empty zone's look (quarter size, colour)
        self._last: tuple[tuple, list[dict]] | None = None  # (signature, seen)
        self._run_t: float | None = None  # the first read of the current run
        self._run_n = 0
        self._run_sig: tuple | None = None
        self._run_seen: list[dict] = []
        self._written: tuple | None = None
        self._held: list[Event] = []  # written from a kept frame, out with the next update (live)
        self.reads = 0  # full reads done (a benchmark figure)

    def keep(self, index: int, t: float, image) -> None:
        """A frame the live card thread had no time to analyse: still read when a read is due
        (once every ``read_every_s``: a spread needs its reads to settle, and under load most
        frames are only kept — ben's last hand of the live demo was never written so); what
        it writes comes out of the next :meth:`update`, at its own time (the bound holds it)."""
        self._held.extend(self._update(t, image))

    def earliest_event_t(self) -> float:
        """No event of this zone still to come is timed before the current run's start (or a
        held event's time)."""
        t = self._run_t if self._run_t is not None else self._last_read_t
        if self._held:
            t = min(t, min(e.t for e in self._held))
        return t - 0.001  # (an event's time is rounded to the ms)

    def _read(self, image: np.ndarray) -> tuple[tuple, list[dict]]:
        x1, y1, x2, y2 = self.box
        small = cv2.resize(cv2.cvtColor(image[y1:y2, x1:x2], cv2.COLOR_BGR2GRAY), None, fx=0.25, fy=0.25,
                           interpolation=cv2.INTER_AREA).astype(np.float32)
        if self._last is not None and self._last_small is not None and small.shape == self._last_small.shape \
                and int((np.abs(small - self._last_small) > self.params.still_diff).sum()) < self.params.still_pixels:
            return self._last
        self._last_small = small
        self.reads += 1
        cards = read_spread(image, self.refs, self.box)
        colour = cv2.resize(image[y1:y2, x1:x2], None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
        cover = self._cover(colour, [np.asarray(c.quad, np.float32) for c in cards])
        seen = []
        for c in cards:
            q = np.asarray(c.quad)
            box = [int(np.floor(q[:, 0].min())), int(np.floor(q[:, 1].min())),
                   int(np.ceil(q[:, 0].max())), int(np.ceil(q[:, 1].max()))]
            item = {"card": code_of_file(c.code) if c.status == "read" else None, "box": box}
            if c.status != "read":
                item["why"] = c.why
            seen.append(item)
        if cover is not None:
            seen.append(cover)
        sig = (tuple(sorted(s["card"] for s in seen if s["card"])), sum(1 for s in seen if s["card"] is None))
        self._last = (sig, seen)
        return self._last

    def _cover(self, colour: np.ndarray, quads: list[np.ndarray]) -> dict | None:
        """Something over the spread that is no card found (see :attr:`SpreadWatchParams.
        cover_share`), as an unclear item with its box; None when nothing is. The empty
        zone's look is taken whenever no card is found and nothing differs (the session's
        start, a cleared table): until then nothing is checked."""
        p = self.params
        x1, y1 = self.box[0], self.box[1]
        if self._empty is None or self._empty.shape != colour.shape:
            if not quads:
                self._empty = colour
            return None
        diff = np.abs(colour.astype(np.int16) - self._empty.astype(np.int16)).max(axis=2) > p.cover_diff
        cards = np.zeros(diff.shape, np.uint8)
        for q in quads:
            cv2.fillConvexPoly(cards, np.round((q - np.float32([x1, y1])) * 0.25).astype(np.int32), 1)
        cards = cv2.dilate(cards, np.ones((5, 5), np.uint8))
        left = diff & (cards == 0)
        card_area = float(np.median([cv2.contourArea(q) for q in quads])) / 16 if quads else 15000 / 16
        if float(left.sum()) < p.cover_share * card_area:
            if not quads:
                self._empty = colour  # (the table as it looks now: the light may have changed)
            return None
        ys, xs = np.nonzero(left)
        box = [x1 + 4 * int(xs.min()), y1 + 4 * int(ys.min()), x1 + 4 * int(xs.max() + 1), y1 + 4 * int(ys.max() + 1)]
        return {"card": None, "box": box,
                "why": "something lies over the spread (a hand, a sleeve?): a card under it would not be seen"}

    def update(self, index: int, t: float, image) -> list[Event]:
        held, self._held = self._held, []
        return held + self._update(t, image)

    def _update(self, t: float, image) -> list[Event]:
        self.ring.append(t)
        if t - self._last_read_t < self.params.read_every_s - 1e-6:
            return []
        self._last_read_t = t
        sig, seen = self._read(image)
        if sig != self._run_sig:
            self._run_sig, self._run_t, self._run_n, self._run_seen = sig, t, 0, seen
        self._run_n += 1
        if sig == self._written:
            self._run_t = None  # (this run writes nothing: the bound moves on)
            return []
        if self._run_n < self.params.settle_reads:
            return []
        start = self._run_t
        self._written = sig
        self._run_t = None  # (written: the next event starts at a later read)
        if not seen:
            return []
        return [ChoiceEvent(t=round(float(start), 3), player=self.player, action="hand",
                            extra={"source": "camera", "zone": self.name, "cards": list(sig[0]),
                                   "seen": [dict(s) for s in self._run_seen],
                                   "unclear": [s["why"] for s in self._run_seen if s["card"] is None]})]

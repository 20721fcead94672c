"""One laptop, one room microphone: who said a word, from the hands and the mouths the camera saw.

A room microphone hears every player alike, so its words come unattributed (``player``
null). This stage, between the watermark merge and the record, credits such a word to a seat
only on clear evidence (issue 33's rule, the fairness principle: never credit a word on a
guess):

* exactly one seat moved with it: its hands (a ``hand`` event, up or down, or a ``grab``)
  within :attr:`CreditParams.hands_s` of the word's onset, or its mouth (a ``mouth`` event
  ``open``) from :attr:`CreditParams.mouth_before_s` before the onset to
  :attr:`CreditParams.mouth_after_s` after it (asymmetric: the mouth opens 100-300 ms before
  the voice starts), and every other seat neither; a seat whose mouth opened in chatter makes
  the word "two seats moved", never a guess; nor may another seat's mouth open later within
  :attr:`CreditParams.apart_s` of the onset (the room microphone hears shouts that close as
  one word: that seat's voice may be in it);
* a word credited by the mouth alone also needs every other seat's mouth seen around it (a
  ``mouth`` ``unseen`` stretch there: that seat may have said it);
* no other word began within :attr:`CreditParams.apart_s` of it, and
* no word left uncredited in the :attr:`CreditParams.earlier_s` before it could have been that
  seat's (the seat moved with it, or nobody did): a player's first word in a card's window is
  the one judged, and an earlier word that may have been theirs makes the later one not
  clearly their first (it could turn a wrong first word into a correct one).

The credited word is written to the record as that seat's, with ``"credited_by"`` ``hands``,
``mouth`` or ``both``; any other word stays unattributed with ``"uncredited"`` saying why (two
seats moved, another word too close, no hand or mouth moved, a mouth not seen). A seat with
no credited word is *not heard* on a card (no penalty, and the table is asked where they could
have been first), because the stage marks the room microphone in the record as
``audio_status`` ``room``, which :mod:`referee.judging.senses` reads as "no seat's own channel".

Decision (the issue says "hands or mouth"): the mouth is read only in this mode, by the face
mesh (:mod:`vision.mouth`; the pose model's mouth corners do not show an opening), and written
as ``mouth`` events; a record without them (an older one, or a table whose faces are too
small) is credited by the hands alone, as before. Measured on real talking faces (GRID corpus,
docs/seeing.md "The mouth"), the opening is found for most words said from silence, but a
laughing, chatting or half-hidden face is common at a table: such words stay unclear.

The stage is active only once the record says ``audio_status`` ``room`` (the hearing job sends
it first, at 0 s); before that, and in every other session, events pass through untouched. It
holds events for :attr:`CreditParams.hold_s` so that the hands and mouths after a word are
known before the word is released; the record stays in time order.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections import deque
from dataclasses import dataclass

from session.events import AUDIO_ROOM, AudioStatusEvent, Event, GrabEvent, HandEvent, MouthEvent, ShoutEvent


@dataclass(frozen=True)
class CreditParams:
    """When a room microphone's word is credited to a seat."""

    #: a seat's hand moving this close to a word's onset (either side, seconds) counts as the
    #: seat reacting with that word. Wider credits a hand raised well before or after the word,
    #: but a neighbour's hand then falls inside too and the word is left unclear more often.
    hands_s: float = 0.3
    #: two words whose onsets are closer than this (seconds) are never credited: which seat
    #: said which cannot be told from one microphone. The issue's 0.3 s; shorter credits more
    #: overlapping shouts on the hands' timing alone.
    apart_s: float = 0.3
    #: how far back (seconds) a word left uncredited keeps a later word from being credited to
    #: a seat that may have said it: the rules' default reaction window (3.0 s; a table's longer
    #: ``window`` option is used instead, :meth:`RoomCrediting.start`). Longer leaves more words
    #: to the table; shorter could credit a seat its second word as if it were its first.
    earlier_s: float = 3.0
    #: a seat's mouth opening this long before a word's onset (seconds) counts as the seat
    #: saying it: the mouth opens before the voice (100-300 ms in the literature; on GRID
    #: clips the opening led the first word by 161 ms median, 335 ms p90; 469 ms p90 on 9
    #: other people, docs/seeing.md "The mouth"). Longer catches slower openings but takes in
    #: a neighbour's chatter more often (the word is then unclear).
    mouth_before_s: float = 0.5
    #: ... and this long after it: a word begun behind closed lips ("b", "p", "m") shows its
    #: opening only after the voice began (on GRID s1, 1 first word in 10 opened 98 ms or more
    #: after its onset). Longer holds every event longer (:attr:`hold_s`, once above
    #: ``apart_s``) and credits a mouth that opened for a later word.
    mouth_after_s: float = 0.15

    def __post_init__(self):
        for name, top in (("hands_s", 2.0), ("apart_s", 2.0), ("earlier_s", 60.0), ("mouth_before_s", 2.0),
                          ("mouth_after_s", 2.0)):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and 0 < value <= top):
                raise ValueError(f"CreditParams.{name} must be a time in seconds in (0, {top:g}], got {value!r}")

    @property
    def hold_s(self) -> float:
        """How long an event waits in the stage: a word is decided once everything up to
        ``hands_s``, ``apart_s`` and ``mouth_after_s`` after its onset is known."""
        return max(self.hands_s, self.apart_s, self.mouth_after_s)


@dataclass(frozen=True)
class Moved:
    """Who moved with a word: the seats whose ``hands`` moved, whose ``mouth`` opened, whose
    mouth was ``unseen`` at some moment of the mouth's window; ``mouths_read``: the session
    has ``mouth`` events at all (otherwise the hands alone are read, as in older records)."""

    hands: frozenset = frozenset()
    mouth: frozenset = frozenset()
    unseen: frozenset = frozenset()
    mouths_read: bool = False
    #: mouths that opened after the mouth's window but within ``apart_s`` of the onset:
    #: (seconds after the onset, seat) — another voice may be inside the word
    later: tuple = ()

    @property
    def seats(self) -> list[str]:
        return sorted(self.hands | self.mouth)


def movers(word: ShoutEvent, moves: list[tuple[float, str]], params: CreditParams) -> list[str]:
    """The seats whose hands moved within ``params.hands_s`` of ``word``'s onset (``moves``:
    (time, seat), sorted)."""
    lo = bisect.bisect_left(moves, (word.t - params.hands_s, ""))
    return sorted({s for t, s in moves[lo:] if t <= word.t + params.hands_s})


def mouth_movers(word: ShoutEvent, opens: list[tuple[float, str]], params: CreditParams) -> list[str]:
    """The seats whose mouth opened from ``params.mouth_before_s`` before ``word``'s onset to
    ``params.mouth_after_s`` after it (``opens``: (time, seat), sorted)."""
    lo = bisect.bisect_left(opens, (word.t - params.mouth_before_s, ""))
    return sorted({s for t, s in opens[lo:] if t <= word.t + params.mouth_after_s})


def later_mouths(word: ShoutEvent, opens: list[tuple[float, str]], params: CreditParams) -> list[tuple[float, str]]:
    """The mouths that opened after ``word``'s mouth window but less than ``params.apart_s``
    after its onset, as (seconds after the onset, seat): a room microphone hears shouts that
    close as one word, so another seat's voice may be in it."""
    lo = bisect.bisect_right(opens, (word.t + params.mouth_after_s, "\uffff"))
    return [(t - word.t, s) for t, s in opens[lo:] if t < word.t + params.apart_s]


def unseen_mouths(word: ShoutEvent, unseen: list[tuple[float, float, str]], params: CreditParams) -> list[str]:
    """The seats whose mouth was not seen at some moment of ``word``'s mouth window
    (``unseen``: (from, to, seat) stretches, ``to`` inf while it lasts)."""
    lo, hi = word.t - params.mouth_before_s, word.t + params.mouth_after_s
    return sorted({s for a, b, s in unseen if a <= hi and b >= lo})


def credit(word: ShoutEvent, seats: list[str] | Moved, onsets: list[float],
           doubts: list[tuple[float, frozenset | None]], params: CreditParams) -> ShoutEvent:
    """``word`` credited to a seat or marked why not: ``seats`` who moved with it
    (:class:`Moved`, or the list of seats whose hands moved, :func:`movers`), ``onsets``
    every room word's onset (sorted, covering the word's span), ``doubts`` the earlier words
    left uncredited: (onset, the seats that may have said it, None for anyone)."""
    moved = seats if isinstance(seats, Moved) else Moved(hands=frozenset(seats))
    near = onsets[bisect.bisect_left(onsets, word.t - params.apart_s):bisect.bisect_right(onsets, word.t + params.apart_s)]
    if len(near) > 1:  # (the word itself is one of them)
        gap = min((abs(t - word.t) for t in near if t != word.t), default=0.0)
        return _uncredited(word, f"another word {gap:.2f} s away")
    who = moved.seats
    if len(who) != 1:
        nobody = "no seat's hands or mouth moved" if moved.mouths_read else "no seat's hands moved"
        return _uncredited(word, f"{_names(who)} moved" if who else nobody)
    seat = who[0]
    others = [(dt, s) for dt, s in moved.later if s != seat]
    if others:
        return _uncredited(word, f"{others[0][1]}'s mouth opened {others[0][0]:.2f} s into the word")
    by = "both" if seat in moved.hands and seat in moved.mouth else "hands" if seat in moved.hands else "mouth"
    hidden = sorted(moved.unseen - {seat})
    if by == "mouth" and hidden:
        return _uncredited(word, f"{_names(hidden)}'s mouth not seen" if len(hidden) == 1 else
                           f"the mouths of {_names(hidden)} not seen")
    earlier = [t for t, who in doubts if word.t - params.earlier_s <= t < word.t and (who is None or seat in who)]
    if earlier:
        return _uncredited(word, f"{seat} may have said the word at {earlier[-1]:.2f} s before it")
    return dataclasses.replace(word, player=seat, extra={**word.extra, "credited_by": by})


def _names(seats: list[str]) -> str:
    """``aki and ben``, ``aki, ben and chie``."""
    return seats[0] if len(seats) == 1 else f"{', '.join(seats[:-1])} and {seats[-1]}"


def _uncredited(word: ShoutEvent, why: str) -> ShoutEvent:
    return dataclasses.replace(word, extra={**word.extra, "uncredited": why})


class RoomCrediting:
    """The stage: :meth:`feed` the merge's released events and its watermark, get the events
    to pass on and the watermark below which they are all out (see the module doc)."""

    def __init__(self, params: CreditParams | None = None):
        self.params = params or CreditParams()
        self.active = False
        self._held: deque[Event] = deque()
        self._moves: list[tuple[float, str]] = []  # (time, seat), time order, pruned behind
        self._opens: list[tuple[float, str]] = []  # mouths opened: (time, seat), time order, pruned behind
        self._unseen: list[tuple[float, float, str]] = []  # mouths not seen: (from, to or inf, seat)
        self._mouths_read = False
        self._onsets: list[float] = []  # the room words' onsets, time order, pruned behind
        #: the words left uncredited: (onset, the seats that may have said it or None: anyone)
        self._doubts: list[tuple[float, frozenset | None]] = []
        self.credited = 0
        self.uncredited = 0

    def start(self, window: object) -> None:
        """A table's reaction ``window`` option (seconds), when longer than ``earlier_s``."""
        if isinstance(window, (int, float)) and not isinstance(window, bool) and window > self.params.earlier_s:
            self.params = dataclasses.replace(self.params, earlier_s=float(window))

    def released_until(self, mark: float) -> float:
        """The time before which every event fed with watermark ``mark`` has been passed on."""
        return mark - self.params.hold_s if self.active and mark < math.inf else mark

    def feed(self, events: list[Event], mark: float) -> tuple[list[Event], float]:
        out: list[Event] = []
        for ev in events:
            if not self.active:
                if isinstance(ev, AudioStatusEvent) and ev.state == AUDIO_ROOM:
                    self.active = True
                elif isinstance(ev, MouthEvent):  # each seat's first state comes at 0 s, before the
                    self._mouth(ev)  # room status in the canonical order (nothing held: passed on)
                out.append(ev)
                continue
            self._held.append(ev)
            if isinstance(ev, (HandEvent, GrabEvent)) and ev.player:
                bisect.insort(self._moves, (ev.t, ev.player))
            elif isinstance(ev, MouthEvent):
                self._mouth(ev)
            elif isinstance(ev, ShoutEvent) and ev.player is None:
                bisect.insort(self._onsets, ev.t)
        if not self.active:
            return out, mark
        ready = self.released_until(mark)
        while self._held and self._held[0].t < ready:
            out.append(self._release(self._held.popleft()))
        self._prune(ready)
        return out, ready

    def _release(self, ev: Event) -> Event:
        if not (isinstance(ev, ShoutEvent) and ev.player is None):
            return ev
        moved = Moved(hands=frozenset(movers(ev, self._moves, self.params)),
                      mouth=frozenset(mouth_movers(ev, self._opens, self.params)),
                      unseen=frozenset(unseen_mouths(ev, self._unseen, self.params)), mouths_read=self._mouths_read,
                      later=tuple(later_mouths(ev, self._opens, self.params)))
        done = credit(ev, moved, self._onsets, self._doubts, self.params)
        if done.player is None:
            self.uncredited += 1
            self._doubts.append((ev.t, None if moved.unseen else frozenset(moved.seats) or None))
        else:
            self.credited += 1
        return done

    def _mouth(self, ev: MouthEvent) -> None:
        """A mouth's change: an opening is a move; ``unseen`` opens a stretch that the seat's
        next change closes."""
        self._mouths_read = True
        for i, (a, b, seat) in enumerate(self._unseen):
            if seat == ev.player and b == math.inf:
                self._unseen[i] = (a, ev.t, seat)
        if ev.state == "open":
            bisect.insort(self._opens, (ev.t, ev.player))
        elif ev.state == "unseen":
            self._unseen.append((ev.t, math.inf, ev.player))

    def _prune(self, ready: float) -> None:
        """Forget what no word still held can look back to."""
        if ready == math.inf:
            return
        keep = ready - 2 * self.params.hold_s - self.params.mouth_before_s
        self._moves = self._moves[bisect.bisect_left(self._moves, (keep, "")):]
        self._opens = self._opens[bisect.bisect_left(self._opens, (keep, "")):]
        self._unseen = [u for u in self._unseen if u[1] >= keep]
        self._onsets = self._onsets[bisect.bisect_left(self._onsets, keep):]
        self._doubts = [d for d in self._doubts if d[0] >= ready - self.params.earlier_s - self.params.hold_s]

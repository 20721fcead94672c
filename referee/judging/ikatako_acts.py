"""What each player did in one IKATAKO card's window: the slot of events, the acts, the hands
through the session (the judge's time unit is the integer microsecond)."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.judging.ikatako_words import hands_text
from session.events import CardEvent, Event, HandEvent, ShoutEvent


SIDES = ("left", "right")


US = 1_000_000


def us(t: float) -> int:
    """Seconds → integer microseconds (the judge's one time unit)."""
    return round(t * US)


def sec(t_us: int) -> float:
    """Integer microseconds → seconds rounded to the millisecond."""
    return round(t_us / 1000) / 1000


@dataclass
class Slot:
    """One card event and the events that follow it until the next card or the end.

    A card the camera saw late (a ``card_time_uncertain`` warning) may have come at any moment
    since the warning's ``earliest`` (:meth:`referee.judging.ikatako.Judge._late_span`): ``t0``
    is then where its window surely starts (its reactions count from there), ``seen`` the card event's own time
    (the window's length counts from it: nobody is late on that evidence), and, when the
    earliest moment lies inside the card before's window, ``doubt_from`` is that moment and
    ``doubt_events`` the hands and shouts from then to ``t0``, which could be reactions to
    either card (they stay with the card before). On the card before, ``next_card`` is the late
    card's code, seen time and ``doubt_from``."""

    card: CardEvent
    t0: int
    stop: int | None  # next card / end, exclusive; None: the record's last events
    events: list[Event] = field(default_factory=list)
    seen: int | None = None
    doubt_from: int | None = None
    doubt_events: list[Event] = field(default_factory=list)
    next_card: tuple[str, int, int] | None = None

    @property
    def at(self) -> int:
        """The card event's time (what the verdict is dated by)."""
        return self.t0 if self.seen is None else self.seen

    def take_reactions_from(self, start: int) -> list[Event]:
        """Remove and return the hands and shouts at or after ``start`` (a later card surely
        came by then); the table's decisions and choices stay with this card."""
        moved = [e for e in self.events if is_reaction(e) and us(e.t) >= start]
        self.events = [e for e in self.events if not (is_reaction(e) and us(e.t) >= start)]
        return moved

    def late_note(self) -> dict[str, float] | None:
        """The verdict's ``card_time_uncertain`` (None for a card seen on time)."""
        if self.seen is None:
            return None
        earliest = self.t0 if self.doubt_from is None else self.doubt_from
        return {"earliest": sec(earliest), "seen": sec(self.seen), "counted_from": sec(self.t0)}


def is_reaction(e: Event) -> bool:
    return isinstance(e, (HandEvent, ShoutEvent))


@dataclass
class Act:
    """What one player did in one window."""

    ups: dict[str, int] = field(default_factory=dict)  # side -> first time it went up
    stale: set[str] = field(default_factory=set)  # sides up at the reveal
    downs: dict[str, int] = field(default_factory=dict)  # side -> first time it came down
    shouts: list[ShoutEvent] = field(default_factory=list)
    #: an utterance of the player's that began before the reveal and was still going at it
    #: (session µs of its start), or None: their word for this card may be inside it
    talking: int | None = None

    def did_something(self) -> bool:
        return bool(self.ups) or bool(self.shouts)

    def began(self) -> int:
        """When the player first did something (a hand going up or a shout; did_something())."""
        return min([*self.ups.values(), *(us(sh.t) for sh in self.shouts)])

    def stale_raised(self, moment: int) -> set[str]:
        """Sides that were up at the reveal and still up at ``moment`` (not raised anew)."""
        return {s for s in self.stale if s not in self.ups and (s not in self.downs or self.downs[s] > moment)}


class Hands:
    """Every player's hands (their own sides), up or down, through the whole session."""

    def __init__(self, players):
        self.up = {p: {s: False for s in SIDES} for p in players}
        #: each player's last utterance: (start, end), session µs
        self.talk: dict[str, tuple[int, int]] = {}

    def update(self, ev: HandEvent) -> bool:
        """Apply a hand event; True when it is a new raise (the hand was down)."""
        was = self.up[ev.player][ev.side]
        self.up[ev.player][ev.side] = ev.state == "up"
        return ev.state == "up" and not was

    def heard(self, ev: ShoutEvent) -> None:
        """Note a player's utterance (start, end) as their last."""
        end = ev.t_end if ev.t_end is not None and ev.t_end > ev.t else ev.t
        self.talk[ev.player] = (us(ev.t), us(end))

    def copy(self) -> "Hands":
        other = Hands(())
        other.up = {p: dict(sides) for p, sides in self.up.items()}
        other.talk = dict(self.talk)
        return other


def collect_acts(slot: Slot, players, hands: Hands, window_end: int) -> dict[str, Act]:
    """Each player's raises, lowerings and shouts inside the window; updates ``hands``."""
    acts = {p: Act(stale={s for s in SIDES if hands.up[p][s]}) for p in players}
    for p, (start, end) in hands.talk.items():
        if p in acts and start < slot.t0 < end:
            acts[p].talking = start
    for ev in slot.events:
        t = us(ev.t)
        inside = t <= window_end
        if isinstance(ev, ShoutEvent) and ev.player:
            hands.heard(ev)
        if isinstance(ev, HandEvent):
            new_raise = hands.update(ev)
            if not inside:
                continue
            act = acts[ev.player]
            if new_raise:
                act.ups.setdefault(ev.side, t)
            elif ev.state == "down":
                act.downs.setdefault(ev.side, t)
        elif isinstance(ev, ShoutEvent) and inside:
            acts[ev.player].shouts.append(ev)
    return acts


def hands_wrong(act: Act, required: frozenset[str], moment: int) -> str | None:
    """Why the hands are wrong (None when exactly the required hands went up)."""
    stale = act.stale_raised(moment)
    raised = set(act.ups) | stale
    if raised != set(required):
        text = f"raised {hands_text(raised)}"
        if stale:
            text += f" ({hands_text(stale)} still up from before)"
        return f"{text}, expected {hands_text(required)}"
    if stale & required:
        return (f"{hands_text(stale & required)} was already up when the card appeared "
                "(it must come down and go up again)")
    return None


def window_end_at(slot: Slot, seconds: float) -> int:
    end = slot.at + us(seconds)
    return end if slot.stop is None else min(end, slot.stop)


def span_act(events: list[Event], player: str) -> Act | None:
    """A player's hands and shouts of a doubted span as one act (a hand going up there is
    taken as raised: the benefit of the doubt), or None when they did nothing there."""
    act = Act()
    for e in events:
        if e.player != player:
            continue
        if isinstance(e, HandEvent) and e.state == "up":
            act.ups.setdefault(e.side, us(e.t))
        elif isinstance(e, ShoutEvent):
            act.shouts.append(e)
    return act if act.did_something() else None


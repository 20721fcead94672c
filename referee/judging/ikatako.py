"""Judging an IKATAKO session: one verdict per revealed card, then the result.

The events arrive one at a time in canonical order (``referee.judge``), and :class:`Judge`
says each card's verdict as soon as it is final, and what a live table may hear before
that (:meth:`Judge.announce`). Every card event opens a
**reaction window** that lasts ``window`` seconds and ends early at the next card (or at
the ``end`` event). Time is handled in integer microseconds, so shifting a whole record
by a constant cannot change a comparison; times in the output are rounded to ms.

Versus, per player (docs/rules.md, IKATAKO):

* the raised hands are the hands that go up inside the window, plus a hand that was
  already up at the reveal and is still up at the player's first utterance (or at the
  end of the window): that one is an extra hand, and a required hand must come down and
  go up again to count. An ``up`` while the hand is already up is not a new raise;
* the utterance is the player's first shout in the window; later ones are ignored;
* **correct**: exactly the required hands and exactly the required words; **missed**:
  nothing new (no hand going up, no shout) when a reaction was required; **wrong**:
  anything else, with a reason in ``why``. A hand left up from the previous card is
  not a reaction on its own (decision: so it is not "reacting to a trouble card");
* reaction time = the later of the last required hand going up and the utterance onset;
  correct players within ``tie_ms`` (inclusive) of the fastest are tied, and a
  ``decision`` event before the next card names who takes it (the last valid decision
  wins); without one the tie is ``unsettled`` and the card is discarded;
* a player *not heard* (or *not seen*, :mod:`referee.judging.senses`) is neither penalised
  nor correct; when what was there does not rule out that they beat the fastest heard
  correct player (:func:`_could_have_been_first`), the card's **first is unknown**
  (decision: the rulebook is silent; the referee says it cannot tell rather than give the
  card on missing evidence): ``first_unknown`` lists them, ``tie`` holds the heard fastest
  (or heard tie) and them, and the card goes as an unsettled tie goes — a ``decision``
  naming any of them settles it. The field is there only when needed. Co-op/solo have no
  "first" (one active player), so nothing changes there;
* ``choice`` events before the next card: ``penalty`` (a wrong/missed player names the
  point card to turn down), ``uzushio`` / ``salvage`` (the taker's effect);
* what the referee did not clearly perceive (:mod:`referee.judging.unclear`: a shout whose
  word was not made out, a hand event below the hand threshold, a card below the card
  threshold) is weighed by its readings (:func:`_versus_doubt`, :func:`_coop_doubt`): a
  player the readings disagree on is *unclear* (``unclear``: no penalty, no point), and one
  who may have been as fast as the fastest correct player makes the first unclear
  (``first_unclear``: nobody takes the card). A card not read judges nobody. The table's
  answers about card N (``Session.answers``) re-judge it as if the observation had been
  clear (``decided``).

Co-op/solo: only the active player counts (``by`` of the card event, else the turn order
with its uzushio reversals). A declaration may span utterances ("ika" … "12", as the
rulebook says: do the action, then declare), read until it has as many tokens as
required; it must match them exactly, with exactly the required hands, inside the window
(``three_count`` caps the window at 3 s).

Bad input never stops the judging: unattributed shouts, events naming players who are
not at the table, cards the deck lacks or cannot hold any more, and choices the rules do
not allow become warnings. A card the deck lacks still closes the previous card's window
(something was flipped), but gets no verdict.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from referee.judging import unclear as uc
from referee.judging.base import GameJudge, LivePlay
from referee.judging.ikatako_words import (describe, describe_expected, first_unknown_text,  # noqa: F401
                                           format_table, hands_text, late_text, settle_hint, unclear_notes,
                                           words_text)
from referee.judging.verdicts.ikatako import CoopResult, CoopVerdict, VersusResult, VersusVerdict
from referee.judging.view import lack_text
from session.errors import RulesError
from session.events import (CardEvent, ChoiceEvent, DecisionEvent, EndEvent, Event, HandEvent,
                            ShoutEvent)
from rules import ikatako as rk

SIDES = ("left", "right")
US = 1_000_000
#: hands and shouts before the first card are kept this long (seconds) in case the first card
#: turns out to have been seen late (a camera gap is at most the camera's 2-s ring)
BEFORE_FIRST_CARD_S = 30.0


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
    since the warning's ``earliest`` (:meth:`Judge._late_span`): ``t0`` is then where its
    window surely starts (its reactions count from there), ``seen`` the card event's own time
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
        moved = [e for e in self.events if _reaction(e) and us(e.t) >= start]
        self.events = [e for e in self.events if not (_reaction(e) and us(e.t) >= start)]
        return moved

    def late_note(self) -> dict[str, float] | None:
        """The verdict's ``card_time_uncertain`` (None for a card seen on time)."""
        if self.seen is None:
            return None
        earliest = self.t0 if self.doubt_from is None else self.doubt_from
        return {"earliest": sec(earliest), "seen": sec(self.seen), "counted_from": sec(self.t0)}


def _reaction(e: Event) -> bool:
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


class _Hands:
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

    def copy(self) -> "_Hands":
        other = _Hands(())
        other.up = {p: dict(sides) for p, sides in self.up.items()}
        other.talk = dict(self.talk)
        return other


def _collect(slot: Slot, players, hands: _Hands, window_end: int) -> dict[str, Act]:
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


def _hand_problem(act: Act, required: frozenset[str], moment: int) -> str | None:
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


def _window(slot: Slot, seconds: float) -> int:
    end = slot.at + us(seconds)
    return end if slot.stop is None else min(end, slot.stop)


def _assess_versus(act: Act, expected, cid: str, window_end: int, window_s: float) -> tuple[str, Any]:
    """One versus player's reaction: ``("correct", when)`` (the later of the utterance and the
    last required hand, session µs), ``("wrong", why)``, ``("missed", why)``, or
    ``("idle", None)`` (no reaction, none due). Used by the verdict and the announcements."""
    shout = act.shouts[0] if act.shouts else None
    moment = us(shout.t) if shout else window_end
    if not expected.required:
        if not act.did_something():
            return "idle", None
        did = []
        if act.ups:
            did.append(f"raised {hands_text(set(act.ups))}")
        if shout:
            did.append(f"said {words_text(shout.words)}")
        return "wrong", f"reacted to the trouble card {cid} ({', '.join(did)}); no reaction was due"
    if not act.did_something():
        return "missed", f"no reaction within {window_s:g} s"
    problems = []
    hand_problem = _hand_problem(act, expected.sides, moment)
    if hand_problem:
        problems.append(hand_problem)
    if shout is None:
        problems.append(f"said nothing, expected {' '.join(expected.say)}")
    elif shout.words != expected.say:
        problems.append(f"said {words_text(shout.words)}, expected {' '.join(expected.say)}")
    if problems:
        return "wrong", "; ".join(problems)
    return "correct", max([us(shout.t)] + [act.ups[s] for s in expected.sides])


def _talking_at_reveal(act: Act, expected, status: str, why, window_end: int) -> tuple[str, Any]:
    """"Said nothing" needs a quiet channel: a player with no utterance beginning in the
    window who was still speaking when the card appeared (an utterance begun before it — in
    babble the onset walks back into the noise, or the shout began a moment early) may have
    said their word inside it, which the hearing did not make out for this card. Their verdict
    is then unclear, unless the hands alone, clearly seen, make it wrong."""
    if act.talking is None or act.shouts or status not in ("wrong", "missed") or not expected.say:
        return status, why
    hand_problem = _hand_problem(act, expected.sides, window_end) if expected.sides else None
    if hand_problem:  # the camera saw the hands wrong (or none): that alone decides
        return (status, why) if status == "missed" else ("wrong", hand_problem)
    return "unclear", f"was still speaking when the card appeared (from {sec(act.talking) :.2f} s): the word unclear"


def _unjudged(session, player: str, act: Act, expected, status: str, why, t0: int, window_end: int):
    """A wrong/missed verdict the evidence cannot carry (:mod:`referee.judging.senses`):
    ``("unjudged", reason)`` when the player's audio (or the camera) was missing in the window
    and what was missing is all the verdict hung on; ``("wrong", why)`` reworded when the
    camera still shows a wrong hand; else the assessment unchanged."""
    senses = getattr(session, "senses", None)
    if senses is None or status not in ("wrong", "missed") or not expected.required:
        return status, why
    a, b = sec(t0), sec(window_end)
    deaf = senses.missing("audio", player, a, b) if not act.shouts else None
    blind = senses.missing("video", player, a, b) if not act.ups else None
    if deaf is None and blind is None:
        return status, why
    shout = act.shouts[0] if act.shouts else None
    hands_known = blind is None
    hand_problem = _hand_problem(act, expected.sides, us(shout.t) if shout else window_end) if hands_known else None
    words_known = deaf is None
    word_problem = None
    if words_known:
        if shout is None:
            word_problem = f"said nothing, expected {' '.join(expected.say)}"
        elif shout.words != expected.say:
            word_problem = f"said {words_text(shout.words)}, expected {' '.join(expected.say)}"
    if hand_problem or word_problem:
        lost = [x for x in (deaf and f"words not heard: {deaf}", blind and f"hands not seen: {blind}") if x]
        return "wrong", "; ".join([x for x in (hand_problem, word_problem) if x] + lost)
    return "unjudged", "; ".join(x for x in (deaf and f"not heard: {deaf}", blind and f"not seen: {blind}") if x) \
        + "; no penalty"


def _span_act(events: list[Event], player: str) -> Act | None:
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


def _late_doubt(slot: Slot, player: str, status: str, why, expected, cid: str, window_end: int, window_s: float,
                players, before: "_Hands | None", could: dict[str, int]):
    """A verdict that rests on which of two cards a reaction was for (the later one seen late,
    its earliest moment inside the earlier one's window): *not judged*, no penalty, when the
    other reading would not penalise the player. On the late card: a wrong or missed player
    whose reactions of the doubted span would be right for it (``could`` gets when). On the
    card before: a wrong player who, without their reactions of that span, is right or had
    nothing to do (``could`` gets when they were right). Otherwise both readings penalise and
    the verdict stands as the record's order gives it."""
    if status not in ("wrong", "missed"):
        return status, why
    act = _span_act(slot.doubt_events, player) if slot.doubt_from is not None else None
    if act is not None:
        other, when = _assess_versus(act, expected, cid, window_end, window_s)
        if other == "correct":
            could[player] = when
            return "unjudged", (f"reacted at {sec(act.began()):.2f} s, when this card may already have been there "
                                f"(seen late, at {sec(slot.at):.2f} s); no penalty")
    if slot.next_card is not None and before is not None and status == "wrong":
        code, seen, start = slot.next_card
        span = [e for e in slot.events if _reaction(e) and e.player == player and us(e.t) >= start]
        if span:
            rest = Slot(slot.card, slot.t0, slot.stop, [e for e in slot.events if not any(e is x for x in span)],
                        slot.seen)
            other, when = _assess_versus(_collect(rest, players, before.copy(), window_end)[player], expected, cid,
                                         window_end, window_s)
            if other in ("correct", "idle"):
                if other == "correct":
                    could[player] = when
                return "unjudged", (f"the reaction at {span[0].t:.2f} s may have been to the next card, {code} "
                                    f"(seen late, at {sec(seen):.2f} s); no penalty")
    return status, why


def _ranking(correct: dict[str, int], players: list[str], tie_us: int) -> tuple[list[str], list[str]]:
    """Correct players fastest first (ties broken by seat), and the tie (empty: none)."""
    order = sorted(correct, key=lambda p: (correct[p], players.index(p)))
    fastest = correct[order[0]] if order else 0
    tied = [p for p in order if correct[p] - fastest <= tie_us]
    return order, tied if len(tied) > 1 else []


def _could_have_been_first(session, player: str, act: Act, expected, t0: int, deadline: int) -> bool:
    """Whether an unjudged player (not heard, or not seen) could have been first: nothing
    that was there rules out a correct reaction complete by ``deadline`` (the fastest heard
    correct player's reaction time + ``tie_ms``, session µs). Heard words must have begun by
    then; unheard words must have been missing at some moment of [reveal, deadline] (heard
    all that while and silent: they had not spoken yet). Likewise seen hands must be right
    by then — every required hand up, and no hand left up from before still up at the
    deadline (an utterance by then would have come with it: an extra hand) — while unseen
    ones must have been unseen within that span. (A wrong seen hand or heard word already
    made the player wrong, not unjudged.)"""
    senses = getattr(session, "senses", None)
    if senses is None:
        return False
    a, b = sec(t0), sec(deadline)
    if act.shouts:
        if us(act.shouts[0].t) > deadline:
            return False
    elif senses.missing("audio", player, a, b) is None:
        return False
    if act.ups or senses.missing("video", player, a, b) is None:  # the hands were seen
        if not all(s in act.ups and act.ups[s] <= deadline for s in expected.sides):
            return False
        if _hand_problem(act, expected.sides, deadline):  # e.g. a hand still up from before
            return False
    return True


def _first_unknown(session, unjudged, acts, expected, t0: int, correct: dict[str, int], order, players,
                   tie_us: int, could: dict[str, int] | None = None) -> list[str]:
    """The unjudged players who could have beaten or tied the fastest heard correct one
    (seat order); empty when nobody heard was correct (the card goes to nobody anyway). A
    player not judged around a card seen late (``could``: when their reaction would have been
    complete and correct, :func:`_late_doubt`) could have been first when that is by then — or
    at all, when nobody else was right."""
    could = could or {}
    if not order:
        return [p for p in players if p in unjudged and p in could]
    deadline = t0 + correct[order[0]] + tie_us
    return [p for p in players if p in unjudged
            and ((p in could and could[p] <= deadline)
                 or _could_have_been_first(session, p, acts[p], expected, t0, deadline))]


def _tie_with_unknown(tie: list[str], order: list[str], unknown: list[str]) -> list[str]:
    """The players a first-unknown card is settled between: the heard fastest (or the heard
    tie) and the unheard who may have beaten them."""
    return (tie or order[:1]) + unknown


def _assess_coop(act: Act, expected, seconds: float, window_end: int) -> tuple[list[str], int | None]:
    """The active player's declaration: the problems (none: ok) and when it was complete."""
    tokens: list[str] = []
    done_at = None
    for shout in act.shouts:
        tokens += shout.words
        if len(tokens) >= len(expected.say):
            done_at = us(shout.t)
            break
    moment = done_at if done_at is not None else window_end
    problems = []
    if not act.did_something():
        problems.append(f"no declaration within {seconds:g} s")
    else:
        hand_problem = _hand_problem(act, expected.sides, moment)
        if hand_problem:
            problems.append(hand_problem)
        if not act.shouts:
            problems.append(f"said nothing, expected {' '.join(expected.say)}")
        elif tuple(tokens) != expected.say:
            problems.append(f"said {words_text(tokens)}, expected {' '.join(expected.say)}")
    return problems, done_at


# ----------------------------------------------------------------------------- unclear observations


#: the words an unclear shout is given in a reading where it was not the right answer
OTHER_WORDS = ("?",)


@dataclass
class _Ctx:
    """One card's window as the judge reads it: what the readings of unclear observations
    need (the hands as they were at the reveal are copied for each reading)."""

    session: Any
    slot: Slot
    expected: Any  # rules.ikatako.Reaction
    cid: str
    window_end: int
    seconds: float
    players: list[str]
    hands_at_reveal: _Hands

    @property
    def clarity(self) -> uc.Clarity:
        return getattr(self.session, "clarity", None) or uc.Clarity()


def _unclear_hands(ctx: _Ctx, player: str) -> list[HandEvent]:
    """The player's hand events inside the window that the camera was not sure of."""
    return [e for e in ctx.slot.events if isinstance(e, HandEvent) and e.player == player
            and us(e.t) <= ctx.window_end and uc.hand_unclear(e, ctx.clarity)]


def _lead_unclear(act: Act, clarity: uc.Clarity) -> list[ShoutEvent]:
    """The unclear shouts before the player's first clear one (versus: only the first
    utterance counts, so an unclear shout after a clear one changes nothing)."""
    lead = []
    for sh in act.shouts:
        if not uc.shout_unclear(sh, clarity):
            break
        lead.append(sh)
    return lead


def _unclear_reason(ctx: _Ctx, shouts, hands) -> str:
    t0 = ctx.slot.t0 / US
    return "; ".join([uc.shout_reason(s, t0, ctx.clarity) for s in shouts] + [uc.hand_reason(h, t0, ctx.clarity) for h in hands])


def _reading_slot(ctx: _Ctx, player: str, shouts, hands, reading: uc.Reading, words_for) -> Slot:
    """The card's slot as ``reading`` has it: the player's unclear hand events kept or dropped,
    their unclear shouts given words (``words_for(choice, tokens so far)``, None: no
    utterance) or dropped."""
    drop = {id(h) for h, real in zip(hands, reading.hands) if not real}
    choice = {id(s): r for s, r in zip(shouts, reading.shouts)}
    events: list[Event] = []
    tokens: list[str] = []
    for e in ctx.slot.events:
        if id(e) in drop:
            continue
        if id(e) in choice:
            words = None if choice[id(e)] == "none" else words_for(choice[id(e)], tokens)
            if words is None:
                continue
            e = replace(e, words=tuple(words))
        if isinstance(e, ShoutEvent) and e.player == player:
            tokens += e.words
        events.append(e)
    slot = ctx.slot
    return Slot(slot.card, slot.t0, slot.stop, events, slot.seen)


def _read_act(ctx: _Ctx, player: str, shouts, hands, reading: uc.Reading, words_for) -> Act:
    slot = _reading_slot(ctx, player, shouts, hands, reading, words_for)
    return _collect(slot, ctx.players, ctx.hands_at_reveal.copy(), ctx.window_end)[player]


def _versus_words(expected):
    """A versus reading's words: the required ones, or others; a trouble card's "right"
    reading is no utterance (any word there is wrong)."""
    return lambda choice, tokens: (expected.say or None) if choice == "right" else OTHER_WORDS


@dataclass(frozen=True)
class Doubt:
    """A player's verdict read under every reading of their unclear observations:
    ``status`` ``unclear`` (the readings disagree: ``value`` is the reason, ``early`` the
    earliest moment a reading makes them correct, session µs, or None when none does), or
    the status and value all readings agree on when they penalise (the favourable
    reading's why, not the unclear word's; *missed* where only the unclear observation would
    make it *wrong*, :func:`referee.judging.unclear.clear_penalty`)."""

    status: str
    value: Any
    early: int | None = None


def _versus_doubt(ctx: _Ctx, player: str, act: Act) -> Doubt | None:
    """None when the player has no unclear observation that matters, or every reading gives
    what the record as it is gives (correct, or no reaction due)."""
    shouts, hands = _lead_unclear(act, ctx.clarity), _unclear_hands(ctx, player)
    if not shouts and not hands:
        return None
    reason = _unclear_reason(ctx, shouts, hands)
    if uc.count(len(shouts), len(hands)) > uc.MAX_READINGS:
        return Doubt("unclear", reason + "; too many unclear observations to weigh", act.began())
    words = _versus_words(ctx.expected)
    results = [_assess_versus(_read_act(ctx, player, shouts, hands, r, words), ctx.expected, ctx.cid,
                              ctx.window_end, ctx.seconds) for r in uc.readings(len(shouts), len(hands))]
    statuses = [s for s, _ in results]
    if uc.agree(statuses):
        if statuses[0] not in uc.PENALISED:
            return None
        status, why = uc.clear_penalty(results)
        if status == "missed" and "wrong" in statuses:
            why = f"no clear reaction within {ctx.seconds:g} s ({reason})"
        return Doubt(status, why)
    early = min((v for s, v in results if s == "correct"), default=None)
    return Doubt("unclear", reason, early)


@dataclass
class _Statuses:
    """Every player's outcome on one versus card."""

    correct: dict[str, int] = field(default_factory=dict)  # µs after the window's start
    untimed: list[str] = field(default_factory=list)  # correct by the table's answer, time unknown
    wrong: dict[str, str] = field(default_factory=dict)
    missed: dict[str, str] = field(default_factory=dict)
    unjudged: dict[str, str] = field(default_factory=dict)  # a sense missing, or a card seen late
    unclear: dict[str, str] = field(default_factory=dict)  # an unclear observation (not in unjudged)
    early: dict[str, int] = field(default_factory=dict)  # unclear players: earliest correct reading
    could: dict[str, int] = field(default_factory=dict)  # unjudged around a late card: when right
    #: correct players whose word was found inside a longer sound (the shout's ``found_inside``:
    #: its onset re-anchored later than the detector's): the earliest their reaction may have
    #: been complete (session µs)
    timed_from: dict[str, int] = field(default_factory=dict)
    decided: dict[str, str] = field(default_factory=dict)  # the table's answers applied

    def put(self, player: str, status: str, value: Any, t0: int) -> None:
        if status == "correct":
            self.correct[player] = value - t0
        elif status in ("wrong", "missed", "unjudged", "unclear"):
            getattr(self, status)[player] = value

    def all_unclear(self, players) -> dict[str, str]:
        """The verdict's ``unclear``: every player not judged on the card, with the reason."""
        return {p: self.unclear.get(p) or self.unjudged[p] for p in players if p in self.unclear or p in self.unjudged}


def _player_status(ctx: _Ctx, player: str, act: Act, st: _Statuses, before: "_Hands | None") -> None:
    """One versus player's outcome: the assessment, then what was unclear, what a missing
    sense and a card seen late leave unjudged."""
    session, expected, slot = ctx.session, ctx.expected, ctx.slot
    status, value = _assess_versus(act, expected, ctx.cid, ctx.window_end, ctx.seconds)
    doubt = _versus_doubt(ctx, player, act)
    if doubt is not None:
        status, value = doubt.status, doubt.value
        if doubt.status == "unclear" and doubt.early is not None:
            st.early[player] = doubt.early
    status, value = _talking_at_reveal(act, expected, status, value, ctx.window_end)
    status, value = _unjudged(session, player, act, expected, status, value, slot.t0, ctx.window_end)
    status, value = _late_doubt(slot, player, status, value, expected, ctx.cid, ctx.window_end, ctx.seconds,
                                ctx.players, before, st.could)
    st.put(player, status, value, slot.t0)
    if status == "correct":
        earliest = _found_earliest(act, expected)
        if earliest is not None and earliest < value:
            st.timed_from[player] = earliest


def _versus_statuses(ctx: _Ctx, acts: dict[str, Act], not_read: str | None, before) -> _Statuses:
    st = _Statuses()
    for p in ctx.players:
        if not_read:
            st.unclear[p] = not_read
        else:
            _player_status(ctx, p, acts[p], st, before)
    return st


def _answer_versus(ctx: _Ctx, st: _Statuses, answers: uc.CardAnswers, index: int, not_read: str | None) -> None:
    """The table's answers about this card: an unclear player becomes correct (timed by the
    earliest reading that makes them right, else untimed) or wrong (a penalty), as if the
    observation had been clear. An answer about a player judged on clear evidence, or on a
    card that was not read, is a warning."""
    for player, a in answers.verdicts.items():
        if player not in ctx.players:
            ctx.session.warn(f"{a.describe()}: {player!r} is not at the table; ignored", a.line)
        elif not_read:
            ctx.session.warn(f"{a.describe()}: card {index} ({ctx.cid}) was not read; correct its card line "
                             f"(line {ctx.slot.card.line}) to judge it; ignored", a.line)
        elif player not in st.unclear and player not in st.unjudged:
            ctx.session.warn(f"{a.describe()}: {player} was judged on card {index} on what the referee clearly "
                             "perceived; an answer settles unclear observations only (a correction overrides "
                             "the record); ignored", a.line)
        else:
            _apply_answer(ctx, st, player, a.verdict)


def _apply_answer(ctx: _Ctx, st: _Statuses, player: str, verdict: str) -> None:
    reason = st.unclear.pop(player, None) or st.unjudged.pop(player)
    st.decided[player] = verdict
    when = st.early.pop(player, None)
    when = st.could.get(player) if when is None else when
    if verdict == "wrong":
        st.wrong[player] = f"the table's answer: wrong ({reason})"
    elif not ctx.expected.required:
        pass  # right on a trouble card = no reaction: nothing to take, nothing to pay
    elif when is None:
        st.untimed.append(player)
    else:
        st.correct[player] = when - ctx.slot.t0


def _found_earliest(act: Act, expected) -> int | None:
    """When a correct reaction whose word was found inside a longer sound may have been
    complete at the earliest: as :func:`_assess_versus` times it, with the detector's onset
    (``found_inside.onset_from``: the sound's start, before the re-anchored onset) for the
    word's. None for a word heard where it began."""
    shout = act.shouts[0] if act.shouts else None
    found = (shout.extra or {}).get("found_inside") if shout is not None else None
    onset = found.get("onset_from") if isinstance(found, dict) else None
    if not isinstance(onset, (int, float)):
        return None
    return max([us(onset)] + [act.ups[s] for s in expected.sides if s in act.ups])


@dataclass
class _First:
    """Who takes a versus card: the ranking, the tie, who could have beaten the fastest on
    an unclear observation, and the first (None: nobody takes it)."""

    order: list[str]
    tie: list[str]
    unknown: list[str]  # not heard / not seen (first_unknown)
    unclear: list[str]  # an unclear observation, or correct by answer with no time
    first: str | None

    @property
    def open_to(self) -> list[str]:
        """Who a decision may name."""
        if self.tie:
            return self.tie + [p for p in self.unclear if p not in self.tie]
        return (self.order[:1] + self.unclear) if self.unclear else []


def _rank_first(ctx: _Ctx, st: _Statuses, acts) -> _First:
    tie_us = round(ctx.session.options["tie_ms"] * 1000)
    t0 = ctx.slot.t0
    order, tie = _ranking(st.correct, ctx.players, tie_us)
    unknown = _first_unknown(ctx.session, st.unjudged, acts, ctx.expected, t0, st.correct, order, ctx.players,
                             tie_us, st.could)
    if unknown:
        tie = _tie_with_unknown(tie, order, unknown)
    deadline = t0 + st.correct[order[0]] + tie_us if order else None
    unclear = [p for p in ctx.players if p in st.early and (deadline is None or st.early[p] <= deadline)]
    # a correct player timed from a re-anchored onset who, at the earliest, beat or tied the first
    unclear += _onset_unsure(st, order, tie, deadline)
    untimed = [p for p in ctx.players if p in st.untimed]
    if not order and len(untimed) == 1 and not unclear and not unknown:
        return _First(order, tie, unknown, [], untimed[0])  # the only correct player
    unclear += untimed
    first = order[0] if order and not tie and not unclear else None
    return _First(order, tie, unknown, unclear, first)


def _onset_unsure(st: _Statuses, order: list[str], tie: list[str], deadline: int | None) -> list[str]:
    """The correct players behind the first (not tied with them) whose reaction, timed from
    where their sound began rather than where the word was found, would beat or tie the first:
    the first then rests on an unsure onset (never lost on it: the table decides)."""
    if deadline is None:
        return []
    return [p for p in order[1:] if p not in tie and p in st.timed_from and st.timed_from[p] <= deadline]


def _decide_first(ctx: _Ctx, st: _Statuses, fi: _First, answers: uc.CardAnswers) -> None:
    """The card's decisions — each ``decision`` in its window, then an answer naming ``first``
    — settle a tie, an unknown or an unclear first; the last valid one counts, the others are
    warnings. A player named whose own reaction was unclear is thereby answered correct."""
    decisions = [(ev.first, f"at t={ev.t:.3f} s", ev) for ev in ctx.slot.events if isinstance(ev, DecisionEvent)]
    if answers.first is not None:
        decisions.append((answers.first.first, f"({answers.first.describe()})", answers.first.line))
    chosen = None
    for name, when, at in decisions:
        if not fi.open_to:
            ctx.session.warn(f"decision for {name!r} {when}, but card {ctx.cid} (t={sec(ctx.slot.at):.3f} s) "
                             "has no tie; ignored", at)
        elif name not in fi.open_to:
            who = (f"who could not have been first (only {', '.join(fi.open_to)} could)" if fi.unknown or fi.unclear
                   else f"who is not in the tie ({', '.join(fi.open_to)})")
            ctx.session.warn(f"decision for {name!r} {when}, {who} on card {ctx.cid}; ignored", at)
        else:
            chosen = name
    if chosen is not None:
        if chosen in st.unclear and chosen in st.early:
            _apply_answer(ctx, st, chosen, "correct")
        fi.first = chosen


# ----------------------------------------------------------------------------- versus


def _versus_choices(ctx: _Ctx, st: _Statuses, state) -> tuple[dict[str, str], list[ChoiceEvent]]:
    """The card's ``choice`` events: penalty cards named by the penalised, and effects."""
    penalty_choices: dict[str, str] = {}
    effects: list[ChoiceEvent] = []
    opts, warn = ctx.session.options, ctx.session.warn
    for ev in ctx.slot.events:
        if not isinstance(ev, ChoiceEvent):
            continue
        if ev.action == "penalty":
            card = ev.get("card")
            if ev.player not in st.wrong and ev.player not in st.missed:
                warn(f"penalty choice by {ev.player} at t={ev.t:.3f} s, who owes no penalty on card {ctx.cid}; "
                     "ignored", ev)
            elif card not in state.points[ev.player]:
                warn(f"penalty choice at t={ev.t:.3f} s: {ev.player} holds no point card {card!r}; the "
                     f"{opts['penalty_card']} one is turned down", ev)
            else:
                penalty_choices[ev.player] = card
        elif ev.action in ("uzushio", "salvage"):
            effects.append(ev)
        else:
            warn(f"choice {ev.action!r} at t={ev.t:.3f} s means nothing in IKATAKO; ignored", ev)
    return penalty_choices, effects


def _apply_effects(ctx: _Ctx, state, effects: list[ChoiceEvent]) -> list[dict[str, Any]]:
    applied = []
    for ev in effects:
        choice = rk.Choice(ev.player, ev.action, to=ev.get("to"), penalty=ev.get("penalty"), card=ev.get("card"))
        try:
            out = state.apply(choice)
        except RulesError as exc:
            ctx.session.warn(f"{ev.action} choice at t={ev.t:.3f} s ignored: {exc}", ev)
            continue
        applied.append({"action": out.kind, **out.details})
    if state.pending_effect is not None and state.current is None:
        state.apply(rk.SkipEffect())
    return applied


def _judge_card_versus(session, slot: Slot, reveal, state, hands, players, index: int = 0):
    """The verdict of one versus card (and the state advanced past it); ``index`` is its
    verdict number, which the table's answers name."""
    cid = reveal["card"]
    expected = rk.expected_reaction(cid, reveal["troubles"])
    window_end = _window(slot, session.options["window"])
    ctx = _Ctx(session, slot, expected, cid, window_end, session.options["window"], players, hands.copy())
    before = hands.copy() if slot.next_card else None
    acts = _collect(slot, players, hands, window_end)
    not_read = uc.card_not_read(slot.card, ctx.clarity)
    st = _versus_statuses(ctx, acts, not_read, before)
    answers = _answers(session, index)
    _answer_versus(ctx, st, answers, index, not_read)
    fi = _rank_first(ctx, st, acts)
    _decide_first(ctx, st, fi, answers)
    penalty_choices, effects = _versus_choices(ctx, st, state)
    outcome = state.apply(rk.ReactionOutcome(
        fi.first,
        wrong=tuple(p for p in players if p in st.wrong),
        missed=tuple(p for p in players if p in st.missed),
        penalty_choices=tuple(sorted(penalty_choices.items())),
    ))
    applied = _apply_effects(ctx, state, effects)
    return _versus_verdict(ctx, st, fi, reveal, outcome, applied, not_read)


def _answers(session, index: int) -> uc.CardAnswers:
    answers = getattr(session, "answers", None)
    return answers.card(index) if answers is not None and index else uc.CardAnswers()


def _versus_verdict(ctx: _Ctx, st: _Statuses, fi: _First, reveal, outcome, effects: list,
                    not_read: str | None) -> VersusVerdict:
    players, tie_us = ctx.players, round(ctx.session.options["tie_ms"] * 1000)
    order, _ = _ranking(st.correct, players, tie_us)  # again: a decision may have answered someone correct
    why = {p: st.wrong[p] if p in st.wrong else st.missed[p] for p in players if p in st.wrong or p in st.missed}
    return VersusVerdict(
        t=sec(ctx.slot.at),
        card=ctx.cid,
        by=reveal.get("by"),
        expected=ctx.expected.to_dict(),
        troubles=list(reveal["troubles"]),
        first=fi.first,
        tie=fi.tie,
        correct=order + [p for p in players if p in st.untimed],
        wrong=[p for p in players if p in st.wrong],
        missed=[p for p in players if p in st.missed],
        times={p: sec(st.correct[p]) for p in order},
        margin=sec(st.correct[order[1]] - st.correct[order[0]]) if len(order) > 1 else None,
        why=why,
        unsettled=bool(fi.tie) and fi.first is None,
        taken_by=outcome.details.get("taken_by"),
        discarded=outcome.kind == "discarded",
        penalties=dict(outcome.details.get("penalties", {})),
        effects=effects,
        card_time_uncertain=ctx.slot.late_note() or {},
        **_unclear_fields(ctx, st, fi, not_read),
    )


def _unclear_fields(ctx: _Ctx, st: _Statuses, fi: _First, not_read: str | None) -> dict[str, Any]:
    """What the referee was not sure of on a versus card (written only when there is
    something to say, so a clear record's verdicts stay as they were)."""
    players = ctx.players
    return dict(
        unjudged={p: st.unjudged[p] for p in players if p in st.unjudged},
        first_unknown=fi.unknown,
        onset_unsure={p: f"the word was found inside a longer sound: it began between {sec(st.timed_from[p]):.3f} s "
                         f"and {sec(ctx.slot.t0 + st.correct[p]):.3f} s" for p in players
                      if p in fi.unclear and p in st.timed_from},
        unclear=st.all_unclear(players),
        first_unclear=fi.first is None and bool(fi.unknown or fi.unclear or (not_read and ctx.expected.required)),
        decided={p: st.decided[p] for p in players if p in st.decided},
        card_unclear=not_read or "",
    )


def _flipper(session, card: CardEvent) -> str | None:
    """Who flipped the card, when the record names a player at the table."""
    by = card.by if card.by in session.players else None
    if card.by is not None and by is None:
        session.warn(f"card {card.card!r} at t={card.t:.3f} s was flipped by "
                     f"{card.by!r}, who is not at the table; 'by' ignored", card)
    return by


# ----------------------------------------------------------------------------- co-op / solo


def _coop_not_heard(session, player: str, act: Act, expected, problems: list[str], t0: int,
                    window_end: int) -> str | None:
    """Why the active player's miss rests on evidence that was not there (the versus "not
    heard" rule, :mod:`referee.judging.senses`), or None: nothing of the declaration was heard
    and the player's audio was missing at some moment of the window, and no hand the camera
    saw is wrong (a required hand seen not raised, or an extra one, is still a miss; hands
    not seen either are no evidence)."""
    senses = getattr(session, "senses", None)
    if senses is None or not problems or act.shouts:
        return None
    a, b = sec(t0), sec(window_end)
    deaf = senses.missing("audio", player, a, b)
    if deaf is None:
        return None
    blind = senses.missing("video", player, a, b) if not act.ups else None
    if blind is None and _hand_problem(act, expected.sides, window_end):
        return None
    return "; ".join(x for x in (f"not heard: {deaf}", blind and f"not seen: {blind}") if x) + "; no miss"


def _coop_doubted(slot: Slot, player: str, expected, seconds: float, window_end: int,
                  problems: list[str]) -> str | None:
    """A co-op miss on a card seen late whose doubted span (:class:`Slot`) holds the active
    player's right declaration for it: no miss (the reading that penalises is not sure)."""
    act = _span_act(slot.doubt_events, player) if problems and slot.doubt_from is not None else None
    if act is None or _assess_coop(act, expected, seconds, window_end)[0]:
        return None
    return (f"declared at {sec(act.began()):.2f} s, when this card may already have been there (seen late, at "
            f"{sec(slot.at):.2f} s); no miss")


def _coop_words(expected):
    """A co-op reading's words: the rest of the declaration after the tokens said so far
    (when they are its beginning), or other words."""
    def words(choice, tokens):
        n = len(tokens)
        if choice == "right" and tuple(tokens) == expected.say[:n] and n < len(expected.say):
            return expected.say[n:]
        return OTHER_WORDS
    return words


def _coop_doubt(ctx: _Ctx, player: str, act: Act) -> Doubt | None:
    """The active player's declaration under every reading of their unclear shouts and hand
    events: None when they do not matter (every reading declares right, or the record as it
    is already says so), a miss every reading agrees on (the favourable reading's problems),
    or unclear (``early``: when the favourable reading's declaration was complete)."""
    shouts = [s for s in act.shouts if uc.shout_unclear(s, ctx.clarity)]
    hands = _unclear_hands(ctx, player)
    if not shouts and not hands:
        return None
    reason = _unclear_reason(ctx, shouts, hands)
    if uc.count(len(shouts), len(hands)) > uc.MAX_READINGS:
        return Doubt("unclear", reason + "; too many unclear observations to weigh")
    words = _coop_words(ctx.expected)
    results = []
    for r in uc.readings(len(shouts), len(hands)):
        a = _read_act(ctx, player, shouts, hands, r, words)
        problems, done_at = _assess_coop(a, ctx.expected, ctx.seconds, ctx.window_end)
        results.append((problems, _coop_time(a, ctx.expected, done_at) if not problems else None))
    oks = [not problems for problems, _ in results]
    if all(oks):
        return None
    if not any(oks):
        return Doubt("miss", results[0][0])
    return Doubt("unclear", reason, min(t for _, t in results if t is not None))


def _coop_time(act: Act, expected, done_at: int) -> int:
    """When a right declaration was complete: its last word and every required hand."""
    return max([done_at] + [act.ups[s] for s in expected.sides])


@dataclass
class _Declared:
    """The active player's declaration on one co-op card, as judged."""

    ok: bool
    why: str | None
    time: int | None = None  # session µs when complete (ok)
    unclear: str | None = None  # why it was not judged
    unjudged: str | None = None  # the older field: a sense missing, or a card seen late
    decided: str | None = None


def _coop_declared(ctx: _Ctx, player: str, act: Act, not_read: str | None) -> _Declared:
    expected, slot = ctx.expected, ctx.slot
    problems, done_at = _assess_coop(act, expected, ctx.seconds, ctx.window_end)
    if not_read:
        return _Declared(False, None, unclear=not_read)
    doubt = _coop_doubt(ctx, player, act)
    if doubt is not None and doubt.status == "unclear":
        return _Declared(False, None, doubt.early, unclear=doubt.value)
    if doubt is not None:
        problems = doubt.value
    unheard = _coop_not_heard(ctx.session, player, act, expected, problems, slot.t0, ctx.window_end) \
        or _coop_doubted(slot, player, expected, ctx.seconds, ctx.window_end, problems)
    if unheard is not None:
        return _Declared(False, None, unclear=unheard, unjudged=unheard)
    if problems:
        return _Declared(False, "; ".join(problems))
    return _Declared(True, None, _coop_time(act, expected, done_at))


def _answer_coop(ctx: _Ctx, player: str, d: _Declared, answers: uc.CardAnswers, index: int,
                 not_read: str | None) -> _Declared:
    """The table's answer about an unclear declaration: right (the table's total goes on and
    the score rises) or a miss, as if it had been clear."""
    for who, a in answers.verdicts.items():
        if who != player:
            ctx.session.warn(f"{a.describe()}: only the active player, {player}, is judged on card {index}; "
                             "ignored", a.line)
        elif not_read:
            ctx.session.warn(f"{a.describe()}: card {index} ({ctx.cid}) was not read; correct its card line "
                             f"(line {ctx.slot.card.line}) to judge it; ignored", a.line)
        elif d.unclear is None:
            ctx.session.warn(f"{a.describe()}: {player} was judged on card {index} on what the referee clearly "
                             "perceived; an answer settles unclear observations only (a correction overrides "
                             "the record); ignored", a.line)
        elif a.verdict == "correct":
            return _Declared(True, None, d.time, decided="correct")
        else:
            return _Declared(False, f"the table's answer: wrong ({d.unclear})", decided="wrong")
    return d


def _judge_card_coop(session, slot: Slot, state, hands, players, seconds: float, index: int = 0):
    player = state.active_player
    expected = state.expected()
    total = int(expected.say[-1])
    window_end = _window(slot, seconds)
    ctx = _Ctx(session, slot, expected, rk.check_card(slot.card.card), window_end, seconds, players, hands.copy())
    act = _collect(slot, players, hands, window_end)[player]
    for ev in slot.events:
        if isinstance(ev, (DecisionEvent, ChoiceEvent)):
            session.warn(f"{ev.type} at t={ev.t:.3f} s means nothing in {state.mode}; ignored "
                         "(effects follow a correct declaration by themselves)", ev)
    not_read = uc.card_not_read(slot.card, ctx.clarity)
    d = _answer_coop(ctx, player, _coop_declared(ctx, player, act, not_read), _answers(session, index), index,
                     not_read)
    if d.unclear is not None:
        # not judged: no miss (no penalty on evidence the referee is not sure of) and not a correct
        # declaration (the score does not rise on it); the table, which heard the player, played
        # on, so the running total, the turn and the card's effect go on as after a declaration
        score = state.last_declared
        out = state.apply(rk.Declare(True))
        state.last_declared = score
    else:
        out = state.apply(rk.Declare(d.ok))
    return CoopVerdict(
        t=sec(slot.at),
        card=ctx.cid,
        player=player,
        expected=expected.to_dict(),
        ok=d.ok,
        total=total,
        time=sec(d.time - slot.t0) if d.ok and d.time is not None else None,
        why=d.unclear if d.unclear is not None else d.why,
        effect=out.details.get("effect"),
        miss_piles=len(state.miss_piles),
        unjudged={player: d.unjudged} if d.unjudged is not None else {},
        unclear={player: d.unclear} if d.unclear is not None else {},
        decided={player: d.decided} if d.decided is not None else {},
        card_unclear=not_read or "",
        card_time_uncertain=slot.late_note() or {},
    )


# ----------------------------------------------------------------------------- the judge


@dataclass
class _Open:
    """The card whose window is open: what the announcements need to know about it."""

    slot: Slot
    cid: str
    expected: Any  # rules.ikatako.Reaction
    reveal: dict[str, Any] | None = None  # versus: the Reveal outcome's details
    player: str | None = None  # co-op/solo: the active player
    said: set = field(default_factory=set)  # announcement keys already given


class Judge(GameJudge):
    """The incremental IKATAKO judge (versus, co-op, solo).

    **Verdicts.** A card's verdict line comes out of :meth:`feed` when the next card is
    revealed (any card, even one the deck lacks) or at ``end``, else at :meth:`finish`:
    until then a ``decision`` (who takes a tie) or a ``choice`` (penalty card, uzushio,
    salvage) may still come, and hand events after the window still move the hands. The
    time alone never makes a verdict final, so :meth:`advance` gives nothing.

    **Bad input** is filtered event by event as it arrives. The three aggregated warnings
    ("N event(s) name X, who is not at the table", "N unattributed shout(s)", "N event(s)
    after the 'end' event") are given at :meth:`finish`, when the count is known; the set of
    notes is the one the old batch reader gave, only their order changed (the aggregated
    ones come last instead of first).

    **Announcements** (:meth:`announce`, watermark ``t``: every event earlier than ``t``
    has been fed). Only events earlier than ``t`` are looked at; a card's announcements
    stop when its verdict line is out (the verdict says the rest). Versus:

    * ``first`` (``player``, ``time`` after the card, ``margin`` to the next correct player,
      ``None`` while nobody else is correct yet) or ``tie`` (``players``) when it is
      settled: the player's reaction is complete (first utterance and every required hand
      up) and correct, and ``t`` is past their reaction time + ``tie_ms`` (strictly: at
      that very instant a tying reaction may still arrive) or past the window's end. No
      later reaction can then beat or tie them: it would end at ``t`` or later;
    * ``wrong`` / ``missed`` (``player``, ``why``) and ``nobody`` (a reaction was due and
      nobody was correct) once ``t`` is past the window's end (the window is then known
      in full);

    co-op/solo: ``ok`` (``player``, ``time``) or ``miss`` (``player``, ``why``) once the
    declaration is complete (all its words said and every required hand up) or ``t`` is
    past the window's end.

    No ``first`` (nor ``tie``) is announced while an unclear observation may have been as fast
    (the verdict says ``first_unclear``), no ``wrong``/``missed`` for an unclear player, no
    ``nobody`` while an unclear player may have been right, and nothing on a card not read.

    A player who was *not heard* (or not seen) and could have been first
    (:func:`_could_have_been_first`) makes the card's first unknown: instead of ``first``
    the judge announces a ``tie`` (``players``: the fastest heard, or the heard tie, then
    those candidates; ``first_unknown``: the candidates), at the same moment ``first`` would
    have come. Decision: announce rather than wait for the window's end, because the table
    must settle it with a ``decision`` before the next card, and every live view already
    shows a tie and offers its key; naming the heard fastest first would hand them the card
    on missing evidence. A stretch of missing audio reported after that moment (a late
    ``skipped``) cannot take back a ``first`` already announced; the verdict then says
    ``first_unknown``.

    The one case where the verdict can still differ from an announcement: a player
    announced ``first``/``ok`` (or in a ``tie``) raises a hand that was not asked for
    later in the window; the verdict then makes them wrong (and announces ``wrong`` at the
    window's end). A tie is announced as a tie; who takes it (a ``decision``) only the
    verdict says. The verdict line is always what counts.
    """

    takes_answers = True

    def __init__(self, session) -> None:
        super().__init__(session)
        self.mode = session.header.mode or "versus"
        if self.mode not in rk.GAME.modes:
            raise RulesError(f"unknown IKATAKO mode {self.mode!r} (modes: {', '.join(rk.GAME.modes)})")
        self.players = list(session.players)
        self._known_players = set(self.players)
        self.state = rk.GAME.new_state(self.players, self.mode, session.options)
        if self.mode == "versus":
            self.state.apply(rk.Remove(None))
            self.seconds = session.options["window"]
        else:
            self.seconds = session.options["window"]
            if session.options["three_count"]:
                self.seconds = min(self.seconds, rk.THREE_COUNT_S)
        self.hands = _Hands(self.players)
        self.slot: Slot | None = None
        self.open: _Open | None = None  # None: no card, or a card without a verdict
        self.ended = False
        self._unknown: dict[str, list[float]] = defaultdict(list)
        self._unattributed: list[float] = []
        self._uncredited: list[float] = []  # a room microphone's words no seat's hands claimed
        self._after_end = 0
        self._watermark: float | None = None
        self._late: tuple[float, float | None] | None = None  # the next card's time, its earliest
        self._before: list[Event] = []  # hands and shouts before the first card (hands not applied yet)
        self.verdicts = 0  # verdict lines so far: the next card's number is this + 1 (answers name it)
        self.unclear: dict[str, int] = defaultdict(int)  # unclear items per player (the result's count)

    # --------------------------------------------------------------- events in
    def _known(self, ev: Event, name: str | None) -> bool:
        if name in self._known_players:
            return True
        self._unknown[str(name)].append(ev.t)
        return False

    def _counts(self, ev: Event) -> bool:
        """False for an event that cannot count (noted for the aggregated warnings)."""
        if isinstance(ev, ShoutEvent) and ev.player is None:
            (self._uncredited if "uncredited" in ev.extra else self._unattributed).append(ev.t)
            return False
        if isinstance(ev, (HandEvent, ShoutEvent)):
            return self._known(ev, ev.player)
        if isinstance(ev, DecisionEvent):
            return self._known(ev, ev.first)
        if isinstance(ev, ChoiceEvent):
            return self._known(ev, ev.player)
        return True

    def feed(self, event: Event) -> list[dict[str, Any]]:
        if self.ended:
            self._after_end += 1
            return []
        if isinstance(event, EndEvent):
            self.ended = True
            if self.slot is not None:
                self.slot.stop = us(event.t)
            return self._close()
        if not self._counts(event):
            return []
        if isinstance(event, CardEvent):
            start, doubt_from = self._late_span(event)
            moved = self._reactions_from(start)
            doubt: list[Event] = []
            if self.slot is not None:
                self.slot.stop = start
                if doubt_from is not None:
                    doubt = [e for e in self.slot.events if _reaction(e) and us(e.t) >= doubt_from]
                    self.slot.next_card = (event.card, us(event.t), doubt_from)
            out = self._close()
            self._reveal(event, start, moved, doubt_from, doubt)
            return out
        if self.slot is not None:
            self.slot.events.append(event)
        elif isinstance(event, (HandEvent, ShoutEvent)):  # before the first card: kept a while, in
            self._before.append(event)  # case the first card was seen late
            while self._before and self._before[0].t < event.t - BEFORE_FIRST_CARD_S:
                self._apply_before(self._before.pop(0))
        return []

    def card_seen_late(self, warning: Event) -> list[dict[str, Any]]:
        """The camera may have seen the next field card late (a ``warning`` with
        ``card_time_uncertain``, just before the card event at the same time): see
        :meth:`_late_span`."""
        if not self.ended and warning.extra.get("zone", "field") == "field":
            earliest = warning.extra.get("earliest")
            if earliest is not None and (isinstance(earliest, bool) or not isinstance(earliest, (int, float))
                                         or not earliest <= warning.t):
                self.session.warn(f"card-time warning at t={warning.t:.3f} s: earliest {earliest!r} is not a time "
                                  "at or before the card's; taken as not known", warning)
                earliest = None
            self._late = (warning.t, None if earliest is None else float(earliest))
        return []

    def _late_span(self, card: CardEvent) -> tuple[int, int | None]:
        """Where ``card``'s window surely starts, and where it may start when that is earlier
        (None: it starts at the card's time, or surely where it starts).

        Decision (the rulebook is silent; a window ends "when the next card is revealed"): a
        card the camera saw after a gap in the frames it was given may have come at any moment
        of that gap, from the warning's ``earliest``. The hands and shouts of the gap that the
        card before can no longer count (after its window) were reactions to this card: they
        count for it, and its reaction times are measured from where they start. Those still
        inside the card before's window could be to either card: they stay with the card
        before, and a verdict that would rest on them — wrong or missed on either card — is
        *not judged* instead (no penalty); such a player who reacted before the fastest correct
        one makes this card's first unknown. The window's length still counts from the time the
        card was seen, so nobody is late on that evidence. A warning without ``earliest`` (the
        frames before were no longer kept) moves only what the card before cannot count."""
        late, self._late = self._late, None
        t = us(card.t)
        if late is None or late[0] != card.t:
            return t, None
        prev = self.slot
        if prev is None:  # the first card: nothing before it to share the gap with
            return (t, None) if late[1] is None else (min(us(late[1]), t), None)
        prev_end = prev.at + us(self.seconds)
        earliest = prev_end if late[1] is None else max(us(late[1]), prev.at + 1)
        sure = min(max(earliest, prev_end), t)
        return sure, (earliest if earliest < sure else None)

    def _reactions_from(self, start: int) -> list[Event]:
        """The hands and shouts from ``start`` on, taken from the card before (or from the time
        before the first card, whose other hands are applied now)."""
        if self.slot is not None:
            return self.slot.take_reactions_from(start)
        moved = [e for e in self._before if us(e.t) >= start]
        for ev in self._before:
            if us(ev.t) < start:
                self._apply_before(ev)
        self._before = []
        return moved

    def _apply_before(self, ev: Event) -> None:
        if isinstance(ev, HandEvent):  # before the first card only the hands matter
            self.hands.update(ev)
        elif isinstance(ev, ShoutEvent) and ev.player:  # ... and whether a player was still speaking
            self.hands.heard(ev)

    def unread_card(self, warning: Event) -> list[dict[str, Any]]:
        """The camera saw a card arrive in the field but could not read it (a ``warning``
        with ``unread``): it closes the previous card's window like any card — its
        reactions are not merged into the card before — and gets no verdict."""
        if self.ended or warning.extra.get("zone", "field") != "field":
            return []
        moved = self._reactions_from(us(warning.t))  # none but what waited for a first card
        if self.slot is not None:
            self.slot.stop = us(warning.t)
        out = self._close()
        self.slot = Slot(CardEvent(t=warning.t, card="?", zone="field", line=warning.line), us(warning.t), None, moved)
        self.open = None
        self.session.warn(f"a card came into the field at t={warning.t:.3f} s but was not recognised; no verdict "
                          "for it (the reactions after it do not count for the card before)", warning)
        return out

    def _reveal(self, card: CardEvent, start: int, moved: list[Event], doubt_from: int | None = None,
                doubt: list[Event] | None = None) -> None:
        t = us(card.t)
        late = start < t or doubt_from is not None
        self.slot = Slot(card, start, None, list(moved), t if late else None, doubt_from, list(doubt or []))
        self.open = None
        by = _flipper(self.session, card)
        if self.mode != "versus" and self.state.is_over:
            self.session.warn(f"card {card.card!r} at t={card.t:.3f} s comes after the game is over; no verdict", card)
            return
        try:
            cid = rk.check_card(card.card)
            out = self.state.apply(rk.Reveal(card.card, by))
        except RulesError as exc:
            self.session.warn(f"card {card.card!r} at t={card.t:.3f} s: {exc}; no verdict", card)
            return
        if self.mode == "versus":
            reveal = dict(out.details)
            self.open = _Open(self.slot, reveal["card"], rk.expected_reaction(reveal["card"], reveal["troubles"]),
                              reveal=reveal)
        else:
            self.open = _Open(self.slot, cid, self.state.expected(), player=self.state.active_player)

    def _close(self) -> list[dict[str, Any]]:
        """The verdict of the card whose window the next card (or the end) just closed."""
        slot, live = self.slot, self.open
        self.slot = self.open = None
        if slot is None:
            return []
        if live is None:
            _collect(slot, self.players, self.hands, -1)  # keep the hands' state
            return []
        self.verdicts += 1
        if self.mode == "versus":
            verdict = _judge_card_versus(self.session, slot, live.reveal, self.state, self.hands, self.players,
                                         self.verdicts)
        else:
            verdict = _judge_card_coop(self.session, slot, self.state, self.hands, self.players, self.seconds,
                                       self.verdicts)
        for p in verdict.unclear:
            self.unclear[p] += 1
        return [verdict.to_dict()]

    def finish(self) -> list[dict[str, Any]]:
        out = self._close()
        warn = self.session.warn
        for name, times in sorted(self._unknown.items()):
            warn(f"{len(times)} event(s) name {name!r}, who is not at the table "
                 f"({', '.join(self.session.players)}); first at t={times[0]:.3f} s; ignored")
        if self._unattributed:
            warn(f"{len(self._unattributed)} unattributed shout(s) (player null) ignored; "
                 f"first at t={self._unattributed[0]:.3f} s")
        if self._uncredited:
            warn(f"{len(self._uncredited)} word(s) of the room microphone not credited to a seat (no single "
                 f"seat's hands moved with it, or another word too close; each says why): those seats are "
                 f"not heard on those cards; first at t={self._uncredited[0]:.3f} s")
        if self._after_end:
            warn(f"{self._after_end} event(s) after the 'end' event ignored")
        # the result's unclear counts only when something was unclear: a clear record's result stays as it was
        kind = VersusResult if self.mode == "versus" else CoopResult
        result = kind(mode=self.mode, **self.state.result(),
                      unclear={p: self.unclear[p] for p in self.players} if self.unclear else {})
        out.append(result.to_dict())
        return out

    # --------------------------------------------------------------- announcements
    def announce(self, t: float) -> list[dict[str, Any]]:
        live = self.open
        if live is None:
            return []
        horizon = us(t)
        slot = live.slot
        seen = Slot(slot.card, slot.t0, None, [e for e in slot.events if us(e.t) < horizon], slot.seen,
                    slot.doubt_from, slot.doubt_events)
        window_end = _window(seen, self.seconds)
        acts = _collect(seen, self.players, self.hands.copy(), window_end)
        closed = horizon > window_end
        base = {"type": "announce", "t": t, "card": live.cid, "card_t": sec(slot.at)}
        ctx = _Ctx(self.session, seen, live.expected, live.cid, window_end, self.seconds, self.players,
                   self.hands.copy())
        if uc.card_not_read(slot.card, ctx.clarity):
            return []  # nobody is judged on a card that was not read: nothing to announce
        if self.mode == "versus":
            found = self._announce_versus(ctx, acts, closed, horizon)
        else:
            found = self._announce_coop(ctx, live.player, acts[live.player], closed)
        out = []
        for key, what in found:
            if key not in live.said:
                live.said.add(key)
                out.append({**base, **what})
        return out

    def _announce_versus(self, ctx: _Ctx, acts, closed: bool, horizon: int):
        """What is settled about the open versus card (see the class): the first, a tie or an
        unknown first once nobody can still beat them — nothing while an unclear observation
        may have been faster — and the wrong and missed once the window is closed."""
        t0, expected = ctx.slot.t0, ctx.expected
        st = _versus_statuses(ctx, acts, None, None)
        fi = _rank_first(ctx, st, acts)
        order, correct = fi.order, st.correct
        tie_us = round(self.session.options["tie_ms"] * 1000)
        found = []
        if order and (closed or horizon > t0 + correct[order[0]] + tie_us) and not fi.unclear:
            if fi.unknown:
                lacks = {p: lack_text(str(st.unjudged[p])) for p in fi.unknown}
                found.append(("first", {"what": "tie", "players": fi.tie,
                                        "time": sec(correct[order[0]]), "first_unknown": fi.unknown,
                                        # what was lacking, when it is not the usual "not heard"
                                        **({"lacks": lacks} if set(lacks.values()) != {"not heard"} else {})}))
            elif fi.tie:
                found.append(("first", {"what": "tie", "players": fi.tie, "time": sec(correct[order[0]])}))
            else:
                margin = sec(correct[order[1]] - correct[order[0]]) if len(order) > 1 else None
                found.append(("first", {"what": "first", "player": order[0], "time": sec(correct[order[0]]),
                                        "margin": margin}))
        if closed:
            for kind, who in (("wrong", st.wrong), ("missed", st.missed)):
                for p in self.players:
                    if p in who:
                        found.append(((kind, p), {"what": kind, "player": p, "why": who[p]}))
            if expected.required and not order and not st.early:
                found.append(("nobody", {"what": "nobody"}))
        return found

    def _announce_coop(self, ctx: _Ctx, player: str, act: Act, closed: bool):
        expected = ctx.expected
        problems, done_at = _assess_coop(act, expected, self.seconds, ctx.window_end)
        complete = done_at is not None and all(s in act.ups for s in expected.sides)
        if not (closed or complete):
            return []
        d = _coop_declared(ctx, player, act, None)
        if d.unclear is not None:
            return []  # not heard, unclear, or a card seen late: no miss to announce (the verdict says why)
        if not d.ok:
            return [("declaration", {"what": "miss", "player": player, "why": d.why})]
        return [("declaration", {"what": "ok", "player": player, "time": sec(d.time - ctx.slot.t0)})]


def _live_prompts(item: dict[str, Any], players, state: Any = None) -> list:
    """The first player on an uzushio card may push a penalty onto another player (default:
    no effect); a player announced wrong or missed turns a point card of their choice face
    down (default: the rules' ``penalty_card`` policy, the lowest) — the cards they hold are in
    the judge's rules ``state`` (asked only when they hold two different ones)."""
    from referee.live.controls import Prompt

    what, who, card_t = item.get("what"), item.get("player"), item.get("card_t")
    if what == "first" and who and str(item.get("card", "")).startswith("uzushio"):
        others = [p for p in players if p != who]
        return [Prompt("uzushio", who, f"{who}: push a penalty (uzushio) onto whom?",
                       [(p, {"to": p}) for p in others], "no effect", card_t=card_t)]
    if what in ("wrong", "missed") and who:
        points = getattr(state, "points", None)
        held = sorted(set(points.get(who, ()))) if isinstance(points, dict) else []
        if len(held) >= 2:
            policy = (getattr(state, "options", None) or {}).get("penalty_card", "lowest")
            return [Prompt("penalty", who, f"{who}: which point card goes face down?",
                           [(c, {"card": c}) for c in held], f"the {policy} card", card_t=card_t)]
    return []


def _live_expect(card: str, troubles: list[str]) -> str | None:
    """The reaction ``card`` asks for with ``troubles`` in the field; a trouble card joins
    them (troubles stay in the field all game)."""
    text = describe_expected(rk.expected_reaction(card, troubles).to_dict())
    if rk.kind(card) == "trouble" and card not in troubles:
        troubles.append(card)
    return text


LIVE = LivePlay(prompts=_live_prompts, expect=_live_expect, expect_modes=("versus",),
                keys=("strike", "tie", "prompt"),
                legend={"versus": ("score = points - penalties", "turns down: a point card face down (penalty)",
                                   "sunk: final score 0 or less")})

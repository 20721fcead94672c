"""What the IKATAKO judge did not clearly perceive, weighed: every reading of a player's unclear
shouts and hands (:mod:`referee.judging.unclear`), and whether the readings agree."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from referee.judging import unclear as uc
from referee.judging.ikatako_acts import Act, Hands, Slot, US, collect_acts, us
from referee.judging.ikatako_assess import assess_versus
from session.events import Event, HandEvent, ShoutEvent


#: the words an unclear shout is given in a reading where it was not the right answer
OTHER_WORDS = ("?",)


@dataclass
class CardWindow:
    """One card's window as the judge reads it: what the readings of unclear observations
    need (the hands as they were at the reveal are copied for each reading)."""

    session: Any
    slot: Slot
    expected: Any  # rules.ikatako.Reaction
    cid: str
    window_end: int
    seconds: float
    players: list[str]
    hands_at_reveal: Hands

    @property
    def clarity(self) -> uc.Clarity:
        return getattr(self.session, "clarity", None) or uc.Clarity()


def unclear_hands(ctx: CardWindow, player: str) -> list[HandEvent]:
    """The player's hand events inside the window that the camera was not sure of."""
    return [e for e in ctx.slot.events if isinstance(e, HandEvent) and e.player == player
            and us(e.t) <= ctx.window_end and uc.hand_unclear(e, ctx.clarity)]


def lead_unclear(act: Act, clarity: uc.Clarity) -> list[ShoutEvent]:
    """The unclear shouts before the player's first clear one (versus: only the first
    utterance counts, so an unclear shout after a clear one changes nothing)."""
    lead = []
    for sh in act.shouts:
        if not uc.shout_unclear(sh, clarity):
            break
        lead.append(sh)
    return lead


def unclear_reason(ctx: CardWindow, shouts, hands) -> str:
    t0 = ctx.slot.t0 / US
    return "; ".join([uc.shout_reason(s, t0, ctx.clarity) for s in shouts] + [uc.hand_reason(h, t0, ctx.clarity) for h in hands])


def reading_slot(ctx: CardWindow, player: str, shouts, hands, reading: uc.Reading, words_for) -> Slot:
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


def read_act(ctx: CardWindow, player: str, shouts, hands, reading: uc.Reading, words_for) -> Act:
    slot = reading_slot(ctx, player, shouts, hands, reading, words_for)
    return collect_acts(slot, ctx.players, ctx.hands_at_reveal.copy(), ctx.window_end)[player]


def versus_words(expected):
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


def versus_doubt(ctx: CardWindow, player: str, act: Act) -> Doubt | None:
    """None when the player has no unclear observation that matters, or every reading gives
    what the record as it is gives (correct, or no reaction due)."""
    shouts, hands = lead_unclear(act, ctx.clarity), unclear_hands(ctx, player)
    if not shouts and not hands:
        return None
    reason = unclear_reason(ctx, shouts, hands)
    if uc.count(len(shouts), len(hands)) > uc.MAX_READINGS:
        return Doubt("unclear", reason + "; too many unclear observations to weigh", act.began())
    words = versus_words(ctx.expected)
    results = [assess_versus(read_act(ctx, player, shouts, hands, r, words), ctx.expected, ctx.cid,
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


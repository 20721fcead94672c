"""Who takes an IKATAKO versus card: the ranking of the correct players, the tie, and who was
not heard or not seen but could have been first."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.judging.ikatako_acts import Act, hands_wrong, sec, us
from referee.judging.ikatako_doubt import CardWindow


def ranking(correct: dict[str, int], players: list[str], tie_us: int) -> tuple[list[str], list[str]]:
    """Correct players fastest first (ties broken by seat), and the tie (empty: none)."""
    order = sorted(correct, key=lambda p: (correct[p], players.index(p)))
    fastest = correct[order[0]] if order else 0
    tied = [p for p in order if correct[p] - fastest <= tie_us]
    return order, tied if len(tied) > 1 else []


def could_have_been_first(session, player: str, act: Act, expected, t0: int, deadline: int) -> bool:
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
        if hands_wrong(act, expected.sides, deadline):  # e.g. a hand still up from before
            return False
    return True


def first_unknown(session, unjudged, acts, expected, t0: int, correct: dict[str, int], order, players,
                  tie_us: int, could: dict[str, int] | None = None) -> list[str]:
    """The unjudged players who could have beaten or tied the fastest heard correct one
    (seat order); empty when nobody heard was correct (the card goes to nobody anyway). A
    player not judged around a card seen late (``could``: when their reaction would have been
    complete and correct, :func:`referee.judging.ikatako_assess.late_doubt`) could have been
    first when that is by then — or at all, when nobody else was right."""
    could = could or {}
    if not order:
        return [p for p in players if p in unjudged and p in could]
    deadline = t0 + correct[order[0]] + tie_us
    return [p for p in players if p in unjudged
            and ((p in could and could[p] <= deadline)
                 or could_have_been_first(session, p, acts[p], expected, t0, deadline))]


def tie_with_unknown(tie: list[str], order: list[str], unknown: list[str]) -> list[str]:
    """The players a first-unknown card is settled between: the heard fastest (or the heard
    tie) and the unheard who may have beaten them."""
    return (tie or order[:1]) + unknown


@dataclass
class Statuses:
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


def found_earliest(act: Act, expected) -> int | None:
    """When a correct reaction whose word was found inside a longer sound may have been
    complete at the earliest: as :func:`referee.judging.ikatako_assess.assess_versus` times it,
    with the detector's onset (``found_inside.onset_from``: the sound's start, before the re-anchored onset) for the
    word's. None for a word heard where it began."""
    shout = act.shouts[0] if act.shouts else None
    found = (shout.extra or {}).get("found_inside") if shout is not None else None
    onset = found.get("onset_from") if isinstance(found, dict) else None
    if not isinstance(onset, (int, float)):
        return None
    return max([us(onset)] + [act.ups[s] for s in expected.sides if s in act.ups])


@dataclass
class First:
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


def rank_first(ctx: CardWindow, st: Statuses, acts) -> First:
    tie_us = round(ctx.session.options["tie_ms"] * 1000)
    t0 = ctx.slot.t0
    order, tie = ranking(st.correct, ctx.players, tie_us)
    unknown = first_unknown(ctx.session, st.unjudged, acts, ctx.expected, t0, st.correct, order, ctx.players,
                            tie_us, st.could)
    if unknown:
        tie = tie_with_unknown(tie, order, unknown)
    deadline = t0 + st.correct[order[0]] + tie_us if order else None
    unclear = [p for p in ctx.players if p in st.early and (deadline is None or st.early[p] <= deadline)]
    # a correct player timed from a re-anchored onset who, at the earliest, beat or tied the first
    unclear += onset_unsure(st, order, tie, deadline)
    untimed = [p for p in ctx.players if p in st.untimed]
    if not order and len(untimed) == 1 and not unclear and not unknown:
        return First(order, tie, unknown, [], untimed[0])  # the only correct player
    unclear += untimed
    first = order[0] if order and not tie and not unclear else None
    return First(order, tie, unknown, unclear, first)


def onset_unsure(st: Statuses, order: list[str], tie: list[str], deadline: int | None) -> list[str]:
    """The correct players behind the first (not tied with them) whose reaction, timed from
    where their sound began rather than where the word was found, would beat or tie the first:
    the first then rests on an unsure onset (never lost on it: the table decides)."""
    if deadline is None:
        return []
    return [p for p in order[1:] if p not in tie and p in st.timed_from and st.timed_from[p] <= deadline]


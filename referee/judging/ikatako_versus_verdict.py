"""An IKATAKO versus card's verdict line: the choices and effects it carries, what was unclear."""

from __future__ import annotations

from typing import Any

from referee.judging.ikatako_acts import sec
from referee.judging.ikatako_doubt import CardWindow
from referee.judging.ikatako_first import First, Statuses, ranking
from referee.judging.verdicts.ikatako import VersusVerdict
from rules import ikatako as rk
from session.errors import RulesError
from session.events import ChoiceEvent


def versus_choices(ctx: CardWindow, st: Statuses, state) -> tuple[dict[str, str], list[ChoiceEvent]]:
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


def apply_effects(ctx: CardWindow, state, effects: list[ChoiceEvent]) -> list[dict[str, Any]]:
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


def versus_verdict(ctx: CardWindow, st: Statuses, fi: First, reveal, outcome, effects: list,
                   not_read: str | None) -> VersusVerdict:
    players, tie_us = ctx.players, round(ctx.session.options["tie_ms"] * 1000)
    order, _ = ranking(st.correct, players, tie_us)  # again: a decision may have answered someone correct
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
        **unclear_fields(ctx, st, fi, not_read),
    )


def unclear_fields(ctx: CardWindow, st: Statuses, fi: First, not_read: str | None) -> dict[str, Any]:
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


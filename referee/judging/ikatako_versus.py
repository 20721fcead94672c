"""One IKATAKO versus card judged: every player's status, the table's answers, who takes it."""

from __future__ import annotations

from referee.judging import unclear as uc
from referee.judging.ikatako_acts import Act, Hands, Slot, collect_acts, sec, window_end_at
from referee.judging.ikatako_assess import assess_versus, late_doubt, senses_unjudged, talking_at_reveal
from referee.judging.ikatako_doubt import CardWindow, versus_doubt
from referee.judging.ikatako_first import First, Statuses, found_earliest, rank_first
from referee.judging.ikatako_versus_verdict import apply_effects, versus_choices, versus_verdict
from rules import ikatako as rk
from session.events import DecisionEvent


def player_status(ctx: CardWindow, player: str, act: Act, st: Statuses, before: "Hands | None") -> None:
    """One versus player's outcome: the assessment, then what was unclear, what a missing
    sense and a card seen late leave unjudged."""
    session, expected, slot = ctx.session, ctx.expected, ctx.slot
    status, value = assess_versus(act, expected, ctx.cid, ctx.window_end, ctx.seconds)
    doubt = versus_doubt(ctx, player, act)
    if doubt is not None:
        status, value = doubt.status, doubt.value
        if doubt.status == "unclear" and doubt.early is not None:
            st.early[player] = doubt.early
    status, value = talking_at_reveal(act, expected, status, value, ctx.window_end)
    status, value = senses_unjudged(session, player, act, expected, status, value, slot.t0, ctx.window_end)
    status, value = late_doubt(slot, player, status, value, expected, ctx.cid, ctx.window_end, ctx.seconds,
                               ctx.players, before, st.could)
    st.put(player, status, value, slot.t0)
    if status == "correct":
        earliest = found_earliest(act, expected)
        if earliest is not None and earliest < value:
            st.timed_from[player] = earliest


def versus_statuses(ctx: CardWindow, acts: dict[str, Act], not_read: str | None, before) -> Statuses:
    st = Statuses()
    for p in ctx.players:
        if not_read:
            st.unclear[p] = not_read
        else:
            player_status(ctx, p, acts[p], st, before)
    return st


def answer_versus(ctx: CardWindow, st: Statuses, answers: uc.CardAnswers, index: int, not_read: str | None) -> None:
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
            apply_answer(ctx, st, player, a.verdict)


def apply_answer(ctx: CardWindow, st: Statuses, player: str, verdict: str) -> None:
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


def decide_first(ctx: CardWindow, st: Statuses, fi: First, answers: uc.CardAnswers) -> None:
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
            apply_answer(ctx, st, chosen, "correct")
        fi.first = chosen


def judge_card_versus(session, slot: Slot, reveal, state, hands, players, index: int = 0):
    """The verdict of one versus card (and the state advanced past it); ``index`` is its
    verdict number, which the table's answers name."""
    cid = reveal["card"]
    expected = rk.expected_reaction(cid, reveal["troubles"])
    window_end = window_end_at(slot, session.options["window"])
    ctx = CardWindow(session, slot, expected, cid, window_end, session.options["window"], players, hands.copy())
    before = hands.copy() if slot.next_card else None
    acts = collect_acts(slot, players, hands, window_end)
    not_read = uc.card_not_read(slot.card, ctx.clarity)
    st = versus_statuses(ctx, acts, not_read, before)
    answers = card_answers(session, index)
    answer_versus(ctx, st, answers, index, not_read)
    fi = rank_first(ctx, st, acts)
    decide_first(ctx, st, fi, answers)
    penalty_choices, effects = versus_choices(ctx, st, state)
    outcome = state.apply(rk.ReactionOutcome(
        fi.first,
        wrong=tuple(p for p in players if p in st.wrong),
        missed=tuple(p for p in players if p in st.missed),
        penalty_choices=tuple(sorted(penalty_choices.items())),
    ))
    applied = apply_effects(ctx, state, effects)
    return versus_verdict(ctx, st, fi, reveal, outcome, applied, not_read)


def card_answers(session, index: int) -> uc.CardAnswers:
    answers = getattr(session, "answers", None)
    return answers.card(index) if answers is not None and index else uc.CardAnswers()


"""A MOKOCHAKA play resolved: the rules applied to what was heard and seen (or, where readings
disagree, to what they agree on), and its verdict line."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from referee.judging import unclear as uc
from referee.judging.mokochaka_doubt import (UnclearItem, Weighed, answer_items, clarity_of, read_call,
                                             unclear_items, weigh_readings)
from referee.judging.mokochaka_play import OpenPlay, rounded_us, turn_order
from referee.judging.verdicts.mokochaka import PlayVerdict
from rules.mokochaka import Resolve, Shout, Touch
from session.errors import IllegalAction


def resolve_play(session, state, play: OpenPlay, index: int = 0) -> PlayVerdict:
    """The verdict of a play whose window is closed: everything the table did, resolved; what
    the referee did not clearly perceive neither penalises nor wins
    (:func:`referee.judging.mokochaka_doubt.weigh_readings`)."""
    players = state.players
    ev = play.ev
    order = turn_order(players, state.active)
    answers = session.answers.card(index) if getattr(session, "answers", None) is not None and index \
        else uc.CardAnswers()
    if answers.first is not None and answers.first.first in players:
        play.tie_first = answers.first.first
    if play.tie_first is not None:
        order[play.tie_first] = -1
    not_read = uc.card_not_read(ev, clarity_of(session))
    items = unclear_items(session, play, players, float(session.options["window"]))
    decided = answer_items(session, items, answers, index, players, not_read)
    if not_read:
        weighed = Weighed(tuple(players), bool(play.grabs or play.unclear_grabs), {p: not_read for p in players})
    else:
        weighed = weigh_readings(state, play, items, order, players)
    grabs = [(dt, p) for _, dt, p in play.grabs] + [(i.dt, i.player) for i in items if i.kind == "grab" and i.recorded]
    touches = tuple(Touch(p, dt) for dt, p in sorted(grabs, key=lambda g: (g[0], order[g[1]])))
    answered = tuple(read_call(i, i.fixed, play.played["call"]) for i in items if i.fixed)
    out = apply_resolve(session, state, play, touches, weighed, answered)
    verdict = show_answers(play_verdict(play, out.details, touches), items, decided)
    return replace(verdict,  # what the referee was not sure of: written only when there is something to say
                   unclear={p: weighed.unclear[p] for p in players if p in weighed.unclear},
                   first_unclear=bool(weighed.hold_token),
                   decided={p: decided[p] for p in players if p in decided},
                   card_unclear=not_read or "")


def show_answers(verdict: PlayVerdict, items: list[UnclearItem], decided: dict[str, str]) -> PlayVerdict:
    """A call the table answered ``wrong`` was judged as some wrong call: the verdict does not
    name a word nobody made out — no call listed for the player, and the reason is the
    table's answer. (One answered ``correct`` is listed as the accepted call it was.)"""
    for p, answer in decided.items():
        if answer != "wrong":
            continue
        verdict.calls.pop(p, None)
        verdict.times.pop(p, None)
        if verdict.caller == p:
            verdict = replace(verdict, call=None)
        if p in verdict.why:
            why = "; ".join(i.reason for i in items if i.player == p and i.kind == "call")
            verdict.why[p] = f"the table's answer: wrong ({why})"
    return verdict


def apply_resolve(session, state, play: OpenPlay, touches, weighed: Weighed, answered: tuple[Shout, ...] = ()):
    """Apply the play's resolution to the game: the clear calls and the table's answered ones,
    the touches as recorded, without penalty for the excused and without a token if held."""
    ev, cid = play.ev, play.cid
    calls = tuple(s for _, s in play.calls) + answered
    penalty_to = tuple(sorted(play.penalty_to.items()))
    pile_choice = play.chosen_piles[1] if play.chosen_piles else None
    try:
        out = state.apply(Resolve(calls, touches, penalty_to, pile_choice, weighed.excused, weighed.hold_token))
    except IllegalAction as exc:
        session.warn(f"card {cid} at t={ev.t:g}: choice ignored ({exc})", ev)
        out = state.apply(Resolve(calls, touches, penalty_to, None, weighed.excused, weighed.hold_token))
    d = out.details
    chosen_piles, penalty_to = play.chosen_piles, play.penalty_to
    if chosen_piles and d["grab_winner"] and chosen_piles[0] not in (None, d["grab_winner"]):
        session.warn(f"t={ev.t:g}: piles chosen by {chosen_piles[0]}, but {d['grab_winner']} won the token", ev)
    if chosen_piles and not d["grab_winner"]:
        session.warn(f"t={ev.t:g}: piles choice ignored, nobody won the token", ev)
    penalised = {p["player"] for p in d["penalties"]}
    for who in sorted(set(penalty_to) - penalised):
        session.warn(f"t={ev.t:g}: penalty choice for {who}, who was not penalised; ignored", ev)
    return out


def play_verdict(play: OpenPlay, d: dict[str, Any], touches) -> PlayVerdict:
    players = list(d["hands"])
    ev = play.ev
    first_touch: dict[str, float] = {}
    for g in touches:
        first_touch.setdefault(g.player, g.dt)
    margin = None
    if d["grab_winner"] is not None:
        won = first_touch[d["grab_winner"]]
        later = [dt for p, dt in first_touch.items() if p != d["grab_winner"] and dt >= won]
        margin = rounded_us(min(later) - won) if later else None
    first_calls = d["calls"]  # the call that counts for each player (the rules decide)
    call = play.played["call"]
    return PlayVerdict(
        t=ev.t, card=play.cid, pile=play.pile, by=play.player,
        tops=call["tops"], caller=d["caller"], call=d["call"],
        accepted=d["accepted"], special=d["special"], ok=d["ok"], late=d["late"],
        grab_winner=d["grab_winner"], margin=margin,
        grabs={p: first_touch[p] for p in players if p in first_touch},
        penalties=[
            {"player": p["player"], "reason": p["reason"], "reasons": p["reasons"], "t": rounded_us(ev.t + p["dt"]),
             "to": p["to"],
             "cards": p["cards"], **({"chosen": True} if p["chosen"] else {})}
            for p in d["penalties"]
        ],
        bonus=d["bonus"],
        calls={p: c["call"] for p, c in first_calls.items()},
        times={p: round(c["dt"], 3) for p, c in first_calls.items()},
        why={p: d["why"][p] for p in players if p in d["why"]},
        next=d["next"], hands=d["hands"],
    )


"""One IKATAKO co-op/solo card judged: the active player's declaration, weighed like a versus
reaction when something was unclear or not heard."""

from __future__ import annotations

from dataclasses import dataclass

from referee.judging import unclear as uc
from referee.judging.ikatako_acts import Act, Slot, collect_acts, hands_wrong, sec, span_act, window_end_at
from referee.judging.ikatako_assess import assess_coop
from referee.judging.ikatako_doubt import CardWindow, Doubt, OTHER_WORDS, read_act, unclear_hands, unclear_reason
from referee.judging.ikatako_versus import card_answers
from referee.judging.verdicts.ikatako import CoopVerdict
from rules import ikatako as rk
from session.events import ChoiceEvent, DecisionEvent


def coop_not_heard(session, player: str, act: Act, expected, problems: list[str], t0: int,
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
    if blind is None and hands_wrong(act, expected.sides, window_end):
        return None
    return "; ".join(x for x in (f"not heard: {deaf}", blind and f"not seen: {blind}") if x) + "; no miss"


def coop_doubted(slot: Slot, player: str, expected, seconds: float, window_end: int,
                 problems: list[str]) -> str | None:
    """A co-op miss on a card seen late whose doubted span
    (:class:`referee.judging.ikatako_acts.Slot`) holds the active player's right declaration
    for it: no miss (the reading that penalises is not sure)."""
    act = span_act(slot.doubt_events, player) if problems and slot.doubt_from is not None else None
    if act is None or assess_coop(act, expected, seconds, window_end)[0]:
        return None
    return (f"declared at {sec(act.began()):.2f} s, when this card may already have been there (seen late, at "
            f"{sec(slot.at):.2f} s); no miss")


def coop_words(expected):
    """A co-op reading's words: the rest of the declaration after the tokens said so far
    (when they are its beginning), or other words."""
    def words(choice, tokens):
        n = len(tokens)
        if choice == "right" and tuple(tokens) == expected.say[:n] and n < len(expected.say):
            return expected.say[n:]
        return OTHER_WORDS
    return words


def coop_doubt(ctx: CardWindow, player: str, act: Act) -> Doubt | None:
    """The active player's declaration under every reading of their unclear shouts and hand
    events: None when they do not matter (every reading declares right, or the record as it
    is already says so), a miss every reading agrees on (the favourable reading's problems),
    or unclear (``early``: when the favourable reading's declaration was complete)."""
    shouts = [s for s in act.shouts if uc.shout_unclear(s, ctx.clarity)]
    hands = unclear_hands(ctx, player)
    if not shouts and not hands:
        return None
    reason = unclear_reason(ctx, shouts, hands)
    if uc.count(len(shouts), len(hands)) > uc.MAX_READINGS:
        return Doubt("unclear", reason + "; too many unclear observations to weigh")
    words = coop_words(ctx.expected)
    results = []
    for r in uc.readings(len(shouts), len(hands)):
        a = read_act(ctx, player, shouts, hands, r, words)
        problems, done_at = assess_coop(a, ctx.expected, ctx.seconds, ctx.window_end)
        results.append((problems, coop_time(a, ctx.expected, done_at) if not problems else None))
    oks = [not problems for problems, _ in results]
    if all(oks):
        return None
    if not any(oks):
        return Doubt("miss", results[0][0])
    return Doubt("unclear", reason, min(t for _, t in results if t is not None))


def coop_time(act: Act, expected, done_at: int) -> int:
    """When a right declaration was complete: its last word and every required hand."""
    return max([done_at] + [act.ups[s] for s in expected.sides])


@dataclass
class Declared:
    """The active player's declaration on one co-op card, as judged."""

    ok: bool
    why: str | None
    time: int | None = None  # session µs when complete (ok)
    unclear: str | None = None  # why it was not judged
    unjudged: str | None = None  # the older field: a sense missing, or a card seen late
    decided: str | None = None


def coop_declared(ctx: CardWindow, player: str, act: Act, not_read: str | None) -> Declared:
    expected, slot = ctx.expected, ctx.slot
    problems, done_at = assess_coop(act, expected, ctx.seconds, ctx.window_end)
    if not_read:
        return Declared(False, None, unclear=not_read)
    doubt = coop_doubt(ctx, player, act)
    if doubt is not None and doubt.status == "unclear":
        return Declared(False, None, doubt.early, unclear=doubt.value)
    if doubt is not None:
        problems = doubt.value
    unheard = coop_not_heard(ctx.session, player, act, expected, problems, slot.t0, ctx.window_end) \
        or coop_doubted(slot, player, expected, ctx.seconds, ctx.window_end, problems)
    if unheard is not None:
        return Declared(False, None, unclear=unheard, unjudged=unheard)
    if problems:
        return Declared(False, "; ".join(problems))
    return Declared(True, None, coop_time(act, expected, done_at))


def answer_coop(ctx: CardWindow, player: str, d: Declared, answers: uc.CardAnswers, index: int,
                not_read: str | None) -> Declared:
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
            return Declared(True, None, d.time, decided="correct")
        else:
            return Declared(False, f"the table's answer: wrong ({d.unclear})", decided="wrong")
    return d


def judge_card_coop(session, slot: Slot, state, hands, players, seconds: float, index: int = 0):
    player = state.active_player
    expected = state.expected()
    total = int(expected.say[-1])
    window_end = window_end_at(slot, seconds)
    ctx = CardWindow(session, slot, expected, rk.check_card(slot.card.card), window_end, seconds, players, hands.copy())
    act = collect_acts(slot, players, hands, window_end)[player]
    for ev in slot.events:
        if isinstance(ev, (DecisionEvent, ChoiceEvent)):
            session.warn(f"{ev.type} at t={ev.t:.3f} s means nothing in {state.mode}; ignored "
                         "(effects follow a correct declaration by themselves)", ev)
    not_read = uc.card_not_read(slot.card, ctx.clarity)
    d = answer_coop(ctx, player, coop_declared(ctx, player, act, not_read), card_answers(session, index), index,
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


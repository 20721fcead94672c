"""One IKATAKO player's reaction assessed: right, wrong or missed, and when the evidence
(a sense missing, a card seen late, a player still speaking) cannot carry a penalty."""

from __future__ import annotations

from typing import Any

from referee.judging.ikatako_acts import Act, Hands, Slot, collect_acts, hands_wrong, is_reaction, sec, span_act, us
from referee.judging.ikatako_words import hands_text, words_text


def assess_versus(act: Act, expected, cid: str, window_end: int, window_s: float) -> tuple[str, Any]:
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
    hand_problem = hands_wrong(act, expected.sides, moment)
    if hand_problem:
        problems.append(hand_problem)
    if shout is None:
        problems.append(f"said nothing, expected {' '.join(expected.say)}")
    elif shout.words != expected.say:
        problems.append(f"said {words_text(shout.words)}, expected {' '.join(expected.say)}")
    if problems:
        return "wrong", "; ".join(problems)
    return "correct", max([us(shout.t)] + [act.ups[s] for s in expected.sides])


def talking_at_reveal(act: Act, expected, status: str, why, window_end: int) -> tuple[str, Any]:
    """"Said nothing" needs a quiet channel: a player with no utterance beginning in the
    window who was still speaking when the card appeared (an utterance begun before it — in
    babble the onset walks back into the noise, or the shout began a moment early) may have
    said their word inside it, which the hearing did not make out for this card. Their verdict
    is then unclear, unless the hands alone, clearly seen, make it wrong."""
    if act.talking is None or act.shouts or status not in ("wrong", "missed") or not expected.say:
        return status, why
    hand_problem = hands_wrong(act, expected.sides, window_end) if expected.sides else None
    if hand_problem:  # the camera saw the hands wrong (or none): that alone decides
        return (status, why) if status == "missed" else ("wrong", hand_problem)
    return "unclear", f"was still speaking when the card appeared (from {sec(act.talking) :.2f} s): the word unclear"


def senses_unjudged(session, player: str, act: Act, expected, status: str, why, t0: int, window_end: int):
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
    hand_problem = hands_wrong(act, expected.sides, us(shout.t) if shout else window_end) if hands_known else None
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


def late_doubt(slot: Slot, player: str, status: str, why, expected, cid: str, window_end: int, window_s: float,
               players, before: "Hands | None", could: dict[str, int]):
    """A verdict that rests on which of two cards a reaction was for (the later one seen late,
    its earliest moment inside the earlier one's window): *not judged*, no penalty, when the
    other reading would not penalise the player. On the late card: a wrong or missed player
    whose reactions of the doubted span would be right for it (``could`` gets when). On the
    card before: a wrong player who, without their reactions of that span, is right or had
    nothing to do (``could`` gets when they were right). Otherwise both readings penalise and
    the verdict stands as the record's order gives it."""
    if status not in ("wrong", "missed"):
        return status, why
    act = span_act(slot.doubt_events, player) if slot.doubt_from is not None else None
    if act is not None:
        other, when = assess_versus(act, expected, cid, window_end, window_s)
        if other == "correct":
            could[player] = when
            return "unjudged", (f"reacted at {sec(act.began()):.2f} s, when this card may already have been there "
                                f"(seen late, at {sec(slot.at):.2f} s); no penalty")
    if slot.next_card is not None and before is not None and status == "wrong":
        code, seen, start = slot.next_card
        span = [e for e in slot.events if is_reaction(e) and e.player == player and us(e.t) >= start]
        if span:
            rest = Slot(slot.card, slot.t0, slot.stop, [e for e in slot.events if not any(e is x for x in span)],
                        slot.seen)
            other, when = assess_versus(collect_acts(rest, players, before.copy(), window_end)[player], expected, cid,
                                        window_end, window_s)
            if other in ("correct", "idle"):
                if other == "correct":
                    could[player] = when
                return "unjudged", (f"the reaction at {span[0].t:.2f} s may have been to the next card, {code} "
                                    f"(seen late, at {sec(seen):.2f} s); no penalty")
    return status, why


def assess_coop(act: Act, expected, seconds: float, window_end: int) -> tuple[list[str], int | None]:
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
        hand_problem = hands_wrong(act, expected.sides, moment)
        if hand_problem:
            problems.append(hand_problem)
        if not act.shouts:
            problems.append(f"said nothing, expected {' '.join(expected.say)}")
        elif tuple(tokens) != expected.say:
            problems.append(f"said {words_text(tokens)}, expected {' '.join(expected.say)}")
    return problems, done_at


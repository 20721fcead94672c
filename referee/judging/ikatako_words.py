"""How an IKATAKO verdict reads for people: the judgement's table (``referee judge``), each
card's line (:func:`describe`: the report, the live window), the first player's cell, the
unclear notes and the table's hint to settle them. Kept apart from the judge
(:mod:`referee.judging.ikatako`), which re-exports what other modules ask of it."""

from __future__ import annotations

from typing import Any

from referee.judging.verdicts.base import CardVerdict, Result, Verdict
from referee.judging.verdicts.ikatako import CoopVerdict, VersusVerdict
from referee.judging.verdicts.ikatako import parse as parse_line
from referee.judging.view import lack_text


def words_text(words: tuple[str, ...] | list[str]) -> str:
    """What a player said, for ``why`` (an utterance without tokens was not made out: such a
    shout alone never decides a verdict: the judge's ``_versus_doubt``)."""
    return " ".join(words) if words else "an unclear word"


def hands_text(sides: set[str] | frozenset[str]) -> str:
    if not sides:
        return "no hand"
    if len(sides) == 2:
        return "both hands"
    return f"{next(iter(sides))} hand"


def describe_expected(exp: dict[str, Any]) -> str:
    """``{"hands": "right", "say": ["ika"]}`` → ``right hand + ika``."""
    if exp["hands"] == "none" and not exp["say"]:
        return "no reaction"
    said = " ".join(exp["say"])
    if exp["hands"] == "none":
        return f"say {said}"
    hand = "both hands" if exp["hands"] == "both" else f"{exp['hands']} hand"
    return f"{hand} + {said}"


# ----------------------------------------------------------------------------- the table


def first_unknown_text(v: VersusVerdict) -> str:
    """``first unknown: ben not heard (could have been first); chie fastest heard — settle
    with a decision`` (or ``… decided: ben``) for a verdict with ``first_unknown``."""
    heard = v.fastest_heard
    who = ", ".join(f"{p} {lack_text(v.unjudged.get(p, ''))}" for p in v.first_unknown)
    text = (f"first unknown: {who} (could have been first); "
            + (f"{' / '.join(heard)} fastest heard" if heard else "nobody else was right"))
    if v.first:
        return f"{text} — decided: {v.first}"
    return f"{text} — settle with a decision"


def late_text(v: VersusVerdict | CoopVerdict) -> str | None:
    """``card seen late (at 5.900 s): it may have come from 4.600 s; reactions from 4.600 s
    count for it, timed from then`` for a verdict with ``card_time_uncertain``, else None."""
    late = v.card_time_uncertain
    if not late:
        return None
    counted = v.counted_from
    text = (f"card seen late (at {late['seen']:.3f} s): it may have come from {late['earliest']:.3f} s; reactions "
            f"from {counted:.3f} s count for it, timed from then")
    return text + "; earlier ones stay with the card before" if counted > late["earliest"] else text


def _reaction_ms(v: VersusVerdict) -> str:
    """" +N ms": the first player's reaction time after the card ("" when unknown). "+N ms" is
    the reaction time everywhere (window, terminal view, report); the lead over the next
    correct player is "by N ms"."""
    react = v.times.get(v.first)
    return f" +{round(react * 1000)} ms" if isinstance(react, (int, float)) else ""


def _first_cell(v: VersusVerdict) -> str:
    if v.card_unclear:
        return "card not read: nobody judged"
    if not v.expected["say"] and v.expected["hands"] == "none":
        return "(trouble: stays in the field)"
    if v.first_unclear and not v.first_unknown:
        return "unclear: nobody takes it"
    if v.first_unknown:
        if v.first is None:
            return "unknown: unsettled, discarded"
        return f"{v.first} (first unknown, decided)"
    if v.tie:
        tied = "/".join(v.tie)
        if v.first is None:
            return f"tie {tied}: unsettled, discarded"
        return f"{v.first} (tie {tied}, decided)"
    if v.first is None:
        return "nobody: discarded"
    react = _reaction_ms(v)
    if v.margin is not None:
        return f"{v.first}{react}, by {round(v.margin * 1000)} ms"
    return f"{v.first}{react} (only one right)"


def _typed(lines) -> tuple[list[Any], Any]:
    """A judgement's verdicts and its result (None if none), typed."""
    typed = [parse_line(x) for x in lines if x.get("type") in ("verdict", "result")]
    return ([v for v in typed if isinstance(v, Verdict)],
            next((r for r in typed if isinstance(r, Result)), None))


def _table_versus(lines, header) -> str:
    verdicts, result = _typed(lines)
    out = []
    cols = f"{'#':>3}  {'t (s)':>8}  {'card':<9} {'expected':<22} {'first: +reaction, by lead':<34} wrong / missed"
    out += [cols, "-" * len(cols)]
    for i, v in enumerate(verdicts, 1):
        lead = (f"{i:>3}  {v.t:>8.3f}  {v.card:<9} {describe_expected(v.expected):<22} "
                f"{_first_cell(v):<34} ")
        notes = [f"{p} wrong: {v.why[p]}" for p in v.wrong]
        if v.first_unknown:
            notes.insert(0, first_unknown_text(v))
        if late := late_text(v):
            notes.insert(0, late)
        if v.missed:
            notes.append(f"missed: {', '.join(v.missed)}")
        notes += unclear_notes(v)
        notes += [f"{p} onset unsure: {why}" for p, why in v.onset_unsure.items()]
        for p, card in v.penalties.items():
            if card:
                notes.append(f"{p} turns down {card}")
        for e in v.effects:
            if e["action"] == "salvage":
                notes.append(f"{e['player']} salvages {e['card']}")
            else:
                notes.append(f"{e['player']} uzushio: {e['card']} to {e['to']} as a penalty")
        out.append(lead + (notes[0] if notes else "-"))
        out += [" " * len(lead) + n for n in notes[1:]]
    if result:
        out += ["", "Scoreboard" + ("" if result.finished else
                                     f" (record ends with {result.cards_left} card(s) left)")]
        unclear = result.unclear
        out.append(f"  {'player':<10} {'points':>6} {'penalties':>9} {'score':>6}" + (f" {'unclear':>7}" if unclear else ""))
        for p, score in result.scores.items():
            tag = " winner" if p in result.winners else (" sunk" if p in result.sunk else "")
            count = f" {unclear.get(p, 0):>7}" if unclear else ""
            out.append(f"  {p:<10} {result.points[p]:>6} {result.penalties[p]:>9} {score:>6}{count}{tag}")
        # the words of the scoreboard, as the live window's legend says them
        out.append("  score = points - penalties (the value of the point cards each wrong or missed player "
                   "turns down); sunk: a score of 0 or less, which cannot win")
        out += settle_hint(result)
    return "\n".join(out)


def unclear_notes(v: CardVerdict) -> list[str]:
    """A verdict's table notes about what the referee was not sure of: ``not judged: ben
    (reason)`` for a sense missing (``unjudged``), ``unclear: chie (reason)`` for an unclear
    observation, players with one reason together, and the table's answers applied."""
    by_reason: dict[tuple[str, str], list[str]] = {}
    for p, why in v.unjudged.items():
        by_reason.setdefault(("not judged", why), []).append(p)
    for p, why in v.unclear.items():
        if p not in v.unjudged:
            by_reason.setdefault(("unclear", why), []).append(p)
    notes = [f"{label}: {', '.join(who)} ({why})" for (label, why), who in by_reason.items()]
    if v.decided:
        notes.append("the table's answer: " + ", ".join(f"{p} {a}" for p, a in v.decided.items()))
    return notes


def settle_hint(result: Result) -> list[str]:
    """The scoreboard's footnote when some items were unclear (nobody penalised or scored on them)."""
    n = sum(result.unclear.values())
    if not n:
        return []
    return [f"  {n} unclear item(s): no penalty, no point, no card taken on them. The table settles each with",
            "  referee judge RECORD --decide N:PLAYER=correct|wrong (N = the # column), or a decision line."]


def _table_coop(lines, mode) -> str:
    verdicts, result = _typed(lines)
    cols = f"{'#':>3}  {'t (s)':>8}  {'player':<10} {'card':<9} {'expected':<24} {'ok':<4} {'time':>7}  note"
    out = [cols, "-" * len(cols)]
    for i, v in enumerate(verdicts, 1):
        reversed_note = "uzushio: order reversed" if mode != "solo" else ""
        note = v.why or (reversed_note if v.effect == "reversed" else
                         "salvage: oldest miss pile back under the deck" if v.effect == "salvaged" else "")
        if v.unjudged:
            note = f"NOT JUDGED: {note}"
        elif v.unclear:
            note = f"UNCLEAR: {note}"
        elif not v.ok:
            note = f"MISS ({v.miss_piles} pile(s)): {note}"
        if late := late_text(v):
            note = f"{note}; {late}" if note else late
        if v.decided:
            answer = "the table's answer: " + ", ".join(f"{p} {a}" for p, a in v.decided.items())
            note = f"{note}; {answer}" if note else answer
        time = f"{v.time:.3f}" if v.time is not None else "-"
        out.append(f"{i:>3}  {v.t:>8.3f}  {v.player:<10} {v.card:<9} "
                   f"{describe_expected(v.expected):<24} {'yes' if v.ok else '-' if v.unclear or v.unjudged else 'NO':<4} "
                   f"{time:>7}  {note}")
    if result:
        state = ("cleared" if result.cleared else "sunk: game over" if result.sunk
                 else f"record ends with {result.cards_left} card(s) left")
        unclear = result.unclear
        counts = " · unclear " + ", ".join(f"{p} {n}" for p, n in unclear.items()) if unclear else ""
        out += ["", f"Result: {state} · score {result.score} · miss piles {result.miss_piles}{counts}"]
        out += settle_hint(result)
    return "\n".join(out)


def format_table(judgement, header) -> str:
    """The people's view: one row per card, then the scoreboard (or the co-op result)."""
    mode = (header.mode if header is not None else None) or next(
        (v.get("mode") for v in judgement.lines if v.get("type") == "result"), "versus")
    title = f"IKATAKO {mode}"
    if header is not None:
        title += f" · {', '.join(header.players)}"
    body = _table_versus(judgement.lines, header) if mode == "versus" else _table_coop(judgement.lines, mode)
    return f"{title}\n\n{body}"


# ----------------------------------------------------------------------------- the report


def _first_text(v: VersusVerdict) -> str:
    if v.card_unclear:
        return "nobody: the card was not read, nobody is judged on it"
    if v.first_unclear and not v.first_unknown and v.onset_unsure and not v.unclear:
        return (f"unclear: {', '.join(v.onset_unsure)} may have been faster ("
                + "; ".join(v.onset_unsure.values()) + "); nobody takes the card until the table answers")
    if v.first_unclear and not v.first_unknown:
        return "unclear: an unclear observation may have been faster; nobody takes the card until the table answers"
    if v.first_unknown:
        text = first_unknown_text(v)
        return text.replace("settle with a decision", "no decision: the card is discarded") if v.unsettled else text
    if v.tie and v.unsettled:
        return f"tie {' / '.join(v.tie)}: unsettled (the card is discarded)"
    if v.first is None:
        return "nobody (no correct reaction)"
    m = v.margin
    react = _reaction_ms(v)
    by = f", by {m * 1000:.0f} ms over the next correct player" if isinstance(m, (int, float)) else \
        " (the only correct player)"
    return f"{v.first}{react}{by}"


def describe(line: dict[str, Any] | VersusVerdict | CoopVerdict):
    """The dispute report's view of an IKATAKO verdict (:mod:`referee.judging.view`): the
    expected reaction, who was first and by how much, who was correct (with their reaction
    time), wrong (why) or missed; in co-op/solo the active player's declaration."""
    from referee.judging import view

    v = parse_line(line) if isinstance(line, dict) else line
    expected = describe_expected(v.expected) if v.expected else "-"
    late = late_text(v)
    if isinstance(v, CoopVerdict):  # one active player per card
        return _describe_coop(v, expected, late)
    why, times, unclear = v.why, v.times, v.unclear
    wrong_summary = [[(p, "bad"), (f" {why.get(p, '')}", None)] for p in v.wrong]
    facts = [("expected", view.text(expected)), ("first", view.text(_first_text(v))),
             ("correct", view.marked([(p, f" ({times[p]:.3f} s)" if p in times else "") for p in v.correct], "ok")),
             ("wrong", [[(p, "bad"), (f": {why.get(p, '')}", None)] for p in v.wrong]),
             ("missed", [[(p, "miss"), (f": {why.get(p, 'no reaction')}", None)] for p in v.missed]),
             (view.HEARD, None)]
    if v.unjudged:
        facts.insert(5, ("not judged", [[(p, view.UNCLEAR), (f": {r}", None)] for p, r in v.unjudged.items()]))
    if others := {p: r for p, r in unclear.items() if p not in v.unjudged}:
        facts.insert(5, ("unclear", [[(p, view.UNCLEAR), (f": {r}", None)] for p, r in others.items()]))
    if v.decided:
        facts.insert(5, ("the table's answers", view.text(", ".join(f"{p} {a}" for p, a in v.decided.items()))))
    if late:
        facts.insert(1, ("card time", view.text(late)))
    facts += _penalty_facts(v)
    status = {p: view.UNCLEAR for p in unclear}
    status.update({p: "miss" for p in v.missed})
    status.update({p: "bad" for p in v.wrong})
    status.update({p: "ok" for p in v.correct})
    caption = (f"card {v.card}: expected {expected}",
               f"first {v.first or '-'}  wrong {', '.join(v.wrong) or '-'}  "
               f"missed {', '.join(v.missed) or '-'}" + (f"  unclear {', '.join(unclear)}" if unclear else ""))
    return view.VerdictView(
        title=str(v.card), caption=caption,
        columns=[("card", view.text(v.card)), ("expected", view.text(expected)),
                 ("first", view.text(_first_text(v))), ("wrong", wrong_summary),
                 ("missed", view.marked([(p, "") for p in v.missed], "miss")),
                 ("unclear", view.marked([(p, "") for p in unclear], view.UNCLEAR))],
        facts=facts, status=status)


def _penalty_facts(v: VersusVerdict) -> list:
    from referee.judging import view

    facts = []
    if v.penalties:
        facts.append(("penalty cards", view.text(", ".join(
            f"{p} turns down {c}" if c else f"{p}: no point card to turn down" for p, c in v.penalties.items()))))
    if v.effects:
        import json

        facts.append(("effects", view.text(json.dumps(v.effects, ensure_ascii=False))))
    return facts


def _describe_coop(v: CoopVerdict, expected: str, late: str | None):
    """The report's view of a co-op/solo card: the active player's declaration."""
    from referee.judging import view

    p, ok = v.player, v.ok
    mark = "ok" if ok else view.UNCLEAR if v.unclear or v.unjudged else "bad"
    said = [[(p, mark),
             (f" declared right (+{v.time:.3f} s)" if ok and v.time is not None
              else f": {v.why or 'wrong'}", None)]]
    answered = [("the table's answer", view.text(f"{p} {v.decided[p]}"))] if v.decided else []
    return view.VerdictView(
        title=str(v.card),
        columns=[("card", view.text(v.card)), ("player", view.text(p)), ("expected", view.text(expected)),
                 ("declaration", said), ("miss piles", view.text(v.miss_piles))],
        facts=[("active player", view.text(p)), ("expected", view.text(expected))]
        + ([("card time", view.text(late))] if late else [])
        + [("running total", view.text(v.total)), ("declaration", said)] + answered + [(view.HEARD, None)]
        + ([("effect", view.text(v.effect))] if v.effect else [])
        + [("miss piles", view.text(v.miss_piles))],
        status={p: mark})

"""How a MOKOCHAKA verdict reads: the judgement's table (``referee judge``), each play's line
for people (:func:`describe`: the report, the live window) and the result's table. Kept apart
from the judge (:mod:`referee.judging.mokochaka`), which re-exports :func:`format_table` and
:func:`describe` as every game's judging module does."""

from __future__ import annotations

from typing import Any

from referee.judging.verdicts.mokochaka import MokochakaResult, PlayVerdict
from referee.judging.verdicts.mokochaka import parse as parse_line


def _reaction(v: PlayVerdict) -> str:
    parts = []
    if v.call is None and v.caller in v.unclear:
        parts.append(f"{v.caller}: unclear")
    elif v.call is None and v.caller in v.decided:
        parts.append(f"{v.caller}: {v.decided[v.caller]} (the table's answer)")
    elif v.call is None:
        parts.append(f"{v.caller} said nothing")
    else:
        t = v.times.get(v.caller)
        parts.append(f"{v.caller} said {v.call}" + (f" +{t:.2f} s" if t is not None else ""))
    if v.grab_winner:
        w = v.grab_winner
        margin = f", {w} +{v.margin:.3f} s" if v.margin is not None else ""
        parts.append(f"token: {w} ({v.calls.get(w, '?')}{margin})")
    return "; ".join(parts)


_STATUS = {"wrong_call": "WRONG", "late": "LATE", "no_call": "NO CALL", "stuck": "STUCK"}


def _status(v: PlayVerdict) -> str:
    if v.ok:
        return "ok"
    if v.caller in v.unclear:
        return "UNCLEAR"
    mine = next((p for p in v.penalties if p["player"] == v.caller), None)
    codes = [c for c in (mine["reasons"] if mine else []) if c in _STATUS]
    return _STATUS[codes[0]] if codes else "WRONG"


def format_table(judgement, header) -> str:
    """The verdicts and the scoreboard as a plain-text table."""
    rows = [("#", "t", "card", "pile", "tops", "expected", "reaction", "ok")]
    notes_per_row: list[list[str]] = []
    result = None
    for line in judgement.lines:
        if line.get("type") not in ("verdict", "result"):
            continue
        v = parse_line(line)
        if isinstance(v, MokochakaResult):
            result = v
            continue
        rows.append((str(len(rows)), f"{v.t:.2f}", v.card, str(v.pile), " ".join(v.tops),
                     " | ".join(v.accepted) + (" *" if v.special else ""), _reaction(v), _status(v)))
        notes = []
        for p in v.penalties:
            why = v.why.get(p["player"], p["reason"])
            notes.append(f"penalty: {p['player']} gives {p['cards']} card(s) to {p['to']} - {why}")
        if v.bonus:
            b = v.bonus
            extra = f" + 1 card from each of {', '.join(b['from_players'])}" if b["from_players"] else ""
            notes.append(f"bonus: {b['player']} takes pile(s) {', '.join(map(str, b['piles']))} ({b['cards']} cards){extra}")
        notes += _unclear_notes(v)
        notes_per_row.append(notes)
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    out = ["  ".join(cell.ljust(w) for cell, w in zip(rows[0], widths)).rstrip()]
    for row, notes in zip(rows[1:], notes_per_row):
        out.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        out.extend("      " + n for n in notes)
    out.append("(* = special call: everyone grabs the token)")
    if result is not None:
        out += _result_table(result)
    return "\n".join(out)


def _result_table(result: MokochakaResult) -> list[str]:
    state = "game over" if result.over else "game not finished: standing when the record ends"
    who = f", {result.ended_by} played their last card" if result.ended_by else ""
    out = ["", f"Result ({state}{who})"]
    unclear = result.unclear
    for p in result.hands:
        g = result.gabu[p]
        gabu = "?" if g is None else str(g)
        star = "  <- winner" if p in result.winners else ""
        count = f"  unclear {unclear.get(p, 0):2}" if unclear else ""
        out.append(f"  {p:10} hand {result.hands[p]:3}  gabu {gabu:>2}  counts {result.scores[p]:3}{count}{star}")
    if result.note:
        out.append(f"  note: {result.note}")
    out.append(f"Winners: {', '.join(result.winners)}")
    if n := sum(unclear.values()):
        out.append(f"{n} unclear item(s): no penalty and no token on them. The table settles each unclear call with")
        out.append("referee judge RECORD --decide N:PLAYER=correct|wrong (N = the # column), or a decision line.")
    return out


def _unclear_notes(v: PlayVerdict) -> list[str]:
    """A play's table notes about what the referee was not sure of, and the table's answers."""
    notes = [f"unclear: {p} ({why}): no penalty" for p, why in v.unclear.items()]
    if v.card_unclear:
        notes = [f"{v.card_unclear}"]
    if v.first_unclear:
        notes.append("token: its winner rests on an unclear observation; nobody takes the piles")
    if v.decided:
        notes.append("the table's answer: " + ", ".join(f"{p} {a}" for p, a in v.decided.items()))
    return notes


# ----------------------------------------------------------------------------- the report

_REASON = {"wrong_call": "wrong call", "late": "called late", "no_call": "no call within 3 s", "stuck": "stuck",
           "grab_no_special": "grabbed with no special call holding", "grab_before_call": "grabbed before calling",
           "grab_wrong_call": "grabbed with a wrong call", "grab_no_call": "grabbed without calling"}


def describe(line: dict[str, Any] | PlayVerdict):
    """The dispute report's view of a MOKOCHAKA play (:mod:`referee.judging.view`): the pile
    tops and the call they asked for, each player's call (right or wrong), the token grabs in
    time order with the winner, the penalties with their reasons, the bonus."""
    from referee.judging import view

    v = parse_line(line) if isinstance(line, dict) else line
    why, times, unclear = v.why, v.times, v.unclear
    accepted = set(v.accepted)
    expected = " | ".join(v.accepted) + ("  (special call: grab the token)" if v.special else "")
    penalised = {p["player"] for p in v.penalties}
    calls = []
    for p, call in v.calls.items():
        t = times.get(p)
        calls.append([(p, "ok" if call in accepted and p not in penalised else "bad"),
                      (f" said {call}" + (f" +{t:.2f} s" if t is not None else "") + (f": {why[p]}" if p in why else ""),
                       None)])
    if v.call is None and v.caller and v.caller not in unclear:
        calls.append([(v.caller, "miss"), (" (the caller) said nothing", None)])
    grab_line = _grab_line(v, penalised)
    penalties = [[(p["player"], "bad"), (f" gives {p.get('cards', 1)} card(s) to {p.get('to')}: "
                                          f"{why.get(p['player']) or _REASON.get(p.get('reason'), p.get('reason'))}", None)]
                 for p in v.penalties]
    b = v.bonus
    bonus = view.text(f"{b['player']} takes pile(s) {', '.join(map(str, b.get('piles', [])))} ({b.get('cards')} cards)"
                      + (" and a card from every other player" if b.get("from_players") else "")) if b else []
    hands = view.text(", ".join(f"{p} {n}" for p, n in v.hands.items()))
    status = {p: "ok" for p, call in v.calls.items() if call in accepted}
    if v.grab_winner:
        status[v.grab_winner] = "ok"
    if v.call is None and v.caller:
        status[v.caller] = "miss"
    status.update({p: "bad" for p in penalised})
    status.update({p: view.UNCLEAR for p in unclear})
    unsure = [[(p, view.UNCLEAR), (f": {why}", None)] for p, why in unclear.items()]
    if v.first_unclear:
        unsure.append([("token: its winner rests on an unclear observation; nobody takes the piles", None)])
    answered = [("the table's answers", view.text(", ".join(f"{p} {a}" for p, a in v.decided.items())))] \
        if v.decided else []
    card = f"{v.card} on pile {v.pile}"
    return view.VerdictView(
        title=card,
        columns=[("card", view.text(card)), ("tops", view.text(" ".join(v.tops))),
                 ("expected", view.text(expected)), ("calls", calls), ("token", [grab_line] if grab_line else []),
                 ("penalties", penalties), ("unclear", view.marked([(p, "") for p in unclear], view.UNCLEAR))],
        facts=[("pile tops", view.text(" ".join(v.tops))), ("expected call", view.text(expected)),
               ("calls", calls), ("token grabs", [grab_line] if grab_line else []), ("penalties", penalties)]
        + ([("unclear", unsure)] if unsure else []) + answered
        + [("bonus", bonus), (view.HEARD, None), ("play goes on with", view.text(v.next or "-")),
           ("cards in hand", hands)],
        status=status)


def _grab_line(v: PlayVerdict, penalised: set[str]) -> list:
    """The token grabs in time order, the winner marked."""
    line: list = []
    for k, (p, t) in enumerate(sorted(v.grabs.items(), key=lambda kv: (kv[1], kv[0]))):
        if k:
            line.append((", then ", None))
        line.append((p, "ok" if p == v.grab_winner else "bad" if p in penalised else None))
        line.append((f" +{t:.3f} s" + (" (wins the token)" if p == v.grab_winner else ""), None))
    return line

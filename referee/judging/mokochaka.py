"""Judging a MOKOCHAKA session: one verdict per played card, then the result.

How the record tells the referee the game (decisions where docs/record.md is silent):

- **Setup.** The leading ``card`` events *without* ``by`` (before the first card with
  ``by``) are the setup: the first card seen in zone ``pile0``/``pile1``/``pile2`` starts
  that pile, later ones are the leftovers stacked on it. At most ``3 + (32 - 3) mod
  players`` cards are setup (3 piles plus the deal's leftovers); the rest of the deck is
  dealt equally face down. A record with a different number of setup cards is judged
  anyway, with a warning (the hand counts may then be off).
- **Plays.** Every later ``card`` event with a ``pileN`` zone is one play; ``by`` names
  the player. A play without ``by`` (or with an unknown ``by``) is the player whose turn
  it is; a play by another player is followed (the record is what happened) with a
  warning. A card not in the game, or a card outside the piles, is a warning and ignored.
- **Reactions.** ``shout`` and ``grab`` events belong to the latest play at or before
  them. A shout's call is its words run together when that is a call (``["paka",
  "moko"]`` -> ``pakamoko``), else its first word that is a call; shouts without a
  call word are ignored. Unattributed shouts are a warning and ignored.
- **Ties.** Touches of the token at the same time: a ``decision`` event in that play
  (``first``) goes first; otherwise turn order starting from the player who played.
- **Choices.** In the play's window: ``{"action": "penalty", "player": P, "to": R}``
  (P's penalty card goes to R) and ``{"action": "piles", "player": W, "piles": [0, 2]}``
  (the token winner's piles); anywhere: ``{"action": "gabu", "player": P, "count": n}``
  (the last one per player counts). Invalid choices are warnings; the default policy
  applies instead.
- **End.** The ``end`` event or the end of the record; later events are ignored. A play
  whose 3 s have not elapsed when the record ends is judged on what was seen.

All times in a verdict are relative to the card (rounded to the microsecond, so the
verdicts do not depend on the session clock's origin); ``t`` is the card's own time.
"""

from __future__ import annotations

from typing import Any, Iterator

from session.errors import IllegalAction, RulesError
from session.events import CardEvent, ChoiceEvent, DecisionEvent, EndEvent, GrabEvent, ShoutEvent
from rules.mokochaka import GAME, N_PILES, DeclareGabu, Play, Resolve, Setup, Shout, Touch, card_id, is_call_token


def _rt(x: float) -> float:
    return round(x, 6)


def call_token(words: tuple[str, ...]) -> str | None:
    """The call in one shout's words: all words run together if that is a call, else the first call word."""
    joined = "".join(words)
    if joined and is_call_token(joined):
        return joined
    return next((w for w in words if is_call_token(w)), None)


def _pile(zone: str | None) -> int | None:
    if zone and zone.startswith("pile") and zone[4:].isdigit() and int(zone[4:]) < N_PILES:
        return int(zone[4:])
    return None


def judge(session) -> Iterator[dict[str, Any]]:
    players = session.players
    state = GAME.new_state(players, options=session.options, hidden=True)
    events = list(session.events)
    for i, ev in enumerate(events):
        if isinstance(ev, EndEvent):
            if i + 1 < len(events):
                session.warn(f"{len(events) - i - 1} event(s) after the end event at t={ev.t:g} ignored", ev)
            events = events[:i]
            break

    # the setup: leading card events without `by`
    setup_max = N_PILES + (len(state.deck) - N_PILES) % len(players)
    piles: list[list[str]] = [[] for _ in range(N_PILES)]
    setup_ids: set[int] = set()
    for i, ev in enumerate(events):
        if not isinstance(ev, CardEvent):
            continue
        if ev.by is not None or len(setup_ids) >= setup_max:
            break
        setup_ids.add(i)
        pile = _pile(ev.zone)
        try:
            cid = card_id(ev.card)
        except RulesError as exc:
            session.warn(f"setup card at t={ev.t:g}: {exc}; ignored", ev)
            continue
        if pile is None:
            session.warn(f"setup card {cid} at t={ev.t:g} is in zone {ev.zone!r}, not pile0-pile2; ignored", ev)
            continue
        piles[pile].append(cid)
    shown = sum(map(len, piles))
    remaining = len(state.deck) - shown
    per, extra = divmod(remaining, len(players))
    if shown != setup_max or extra:
        session.warn(
            f"the record shows {shown} setup card(s) on the piles; a {len(players)}-player deal of "
            f"{len(state.deck)} cards leaves {setup_max}: hand counts may be off")
    hands = tuple((None,) * (per + (1 if k < extra else 0)) for k in range(len(players)))
    state.apply(Setup(tuple(tuple(p) for p in piles), hands, strict=False))

    # the plays and their windows
    plays: list[int] = []
    for i, ev in enumerate(events):
        if isinstance(ev, CardEvent) and i not in setup_ids:
            try:
                cid = card_id(ev.card)
            except RulesError as exc:
                session.warn(f"t={ev.t:g}: {exc}; ignored", ev)
                continue
            if _pile(ev.zone) is None:
                session.warn(f"card {cid} at t={ev.t:g} is in zone {ev.zone!r}, not pile0-pile2; ignored", ev)
                continue
            plays.append(i)
    gabu: dict[str, int] = {}
    for ev in events:
        if isinstance(ev, ChoiceEvent) and ev.action == "gabu":
            if ev.player not in players:
                session.warn(f"gabu count for unknown player {ev.player!r} at t={ev.t:g} ignored", ev)
            else:
                gabu[ev.player] = ev.get("count")
    first_play = plays[0] if plays else len(events)
    for ev in events[:first_play]:
        if isinstance(ev, (ShoutEvent, GrabEvent)):
            session.warn(f"{ev.type} at t={ev.t:g} before the first play ignored", ev)

    for k, i in enumerate(plays):
        ev = events[i]
        window = events[i + 1: plays[k + 1] if k + 1 < len(plays) else len(events)]
        if state.is_over:
            session.warn(f"card {ev.card} at t={ev.t:g} after the game ended (someone played their last card); ignored", ev)
            continue
        verdict = _judge_play(session, state, ev, window)
        if verdict is not None:
            yield verdict

    for p in players:
        if p in gabu:
            try:
                state.apply(DeclareGabu(p, gabu[p]))
            except IllegalAction as exc:
                session.warn(f"gabu count ignored: {exc}")
    result = state.result()
    yield {"type": "result", **result}


def _judge_play(session, state, ev: CardEvent, window: list) -> dict[str, Any] | None:
    players = state.players
    cid, pile = card_id(ev.card), _pile(ev.zone)  # both validated when the plays were found
    player = ev.by
    if player is not None and player not in players:
        session.warn(f"card {cid} at t={ev.t:g} played by unknown player {player!r}: taken as {state.to_play}'s", ev)
        player = None
    if player is None:
        player = state.to_play
    if not state.hands[player]:
        session.warn(f"card {cid} at t={ev.t:g}: {player} holds no cards by the referee's count; ignored", ev)
        return None
    try:
        played = state.apply(Play(player, pile, cid, strict=False))
    except IllegalAction as exc:
        session.warn(f"card {cid} at t={ev.t:g}: {exc}; ignored", ev)
        return None
    for note in played.details["notes"]:
        session.warn(f"t={ev.t:g}: {note}", ev)

    calls: list[Shout] = []
    grabs: list[tuple[float, str]] = []
    tie_first: str | None = None
    penalty_to: dict[str, str] = {}
    chosen_piles = None
    for w in window:
        dt = _rt(w.t - ev.t)
        if isinstance(w, ShoutEvent):
            if w.player is None:
                session.warn(f"unattributed shout {' '.join(w.words)!r} at t={w.t:g} ignored", w)
            elif w.player not in players:
                session.warn(f"shout by unknown player {w.player!r} at t={w.t:g} ignored", w)
            else:
                token = call_token(w.words)
                if token is not None:
                    calls.append(Shout(w.player, token, dt))
        elif isinstance(w, GrabEvent):
            if w.player not in players:
                session.warn(f"grab by unknown player {w.player!r} at t={w.t:g} ignored", w)
            else:
                grabs.append((dt, w.player))
        elif isinstance(w, DecisionEvent):
            if w.first in players:
                tie_first = w.first
            else:
                session.warn(f"decision for unknown player {w.first!r} at t={w.t:g} ignored", w)
        elif isinstance(w, ChoiceEvent):
            if w.action == "penalty":
                to = w.get("to")
                if w.player in players and to in players and to != w.player:
                    penalty_to[w.player] = to
                else:
                    session.warn(f"penalty choice at t={w.t:g} ({w.player!r} -> {to!r}) names no valid players; ignored", w)
            elif w.action == "piles":
                value = w.get("piles")
                if isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
                    chosen_piles = (w.player, tuple(value))
                else:
                    session.warn(f"piles choice at t={w.t:g} must list pile numbers, got {value!r}; ignored", w)
            elif w.action != "gabu":
                session.warn(f"choice {w.action!r} at t={w.t:g} is not a MOKOCHAKA choice; ignored", w)

    active = state.active
    order = {p: (players.index(p) - players.index(active)) % len(players) for p in players}
    if tie_first is not None:
        order[tie_first] = -1
    touches = tuple(Touch(p, dt) for dt, p in sorted(grabs, key=lambda g: (g[0], order[g[1]])))
    pile_choice = chosen_piles[1] if chosen_piles else None
    action = Resolve(tuple(calls), touches, tuple(sorted(penalty_to.items())), pile_choice)
    try:
        out = state.apply(action)
    except IllegalAction as exc:
        session.warn(f"card {cid} at t={ev.t:g}: choice ignored ({exc})", ev)
        out = state.apply(Resolve(tuple(calls), touches, tuple(sorted(penalty_to.items())), None))
    d = out.details
    if chosen_piles and d["grab_winner"] and chosen_piles[0] not in (None, d["grab_winner"]):
        session.warn(f"t={ev.t:g}: piles chosen by {chosen_piles[0]}, but {d['grab_winner']} won the token", ev)
    if chosen_piles and not d["grab_winner"]:
        session.warn(f"t={ev.t:g}: piles choice ignored, nobody won the token", ev)
    penalised = {p["player"] for p in d["penalties"]}
    for who in sorted(set(penalty_to) - penalised):
        session.warn(f"t={ev.t:g}: penalty choice for {who}, who was not penalised; ignored", ev)

    first_touch: dict[str, float] = {}
    for g in touches:
        first_touch.setdefault(g.player, g.dt)
    margin = None
    if d["grab_winner"] is not None:
        won = first_touch[d["grab_winner"]]
        later = [dt for p, dt in first_touch.items() if p != d["grab_winner"] and dt >= won]
        margin = _rt(min(later) - won) if later else None
    first_calls = d["calls"]  # the call that counts for each player (the rules decide)
    call = played.details["call"]
    return {
        "type": "verdict", "t": ev.t, "card": cid, "pile": pile, "by": player,
        "tops": call["tops"], "caller": d["caller"], "call": d["call"],
        "accepted": d["accepted"], "special": d["special"], "ok": d["ok"], "late": d["late"],
        "grab_winner": d["grab_winner"], "margin": margin,
        "grabs": {p: first_touch[p] for p in players if p in first_touch},
        "penalties": [
            {"player": p["player"], "reason": p["reason"], "reasons": p["reasons"], "t": _rt(ev.t + p["dt"]),
             "to": p["to"],
             "cards": p["cards"], **({"chosen": True} if p["chosen"] else {})}
            for p in d["penalties"]
        ],
        "bonus": d["bonus"],
        "calls": {p: c["call"] for p, c in first_calls.items()},
        "times": {p: round(c["dt"], 3) for p, c in first_calls.items()},
        "why": {p: d["why"][p] for p in players if p in d["why"]},
        "next": d["next"], "hands": d["hands"],
    }


# ----------------------------------------------------------------------------- for people

def _reaction(v: dict[str, Any]) -> str:
    parts = []
    if v["call"] is None:
        parts.append(f"{v['caller']} said nothing")
    else:
        t = v["times"].get(v["caller"])
        parts.append(f"{v['caller']} said {v['call']}" + (f" +{t:.2f} s" if t is not None else ""))
    if v["grab_winner"]:
        w = v["grab_winner"]
        margin = f", {w} +{v['margin']:.3f} s" if v["margin"] is not None else ""
        parts.append(f"token: {w} ({v['calls'].get(w, '?')}{margin})")
    return "; ".join(parts)


_STATUS = {"wrong_call": "WRONG", "late": "LATE", "no_call": "NO CALL", "stuck": "STUCK"}


def _status(v: dict[str, Any]) -> str:
    if v["ok"]:
        return "ok"
    mine = next((p for p in v["penalties"] if p["player"] == v["caller"]), None)
    codes = [c for c in (mine["reasons"] if mine else []) if c in _STATUS]
    return _STATUS[codes[0]] if codes else "WRONG"


def format_table(judgement, header) -> str:
    """The verdicts and the scoreboard as a plain-text table."""
    rows = [("t", "card", "pile", "tops", "expected", "reaction", "ok")]
    notes_per_row: list[list[str]] = []
    result = None
    for obj in judgement.lines:
        if obj.get("type") == "result":
            result = obj
            continue
        if obj.get("type") != "verdict":
            continue
        rows.append((f"{obj['t']:.2f}", obj["card"], str(obj["pile"]), " ".join(obj["tops"]),
                     " | ".join(obj["accepted"]) + (" *" if obj["special"] else ""), _reaction(obj),
                     _status(obj)))
        notes = []
        for p in obj["penalties"]:
            why = obj["why"].get(p["player"], p["reason"])
            notes.append(f"penalty: {p['player']} gives {p['cards']} card(s) to {p['to']} - {why}")
        if obj["bonus"]:
            b = obj["bonus"]
            extra = f" + 1 card from each of {', '.join(b['from_players'])}" if b["from_players"] else ""
            notes.append(f"bonus: {b['player']} takes pile(s) {', '.join(map(str, b['piles']))} ({b['cards']} cards){extra}")
        notes_per_row.append(notes)
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    out = ["  ".join(cell.ljust(w) for cell, w in zip(rows[0], widths)).rstrip()]
    for row, notes in zip(rows[1:], notes_per_row):
        out.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        out.extend("      " + n for n in notes)
    out.append("(* = special call: everyone grabs the token)")
    if result is not None:
        out.append("")
        state = "game over" if result["over"] else "game not finished: standing when the record ends"
        who = f", {result['ended_by']} played their last card" if result.get("ended_by") else ""
        out.append(f"Result ({state}{who})")
        for p in result["hands"]:
            g = result["gabu"][p]
            gabu = "?" if g is None else str(g)
            star = "  <- winner" if p in result["winners"] else ""
            out.append(f"  {p:10} hand {result['hands'][p]:3}  gabu {gabu:>2}  counts {result['scores'][p]:3}{star}")
        if result.get("note"):
            out.append(f"  note: {result['note']}")
        out.append(f"Winners: {', '.join(result['winners'])}")
    return "\n".join(out)

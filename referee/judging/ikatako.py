"""Judging an IKATAKO session: one verdict per revealed card, then the result.

The events arrive in canonical order (``referee.judge``). Every card event opens a
**reaction window** that lasts ``window`` seconds and ends early at the next card (or at
the ``end`` event). Time is handled in integer microseconds, so shifting a whole record
by a constant cannot change a comparison; times in the output are rounded to ms.

Versus, per player (docs/rules.md, IKATAKO):

* the raised hands are the hands that go up inside the window, plus a hand that was
  already up at the reveal and is still up at the player's first utterance (or at the
  end of the window): that one is an extra hand, and a required hand must come down and
  go up again to count. An ``up`` while the hand is already up is not a new raise;
* the utterance is the player's first shout in the window; later ones are ignored;
* **correct**: exactly the required hands and exactly the required words; **missed**:
  nothing new (no hand going up, no shout) when a reaction was required; **wrong**:
  anything else, with a reason in ``why``. A hand left up from the previous card is
  not a reaction on its own (decision: so it is not "reacting to a trouble card");
* reaction time = the later of the last required hand going up and the utterance onset;
  correct players within ``tie_ms`` (inclusive) of the fastest are tied, and a
  ``decision`` event before the next card names who takes it (the last valid decision
  wins); without one the tie is ``unsettled`` and the card is discarded;
* ``choice`` events before the next card: ``penalty`` (a wrong/missed player names the
  point card to turn down), ``uzushio`` / ``salvage`` (the taker's effect).

Co-op/solo: only the active player counts (``by`` of the card event, else the turn order
with its uzushio reversals). A declaration may span utterances ("ika" … "12", as the
rulebook says: do the action, then declare), read until it has as many tokens as
required; it must match them exactly, with exactly the required hands, inside the window
(``three_count`` caps the window at 3 s).

Bad input never stops the judging: unattributed shouts, events naming players who are
not at the table, cards the deck lacks or cannot hold any more, and choices the rules do
not allow become warnings. A card the deck lacks still closes the previous card's window
(something was flipped), but gets no verdict.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterator

from session.errors import RulesError
from session.events import (CardEvent, ChoiceEvent, DecisionEvent, EndEvent, Event, HandEvent,
                            ShoutEvent)
from rules import ikatako as rk

SIDES = ("left", "right")
US = 1_000_000


def us(t: float) -> int:
    """Seconds → integer microseconds (the judge's one time unit)."""
    return round(t * US)


def sec(t_us: int) -> float:
    """Integer microseconds → seconds rounded to the millisecond."""
    return round(t_us / 1000) / 1000


@dataclass
class Slot:
    """One card event and the events that follow it until the next card or the end."""

    card: CardEvent
    t0: int
    stop: int | None  # next card / end, exclusive; None: the record's last events
    events: list[Event] = field(default_factory=list)


@dataclass
class Act:
    """What one player did in one window."""

    ups: dict[str, int] = field(default_factory=dict)  # side -> first time it went up
    stale: set[str] = field(default_factory=set)  # sides up at the reveal
    downs: dict[str, int] = field(default_factory=dict)  # side -> first time it came down
    shouts: list[ShoutEvent] = field(default_factory=list)

    def did_something(self) -> bool:
        return bool(self.ups) or bool(self.shouts)

    def stale_raised(self, moment: int) -> set[str]:
        """Sides that were up at the reveal and still up at ``moment`` (not raised anew)."""
        return {s for s in self.stale if s not in self.ups and (s not in self.downs or self.downs[s] > moment)}


def _words(words: tuple[str, ...] | list[str]) -> str:
    """What a player said, for ``why`` (an utterance without tokens was not understood)."""
    return " ".join(words) if words else "something unrecognised"


def _hands_text(sides: set[str] | frozenset[str]) -> str:
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


class _Reader:
    """Splits the ordered events into card slots, dropping (with warnings) what cannot count."""

    def __init__(self, session):
        self.session = session
        self.players = set(session.players)
        self.prelude: list[Event] = []
        self.slots: list[Slot] = []
        self._unknown: dict[str, list[float]] = defaultdict(list)
        self._unattributed: list[float] = []
        self._after_end = 0
        self._read()

    def _known(self, ev: Event, name: str | None) -> bool:
        if name in self.players:
            return True
        self._unknown[str(name)].append(ev.t)
        return False

    def _read(self) -> None:
        ended = False
        for ev in self.session.events:
            if ended:
                self._after_end += 1
                continue
            if isinstance(ev, EndEvent):
                ended = True
                if self.slots and self.slots[-1].stop is None:
                    self.slots[-1].stop = us(ev.t)
                continue
            if isinstance(ev, ShoutEvent) and ev.player is None:
                self._unattributed.append(ev.t)
                continue
            if isinstance(ev, (HandEvent, ShoutEvent)) and not self._known(ev, ev.player):
                continue
            if isinstance(ev, DecisionEvent) and not self._known(ev, ev.first):
                continue
            if isinstance(ev, ChoiceEvent) and not self._known(ev, ev.player):
                continue
            if isinstance(ev, CardEvent):
                t0 = us(ev.t)
                if self.slots and self.slots[-1].stop is None:
                    self.slots[-1].stop = t0
                self.slots.append(Slot(ev, t0, None))
                continue
            (self.slots[-1].events if self.slots else self.prelude).append(ev)
        warn = self.session.warn
        for name, times in sorted(self._unknown.items()):
            warn(f"{len(times)} event(s) name {name!r}, who is not at the table "
                 f"({', '.join(self.session.players)}); first at t={times[0]:.3f} s; ignored")
        if self._unattributed:
            warn(f"{len(self._unattributed)} unattributed shout(s) (player null) ignored; "
                 f"first at t={self._unattributed[0]:.3f} s")
        if self._after_end:
            warn(f"{self._after_end} event(s) after the 'end' event ignored")


class _Hands:
    """Every player's hands (their own sides), up or down, through the whole session."""

    def __init__(self, players):
        self.up = {p: {s: False for s in SIDES} for p in players}

    def update(self, ev: HandEvent) -> bool:
        """Apply a hand event; True when it is a new raise (the hand was down)."""
        was = self.up[ev.player][ev.side]
        self.up[ev.player][ev.side] = ev.state == "up"
        return ev.state == "up" and not was


def _collect(slot: Slot, players, hands: _Hands, window_end: int) -> dict[str, Act]:
    """Each player's raises, lowerings and shouts inside the window; updates ``hands``."""
    acts = {p: Act(stale={s for s in SIDES if hands.up[p][s]}) for p in players}
    for ev in slot.events:
        t = us(ev.t)
        inside = t <= window_end
        if isinstance(ev, HandEvent):
            new_raise = hands.update(ev)
            if not inside:
                continue
            act = acts[ev.player]
            if new_raise:
                act.ups.setdefault(ev.side, t)
            elif ev.state == "down":
                act.downs.setdefault(ev.side, t)
        elif isinstance(ev, ShoutEvent) and inside:
            acts[ev.player].shouts.append(ev)
    return acts


def _hand_problem(act: Act, required: frozenset[str], moment: int) -> str | None:
    """Why the hands are wrong (None when exactly the required hands went up)."""
    stale = act.stale_raised(moment)
    raised = set(act.ups) | stale
    if raised != set(required):
        text = f"raised {_hands_text(raised)}"
        if stale:
            text += f" ({_hands_text(stale)} still up from before)"
        return f"{text}, expected {_hands_text(required)}"
    if stale & required:
        return (f"{_hands_text(stale & required)} was already up when the card appeared "
                "(it must come down and go up again)")
    return None


def _window(slot: Slot, seconds: float) -> int:
    end = slot.t0 + us(seconds)
    return end if slot.stop is None else min(end, slot.stop)


# ----------------------------------------------------------------------------- versus


def _judge_card_versus(session, slot: Slot, reveal, state, hands, players):
    """The verdict of one versus card (and the state advanced past it)."""
    opts = session.options
    cid = reveal["card"]
    troubles = reveal["troubles"]
    expected = rk.expected_reaction(cid, troubles)
    window_end = _window(slot, opts["window"])
    acts = _collect(slot, players, hands, window_end)
    correct: dict[str, int] = {}
    wrong: dict[str, str] = {}
    missed: dict[str, str] = {}
    for p in players:
        act = acts[p]
        shout = act.shouts[0] if act.shouts else None
        moment = us(shout.t) if shout else window_end
        if not expected.required:
            if act.did_something():
                did = []
                if act.ups:
                    did.append(f"raised {_hands_text(set(act.ups))}")
                if shout:
                    did.append(f"said {_words(shout.words)}")
                wrong[p] = f"reacted to the trouble card {cid} ({', '.join(did)}); no reaction was due"
            continue
        if not act.did_something():
            missed[p] = f"no reaction within {opts['window']:g} s"
            continue
        problems = []
        hand_problem = _hand_problem(act, expected.sides, moment)
        if hand_problem:
            problems.append(hand_problem)
        if shout is None:
            problems.append(f"said nothing, expected {' '.join(expected.say)}")
        elif shout.words != expected.say:
            problems.append(f"said {_words(shout.words)}, expected {' '.join(expected.say)}")
        if problems:
            wrong[p] = "; ".join(problems)
            continue
        correct[p] = max([us(shout.t)] + [act.ups[s] for s in expected.sides]) - slot.t0
    order = sorted(correct, key=lambda p: (correct[p], players.index(p)))
    fastest = correct[order[0]] if order else 0
    tied = [p for p in order if correct[p] - fastest <= round(opts["tie_ms"] * 1000)]
    tie = tied if len(tied) > 1 else []
    first = order[0] if order and not tie else None
    decision = None
    penalty_choices: dict[str, str] = {}
    effects: list[ChoiceEvent] = []
    for ev in slot.events:
        if isinstance(ev, DecisionEvent):
            if not tie:
                session.warn(f"decision for {ev.first!r} at t={ev.t:.3f} s, but card {cid} "
                             f"(t={sec(slot.t0):.3f} s) has no tie; ignored", ev)
            elif ev.first not in tie:
                session.warn(f"decision for {ev.first!r} at t={ev.t:.3f} s, who is not in the tie "
                             f"({', '.join(tie)}) on card {cid}; ignored", ev)
            else:
                decision = ev.first
        elif isinstance(ev, ChoiceEvent):
            if ev.action == "penalty":
                card = ev.get("card")
                if ev.player not in wrong and ev.player not in missed:
                    session.warn(f"penalty choice by {ev.player} at t={ev.t:.3f} s, who owes no penalty "
                                 f"on card {cid}; ignored", ev)
                elif card not in state.points[ev.player]:
                    session.warn(f"penalty choice at t={ev.t:.3f} s: {ev.player} holds no point card "
                                 f"{card!r}; the {opts['penalty_card']} one is turned down", ev)
                else:
                    penalty_choices[ev.player] = card
            elif ev.action in ("uzushio", "salvage"):
                effects.append(ev)
            else:
                session.warn(f"choice {ev.action!r} at t={ev.t:.3f} s means nothing in IKATAKO; ignored", ev)
    if tie and decision is not None:
        first = decision
    outcome = state.apply(rk.ReactionOutcome(
        first,
        wrong=tuple(p for p in players if p in wrong),
        missed=tuple(p for p in players if p in missed),
        penalty_choices=tuple(sorted(penalty_choices.items())),
    ))
    applied = []
    for ev in effects:
        choice = rk.Choice(ev.player, ev.action, to=ev.get("to"), penalty=ev.get("penalty"), card=ev.get("card"))
        try:
            out = state.apply(choice)
        except RulesError as exc:
            session.warn(f"{ev.action} choice at t={ev.t:.3f} s ignored: {exc}", ev)
            continue
        applied.append({"action": out.kind, **out.details})
    if state.pending_effect is not None and state.current is None:
        state.apply(rk.SkipEffect())
    why = {p: wrong[p] if p in wrong else missed[p] for p in players if p in wrong or p in missed}
    return {
        "type": "verdict",
        "t": sec(slot.t0),
        "card": cid,
        "by": reveal.get("by"),
        "expected": expected.to_dict(),
        "troubles": list(troubles),
        "first": first,
        "tie": tie,
        "correct": order,
        "wrong": [p for p in players if p in wrong],
        "missed": [p for p in players if p in missed],
        "times": {p: sec(correct[p]) for p in order},
        "margin": sec(correct[order[1]] - correct[order[0]]) if len(order) > 1 else None,
        "why": why,
        "unsettled": bool(tie) and first is None,
        "taken_by": outcome.details.get("taken_by"),
        "discarded": outcome.kind == "discarded",
        "penalties": dict(outcome.details.get("penalties", {})),
        "effects": applied,
    }


def _start(session, players: list[str]) -> tuple["_Reader", "_Hands"]:
    """The record cut into card slots, and the hands as they stand before the first card."""
    reader = _Reader(session)
    hands = _Hands(players)
    for ev in reader.prelude:
        if isinstance(ev, HandEvent):
            hands.update(ev)
    return reader, hands


def _flipper(session, slot) -> str | None:
    """Who flipped the slot's card, when the record names a player at the table."""
    by = slot.card.by if slot.card.by in session.players else None
    if slot.card.by is not None and by is None:
        session.warn(f"card {slot.card.card!r} at t={slot.card.t:.3f} s was flipped by "
                     f"{slot.card.by!r}, who is not at the table; 'by' ignored", slot.card)
    return by


def _judge_versus(session) -> Iterator[dict[str, Any]]:
    players = list(session.players)
    state = rk.GAME.new_state(players, "versus", session.options)
    state.apply(rk.Remove(None))
    reader, hands = _start(session, players)
    for slot in reader.slots:
        by = _flipper(session, slot)
        try:
            rk.check_card(slot.card.card)
            out = state.apply(rk.Reveal(slot.card.card, by))
        except RulesError as exc:
            session.warn(f"card {slot.card.card!r} at t={slot.card.t:.3f} s: {exc}; no verdict", slot.card)
            _collect(slot, players, hands, -1)  # keep the hands' state
            continue
        yield _judge_card_versus(session, slot, dict(out.details), state, hands, players)
    yield {"type": "result", "mode": "versus", **state.result()}


# ----------------------------------------------------------------------------- co-op / solo


def _judge_card_coop(session, slot: Slot, state, hands, players, seconds: float):
    player = state.active_player
    expected = state.expected()
    total = int(expected.say[-1])
    window_end = _window(slot, seconds)
    act = _collect(slot, players, hands, window_end)[player]
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
        hand_problem = _hand_problem(act, expected.sides, moment)
        if hand_problem:
            problems.append(hand_problem)
        if not act.shouts:
            problems.append(f"said nothing, expected {' '.join(expected.say)}")
        elif tuple(tokens) != expected.say:
            problems.append(f"said {_words(tokens)}, expected {' '.join(expected.say)}")
    for ev in slot.events:
        if isinstance(ev, (DecisionEvent, ChoiceEvent)):
            session.warn(f"{ev.type} at t={ev.t:.3f} s means nothing in {state.mode}; ignored "
                         "(effects follow a correct declaration by themselves)", ev)
    ok = not problems
    out = state.apply(rk.Declare(ok))
    time = max([done_at] + [act.ups[s] for s in expected.sides]) - slot.t0 if ok else None
    return {
        "type": "verdict",
        "t": sec(slot.t0),
        "card": rk.check_card(slot.card.card),
        "player": player,
        "expected": expected.to_dict(),
        "ok": ok,
        "total": total,
        "time": None if time is None else sec(time),
        "why": None if ok else "; ".join(problems),
        "effect": out.details.get("effect"),
        "miss_piles": len(state.miss_piles),
    }


def _judge_coop(session, mode: str) -> Iterator[dict[str, Any]]:
    players = list(session.players)
    state = rk.GAME.new_state(players, mode, session.options)
    seconds = session.options["window"]
    if session.options["three_count"]:
        seconds = min(seconds, rk.THREE_COUNT_S)
    reader, hands = _start(session, players)
    for slot in reader.slots:
        by = _flipper(session, slot)
        if state.is_over:
            session.warn(f"card {slot.card.card!r} at t={slot.card.t:.3f} s comes after the game is over; no verdict", slot.card)
            _collect(slot, players, hands, -1)
            continue
        try:
            rk.check_card(slot.card.card)
            state.apply(rk.Reveal(slot.card.card, by))
        except RulesError as exc:
            session.warn(f"card {slot.card.card!r} at t={slot.card.t:.3f} s: {exc}; no verdict", slot.card)
            _collect(slot, players, hands, -1)
            continue
        yield _judge_card_coop(session, slot, state, hands, players, seconds)
    yield {"type": "result", "mode": mode, **state.result()}


def judge(session) -> Iterator[dict[str, Any]]:
    """Verdicts (one per card) and one result, as docs/record.md shapes them."""
    mode = session.header.mode or "versus"
    if mode not in rk.GAME.modes:
        raise RulesError(f"unknown IKATAKO mode {mode!r} (modes: {', '.join(rk.GAME.modes)})")
    if mode == "versus":
        yield from _judge_versus(session)
    else:
        yield from _judge_coop(session, mode)


# ----------------------------------------------------------------------------- the table


def _first_cell(v: dict[str, Any]) -> str:
    if not v["expected"]["say"] and v["expected"]["hands"] == "none":
        return "(trouble: stays in the field)"
    if v["tie"]:
        tied = "/".join(v["tie"])
        if v["first"] is None:
            return f"tie {tied}: unsettled, discarded"
        return f"{v['first']} (tie {tied}, decided)"
    if v["first"] is None:
        return "nobody: discarded"
    if v["margin"] is not None:
        return f"{v['first']} +{v['margin']:.3f} s"
    return f"{v['first']} (only one right)"


def _table_versus(lines, header) -> str:
    verdicts = [v for v in lines if v.get("type") == "verdict"]
    result = next((v for v in lines if v.get("type") == "result"), None)
    out = []
    cols = f"{'#':>3}  {'t (s)':>8}  {'card':<9} {'expected':<22} {'first':<34} wrong / missed"
    out += [cols, "-" * len(cols)]
    for i, v in enumerate(verdicts, 1):
        lead = (f"{i:>3}  {v['t']:>8.3f}  {v['card']:<9} {describe_expected(v['expected']):<22} "
                f"{_first_cell(v):<34} ")
        notes = [f"{p} wrong: {v['why'][p]}" for p in v["wrong"]]
        if v["missed"]:
            notes.append(f"missed: {', '.join(v['missed'])}")
        for p, card in v["penalties"].items():
            if card:
                notes.append(f"{p} turns down {card}")
        for e in v.get("effects", []):
            if e["action"] == "salvage":
                notes.append(f"{e['player']} salvages {e['card']}")
            else:
                notes.append(f"{e['player']} uzushio: {e['card']} to {e['to']} as a penalty")
        out.append(lead + (notes[0] if notes else "-"))
        out += [" " * len(lead) + n for n in notes[1:]]
    if result:
        out += ["", "Scoreboard" + ("" if result.get("finished") else
                                     f" (record ends with {result.get('cards_left')} card(s) left)")]
        out.append(f"  {'player':<10} {'points':>6} {'penalties':>9} {'score':>6}")
        for p, score in result["scores"].items():
            tag = " winner" if p in result["winners"] else (" sunk" if p in result["sunk"] else "")
            out.append(f"  {p:<10} {result['points'][p]:>6} {result['penalties'][p]:>9} {score:>6}{tag}")
    return "\n".join(out)


def _table_coop(lines, mode) -> str:
    verdicts = [v for v in lines if v.get("type") == "verdict"]
    result = next((v for v in lines if v.get("type") == "result"), None)
    cols = f"{'#':>3}  {'t (s)':>8}  {'player':<10} {'card':<9} {'expected':<24} {'ok':<4} {'time':>7}  note"
    out = [cols, "-" * len(cols)]
    for i, v in enumerate(verdicts, 1):
        reversed_note = "uzushio: order reversed" if mode != "solo" else ""
        note = v["why"] or (reversed_note if v["effect"] == "reversed" else
                            "salvage: oldest miss pile back under the deck" if v["effect"] == "salvaged" else "")
        if not v["ok"]:
            note = f"MISS ({v['miss_piles']} pile(s)): {note}"
        time = f"{v['time']:.3f}" if v["time"] is not None else "-"
        out.append(f"{i:>3}  {v['t']:>8.3f}  {v['player']:<10} {v['card']:<9} "
                   f"{describe_expected(v['expected']):<24} {'yes' if v['ok'] else 'NO':<4} {time:>7}  {note}")
    if result:
        state = ("cleared" if result["cleared"] else "sunk: game over" if result["sunk"]
                 else f"record ends with {result['cards_left']} card(s) left")
        out += ["", f"Result: {state} · score {result['score']} · miss piles {result['miss_piles']}"]
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

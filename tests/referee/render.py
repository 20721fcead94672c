"""Random legal games rendered as session records, for the judging conformance test.

Each game is played by its rules module (``state.random_action`` with a seeded
``random.Random``) and written as the events perception would report, with plausible
times: the cards as they appear, hands and shouts with reaction times, token grabs, the
table's decisions and choices, and (for the turn-based games) the declarations the judge
reads. Beside the record, the renderer keeps what the rules say each verdict and the
result must be (``Rendered.verdicts`` / ``Rendered.result``: the fields the rules fix), so
a test can check that the judge reaches the rules' outcome from the events alone.

Where a drawn action cannot be shown by events the judge reads, the renderer plays a
close legal one instead and says so here:
- IKATAKO versus: "nobody takes it" with exactly one correct player is shown as that
  player taking it (one correct reaction is always first); an unsettled tie is two correct
  players 0-20 ms apart with no decision; a decided tie adds a ``decision`` event.
- MOKOCHAKA: a touch drawn before the card was placed (``dt`` < 0) touches as it lands
  (``dt`` 0); touches at one instant go in turn order from the active player (the judge's
  order); a penalty receiver choice is shown only for a player who is penalised.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass, field, replace
from typing import Any

import rules
from session.order import sort_key
from session.record import Record, parse_lines

PLAYERS = ("aki", "ben", "chie", "dai")


def r3(x: float) -> float:
    return round(x, 3)


@dataclass
class Rendered:
    """A rendered game: the record's header and events, and what the rules say."""

    header: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    verdicts: list[dict[str, Any]] = field(default_factory=list)  # per verdict: the fields the rules fix
    result: dict[str, Any] = field(default_factory=dict)  # the result's fields the rules fix

    def lines(self, canonical: bool = True) -> list[str]:
        """The record's lines: the header, then the events in canonical order (as the writer
        does) or, ``canonical=False``, in the order the renderer wrote them (per card: the
        card, then each player's reactions, player by player)."""
        events = sorted(self.events, key=sort_key) if canonical else self.events
        return [json.dumps(self.header)] + [json.dumps(e) for e in events]

    def record(self) -> Record:
        return parse_lines(self.lines())


def games() -> list[tuple[str, str]]:
    """Every registered game in every mode."""
    return [(name, mode) for name in rules.names() for mode in rules.get(name).modes]


def render(game: str, mode: str, seed: int) -> Rendered:
    rng = random.Random(f"{game}/{mode}/{seed}")
    out = RENDERERS[game](rng, mode)
    if rng.random() < 0.5:  # a record may close with ``end``
        last = max((e["t"] for e in out.events), default=0.0)
        out.events.append({"t": r3(last + 1.0), "type": "end"})
    return out


def _players(rng: random.Random, game: str, lo: int | None = None, hi: int = 4) -> list[str]:
    g = rules.get(game)
    return list(PLAYERS[: rng.randint(max(g.min_players, lo or 1), min(g.max_players, hi))])


def _header(game: str, mode: str | None, players, options) -> dict[str, Any]:
    h: dict[str, Any] = {"t": 0.0, "type": "session", "game": game}
    if mode is not None:
        h["mode"] = mode
    h.update(players=list(players), options=dict(options))
    return h


# ----------------------------------------------------------------------------- IKATAKO

def _ikatako(rng: random.Random, mode: str) -> Rendered:
    from rules import ikatako as rk
    if mode == "solo":
        players = ["aki"]
    else:
        players = _players(rng, "ikatako", lo=2)
    options: dict[str, Any] = {"window": 3.0}
    if mode != "versus" and rng.random() < 0.3:
        options["three_count"] = True
    out = Rendered(_header("ikatako", mode, players, options))
    state = rk.GAME.new_state(players, mode, options)
    return (_ikatako_versus if mode == "versus" else _ikatako_coop)(rng, rk, state, out)


def _react(ev: list, rng, t: float, player: str, hands, words) -> None:
    """Hands up just before the utterance at ``t``, down again 1.3-1.7 s later."""
    for side in sorted(hands):
        up = t - rng.uniform(0.03, 0.12) if words else t
        ev.append({"t": r3(up), "type": "hand", "player": player, "side": side, "state": "up"})
        ev.append({"t": r3(t + rng.uniform(1.3, 1.7)), "type": "hand", "player": player, "side": side,
                   "state": "down"})
    if words:
        ev.append({"t": r3(t), "type": "shout", "player": player, "words": list(words),
                   "t_end": r3(t + 0.3 * len(words))})


def _wrong_versus(rng, expected) -> tuple[frozenset, tuple]:
    """A reaction that is not the expected one: the wrong words or the wrong hands."""
    if rng.random() < 0.5:
        return expected.sides, ("3",) if expected.say == ("2",) else ("2",)
    other = {frozenset(): frozenset({"left"}), frozenset({"left"}): frozenset({"right"}),
             frozenset({"right"}): frozenset({"left"}), frozenset({"left", "right"}): frozenset({"left"})}
    return other[expected.sides], expected.say


def _ikatako_versus(rng, rk, state, out: Rendered) -> Rendered:
    ev, players = out.events, state.players
    t = 2.0
    card_t, expected = None, None
    while (action := state.random_action(rng)) is not None:
        if isinstance(action, rk.Remove):
            state.apply(rk.Remove(action.cards))  # removed unseen: no event
            continue
        if isinstance(action, rk.Reveal):
            d = state.apply(action).details
            card_t, t = t, r3(t + rng.uniform(4.5, 5.5))
            ev.append({"t": card_t, "type": "card", "card": d["card"], "zone": "field", "by": d["by"]})
            expected = rk.expected_reaction(d["card"], d["troubles"])
            continue
        if isinstance(action, (rk.Choice, rk.SkipEffect)):
            d = state.apply(action)
            if isinstance(action, rk.Choice):
                fields = {k: v for k, v in (("to", action.to), ("penalty", action.penalty), ("card", action.card))
                          if v is not None}
                ev.append({"t": r3(card_t + 3.6), "type": "choice", "player": action.player,
                           "action": action.action, **fields})
                out.verdicts[-1]["effects"].append({"action": d.kind, **d.details})
            continue
        # a ReactionOutcome: who was correct, wrong and missed, with times
        correct = [p for p in players if p not in action.wrong and p not in action.missed]
        if not expected.required:
            correct = []  # a trouble card: doing nothing is right, and nobody is "correct"
        if action.first is None and len(correct) == 1:
            action = replace(action, first=correct[0])
        for p in action.wrong:
            hands, words = (frozenset({"left"}), ()) if not expected.required else _wrong_versus(rng, expected)
            _react(ev, rng, card_t + rng.uniform(0.4, 2.0), p, hands, words)
        base = rng.uniform(0.45, 1.2)
        tie: list[str] = []
        if action.first is None and correct:  # an unsettled tie of the two fastest
            tie = rng.sample(correct, 2)
        elif action.first is not None and len(correct) > 1 and rng.random() < 0.3:  # a decided tie
            tie = [action.first, rng.choice([p for p in correct if p != action.first])]
            ev.append({"t": r3(card_t + 3.3), "type": "decision", "first": action.first})
        order = tie or ([action.first] if action.first else [])
        rest = [p for p in correct if p not in order]
        rng.shuffle(rest)
        for i, p in enumerate(order):
            _react(ev, rng, card_t + base + (0.0 if i == 0 else rng.uniform(0.0, 0.02)), p, expected.sides, expected.say)
        for p in rest:
            _react(ev, rng, card_t + base + rng.uniform(0.08, 1.0), p, expected.sides, expected.say)
        d = state.apply(action).details
        out.verdicts.append({"card": d["card"], "first": action.first,
                             "wrong": [p for p in players if p in action.wrong],
                             "missed": [p for p in players if p in action.missed],
                             "unsettled": action.first is None and bool(tie),
                             "taken_by": d.get("taken_by"), "penalties": d["penalties"], "effects": []})
    out.result = {"mode": "versus", **state.result()}
    return out


def _ikatako_coop(rng, rk, state, out: Rendered) -> Rendered:
    ev = out.events
    with_by = rng.random() < 0.5
    t = 1.5
    card_t = None
    while (action := state.random_action(rng)) is not None:
        if isinstance(action, rk.Reveal):
            d = state.apply(action).details
            card_t, t = t, r3(t + rng.uniform(3.6, 4.2))
            e = {"t": card_t, "type": "card", "card": d["card"], "zone": "field"}
            if with_by:
                e["by"] = d["player"]
            ev.append(e)
            continue
        expected, player = state.expected(), state.active_player
        onset = card_t + rng.uniform(0.5, 2.0)
        if action.ok:
            if len(expected.say) == 2 and rng.random() < 0.3:  # "ika" ... "12": the declaration in two utterances
                _react(ev, rng, onset, player, expected.sides, expected.say[:1])
                ev.append({"t": r3(onset + 0.5), "type": "shout", "player": player, "words": list(expected.say[1:])})
            else:
                _react(ev, rng, onset, player, expected.sides, expected.say)
        elif rng.random() < 0.5:  # a wrong total
            say = expected.say[:-1] + (str(int(expected.say[-1]) + 1),)
            _react(ev, rng, onset, player, expected.sides, say)
        d = state.apply(action).details
        out.verdicts.append({"player": player, "ok": action.ok, "total": int(expected.say[-1]),
                             "miss_piles": len(state.miss_piles), "effect": d.get("effect")})
    out.result = {"mode": state.mode, **state.result()}
    return out


# ----------------------------------------------------------------------------- MOKOCHAKA

def _mokochaka(rng: random.Random, mode: str) -> Rendered:
    from rules.mokochaka import Play, Setup, Touch
    players = _players(rng, "mokochaka", lo=2)
    options = {"window": 3.0, "grab_slack": 0.25}
    out = Rendered(_header("mokochaka", None, players, options))
    ev = out.events
    state = rules.get("mokochaka").new_state(players, options=options)
    setup = state.random_action(rng)
    assert isinstance(setup, Setup)
    state.apply(setup)
    t = 0.5
    for i, pile in enumerate(setup.piles):  # the piles' first cards, then the leftovers on them
        ev.append({"t": r3(t), "type": "card", "card": pile[0], "zone": f"pile{i}"})
        t += 0.1
    for i, pile in enumerate(setup.piles):
        for card in pile[1:]:
            ev.append({"t": r3(t), "type": "card", "card": card, "zone": f"pile{i}"})
            t += 0.1
    t = 2.0
    while not state.is_over:
        play = state.random_action(rng)
        assert isinstance(play, Play)
        state.apply(play)
        ev.append({"t": t, "type": "card", "card": play.card, "zone": f"pile{play.pile}", "by": play.player})
        resolve = state.random_action(rng)
        order = {p: (players.index(p) - players.index(state.active)) % len(players) for p in players}
        grabs = sorted((Touch(g.player, max(g.dt, 0.0)) for g in resolve.grabs), key=lambda g: (g.dt, order[g.player]))
        resolve = replace(resolve, grabs=tuple(grabs))
        penalised = {p["player"] for p in copy.deepcopy(state).apply(resolve).details["penalties"]}
        resolve = replace(resolve, penalty_to=tuple(x for x in resolve.penalty_to if x[0] in penalised))
        d = state.apply(resolve).details
        reactions = [{"t": r3(t + s.dt), "type": "shout", "player": s.player, "words": [s.call]} for s in resolve.calls]
        reactions += [{"t": r3(t + g.dt), "type": "grab", "player": g.player} for g in resolve.grabs]
        ev.extend(reactions)
        last = max([t + 3.0] + [e["t"] for e in reactions])
        for who, to in resolve.penalty_to:
            ev.append({"t": r3(last + 0.4), "type": "choice", "player": who, "action": "penalty", "to": to})
        out.verdicts.append({"card": play.card, "pile": play.pile, "by": play.player, "caller": d["caller"],
                             "call": d["call"], "ok": d["ok"], "late": d["late"], "grab_winner": d["grab_winner"],
                             "next": d["next"], "hands": d["hands"]})
        t = r3(last + 1.2)
    for p in players:
        ev.append({"t": t, "type": "choice", "player": p, "action": "gabu",
                   "count": sum(1 for c in state.hands[p] if c.startswith("gabu"))})
    res = state.result()
    out.result = {"hands": res["hands"], "winners": res["winners"], "over": res["over"]}
    return out


# ----------------------------------------------------------------------------- TAKOYAKI

def _takoyaki(rng: random.Random, mode: str) -> Rendered:
    from rules.takoyaki import Discard, Draw, Place, TakeDiscard
    players = ["aki"] if mode == "solo" else _players(rng, "takoyaki", lo=2, hi=3)
    options: dict[str, Any] = {"griddle": rng.choice([6, 10]), "jokers": rng.choice([0, 1, 2]),
                               "take_discard": rng.random() < 0.5}
    if rng.random() < 0.3:
        options["kachinuki"] = True
        options["sizes"] = {p: rng.randint(1, options["griddle"]) for p in players if rng.random() < 0.7}
    out = Rendered(_header("takoyaki", mode, players, options))
    ev = out.events
    state = rules.get("takoyaki").new_state(players, mode=mode, options=options)
    t = 1.0
    while (action := state.random_action(rng)) is not None:
        p = state.player
        o = state.apply(action)
        if o.kind in ("deal", "reshuffle"):
            continue
        d = o.details
        if isinstance(action, (Draw, TakeDiscard)):
            zone, by, nxt = f"p:{p}:{'draw' if isinstance(action, Draw) else 'take'}", None, p
        elif isinstance(action, Place):
            zone, by, nxt = f"p:{p}:slot{action.slot}", None, (None if o.kind == "win" else p)
        else:
            assert isinstance(action, Discard)
            zone, by, nxt = "discard", (p if rng.random() < 0.5 else None), d["next"]
        e = {"t": r3(t), "type": "card", "card": d["card"], "zone": zone}
        if by:
            e["by"] = by
        ev.append(e)
        out.verdicts.append({"player": p, "action": {"win": "place"}.get(o.kind, o.kind), "card": d["card"],
                             "legal": True, "next": nxt, "face_up": sum(state.up[p])})
        if o.kind == "win":
            out.verdicts[-1]["winner"] = p
            t += rng.uniform(0.6, 1.4)  # the card turned from under the last slot is discarded
            ev.append({"t": r3(t), "type": "card", "card": state.discard[-1], "zone": "discard", "by": p})
        t += rng.uniform(0.6, 1.4)
    res = state.result()
    out.result = {"winners": res["winners"], "face_up": res["face_up"], "turns": res["turns"],
                  "illegal": {p: 0 for p in players}, **state.kachinuki()}
    if mode == "solo":
        out.result["turns_needed"] = res["turns_needed"]
    else:
        out.result["ranking"] = res["ranking"]
    return out


# ----------------------------------------------------------------------------- Sea Salt & Paper

def _seasaltpaper(rng: random.Random, mode: str) -> Rendered:
    from rules.seasaltpaper import Call
    players = _players(rng, "seasaltpaper", lo=2)
    options = {"double": rng.random() < 0.2, "extra_salt": rng.random() < 0.5}
    out = Rendered(_header("seasaltpaper", None, players, options))
    ev = out.events
    state = rules.get("seasaltpaper").new_state(players, options=options)
    t, rounds = 1.0, 0
    while (action := state.random_action(rng)) is not None:
        p = state.player if state.phase != "shuffle" else None
        o = state.apply(action)
        t += 1.0
        if isinstance(action, Call):
            ev.append({"t": r3(t), "type": "choice", "player": p, "action": "call", "call": action.call})
        if o.kind == "mermaids":
            rounds += 1
            ev.append({"t": r3(t + 0.5), "type": "choice", "player": p, "action": "hand", "cards": state.cards_of(p)})
            out.verdicts.append({"round": rounds, "call": "mermaids", "caller": p, "totals": dict(state.totals)})
        if o.kind in ("round", "game"):
            rounds += 1
            detail = o.details["round"] if o.kind == "game" else o.details
            if detail["call"] == "emptydeck":
                ev.append({"t": r3(t + 0.5), "type": "choice", "player": detail["ender"], "action": "emptydeck"})
                caller = detail["ender"]
            else:
                caller = detail["caller"]
                for q in players:
                    ev.append({"t": r3(t + 0.5), "type": "choice", "player": q, "action": "hand",
                               "cards": o.details["cards"][q]})
            out.verdicts.append({"round": rounds, "call": detail["call"], "caller": caller,
                                 "totals": dict(state.totals)})
            t += 1.0
    out.result = {"scores": dict(state.totals), "target": state.target, "rounds": rounds,
                  "winners": list(state.winners), "finished": bool(state.winners)}
    return out


# ----------------------------------------------------------------------------- TORATANU

def _toratanu(rng: random.Random, mode: str) -> Rendered:
    players = _players(rng, "toratanu", lo=2)
    options = {"games": rng.randint(1, 3)}
    out = Rendered(_header("toratanu", None, players, options))
    ev = out.events
    state = rules.get("toratanu").new_state(players, options=options)
    t, totals = 1.0, {p: 0 for p in players}
    while (action := state.random_action(rng)) is not None:
        o = state.apply(action)
        t += 1.0
        if o.kind == "deal":
            ev.append({"t": r3(t), "type": "choice", "player": None, "action": "special", "card": o.details["special"]})
        elif o.kind == "tally":
            for p in players:
                tally = {k: v for k, v in o.details["tallies"][p].items() if v or k == "hand"}
                ev.append({"t": r3(t + 0.5), "type": "choice", "player": p, "action": "tally", **tally})
                totals[p] += o.details["scores"][p]
            out.verdicts.append({"game": len(out.verdicts) + 1, "scores": o.details["scores"], "totals": dict(totals)})
            t += 1.0
    res = state.result()
    out.result = {"scores": res["scores"], "games": len(out.verdicts), "of": options["games"],
                  "winners": res["winners"], "finished": state.is_over}
    return out


RENDERERS = {"ikatako": _ikatako, "mokochaka": _mokochaka, "takoyaki": _takoyaki,
             "seasaltpaper": _seasaltpaper, "toratanu": _toratanu}

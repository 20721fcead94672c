"""A MOKOCHAKA play as the judge holds it while its window is open, and who the touches and calls
in it settle (the token's winner, the penalised, the reasons)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.mokochaka import N_PILES, SPECIAL_CALLS, Shout, is_call_token
from session.events import CardEvent, GrabEvent, ShoutEvent


def rounded_us(x: float) -> float:
    return round(x, 6)


def call_token(words: tuple[str, ...]) -> str | None:
    """The call in one shout's words: all words run together if that is a call, else the first call word."""
    joined = "".join(words)
    if joined and is_call_token(joined):
        return joined
    return next((w for w in words if is_call_token(w)), None)


def pile_number(zone: str | None) -> int | None:
    if zone and zone.startswith("pile") and zone[4:].isdigit() and int(zone[4:]) < N_PILES:
        return int(zone[4:])
    return None


@dataclass
class OpenPlay:
    """The play whose window is open (until the next play or the end) and what came in it."""

    ev: CardEvent
    cid: str
    pile: int
    player: str
    played: dict[str, Any]  # the Play outcome's details
    calls: list[tuple[float, Shout]] = field(default_factory=list)  # (session time, call)
    grabs: list[tuple[float, float, str]] = field(default_factory=list)  # (session time, dt, player)
    unclear_shouts: list[ShoutEvent] = field(default_factory=list)  # words not made out
    unclear_grabs: list[GrabEvent] = field(default_factory=list)  # below the hand threshold
    tie_first: str | None = None
    penalty_to: dict[str, str] = field(default_factory=dict)
    chosen_piles: tuple[str, tuple[int, ...]] | None = None
    said: set = field(default_factory=set)  # announcement keys already given


def turn_order(players, active: str) -> dict[str, int]:
    return {p: (players.index(p) - players.index(active)) % len(players) for p in players}


def first_calls_of(calls: list[Shout], active: str) -> dict[str, Shout]:
    """Each player's call that counts (the rules' choice: the caller's first call by onset,
    another player's first special call, else their first call)."""
    first: dict[str, Shout] = {}
    for s in sorted(calls, key=lambda s: s.dt):
        if s.player != active and s.call in SPECIAL_CALLS and first.get(s.player, s).call not in SPECIAL_CALLS:
            first[s.player] = s
        first.setdefault(s.player, s)
    return first


def settle_play(play: OpenPlay, state, players, options, t: float) -> list[tuple[Any, dict[str, Any]]]:
    """What is settled about the open play at watermark ``t`` (see :class:`referee.judging.mokochaka.Judge`)."""
    window, slack = float(options["window"]), float(options["grab_slack"])
    call, active, t_card = play.played["call"], play.player, play.ev.t
    accepted, special = call["accepted"], call["special"]
    expected = " or ".join(accepted)
    # a player's counting call is settled once it is older than t: no earlier one can come
    first = first_calls_of([s for when, s in play.calls if when < t], active)
    found: list[tuple[Any, dict[str, Any]]] = []
    penalised: dict[str, tuple[str, str]] = {}

    def penalty(p: str, code: str, why: str) -> None:
        penalised.setdefault(p, (code, why))

    mine = first.get(active)
    if mine is not None:
        if mine.call not in accepted:
            verdict = "wrong_call"
            penalty(active, verdict, f"said {mine.call}, expected {expected}")
        elif mine.dt >= window:
            verdict = "late"
            penalty(active, verdict, f"called {mine.call} {mine.dt:.2f} s after the card (limit {window:g} s)")
        else:
            verdict = "accepted"
        found.append((("call", verdict), {"what": verdict, "player": active, "call": mine.call,
                                          "time": round(mine.dt, 3)}))
    elif not special and t >= t_card + window:
        found.append((("call", "no_call"), {"what": "no_call", "player": active, "call": None, "time": None}))
        penalty(active, "no_call", f"no call within {window:g} s, expected {expected}")
    for p, s in first.items():
        if p != active and s.call in SPECIAL_CALLS and s.call not in accepted:
            penalty(p, "wrong_call", f"said {s.call}, expected " + (expected if special else "no special call"))

    def can_win(when: float, dt: float, p: str) -> bool | None:
        """True/False once settled, None while a call in the grab slack may still come."""
        s = first.get(p)
        if not special:
            return False
        if s is None:
            return False if when + slack < t else None
        if s.call not in accepted or s.dt > dt + slack:
            return False
        if p == active and s.dt >= window:
            return False  # penalised for a late call: cannot win with it
        return True

    order = turn_order(players, active)
    known = sorted((g for g in play.grabs if g[0] < t), key=lambda g: (g[1], order[g[2]]))
    grabbed: set[str] = set()
    i = 0
    while i < len(known):
        group = [g for g in known[i:] if g[1] == known[i][1]]
        i += len(group)
        group = [g for g in group if g[2] not in grabbed]
        grabbed.update(g[2] for g in group)
        wins = [can_win(*g) for g in group]
        if None in wins or wins.count(True) > 1:
            break  # unsettled, or a decision may order equal-time touches
        if True in wins:
            when, dt, p = group[wins.index(True)]
            found.append(("grab", {"what": "grab", "player": p, "call": first[p].call, "time": round(dt, 3)}))
            break
        for when, dt, p in group:
            if p == active and first.get(p) is not None and first[p].dt >= window and first[p].call in accepted \
                    and special and first[p].dt <= dt + slack:
                continue  # a late caller's touch: no win, no new fault
            penalty(p, "grab", grab_why(first.get(p), dt, special, accepted, slack))
    for p in players:
        if p in penalised:
            code, why = penalised[p]
            found.append((("penalty", p), {"what": "penalty", "player": p, "reason": code, "why": why}))
    return found


def grab_why(s: Shout | None, dt: float, special: bool, accepted, slack: float) -> str:
    """The rules' reason for a touch that wins nothing (the same words as the verdict's)."""
    if not special:
        return f"grabbed the token at {dt:.2f} s with no special call holding"
    if s is None or s.call not in accepted:
        said = "without calling" if s is None else f"calling {s.call}"
        return f"grabbed the token {said}, expected {' or '.join(accepted)}"
    return f"grabbed the token {s.dt - dt:.2f} s before calling {s.call} (slack {slack:g} s)"


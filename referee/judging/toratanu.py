"""Judging TORATANU at the tally (docs/rules.md, TORATANU).

Record shape (our decision; docs/record.md leaves it to the game): ``choice`` events.
- ``{"action": "special", "card": "owl:blue"}``: a new game (night) starts with this
  special card face up.
- ``{"action": "tally", "player": P, "hand": [...], "captured": [[3 cards], ...],
  "doubutsuen": [[4 cards], ...], "sets": [[3 cards], ...]}``: P's cards at the tally
  (``hand`` = the cards not in open sets), the open sets, and optionally the sets P laid
  out. ``sets`` absent: P is scored with the best arrangement (the search).
A game is scored (one verdict) once every player's tally is in: ``scores``, ``best``
(each player's best arrangement and its explanation), ``declared`` (the score of the
sets a player laid out, or null) and ``missed`` (points the best arrangement would have
added), and running ``totals``. After ``games`` games (5) the result names the winners.

Decisions: a tally naming a card the catalogue lacks, or a card whose needed data is
missing, is ignored with a warning naming the card and field (the game is then not
scored until a good tally comes); a declared arrangement that is not legal (not 3 of an
animal / of a colour, or cards not in the hand) is scored as the best one, with a warning.
Herd effects at the tally are not applied (the catalogue lacks them).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from session.errors import RulesError
from session.events import ChoiceEvent, EndEvent, Event
from rules.toratanu import best_arrangement, parse_card, score_arrangement
from referee.judging.base import GameJudge
from referee.judging.verdicts.toratanu import TallyVerdict, ToratanuResult


class Judge(GameJudge):
    """A game's verdict is said at the tally that completes it (every player's): the
    scores of a complete tally can no longer change."""

    def __init__(self, session) -> None:
        super().__init__(session)
        self.players = list(session.players)
        self.games = session.options["games"]
        self.totals = {p: 0 for p in self.players}
        self.special: str | None = None
        self.tallies: dict[str, ChoiceEvent] = {}
        self.played = 0
        self.ended = False

    def feed(self, ev: Event) -> list[dict[str, Any]]:
        if self.ended or not isinstance(ev, ChoiceEvent) or self.played >= self.games:
            self.ended = self.ended or isinstance(ev, EndEvent)
            return []
        warn = self.session.warn
        if ev.action == "special":
            try:
                special = str(parse_card(ev.get("card")))
            except RulesError as exc:
                warn(f"t={ev.t}: special card ignored: {exc}", ev)
                return []
            if self.tallies:
                warn(f"t={ev.t}: a new game started before every tally was in: the last game is not scored", ev)
            self.special, self.tallies = special, {}
            return []
        if ev.action != "tally":
            return []
        if ev.player not in self.totals:
            warn(f"t={ev.t}: tally of {ev.player!r}, who is not playing: ignored", ev)
            return []
        problem = _shape_problem(ev)
        if problem:
            warn(f"t={ev.t}: tally of {ev.player} ignored: {problem}", ev)
            return []
        if self.special is None:
            warn(f"t={ev.t}: tally of {ev.player} before a special card was declared (scored without one)", ev)
        try:
            _best(ev, self.special)
        except RulesError as exc:
            warn(f"t={ev.t}: tally of {ev.player} ignored: {exc}", ev)
            return []
        self.tallies[ev.player] = ev
        if not all(p in self.tallies for p in self.players):
            return []
        self.played += 1
        special = self.special
        verdict = TallyVerdict(t=ev.t, game=self.played, special=special)
        for p in self.players:
            best = _best(self.tallies[p], special)
            declared = _declared(self.session, self.tallies[p], special)
            got = best.total if declared is None else declared
            verdict.scores[p] = got
            verdict.declared[p] = declared
            verdict.missed[p] = best.total - got
            verdict.best[p] = {**best.to_dict(), "explain": best.explain()}
            self.totals[p] += got
        self.tallies, self.special = {}, None
        return [replace(verdict, totals=dict(self.totals)).to_dict()]

    def finish(self) -> list[dict[str, Any]]:
        if self.tallies:
            self.session.warn("the record ends before every tally of the last game was in: not scored")
        top = max(self.totals.values())
        done = self.played >= self.games
        return [ToratanuResult(scores=dict(self.totals), games=self.played, of=self.games,
                               winners=[p for p in self.players if self.totals[p] == top] if done else [],
                               finished=done).to_dict()]


def _shape_problem(ev: ChoiceEvent) -> str | None:
    """What is wrong with the shape of a tally's fields (None when fine)."""
    hand = ev.get("hand")
    if not isinstance(hand, list) or not all(isinstance(c, str) for c in hand):
        return "field 'hand' must be a list of cards"
    for key in ("captured", "doubutsuen", "sets"):
        value = ev.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or not all(
                isinstance(s, list) and all(isinstance(c, str) for c in s) for s in value):
            return f"field {key!r} must be a list of sets (lists of cards)"
    return None


def _best(ev: ChoiceEvent, special):
    return best_arrangement(ev.get("hand") or [], special, ev.get("captured") or [], ev.get("doubutsuen") or [])


def _declared(session, ev: ChoiceEvent, special) -> int | None:
    sets = ev.get("sets")
    if sets is None:
        return None
    hand = [str(parse_card(c)) for c in ev.get("hand") or []]
    used = [str(parse_card(c)) for s in sets for c in s]
    if Counter(used) - Counter(hand):
        session.warn(f"t={ev.t}: {ev.player}'s sets use cards not in the hand: scored with the best arrangement", ev)
        return None
    loose = list((Counter(hand) - Counter(used)).elements())
    try:
        return score_arrangement(sets, loose, special, ev.get("captured") or [], ev.get("doubutsuen") or [])
    except RulesError as exc:
        session.warn(f"t={ev.t}: {ev.player}'s sets are not legal ({exc}): scored with the best arrangement", ev)
        return None


def format_table(judgement, header) -> str:
    lines = []
    for obj in judgement.lines:
        if obj.get("type") == "verdict":
            lines.append(f"game {obj['game']} (special {obj['special'] or '-'})")
            for p, v in obj["scores"].items():
                how = "best arrangement" if obj["declared"][p] is None else "as laid out"
                miss = f", {obj['missed'][p]} short of the best" if obj["missed"][p] else ""
                lines.append(f"    {p:8} {v:4} ({how}{miss})  total {obj['totals'][p]:4}")
                for line in obj["best"][p]["explain"][:-1]:
                    lines.append(f"        {line}")
        elif obj.get("type") == "result":
            w = ", ".join(obj["winners"]) or f"nobody yet ({obj['games']} of {obj['of']} games)"
            lines.append(f"winner: {w}  (" + ", ".join(f"{p} {v}" for p, v in obj["scores"].items()) + ")")
    return "\n".join(lines)

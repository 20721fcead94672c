"""Judging a MOKOCHAKA session: one verdict per played card, then the result.

The events arrive one at a time in canonical order; :class:`Judge` says each play's verdict
as soon as it is final, and what a live table may hear before that (:meth:`Judge.announce`).

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
- **Unclear observations** (docs/rules.md, "The referee's own uncertainty";
  :mod:`referee.judging.unclear`): a shout whose word was not made out, a player not heard
  (their audio missing in the window and no call heard from them), a ``grab`` below the hand
  threshold, a seat not seen while a special call holds. The play is resolved under every
  reading of them (:func:`_weigh`); a player penalised in some readings and not in others
  is *unclear* (no penalty), and a token winner that differs between readings is held
  (``first_unclear``: nobody wins the piles). A play card that was not read judges nobody.
  The table's answers (``decision`` with ``card_index``) settle a player's unclear call:
  ``correct`` reads it as the accepted call, ``wrong`` as a wrong one.

All times in a verdict are relative to the card (rounded to the microsecond, so the
verdicts do not depend on the session clock's origin); ``t`` is the card's own time.
"""

from __future__ import annotations

import copy
import itertools
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from referee.judging import unclear as uc
from referee.judging.base import GameJudge, LivePlay
from referee.judging.verdicts.mokochaka import MokochakaResult, PlayVerdict
from session.errors import IllegalAction, RulesError
from session.events import CardEvent, ChoiceEvent, DecisionEvent, EndEvent, GrabEvent, ShoutEvent
from rules.mokochaka import (GAME, N_PILES, SPECIAL_CALLS, DeclareGabu, Play, Resolve, Setup, Shout, Touch,
                             card_id, is_call_token)


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


@dataclass
class _Play:
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


class Judge(GameJudge):
    """The incremental MOKOCHAKA judge.

    **Verdicts.** A play's verdict comes out of :meth:`feed` when the next play is placed
    (a card event that is a play: not setup, a known card, a pile zone) or at ``end``, else
    at :meth:`finish`: until then a touch, a late call, a ``decision`` (equal-time touches)
    or a ``choice`` (penalty receiver, the winner's piles) may still change it. The time
    alone never makes it final, so :meth:`advance` gives nothing. The setup is applied as
    soon as it is complete (its last card, the first card with ``by``, the end or finish).

    **Bad input** is warned about event by event as it arrives (the "events after the end"
    count at :meth:`finish`); the set of notes is the one the old batch judging gave, only
    their order changed.

    **Announcements** (:meth:`announce`, watermark ``t``: every event earlier than ``t``
    has been fed; only those are looked at, and only for the play whose window is open):

    * the caller's call, as soon as their first call token is older than ``t`` (no earlier
      one can come): ``accepted`` (in time and one of the accepted calls), ``wrong_call``
      or ``late`` (``player``, ``call``, ``time`` after the card); ``no_call`` for a normal
      play once ``t`` reaches the card + ``window`` without one;
    * ``grab`` (``player``, ``call``, ``time``): the token winner, once every touch before
      the winner's is known to be no win and the winner's own call is known (a touch whose
      grabber has not called is known to be no win once ``t`` is past it + ``grab_slack``);
      touches at one instant by two players who could both win wait for the verdict (a
      ``decision`` may order them);
    * ``penalty`` (``player``, ``reason``, ``why``): a player is penalised, once one of their
      faults is certain (a wrong or late call of the caller, no call in the window, a wrong
      special call, a touch that wins nothing before the winner's). Who receives the card
      (a ``choice`` may name them) only the verdict says; ``stuck`` too.

    Nothing an unclear observation could change is announced (:func:`_unless_unclear`): no
    call or penalty of a player with one, no token winner or grab penalty while anyone has
    one, nothing on a play card not read.

    The one case where the verdict can differ from an announcement: ``no_call`` followed
    by a call after the window, which the verdict calls ``late`` (or ``wrong_call``; it is
    announced too when it comes, and the penalty stands either way). The verdict line is
    always what counts.
    """

    takes_answers = True

    def __init__(self, session) -> None:
        super().__init__(session)
        self.players = session.players
        self.state = GAME.new_state(self.players, options=session.options, hidden=True)
        self.setup_max = N_PILES + (len(self.state.deck) - N_PILES) % len(self.players)
        self.piles: list[list[str]] = [[] for _ in range(N_PILES)]
        self.setup_cards = 0
        self.set_up = False
        self.ended: EndEvent | None = None
        self.after_end = 0
        self.gabu: dict[str, int] = {}
        self.seen_play = False
        self.play: _Play | None = None  # None: no play yet, or an ignored one
        self.verdicts = 0  # verdict lines so far: the next play's number is this + 1 (answers name it)
        self.unclear: dict[str, int] = defaultdict(int)  # unclear items per player (the result's count)

    # --------------------------------------------------------------- events in
    def feed(self, event) -> list[dict[str, Any]]:
        if self.ended is not None:
            self.after_end += 1
            return []
        if isinstance(event, EndEvent):
            self.ended = event
            self._setup()
            return self._close()
        if isinstance(event, ChoiceEvent) and event.action == "gabu":
            self._gabu(event)
        if isinstance(event, CardEvent):
            if not self.set_up and event.by is None:
                self._setup_card(event)
                return []
            self._setup()
            return self._card(event)
        if not self.seen_play:
            if isinstance(event, (ShoutEvent, GrabEvent)):
                self.session.warn(f"{event.type} at t={event.t:g} before the first play ignored", event)
        elif self.play is not None:
            self._window_event(self.play, event)
        return []

    def _gabu(self, ev: ChoiceEvent) -> None:
        if ev.player not in self.players:
            self.session.warn(f"gabu count for unknown player {ev.player!r} at t={ev.t:g} ignored", ev)
        else:
            self.gabu[ev.player] = ev.get("count")

    def _setup_card(self, ev: CardEvent) -> None:
        self.setup_cards += 1
        pile = _pile(ev.zone)
        try:
            cid = card_id(ev.card)
        except RulesError as exc:
            self.session.warn(f"setup card at t={ev.t:g}: {exc}; ignored", ev)
        else:
            if pile is None:
                self.session.warn(f"setup card {cid} at t={ev.t:g} is in zone {ev.zone!r}, not pile0-pile2; ignored", ev)
            else:
                self.piles[pile].append(cid)
        if self.setup_cards >= self.setup_max:
            self._setup()

    def _setup(self) -> None:
        """The setup is complete: the piles as shown, the rest of the deck dealt equally."""
        if self.set_up:
            return
        self.set_up = True
        state, players = self.state, self.players
        shown = sum(map(len, self.piles))
        per, extra = divmod(len(state.deck) - shown, len(players))
        if shown != self.setup_max or extra:
            self.session.warn(
                f"the record shows {shown} setup card(s) on the piles; a {len(players)}-player deal of "
                f"{len(state.deck)} cards leaves {self.setup_max}: hand counts may be off")
        hands = tuple((None,) * (per + (1 if k < extra else 0)) for k in range(len(players)))
        state.apply(Setup(tuple(tuple(p) for p in self.piles), hands, strict=False))

    def _card(self, ev: CardEvent) -> list[dict[str, Any]]:
        try:
            cid = card_id(ev.card)
        except RulesError as exc:
            self.session.warn(f"t={ev.t:g}: {exc}; ignored", ev)
            return []
        pile = _pile(ev.zone)
        if pile is None:
            self.session.warn(f"card {cid} at t={ev.t:g} is in zone {ev.zone!r}, not pile0-pile2; ignored", ev)
            return []
        out = self._close()
        self.seen_play = True
        self.play = self._open(ev, cid, pile)
        return out

    def _open(self, ev: CardEvent, cid: str, pile: int) -> _Play | None:
        """Place the card (None: the play is ignored, with a warning, and so is its window)."""
        session, state = self.session, self.state
        if state.is_over:
            session.warn(f"card {ev.card} at t={ev.t:g} after the game ended (someone played their last card); ignored", ev)
            return None
        player = ev.by
        if player is not None and player not in self.players:
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
        return _Play(ev, cid, pile, player, played.details)

    def _window_event(self, play: _Play, w) -> None:
        session, players = self.session, self.players
        dt = _rt(w.t - play.ev.t)
        if isinstance(w, ShoutEvent):
            if w.player is None:
                session.warn(f"unattributed shout {' '.join(w.words)!r} at t={w.t:g} ignored", w)
            elif w.player not in players:
                session.warn(f"shout by unknown player {w.player!r} at t={w.t:g} ignored", w)
            elif uc.shout_unclear(w, _clarity(session)):
                play.unclear_shouts.append(w)
            else:
                token = call_token(w.words)
                if token is not None:
                    play.calls.append((w.t, Shout(w.player, token, dt)))
        elif isinstance(w, GrabEvent):
            if w.player not in players:
                session.warn(f"grab by unknown player {w.player!r} at t={w.t:g} ignored", w)
            elif uc.hand_unclear(w, _clarity(session)):
                play.unclear_grabs.append(w)
            else:
                play.grabs.append((w.t, dt, w.player))
        elif isinstance(w, DecisionEvent):
            if w.first in players:
                play.tie_first = w.first
            else:
                session.warn(f"decision for unknown player {w.first!r} at t={w.t:g} ignored", w)
        elif isinstance(w, ChoiceEvent):
            if w.action == "penalty":
                to = w.get("to")
                if w.player in players and to in players and to != w.player:
                    play.penalty_to[w.player] = to
                else:
                    session.warn(f"penalty choice at t={w.t:g} ({w.player!r} -> {to!r}) names no valid players; ignored", w)
            elif w.action == "piles":
                value = w.get("piles")
                if isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
                    play.chosen_piles = (w.player, tuple(value))
                else:
                    session.warn(f"piles choice at t={w.t:g} must list pile numbers, got {value!r}; ignored", w)
            elif w.action != "gabu":
                session.warn(f"choice {w.action!r} at t={w.t:g} is not a MOKOCHAKA choice; ignored", w)

    def _close(self) -> list[dict[str, Any]]:
        play, self.play = self.play, None
        if play is None:
            return []
        self.verdicts += 1
        verdict = _resolve(self.session, self.state, play, self.verdicts)
        for p in verdict.unclear:
            self.unclear[p] += 1
        return [verdict.to_dict()]

    def finish(self) -> list[dict[str, Any]]:
        self._setup()
        out = self._close()
        if self.after_end:
            self.session.warn(f"{self.after_end} event(s) after the end event at t={self.ended.t:g} ignored",
                              self.ended)
        for p in self.players:
            if p in self.gabu:
                try:
                    self.state.apply(DeclareGabu(p, self.gabu[p]))
                except IllegalAction as exc:
                    self.session.warn(f"gabu count ignored: {exc}")
        # the unclear counts only when something was unclear: a clear record's result stays as it was
        result = MokochakaResult(**self.state.result(),
                                 unclear={p: self.unclear[p] for p in self.players} if self.unclear else {})
        out.append(result.to_dict())
        return out

    # --------------------------------------------------------------- announcements
    def announce(self, t: float) -> list[dict[str, Any]]:
        play = self.play
        if play is None:
            return []
        base = {"type": "announce", "t": t, "card": play.cid, "card_t": play.ev.t}
        out = []
        for key, what in _unless_unclear(self.session, play, self.players, t,
                                         _settled(play, self.state, self.players, self.session.options, t)):
            if key not in play.said:
                play.said.add(key)
                out.append({**base, **what})
        return out


def _unless_unclear(session, play: _Play, players, t: float, found):
    """The announcements an unclear observation cannot change: nothing on a play card not read;
    no call or penalty of a player with an unclear observation so far, and no token winner or
    grab penalty while anyone has one (the verdict weighs them, :func:`_weigh`)."""
    if uc.card_not_read(play.ev, _clarity(session)):
        return []
    seen = _Play(play.ev, play.cid, play.pile, play.player, play.played,
                 calls=[c for c in play.calls if c[0] < t],
                 unclear_shouts=[e for e in play.unclear_shouts if e.t < t],
                 unclear_grabs=[e for e in play.unclear_grabs if e.t < t])
    doubt = {i.player for i in _items(session, seen, players, min(float(session.options["window"]), t - play.ev.t))}
    if not doubt:
        return found
    return [(key, what) for key, what in found
            if not (key == "grab" or (key[0] == "call" and play.player in doubt)
                    or (key[0] == "penalty" and (key[1] in doubt or what.get("reason") == "grab")))]


def _turn_order(players, active: str) -> dict[str, int]:
    return {p: (players.index(p) - players.index(active)) % len(players) for p in players}


def _first_calls(calls: list[Shout], active: str) -> dict[str, Shout]:
    """Each player's call that counts (the rules' choice: the caller's first call by onset,
    another player's first special call, else their first call)."""
    first: dict[str, Shout] = {}
    for s in sorted(calls, key=lambda s: s.dt):
        if s.player != active and s.call in SPECIAL_CALLS and first.get(s.player, s).call not in SPECIAL_CALLS:
            first[s.player] = s
        first.setdefault(s.player, s)
    return first


def _settled(play: _Play, state, players, options, t: float) -> list[tuple[Any, dict[str, Any]]]:
    """What is settled about the open play at watermark ``t`` (see :class:`Judge`)."""
    window, slack = float(options["window"]), float(options["grab_slack"])
    call, active, t_card = play.played["call"], play.player, play.ev.t
    accepted, special = call["accepted"], call["special"]
    expected = " or ".join(accepted)
    # a player's counting call is settled once it is older than t: no earlier one can come
    first = _first_calls([s for when, s in play.calls if when < t], active)
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

    order = _turn_order(players, active)
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
            penalty(p, "grab", _grab_why(first.get(p), dt, special, accepted, slack))
    for p in players:
        if p in penalised:
            code, why = penalised[p]
            found.append((("penalty", p), {"what": "penalty", "player": p, "reason": code, "why": why}))
    return found


def _grab_why(s: Shout | None, dt: float, special: bool, accepted, slack: float) -> str:
    """The rules' reason for a touch that wins nothing (the same words as the verdict's)."""
    if not special:
        return f"grabbed the token at {dt:.2f} s with no special call holding"
    if s is None or s.call not in accepted:
        said = "without calling" if s is None else f"calling {s.call}"
        return f"grabbed the token {said}, expected {' or '.join(accepted)}"
    return f"grabbed the token {s.dt - dt:.2f} s before calling {s.call} (slack {slack:g} s)"


def _clarity(session) -> uc.Clarity:
    return getattr(session, "clarity", None) or uc.Clarity()


@dataclass
class _Item:
    """One unclear observation of a play: a ``call`` that may have been right, wrong or none
    (a shout not made out; a player not heard), or a ``grab`` that may or may not have
    happened (a doubtful touch, ``recorded``; a seat not seen, not recorded). ``fixed``: the
    table's answer about a call (``right``/``wrong``)."""

    kind: str
    player: str
    dt: float
    reason: str
    recorded: bool = True
    fixed: str | None = None

    def options(self) -> tuple:
        if self.kind == "grab":
            return (True, False)
        return (self.fixed,) if self.fixed else uc.SHOUT_READINGS


def _items(session, play: _Play, players, window: float) -> list[_Item]:
    """The play's unclear observations, in seat order then time."""
    t, special = play.ev.t, play.played["call"]["special"]
    clarity, senses = _clarity(session), getattr(session, "senses", None)
    called = {s.player for _, s in play.calls}
    grabbed = {p for _, _, p in play.grabs}
    items = [_Item("call", sh.player, _rt(sh.t - t), uc.shout_reason(sh, t, clarity)) for sh in play.unclear_shouts]
    items += [_Item("grab", g.player, _rt(g.t - t), uc.hand_reason(g, t, clarity)) for g in play.unclear_grabs]
    heard_unclear = {i.player for i in items if i.kind == "call"}
    seen_unclear = {i.player for i in items if i.kind == "grab"}
    for p in players if senses is not None else ():
        if p not in called and p not in heard_unclear and (deaf := senses.missing_near("audio", p, t, window)):
            items.append(_Item("call", p, 0.0, f"not heard: {deaf}"))
        if special and p not in grabbed and p not in seen_unclear and (
                blind := senses.missing_near("video", p, t, window)):
            dt = min((s.dt for _, s in play.calls if s.player == p), default=0.0)
            items.append(_Item("grab", p, dt, f"not seen: {blind}", recorded=False))
    return sorted(items, key=lambda i: (players.index(i.player), i.dt))


def _answer_items(session, items: list[_Item], answers: uc.CardAnswers, index: int, players,
                  not_read: str | None) -> dict[str, str]:
    """The table's answers about this play's unclear calls (``correct``: the call was the
    accepted one; ``wrong``: another): fixes those readings. Returns who was answered."""
    decided = {}
    for p, a in answers.verdicts.items():
        mine = [i for i in items if i.player == p and i.kind == "call"]
        if p not in players:
            session.warn(f"{a.describe()}: {p!r} is not at the table; ignored", a.line)
        elif not_read:
            session.warn(f"{a.describe()}: play {index} was not read; correct its card line to judge it; ignored",
                         a.line)
        elif not mine:
            session.warn(f"{a.describe()}: {p} made no unclear call on play {index} (an answer settles unclear "
                         "calls; a correction overrides the record); ignored", a.line)
        else:
            for i in mine:
                i.fixed = "right" if a.verdict == "correct" else "wrong"
            decided[p] = a.verdict
    return decided


@dataclass
class _Weighed:
    """What the unclear observations of a play leave unjudged."""

    excused: tuple[str, ...] = ()  # penalised in some readings and not in others: no penalty
    hold_token: bool = False  # the token's winner differs between readings: nobody wins it
    unclear: dict[str, str] = field(default_factory=dict)  # player -> reason


def _read_call(item: _Item, choice: str, call) -> Shout:
    """An unclear call read as the accepted call (``right``) or as a wrong special call."""
    accepted = call["accepted"]
    wrong = next(c for c in SPECIAL_CALLS if c not in accepted)
    return Shout(item.player, accepted[0] if choice == "right" else wrong, item.dt)


def _reading_action(play: _Play, items: list[_Item], combo, order, call) -> Resolve:
    """The play's resolution as one reading has its unclear observations."""
    calls = [s for _, s in play.calls]
    touches = [(dt, p) for _, dt, p in play.grabs]
    for item, choice in zip(items, combo):
        if item.kind == "call" and choice in ("right", "wrong"):
            calls.append(_read_call(item, choice, call))
        elif item.kind == "grab" and choice:
            touches.append((item.dt, item.player))
    ordered = tuple(Touch(p, dt) for dt, p in sorted(touches, key=lambda g: (g[0], order[g[1]])))
    return Resolve(tuple(calls), ordered)


def _weigh(state, play: _Play, items: list[_Item], order, players) -> _Weighed:
    """Resolve the play under every reading of its unclear observations (on copies of the
    state): who is penalised in some readings only, and whether the token's winner changes."""
    if not items:
        return _Weighed()
    reasons: dict[str, list[str]] = {}
    for i in items:
        reasons.setdefault(i.player, []).append(i.reason)
    combos = list(itertools.product(*(i.options() for i in items)))
    if len(combos) > uc.MAX_READINGS:
        return _Weighed(tuple(reasons), True, {p: "; ".join(r) + "; too many unclear observations to weigh"
                                               for p, r in reasons.items()})
    outcomes = []
    for combo in combos:
        trial = copy.deepcopy(state)
        d = trial.apply(_reading_action(play, items, combo, order, play.played["call"])).details
        outcomes.append(({x["player"] for x in d["penalties"]}, d["grab_winner"]))
    mixed = [p for p in players if len({p in pen for pen, _ in outcomes}) > 1]
    winners = {w for _, w in outcomes}
    hold = len(winners) > 1
    unsure = [p for p in players if p in mixed or (hold and p in winners and p in reasons)]
    return _Weighed(tuple(mixed), hold, {p: "; ".join(reasons.get(p) or ["the token's winner was unclear"])
                                         for p in unsure})


def _resolve(session, state, play: _Play, index: int = 0) -> PlayVerdict:
    """The verdict of a play whose window is closed: everything the table did, resolved; what
    the referee did not clearly perceive neither penalises nor wins (:func:`_weigh`)."""
    players = state.players
    ev = play.ev
    order = _turn_order(players, state.active)
    answers = session.answers.card(index) if getattr(session, "answers", None) is not None and index \
        else uc.CardAnswers()
    if answers.first is not None and answers.first.first in players:
        play.tie_first = answers.first.first
    if play.tie_first is not None:
        order[play.tie_first] = -1
    not_read = uc.card_not_read(ev, _clarity(session))
    items = _items(session, play, players, float(session.options["window"]))
    decided = _answer_items(session, items, answers, index, players, not_read)
    if not_read:
        weighed = _Weighed(tuple(players), bool(play.grabs or play.unclear_grabs), {p: not_read for p in players})
    else:
        weighed = _weigh(state, play, items, order, players)
    grabs = [(dt, p) for _, dt, p in play.grabs] + [(i.dt, i.player) for i in items if i.kind == "grab" and i.recorded]
    touches = tuple(Touch(p, dt) for dt, p in sorted(grabs, key=lambda g: (g[0], order[g[1]])))
    answered = tuple(_read_call(i, i.fixed, play.played["call"]) for i in items if i.fixed)
    out = _apply_resolve(session, state, play, touches, weighed, answered)
    verdict = _show_answers(_verdict(play, out.details, touches), items, decided)
    return replace(verdict,  # what the referee was not sure of: written only when there is something to say
                   unclear={p: weighed.unclear[p] for p in players if p in weighed.unclear},
                   first_unclear=bool(weighed.hold_token),
                   decided={p: decided[p] for p in players if p in decided},
                   card_unclear=not_read or "")


def _show_answers(verdict: PlayVerdict, items: list[_Item], decided: dict[str, str]) -> PlayVerdict:
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


def _apply_resolve(session, state, play: _Play, touches, weighed: _Weighed, answered: tuple[Shout, ...] = ()):
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


def _verdict(play: _Play, d: dict[str, Any], touches) -> PlayVerdict:
    players = list(d["hands"])
    ev = play.ev
    first_touch: dict[str, float] = {}
    for g in touches:
        first_touch.setdefault(g.player, g.dt)
    margin = None
    if d["grab_winner"] is not None:
        won = first_touch[d["grab_winner"]]
        later = [dt for p, dt in first_touch.items() if p != d["grab_winner"] and dt >= won]
        margin = _rt(min(later) - won) if later else None
    first_calls = d["calls"]  # the call that counts for each player (the rules decide)
    call = play.played["call"]
    return PlayVerdict(
        t=ev.t, card=play.cid, pile=play.pile, by=play.player,
        tops=call["tops"], caller=d["caller"], call=d["call"],
        accepted=d["accepted"], special=d["special"], ok=d["ok"], late=d["late"],
        grab_winner=d["grab_winner"], margin=margin,
        grabs={p: first_touch[p] for p in players if p in first_touch},
        penalties=[
            {"player": p["player"], "reason": p["reason"], "reasons": p["reasons"], "t": _rt(ev.t + p["dt"]),
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


# ----------------------------------------------------------------------------- for people

def _live_prompts(item: dict[str, Any], players, state: Any = None) -> list:
    """The token winner picks two piles (default: the two fullest) and a penalised player
    picks who receives the card (default: the player holding the fewest)."""
    from referee.live.controls import Prompt

    what, who, card_t = item.get("what"), item.get("player"), item.get("card_t")
    if what == "grab" and who:
        pairs = [(0, 1), (0, 2), (1, 2)]
        return [Prompt("piles", who, f"{who}: which two piles?",
                       [(f"piles {a}+{b}", {"piles": [a, b]}) for a, b in pairs], "the two fullest piles",
                       card_t=card_t)]
    if what == "penalty" and who:
        others = [q for q in players if q != who]
        return [Prompt("penalty", who, f"{who}: give the penalty card to whom?",
                       [(q, {"to": q}) for q in others], "the player holding the fewest cards", card_t=card_t)]
    return []


LIVE = LivePlay(prompts=_live_prompts, keys=("strike", "prompt"))  # grabs and shouts; no ties to settle


from referee.judging.mokochaka_words import describe, format_table  # noqa: E402,F401

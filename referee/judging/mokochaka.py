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
  reading of them (:func:`referee.judging.mokochaka_doubt.weigh_readings`); a player
  penalised in some readings and not in others is *unclear* (no penalty), and a token winner
  that differs between readings is held (``first_unclear``: nobody wins the piles). A play card that was not read judges nobody.
  The table's answers (``decision`` with ``card_index``) settle a player's unclear call:
  ``correct`` reads it as the accepted call, ``wrong`` as a wrong one.

All times in a verdict are relative to the card (rounded to the microsecond, so the
verdicts do not depend on the session clock's origin); ``t`` is the card's own time.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from referee.judging import unclear as uc
from referee.judging.base import GameJudge, LivePlay
from referee.judging.mokochaka_doubt import clarity_of, unless_unclear
from referee.judging.mokochaka_play import OpenPlay, call_token, pile_number, rounded_us, settle_play
from referee.judging.mokochaka_resolve import resolve_play
from referee.judging.verdicts.mokochaka import MokochakaResult
from rules.mokochaka import DeclareGabu, GAME, N_PILES, Play, Setup, Shout, card_id
from session.errors import IllegalAction, RulesError
from session.events import CardEvent, ChoiceEvent, DecisionEvent, EndEvent, GrabEvent, ShoutEvent


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

    Nothing an unclear observation could change is announced
    (:func:`referee.judging.mokochaka_doubt.unless_unclear`): no call or penalty of a player with one, no token winner or grab penalty while anyone has
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
        self.play: OpenPlay | None = None  # None: no play yet, or an ignored one
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
        pile = pile_number(ev.zone)
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
        pile = pile_number(ev.zone)
        if pile is None:
            self.session.warn(f"card {cid} at t={ev.t:g} is in zone {ev.zone!r}, not pile0-pile2; ignored", ev)
            return []
        out = self._close()
        self.seen_play = True
        self.play = self._open(ev, cid, pile)
        return out

    def _open(self, ev: CardEvent, cid: str, pile: int) -> OpenPlay | None:
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
        return OpenPlay(ev, cid, pile, player, played.details)

    def _window_event(self, play: OpenPlay, w) -> None:
        session, players = self.session, self.players
        dt = rounded_us(w.t - play.ev.t)
        if isinstance(w, ShoutEvent):
            if w.player is None:
                session.warn(f"unattributed shout {' '.join(w.words)!r} at t={w.t:g} ignored", w)
            elif w.player not in players:
                session.warn(f"shout by unknown player {w.player!r} at t={w.t:g} ignored", w)
            elif uc.shout_unclear(w, clarity_of(session)):
                play.unclear_shouts.append(w)
            else:
                token = call_token(w.words)
                if token is not None:
                    play.calls.append((w.t, Shout(w.player, token, dt)))
        elif isinstance(w, GrabEvent):
            if w.player not in players:
                session.warn(f"grab by unknown player {w.player!r} at t={w.t:g} ignored", w)
            elif uc.hand_unclear(w, clarity_of(session)):
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
        verdict = resolve_play(self.session, self.state, play, self.verdicts)
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
        for key, what in unless_unclear(self.session, play, self.players, t,
                                        settle_play(play, self.state, self.players, self.session.options, t)):
            if key not in play.said:
                play.said.add(key)
                out.append({**base, **what})
        return out


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

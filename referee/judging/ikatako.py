"""Judging an IKATAKO session: one verdict per revealed card, then the result.

The events arrive one at a time in canonical order (``referee.judge``), and :class:`Judge`
says each card's verdict as soon as it is final, and what a live table may hear before
that (:meth:`Judge.announce`). Every card event opens a
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
* a player *not heard* (or *not seen*, :mod:`referee.judging.senses`) is neither penalised
  nor correct; when what was there does not rule out that they beat the fastest heard
  correct player (:func:`referee.judging.ikatako_first.could_have_been_first`), the card's
  **first is unknown**
  (decision: the rulebook is silent; the referee says it cannot tell rather than give the
  card on missing evidence): ``first_unknown`` lists them, ``tie`` holds the heard fastest
  (or heard tie) and them, and the card goes as an unsettled tie goes — a ``decision``
  naming any of them settles it. The field is there only when needed. Co-op/solo have no
  "first" (one active player), so nothing changes there;
* ``choice`` events before the next card: ``penalty`` (a wrong/missed player names the
  point card to turn down), ``uzushio`` / ``salvage`` (the taker's effect);
* what the referee did not clearly perceive (:mod:`referee.judging.unclear`: a shout whose
  word was not made out, a hand event below the hand threshold, a card below the card
  threshold) is weighed by its readings (:func:`referee.judging.ikatako_doubt.versus_doubt`,
  :func:`referee.judging.ikatako_coop.coop_doubt`): a player the readings disagree on is
  *unclear* (``unclear``: no penalty, no point), and one who may have been as fast as the
  fastest correct player makes the first unclear (``first_unclear``: nobody takes the card).
  A card not read judges nobody. The table's answers about card N (``Session.answers``)
  re-judge it as if the observation had been clear (``decided``).

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
from typing import Any

from referee.judging import unclear as uc
from referee.judging.base import GameJudge, LivePlay
from referee.judging.ikatako_acts import Act, Hands, Slot, collect_acts, is_reaction, sec, us, window_end_at
from referee.judging.ikatako_assess import assess_coop
from referee.judging.ikatako_coop import coop_declared, judge_card_coop
from referee.judging.ikatako_doubt import CardWindow
from referee.judging.ikatako_first import rank_first
from referee.judging.ikatako_versus import judge_card_versus, versus_statuses
from referee.judging.ikatako_words import (describe, describe_expected, first_unknown_text,  # noqa: F401
                                           format_table, hands_text, late_text, settle_hint, unclear_notes,
                                           words_text)
from referee.judging.verdicts.ikatako import CoopResult, VersusResult
from referee.judging.view import lack_text
from rules import ikatako as rk
from session.errors import RulesError
from session.events import CardEvent, ChoiceEvent, DecisionEvent, EndEvent, Event, HandEvent, ShoutEvent


#: hands and shouts before the first card are kept this long (seconds) in case the first card
#: turns out to have been seen late (a camera gap is at most the camera's 2-s ring)
BEFORE_FIRST_CARD_S = 30.0


def _flipper(session, card: CardEvent) -> str | None:
    """Who flipped the card, when the record names a player at the table."""
    by = card.by if card.by in session.players else None
    if card.by is not None and by is None:
        session.warn(f"card {card.card!r} at t={card.t:.3f} s was flipped by "
                     f"{card.by!r}, who is not at the table; 'by' ignored", card)
    return by


@dataclass
class _Open:
    """The card whose window is open: what the announcements need to know about it."""

    slot: Slot
    cid: str
    expected: Any  # rules.ikatako.Reaction
    reveal: dict[str, Any] | None = None  # versus: the Reveal outcome's details
    player: str | None = None  # co-op/solo: the active player
    said: set = field(default_factory=set)  # announcement keys already given


class Judge(GameJudge):
    """The incremental IKATAKO judge (versus, co-op, solo).

    **Verdicts.** A card's verdict line comes out of :meth:`feed` when the next card is
    revealed (any card, even one the deck lacks) or at ``end``, else at :meth:`finish`:
    until then a ``decision`` (who takes a tie) or a ``choice`` (penalty card, uzushio,
    salvage) may still come, and hand events after the window still move the hands. The
    time alone never makes a verdict final, so :meth:`advance` gives nothing.

    **Bad input** is filtered event by event as it arrives. The three aggregated warnings
    ("N event(s) name X, who is not at the table", "N unattributed shout(s)", "N event(s)
    after the 'end' event") are given at :meth:`finish`, when the count is known; the set of
    notes is the one the old batch reader gave, only their order changed (the aggregated
    ones come last instead of first).

    **Announcements** (:meth:`announce`, watermark ``t``: every event earlier than ``t``
    has been fed). Only events earlier than ``t`` are looked at; a card's announcements
    stop when its verdict line is out (the verdict says the rest). Versus:

    * ``first`` (``player``, ``time`` after the card, ``margin`` to the next correct player,
      ``None`` while nobody else is correct yet) or ``tie`` (``players``) when it is
      settled: the player's reaction is complete (first utterance and every required hand
      up) and correct, and ``t`` is past their reaction time + ``tie_ms`` (strictly: at
      that very instant a tying reaction may still arrive) or past the window's end. No
      later reaction can then beat or tie them: it would end at ``t`` or later;
    * ``wrong`` / ``missed`` (``player``, ``why``) and ``nobody`` (a reaction was due and
      nobody was correct) once ``t`` is past the window's end (the window is then known
      in full);

    co-op/solo: ``ok`` (``player``, ``time``) or ``miss`` (``player``, ``why``) once the
    declaration is complete (all its words said and every required hand up) or ``t`` is
    past the window's end.

    No ``first`` (nor ``tie``) is announced while an unclear observation may have been as fast
    (the verdict says ``first_unclear``), no ``wrong``/``missed`` for an unclear player, no
    ``nobody`` while an unclear player may have been right, and nothing on a card not read.

    A player who was *not heard* (or not seen) and could have been first
    (:func:`referee.judging.ikatako_first.could_have_been_first`) makes the card's first
    unknown: instead of ``first`` the judge announces a ``tie`` (``players``: the fastest heard, or the heard tie, then
    those candidates; ``first_unknown``: the candidates), at the same moment ``first`` would
    have come. Decision: announce rather than wait for the window's end, because the table
    must settle it with a ``decision`` before the next card, and every live view already
    shows a tie and offers its key; naming the heard fastest first would hand them the card
    on missing evidence. A stretch of missing audio reported after that moment (a late
    ``skipped``) cannot take back a ``first`` already announced; the verdict then says
    ``first_unknown``.

    The one case where the verdict can still differ from an announcement: a player
    announced ``first``/``ok`` (or in a ``tie``) raises a hand that was not asked for
    later in the window; the verdict then makes them wrong (and announces ``wrong`` at the
    window's end). A tie is announced as a tie; who takes it (a ``decision``) only the
    verdict says. The verdict line is always what counts.
    """

    takes_answers = True

    def __init__(self, session) -> None:
        super().__init__(session)
        self.mode = session.header.mode or "versus"
        if self.mode not in rk.GAME.modes:
            raise RulesError(f"unknown IKATAKO mode {self.mode!r} (modes: {', '.join(rk.GAME.modes)})")
        self.players = list(session.players)
        self._known_players = set(self.players)
        self.state = rk.GAME.new_state(self.players, self.mode, session.options)
        if self.mode == "versus":
            self.state.apply(rk.Remove(None))
            self.seconds = session.options["window"]
        else:
            self.seconds = session.options["window"]
            if session.options["three_count"]:
                self.seconds = min(self.seconds, rk.THREE_COUNT_S)
        self.hands = Hands(self.players)
        self.slot: Slot | None = None
        self.open: _Open | None = None  # None: no card, or a card without a verdict
        self.ended = False
        self._unknown: dict[str, list[float]] = defaultdict(list)
        self._unattributed: list[float] = []
        self._uncredited: list[float] = []  # a room microphone's words no seat's hands claimed
        self._after_end = 0
        self._watermark: float | None = None
        self._late: tuple[float, float | None] | None = None  # the next card's time, its earliest
        self._before: list[Event] = []  # hands and shouts before the first card (hands not applied yet)
        self.verdicts = 0  # verdict lines so far: the next card's number is this + 1 (answers name it)
        self.unclear: dict[str, int] = defaultdict(int)  # unclear items per player (the result's count)

    # --------------------------------------------------------------- events in
    def _known(self, ev: Event, name: str | None) -> bool:
        if name in self._known_players:
            return True
        self._unknown[str(name)].append(ev.t)
        return False

    def _counts(self, ev: Event) -> bool:
        """False for an event that cannot count (noted for the aggregated warnings)."""
        if isinstance(ev, ShoutEvent) and ev.player is None:
            (self._uncredited if "uncredited" in ev.extra else self._unattributed).append(ev.t)
            return False
        if isinstance(ev, (HandEvent, ShoutEvent)):
            return self._known(ev, ev.player)
        if isinstance(ev, DecisionEvent):
            return self._known(ev, ev.first)
        if isinstance(ev, ChoiceEvent):
            return self._known(ev, ev.player)
        return True

    def feed(self, event: Event) -> list[dict[str, Any]]:
        if self.ended:
            self._after_end += 1
            return []
        if isinstance(event, EndEvent):
            self.ended = True
            if self.slot is not None:
                self.slot.stop = us(event.t)
            return self._close()
        if not self._counts(event):
            return []
        if isinstance(event, CardEvent):
            start, doubt_from = self._late_span(event)
            moved = self._reactions_from(start)
            doubt: list[Event] = []
            if self.slot is not None:
                self.slot.stop = start
                if doubt_from is not None:
                    doubt = [e for e in self.slot.events if is_reaction(e) and us(e.t) >= doubt_from]
                    self.slot.next_card = (event.card, us(event.t), doubt_from)
            out = self._close()
            self._reveal(event, start, moved, doubt_from, doubt)
            return out
        if self.slot is not None:
            self.slot.events.append(event)
        elif isinstance(event, (HandEvent, ShoutEvent)):  # before the first card: kept a while, in
            self._before.append(event)  # case the first card was seen late
            while self._before and self._before[0].t < event.t - BEFORE_FIRST_CARD_S:
                self._apply_before(self._before.pop(0))
        return []

    def card_seen_late(self, warning: Event) -> list[dict[str, Any]]:
        """The camera may have seen the next field card late (a ``warning`` with
        ``card_time_uncertain``, just before the card event at the same time): see
        :meth:`_late_span`."""
        if not self.ended and warning.extra.get("zone", "field") == "field":
            earliest = warning.extra.get("earliest")
            if earliest is not None and (isinstance(earliest, bool) or not isinstance(earliest, (int, float))
                                         or not earliest <= warning.t):
                self.session.warn(f"card-time warning at t={warning.t:.3f} s: earliest {earliest!r} is not a time "
                                  "at or before the card's; taken as not known", warning)
                earliest = None
            self._late = (warning.t, None if earliest is None else float(earliest))
        return []

    def _late_span(self, card: CardEvent) -> tuple[int, int | None]:
        """Where ``card``'s window surely starts, and where it may start when that is earlier
        (None: it starts at the card's time, or surely where it starts).

        Decision (the rulebook is silent; a window ends "when the next card is revealed"): a
        card the camera saw after a gap in the frames it was given may have come at any moment
        of that gap, from the warning's ``earliest``. The hands and shouts of the gap that the
        card before can no longer count (after its window) were reactions to this card: they
        count for it, and its reaction times are measured from where they start. Those still
        inside the card before's window could be to either card: they stay with the card
        before, and a verdict that would rest on them — wrong or missed on either card — is
        *not judged* instead (no penalty); such a player who reacted before the fastest correct
        one makes this card's first unknown. The window's length still counts from the time the
        card was seen, so nobody is late on that evidence. A warning without ``earliest`` (the
        frames before were no longer kept) moves only what the card before cannot count."""
        late, self._late = self._late, None
        t = us(card.t)
        if late is None or late[0] != card.t:
            return t, None
        prev = self.slot
        if prev is None:  # the first card: nothing before it to share the gap with
            return (t, None) if late[1] is None else (min(us(late[1]), t), None)
        prev_end = prev.at + us(self.seconds)
        earliest = prev_end if late[1] is None else max(us(late[1]), prev.at + 1)
        sure = min(max(earliest, prev_end), t)
        return sure, (earliest if earliest < sure else None)

    def _reactions_from(self, start: int) -> list[Event]:
        """The hands and shouts from ``start`` on, taken from the card before (or from the time
        before the first card, whose other hands are applied now)."""
        if self.slot is not None:
            return self.slot.take_reactions_from(start)
        moved = [e for e in self._before if us(e.t) >= start]
        for ev in self._before:
            if us(ev.t) < start:
                self._apply_before(ev)
        self._before = []
        return moved

    def _apply_before(self, ev: Event) -> None:
        if isinstance(ev, HandEvent):  # before the first card only the hands matter
            self.hands.update(ev)
        elif isinstance(ev, ShoutEvent) and ev.player:  # ... and whether a player was still speaking
            self.hands.heard(ev)

    def unread_card(self, warning: Event) -> list[dict[str, Any]]:
        """The camera saw a card arrive in the field but could not read it (a ``warning``
        with ``unread``): it closes the previous card's window like any card — its
        reactions are not merged into the card before — and gets no verdict."""
        if self.ended or warning.extra.get("zone", "field") != "field":
            return []
        moved = self._reactions_from(us(warning.t))  # none but what waited for a first card
        if self.slot is not None:
            self.slot.stop = us(warning.t)
        out = self._close()
        self.slot = Slot(CardEvent(t=warning.t, card="?", zone="field", line=warning.line), us(warning.t), None, moved)
        self.open = None
        self.session.warn(f"a card came into the field at t={warning.t:.3f} s but was not recognised; no verdict "
                          "for it (the reactions after it do not count for the card before)", warning)
        return out

    def _reveal(self, card: CardEvent, start: int, moved: list[Event], doubt_from: int | None = None,
                doubt: list[Event] | None = None) -> None:
        t = us(card.t)
        late = start < t or doubt_from is not None
        self.slot = Slot(card, start, None, list(moved), t if late else None, doubt_from, list(doubt or []))
        self.open = None
        by = _flipper(self.session, card)
        if self.mode != "versus" and self.state.is_over:
            self.session.warn(f"card {card.card!r} at t={card.t:.3f} s comes after the game is over; no verdict", card)
            return
        try:
            cid = rk.check_card(card.card)
            out = self.state.apply(rk.Reveal(card.card, by))
        except RulesError as exc:
            self.session.warn(f"card {card.card!r} at t={card.t:.3f} s: {exc}; no verdict", card)
            return
        if self.mode == "versus":
            reveal = dict(out.details)
            self.open = _Open(self.slot, reveal["card"], rk.expected_reaction(reveal["card"], reveal["troubles"]),
                              reveal=reveal)
        else:
            self.open = _Open(self.slot, cid, self.state.expected(), player=self.state.active_player)

    def _close(self) -> list[dict[str, Any]]:
        """The verdict of the card whose window the next card (or the end) just closed."""
        slot, live = self.slot, self.open
        self.slot = self.open = None
        if slot is None:
            return []
        if live is None:
            collect_acts(slot, self.players, self.hands, -1)  # keep the hands' state
            return []
        self.verdicts += 1
        if self.mode == "versus":
            verdict = judge_card_versus(self.session, slot, live.reveal, self.state, self.hands, self.players,
                                        self.verdicts)
        else:
            verdict = judge_card_coop(self.session, slot, self.state, self.hands, self.players, self.seconds,
                                      self.verdicts)
        for p in verdict.unclear:
            self.unclear[p] += 1
        return [verdict.to_dict()]

    def finish(self) -> list[dict[str, Any]]:
        out = self._close()
        warn = self.session.warn
        for name, times in sorted(self._unknown.items()):
            warn(f"{len(times)} event(s) name {name!r}, who is not at the table "
                 f"({', '.join(self.session.players)}); first at t={times[0]:.3f} s; ignored")
        if self._unattributed:
            warn(f"{len(self._unattributed)} unattributed shout(s) (player null) ignored; "
                 f"first at t={self._unattributed[0]:.3f} s")
        if self._uncredited:
            warn(f"{len(self._uncredited)} word(s) of the room microphone not credited to a seat (no single "
                 f"seat's hands moved with it, or another word too close; each says why): those seats are "
                 f"not heard on those cards; first at t={self._uncredited[0]:.3f} s")
        if self._after_end:
            warn(f"{self._after_end} event(s) after the 'end' event ignored")
        # the result's unclear counts only when something was unclear: a clear record's result stays as it was
        kind = VersusResult if self.mode == "versus" else CoopResult
        result = kind(mode=self.mode, **self.state.result(),
                      unclear={p: self.unclear[p] for p in self.players} if self.unclear else {})
        out.append(result.to_dict())
        return out

    # --------------------------------------------------------------- announcements
    def announce(self, t: float) -> list[dict[str, Any]]:
        live = self.open
        if live is None:
            return []
        horizon = us(t)
        slot = live.slot
        seen = Slot(slot.card, slot.t0, None, [e for e in slot.events if us(e.t) < horizon], slot.seen,
                    slot.doubt_from, slot.doubt_events)
        window_end = window_end_at(seen, self.seconds)
        acts = collect_acts(seen, self.players, self.hands.copy(), window_end)
        closed = horizon > window_end
        base = {"type": "announce", "t": t, "card": live.cid, "card_t": sec(slot.at)}
        ctx = CardWindow(self.session, seen, live.expected, live.cid, window_end, self.seconds, self.players,
                         self.hands.copy())
        if uc.card_not_read(slot.card, ctx.clarity):
            return []  # nobody is judged on a card that was not read: nothing to announce
        if self.mode == "versus":
            found = self._announce_versus(ctx, acts, closed, horizon)
        else:
            found = self._announce_coop(ctx, live.player, acts[live.player], closed)
        out = []
        for key, what in found:
            if key not in live.said:
                live.said.add(key)
                out.append({**base, **what})
        return out

    def _announce_versus(self, ctx: CardWindow, acts, closed: bool, horizon: int):
        """What is settled about the open versus card (see the class): the first, a tie or an
        unknown first once nobody can still beat them — nothing while an unclear observation
        may have been faster — and the wrong and missed once the window is closed."""
        t0, expected = ctx.slot.t0, ctx.expected
        st = versus_statuses(ctx, acts, None, None)
        fi = rank_first(ctx, st, acts)
        order, correct = fi.order, st.correct
        tie_us = round(self.session.options["tie_ms"] * 1000)
        found = []
        if order and (closed or horizon > t0 + correct[order[0]] + tie_us) and not fi.unclear:
            if fi.unknown:
                lacks = {p: lack_text(str(st.unjudged[p])) for p in fi.unknown}
                found.append(("first", {"what": "tie", "players": fi.tie,
                                        "time": sec(correct[order[0]]), "first_unknown": fi.unknown,
                                        # what was lacking, when it is not the usual "not heard"
                                        **({"lacks": lacks} if set(lacks.values()) != {"not heard"} else {})}))
            elif fi.tie:
                found.append(("first", {"what": "tie", "players": fi.tie, "time": sec(correct[order[0]])}))
            else:
                margin = sec(correct[order[1]] - correct[order[0]]) if len(order) > 1 else None
                found.append(("first", {"what": "first", "player": order[0], "time": sec(correct[order[0]]),
                                        "margin": margin}))
        if closed:
            for kind, who in (("wrong", st.wrong), ("missed", st.missed)):
                for p in self.players:
                    if p in who:
                        found.append(((kind, p), {"what": kind, "player": p, "why": who[p]}))
            if expected.required and not order and not st.early:
                found.append(("nobody", {"what": "nobody"}))
        return found

    def _announce_coop(self, ctx: CardWindow, player: str, act: Act, closed: bool):
        expected = ctx.expected
        problems, done_at = assess_coop(act, expected, self.seconds, ctx.window_end)
        complete = done_at is not None and all(s in act.ups for s in expected.sides)
        if not (closed or complete):
            return []
        d = coop_declared(ctx, player, act, None)
        if d.unclear is not None:
            return []  # not heard, unclear, or a card seen late: no miss to announce (the verdict says why)
        if not d.ok:
            return [("declaration", {"what": "miss", "player": player, "why": d.why})]
        return [("declaration", {"what": "ok", "player": player, "time": sec(d.time - ctx.slot.t0)})]


def _live_prompts(item: dict[str, Any], players, state: Any = None) -> list:
    """The first player on an uzushio card may push a penalty onto another player (default:
    no effect); a player announced wrong or missed turns a point card of their choice face
    down (default: the rules' ``penalty_card`` policy, the lowest) — the cards they hold are in
    the judge's rules ``state`` (asked only when they hold two different ones)."""
    from referee.live.controls import Prompt

    what, who, card_t = item.get("what"), item.get("player"), item.get("card_t")
    if what == "first" and who and str(item.get("card", "")).startswith("uzushio"):
        others = [p for p in players if p != who]
        return [Prompt("uzushio", who, f"{who}: push a penalty (uzushio) onto whom?",
                       [(p, {"to": p}) for p in others], "no effect", card_t=card_t)]
    if what in ("wrong", "missed") and who:
        points = getattr(state, "points", None)
        held = sorted(set(points.get(who, ()))) if isinstance(points, dict) else []
        if len(held) >= 2:
            policy = (getattr(state, "options", None) or {}).get("penalty_card", "lowest")
            return [Prompt("penalty", who, f"{who}: which point card goes face down?",
                           [(c, {"card": c}) for c in held], f"the {policy} card", card_t=card_t)]
    return []


def _live_expect(card: str, troubles: list[str]) -> str | None:
    """The reaction ``card`` asks for with ``troubles`` in the field; a trouble card joins
    them (troubles stay in the field all game)."""
    text = describe_expected(rk.expected_reaction(card, troubles).to_dict())
    if rk.kind(card) == "trouble" and card not in troubles:
        troubles.append(card)
    return text


LIVE = LivePlay(prompts=_live_prompts, expect=_live_expect, expect_modes=("versus",),
                keys=("strike", "tie", "prompt"),
                legend={"versus": ("score = points - penalties", "turns down: a point card face down (penalty)",
                                   "sunk: final score 0 or less")})


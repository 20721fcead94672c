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
Herd effects at the tally are not applied (the catalogue lacks them). The catalogue is the
shipped one with the group's answers laid over it (:mod:`referee.toratanu_answers`).

**A night from the camera** (issue 34 item 3). At the table no call ends a night: the round
ends by itself once every player has escaped their last card (10, 12 or 15 turns), then each
player makes their sets face down and everyone turns their cards over. So the camera reads
the revealed hands; nothing is typed or said, and the keyboard has nothing to add:
- the special card lies face up beside the deck in the zone ``pile0`` (calibration: "special
  card"); a card read there (a ``card`` event) starts a new night, as a ``special`` choice
  does. A special card not read there (the zone's ``unread`` warning) starts a night whose
  tallies are all unclear (its +50 / +5 are unknown), never scored without it.
- each player's hand at the tally lies in their zone ``p:NAME:spread`` (the cards turned
  face up in front of them; the escape row is laid outside the zone), read once still
  (:mod:`vision.spread_watch`: a ``choice`` ``hand`` with ``source`` camera). It counts as
  the player's tally once it holds at least a hand's cards (9; 12 with 2 players), read or
  unclear: fewer is a hand still being laid out or turned over (a card face down is no card
  to the reading). A later read replaces an earlier one until the night is scored, once every
  player's tally is in; then the zones' reads wait for the next special card (the cards
  lying on after the verdict never score a second night).
- a card found but not read, or something over the cards (a hand), makes that player's tally
  **unclear**: no score, the reason in the verdict's ``unclear``, never scored as another
  card. So does a hand whose scoring needs a field the catalogue lacks: the referee asks once
  (a warning naming the field and the command that gives it; the verdict's ``needs``) and
  remembers the answer for later nights and sessions (:mod:`referee.toratanu_answers`).
- the best arrangement is the referee's (the camera does not see how the sets were grouped);
  a typed ``tally`` of a player replaces the camera's. Known limit: captured and Doubutsuen
  sets are not told from the hand by the camera (a captured set's card lies sideways): type
  that player's tally.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from session.errors import RulesError
from session.events import CardEvent, ChoiceEvent, EndEvent, Event
from rules.toratanu import SETUP, best_arrangement, parse_card, score_arrangement
from referee import toratanu_answers as answers
from referee.judging.base import GameJudge, LivePlay
from referee.judging.verdicts.toratanu import TallyVerdict, ToratanuResult
from referee.report_spread import spread_times
from referee.report_toratanu import toratanu_evidence

#: the calibration's zone of the special card (TORATANU's one shared card zone)
SPECIAL_ZONE = "pile0"


@dataclass(frozen=True)
class NightInPlay:
    """What :attr:`Judge.state` gives: the night being played (``night``, from 1), its
    special card (None: not seen yet, or ``special_unread`` says why it is unknown), each
    hand in (``{player: cards}``, read by the camera or typed) and why one is unclear, how
    many cards make a hand (``hand_size``), whether tonight is already scored (``closed``:
    the cards still lying there wait for the next special card) and the running ``totals``."""

    night: int
    special: str | None
    special_unread: str | None
    hands: dict[str, list[str]]
    unclear: dict[str, str]
    hand_size: int
    closed: bool
    totals: dict[str, int]


def camera_code(code: str) -> str:
    """A code as the camera writes it (``owl:blue-5`` from an older reading, ``owl-blue-5``
    from a card zone) -> the rules' notation ``owl:blue:5``."""
    return str(code).replace("-", ":")


class Judge(GameJudge):
    """A game's verdict is said at the tally that completes it (every player's): the
    scores of a complete tally can no longer change."""

    def __init__(self, session) -> None:
        super().__init__(session)
        self.players = list(session.players)
        self.games = session.options["games"]
        self.cat = answers.catalogue()
        self.hand_size = SETUP.get(len(self.players), (9, 0))[0]
        self.totals = {p: 0 for p in self.players}
        self.special: str | None = None
        self.special_unread: str | None = None  # why tonight's special card is unknown
        self.tallies: dict[str, ChoiceEvent] = {}
        self.camera: dict[str, dict[str, Any]] = {}  # player -> {"cards", "unclear"}: tonight's read hands
        self.closed = False  # tonight is scored: camera hands wait for the next special card
        self.cleared = False  # after the verdict: the special card's zone was seen emptied
        self.asked: set[str] = set()
        self.played = 0
        self.ended = False

    def feed(self, ev: Event) -> list[dict[str, Any]]:
        if self.ended or self.played >= self.games:
            self.ended = self.ended or isinstance(ev, EndEvent)
            return []
        if isinstance(ev, CardEvent) and ev.zone == SPECIAL_ZONE:
            return self._new_night(ev, camera_code(ev.card))
        if not isinstance(ev, ChoiceEvent):
            self.ended = isinstance(ev, EndEvent)
            return []
        warn = self.session.warn
        if ev.action == "special":
            return self._new_night(ev, ev.get("card"))
        if ev.action == "hand" and ev.get("source") == "camera":
            return self._camera_hand(ev)
        if ev.action != "tally":
            return []
        if ev.player not in self.totals:
            warn(f"t={ev.t}: tally of {ev.player!r}, who is not playing: ignored", ev)
            return []
        problem = _shape_problem(ev)
        if problem:
            warn(f"t={ev.t}: tally of {ev.player} ignored: {problem}", ev)
            return []
        if self.special is None and self.special_unread is None:
            warn(f"t={ev.t}: tally of {ev.player} before a special card was declared (scored without one)", ev)
        try:
            _best(ev, self.special, self.cat)
        except RulesError as exc:
            warn(f"t={ev.t}: tally of {ev.player} ignored: {exc}", ev)
            return []
        self.tallies[ev.player] = ev
        return self._score(ev)

    @property
    def state(self) -> NightInPlay:
        """The night as it stands, read-only (the live tallies): the special card, each hand
        in and why one is unclear, the running totals."""
        hands = {p: list(read["cards"]) for p, read in self.camera.items()}
        hands.update({p: list(ev.get("hand") or []) for p, ev in self.tallies.items()})
        unclear = {p: read["unclear"] for p, read in self.camera.items() if read["unclear"] and p not in self.tallies}
        return NightInPlay(night=min(self.played + (0 if self.closed else 1), self.games) or 1, special=self.special,
                           special_unread=self.special_unread, hands=hands, unclear=unclear,
                           hand_size=self.hand_size, closed=self.closed, totals=dict(self.totals))

    def unread_card(self, warning: Event) -> list[dict[str, Any]]:
        """The special card's zone changed and no card was read there. After a night's
        verdict the first such change is the table cleared (the card taken away: the card
        zone says the same of an emptied zone); otherwise, with no special card known, a
        night starts whose special card is unknown (its tallies unclear). A special card
        known tonight stays (the zone's card moved, or a hand lay on it)."""
        if self.ended or warning.extra.get("zone") != SPECIAL_ZONE:
            return []
        if self.closed and not self.cleared:
            self.cleared = True
            return []
        if self.special is not None and not self.closed:
            self.session.warn(f"t={warning.t}: the special card's zone changed and nothing was read there: "
                              f"tonight's special card stays {self.special}", warning)
            return []
        self._new_night(warning, None)
        self.special_unread = f"the special card was not read (at {warning.t:.1f} s): its bonuses are unknown"
        self.session.warn(f"t={warning.t}: {self.special_unread}; tonight's tallies are unclear", warning)
        return []

    def _new_night(self, ev: Event, card) -> list[dict[str, Any]]:
        special = None
        if card is not None:
            try:
                special = str(parse_card(card, self.cat))
            except RulesError as exc:
                self.session.warn(f"t={ev.t}: special card ignored: {exc}", ev)
                return []
        if self.tallies or self.camera:
            self.session.warn(f"t={ev.t}: a new game started before every tally was in: the last game is not "
                              "scored", ev)
        self.special, self.special_unread, self.tallies, self.camera = special, None, {}, {}
        self.closed = self.cleared = False
        return []

    def _camera_hand(self, ev: ChoiceEvent) -> list[dict[str, Any]]:
        """A player's zone read by the camera: their tally once it holds a hand's cards."""
        if self.closed or ev.player not in self.totals:
            return []
        seen = ev.get("seen")
        reasons = [str(r) for r in ev.get("unclear") or []]
        cards = [camera_code(c) for c in ev.get("cards") or []]
        found = len(seen) if isinstance(seen, list) else len(cards) + len(reasons)
        if found < self.hand_size:
            return []  # (a hand being laid out or turned over)
        why = None
        if reasons:
            why = f"{len(reasons)} not read: " + "; ".join(reasons)
        else:
            bad = []
            for c in cards:
                try:
                    parse_card(c, self.cat)
                except RulesError as exc:
                    bad.append(str(exc))
            why = ("a card read is no card of the catalogue: " + "; ".join(bad)) if bad else None
        self.camera[ev.player] = {"cards": cards, "unclear": why}
        return self._score(ev)

    def _camera_tally(self, player: str, verdict: TallyVerdict, ev: Event) -> None:
        """A camera tally into ``verdict``: its best arrangement, or unclear and why."""
        read = self.camera[player]
        if read["unclear"]:
            verdict.unclear[player] = read["unclear"]
            return
        fields = answers.needed_fields(read["cards"], self.cat)
        if fields:
            verdict.unclear[player] = f"{player}'s hand needs what " + answers.ask_text(fields)
            verdict.needs[player] = fields
            new = [f for f in fields if f not in self.asked]
            if new:
                self.asked.update(new)
                self.session.warn(f"t={ev.t}: {player}'s tally is unclear: " + answers.ask_text(new, where=True), ev)
            return
        try:
            best = best_arrangement(read["cards"], self.special, catalogue=self.cat)
        except RulesError as exc:
            verdict.unclear[player] = f"cannot be scored: {exc}"
            return
        verdict.scores[player] = best.total
        verdict.declared[player] = None
        verdict.missed[player] = 0
        verdict.best[player] = {**best.to_dict(), "explain": best.explain()}

    def _score(self, ev: Event) -> list[dict[str, Any]]:
        """Tonight's verdict once every player's tally (typed or read) is in (else nothing)."""
        if not all(p in self.tallies or p in self.camera for p in self.players):
            return []
        self.played += 1
        special = self.special
        if special is None and self.special_unread is None and self.camera:
            self.session.warn(f"t={ev.t}: the hands read before a special card was seen (no card in the zone "
                              f"{SPECIAL_ZONE}): scored without one", ev)
        verdict = TallyVerdict(t=ev.t, game=self.played, special=special)
        for p in self.players:
            if self.special_unread:
                verdict.unclear[p] = self.special_unread
            elif p in self.tallies:
                best = _best(self.tallies[p], special, self.cat)
                declared = _declared(self.session, self.tallies[p], special, self.cat)
                got = best.total if declared is None else declared
                verdict.scores[p] = got
                verdict.declared[p] = declared
                verdict.missed[p] = best.total - got
                verdict.best[p] = {**best.to_dict(), "explain": best.explain()}
            else:
                self._camera_tally(p, verdict, ev)
        for p, got in verdict.scores.items():
            self.totals[p] += got
        self.tallies, self.camera, self.special, self.special_unread = {}, {}, None, None
        self.closed, self.cleared = True, False
        return [replace(verdict, totals=dict(self.totals)).to_dict()]

    def finish(self) -> list[dict[str, Any]]:
        if self.tallies or self.camera:
            self.session.warn("the record ends before every tally of the last game was in: not scored")
        top = max(self.totals.values())
        done = self.played >= self.games
        return [ToratanuResult(scores=dict(self.totals), games=self.played, of=self.games,
                               winners=[p for p in self.players if self.totals[p] == top] if done else [],
                               finished=done).to_dict()]


#: the dispute report's evidence beside a night's verdict: each card's crop and code, and
#: each player's best arrangement (referee.report)
report_evidence = toratanu_evidence
#: the frames that evidence shows, decoded with the report's others in one pass
report_evidence_times = spread_times
#: the live table: nothing to type or answer (the camera reads the hands)
LIVE = LivePlay(keys=())


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


def _best(ev: ChoiceEvent, special, cat):
    return best_arrangement(ev.get("hand") or [], special, ev.get("captured") or [], ev.get("doubutsuen") or [],
                            catalogue=cat)


def _declared(session, ev: ChoiceEvent, special, cat) -> int | None:
    sets = ev.get("sets")
    if sets is None:
        return None
    hand = [str(parse_card(c, cat)) for c in ev.get("hand") or []]
    used = [str(parse_card(c, cat)) for s in sets for c in s]
    if Counter(used) - Counter(hand):
        session.warn(f"t={ev.t}: {ev.player}'s sets use cards not in the hand: scored with the best arrangement", ev)
        return None
    loose = list((Counter(hand) - Counter(used)).elements())
    try:
        return score_arrangement(sets, loose, special, ev.get("captured") or [], ev.get("doubutsuen") or [],
                                 catalogue=cat)
    except RulesError as exc:
        session.warn(f"t={ev.t}: {ev.player}'s sets are not legal ({exc}): scored with the best arrangement", ev)
        return None


def format_table(judgement, header) -> str:
    lines = []
    for obj in judgement.lines:
        if obj.get("type") == "verdict":
            lines.append(f"game {obj['game']} (special {obj['special'] or '-'})")
            for p, why in (obj.get("unclear") or {}).items():
                lines.append(f"    {p:8} unclear: {why}  total {obj['totals'][p]:4}")
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


def describe(verdict):
    """A night for people (the dispute report): the special card, each player's score with
    its best arrangement, or "unclear" and why."""
    from referee.judging.view import UNCLEAR, VerdictView, text

    if verdict.get("type") != "verdict":
        from referee.judging.view import generic

        return generic(verdict)
    unclear = verdict.get("unclear") or {}
    tallies = []
    for p, total in (verdict.get("totals") or {}).items():
        if p in unclear:
            tallies.append((p, [[(f"unclear: {unclear[p]}", UNCLEAR), (f"  (total {total})", None)]]))
        elif p in (verdict.get("scores") or {}):
            best = verdict["best"][p]["explain"][:-1]
            tallies.append((p, text(f"scores {verdict['scores'][p]} (total {total}): " + "; ".join(best))))
    special = verdict.get("special") or "-"
    title = f"Night {verdict.get('game')}: the tally (special card {special})"
    columns = [("night", text(verdict.get("game"))), ("special card", text(special)),
               ("unclear", text(", ".join(unclear) or "-"))]
    return VerdictView(title=title, columns=columns, facts=tallies, status={p: UNCLEAR for p in unclear})


#: the live voice's words of a night (referee.live.voice asks the judging module)
from referee.judging.toratanu_words import announcement, announcement_text, phrase_text, phrases  # noqa: E402,F401

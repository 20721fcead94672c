"""Judging TAKOYAKI from ``card`` events (docs/rules.md, TAKOYAKI).

Zones: ``p:NAME:draw`` (NAME drew this card from the deck), ``p:NAME:take`` (NAME took
the top discard, option ``take_discard``), ``p:NAME:slotN`` (this card went face up on
NAME's slot N; ``slot1`` is the A slot; a turned card is seen when it is placed or
discarded), ``discard`` (the card went onto the discards; the player is ``by`` or, without
it, whoever is playing; ``pile0``, the calibrated zone of the discards, is the same). The
deal is face down and never seen.

Every card event gives one verdict: ``player``, ``action`` (draw/take/place/discard),
``legal`` and ``why`` (for an illegal move the exact reason: ``wrong slot``, ``slot
already face up``, ``J/Q/K placed``, ``turn should have ended``, ``placeable card
discarded``, ``out of turn``), ``next`` (who plays next by the rules) and ``face_up``.

The griddles, the turn and the win are the rules' own: a
:class:`rules.takoyaki.TakoyakiState` built ``hidden=True`` follows the table with
``strict=False`` moves and says of each whether it was legal and why; this module reads the
card events, says each verdict as soon as its card is seen, and counts the illegal moves.

Decisions (the spec is silent; the rules module applies them):
- The first ``draw`` decides who starts (the table decides by rock-paper-scissors).
- The referee's griddle model follows the table: an illegal placement is flagged but the
  card is where it was put (face up); a turn that should have ended (J/Q/K or a card of a
  face-up slot was placed) ends, for ``next``, at that card; later placements in the same
  chain are judged ``turn should have ended``.
- A griddle filled through an illegal placement is not a win; a filled griddle of legal
  placements is, and events after the win are ignored (with a warning; the winner's
  discard of the card turned from under the last slot, silently).
- When the next player draws before the current player's discard was seen, the turn is
  passed with a warning (perception may have missed the discard).
- **Draws the camera does not see** (issue 34): a camera sees a card only when it lands face
  up on a slot or on the discards, never the draw (the card is in the player's hand). Until
  a record has shown a ``draw`` or ``take`` event, the judge implies the draws: a placement
  on NAME's griddle while nobody holds a card (a new turn), or while the player before NAME
  still does (their discard was not seen: the turn passes, with the warning above), is
  preceded by NAME's draw of that card; a discard while nobody holds a card is the draw of
  the player to play (``by`` when given; the first seat when it is the record's first card),
  discarded at once (J, Q, K or a card of a face-up slot). The implied
  draw gives no verdict of its own; if it was out of turn, the card's verdict says so.
  A typed record (its first card event is a draw) is judged exactly as before.
- **A card the camera could not read** (a card zone's ``warning`` with ``unread``, on a slot
  or the discards: under a hand, glare, too like another card) leaves the griddles unknown
  from then on, so a move judged illegal after it is not a penalty: its verdict is *unclear*
  (``legal`` null, the player in ``unclear`` with the card not read; not counted as illegal),
  for the rest of the game. Legal moves are still judged; a win needs the griddle filled as read.
"""

from __future__ import annotations

import re
from typing import Any

from session.errors import RulesError
from session.events import CardEvent, EndEvent, Event
from rules.takoyaki import GAME, Discard, Draw, Place, TakeDiscard, parse_card, ranking
from referee.judging.base import GameJudge
from referee.judging.verdicts import ABSENT
from referee.judging.verdicts.takoyaki import MoveVerdict, TakoyakiResult

#: the calibration's name of the discards (the table's one shared pile, ``pile0``): a
#: camera's card event there is a discard
CAMERA_DISCARD = "pile0"
ZONE = re.compile(r"^p:(?P<player>[^:]+):(?P<what>draw|take|slot(?P<slot>\d+))$")


class Judge(GameJudge):
    """One verdict per card event, said at once: the move itself decides it. The griddles,
    the turn and the win are the rules' (:class:`rules.takoyaki.TakoyakiState` following
    the table with ``strict=False`` moves); this class reads the events and counts."""

    def __init__(self, session) -> None:
        super().__init__(session)
        # the rules validate the players, the mode and the griddle sizes (RulesError names them)
        self.state = GAME.new_state(list(session.players), mode=session.header.mode,
                                    options=session.options, hidden=True)
        self.illegal = {p: 0 for p in self.state.players}
        self.ended = False
        self.draws_seen = False  # a draw or take event was seen: draws are never implied
        #: why the griddles are not known since (a card the camera did not read), or None
        self.doubt: str | None = None

    def feed(self, ev: Event) -> list[dict[str, Any]]:
        if self.ended or not isinstance(ev, CardEvent):
            self.ended = self.ended or isinstance(ev, EndEvent)
            return []
        state, warn = self.state, self.session.warn
        zone = "discard" if ev.zone == CAMERA_DISCARD else (ev.zone or "")
        if state.winner is not None:
            if not (zone == "discard" and (ev.by in (None, state.winner))):
                warn(f"t={ev.t}: card {ev.card} after {state.winner} won: ignored", ev)
            return []
        try:
            card = parse_card(ev.card)
        except RulesError as exc:
            warn(f"t={ev.t}: {exc}: event ignored", ev)
            return []
        m = ZONE.match(zone)
        if m and m["what"] in ("draw", "take"):
            self.draws_seen = True
        drawn = None if self.draws_seen else self.implied_draw(m, zone, ev.by, card)
        if zone == "discard":
            move: Any = Discard(ev.by, card, strict=False)
        elif m and m["player"] in state.up:
            player = m["player"]
            move = (Draw(player, card, strict=False) if m["what"] == "draw" else
                    TakeDiscard(player, card, strict=False) if m["what"] == "take" else
                    Place(int(m["slot"]), player, card, strict=False))
        else:
            warn(f"t={ev.t}: card {card} in zone {zone or '(none)'}, which takoyaki does not use: ignored", ev)
            return []
        out = state.apply(move)
        d = out.details
        notes = list(d["notes"])
        if drawn is not None:
            notes = drawn["notes"] + notes
            if not drawn["legal"] and d["legal"]:
                d["legal"], d["why"] = False, drawn["why"]
        for note in notes:
            warn(f"t={ev.t}: {note}", ev)
        legal, unclear = d["legal"], {}
        if not legal and self.doubt is not None:  # not a penalty: the griddles are not known
            legal, unclear = None, {str(d["player"] or "-"): self.doubt}
        if legal is False and d["player"] in self.illegal:  # not a discard before anyone played
            self.illegal[d["player"]] += 1
        return [MoveVerdict(t=ev.t, player=d["player"], card=card, zone=ev.zone, action=out.kind, legal=legal,
                            why=d["why"], next=d["next"], face_up=d["face_up"], winner=d.get("winner"),
                            unclear=unclear).to_dict()]

    def unread_card(self, warning: Event) -> list[dict[str, Any]]:
        """A card zone's "card not recognised" on a slot or the discards: the moves judged
        illegal from here on are unclear (the module's decisions); no line of its own."""
        zone = warning.extra.get("zone")
        if self.ended or not (zone == CAMERA_DISCARD or (zone and ZONE.match(zone))):
            return []
        where = "on the discards" if zone == CAMERA_DISCARD else f"on {zone.split(':')[1]}'s slot {zone.rsplit('slot', 1)[1]}"
        self.doubt = self.doubt or f"a card {where} at {warning.t:.1f} s was not read"
        self.session.warn(f"t={warning.t}: a card {where} was not read: a move judged illegal from here on is unclear "
                          "(no penalty)", warning)
        return []

    def implied_draw(self, m, zone: str, by: str | None, card: str) -> dict[str, Any] | None:
        """The draw a camera record implies before this card (see the module's decisions),
        applied to the state; its outcome's details, or None when no draw is implied."""
        state = self.state
        turn = state.player
        if zone == "discard":
            if state.hand is not None:
                return None
            player = by or turn or state.players[0]
        elif m and m["what"].startswith("slot") and m["player"] in state.up:
            player = m["player"]
            if state.hand is not None and not (turn is not None and player != turn and player == state.next_of(turn)):
                return None
        else:
            return None
        return state.apply(Draw(player, card, strict=False)).details

    def finish(self) -> list[dict[str, Any]]:
        state = self.state
        face_up = state.face_up()
        solo = state.mode == "solo"
        result = TakoyakiResult(winners=[state.winner] if state.winner else [], face_up=face_up,
                                ranking=ranking(face_up, state.winner), turns=dict(state.turns),
                                illegal=dict(self.illegal), **state.kachinuki(),
                                finished=False if state.winner is None else ABSENT,
                                turns_needed=(state.turns[state.players[0]] if state.winner else None) if solo else ABSENT)
        return [result.to_dict()]


def format_table(judgement, header) -> str:
    """One line per card: time, player, action, card, legal or the reason, who is next."""
    lines = []
    for obj in judgement.lines:
        if obj.get("type") == "verdict":
            mark = "ok " if obj["legal"] else "BAD" if obj["legal"] is False else "?  "
            nxt = f"next {obj['next']}" if obj.get("next") else "game over"
            why = obj["why"] if obj["legal"] is not None else (
                f"unclear, no penalty: {'; '.join((obj.get('unclear') or {}).values())} (else: {obj['why']})")
            lines.append(f"{obj['t']:8.2f}  {obj['player'] or '-':8} {obj['action']:7} {obj['card']:>3}  "
                         f"{mark}  {nxt:12}  {why}")
        elif obj.get("type") == "result":
            winners = ", ".join(obj["winners"]) or "nobody (unfinished)"
            lines.append(f"winner: {winners}")
            for rank, group in enumerate(obj["ranking"], start=1):
                for p in group:
                    lines.append(f"  {rank}. {p:8} face up {obj['face_up'][p]:2}  turns {obj['turns'][p]:3}  "
                                 f"illegal {obj['illegal'][p]}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- said aloud
RANK_WORDS = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def card_words(card: str) -> str:
    """``7H`` -> "7 of hearts", ``AS`` -> "ace of spades", ``JK`` -> "joker"."""
    if card == "JK":
        return "joker"
    return f"{RANK_WORDS.get(card[:-1], card[:-1])} of {SUIT_WORDS[card[-1]]}"


def announcement(line: dict[str, Any]) -> tuple[str, ...]:
    """What the table hears of one TAKOYAKI verdict, as phrases from a finite set (each card's
    words, each slot's, a player's name and a few fixed words: :func:`phrases`), so a voice can
    render them all when the session starts. Decisions (the spec names three: an illegal
    placement, a chain's end, the winner): an illegal move is said with its card and where it
    went ("7 of hearts", "on the 6 slot", "wrong slot"); a legal discard ends the chain ("ben",
    "turn ends", "aki", "to play"); the winning placement ("aki", "wins"); a legal placement
    that continues the chain is not said (the table sees it)."""
    if line.get("type") != "verdict":
        return ()
    player, card, zone = line.get("player"), line.get("card", ""), line.get("zone") or ""
    m = ZONE.match(zone)
    where = (f"on the {'ace' if m['slot'] == '1' else m['slot']} slot",) if m and m["slot"] else ("discarded",)
    if line.get("winner"):
        return (str(line["winner"]), "wins")
    if line.get("legal", True) is None:  # unclear: not said as illegal (the table sees it)
        return ()
    if not line.get("legal", True):
        reason = str(line.get("why", "")).split(":")[0]
        return (card_words(card), *where, reason if reason in ILLEGAL_WORDS else "illegal")
    if line.get("action") == "discard" and line.get("next"):
        return (str(player), "turn ends", str(line["next"]), "to play")
    return ()


#: the reasons of an illegal move said as they are (the first words of ``why``)
ILLEGAL_WORDS = ("wrong slot", "slot already face up", "J/Q/K placed", "turn should have ended",
                 "placeable card discarded", "out of turn", "not the card in hand")


def phrases(players) -> set[str]:
    """Every phrase :func:`announcement` can say at a table of ``players``."""
    from rules.takoyaki import GAME as _G

    cards = {card_words(c) for c in _G.faces}
    slots = {f"on the {'ace' if k == 1 else k} slot" for k in range(1, 11)} | {"discarded"}
    return cards | slots | set(ILLEGAL_WORDS) | {"illegal", "wins", "turn ends", "to play"} | set(players)


#: the fixed phrases in Japanese (the live voice's ``--lang ja``, as IKATAKO's verdicts);
#: cards, slots and names are made by :func:`phrase_text`
JA_WORDS = {"wrong slot": "マスがちがいます", "slot already face up": "そのマスはもう表です",
            "J/Q/K placed": "絵札は置けません", "turn should have ended": "ターンは終わっていました",
            "placeable card discarded": "置けるカードを捨てました", "out of turn": "順番がちがいます",
            "not the card in hand": "引いたカードではありません", "illegal": "反則", "wins": "の勝ち",
            "turn ends": "ターン終了", "to play": "の番", "discarded": "捨て札"}
JA_RANKS = {"ace": "エース", "jack": "ジャック", "queen": "クイーン", "king": "キング"}
JA_SUITS = {"spades": "スペード", "hearts": "ハート", "diamonds": "ダイヤ", "clubs": "クラブ"}
_CARD_WORDS = re.compile(r"^(?P<rank>\w+) of (?P<suit>\w+)$")
_SLOT_WORDS = re.compile(r"^on the (?P<slot>\w+) slot$")


def phrase_text(phrase: str, lang: str) -> str:
    """One phrase of :func:`phrases` in the table's language: English as it is; ``ja``: "7 of
    hearts" -> "ハートの7", "on the 6 slot" -> "6のマス", the fixed words of :data:`JA_WORDS`;
    a player's name as it is (as IKATAKO's voice says it)."""
    if lang == "en":
        return phrase
    if phrase in JA_WORDS:
        return JA_WORDS[phrase]
    if phrase == "joker":
        return "ジョーカー"
    m = _CARD_WORDS.match(phrase)
    if m and m["suit"] in JA_SUITS:
        return f"{JA_SUITS[m['suit']]}の{JA_RANKS.get(m['rank'], m['rank'])}"
    m = _SLOT_WORDS.match(phrase)
    if m:
        return f"{JA_RANKS.get(m['slot'], m['slot'])}のマス"
    return phrase


def announcement_text(line: dict[str, Any]) -> str | None:
    """:func:`announcement` as one line for the live window: "7 of hearts on the 6 slot: wrong
    slot", "ben's turn ends, aki to play", "aki wins"; None when nothing is said."""
    said = announcement(line)
    if not said:
        return None
    if said[-1] == "wins":
        return f"{said[0]} wins"
    if said[1:2] == ("turn ends",):
        return f"{said[0]}'s turn ends, {said[2]} to play"
    return f"{said[0]} {said[1]}: {said[2]}"

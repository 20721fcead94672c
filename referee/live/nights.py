"""Each player's TORATANU tally as read, for the live window and the terminal view (issue 34
item 6): the night, its special card, and for each player the revealed hand the camera read
with the best arrangement it scores, or "unclear" and why, or that the hand is awaited; after
the night's verdict each player's score and how it was made.

The night in play is the judge's own (:attr:`referee.judging.toratanu.Judge.state`, over the
released declarations: :func:`referee.live.tallies.judge_state`), so a hand counts exactly as
the verdict will count it — a hand counts once it holds a whole hand's cards. Before every
hand is in, a read hand's best arrangement is shown as a preview ("best so far"): the verdict
scores the same cards the same way once the last hand is in. A card the camera could not read
is never shown as another card: the player's tally says "unclear" and why, and no score.
Pure: the same state gives the same tallies (the best arrangements are cached by their cards).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from referee.live.tally_view import PlayerTally, Tallies, cards_text

#: what the night view's colours and words mean (the window's legend line for TORATANU)
LEGEND = ("green: a card read", "orange: unclear, not scored (never read as another card)",
          "a hand is read once all its cards lie face up and still; the best arrangement is the referee's")


def night_tallies(state: Any, order: list[str], now: Any) -> Tallies:
    """The night view of ``state`` (a :class:`referee.live.state.LiveState`) for the players
    ``order``, with ``now`` the judge's :class:`referee.judging.toratanu.NightInPlay`."""
    tallies = Tallies([PlayerTally(p) for p in order], unit="NIGHT", head_note="reading each player's revealed hand",
                      waiting="waiting for the special card", legend=LEGEND, moves_title="NIGHTS (newest last)")
    by_player = {t.player: t for t in tallies.players}
    verdicts = sorted((v for v in state.judged.values() if v.get("type") == "verdict" and "game" in v),
                      key=lambda v: (v.get("game") or 0, v.get("t") or 0))
    last = verdicts[-1] if verdicts else None
    for line in verdicts:
        _night_done(tallies, line)
    if now is not None:
        tallies.round = now.night
        for p, t in by_player.items():
            t.total = int(now.totals.get(p, t.total))
    if state.result and isinstance(state.result.get("winners"), list):
        tallies.winners = list(state.result["winners"])
    if now is None or now.closed:  # the last night's scores until the next special card
        if last is not None:
            tallies.waiting = "waiting for the next night's special card" if not tallies.winners else "the games are over"
        for t in tallies.players:
            t.lines = _scored_lines(t.player, last)
        return tallies
    tallies.head = f"special card: {now.special.replace(':', ' ')}" if now.special else \
        "special card NOT READ" if now.special_unread else None
    start = _night_start(state, now)
    for p, t in by_player.items():
        t.cards = now.hands.get(p)
        t.unclear = now.unclear.get(p) or (now.special_unread if t.cards is not None else None)
        t.lines = _hand_lines(t, now)
        t.seen = _seen(state, p, start, now.hand_size)
    return tallies


def _night_done(tallies: Tallies, line: dict[str, Any]) -> None:
    """A night's verdict: its outcome in words and the history line."""
    from referee.judging.toratanu_words import announcement_text

    unclear = line.get("unclear") or {}
    tallies.said = announcement_text(line)
    tallies.said_kind = "unclear" if unclear else "scored"
    tallies.moves.append(tallies.said or f"night {line.get('game')}")


def _scored_lines(player: str, line: dict[str, Any] | None) -> list[tuple[str, str]]:
    """A player's lines after a night's verdict: the score and its arrangement, or why unclear."""
    if line is None:
        return [("the hands are read once the special card is face up", "wait")]
    night = line.get("game")
    unclear = (line.get("unclear") or {}).get(player)
    if unclear:
        return [(f"night {night}: UNCLEAR, not scored: {unclear}", "unclear")]
    if player not in (line.get("scores") or {}):
        return [(f"night {night}: no tally", "info")]
    best = (line.get("best") or {}).get(player) or {}
    return [(f"night {night}: scored {line['scores'][player]}", "ok"), (arrangement_text(best), "info")]


def _hand_lines(t: PlayerTally, now: Any) -> list[tuple[str, str]]:
    """A player's lines during a night: the hand awaited, read (with its best so far) or unclear."""
    if t.cards is None:
        return [(f"waiting for the hand: turn all {now.hand_size} cards face up in your zone and keep them still",
                 "wait")]
    if t.unclear:
        return [("UNCLEAR, not scored: " + t.unclear, "unclear")]
    read = (cards_text(t.cards), "ok")
    if not now.special:
        return [read, ("scored once the special card is read", "wait")]
    best = best_so_far(tuple(t.cards), now.special)
    if best is None:
        return [read, ("cannot be scored yet: the verdict says why", "unclear")]
    return [read, (f"best {best['total']}: " + arrangement_text(best), "ok")]


@lru_cache(maxsize=64)
def best_so_far(cards: tuple[str, ...], special: str) -> dict[str, Any] | None:
    """The best arrangement of a read hand under ``special`` (the judge's own search and
    catalogue, with the group's answers), or None when the hand cannot be scored yet (a field
    the catalogue lacks: the verdict asks for it)."""
    from rules.toratanu import best_arrangement

    from referee import toratanu_answers as answers
    from session.errors import RulesError

    cat = answers.catalogue()
    if answers.needed_fields(list(cards), cat):
        return None
    try:
        return best_arrangement(list(cards), special, catalogue=cat).to_dict()
    except RulesError:
        return None


def arrangement_text(best: dict[str, Any]) -> str:
    """A best arrangement in few words, each set with its points and the bonuses: "red set 10,
    tiger x3 150, komondor +25" (a herd by its animal, a colour set by its colour)."""
    parts = []
    for s in best.get("sets") or []:
        first = str((s.get("cards") or ["?"])[0]).split(":")
        if s.get("kind") == "herd":
            parts.append(f"{first[0]} x3 {s.get('total')}")
        else:
            parts.append(f"{first[1] if len(first) > 1 else first[0]} set {s.get('total')}")
    parts += [f"{name} +{v}" for name, v in (best.get("bonuses") or {}).items()]
    return ", ".join(parts) or "no set"


def _night_start(state: Any, now: Any) -> float:
    """When tonight began: its special card read (or its zone's unread warning), else 0."""
    from session.events import CardEvent

    from referee.judging.toratanu import SPECIAL_ZONE

    start = 0.0
    for ev in state.declared:
        if isinstance(ev, CardEvent) and ev.zone == SPECIAL_ZONE:
            start = ev.t
        elif getattr(ev, "type", None) == "warning" and ev.extra.get("unread") and ev.extra.get("zone") == SPECIAL_ZONE:
            start = ev.t
    return start


def _seen(state: Any, player: str, start: float, hand_size: int) -> list[dict]:
    """The camera's last reading of ``player``'s zone tonight that holds a whole hand (each
    card's box and code): a hand still face down or being laid out is no tally, so its boxes
    are not drawn (an orange "?" would say "unclear" of cards nobody has shown yet)."""
    seen: list[dict] = []
    for ev in state.declared:
        if getattr(ev, "type", None) == "choice" and ev.get("source") == "camera" and ev.player == player \
                and ev.t >= start and len(ev.get("seen") or []) >= hand_size:
            seen = list(ev.get("seen") or [])
    return seen

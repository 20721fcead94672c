"""Each player's tally as read, for the live window and the terminal view (Sea Salt & Paper,
issue 34 item 6).

:func:`tallies_of` folds what the live state holds — the declarations the merge released
(the calls heard or typed, the hands the camera read, corrections) and the round verdicts —
into what the table wants to see: the round, its call (who, STOP or LAST CHANCE), and for
each player the cards read after the call with their points, or "unclear" with the reason, or
that the cards are still awaited; after a round's verdict its outcome and each player's
score. The round in play is the judge's own (:class:`referee.judge.IncrementalJudge` over the
released declarations, :attr:`referee.judging.seasaltpaper.Judge.state`), so a call is
credited and a hand counted exactly as the verdict will be. Pure: the same state gives the
same tallies. It knows the game only from the calibration's ``p:NAME:spread`` zones (a game
without them gets None and the window draws its usual panel).

A card the camera could not read is never shown as another card: the player's tally says
"unclear" and why (no score for that player, as the verdict).
"""

from __future__ import annotations

from typing import Any

from referee.live.griddles import DIM, GREEN, GREY, RED, WHITE, YELLOW
from referee.live.tally_view import PlayerTally, Tallies, cards_text, judge_state

ORANGE = (0, 165, 255)
CALL_WORDS = {"stop": "STOP", "lastchance": "LAST CHANCE"}
#: what the tally view's colours mean (the window's legend line for a spread game)
LEGEND = ("green: a card read", "orange: unclear, not scored (never read as another card)",
          "the hands are read after STOP / LAST CHANCE, once still")


def spread_players(calibration: Any) -> list[str]:
    """The players with a ``p:NAME:spread`` zone, in the calibration's order (empty: none)."""
    from vision.spread_watch import is_spread_zone

    return [name.split(":")[1] for name in (getattr(calibration, "zones", None) or {}) if is_spread_zone(name)]


def tallies_of(state: Any) -> Tallies | None:
    """Each player's tally as ``state`` (a :class:`referee.live.state.LiveState`) has it, or
    None when its calibration marks no spread zones. A game whose judge keeps a night's tally
    (TORATANU: its state has a ``hand_size``) is drawn by :func:`referee.live.nights.night_tallies`."""
    spread = spread_players(state.calibration)
    if not spread:
        return None
    order = [p for p in state.players if p in spread] + [p for p in spread if p not in state.players]
    now = judge_state(state)
    if hasattr(now, "hand_size"):
        from referee.live.nights import night_tallies

        return night_tallies(state, order, now)
    tallies = Tallies([PlayerTally(p) for p in order], waiting="waiting for STOP / LAST CHANCE", legend=LEGEND)
    by_player = {t.player: t for t in tallies.players}
    verdicts = sorted((v for v in state.judged.values() if v.get("type") == "verdict" and "round" in v),
                      key=lambda v: (v.get("round") or 0, v.get("t") or 0))
    for line in verdicts:
        _round_done(tallies, by_player, line)
    _in_play(tallies, by_player, now)
    if tallies.call_t is not None:  # the cards read since the call (before it: the duos played;
        for ev in state.declared:   # after the verdict the table is cleared, and an empty zone writes nothing)
            if getattr(ev, "type", None) == "choice" and ev.get("source") == "camera" and ev.player in by_player \
                    and ev.t >= tallies.call_t:
                by_player[ev.player].seen = list(ev.get("seen") or [])
    if state.result and isinstance(state.result.get("winners"), list):
        tallies.winners = list(state.result["winners"])
    for t in tallies.players:
        t.lines = tally_lines(t, tallies.call)
    return tallies


def _round_done(tallies: Tallies, by_player: dict[str, PlayerTally], line: dict[str, Any]) -> None:
    """A round's verdict: its outcome in words, each player's score or why unclear, the totals."""
    from referee.judging.seasaltpaper_words import announcement_text

    scores, unclear = line.get("scores") or {}, line.get("unclear") or {}
    for p, t in by_player.items():
        t.total = int((line.get("totals") or {}).get(p, t.total))
        s = scores.get(p)
        t.last_unclear = p in unclear
        t.last = f"unclear: {unclear[p]}" if p in unclear else (
            f"scored {s['score']} (card points {s['card_points']}, colour bonus {s['color_bonus']})" if s else None)
    tallies.said = announcement_text(line)
    tallies.said_kind = "unclear" if unclear else "illegal" if line.get("legal") is False else "scored"
    parts = [f"{p} unclear" if p in unclear else f"{p} {scores[p]['score']}" for p in by_player if p in unclear or p in scores]
    tallies.moves.append(f"round {line.get('round')}: {tallies.said or line.get('call')}" + (f" | {', '.join(parts)}" if parts else ""))
    tallies.round = int(line.get("round") or 0) + 1


def _in_play(tallies: Tallies, by_player: dict[str, PlayerTally], now: Any) -> None:
    """The round being played, as the judge has it (``now``): the call and the hands read after it."""
    from rules.seasaltpaper import score

    if now is None or now.call is None:
        return
    tallies.round, tallies.call, tallies.caller, tallies.call_t = now.round, CALL_WORDS.get(now.call, now.call), \
        now.caller, now.call_t
    tallies.head, tallies.head_line = f"{now.caller}: {tallies.call}", f"{now.caller} called {tallies.call}"
    for p, t in by_player.items():
        t.total = int(now.totals.get(p, t.total))
        if p in now.hands:
            t.cards = list(now.hands[p])
            t.unclear = now.unclear.get(p)
            if t.unclear is None:
                s = score(t.cards)
                t.card_points, t.color_bonus = s.card_points, s.color_bonus


def tally_lines(t: PlayerTally, call: str | None) -> list[tuple[str, str]]:
    """One player's tally in words, ``(text, kind)`` with kind "ok", "unclear", "wait", "info"."""
    if call is None:
        if t.last:
            return [("last round: " + t.last, "unclear" if t.last_unclear else "info")]
        return [("the cards are read after the call (STOP / LAST CHANCE)", "wait")]
    if t.cards is None:
        return [("waiting for the cards: lay them out face up and keep them still", "wait")]
    if t.unclear:
        return [("UNCLEAR, not scored: " + t.unclear, "unclear")]
    return [(cards_text(t.cards), "ok"),
            (f"card points {t.card_points}, colour bonus {t.color_bonus}", "ok")]


def tallies_result(tallies: Tallies) -> str | None:
    """The game's end in words: "ben wins: aki 11, ben 42" (no winner yet: the totals)."""
    if not tallies.moves:
        return None
    totals = ", ".join(f"{t.player} {t.total}" for t in tallies.players)
    return (f"{', '.join(tallies.winners)} win{'s' if len(tallies.winners) == 1 else ''}: " if tallies.winners
            else "no winner yet: ") + totals


# ---------------------------------------------------------------------- drawing
def draw_spreads(cv2, img, calibration: Any, scale: tuple[float, float], tallies: Tallies) -> None:
    """Each spread zone outlined on the camera image (yellow: the caller's), each card the
    camera found boxed (green: read, with its code; orange: unclear), at ``scale`` (x, y)."""
    from referee.live.drawing import outlined_text
    from vision.spread_watch import is_spread_zone

    sx, sy = scale
    for name, zone in (getattr(calibration, "zones", None) or {}).items():
        if not is_spread_zone(name):
            continue
        b = zone.to_list()
        player = name.split(":")[1]
        colour = YELLOW if player == tallies.caller else GREY
        cv2.rectangle(img, (int(b[0] * sx) + 1, int(b[1] * sy) + 1), (int(b[2] * sx) - 2, int(b[3] * sy) - 2), colour, 1)
        label = f"{player}'s cards"  # (above the zone, at its right: the cards lie at its top left)
        size = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.55, 1)[0]
        outlined_text(cv2, img, label, (int(b[2] * sx) - size[0] - 4, int(b[1] * sy) - 6), 0.55, colour, 1)
    for t in tallies.players:
        for s in t.seen:
            x1, y1, x2, y2 = (int(s["box"][0] * sx), int(s["box"][1] * sy), int(s["box"][2] * sx), int(s["box"][3] * sy))
            read = s.get("card")
            # (a card read: its frame only — a label would hide the kind and colour printed on it,
            # which the table checks against the panel's list; a card not read: "?" in its middle)
            cv2.rectangle(img, (x1, y1), (x2, y2), GREEN if read else ORANGE, 2 if read else 3)
            if not read:
                outlined_text(cv2, img, "?", ((x1 + x2) // 2 - 8, (y1 + y2) // 2 + 10), 1.0, ORANGE, 2)


def draw_tally_panel(cv2, img, tallies: Tallies, x: int, right: int, bottom: int) -> None:
    """The right-hand panel of a spread game: the round and its call, the last round's outcome,
    then each player's total and tally (cards and points, or unclear with why, or awaited)."""
    from referee.live.drawing import BOLD, fit_scale, outlined_text, wrap_text

    width, y = right - x, 20
    outlined_text(cv2, img, f"{tallies.unit} {tallies.round}", (x, y), 0.55, GREY, 1)
    y += 34
    if tallies.head:
        head = tallies.head
        outlined_text(cv2, img, head, (x, y), fit_scale(cv2, head, width, 1.2, 3, BOLD), YELLOW, 3, BOLD)
        y += 26
        outlined_text(cv2, img, tallies.head_note, (x, y), 0.55, WHITE, 1)
    else:
        wait = tallies.waiting
        outlined_text(cv2, img, wait, (x, y), fit_scale(cv2, wait, width, 0.8, 2), GREY, 2)
        if tallies.said:
            colour = {"unclear": ORANGE, "illegal": RED}.get(tallies.said_kind or "", GREEN)
            for line in wrap_text(cv2, f"last {tallies.unit.lower()}: " + tallies.said, width, 0.6)[:2]:
                y += 24
                outlined_text(cv2, img, line, (x, y), 0.6, colour, 1)
    y += 30
    n = max(1, len(tallies.players))
    block = max(60, (bottom - y) // n)
    for t in tallies.players:
        mine = t.player == tallies.caller
        cv2.line(img, (x, y - 4), (right, y - 4), DIM, 1)
        outlined_text(cv2, img, t.player, (x, y + 22), 0.85, YELLOW if mine else WHITE, 2, BOLD)
        total = f"total {t.total}"
        size = cv2.getTextSize(total, BOLD, 0.75, 2)[0]
        outlined_text(cv2, img, total, (right - size[0], y + 22), 0.75, WHITE, 2, BOLD)
        ty = y + 48
        for text, kind in t.lines:
            colour = {"ok": GREEN, "unclear": ORANGE, "wait": GREY}.get(kind, WHITE)
            for line in wrap_text(cv2, text, width, 0.55)[:3]:
                if ty > y + block - 6:
                    break
                outlined_text(cv2, img, line, (x, ty), 0.55, colour, 1 + (kind == "ok"))
                ty += 22
        y += block

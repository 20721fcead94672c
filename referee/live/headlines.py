"""What the live table reads first: a verdict's or an announcement's headline (who was first,
who was wrong, by how much), the game's legend and the result's line. Pure functions of the
verdict lines, shared by the window, the terminal and the tests (:mod:`referee.live.state`
keeps the table's state and imports them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.judging.base import live_play
from referee.judging.verdicts import CardVerdict, Verdict, verdict_of
from referee.judging.verdicts.ikatako import CoopVerdict, VersusVerdict
from referee.judging.verdicts.mokochaka import PlayVerdict
from referee.judging.view import lack_text


@dataclass
class Headline:
    """The last verdict, large: ``text`` (``ben +118 ms``), then ``notes`` (who was wrong)."""

    text: str
    notes: list[str]
    card: str | None = None
    t: float = 0.0
    provisional: bool = False
    kind: str = "first"  # first / tie / nobody / wrong
    card_t: float | None = None  # the card an announcement belongs to (its reveal time)


def legend(game: str | None, mode: str | None = None) -> list[str]:
    """The one legend both live views print under the verdicts (the window and the terminal
    view): what "+N ms" and "by N ms" are, and the game's own words a table meets on the
    screen ("turns down", "sunk" in IKATAKO versus: the game's ``LIVE.legend``) — the words
    RULES.md uses, explained once where they are read (two lines of an 80-column terminal)."""
    items = ["+N ms: reaction time", "by N ms: lead over the next"]
    return items + list(live_play(game).legend.get(mode_played(game, mode), ()))


def mode_played(game: str | None, mode: str | None) -> str | None:
    """The mode played: the session's, else the game's default (``Game.default_mode``)."""
    if mode or not game:
        return mode
    import rules

    return rules.get(game).default_mode


def result_text(result: dict[str, Any] | None) -> str | None:
    """The final result in one line (the window's banner, the terminal view's last line):
    winners, then every score, then who sank; None before the result is known."""
    if result and isinstance(result.get("score"), (int, float)):  # co-op / solo: one team score
        return f"team score {result['score']}" + (" | the submarine sank" if result.get("sunk") is True else "")
    if not result or not isinstance(result.get("scores"), dict):
        return None
    winners = result.get("winners") or []
    head = ("winner " if len(winners) == 1 else "winners ") + ", ".join(winners) if winners else "no winner"
    scores = ", ".join(f"{p} {s}" for p, s in result["scores"].items())
    sunk = result.get("sunk")
    tail = f" | sunk: {', '.join(sunk)}" if isinstance(sunk, list) and sunk else ""
    left = result.get("cards_left")
    if result.get("finished") is False and isinstance(left, int) and left > 0:  # as the table says it
        tail += f" (the game ended with {left} card(s) left)"
    return f"{head} | score: {scores}{tail}"


def without_provisional(line: dict[str, Any]) -> dict[str, Any]:
    """A verdict line as said, whether or not it was first shown as provisional."""
    return {k: v for k, v in line.items() if k != "provisional"}


def _ms(seconds: Any) -> str:
    """A reaction time as the views write it: ``+618 ms`` is always the time from the card's
    reveal to the reaction (RULES.md's reaction time) — in the window, the terminal view,
    the verdict table and the report alike; the lead over the next player is
    :func:`lead_text`'s "by N ms"."""
    return "" if not isinstance(seconds, (int, float)) else f" +{round(seconds * 1000):d} ms"


def lead_text(margin: float) -> str:
    """The first player's lead over the next correct player, never written "+N ms" (that
    is a reaction time, :func:`_ms`)."""
    return f"by {round(margin * 1000):d} ms over the next correct player"


def verdict_headline(line: dict[str, Any] | Verdict, game: str | None = None) -> Headline:
    """The big text of a verdict line: who was first (and how fast), or why nobody was; for a
    game whose judging module words its own verdicts (``announcement_text``, a turn-based game:
    TAKOYAKI's moves), those words, as the voice says them (:func:`_move_headline`)."""
    moved = _move_headline(line, game) if isinstance(line, dict) else None
    if moved is not None:
        return moved
    v = verdict_of(game, line)
    card, t = getattr(v, "card", None), v.t
    notes: list[str] = []
    if isinstance(v, VersusVerdict):
        if v.first and isinstance(v.margin, (int, float)) and not v.tie:
            notes.append(lead_text(v.margin))
        notes += [f"{p} wrong: {v.why.get(p, '')}".rstrip(": ") for p in v.wrong]
        if v.missed:
            notes.append(f"missed: {', '.join(v.missed)}")
        notes += [f"{p} turns down {c}" for p, c in v.penalties.items() if c]
    if v.unclear and not isinstance(v, CoopVerdict):  # not judged: no penalty, no point (referee.judging.unclear)
        notes.append(f"unclear, no penalty: {', '.join(v.unclear)}")
    if v.counted_from is not None:  # the camera saw the card late (referee.judging.ikatako)
        notes.append(f"card seen late: reactions from {v.counted_from:.2f} s counted")
    if isinstance(v, CoopVerdict):  # co-op / solo: one active player per card
        return _coop_headline(v, notes)
    if isinstance(v, PlayVerdict):
        first, times, tie = v.grab_winner, v.times, []
    elif isinstance(v, VersusVerdict):
        first, times, tie = v.first, v.times, v.tie
    else:
        first, times, tie = None, {}, []
    if isinstance(v, VersusVerdict) and v.first_unknown and v.unsettled:
        return _unknown_headline(v, notes)  # a seat not heard could have been first (referee.judging.ikatako)
    if isinstance(v, CardVerdict) and v.first_unclear and not first:  # an unclear observation may have been faster
        unsure = [f"{p} (onset unsure)" for p in getattr(v, "onset_unsure", None) or {}]  # (referee.judging.ikatako)
        notes.insert(0, f"unclear: {', '.join(list(v.unclear) + unsure) or '-'}: the table answers")
        return Headline("first unclear", notes, card, t, kind="tie")
    if tie and isinstance(v, VersusVerdict) and v.unsettled:
        return Headline(f"tie: {', '.join(tie)} (unsettled)", notes, card, t, kind="tie")
    if first:
        text = f"{first}{_ms(times.get(first))}"
        if tie:
            text += " (tie settled)"
        return Headline(text, notes, card, t, kind="first")
    return Headline("nobody" if not notes else "no point", notes, card, t, kind="nobody")


def _move_headline(line: dict[str, Any], game: str | None) -> Headline | None:
    """A move of a turn-based game in its judging module's words (``announcement_text``: "7 of
    hearts on the 6 slot: wrong slot", "ben's turn ends, aki to play", "aki wins"); a move it
    does not announce (a legal placement that goes on) as the move itself ("aki places 3S");
    None for a game without such words (the reaction games' headline)."""
    from referee import judging

    if not game or line.get("type") != "verdict":
        return None
    try:
        module = judging.module(game)
    except Exception:  # (an unknown game: the generic headline)
        return None
    words = getattr(module, "announcement_text", None)
    if not callable(words):
        return None
    text = words(line) or f"{line.get('player', '?')} {line.get('action', 'plays')}s {line.get('card', '')}".rstrip()
    legal, why = line.get("legal", True), str(line.get("why") or "")
    if legal is None and "round" in line:  # a round whose caller's cards were not all read (seasaltpaper)
        return Headline(text, [why] if why else [], None, float(line.get("t", 0.0)), kind="tie")
    if legal is None:  # unclear: a card before it was not read (referee.judging.takoyaki)
        return Headline(f"unclear, no penalty: {line.get('player', '?')} {line.get('action', 'plays')} "
                        f"{line.get('card', '')}", list((line.get("unclear") or {}).values()) or [why], line.get("card"),
                        float(line.get("t", 0.0)), kind="tie")
    return Headline(text, [why] if why else [], line.get("card"), float(line.get("t", 0.0)),
                    kind="first" if legal else "wrong")


def _coop_headline(v: CoopVerdict, notes: list[str]) -> Headline:
    """A co-op/solo card: the active player's declaration, or why it was not judged."""
    unheard = (v.unjudged or v.unclear).get(v.player)
    if unheard and not v.ok:  # a sense was missing: no miss, the table plays on (RULES: not heard)
        lacks = " and ".join(x for x in ("not heard", "not seen") if x in str(unheard)) or "not judged"
        detail = str(unheard).removesuffix("; no miss")
        for x in ("not heard: ", "not seen: "):
            detail = detail.replace(x, "")
        # short: the window gives a note two lines; the full reason is in the record and the report
        return Headline(f"{v.player} {lacks}", ["no miss, no score: play on", detail], v.card, v.t, kind="tie")
    text = f"{v.player}{_ms(v.time)}" if v.ok else f"{v.player} MISS"
    if not v.ok and v.why:
        notes.insert(0, str(v.why))
    return Headline(text, notes, v.card, v.t, kind="first" if v.ok else "wrong")


def _unknown_headline(v: VersusVerdict, notes: list[str]) -> Headline:
    """A versus card whose first is unknown: a seat not heard could have been first."""
    heard = v.fastest_heard
    # short: the window gives a verdict's first note two lines (the headline says "not heard")
    notes.insert(0, f"{', '.join(v.first_unknown)} could have been first; "
                    f"{', '.join(heard) or 'nobody'} fastest heard: t+seat settles")
    lacks = {lack_text(str(v.unjudged[p])) if v.unjudged.get(p) else "not heard" for p in v.first_unknown}
    return Headline(f"first unknown: {', '.join(v.first_unknown)} {' / '.join(sorted(lacks))}", notes, v.card,
                    v.t, kind="tie")


def announce_headline(a: dict[str, Any]) -> Headline | None:
    """The big text of a provisional announcement (``what``: first/tie/wrong/missed/nobody)."""
    what, player = a.get("what"), a.get("player")
    if what == "first":
        h = Headline(f"{player}{_ms(a.get('time'))}", [], a.get("card"), a.get("t", 0.0), True, "first")
    elif what == "tie":
        who = a.get("players") or player
        who = who if isinstance(who, str) else ", ".join(who or [])
        unknown = a.get("first_unknown") or []
        if unknown:  # a seat not heard could have been first: the table settles it like a tie
            lacks = a.get("lacks") if isinstance(a.get("lacks"), dict) else {}
            lack = " / ".join(sorted({str(lacks.get(p) or "not heard") for p in unknown}))
            h = Headline(f"first unknown: {', '.join(unknown)} {lack}",
                         [f"{who}: settle with the tie key"], a.get("card"), a.get("t", 0.0), True, "tie")
        else:
            h = Headline(f"tie: {who}", ["settle with the tie key"], a.get("card"), a.get("t", 0.0), True, "tie")
    elif what == "wrong":
        h = Headline(f"{player} wrong" + (f": {a['why']}" if a.get("why") else ""), [], a.get("card"),
                     a.get("t", 0.0), True, "wrong")
    elif what == "missed":
        h = Headline(f"{player} missed", [], a.get("card"), a.get("t", 0.0), True, "wrong")
    elif what == "nobody":
        h = Headline("nobody", [], a.get("card"), a.get("t", 0.0), True, "nobody")
    else:
        return None
    h.card_t = a.get("card_t")
    return h

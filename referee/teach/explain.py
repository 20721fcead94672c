"""``referee teach explain SESSION.jsonl``: a recorded game walked card by card, with the rule
behind each verdict, and its mistakes turned into drills.

The verdicts are the referee's judge's (the same as ``referee judge``); this module adds the
rule and the fact each one hung on (IKATAKO: the troubles in the field and the reaction they
ask for; MOKOCHAKA: the pile tops' counts and the call) and, for every wrong or missed
player, the drill situation that trains that card (``ikatako`` drill keys such as
``tako|mirror``, ``mokochaka`` keys of three tops). The turn-based games list the judge's
reason for every move, the illegal ones marked ``BAD``, and their mistakes become drills too:
TAKOYAKI an illegal placement (the player's griddle before it and the card: ``x..x....../JH``),
Sea Salt & Paper an illegal STOP / LAST CHANCE (``stop=`` the caller's hand), TORATANU a tally
below the best arrangement (``best=`` the hand, ``@`` the special card; hands with captured
cards or a zoo are not drilled: the drill shows a hand only).

:func:`add_to_progress` makes each of them a due FSRS card of the learner, so the next
``referee teach GAME`` brings them back first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.judge import judge
from referee.judging.verdicts import verdict_of
from session.errors import RecordError
from session.record import read_record
from referee.teach.phrases import text


def explain_file(path: Path, lang: str = "en", seat: str | None = None) -> tuple[str, list[str]]:
    """The walk as text, and the drill lines (``DRILL SITUATION  # who, why``) of its mistakes
    (only ``seat``'s when given)."""
    rec = read_record(path)
    if rec.header is None:
        raise RecordError(f"{path}: no session header on the first line: nothing to explain")
    j = judge(rec)
    game = rec.header.game
    out = [text(lang, f"{path.name}: {game} {rec.header.mode or ''} · {', '.join(rec.header.players)}",
                f"{path.name}: {game} {rec.header.mode or ''} · {', '.join(rec.header.players)}"), ""]
    drills: list[str] = []
    if seat is not None and seat not in rec.header.players:
        raise RecordError(f"{path}: no player {seat!r} in this game (players: {', '.join(rec.header.players)})")
    verdicts = [verdict_of(game, x) for x in j.lines if x.get("type") == "verdict"]
    derive = _explainer(game, rec)
    walk = _walk(game)
    for n, v in enumerate(verdicts, 1):
        walked = walk(n, v, lang, drills) if walk is not None else None
        if walked is not None:  # the game's own walk: the rule and the fact of each card
            out += walked
        else:  # the turn-based games: the judge's reason per move, illegal ones marked
            fields = v.to_dict()  # the turn-based games' verdicts, field by field
            why = fields.get("why")
            bad = fields.get("legal") is False
            who = fields.get("player") or fields.get("caller") or ""
            out.append(f"{n:3}  {float(v.t):8.3f}  {'BAD ' if bad else ''}{who + ': ' if who else ''}"
                       f"{why if isinstance(why, str) else why}")
            if derive is not None:
                for line in derive.verdict(fields, lang):
                    out.append("      " + line[1])
                    drills.append(line[0])
    if seat is not None:
        drills = [d for d in drills if d.partition("# ")[2].startswith(seat + ":")]
    result = next((x for x in j.lines if x.get("type") == "result"), None)
    if result is not None:
        out += ["", text(lang, "result: ", "結果: ") + _result(result)]
    out += ["", text(lang, f"{len(drills)} mistake(s) to drill:", f"練習する間違い: {len(drills)}")]
    out += ["  " + d for d in drills] or ["  -"]
    return "\n".join(out), drills


def _walk(game: str):
    """The game's own walk of a verdict (its ``Teaching.walk``), or None."""
    from referee.teach.drills import teaching

    declared = teaching(game)
    return declared.walk if declared is not None else None


def _explainer(game: str, rec):
    """The game's own reader of a recorded game's moves into drills (its ``Teaching.explainer``)."""
    from referee.teach.drills import teaching

    declared = teaching(game)
    return declared.explainer(rec) if declared is not None and declared.explainer is not None else None


def _result(r: dict[str, Any]) -> str:
    if "winners" in r:
        return f"winners {', '.join(r['winners']) or '-'}; scores {r.get('scores', r.get('hands'))}"
    return ", ".join(f"{k} {v}" for k, v in r.items() if k != "type")


def add_to_progress(progress, drill_lines: list[str], now) -> list[str]:
    """Each drill line a due FSRS card of ``progress``'s learner (due ``now``; a situation the
    learner already has keeps its card but is made due now). Returns the keys added."""
    import fsrs

    from referee.teach import drills as drill_mod
    from referee.teach.scheduler import card_id
    added = []
    for line in drill_lines:
        words = line.split("#")[0].split()
        if len(words) != 2 or words[0] not in drill_mod.names():
            continue
        name, key = words
        sit = drill_mod.get(name).make(key)
        if sit is None or f"{name} {sit.key}" in added:  # (two players' same mistake: one card)
            continue
        old = progress.cards.get(name, {}).get(sit.key)
        card = fsrs.Card(card_id=card_id(sit.key), due=now) if old is None else old
        card.due = now
        progress.append({"type": "fsrs", "drill": name, "situation": sit.key, "card": card.to_dict(),
                         "from": "explain"})
        added.append(f"{name} {sit.key}")
    return added

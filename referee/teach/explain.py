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
from referee.judging.verdicts.ikatako import CoopVerdict, VersusVerdict
from referee.judging.verdicts.mokochaka import PlayVerdict
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
    for n, v in enumerate(verdicts, 1):
        if isinstance(v, VersusVerdict):
            out += _ikatako(n, v, lang, drills)
        elif isinstance(v, CoopVerdict):
            out += _coop(n, v, lang, drills)
        elif isinstance(v, PlayVerdict):
            out += _mokochaka(n, v, lang, drills)
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


def _explainer(game: str, rec):
    """The game's own reader of a recorded game's moves into drills (its ``Teaching.explainer``)."""
    from referee.teach.drills import teaching

    declared = teaching(game)
    return declared.explainer(rec) if declared is not None and declared.explainer is not None else None


def _ikatako(n: int, v: VersusVerdict, lang: str, drills: list[str]) -> list[str]:
    v = verdict_of("ikatako", v)  # a bare line reads too
    from referee.teach.drills.ikatako import _fact, _rule
    from rules import ikatako as R
    card, troubles = v.card, list(v.troubles)
    exp = R.expected_reaction(card, troubles)
    rule, _ = _rule(card, troubles, lang)
    lines = [f"{n:3}  {v.t:8.3f}  {rule}: {_fact(card, exp, lang)}"]
    if v.card_time_uncertain:  # the camera saw the card late
        since = v.counted_from
        lines.append("      " + text(lang, f"the camera saw the card late: reactions from {since:.2f} s count",
                                     f"カードの検出が遅れた: {since:.2f} 秒からの反応を数える"))
    if v.first_unknown:
        from referee.judging.ikatako import first_unknown_text
        lines.append("      " + text(lang, first_unknown_text(v),
                                     f"一番は不明: {', '.join(v.first_unknown)} は判定できず (一番だったかもしれない)"
                                     + (f" — 判定: {v.first}" if v.first else " — 判定で決めてください")))
    elif v.first:
        lines.append("      " + text(lang, f"first: {v.first} ({v.times[v.first]:.2f} s)",
                                     f"一番: {v.first} ({v.times[v.first]:.2f} 秒)"))
    elif v.tie:
        lines.append("      " + text(lang, f"tie: {', '.join(v.tie)}", f"同時: {', '.join(v.tie)}"))
    key = f"{card}|{'+'.join(t for t in R.TROUBLES if t in troubles)}"
    for p in v.wrong + v.missed:
        why = v.why.get(p, "")
        tag = text(lang, "wrong", "不正解") if p in v.wrong else text(lang, "missed", "時間切れ")
        lines.append(f"      {tag}: {p}: {why}")
        drills.append(f"ikatako {key}  # {p}: {why}")
    for p, why in v.unclear.items():  # not judged: nothing to drill
        lines.append(f"      {text(lang, 'unclear', '判定できず')}: {p}: {why}")
    return lines


def _coop(n: int, v: CoopVerdict, lang: str, drills: list[str]) -> list[str]:
    v = verdict_of("ikatako", v)  # a bare line reads too
    exp = v.expected
    say = " ".join(exp.get("say", []))
    unclear = bool(v.unclear or v.unjudged)
    ok = text(lang, "right", "正解") if v.ok else text(lang, "unclear", "判定できず") if unclear \
        else text(lang, "MISS", "ミス")
    lines = [f"{n:3}  {v.t:8.3f}  {v.card}: {v.player} → {exp.get('hands')} + {say}  {ok}"
             + (f"  ({v.why})" if v.why else "") + (f"  [{v.effect}]" if v.effect else "")]
    if not v.ok and not unclear:
        total = int(v.total) - _value(v.card)
        drills.append(f"ikatako-coop {total}+{v.card}  # {v.player}: {v.why}")
    return lines


def _value(card: str) -> int:
    from rules import ikatako as R
    return R.value(card)


def _mokochaka(n: int, v: PlayVerdict, lang: str, drills: list[str]) -> list[str]:
    v = verdict_of("mokochaka", v)  # a bare line reads too
    from rules import mokochaka as R
    from referee.teach.drills.mokochaka import _counts_text, _why
    call = R.call_for(v.tops)
    rule, _ = _why(call, lang)
    lines = [f"{n:3}  {v.t:8.3f}  {' '.join(v.tops)}: {rule}: {_counts_text(call, lang)} → {' / '.join(call.accepted)}"]
    for p in v.penalties:
        lines.append(f"      {text(lang, 'penalty', 'ペナルティ')}: {p['player']}: {', '.join(p.get('reasons', [p.get('reason')]))}")
        drills.append(f"mokochaka {'+'.join(sorted(v.tops))}  # {p['player']}: {p.get('reason')}")
    return lines


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

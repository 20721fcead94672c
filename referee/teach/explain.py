"""``referee teach explain SESSION.jsonl``: a recorded game walked card by card, with the rule
behind each verdict, and its mistakes turned into drills.

The verdicts are the referee's judge's (the same as ``referee judge``); this module adds the
rule and the fact each one hung on (IKATAKO: the troubles in the field and the reaction they
ask for; MOKOCHAKA: the pile tops' counts and the call) and, for every wrong or missed
player, the drill situation that trains that card (``ikatako`` drill keys such as
``tako|mirror``, ``mokochaka`` keys of three tops). The turn-based games list the judge's
reason for every move, the illegal ones marked ``BAD`` (their drills are not derived yet).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.judge import judge
from session.errors import RecordError
from session.record import read_record
from referee.teach.phrases import text


def explain_file(path: Path, lang: str = "en") -> tuple[str, list[str]]:
    """The walk as text, and the drill lines (``DRILL SITUATION  # who, why``) of its mistakes."""
    rec = read_record(path)
    if rec.header is None:
        raise RecordError(f"{path}: no session header on the first line: nothing to explain")
    j = judge(rec)
    game = rec.header.game
    out = [text(lang, f"{path.name}: {game} {rec.header.mode or ''} · {', '.join(rec.header.players)}",
                f"{path.name}: {game} {rec.header.mode or ''} · {', '.join(rec.header.players)}"), ""]
    drills: list[str] = []
    verdicts = [x for x in j.lines if x.get("type") == "verdict"]
    for n, v in enumerate(verdicts, 1):
        if game == "ikatako" and "expected" in v and "troubles" in v:
            out += _ikatako(n, v, lang, drills)
        elif game == "ikatako":
            out += _coop(n, v, lang, drills)
        elif game == "mokochaka":
            out += _mokochaka(n, v, lang, drills)
        else:  # the turn-based games: the judge's reason per move, illegal ones marked
            why = v.get("why")
            bad = v.get("legal") is False
            who = v.get("player") or v.get("caller") or ""
            out.append(f"{n:3}  {float(v.get('t', 0)):8.3f}  {'BAD ' if bad else ''}{who + ': ' if who else ''}"
                       f"{why if isinstance(why, str) else why}")
    result = next((x for x in j.lines if x.get("type") == "result"), None)
    if result is not None:
        out += ["", text(lang, "result: ", "結果: ") + _result(result)]
    out += ["", text(lang, f"{len(drills)} mistake(s) to drill:", f"練習する間違い: {len(drills)}")]
    out += ["  " + d for d in drills] or ["  -"]
    return "\n".join(out), drills


def _ikatako(n: int, v: dict[str, Any], lang: str, drills: list[str]) -> list[str]:
    from referee.teach.drills.ikatako import _fact, _rule
    from rules import ikatako as R
    card, troubles = v["card"], list(v.get("troubles", []))
    exp = R.expected_reaction(card, troubles)
    rule, _ = _rule(card, troubles, lang)
    lines = [f"{n:3}  {v['t']:8.3f}  {rule}: {_fact(card, exp, lang)}"]
    if v.get("first"):
        lines.append("      " + text(lang, f"first: {v['first']} ({v['times'][v['first']]:.2f} s)",
                                     f"一番: {v['first']} ({v['times'][v['first']]:.2f} 秒)"))
    elif v.get("tie"):
        lines.append("      " + text(lang, f"tie: {', '.join(v['tie'])}", f"同時: {', '.join(v['tie'])}"))
    key = f"{card}|{'+'.join(t for t in R.TROUBLES if t in troubles)}"
    for p in v.get("wrong", []) + v.get("missed", []):
        why = v.get("why", {}).get(p, "")
        tag = text(lang, "wrong", "不正解") if p in v.get("wrong", []) else text(lang, "missed", "時間切れ")
        lines.append(f"      {tag}: {p}: {why}")
        drills.append(f"ikatako {key}  # {p}: {why}")
    return lines


def _coop(n: int, v: dict[str, Any], lang: str, drills: list[str]) -> list[str]:
    exp = v.get("expected", {})
    say = " ".join(exp.get("say", []))
    ok = text(lang, "right", "正解") if v.get("ok") else text(lang, "MISS", "ミス")
    lines = [f"{n:3}  {v['t']:8.3f}  {v['card']}: {v.get('player')} → {exp.get('hands')} + {say}  {ok}"
             + (f"  ({v['why']})" if v.get("why") else "") + (f"  [{v['effect']}]" if v.get("effect") else "")]
    if not v.get("ok"):
        total = int(v.get("total", 0)) - _value(v["card"])
        drills.append(f"ikatako-coop {total}+{v['card']}  # {v.get('player')}: {v.get('why')}")
    return lines


def _value(card: str) -> int:
    from rules import ikatako as R
    return R.value(card)


def _mokochaka(n: int, v: dict[str, Any], lang: str, drills: list[str]) -> list[str]:
    from rules import mokochaka as R
    from referee.teach.drills.mokochaka import _counts_text, _why
    call = R.call_for(v["tops"])
    rule, _ = _why(call, lang)
    lines = [f"{n:3}  {v['t']:8.3f}  {' '.join(v['tops'])}: {rule}: {_counts_text(call, lang)} → {' / '.join(call.accepted)}"]
    for p in v.get("penalties", []):
        lines.append(f"      {text(lang, 'penalty', 'ペナルティ')}: {p['player']}: {', '.join(p.get('reasons', [p.get('reason')]))}")
        drills.append(f"mokochaka {'+'.join(sorted(v['tops']))}  # {p['player']}: {p.get('reason')}")
    return lines


def _result(r: dict[str, Any]) -> str:
    if "winners" in r:
        return f"winners {', '.join(r['winners']) or '-'}; scores {r.get('scores', r.get('hands'))}"
    return ", ".join(f"{k} {v}" for k, v in r.items() if k != "type")

"""``referee teach explain`` for IKATAKO: a recorded game's verdicts walked card by card, with
the drills that would practise each mistake."""

from __future__ import annotations

from referee.judging.verdicts import verdict_of
from referee.judging.verdicts.ikatako import CoopVerdict, VersusVerdict
from referee.teach.drills.ikatako_texts import fact_text, rule_text
from referee.teach.texts import text
from rules import ikatako as R


def walk_versus(n: int, v: VersusVerdict, lang: str, drills: list[str]) -> list[str]:
    v = verdict_of("ikatako", v)  # a bare line reads too
    card, troubles = v.card, list(v.troubles)
    exp = R.expected_reaction(card, troubles)
    rule, _ = rule_text(card, troubles, lang)
    lines = [f"{n:3}  {v.t:8.3f}  {rule}: {fact_text(card, exp, lang)}"]
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


def walk_coop(n: int, v: CoopVerdict, lang: str, drills: list[str]) -> list[str]:
    v = verdict_of("ikatako", v)  # a bare line reads too
    exp = v.expected
    say = " ".join(exp.get("say", []))
    unclear = bool(v.unclear or v.unjudged)
    ok = text(lang, "right", "正解") if v.ok else text(lang, "unclear", "判定できず") if unclear \
        else text(lang, "MISS", "ミス")
    lines = [f"{n:3}  {v.t:8.3f}  {v.card}: {v.player} → {exp.get('hands')} + {say}  {ok}"
             + (f"  ({v.why})" if v.why else "") + (f"  [{v.effect}]" if v.effect else "")]
    if not v.ok and not unclear:
        total = int(v.total) - card_value(v.card)
        drills.append(f"ikatako-coop {total}+{v.card}  # {v.player}: {v.why}")
    return lines


def card_value(card: str) -> int:
    return R.value(card)


def walk_verdict(n: int, v, lang: str, drills: list[str]) -> list[str] | None:
    """``referee teach explain``: a versus or co-op verdict line by line (None: not IKATAKO's)."""
    if isinstance(v, VersusVerdict):
        return walk_versus(n, v, lang, drills)
    if isinstance(v, CoopVerdict):
        return walk_coop(n, v, lang, drills)
    return None


"""``referee teach --report``: one HTML page of a learner's progress, plots as inline SVG
(no network, no script): accuracy per level, median reaction per session, the situations
still due, the confusions. Deterministic: the same progress file gives the same page."""

from __future__ import annotations

import html
import statistics
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path

from referee.teach.progress import Progress, ProgressError


def _bars(rows: list[tuple[str, float, str]], w: int = 560) -> str:
    """One bar per row, its label (a level's title, long) on the line above it."""
    h = 42 * len(rows) + 10
    out = [f'<svg width="{w}" height="{h}" role="img" xmlns="http://www.w3.org/2000/svg">']
    for i, (label, frac, note) in enumerate(rows):
        y = 6 + 42 * i
        bw = int((w - 80) * max(0.0, min(1.0, frac)))
        colour = "#3a7" if frac >= 0.9 else ("#d93" if frac >= 0.6 else "#c44")
        out.append(f'<text x="0" y="{y + 12}" font-size="13">{html.escape(label)}</text>')
        out.append(f'<rect x="0" y="{y + 18}" width="{w - 80}" height="16" fill="#eee"/>')
        out.append(f'<rect x="0" y="{y + 18}" width="{bw}" height="16" fill="{colour}"/>')
        out.append(f'<text x="{w - 70}" y="{y + 31}" font-size="13">{html.escape(note)}</text>')
    out.append("</svg>")
    return "".join(out)


def _line(points: list[tuple[int, float]], w: int = 560, h: int = 200) -> str:
    if not points:
        return "<p>no sessions yet</p>"
    top = max(v for _, v in points) * 1.15 or 1.0
    n = max(1, len(points) - 1)
    xy = [(40 + (w - 60) * i / n, h - 30 - (h - 50) * v / top) for i, (_, v) in enumerate(points)]
    out = [f'<svg width="{w}" height="{h}" role="img" xmlns="http://www.w3.org/2000/svg">',
           f'<line x1="40" y1="{h - 30}" x2="{w - 10}" y2="{h - 30}" stroke="#888"/>',
           f'<line x1="40" y1="10" x2="40" y2="{h - 30}" stroke="#888"/>',
           f'<text x="0" y="18" font-size="12">{top:.1f} s</text><text x="20" y="{h - 32}" font-size="12">0</text>',
           '<polyline fill="none" stroke="#36c" stroke-width="2" points="' +
           " ".join(f"{x:.1f},{y:.1f}" for x, y in xy) + '"/>']
    for (s, v), (x, y) in zip(points, xy):
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#36c"/>'
                   f'<text x="{x - 8:.1f}" y="{h - 12}" font-size="11">#{s}</text>'
                   f'<text x="{x - 14:.1f}" y="{y - 8:.1f}" font-size="11">{v:.2f}</text>')
    out.append("</svg>")
    return "".join(out)


def _n(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _label(drill: str, key: str, lang: str = "en", answered: bool = False) -> str:
    """A situation as a learner reads it, in the drill's own words (``tako|mirror`` → "tako
    with Mirror in the field", ``call:pome`` → "the call pome"), as the session summary
    says it; the key itself only for a drill that has no words for it."""
    from referee.teach import drills

    try:
        d = drills.get(drill)
    except Exception:  # a drill this version no longer has: its key as it was
        return key
    return d.answer_words(key, lang) if answered else d.words(key, lang)


def _level_words(drill: str, rule: str | None, lang: str = "en") -> str:
    """A level as the lesson's header names it: "2 of 5: ika and tako: the hand and the name"."""
    from referee.teach import drills

    try:
        levels = drills.get(drill).levels()
    except Exception:
        return rule or "the first"
    names = [lv.rule for lv in levels]
    i = names.index(rule) if rule in names else 0
    return f"{i + 1} of {len(levels)}: {levels[i].title.get(lang, levels[i].title['en'])}"


def _rule_words(drill: str, rule: str, lang: str = "en") -> str:
    """A rule of the ladder by its level: "level 2: ika and tako: the hand and the name"."""
    from referee.teach import drills

    try:
        levels = drills.get(drill).levels()
    except Exception:
        return rule
    for i, lv in enumerate(levels):
        if lv.rule == rule:
            return f"level {i + 1}: {lv.title.get(lang, lv.title['en'])}"
    return rule


def build_report(progress: Progress, lang: str = "en") -> str:
    answers = [a for a in progress.answers]
    drills = sorted({a["drill"] for a in answers} | {d for d, cards in progress.cards.items() if cards})
    title = "teaching progress" if lang == "en" else "練習の記録"
    parts = [f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'><title>{title}</title>",
             "<style>body{font-family:sans-serif;max-width:760px;margin:24px auto;color:#222}"
             "h2{border-bottom:1px solid #ccc;margin-top:28px}table{border-collapse:collapse}"
             "td,th{padding:2px 10px;text-align:left;font-size:13px}</style></head><body>",
             f"<h1>{html.escape(progress.path.stem)}: {title}</h1>",
             f"<p>{_n(len(answers), 'answer')} in {_n(len(progress.sessions), 'session')}.</p>"]
    if not answers:
        parts.append("<p>No answers yet: run <code>referee teach ikatako</code>.</p>")
    last = max((datetime.fromisoformat(a["at"]) for a in answers), default=None)
    due_at = [c.due for cards in progress.cards.values() for c in cards.values()]
    if last is None and due_at:  # only a recorded game's mistakes so far
        last = min(due_at)
    for drill in drills:
        mine = [a for a in answers if a["drill"] == drill]
        parts.append(f"<h2>{html.escape(drill)}</h2>")
        level = progress.level(drill)
        parts.append(f"<p>level reached: <b>{html.escape(_level_words(drill, level, lang))}</b></p>")
        by_rule: dict[str, list[dict]] = defaultdict(list)
        for a in mine:
            by_rule[a["rule"]].append(a)
        rows = []
        for rule in sorted(by_rule, key=lambda r: mine.index(by_rule[r][0])):
            got = by_rule[rule]
            ok = sum(a["verdict"] == "correct" for a in got)
            rows.append((_rule_words(drill, rule, lang), ok / len(got), f"{ok}/{len(got)}"))
        parts.append("<h3>accuracy per level</h3>" + _bars(rows))
        per_session: dict[int, list[float]] = defaultdict(list)
        for a in mine:
            if a["verdict"] == "correct" and a.get("reaction") is not None:
                per_session[a["session"]].append(a["reaction"])
        pts = [(s, statistics.median(v)) for s, v in sorted(per_session.items())]
        parts.append("<h3>median reaction per session (right answers)</h3>" + _line(pts))
        cards = progress.cards.get(drill, {})
        horizon = (last or datetime.min) + timedelta(days=1)
        due = sorted((c.due, k) for k, c in cards.items() if last is not None and c.due <= horizon)
        parts.append(f"<h3>still due (by a day after the last answer): {len(due)}</h3>")
        if due:
            parts.append("<table><tr><th>situation</th><th>due</th><th>right/asked</th></tr>")
            for d, k in due[:30]:
                asked = [a for a in mine if a["situation"] == k]
                ok = sum(a["verdict"] == "correct" for a in asked)
                parts.append(f"<tr><td>{html.escape(_label(drill, k, lang))}</td><td>{d.strftime('%Y-%m-%d %H:%M')}</td>"
                             f"<td>{f'{ok}/{len(asked)}' if asked else 'not asked yet'}</td></tr>")
            parts.append("</table>")
        conf = progress.confusion(drill)
        if conf:
            parts.append("<h3>mixed up</h3><table><tr><th>asked</th><th>you gave the answer for</th><th>times</th>"
                         "</tr>")
            for (a, b), n in sorted(conf.items(), key=lambda kv: (-kv[1], kv[0]))[:15]:
                parts.append(f"<tr><td>{html.escape(_label(drill, a, lang))}</td>"
                             f"<td>{html.escape(_label(drill, b, lang, answered=True))}</td><td>{n}</td></tr>")
            parts.append("</table>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_report(progress: Progress, path: Path, lang: str = "en") -> Path:
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(build_report(progress, lang), encoding="utf-8")
    except OSError as exc:
        raise ProgressError(f"{path}: cannot write the report ({exc.strerror})") from None
    return path

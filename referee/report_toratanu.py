"""The dispute report's evidence of a TORATANU night read by the camera (issue 34 item 3):
each player's revealed hand as the camera read it — every card's crop beside its code, or
"unclear" and why (:func:`referee.report_spread.spread_evidence`) — then each player's best
arrangement and its score, or why the tally is unclear (the referee's search, not the sets
the player laid out: the camera does not see how they were grouped)."""

from __future__ import annotations

from typing import Callable

from referee.report_media import escape
from referee.report_spread import spread_evidence


def arrangement_html(verdict: dict) -> str:
    """Each player's best arrangement (its explain lines) or the reason it is unclear."""
    rows = []
    for p in verdict.get("totals") or {}:
        why = (verdict.get("unclear") or {}).get(p)
        best = (verdict.get("best") or {}).get(p)
        if why:
            rows.append(f"<li><b>{escape(p)}</b>: <b class=unclear>unclear</b> — {escape(why)} (no score)</li>")
        elif best:
            lines = "<br>".join(escape(x) for x in best.get("explain") or [])
            rows.append(f"<li><b>{escape(p)}</b>: <b class=ok>{verdict['scores'][p]}</b> points<br>{lines}</li>")
    if not rows:
        return ""
    return "<p><b>The best arrangement of each hand</b> (the referee's search):</p><ul>" + "".join(rows) + "</ul>"


def toratanu_evidence(verdict: dict, events: list[dict], frames_at: Callable[[list[float]], dict]) -> str:
    """HTML beside a night's verdict: the cards read, then the best arrangements."""
    return spread_evidence(verdict, events, frames_at) + arrangement_html(verdict)

"""Announcements for people: the verdict table and the scoreboard as plain text.

A game's judging module may provide ``format_table(judgement, header) -> str``; the
generic table below prints any verdict as its card/kind followed by its fields.
"""

from __future__ import annotations

import json
from typing import Any

from session.events import SessionHeader
from referee.judge import Judgement


def _value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3f}"
    if isinstance(v, (list, tuple)):
        return ", ".join(_value(x) for x in v) or "-"
    if isinstance(v, dict):
        return json.dumps(v, ensure_ascii=False, sort_keys=True)
    return "-" if v is None else str(v)


def generic_table(judgement: Judgement) -> str:
    out = []
    for obj in judgement.lines:
        kind = obj.get("type", "?")
        rest = "  ".join(f"{k}={_value(v)}" for k, v in obj.items() if k not in ("type",))
        out.append(f"{kind:8} {rest}")
    return "\n".join(out)


def table(judgement: Judgement, header: SessionHeader | None) -> str:
    """The people's view of a judgement: the game's own table, else the generic one."""
    from referee import judging

    module = judging.module(judgement.game)
    fmt = getattr(module, "format_table", None)
    if fmt is not None:
        return fmt(judgement, header)
    return generic_table(judgement)

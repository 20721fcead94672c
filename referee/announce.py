"""Announcements for people: the verdict table and the scoreboard as plain text.

A game's judging module may provide ``format_table(judgement, header) -> str``; the
generic table below prints any verdict as its card/kind followed by its fields.
"""

from __future__ import annotations

import json
import re
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


#: characters a terminal would act on or cannot show: C0/C1 controls (but the newline of
#: the table itself), DEL, and lone surrogates (a record's ``"\\ud800"`` is not text)
_UNPRINTABLE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` safe for a terminal: every control character and lone surrogate a record's
    strings may carry is shown as its escape (``\\x1b``, ``\\ud800``), so a name cannot
    clear the screen or fail the output's encoding."""
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii")
                            if not 0xD800 <= ord(m.group()) <= 0xDFFF else f"\\u{ord(m.group()):04x}", text)


def table(judgement: Judgement, header: SessionHeader | None) -> str:
    """The people's view of a judgement: the game's own table, else the generic one
    (control characters and lone surrogates escaped, see :func:`printable`)."""
    from referee import judging

    module = judging.module(judgement.game)
    fmt = getattr(module, "format_table", None)
    if fmt is not None:
        return printable(fmt(judgement, header))
    return printable(generic_table(judgement))

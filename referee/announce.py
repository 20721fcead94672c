"""Announcements for people: the verdict table and the scoreboard as plain text.

A game's judging module may provide ``format_table(judgement, header) -> str``; the
generic table below prints any verdict as its card/kind followed by its fields.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import textwrap
from typing import Any, TextIO

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


#: the narrowest cell a wrapped row keeps for its last column: below this the row hangs
#: from a 4-space indent instead (a terminal too narrow for the table's columns)
MIN_LAST_CELL = 24


def _hanging_indent(line: str, width: int) -> int:
    """Where an overlong row's last cell starts: the rightmost column, at most
    ``width - MIN_LAST_CELL``, that follows two spaces (the padding between cells, or a
    continuation row's own indent; a cell's own text has single spaces); else 4."""
    for i in range(min(len(line) - 1, width - MIN_LAST_CELL), 1, -1):
        if line[i - 2:i] == "  " and line[i] != " ":
            return i
    return 4


def fit(text: str, width: int) -> str:
    """``text`` with every row longer than ``width`` wrapped at spaces, the rest hanging
    under the row's last cell (the notes of a verdict row stay in their column; on a
    terminal too narrow for the columns, the cells past the hanging one go one under the
    other), so a terminal never breaks a word ("expected left han / d"). Rows that fit are
    unchanged; a rule of dashes is cut to the width."""
    out: list[str] = []
    last = 4  # a continuation row too deep for the width hangs where its row's wrap did
    for line in text.split("\n"):
        if len(line) <= width or not line.strip(" -"):  # (a rule is cut to the width)
            out.append(line[:width])
            continue
        deep = len(line) - len(line.lstrip(" ")) > width - MIN_LAST_CELL
        indent = last if deep else _hanging_indent(line, width)
        last = indent
        head, tail = (" " * indent, line.strip()) if deep else (line[:indent], line[indent:].strip())
        for cell in re.split(r"  +", tail):  # cells that no longer fit side by side: one under the other
            out += textwrap.wrap(cell, width=width, initial_indent=head, subsequent_indent=" " * indent,
                                 break_long_words=False, break_on_hyphens=False)
            head = " " * indent
    return "\n".join(out)


def for_terminal(text: str, stream: TextIO | None = None) -> str:
    """``text`` fitted to the terminal's width when ``stream`` (default stdout) is a
    terminal; piped or redirected output keeps one row per line (for grep and files)."""
    stream = stream if stream is not None else sys.stdout
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return fit(text, shutil.get_terminal_size((100, 24)).columns) if tty else text

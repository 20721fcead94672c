"""The judge's lines as typed values, one module per game (``verdicts/<game>.py``, beside
the game's judging module): each defines ``TYPES`` (its line classes) and ``parse(line)``.

The judges build these values and write ``to_dict()`` (the JSON contract is the dicts, byte
for byte as before); consumers turn a line back with :func:`verdict_of` and read attributes
(``v.unclear``, ``isinstance(v, CoopVerdict)``) instead of sniffing keys. docs/record.md's
field lists are :func:`fields_markdown`'s output (a test keeps them equal).
"""

from __future__ import annotations

import dataclasses
import importlib
from types import ModuleType
from typing import Any, Mapping

from referee.judging.verdicts.base import ABSENT, CardVerdict, Line, Result, Verdict

__all__ = ["ABSENT", "CardVerdict", "Line", "Result", "Verdict", "fields_markdown", "types_of", "verdict_of"]


def _module(game: str) -> ModuleType:
    import rules

    return importlib.import_module(rules.home(game, f"{__name__}.{game}"))  # (unknown: one clear error)


def types_of(game: str) -> tuple[type[Line], ...]:
    """The line classes of a registered game."""
    return _module(game).TYPES


def verdict_of(game: str | None, line: Mapping[str, Any] | Line) -> Line:
    """The typed value of a judgement line of ``game`` (a line already typed is returned as it
    is). ``game`` None (a view handed a bare line): the first registered game whose line
    class of that ``type`` has every key the line has (``ValueError`` when none has)."""
    if isinstance(line, Line):
        return line
    if game is not None:
        return _module(game).parse(line)
    import rules

    kind = line.get("type", "verdict")
    keys = set(line) - {"provisional"}  # a live preview's mark, not the judge's
    for name in rules.names():
        if any(cls.type == kind and keys <= cls.keys() for cls in types_of(name)):
            return _module(name).parse(line)
    raise ValueError(f"no game's {kind} has the fields {sorted(keys)}")


def _doc(cls: type[Line], name: str) -> str:
    return next(f.metadata["doc"] for f in dataclasses.fields(cls) if f.name == name)


#: the status fields every reaction game's verdict may carry (and the result's count)
_COMMON = ("unclear", "unjudged", "first_unclear", "decided", "card_unclear")


def _status_table() -> list[str]:
    rows = [(name, "verdict", _doc(CardVerdict, name)) for name in _COMMON]
    rows.append(("unclear", "result", _doc(Result, "unclear")))
    return ["| field | in | meaning |", "|---|---|---|"] + [f"| `{n}` | {w} | {d} |" for n, w, d in rows]


def _game_fields(cls: type[Line]) -> list[str]:
    """A line class's own fields (not the common ones above), one bullet each."""
    out = []
    for f in cls.written_fields():
        if f.name in _COMMON:
            continue
        when = " (only when there is something to say)" if f.metadata.get("optional") else ""
        out.append(f"- `{f.name}`: {f.metadata['doc']}{when}")
    return out


def fields_markdown() -> str:
    """docs/record.md's field lists, from the line classes' field docs: the common status
    fields of what the referee was not sure of, then each game's own fields."""
    import rules

    out = _status_table()
    for name in rules.names():
        for cls in types_of(name):
            out += ["", f"**{rules.get(name).title}** `{cls.__name__}` ({cls.type}): {cls.__doc__}", ""]
            out += _game_fields(cls)
    return "\n".join(out) + "\n"

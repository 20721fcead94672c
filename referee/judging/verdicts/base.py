"""The common shape of the judge's lines as small typed values.

A line type is a keyword-only dataclass whose fields are the line's JSON keys, each with a
one-line ``doc`` (docs/record.md's field lists are generated from them, so the page cannot
drift from the code). :meth:`Line.to_dict` writes exactly the dict the judge has always
written — same keys, same order — so the JSON contract (``Judgement.lines`` are dicts) is
unchanged; :meth:`Line.from_dict` reads a line back, and consumers use attributes and
``isinstance`` instead of sniffing keys.

Optional fields are written only when there is something to say (a clear record's lines
stay as they were): by default when not empty (None, False, ``{}``, ``[]``, ``""``);
a field that can be present *and* None or False says so with ``when="present"`` and
defaults to :data:`ABSENT`. The status fields of the referee's own uncertainty
(:data:`STATUS_ORDER`) always come last, in that order, whatever class declares them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping


class _Absent:
    """The value of an optional field the line does not carry."""

    _it: ClassVar["_Absent | None"] = None

    def __new__(cls):
        cls._it = cls._it or super().__new__(cls)
        return cls._it

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT: Any = _Absent()

#: the fields a line carries only when the referee was not sure of something, in the order
#: they are written, after every other field
STATUS_ORDER = ("unjudged", "first_unknown", "onset_unsure", "unclear", "first_unclear", "decided", "card_unclear",
                "card_time_uncertain")


def fact(doc: str, default: Any = None, *, factory: Any = None, optional: bool = False,
         when: str = "filled") -> Any:
    """A line field with its one-line meaning. ``optional``: written only when it has
    something to say (``when="filled"``: not empty; ``when="present"``: not ABSENT)."""
    meta = {"doc": doc, "optional": optional or when == "present", "when": when}
    if when == "present":
        return field(default=ABSENT, metadata=meta)
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def _written(f: dataclasses.Field, value: Any) -> bool:
    if not f.metadata.get("optional"):
        return True
    if f.metadata.get("when") == "present":
        return value is not ABSENT
    return value is not None and value is not False and value != {} and value != [] and value != ""


@dataclass(frozen=True, kw_only=True)
class Line:
    """A line of the judgement: its ``type`` (``verdict`` or ``result``) and its fields."""

    type: ClassVar[str] = ""

    @classmethod
    def written_fields(cls) -> list[dataclasses.Field]:
        """The fields in the order the line writes them: the others as declared, then the
        status fields in :data:`STATUS_ORDER`."""
        fields = dataclasses.fields(cls)
        status = sorted((f for f in fields if f.name in STATUS_ORDER), key=lambda f: STATUS_ORDER.index(f.name))
        return [f for f in fields if f.name not in STATUS_ORDER] + status

    def to_dict(self) -> dict[str, Any]:
        """The JSON line, byte for byte what the judge writes."""
        out: dict[str, Any] = {"type": self.type}
        for f in self.written_fields():
            value = getattr(self, f.name)
            if _written(f, value):
                out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, line: Mapping[str, Any]):
        """The typed line of a JSON line (keys it does not know are left out; missing ones
        take their defaults, so a partial line from an older writer still reads)."""
        return cls(**{f.name: line[f.name] for f in dataclasses.fields(cls) if f.name in line})

    @classmethod
    def keys(cls) -> set[str]:
        return {f.name for f in dataclasses.fields(cls)} | {"type"}


@dataclass(frozen=True, kw_only=True)
class Verdict(Line):
    """One verdict line."""

    type: ClassVar[str] = "verdict"

    t: float = fact("the time the verdict is about (the card's, the round's end), in seconds", 0.0)
    unclear: dict[str, str] = fact(
        "`{player: reason}`: the players not judged on this card — no penalty, no point, in none of "
        "`correct`/`wrong`/`missed` (co-op: `ok` false, no miss)", factory=dict, optional=True)

    @property
    def counted_from(self) -> float | None:
        """Where a card seen late counts reactions from; None for a card seen in time."""
        return None


@dataclass(frozen=True, kw_only=True)
class CardVerdict(Verdict):
    """The verdict of one card of a reaction game, with what the referee was not sure of."""

    card: str = fact("the card the verdict is about", "")
    unjudged: dict[str, str] = fact(
        "`{player: reason}`: the players not judged because a sense was missing (not heard, not seen) "
        "or the card was seen late; they are in `unclear` too, with the same reason", factory=dict, optional=True)
    first_unclear: bool = fact(
        "`true`: the first rests on an unclear observation (an unclear player may have been faster, or the "
        "card was not read), so nobody takes the card and `first` is `null`; MOKOCHAKA: the token's winner "
        "did, so nobody wins the piles and `grab_winner` is `null`", False, optional=True)
    decided: dict[str, str] = fact(
        "`{player: \"correct\" / \"wrong\"}`: the table's answers applied to this card", factory=dict, optional=True)
    card_unclear: str = fact(
        "the card event was below the card threshold: `card not read: … nobody judged on it` (every player "
        "is in `unclear`)", "", optional=True)


@dataclass(frozen=True, kw_only=True)
class Result(Line):
    """The one result line at the end of a judgement."""

    type: ClassVar[str] = "result"

    unclear: dict[str, int] = fact(
        "`{player: count}` of the verdicts each player is unclear in (every player, when any count is above 0; "
        "the reaction games)", factory=dict, optional=True)


def read_line(line: Mapping[str, Any], verdict: type, result: type) -> Any:
    """``line`` as ``result`` when it is the result line, else as ``verdict`` (a game's parse)."""
    return (result if line.get("type") == "result" else verdict).from_dict(line)

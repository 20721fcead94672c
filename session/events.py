"""Typed events of the session record (the contract described in docs/record.md).

Every line of a session record is one event. Each known ``type`` has a frozen
dataclass with its documented fields; whatever else a line carries is kept in
``extra`` (never dropped, written back in the same place), and a line of an unknown
type becomes an :class:`UnknownEvent` that the judge ignores. ``Event.from_dict``
is the one adapter from JSON objects; ``to_dict`` writes them back.

Numbers are range-checked here, where they are parsed (decisions, also in docs/record.md):
a time (``t``, ``t_end``, ``from``, ``to``) must be finite and within ±:data:`MAX_SESSION_S`
(a session is at most a day long, so the judge's microsecond arithmetic never meets the
edge of the float range); ``conf`` must lie in [0, 1]; an integer beyond the float range is
refused before ``float()`` could overflow. Every refusal is one :class:`EventError` line
naming the field, which the record reader turns into an issue of that line.

Perception (``vision/``, ``audio/``) builds these objects and the referee judges them;
both sides import this module only, so it must stay free of heavy dependencies.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Mapping

from session.errors import EventError

SIDES = ("left", "right")
#: a game's name as the record spells it; which games exist is the registry's (``rules``)
#: business, checked when the record is judged, not the contract's
_GAME_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
HAND_STATES = ("up", "down")


#: the longest session the record format describes, in seconds (one day): a time ``t``,
#: ``t_end``, ``from`` or ``to`` beyond ±this is refused, so no judge arithmetic (``t`` in
#: microseconds, margins, windows) ever meets a number near the edge of the float range
MAX_SESSION_S = 86_400.0
#: a ``conf`` is a probability-like score in [0, 1]; anything else is refused
CONF_RANGE = (0.0, 1.0)


def _number(value: Any, name: str, lo: float | None = None, hi: float | None = None) -> float:
    """A finite number of a record field, within ``[lo, hi]`` when given (one line names
    the field otherwise). Integers beyond the float range are refused before ``float()``
    would overflow."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise EventError(f"field {name!r} must be a number, got {_short(value)}")
    if isinstance(value, int) and lo is not None and hi is not None and not lo <= value <= hi:
        raise EventError(f"field {name!r} must be in {lo:g}..{hi:g}, got {_short(value)}")
    if isinstance(value, int) and abs(value) > 2 ** 63:
        raise EventError(f"field {name!r} must be a number within the float range, got {_short(value)}")
    value = float(value)
    if not math.isfinite(value):
        raise EventError(f"field {name!r} must be finite, got {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise EventError(f"field {name!r} must be in {lo:g}..{hi:g}, got {value!r}")
    return value


def _time(value: Any, name: str) -> float:
    """A session time in seconds: finite and within ±:data:`MAX_SESSION_S`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > MAX_SESSION_S:
        raise EventError(f"field {name!r} must be a session time within ±{MAX_SESSION_S:g} s (one day), "
                         f"got {_short(value)}")
    return _number(value, name)


def digit_count(value: int) -> int:
    """Decimal digits of an integer, also beyond ``str()``'s 4300-digit limit."""
    value = abs(value)
    if value == 0:
        return 1
    d = int(math.log10(value)) + 1
    return d - 1 if 10 ** (d - 1) > value else d


def _short(value: Any, limit: int = 60) -> str:
    """``repr`` of a value cut to one readable piece (never raises on a huge integer)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2 ** 63:
        return f"an integer of {digit_count(value)} digits"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text(value: Any, name: str, *, allow_none: bool = False) -> str | None:
    if value is None and allow_none:
        return None
    if not isinstance(value, str) or not value:
        raise EventError(f"field {name!r} must be a non-empty string, got {_short(value)}")
    return value


def _choice(value: Any, name: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise EventError(f"field {name!r} must be one of {', '.join(allowed)}, got {_short(value)}")
    return value


def _conf(value: Any) -> float | None:
    return None if value is None else _number(value, "conf", *CONF_RANGE)


@dataclass(frozen=True)
class Event:
    """Base of all events: ``t`` seconds on the session clock, plus unknown fields."""

    t: float
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    # The record line it came from (0 = not from a record); never written back.
    line: int = field(default=0, compare=False, repr=False)

    type: ClassVar[str] = ""
    _registry: ClassVar[dict[str, type["Event"]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.type:
            Event._registry[cls.type] = cls

    @staticmethod
    def from_dict(obj: Any) -> "Event":
        """Build the typed event of a JSON object; raise :class:`EventError` naming the problem."""
        if not isinstance(obj, dict):
            raise EventError(f"an event must be a JSON object, got {type(obj).__name__}")
        kind = obj.get("type")
        if not isinstance(kind, str):
            raise EventError("missing or non-string field 'type'")
        if "t" not in obj:
            raise EventError(f"{kind} event without field 't'")
        t = _time(obj["t"], "t")
        cls = Event._registry.get(kind)
        if cls is None:
            return UnknownEvent(t=t, extra=dict(obj), kind=kind)
        known = {f.name for f in fields(cls)} - {"t", "extra", "line"}
        extra = {k: v for k, v in obj.items() if k not in known and k not in ("t", "type")}
        return cls._parse(t, obj, extra)

    @classmethod
    def _parse(cls, t: float, obj: dict, extra: dict) -> "Event":
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this event: ``t``, ``type``, the known fields, then the rest."""
        out: dict[str, Any] = {"t": self.t, "type": self.type}
        for f in fields(self):
            if f.name in ("t", "extra", "line"):
                continue
            value = getattr(self, f.name)
            if value is None and f.name in self._optional:
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        for k, v in self.extra.items():
            out.setdefault(k, v)
        return out

    _optional: ClassVar[frozenset[str]] = frozenset()


@dataclass(frozen=True)
class SessionHeader(Event):
    """First line: which game, which mode, who plays (in turn order), the table's options."""

    game: str = ""
    mode: str | None = None
    players: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)

    type: ClassVar[str] = "session"
    _optional: ClassVar[frozenset[str]] = frozenset({"mode"})

    @classmethod
    def _parse(cls, t, obj, extra):
        game = obj.get("game")
        if not isinstance(game, str) or not _GAME_NAME.match(game):
            raise EventError(f"field 'game' must be a game's name (e.g. ikatako), got {game!r}")
        players = obj.get("players")
        if not isinstance(players, list) or not players:
            raise EventError("field 'players' must be a non-empty list of names")
        for p in players:
            _text(p, "players")
        if len(set(players)) != len(players):
            raise EventError(f"field 'players' names a player twice: {players}")
        options = obj.get("options", {})
        if not isinstance(options, dict):
            raise EventError("field 'options' must be an object")
        mode = obj.get("mode")
        if mode is not None:
            _text(mode, "mode")
        return cls(t=t, extra=extra, game=game, mode=mode, players=tuple(players), options=dict(options))

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["options"] = dict(self.options)
        return out


@dataclass(frozen=True)
class CardEvent(Event):
    """A card became visible face up in ``zone`` (default the field)."""

    card: str = ""
    zone: str | None = None
    by: str | None = None
    conf: float | None = None

    type: ClassVar[str] = "card"
    _optional: ClassVar[frozenset[str]] = frozenset({"zone", "by", "conf"})

    @classmethod
    def _parse(cls, t, obj, extra):
        return cls(
            t=t,
            extra=extra,
            card=_text(obj.get("card"), "card"),
            zone=_text(obj.get("zone"), "zone", allow_none=True),
            by=_text(obj.get("by"), "by", allow_none=True),
            conf=_conf(obj.get("conf")),
        )


@dataclass(frozen=True)
class HandEvent(Event):
    """A player's hand (their own side) went up or came down."""

    player: str = ""
    side: str = ""
    state: str = ""
    conf: float | None = None

    type: ClassVar[str] = "hand"
    _optional: ClassVar[frozenset[str]] = frozenset({"conf"})

    @classmethod
    def _parse(cls, t, obj, extra):
        return cls(
            t=t,
            extra=extra,
            player=_text(obj.get("player"), "player"),
            side=_choice(obj.get("side"), "side", SIDES),
            state=_choice(obj.get("state"), "state", HAND_STATES),
            conf=_conf(obj.get("conf")),
        )


@dataclass(frozen=True)
class ShoutEvent(Event):
    """Onset of an utterance, as canonical tokens; ``player`` None when unattributed."""

    player: str | None = None
    words: tuple[str, ...] = ()
    t_end: float | None = None
    text: str | None = None
    conf: float | None = None

    type: ClassVar[str] = "shout"
    _optional: ClassVar[frozenset[str]] = frozenset({"t_end", "text", "conf"})

    @classmethod
    def _parse(cls, t, obj, extra):
        words = obj.get("words")
        if not isinstance(words, list) or not all(isinstance(w, str) and w for w in words):
            raise EventError("field 'words' must be a list of tokens (strings)")
        t_end = obj.get("t_end")
        text = obj.get("text")
        if text is not None and not isinstance(text, str):
            raise EventError("field 'text' must be a string")
        return cls(
            t=t,
            extra=extra,
            player=_text(obj.get("player"), "player", allow_none=True),
            words=tuple(w.lower() for w in words),
            t_end=None if t_end is None else _time(t_end, "t_end"),
            text=text,
            conf=_conf(obj.get("conf")),
        )


@dataclass(frozen=True)
class GrabEvent(Event):
    """A player's hand touched the token (MOKOCHAKA)."""

    player: str = ""
    conf: float | None = None

    type: ClassVar[str] = "grab"
    _optional: ClassVar[frozenset[str]] = frozenset({"conf"})

    @classmethod
    def _parse(cls, t, obj, extra):
        return cls(t=t, extra=extra, player=_text(obj.get("player"), "player"), conf=_conf(obj.get("conf")))


#: what a ``mouth`` event says: the mouth opened, closed again, or could not be read
MOUTH_STATES = ("open", "closed", "unseen")


@dataclass(frozen=True)
class MouthEvent(Event):
    """A player's mouth opened, closed, or stopped being seen (``unseen``: no face, or one too
    small to read). Written only with one room microphone, where it says who said a word
    (:mod:`referee.pipeline.crediting`); the judge does not read it."""

    player: str = ""
    state: str = ""

    type: ClassVar[str] = "mouth"

    @classmethod
    def _parse(cls, t, obj, extra):
        return cls(t=t, extra=extra, player=_text(obj.get("player"), "player"),
                   state=_choice(obj.get("state"), "state", MOUTH_STATES))


#: what the table may answer about one player's unclear observation on a card
ANSWER_VERDICTS = ("correct", "wrong")


@dataclass(frozen=True)
class DecisionEvent(Event):
    """What the table decided. Without ``card_index``: a tie on the latest card, ``first``
    takes it (the original form). With ``card_index`` (the card's verdict number, 1 = the
    first verdict line): an answer about that card, whenever it comes — ``player`` and
    ``verdict`` (``correct``/``wrong``) settle that player's unclear observation, or
    ``first`` names who takes the card. Decision: one event carries one answer, so a
    record reads as the table's answers in the order they were given."""

    first: str | None = None
    card_index: int | None = None
    player: str | None = None
    verdict: str | None = None

    type: ClassVar[str] = "decision"
    _optional: ClassVar[frozenset[str]] = frozenset({"first", "card_index", "player", "verdict"})

    @classmethod
    def _parse(cls, t, obj, extra):
        index = obj.get("card_index")
        if index is None:
            return cls(t=t, extra=extra, first=_text(obj.get("first"), "first"))
        if isinstance(index, bool) or not isinstance(index, int) or not 1 <= index <= 2 ** 31:
            raise EventError(f"field 'card_index' must be a verdict number (an integer ≥ 1), got {_short(index)}")
        if obj.get("first") is not None:
            if obj.get("player") is not None or obj.get("verdict") is not None:
                raise EventError("a decision names either 'first' or a 'player' and a 'verdict', not both")
            return cls(t=t, extra=extra, first=_text(obj["first"], "first"), card_index=index)
        return cls(t=t, extra=extra, card_index=index, player=_text(obj.get("player"), "player"),
                   verdict=_choice(obj.get("verdict"), "verdict", ANSWER_VERDICTS))

    @property
    def is_answer(self) -> bool:
        """An answer about a numbered card (not the latest card's tie)."""
        return self.card_index is not None


@dataclass(frozen=True)
class ChoiceEvent(Event):
    """A choice the rules leave to a player; the action's own fields stay in ``extra``."""

    player: str | None = None
    action: str = ""

    type: ClassVar[str] = "choice"

    @classmethod
    def _parse(cls, t, obj, extra):
        return cls(
            t=t,
            extra=extra,
            player=_text(obj.get("player"), "player", allow_none=True),
            action=_text(obj.get("action"), "action"),
        )

    def get(self, key: str, default: Any = None) -> Any:
        return self.extra.get(key, default)


@dataclass(frozen=True)
class CorrectionEvent(Event):
    """A human overrides the event on line ``ref``; ``replace`` None deletes it."""

    ref: int = 0
    replace: Mapping[str, Any] | None = None

    type: ClassVar[str] = "correction"

    @classmethod
    def _parse(cls, t, obj, extra):
        ref = obj.get("ref")
        if isinstance(ref, bool) or not isinstance(ref, int) or ref < 1:
            raise EventError(f"field 'ref' must be a line number (an integer ≥ 1), got {_short(ref)}")
        replace = obj.get("replace")
        if replace is not None:
            if not isinstance(replace, dict):
                raise EventError("field 'replace' must be an event object or null")
            new = Event.from_dict(replace)  # validate now, so the error names this line
            # Decision: a correction replaces an observation with another observation. A
            # header in the middle of a record would silently delete the card it replaces
            # (headers are only read on line 1), and a correction of a correction is what a
            # second correction of the same line is for (the last one wins).
            if isinstance(new, (SessionHeader, CorrectionEvent)):
                raise EventError(f"field 'replace' cannot be a {new.type!r} event: a correction replaces an "
                                 "observation (card, hand, shout, ...) or deletes it (null)")
        return cls(t=t, extra=extra, ref=ref, replace=replace)


@dataclass(frozen=True)
class EndEvent(Event):
    """The record ends here; the result is the standing at this moment."""

    type: ClassVar[str] = "end"

    @classmethod
    def _parse(cls, t, obj, extra):
        return cls(t=t, extra=extra)


@dataclass(frozen=True)
class UnknownEvent(Event):
    """A line of a type this version does not know: kept verbatim, ignored by the judge."""

    kind: str = ""

    type: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.extra)


# ----------------------------------------------------------------------------- status
# What the sources and stages say about themselves: not observations of the table, so the
# judging modules never see them, but the record keeps them beside the observations and
# the report and the live view show them.


class StatusEvent(Event):
    """Base of the events that report on the senses rather than on the table."""


@dataclass(frozen=True)
class WarningEvent(StatusEvent):
    """Something a person should know about the record from here on (``message``)."""

    message: str = ""

    type: ClassVar[str] = "warning"

    @classmethod
    def _parse(cls, t, obj, extra):
        return cls(t=t, extra=extra, message=_text(obj.get("message"), "message"))


@dataclass(frozen=True)
class SkippedEvent(StatusEvent):
    """A stretch of one sense's input that was not perceived: ``what`` (``audio``/``video``),
    ``from``/``to`` in session seconds and the ``reason`` (written as ``from``/``to``)."""

    what: str = ""
    start: float = 0.0
    stop: float = 0.0
    reason: str = ""

    type: ClassVar[str] = "skipped"

    @classmethod
    def _parse(cls, t, obj, extra):
        extra = {k: v for k, v in extra.items() if k not in ("from", "to", "reason", "what")}
        return cls(t=t, extra=extra, what=_text(obj.get("what"), "what"),
                   start=_time(obj.get("from", t), "from"), stop=_time(obj.get("to", t), "to"),
                   reason=str(obj.get("reason", "")))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t": self.t, "type": self.type, "what": self.what,
                               "from": self.start, "to": self.stop, "reason": self.reason}
        for k, v in self.extra.items():
            out.setdefault(k, v)
        return out


@dataclass(frozen=True)
class SeatStatusEvent(StatusEvent):
    """The camera lost sight of a seat's player (``lost``: no person found there, timed at the
    first frame without one) or saw them again (``ok``). Why: a player the camera cannot see
    raised no hand that it could see — "missed" or "wrong hand" would need evidence of
    absence, and a blocked seat gives none (RULES.md §0)."""

    player: str = ""
    state: str = ""
    detail: str | None = None

    type: ClassVar[str] = "seat_status"
    _optional: ClassVar[frozenset[str]] = frozenset({"detail"})

    @classmethod
    def _parse(cls, t, obj, extra):
        detail = obj.get("detail")
        return cls(t=t, extra=extra, player=_text(obj.get("player"), "player"), state=_text(obj.get("state"), "state"),
                   detail=None if detail in (None, "") else str(detail))


#: the ``audio_status`` state saying the session is heard through one room microphone
AUDIO_ROOM = "room"


@dataclass(frozen=True)
class AudioStatusEvent(StatusEvent):
    """The audio input dropped (``lost``), came back (``ok``) or dropped samples (``overflow``);
    or (``room``, :data:`AUDIO_ROOM`) it is one room microphone: no seat has a channel of its
    own, and a word counts for a seat only once credited to it (``credited_by`` on the shout)."""

    state: str = ""
    detail: str | None = None

    type: ClassVar[str] = "audio_status"
    _optional: ClassVar[frozenset[str]] = frozenset({"detail"})

    @classmethod
    def _parse(cls, t, obj, extra):
        detail = obj.get("detail")
        return cls(t=t, extra=extra, state=_text(obj.get("state"), "state"),
                   detail=None if detail in (None, "") else str(detail))

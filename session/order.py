"""The one canonical order of a session record's events.

Events are ordered by time, then by kind, then by their JSON text, so events with equal
timestamps come out the same whatever order the stages emitted them in. The kind order at
one instant: what the record says about its own input first (a skipped stretch, a warning),
then what appears (a card), then what reacts to it (hands, grabs, shouts), then what the
table decides about it (decision, choice), corrections, unknown kinds, and ``end`` last.
The record writer, the watermark merge and the judge all use this key.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

KIND_ORDER: dict[str, int] = {
    "skipped": 0, "warning": 0, "seat_status": 0, "card": 1, "hand": 2, "mouth": 2, "grab": 3, "shout": 4, "audio_status": 5,
    "decision": 6, "choice": 7, "correction": 8, "end": 10,
}
#: the rank of a kind this version does not know (after every known reaction, before ``end``)
UNKNOWN_RANK = 9


def rank(kind: str) -> int:
    return KIND_ORDER.get(kind, UNKNOWN_RANK)


def sort_key(event: Any) -> tuple:
    """The canonical key of an event (a typed :class:`session.events.Event` or its dict)."""
    obj: Mapping[str, Any] = event if isinstance(event, Mapping) else event.to_dict()
    return (obj["t"], rank(obj["type"]), json.dumps(obj, ensure_ascii=False))

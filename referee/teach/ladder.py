"""The rule ladder: one rule per level; a level unlocks the next at ≥ 90 % right with the
median reaction under the level's target, over its last answers; a short placement test
picks the start level of a new learner.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Sequence

from referee.teach.core import Level
from session.params import check_ranges


@dataclass(frozen=True)
class LadderParams:
    """When a learner moves up a level."""

    #: the answers a level is judged on (its last 10: enough that 9/10 means something, few
    #: enough to level up inside a 20-card session).
    window: int = 10
    #: the share of them that must be right. Higher: slower progress, surer mastery.
    accuracy: float = 0.9
    #: placement cards per level (a wrong or slow one stops the test there).
    placement_per_level: int = 2

    def __post_init__(self):
        check_ranges(self, at_least_one=("window", "placement_per_level"), fraction=("accuracy",))


def standing(answers: Sequence[dict[str, Any]], level: Level, params: LadderParams = LadderParams()) -> dict[str, Any]:
    """Accuracy and median reaction of the level's last ``window`` answers, and whether it is
    mastered (the next level unlocks)."""
    mine = [a for a in answers if a["rule"] == level.rule][-params.window:]
    right = [a for a in mine if a["verdict"] == "correct"]
    times = [a["reaction"] for a in right if a.get("reaction") is not None]
    acc = len(right) / len(mine) if mine else 0.0
    med = statistics.median(times) if times else None
    done = (len(mine) >= params.window and acc >= params.accuracy and med is not None and med < level.target_s)
    return {"answers": len(mine), "accuracy": acc, "median": med, "mastered": done}


def placement_result(levels: Sequence[Level], results: Sequence[tuple[str, bool, float | None]]) -> int:
    """The start level index from placement answers ``(rule, right, reaction)``: the first
    level with a wrong or slower-than-target answer."""
    by_rule: dict[str, list[tuple[bool, float | None]]] = {}
    for rule, ok, t in results:
        by_rule.setdefault(rule, []).append((ok, t))
    for i, lv in enumerate(levels):
        got = by_rule.get(lv.rule)
        if not got or not all(ok and t is not None and t < lv.target_s for ok, t in got):
            return i
    return len(levels) - 1

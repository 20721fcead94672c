"""The ghost rival: an opponent whose reaction times come from the learner's own history,
slightly faster, so practice feels like a table.

For each card the rival is right with the learner's recent accuracy on this drill and
reacts at a time drawn from the learner's recent right answers times ``speedup``; with no
history yet it reacts at ``default_s``. Drawn with the lesson's seeded ``random.Random``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Sequence

from referee.teach.drills.base import RivalAnswer
from session.params import check_ranges


@dataclass(frozen=True)
class GhostParams:
    """The rival the learner races (a rival that always wins discourages, one that never wins
    bores)."""

    #: the rival's time as a share of the learner's (0.9: 10 % faster).
    speedup: float = 0.9
    #: the learner's answers its time is taken from.
    history: int = 30
    #: the rival's time before the learner has a history (s).
    default_s: float = 1.5
    #: the rival is never faster than this (s): no human is.
    min_s: float = 0.25

    def __post_init__(self):
        check_ranges(self, positive=("speedup", "default_s", "min_s"), at_least_one=("history",))


class Ghost:
    def __init__(self, answers: Sequence[dict[str, Any]], rng: random.Random, params: GhostParams = GhostParams()):
        self.params = params
        self.rng = rng
        self.recent = list(answers)[-params.history:]

    def add(self, answer: dict[str, Any]) -> None:
        self.recent = (self.recent + [answer])[-self.params.history:]

    def answer(self) -> RivalAnswer:
        p = self.params
        right = [a["reaction"] for a in self.recent if a["verdict"] == "correct" and a.get("reaction")]
        accuracy = (sum(a["verdict"] == "correct" for a in self.recent) / len(self.recent)) if self.recent else 0.9
        t = self.rng.choice(right) * p.speedup if right else p.default_s
        correct = self.rng.random() < accuracy
        return RivalAnswer(t=round(max(p.min_s, t), 3), correct=correct)

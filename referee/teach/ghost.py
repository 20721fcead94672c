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


@dataclass(frozen=True)
class GhostParams:
    """``speedup`` 0.9: the rival is 10 % faster than the learner (a rival that always
    wins discourages, one that never wins bores); ``history`` 30 answers; ``default_s`` 1.5 s
    before the learner has a history; ``min_s`` 0.25 s (no human is faster)."""

    speedup: float = 0.9
    history: int = 30
    default_s: float = 1.5
    min_s: float = 0.25


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

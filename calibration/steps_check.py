"""A calibration step's self-check (:mod:`calibration.steps`): ok, warn or fail, with what was found
or what to fix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Check:
    """One self-check: ``level`` ok / warn / fail, and what was found or what to fix."""

    step: str
    level: str
    message: str

    def __str__(self) -> str:
        mark = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}[self.level]
        return f"[{mark}] {self.step}: {self.message}"

    def to_dict(self) -> dict:
        return {"step": self.step, "level": self.level, "message": self.message}


def failed(checks: Sequence[Check]) -> list[Check]:
    return [c for c in checks if c.level == "fail"]


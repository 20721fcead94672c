"""A learner's progress: one JSON Lines file per learner in the user's data folder.

Folder: ``--data DIR``, else ``$TABLE_REFEREE_DATA``, else ``$XDG_DATA_HOME/table-referee``,
else ``~/.local/share/table-referee``; the file is ``learners/NAME.jsonl``. Lines (appended,
flushed one by one, so a killed session keeps what it answered):

- ``{"type": "start", "session": N, "drill", "at", "seed", "lang"}``: a session started;
- ``{"type": "answer", "session", "n", "drill", "rule", "situation", "verdict", "reaction",
  "answered", "answered_as", "placement", "at"}``: one judged answer (with ``"revises": true``
  it replaces the answer of the same session, drill and ``n``: the referee judged the card
  again after a late event);
- ``{"type": "fsrs", "drill", "situation", "card"}``: the situation's FSRS card after it;
- ``{"type": "level", "drill", "level", "at", "why"}``: the learner reached a level.

Why JSON Lines rather than SQLite: the same append-only, human-readable, diff-able form as
the session record; a learner's file stays small (one line per answer). Reading replays the
lines; a malformed line is skipped and named in ``issues`` (the CLI warns with it).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fsrs

from session.errors import RefereeError

ENV = "TABLE_REFEREE_DATA"


class ProgressError(RefereeError):
    pass


def data_dir(option: str | Path | None = None) -> Path:
    if option:
        return Path(option)
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "table-referee"


def check_learner(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,40}", name or "") or name.startswith("."):
        raise ProgressError(f"learner name {name!r}: use 1-40 letters, digits, '_', '-' or '.'")
    return name


@dataclass
class Progress:
    """What a learner's file says, replayed: answers, FSRS cards and levels per drill."""

    path: Path
    answers: list[dict[str, Any]] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)
    cards: dict[str, dict[str, fsrs.Card]] = field(default_factory=dict)  # drill -> key -> card
    levels: dict[str, list[str]] = field(default_factory=dict)  # drill -> levels reached, in order
    issues: list[str] = field(default_factory=list)  # lines skipped, each naming its line

    @classmethod
    def open(cls, learner: str, folder: str | Path | None = None) -> "Progress":
        path = data_dir(folder) / "learners" / f"{check_learner(learner)}.jsonl"
        prog = cls(path)
        if path.exists():
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    prog.take(json.loads(line))
                except (ValueError, KeyError, TypeError, AttributeError) as exc:
                    prog.issues.append(f"{path}:{n}: progress line skipped ({type(exc).__name__}: {exc})")
        return prog

    def take(self, obj: dict[str, Any]) -> None:
        """Take one progress line (an answer, a session start, a card's schedule or a level
        reached) into memory, without writing it (:meth:`append` writes it too)."""
        kind = obj["type"]
        if kind == "answer":
            self._answer(obj)
        elif kind == "start":
            self.sessions.append(obj)
        elif kind == "fsrs":
            self.cards.setdefault(obj["drill"], {})[obj["situation"]] = fsrs.Card.from_dict(obj["card"])
        elif kind == "level":
            self.levels.setdefault(obj["drill"], []).append(obj["level"])

    def _answer(self, obj: dict[str, Any]) -> None:
        """An answer, or a revision of one (``revises``: the live referee judged the card again
        after a late event) that replaces the answer of the same session, drill and number."""
        if obj.get("revises"):
            for i in range(len(self.answers) - 1, -1, -1):
                a = self.answers[i]
                if (a.get("session"), a["drill"], a.get("n")) == (obj.get("session"), obj["drill"], obj.get("n")):
                    self.answers[i] = obj
                    return
        self.answers.append(obj)

    def append(self, obj: dict[str, Any]) -> None:
        self.take(obj)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8", newline="\n") as f:
                f.write(json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n")
        except OSError as exc:
            raise ProgressError(f"{self.path}: cannot write progress ({exc.strerror})") from None

    def next_session(self) -> int:
        return 1 + max((s["session"] for s in self.sessions), default=0)

    def of(self, drill: str) -> list[dict[str, Any]]:
        return [a for a in self.answers if a["drill"] == drill]

    def confusion(self, drill: str) -> Counter:
        out: Counter = Counter()
        for a in self.of(drill):
            # (a false start is no confusion: files written before said "answered as" for it)
            if a.get("answered_as") and a["verdict"] == "wrong":
                out[(a["situation"], a["answered_as"])] += 1
        return out

    def level(self, drill: str) -> str | None:
        got = self.levels.get(drill)
        return got[-1] if got else None

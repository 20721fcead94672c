"""Shared helpers of the vision tests: the real data sets (read in place) and small scenes."""

from __future__ import annotations

import csv
import os
from pathlib import Path

from tests.conftest import shared_path as _shared_path


def shared_path(*parts: str) -> Path:
    """``tests/conftest.py: shared_path``, or under ``$REFEREE_SHARED`` when that is set (a
    worktree that does not sit beside ``shared/``); skips when absent."""
    env = os.environ.get("REFEREE_SHARED")
    if env and Path(env).joinpath(*parts).exists():
        return Path(env).joinpath(*parts)
    return _shared_path(*parts)


def card_rows() -> list[dict]:
    base = shared_path("data", "cards")
    with open(base / "labels.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["path"] = base / r["file"]
    return rows


def link_refs(deck: str, folder: Path) -> Path:
    """A reference folder named by code (``2S.jpg``) made of symlinks to the shared photos
    (read in place, nothing copied)."""
    folder.mkdir(parents=True, exist_ok=True)
    for r in card_rows():
        if r["role"] == "ref" and r["deck"] == deck:
            os.symlink(r["path"], folder / f"{r['cards']}{Path(r['file']).suffix}")
    return folder


def pose_rows() -> list[dict]:
    base = shared_path("data", "poses")
    with open(base / "labels.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["path"] = base / r["file"]
        r["box"] = tuple(int(r[k]) for k in ("x1", "y1", "x2", "y2"))
    return rows


def set_cards(monkeypatch, name: str, value) -> None:
    """``monkeypatch.setattr`` of ``vision.cards.<name>`` in every module split from it that
    holds the name (each module reads its own global), as one module was patched before."""
    import sys

    import vision.cards  # noqa: F401  (loads the split modules)

    mods = [m for k, m in sorted(sys.modules.items()) if k == "vision.cards" or k.startswith("vision.card_")]
    held = [m for m in mods if hasattr(m, name)]
    if not held:
        raise AttributeError(f"vision.cards has no {name}")
    for m in held:
        monkeypatch.setattr(m, name, value)

"""The synthetic-voice benchmark of hearing (:mod:`audio.bench`), with the games' calls.

    python benchmarks/bench_audio.py [--size tiny|small|full] [--model NAME] [--lang ja|en]

Why a script here: the benchmark listens for each game's calls, which the games declare
(``rules.vocabulary``), and ``audio`` may not import ``rules``.
"""

from __future__ import annotations

import sys

import rules
from audio import bench


def vocabularies() -> dict:
    """Each game with calls -> its calls in its default mode (what ``referee listen`` hears)."""
    return {g.name: rules.vocabulary(g.name) for g in rules.all_games() if g.calls is not None}


if __name__ == "__main__":
    bench.main(sys.argv[1:], vocabularies())

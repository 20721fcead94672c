"""2,000 lines of mutated fixture records through what ``referee judge`` does: no crash
(``benchmarks/fuzz_records.py`` runs 20,000 and prints the counts)."""

from __future__ import annotations


import pytest

from tests.conftest import load_benchmark


def _fuzz():
    return load_benchmark("fuzz_records")


@pytest.mark.parametrize("seed", [11, 12])
def test_mutated_records_never_crash(seed):
    counts = _fuzz().run(1000, seed)
    assert counts.lines >= 1000
    assert not counts.crashes, counts.crashes[0]
    # the mutations reach every outcome: judged clean, judged with line issues, refused
    assert counts.clean and counts.with_issues and counts.refused

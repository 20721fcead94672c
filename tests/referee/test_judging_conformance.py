"""One judging conformance test that every registered game passes, in every mode.

Random legal games, played by the rules modules with a seeded ``random.Random`` and
rendered as session records (``tests/referee/render.py``), must:

- judge with no warnings, and reach what the rules say: each verdict's fields the rules
  fix (who took the card, who was wrong, the call, the next player, the totals…) and the
  result;
- judge the same event by event as in one batch, byte for byte, at every prefix of the
  record: one :class:`referee.judge.IncrementalJudge` fed the record's events one at a time
  never says a line the batch judgement of that prefix does not say in the same place, and
  a judge fed the prefix then finished gives exactly the batch judgement of the prefix
  (lines and warnings);
- still judge the same event by event when the record is written out of canonical order
  and a human's correction deletes one of its events.

The test goes through ``referee.judge`` only (``judge`` and ``IncrementalJudge``), so it
holds whether a game's module is a real incremental ``Judge`` or the batch adapter.
"""

from __future__ import annotations

import json
import random

import pytest

import rules
from referee.judge import IncrementalJudge, judge
from session.record import Record, dumps, parse_lines
from tests.referee.render import games, render

SEEDS = range(4)
CASES = [(game, mode, seed) for game, mode in games() for seed in SEEDS]
IDS = [f"{game}-{mode}-{seed}" for game, mode, seed in CASES]


def _text(judgement) -> tuple[str, list[str]]:
    return judgement.jsonl(), [str(n) for n in judgement.notes]


def test_every_game_and_mode_is_rendered():
    assert {g for g, _ in games()} == set(rules.names())
    assert [m for g, m in games() if g == "ikatako"] == ["versus", "coop", "solo"]


@pytest.mark.parametrize("game,mode,seed", CASES, ids=IDS)
def test_random_games_judge_cleanly_and_as_the_rules_say(game, mode, seed):
    rendered = render(game, mode, seed)
    record = rendered.record()
    assert record.issues == []
    j = judge(record)
    assert [str(n) for n in j.notes] == []
    verdicts = [o for o in j.lines if o["type"] == "verdict"]
    assert len(verdicts) == len(rendered.verdicts) > 0
    for i, (got, want) in enumerate(zip(verdicts, rendered.verdicts)):
        assert {k: got.get(k) for k in want} == want, f"verdict {i + 1} at t={got['t']}"
    assert [o["type"] for o in j.lines] == ["verdict"] * len(verdicts) + ["result"]
    assert {k: j.lines[-1].get(k) for k in rendered.result} == rendered.result


@pytest.mark.parametrize("game,mode,seed", CASES, ids=IDS)
def test_incremental_judging_equals_batch_at_every_prefix(game, mode, seed):
    record = render(game, mode, seed).record()
    entries = record.entries
    running = IncrementalJudge(record.header)
    said: list[str] = []
    for k in range(len(entries) + 1):
        if k:
            said += [dumps(x) for x in running.feed(entries[k - 1].event)]
        batch = judge(Record(header=record.header, entries=entries[:k]))
        batch_lines = [dumps(x) for x in batch.lines]
        assert said == batch_lines[: len(said)], f"a line said after {k} events is not the batch judgement's"
        fresh = IncrementalJudge(record.header)
        for entry in entries[:k]:
            fresh.feed(entry.event)
        assert _text(fresh.finish()) == _text(batch), f"prefix of {k} events"
    assert _text(running.finish()) == _text(judge(record))


@pytest.mark.parametrize("game,mode", games(), ids=[f"{g}-{m}" for g, m in games()])
def test_out_of_order_and_corrected_records_judge_the_same_event_by_event(game, mode):
    lines = render(game, mode, 0).lines(canonical=False)
    rng = random.Random(f"{game}/{mode}")
    ref = rng.randrange(2, len(lines) + 1)  # the line of an event a human deletes
    where = rng.randrange(ref, len(lines) + 1)
    lines.insert(where, json.dumps({"t": 0.5, "type": "correction", "ref": ref, "replace": None}))
    record = parse_lines(lines)
    assert record.errors == []  # the reader warns of the lines out of time order
    entries = record.entries
    step = max(1, len(entries) // 12)
    for k in sorted({*range(0, len(entries), step), where - 1, where, len(entries)}):
        fresh = IncrementalJudge(record.header)
        for entry in entries[:k]:
            fresh.feed(entry.event)
        assert _text(fresh.finish()) == _text(judge(Record(header=record.header, entries=entries[:k]))), \
            f"prefix of {k} events"


@pytest.mark.parametrize("game", rules.names())
def test_every_registered_game_judges_incrementally_and_describes_its_verdicts(game):
    """Registering a game is its rules module and its judging module: the registry finds the
    judge (a real incremental one) and the report's description through the game's name."""
    from referee import judging
    from referee.judging.base import GameJudge

    module = judging.module(game)
    assert issubclass(module.Judge, GameJudge) and module.Judge.feed is not GameJudge.feed
    assert rules.get(game).title and rules.get(game).zones

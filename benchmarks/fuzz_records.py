"""Fuzz the record path with mutated fixture records: nothing may crash.

Each round takes one of the project's own session records (``fixtures/sessions``, the
judge scenarios of ``tests/referee/scenarios``), mutates a few of its lines — numbers at the
edges of the float range, integers beyond it, NaN/Infinity, lone surrogates and control
characters in strings, removed/retyped fields, deep nesting, a header moved or broken,
corrections pointing anywhere (replacing with a header), cut or byte-flipped lines, bad
rule options — and runs it through what ``referee judge`` does (read, judge with the
options, the people's table, the JSON lines, both encoded for output). A
:class:`session.errors.RefereeError` is an answer (one line); any other exception is a
crash and is printed with the line that caused it.

    python benchmarks/fuzz_records.py [--lines 20000] [--seed 0]

Prints the counts (records, lines, answered with issues/errors, crashes) and the load
average; exits 1 when anything crashed. ``tests/referee/test_fuzz_records.py`` runs 2,000
lines of it in the test suite.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from session.errors import RefereeError  # noqa: E402

EDGE_NUMBERS = [0, -0.0, 1e308, -1e308, 1.7976931348623157e308, 5e-324, -5e-324, 2 ** 53 + 1, 2 ** 63,
                -(2 ** 63) - 1, 10 ** 400, -(10 ** 400), 86_400.0, 86_400.000001, -86_400.0, 1e-12, 3.0, -1, 1.5]
EDGE_STRINGS = ["\ud800", "\udfff", "a\ud83dz", "\x00", "\x1b[2J", "\u202e", "\x7f", "\u0085", "", " ", "é",
                "💥", "\n", "\r\n", "a" * 5000, "ika", "tako", "2", "aki", "null"]
OPTION_VALUES = ["-1", "0", "1e999", "NaN", "-Infinity", "9" * 400, "9" * 5000, "2.5", "lowest", "[]", "{}",
                 '"\\ud800"', "[" * 3000]
OPTION_NAMES = ["window", "tie_ms", "penalty_card", "three_count", "grab_slack", "deck", "penalty_receiver",
                "bonus_piles", "jokers", "griddle", "sizes", "games", "double", "extra_salt", "nope"]


@dataclass
class Counts:
    records: int = 0
    lines: int = 0
    clean: int = 0          # judged without an issue
    with_issues: int = 0    # judged, with malformed lines reported
    refused: int = 0        # one RefereeError line (bad option, no header, ...)
    crashes: list[str] = field(default_factory=list)


def sources() -> list[list[str]]:
    files = sorted((ROOT / "fixtures" / "sessions").glob("*.jsonl"))
    files += sorted((ROOT / "tests" / "referee" / "scenarios").glob("*/*.jsonl"))
    out = []
    for f in files:
        if f.name.endswith(".expected.jsonl"):
            continue
        lines = [x for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
        if lines:
            out.append(lines)
    return out


def _any_value(rng: random.Random, depth: int = 0):
    pick = rng.random()
    if pick < 0.35:
        return rng.choice(EDGE_NUMBERS)
    if pick < 0.65:
        return rng.choice(EDGE_STRINGS)
    if pick < 0.75:
        return rng.choice([None, True, False, [], {}])
    if pick < 0.85 and depth < 3:
        return [_any_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if depth < 3:
        return {rng.choice(EDGE_STRINGS + ["t", "type"]): _any_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    return rng.choice(EDGE_NUMBERS)


def _deep(n: int) -> str:
    return "[" * n + "]" * n


def mutate_obj(obj, rng: random.Random, lines: list[str]):
    """One mutation of a parsed line (a dict), or a raw text line."""
    kind = rng.randrange(12)
    obj = copy.deepcopy(obj) if isinstance(obj, dict) else {"t": 1.0, "type": "card", "card": "2"}
    keys = list(obj)
    if kind == 0 and keys:  # a field gets an edge value
        obj[rng.choice(keys)] = _any_value(rng)
    elif kind == 1 and keys:  # a field is removed
        del obj[rng.choice(keys)]
    elif kind == 2:  # t at the edges
        obj["t"] = rng.choice(EDGE_NUMBERS)
    elif kind == 3:  # conf / t_end / from / to at the edges
        obj[rng.choice(["conf", "t_end", "from", "to", "ref"])] = rng.choice(EDGE_NUMBERS)
    elif kind == 4:  # a string field gets surrogates and control characters
        for k in keys:
            if isinstance(obj[k], str) and k != "type":
                obj[k] = obj[k][: rng.randint(0, 3)] + rng.choice(EDGE_STRINGS) + obj[k][3:]
                break
        else:
            obj["note"] = rng.choice(EDGE_STRINGS)
    elif kind == 5:  # a correction pointing anywhere, replacing with anything (a header)
        target = rng.randint(-1, len(lines) + 2)
        try:
            replace = json.loads(rng.choice(lines))
        except (ValueError, RecursionError):
            replace = None
        obj = {"t": obj.get("t", 1.0) if isinstance(obj, dict) else 1.0, "type": "correction", "ref": target,
               "replace": rng.choice([None, replace, _any_value(rng)])}
    elif kind == 6:  # bad rule options in a header
        try:
            obj = json.loads(lines[0]) if lines else {}
        except (ValueError, RecursionError):
            obj = {}
        if isinstance(obj, dict):
            obj.setdefault("options", {})
            if isinstance(obj["options"], dict):
                obj["options"][rng.choice(OPTION_NAMES)] = _any_value(rng)
    elif kind == 7:  # the type changed
        obj["type"] = rng.choice(["session", "card", "hand", "shout", "grab", "decision", "choice", "correction",
                                  "end", "warning", "skipped", "audio_status", "verdict", "\ud800", ""])
    elif kind == 8 and keys:  # a list/number/string field changes kind
        k = rng.choice(keys)
        obj[k] = rng.choice([[obj[k]], {"v": obj[k]}, str(obj[k]), None])
    elif kind == 9:
        return rng.choice([_deep(rng.choice([10, 200, 990, 5000])), json.dumps(obj)[: rng.randint(0, 40)],
                           "NaN", '{"t": NaN, "type": "card", "card": "2"}', '{"t": Infinity}',
                           '{"t": 1, "type": "card", "card": "2", "x": ' + "9" * 5000 + "}", ""])
    elif kind == 10:  # nested extra field
        obj["extra"] = json.loads(_deep(rng.choice([5, 50, 400])))
    else:  # a number field scaled to an edge
        for k in keys:
            if isinstance(obj[k], (int, float)) and not isinstance(obj[k], bool):
                obj[k] = obj[k] * rng.choice([1e300, -1, 0, 10 ** 20])
                break
    if isinstance(obj, str):
        return obj
    try:
        return json.dumps(obj, ensure_ascii=rng.random() < 0.5)
    except (ValueError, TypeError, RecursionError):
        return "{}"


def mutate(lines: list[str], rng: random.Random) -> bytes:
    out = list(lines)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(out))
        op = rng.random()
        if op < 0.08:  # move a line (the header) elsewhere
            j = rng.randrange(len(out))
            out.insert(j, out.pop(i))
            continue
        if op < 0.12:
            out.insert(i, out[i])
            continue
        try:
            obj = json.loads(out[i])
        except (json.JSONDecodeError, ValueError, RecursionError):
            obj = {}
        out[i] = mutate_obj(obj, rng, out)
    raw = "\n".join(out).encode("utf-8", "surrogatepass")
    if rng.random() < 0.05:  # flip a byte
        b = bytearray(raw)
        if b:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        raw = bytes(b)
    return raw


def judge_as_the_cli_does(raw: bytes, rng: random.Random) -> str:
    """What ``referee judge FILE [-o ...] [--json]`` does with a record; returns the outcome."""
    from referee import announce
    from referee.judge import judge
    from referee.options import parse_option_args
    from session.record import read_record

    args = []
    if rng.random() < 0.15:
        args.append(rng.choice(OPTION_NAMES) + "=" + rng.choice(OPTION_VALUES))
    overrides = parse_option_args(args)
    record = read_record(raw)
    text = "\n".join(str(i) for i in record.issues)
    judgement = judge(record, overrides)
    text += "\n".join(str(n) for n in judgement.notes)
    text += announce.table(judgement, record.header)
    text += judgement.jsonl()
    text.encode("utf-8", "backslashreplace")  # what the CLI's streams do
    return "issues" if record.issues else "clean"


def run(n_lines: int, seed: int, on_crash=None) -> Counts:
    rng = random.Random(seed)
    pool = sources()
    counts = Counts()
    while counts.lines < n_lines:
        raw = mutate(rng.choice(pool), rng)
        counts.records += 1
        counts.lines += raw.count(b"\n") + 1
        try:
            outcome = judge_as_the_cli_does(raw, rng)
        except RefereeError:
            counts.refused += 1
            continue
        except Exception:  # noqa: BLE001 - a crash is what we count
            report = traceback.format_exc(limit=6)
            counts.crashes.append(report + "record:\n" + raw.decode("utf-8", "replace")[:2000])
            if on_crash is not None:
                on_crash(counts.crashes[-1])
            continue
        if outcome == "clean":
            counts.clean += 1
        else:
            counts.with_issues += 1
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    load = os.getloadavg()
    t0 = time.perf_counter()
    counts = run(args.lines, args.seed, on_crash=lambda c: print("CRASH\n" + c, file=sys.stderr))
    dt = time.perf_counter() - t0
    print(f"fuzz_records seed {args.seed}: {counts.records} mutated records, {counts.lines} lines "
          f"in {dt:.1f} s (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})")
    print(f"  judged clean {counts.clean}, judged with line issues {counts.with_issues}, "
          f"refused with one line {counts.refused}, crashes {len(counts.crashes)}")
    return 1 if counts.crashes else 0


if __name__ == "__main__":
    sys.exit(main())

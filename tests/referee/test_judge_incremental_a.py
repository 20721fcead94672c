"""IKATAKO and MOKOCHAKA judged event by event: the same bytes as batch judging at every
prefix, each verdict out as soon as it is final, and the live announcements."""

from __future__ import annotations

import copy
import importlib.util
import json
import random
from pathlib import Path

import pytest

from referee.judge import IncrementalJudge, apply_corrections, judge
from session.events import CardEvent, EndEvent, UnknownEvent
from session.order import sort_key
from session.record import Entry, Record, parse_lines, read_record
from rules.mokochaka import card_id
from tests.conftest import FIXTURES, ROOT

SCENARIOS = ROOT / "tests" / "referee" / "scenarios"
SESSIONS = FIXTURES / "sessions"
GAMES = ("ikatako", "mokochaka")


def _module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _objs_record(objs: list[dict]) -> Record:
    return parse_lines([json.dumps(o) for o in objs])


def _generated() -> dict[str, Record]:
    """Sessions the fixture scripts write: the committed ones' seeds and two more each."""
    ika = _module(FIXTURES / "make_ikatako_sessions.py", "make_ikatako_sessions_a")
    moko = _module(SESSIONS / "make_mokochaka.py", "make_mokochaka_a")
    out = {}
    for seed in (2026, 5, 9):
        out[f"gen_versus_{seed}"] = _objs_record(ika.versus_events(random.Random(seed))[0])
    for seed in (7, 3):
        out[f"gen_solo_{seed}"] = _objs_record(ika.coop_events(random.Random(seed), ("emi",), ika.SOLO, "solo", with_by=True)[0])
    for seed in (11, 4):
        out[f"gen_coop_{seed}"] = _objs_record(
            ika.coop_events(random.Random(seed), ika.COOP_PLAYERS, ika.COOP, "coop", with_by=False)[0])
    for seed in (moko.choose_seed(), 1, 2):
        out[f"gen_mokochaka_{seed}"] = _objs_record(moko.play_game(seed)[0])
    # the same games as a sloppy perception would report them: lost, shifted and doubled events
    out["shaken_versus"] = _shaken(ika.versus_events(random.Random(2026))[0], random.Random(1))
    out["shaken_coop"] = _shaken(ika.coop_events(random.Random(11), ika.COOP_PLAYERS, ika.COOP, "coop", with_by=False)[0],
                                 random.Random(2))
    for seed in (1, 2):
        out[f"shaken_mokochaka_{seed}"] = _shaken(moko.play_game(seed)[0], random.Random(seed))
    return out


def _shaken(objs: list[dict], rng: random.Random) -> Record:
    body = []
    for o in objs[1:]:
        r = rng.random()
        if r < 0.08:
            continue
        o = dict(o)
        if r < 0.16:
            o["t"] = round(max(0.0, o["t"] + rng.uniform(-0.5, 0.5)), 3)
        body += [o, dict(o)] if r > 0.97 else [o]
    return _objs_record([objs[0]] + sorted(body, key=lambda o: o["t"]))


def _records() -> dict[str, Record]:
    paths = [p for game in GAMES for p in sorted((SCENARIOS / game).glob("*.jsonl"))
             if not p.name.endswith(".expected.jsonl")]
    paths += [SESSIONS / f"{n}.jsonl" for n in ("demo_ikatako_versus", "ikatako_solo", "ikatako_coop", "mokochaka_4p_game")]
    records = {f"{p.parent.name}/{p.stem}": read_record(p) for p in paths}
    records.update(_generated())
    return records


RECORDS = _records()


def test_every_scenario_and_fixture_of_both_games_is_covered():
    names = set(RECORDS)
    assert sum(n.startswith("ikatako/") for n in names) >= 10 and sum(n.startswith("mokochaka/") for n in names) >= 5
    assert {"sessions/demo_ikatako_versus", "sessions/mokochaka_4p_game"} <= names
    assert {r.header.game for r in RECORDS.values()} == set(GAMES)


def _canonical(record: Record):
    # status events are fed too: what they say the senses missed is judged (a seat not heard)
    events, notes = apply_corrections(record)
    return sorted((e for e in events if not isinstance(e, UnknownEvent)), key=sort_key), notes


def _prefix(record: Record, events) -> Record:
    return Record(header=record.header, entries=[Entry(e.line, e) for e in events])


def _notes(judgement):
    return [(n.line, n.message, n.severity) for n in judgement.notes]


def _verdicts(lines):
    return [x for x in lines if x["type"] == "verdict"]


def _closes(game: str, ev) -> bool:
    """An event after which the verdict of the card before it can no longer change."""
    if isinstance(ev, EndEvent):
        return True
    if not isinstance(ev, CardEvent):
        return False
    if game == "ikatako":
        return True
    try:
        card_id(ev.card)
    except Exception:
        return False
    return ev.by is not None and ev.zone in ("pile0", "pile1", "pile2")


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_incremental_equals_batch_at_every_prefix_and_verdicts_come_out_when_final(name):
    record = RECORDS[name]
    game = record.header.game
    events, _ = _canonical(record)
    full = judge(_prefix(record, events))
    inc = IncrementalJudge(record.header)
    emitted: list[dict] = []
    previous = judge(_prefix(record, []))
    ended = False
    closings = 0
    for k in range(len(events) + 1):
        if k:
            ev = events[k - 1]
            emitted += inc.feed(ev)
            ended = ended or isinstance(ev, EndEvent)
        batch = judge(_prefix(record, events[:k]))
        now = copy.deepcopy(inc).finish()
        # prefix + finish == batch of that prefix, byte for byte (lines and notes)
        assert now.jsonl() == batch.jsonl(), f"{name}: prefix of {k} events"
        assert _notes(now) == _notes(batch), f"{name}: prefix of {k} events"
        # what came out of feed is final: the start of this prefix's and of the whole record's judgement
        assert emitted == batch.lines[:len(emitted)] == full.lines[:len(emitted)], f"{name}: after {k} events"
        assert all(x["type"] == "verdict" for x in emitted)
        pending = len(_verdicts(batch.lines)) - len(emitted)
        assert 0 <= pending <= (0 if ended else 1), f"{name}: {pending} verdicts held back after {k} events"
        if k and _closes(game, events[k - 1]):
            closings += 1
            assert len(emitted) >= len(_verdicts(previous.lines)), (
                f"{name}: event {k} ({events[k - 1].type} at t={events[k - 1].t}) closed a card, its verdict is late")
        previous = batch
    assert closings > 0 and emitted == _verdicts(full.lines) or not ended
    assert inc.finish().jsonl() == full.jsonl()


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_fed_in_record_order_with_corrections_the_judgement_is_the_batch_one(name):
    record = RECORDS[name]
    inc = IncrementalJudge(record.header)
    for entry in record.entries:
        inc.feed(entry.event)
    got, want = inc.finish(), judge(record)
    assert got.jsonl() == want.jsonl()
    assert sorted(_notes(got)) == sorted(_notes(want))


# ----------------------------------------------------------------------------- announcements


def _drive(record: Record, step: float = 0.01, extra: float = 4.0):
    """Play the record as a live table would: the watermark moves in ``step`` s; every event
    earlier than the watermark is fed before the table asks what can be announced."""
    heard, judgement, _ = _drive_counted(record, step, extra)
    return heard, judgement


def _drive_counted(record: Record, step: float = 0.01, extra: float = 4.0):
    """:func:`_drive`, and for each announcement the index of the verdict it is about (the
    verdicts out so far: the open card's verdict is the next one)."""
    events, _ = _canonical(record)
    inc = IncrementalJudge(record.header)
    heard, about, i, k = [], [], 0, 0
    last = (events[-1].t if events else 0.0) + extra
    while True:
        w = round(k * step, 6)
        while i < len(events) and events[i].t < w:
            inc.feed(events[i])
            i += 1
        said = inc.announce(w)
        heard += said
        about += [len(inc.lines)] * len(said)
        if w > last:
            break
        k += 1
    return heard, inc.finish(), about


def _announces(heard, what):
    return [a for a in heard if a["what"] == what]


VERSUS = {"t": 0.0, "type": "session", "game": "ikatako", "mode": "versus", "players": ["aki", "ben", "chie", "dai"],
          "options": {"tie_ms": 50, "window": 3.0}}


def _shout(t, player, *words):
    return {"t": t, "type": "shout", "player": player, "words": list(words)}


def _hand(t, player, side, state="up"):
    return {"t": t, "type": "hand", "player": player, "side": side, "state": state}


def test_first_is_announced_once_nobody_can_beat_or_tie_and_not_before():
    rec = _objs_record([VERSUS, {"t": 1.0, "type": "card", "card": "3"},
                        _shout(1.2, "chie", "4"), _shout(1.3, "ben", "3"), _shout(1.36, "aki", "3"),
                        {"t": 5.0, "type": "card", "card": "5"}])
    heard, judgement = _drive(rec, step=0.001)
    first = _announces(heard, "first")
    # ben reacts 0.300 s after the card; a reaction at 1.350 would still tie (50 ms, inclusive),
    # so 1.350 is not yet settled: the first watermark past it is
    assert first[0] == {"type": "announce", "t": 1.351, "card": "3", "card_t": 1.0, "what": "first",
                        "player": "ben", "time": 0.3, "margin": None}
    # wrong and missed once the 3 s window is over, each once
    assert _announces(heard, "wrong") == [{"type": "announce", "t": 4.001, "card": "3", "card_t": 1.0, "what": "wrong",
                                           "player": "chie", "why": "said 4, expected 3"}]
    assert [(a["player"], a["t"]) for a in _announces(heard, "missed") if a["card"] == "3"] == [("dai", 4.001)]
    v = judgement.lines[0]
    assert v["first"] == "ben" and v["wrong"] == ["chie"] and v["missed"] == ["dai"] and v["margin"] == 0.06
    assert len(first) == 1  # nobody reacts to the second card: "nobody" once its window is over
    assert [(a["card"], a["t"]) for a in _announces(heard, "nobody")] == [("5", 8.001)]
    assert len({json.dumps(a) for a in heard}) == len(heard)


def test_a_reaction_at_the_very_edge_of_the_tie_makes_a_tie():
    rec = _objs_record([VERSUS, {"t": 1.0, "type": "card", "card": "3"}, _shout(1.3, "ben", "3"),
                        _shout(1.35, "aki", "3")])
    events, _ = _canonical(rec)
    inc = IncrementalJudge(rec.header)
    for ev in events[:2]:
        inc.feed(ev)
    assert inc.announce(1.35) == []  # aki's shout at 1.350 has not arrived yet, and may
    inc.feed(events[2])
    assert inc.announce(1.3501) == [{"type": "announce", "t": 1.3501, "card": "3", "card_t": 1.0, "what": "tie",
                                     "players": ["ben", "aki"], "time": 0.3}]
    assert inc.announce(2.0) == []  # each once
    v = inc.finish().lines[0]
    assert v["tie"] == ["ben", "aki"] and v["unsettled"] is True


def test_a_late_watermark_knows_the_margin():
    rec = _objs_record([VERSUS, {"t": 1.0, "type": "card", "card": "ika"}, _hand(1.2, "dai", "right"),
                        _shout(1.25, "dai", "ika"), _hand(1.4, "aki", "right"), _shout(1.45, "aki", "ika")])
    events, _ = _canonical(rec)
    inc = IncrementalJudge(rec.header)
    for ev in events:
        inc.feed(ev)
    said = inc.announce(2.0)
    assert said == [{"type": "announce", "t": 2.0, "card": "ika", "card_t": 1.0, "what": "first", "player": "dai",
                     "time": 0.25, "margin": 0.2}]


def test_nobody_when_the_window_closes_without_a_correct_player():
    rec = _objs_record([VERSUS, {"t": 1.0, "type": "card", "card": "tako"}, _shout(1.4, "aki", "tako")])
    heard, judgement = _drive(rec, step=0.01)
    assert [a["what"] for a in heard] == ["wrong", "missed", "missed", "missed", "nobody"]
    assert {a["t"] for a in heard} == {4.01}
    assert judgement.lines[0]["first"] is None and judgement.lines[0]["discarded"] is True


def test_the_next_card_ends_the_announcements_the_verdict_says_the_rest():
    rec = _objs_record([VERSUS, {"t": 1.0, "type": "card", "card": "2"}, _shout(1.2, "aki", "3"),
                        {"t": 2.0, "type": "card", "card": "4"}])
    heard, _ = _drive(rec, step=0.01)
    assert [a for a in heard if a["card"] == "2"] == []  # the window (3 s) never ran out: card 4 closed it


def test_an_extra_hand_later_in_the_window_overturns_the_announced_first():
    """The one case where the verdict differs from what was announced: the verdict counts."""
    rec = _objs_record([VERSUS, {"t": 1.0, "type": "card", "card": "3"}, _shout(1.2, "ben", "3"),
                        _shout(1.5, "aki", "3"), _hand(2.0, "ben", "left")])
    heard, judgement = _drive(rec, step=0.01)
    assert [(a["what"], a["player"]) for a in heard] == [
        ("first", "ben"), ("wrong", "ben"), ("missed", "chie"), ("missed", "dai")]
    v = judgement.lines[0]
    assert v["first"] == "aki" and v["wrong"] == ["ben"] and "raised left hand" in v["why"]["ben"]


SOLO = {"t": 0.0, "type": "session", "game": "ikatako", "mode": "solo", "players": ["emi"]}


def test_coop_declaration_is_announced_when_complete_or_when_the_window_closes():
    rec = _objs_record([SOLO, {"t": 1.0, "type": "card", "card": "2"}, _shout(1.4, "emi", "2"),
                        {"t": 6.0, "type": "card", "card": "ika"}, _hand(6.5, "emi", "right"), _shout(6.7, "emi", "ika"),
                        _shout(7.1, "emi", "12"), _hand(7.5, "emi", "right", "down"),
                        {"t": 12.0, "type": "card", "card": "3"}, _shout(12.5, "emi", "ika")])
    heard, judgement = _drive(rec, step=0.01)
    assert [(a["card"], a["what"], a["t"]) for a in heard] == [("2", "ok", 1.41), ("ika", "ok", 7.11), ("3", "miss", 12.51)]
    assert heard[1]["time"] == 1.1 and heard[2]["why"] == "said ika, expected 15"
    assert [v["ok"] for v in judgement.lines[:3]] == [True, True, False]
    silent = _objs_record([SOLO, {"t": 1.0, "type": "card", "card": "2"}])
    heard, _ = _drive(silent, step=0.01)
    assert [(a["what"], a["t"], a["why"]) for a in heard] == [("miss", 4.01, "no declaration within 3 s")]


MOKO = {"t": 0.0, "type": "session", "game": "mokochaka", "players": ["aki", "ben", "chie"], "options": {"grab_slack": 0.25}}
SETUP = [{"t": 0.1, "type": "card", "card": "paka1", "zone": "pile0"}, {"t": 0.2, "type": "card", "card": "moko1", "zone": "pile1"},
         {"t": 0.3, "type": "card", "card": "gabu3", "zone": "pile2"}, {"t": 0.4, "type": "card", "card": "paka4", "zone": "pile0"},
         {"t": 0.5, "type": "card", "card": "gabu1", "zone": "pile2"}]


def test_mokochaka_call_grab_and_penalties_as_soon_as_settled():
    # tops paka4 moko1 pome2: a special play (chakamoko); ben and chie touch the token before calling
    rec = read_record(SCENARIOS / "mokochaka" / "special_token.jsonl")
    heard, judgement = _drive(rec, step=0.01)
    first_play = [(a["what"], a.get("player"), a["t"]) for a in heard if a["card_t"] == 1.0]
    # ben's touch at 1.5 and chie's at 1.6: nobody called within the 0.25 s slack -> no win, penalised
    assert ("penalty", "ben", 1.76) in first_play and ("penalty", "chie", 1.86) in first_play
    assert ("accepted", "aki", 1.91) in first_play and ("grab", "aki", 2.11) in first_play
    v = judgement.lines[0]
    assert v["grab_winner"] == "aki" and {p["player"] for p in v["penalties"]} == {"ben", "chie"}
    normal = [(a["what"], a.get("player"), a.get("call")) for a in heard if a["card_t"] == 4.0]
    assert normal == [("accepted", "aki", "moko")]


def test_mokochaka_wrong_late_and_missing_calls():
    rec = _objs_record([MOKO, *SETUP,
                        {"t": 1.0, "type": "card", "card": "moko4", "zone": "pile0", "by": "aki"},
                        _shout(1.5, "aki", "paka"),
                        {"t": 5.0, "type": "card", "card": "paka1", "zone": "pile1", "by": "ben"},
                        _shout(8.5, "ben", "mokopaka"),  # right, but 3.5 s after the card
                        {"t": 10.0, "type": "card", "card": "moko2", "zone": "pile2", "by": "chie"}])
    heard, judgement = _drive(rec, step=0.01, extra=3.5)
    got = [(a["card"], a["what"], a.get("player"), a["t"]) for a in heard]
    assert got[:2] == [("moko4", "wrong_call", "aki", 1.51), ("moko4", "penalty", "aki", 1.51)]
    # no call in the window (5.0-8.0): a penalty, whatever comes later; the late call is announced too
    assert [x for x in got if x[0] == "paka1"] == [("paka1", "no_call", "ben", 8.0), ("paka1", "penalty", "ben", 8.0),
                                                   ("paka1", "late", "ben", 8.51)]
    assert ("moko2", "no_call", "chie", 13.0) in got  # the window ends at 13.0: no call before it
    v1, v2, v3 = judgement.lines[:3]
    assert v1["ok"] is False and v1["penalties"][0]["reason"] == "wrong_call"
    assert v2["late"] is True and v3["ok"] is False and v3["penalties"][0]["reason"] == "no_call"


def _consistent(game: str, a: dict, v: dict) -> bool:
    """An announcement agrees with the final verdict, or is the documented exception."""
    what = a["what"]
    if game == "mokochaka":
        penalised = {p["player"]: p for p in v["penalties"]}
        return {
            "accepted": lambda: v["ok"] and v["call"] == a["call"] and not v["late"],
            "wrong_call": lambda: "wrong_call" in penalised.get(a["player"], {}).get("reasons", []),
            "late": lambda: v["late"] and a["player"] in penalised,
            # a call after the window may follow: the verdict then says late or wrong_call
            "no_call": lambda: not v["ok"] and {"no_call", "late", "wrong_call"} & set(
                penalised.get(a["player"], {}).get("reasons", [])),
            "grab": lambda: v["grab_winner"] == a["player"],
            "penalty": lambda: a["player"] in penalised,
        }[what]()
    if "ok" in v:  # co-op / solo
        if what == "ok":
            return v["ok"] or "raised" in v["why"]  # an extra hand after the declaration
        return not v["ok"]
    if what in ("wrong", "missed"):
        return a["player"] in v[what] and v["why"][a["player"]] == a["why"]
    if what == "nobody":
        return v["correct"] == [] and v["first"] is None
    players = [a["player"]] if what == "first" else a["players"]
    still = [p for p in players if p not in v["wrong"]]  # the extra-hand exception
    return (still == v["tie"] if len(still) > 1 else still == [] or v["first"] == still[0] and not v["tie"])


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_announcements_agree_with_the_verdicts_and_are_deterministic(name):
    record = RECORDS[name]
    heard, judgement, about = _drive_counted(record, step=0.05)
    again, _ = _drive(record, step=0.05)
    assert json.dumps(heard) == json.dumps(again)
    assert judgement.jsonl() == judge(record).jsonl()
    keys = [(n, a["what"], a.get("player"), a.get("call")) for n, a in zip(about, heard)]
    assert len(keys) == len(set(keys)), "an announcement was made twice"
    verdicts = _verdicts(judgement.lines)
    for n, a in zip(about, heard):
        assert a["type"] == "announce" and a["t"] >= a["card_t"]
        v = verdicts[n]
        assert (v["card"], v["t"]) == (a["card"], a["card_t"])
        assert _consistent(record.header.game, a, v), (a, v)
    if name.startswith(("sessions/", "gen_")):
        assert heard, "a whole game without a single announcement"

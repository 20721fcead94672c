"""Sea Salt & Paper from the camera (issue 34 item 2): the round's call (said aloud or
typed), each player's spread read after it, an unclear card giving that player no score
(never another card), the rendered demo (fixtures/seasaltpaper) and its replay."""

from __future__ import annotations

import json
from pathlib import Path

from referee.judge import judge
from referee.judging.seasaltpaper import format_table
from session.record import parse_lines, read_record
from tests.conftest import FIXTURES

DEMO = FIXTURES / "seasaltpaper"
KEY = ("round", "call", "caller", "legal", "why", "scores", "caller_won", "totals", "unclear")
AKI = ["crab:blue", "crab:pink", "shell:blue", "shell:pink", "shell:purple", "mermaid", "boat:black", "lighthouse:blue"]
BEN = ["fish:green", "fish:yellow", "octopus:orange", "octopus:pink", "penguin:orange", "colony:black"]


def _load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _verdicts(lines) -> list[tuple]:
    return [tuple(v.get(k) for k in KEY) for v in lines if v.get("type") == "verdict"]


def _record(*events) -> list[str]:
    head = {"t": 0.0, "type": "session", "game": "seasaltpaper", "players": ["aki", "ben"], "options": {}}
    return [json.dumps(head)] + [json.dumps(e) for e in events]


def _shout(t, player, word):
    return {"t": t, "type": "shout", "player": player, "words": [word]}


def _seen(t, player, cards, unclear=()):
    return {"t": t, "type": "choice", "player": player, "action": "hand", "source": "camera",
            "zone": f"p:{player}:spread", "cards": cards, "unclear": list(unclear)}


def _judged(*events):
    j = judge(parse_lines(_record(*events)))
    return [x for x in j.lines if x["type"] == "verdict"], j


# ----------------------------------------------------------------------------- the judge
def test_a_spoken_call_ends_the_round_and_the_spreads_read_after_it_score():
    v, _ = _judged(_seen(0.5, "aki", AKI[:2]), _seen(0.5, "ben", BEN[:2]),  # duos played: not the hands
                   _shout(3.0, "aki", "stop"), _seen(4.0, "aki", AKI), _seen(4.5, "ben", BEN))
    assert len(v) == 1 and v[0]["t"] == 4.5 and v[0]["caller"] == "aki" and v[0]["legal"] is True
    assert v[0]["scores"]["aki"]["score"] == 9 and v[0]["scores"]["ben"]["score"] == 7 and "unclear" not in v[0]


def test_a_spread_read_before_the_call_is_not_the_hand():
    v, _ = _judged(_seen(0.5, "aki", AKI), _seen(0.5, "ben", BEN), _shout(3.0, "aki", "stop"))
    assert v == []  # the round waits for the hands laid after the call
    v, _ = _judged(_seen(0.5, "aki", AKI), _seen(0.5, "ben", BEN), _shout(3.0, "aki", "stop"),
                   _seen(4.0, "ben", BEN), _seen(5.0, "aki", AKI))
    assert len(v) == 1 and v[0]["t"] == 5.0


def test_an_unclear_card_gives_that_player_no_score_after_stop():
    v, j = _judged(_shout(3.0, "aki", "stop"), _seen(4.0, "aki", AKI),
                   _seen(4.5, "ben", BEN[:5], ["covered in part (a hand, a sleeve, glare?): 60% of it looks like x"]))
    assert set(v[0]["scores"]) == {"aki"} and v[0]["scores"]["aki"]["score"] == 9
    assert v[0]["unclear"] == {"ben": "1 card not read: covered in part (a hand, a sleeve, glare?): 60% of it looks "
                                      "like x"}
    assert v[0]["totals"] == {"aki": 9, "ben": 0}
    assert "ben      unclear: 1 card not read" in format_table(j, None)


def test_an_unclear_caller_after_stop_leaves_the_seven_point_check_unknown():
    v, j = _judged(_shout(3.0, "aki", "stop"), _seen(4.0, "aki", AKI[:6], ["its face fits no card well"]),
                   _seen(4.5, "ben", BEN))
    assert v[0]["legal"] is None and set(v[0]["scores"]) == {"ben"} and "aki" in v[0]["unclear"]
    assert v[0]["why"].startswith("aki's cards were not all read") and "7-point check unknown" in format_table(j, None)


def test_an_unclear_hand_leaves_last_chance_unsettled_for_everyone():
    v, _ = _judged(_shout(3.0, "ben", "lastchance"), _seen(4.0, "aki", AKI, ["too close to tell: a or b"]),
                   _seen(4.5, "ben", BEN))
    assert v[0]["scores"] == {} and set(v[0]["unclear"]) == {"aki", "ben"} and "caller_won" not in v[0]
    assert v[0]["totals"] == {"aki": 0, "ben": 0} and v[0]["why"].startswith("LAST CHANCE not settled")


def test_a_second_call_while_the_first_waits_is_ignored():
    v, j = _judged(_shout(3.0, "ben", "lastchance"), _shout(3.01, "aki", "lastchance"),  # an echo on aki's channel
                   _seen(4.0, "aki", AKI), _seen(4.5, "ben", BEN))
    assert v[0]["caller"] == "ben" and any("waits for the hands: ignored" in str(n) for n in j.notes)


def test_a_call_nobody_is_credited_with_ends_no_round():
    v, j = _judged(_shout(3.0, None, "stop"), _seen(4.0, "aki", AKI), _seen(4.5, "ben", BEN))
    assert v == [] and any("not credited to a player" in str(n) for n in j.notes)


def test_typed_records_judge_as_before():
    typed = [{"t": 1.0, "type": "choice", "player": "aki", "action": "hand", "cards": AKI},
             {"t": 2.0, "type": "choice", "player": "aki", "action": "call", "call": "stop"},
             {"t": 3.0, "type": "choice", "player": "ben", "action": "hand", "cards": BEN}]
    v, _ = _judged(*typed)
    assert len(v) == 1 and v[0]["scores"]["aki"]["score"] == 9


# ----------------------------------------------------------------------------- the demo
def test_the_truth_judges_to_the_committed_verdicts():
    lines = judge(read_record(DEMO / "truth.jsonl")).lines
    assert lines == _load(DEMO / "expected.jsonl")
    v = [x for x in lines if x["type"] == "verdict"]
    assert [(x["call"], x["caller"], x.get("caller_won")) for x in v] == [("stop", "aki", None),
                                                                          ("lastchance", "ben", True)]


def test_the_fixture_is_what_the_maker_writes(tmp_path):
    from fixtures import make_seasaltpaper_demo as mk

    mk.write(tmp_path, media=False)
    for name in ("truth.jsonl", "expected.jsonl", "calibration.json"):
        assert (tmp_path / name).read_text(encoding="utf-8") == (DEMO / name).read_text(encoding="utf-8"), name
    committed = sorted(p.name for p in (DEMO / "refs").iterdir())
    assert committed == sorted(p.name for p in (tmp_path / "refs").iterdir()) and len(committed) == 55
    import cv2
    import numpy as np

    assert all(np.array_equal(cv2.imread(str(DEMO / "refs" / n)), cv2.imread(str(tmp_path / "refs" / n)))
               for n in committed)  # (the pixels: a PNG's bytes may differ between OpenCV builds)
    assert sum(p.stat().st_size for p in DEMO.rglob("*") if p.is_file()) < 2_000_000  # small


def test_the_calibration_asks_for_each_players_spread():
    from calibration.decks import game_zones
    from calibration import load

    assert game_zones("seasaltpaper", ["aki", "ben"]) == ["p:aki:spread", "p:ben:spread"]
    assert sorted(load(DEMO / "calibration.json").zones) == ["p:aki:spread", "p:ben:spread"]


def test_demo_seasaltpaper_refuses_events(run_cli):
    """(--live plays it through the live path: tests/live/test_ssp_live.py)"""
    res = run_cli("demo", "--game", "seasaltpaper", "--events")
    assert res.exit_code == 2 and "typed record" in res.output


def test_the_replayed_demo_gives_the_truths_verdicts(tmp_path, monkeypatch):
    """The calls heard, each spread read after its call: every tally right, 0 wrong; the
    report decodes the video once for every round's crops."""
    import dataclasses

    from referee import report
    from referee.replay import ReplaySettings, replay

    passes = []
    real = report._frames_at
    monkeypatch.setattr(report, "_frames_at", lambda video, times: passes.append(len(times)) or real(video, times))

    settings = dataclasses.replace(ReplaySettings(game="seasaltpaper", workers=0, no_enroll=True), lang="en")
    result = replay(DEMO / "session.mp4", DEMO / "calibration.json", audio=DEMO / "seats.wav", out=tmp_path,
                    settings=settings)
    want = _load(DEMO / "expected.jsonl")
    assert _verdicts(result.judgement.lines) == _verdicts(want)
    assert result.judgement.lines[-1] == want[-1]
    record = _load(tmp_path / "session.jsonl")
    hands = [e for e in record if e.get("type") == "choice"]
    truth = [e for e in _load(DEMO / "truth.jsonl") if e.get("type") == "choice"]
    assert [(e["player"], e["cards"]) for e in hands] == [(e["player"], e["cards"]) for e in truth]
    assert all(e["unclear"] == [] for e in hands)
    assert all(0 <= a["t"] - b["t"] <= 1.0 for a, b in zip(hands, truth))  # once still: within a second
    assert [(e["player"], e["words"]) for e in record if e.get("type") == "shout"] == [("aki", ["stop"]),
                                                                                      ("ben", ["lastchance"])]
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert html.count("<b class=ok>") >= 34 and "as the camera read them" in html  # each card's crop and code
    assert len(passes) == 1, f"the report went through the video {len(passes)} times"


def test_the_report_describes_a_round_and_who_is_unclear():
    from referee.judging.seasaltpaper import describe
    from referee.judging.view import HEARD

    v, _ = _judged(_shout(3.0, "aki", "stop"), _seen(4.0, "aki", AKI), _seen(4.5, "ben", BEN[:5], ["glare"]))
    d = describe(v[0])
    assert d.title == "Round 1: aki — STOP" and d.status == {"ben": "unclear"}
    facts = dict(d.facts)
    assert HEARD not in facts  # (the call lies before the hands, outside the verdict's window)
    assert facts["ben"] == [[("unclear: 1 card not read: glare", "unclear"), ("  (total 0)", None)]]
    assert facts["aki"] == [[("card points 9, colour bonus 3: scores 9 (total 9)", None)]]

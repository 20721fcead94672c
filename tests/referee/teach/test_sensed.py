"""The camera/microphone drill (``referee teach ikatako --calibration … --seat …``): the
learner seat's hands and shouts from the pipeline, judged by the IKATAKO judge as a drill
record, agree with the referee's verdicts for that seat; drawn cards are timed from their
shown time on the sensor clock; a paced recording runs the whole path through the live
sources (its verdicts: those of ``referee demo`` for that seat)."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from referee.teach.drills import ikatako_sensed as S
from referee.teach.progress import Progress
from referee.teach.terminal import TerminalView
from session.events import HandEvent, SessionHeader, ShoutEvent
from session.record import read_record

from tests.live.helpers import demo_clip

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "fixtures" / "demo"
SEATS = ("aki", "ben", "chie", "dai")


def _expected():
    lines = [json.loads(x) for x in (DEMO / "expected.jsonl").read_text().splitlines() if x.strip()]
    return [x for x in lines if x.get("type") == "verdict"]


def _status(v: dict | None) -> str:
    """A seat's verdict as the drill names it (a trouble card left alone is right; a seat the
    referee did not clearly perceive is unclear)."""
    if v["me"] in (v.get("unclear") or {}):
        return "unclear"
    return "wrong" if v["me"] in v["wrong"] else "missed" if v["me"] in v["missed"] else "correct"


def _drive(drill, record, status=None):
    drill.start(record.header)
    for ev in record.events:
        drill.event(ev)
    drill.finish(None)


@pytest.mark.parametrize("seat", SEATS)
def test_the_recordings_cards_judged_for_one_seat_agree_with_the_demos_verdicts(seat, tmp_path):
    rec = read_record(DEMO / "truth.jsonl")
    out = io.StringIO()
    prog = Progress.open("learner", tmp_path)
    drill = S.SensedDrill(seat, TerminalView(out, game="ikatako"), paced=True, progress=prog)
    _drive(drill, rec)
    got = [(c.card, c.fb.verdict) for c in drill.done_cards]
    want = [(v["card"], _status({**v, "me": seat})) for v in _expected()]
    assert got == want
    # the reaction is the judge's, from the card's time to the onset on the record's clock
    from referee.judge import judge
    times = {round(v["t"], 3): v["times"].get(seat) for v in judge(rec).lines if v.get("type") == "verdict"}
    for c in drill.done_cards:
        if c.fb.verdict == "correct" and c.card not in ("mirror", "number", "repeat"):
            assert c.fb.reaction == pytest.approx(times[round(c.shown, 3)], abs=0.001)
    # each answer is an FSRS card in the learner's progress; the screen says why
    lines = [json.loads(x) for x in prog.path.read_text().splitlines()]
    assert sum(x["type"] == "answer" for x in lines) == len(want)
    assert sum(x["type"] == "fsrs" for x in lines) == len(want)
    if any(v == "wrong" for _, v in want):
        assert "WRONG" in out.getvalue()


def test_only_the_learners_seat_counts(tmp_path):
    """Another seat's right answer does not make the learner right."""
    rec = read_record(DEMO / "truth.jsonl")
    drill = S.SensedDrill("aki", TerminalView(io.StringIO(), game="ikatako"), paced=True)
    _drive(drill, rec)
    tako = next(c for c in drill.done_cards if c.card == "tako")  # aki raised the wrong hand
    assert tako.fb.verdict == "wrong" and "RIGHT" in tako.fb.did.upper()
    assert all(p in ("aki", "rival") for p in tako.fb.record[0].players)
    assert not any(getattr(e, "player", "aki") not in ("aki", None) for e in tako.fb.record[1:])


def test_a_card_seen_late_is_judged_as_the_referee_judges_it(tmp_path):
    """The camera saw the demo's third card (ika, 9.03 s) only at 9.80 s, after aki's reaction
    (9.61 s): the referee counts the gap's reactions for it (a ``card_time_uncertain``
    warning), and so does the drill — before, the drill said "missed" where the referee said
    "correct"."""
    from dataclasses import replace

    from referee.judge import judge
    from session.events import CardEvent, WarningEvent
    from session.order import sort_key
    from session.record import Entry, Record

    rec = read_record(DEMO / "truth.jsonl")
    events = [replace(e, t=9.8) if isinstance(e, CardEvent) and e.card == "ika" and abs(e.t - 9.033) < 0.01 else e
              for e in rec.events]
    events.append(WarningEvent(t=9.8, message="card ika in the field timed at 9.800 s may have come up to 1.20 s "
                               "earlier", extra={"zone": "field", "card": "ika", "card_time_uncertain": True,
                                                 "earliest": 8.6}))
    events.sort(key=sort_key)
    late = Record(header=rec.header, entries=[Entry(i + 2, e) for i, e in enumerate(events)])
    referee = next(v for v in judge(late).lines if v.get("type") == "verdict" and v["t"] == 9.8)
    assert "aki" in referee["correct"] and referee["card_time_uncertain"]["counted_from"] == 8.6
    drill = S.SensedDrill("aki", TerminalView(io.StringIO(), game="ikatako"), paced=True)
    _drive(drill, late)
    ika = next(c for c in drill.done_cards if c.card == "ika" and c.shown == 9.8)
    assert ika.fb.verdict == "correct"
    assert ika.fb.reaction == pytest.approx(referee["times"]["aki"], abs=0.001)


def test_a_late_word_revises_the_answer_as_the_referee_revises_its_verdict(tmp_path):
    """Under load the merge can let an event through after its time has passed; the live
    judge then judges the record again. aki's イカ on the demo's ika card (9.69 s) arrives only
    after the next card (12.57 s) closed the card: the drill first answers without it, then
    says and stores the referee's verdict — one answer per card in the progress, rated once."""
    rec = read_record(DEMO / "truth.jsonl")
    word = next(e for e in rec.events if isinstance(e, ShoutEvent) and e.player == "aki" and e.words == ("ika",)
                and 9.0 < e.t < 10.0)
    out = io.StringIO()
    prog = Progress.open("learner", tmp_path)
    drill = S.SensedDrill("aki", TerminalView(out, game="ikatako"), paced=True, progress=prog)
    drill.start(rec.header)
    first = None
    for ev in rec.events:
        if ev is word:
            continue
        drill.event(ev)
        if ev.type == "card" and ev.t > 12.0 and first is None:
            first = next(c.fb.verdict for c in drill.done_cards if c.card == "ika")
            drill.event(word)  # late: the card was answered already
    drill.finish(None)
    ika = next(c for c in drill.done_cards if c.card == "ika")
    assert first != "correct" and ika.fb.verdict == "correct"
    answers = Progress.open("learner", tmp_path).answers
    assert [a["verdict"] for a in answers if abs(a["shown_t"] - ika.shown) < 1e-6] == ["correct"]
    assert len(answers) == len(_expected())
    lines = [json.loads(x) for x in prog.path.read_text().splitlines()]
    assert sum(x["type"] == "fsrs" for x in lines) == len(_expected())
    assert sum(x.get("revises", False) for x in lines) == 1
    assert "card 3 (ika) judged again" in out.getvalue()


def test_a_seat_the_camera_did_not_see_is_unclear_in_the_drill_as_at_the_table(tmp_path):
    """The live referee skipped aki's video from 7.37 s to 11.8 s (it fell behind): on the ika
    card (9.03 s) aki said イカ but the hand was not seen, so the referee makes aki unclear — no
    penalty — and the drill must too (before, it said "wrong": no hand raised)."""
    from session.events import SkippedEvent

    rec = read_record(DEMO / "truth.jsonl")
    gap = SkippedEvent(t=7.366667, what="video", start=7.366667, stop=11.8,
                       reason="aki's hands not analysed for 4.43 s", extra={"player": "aki"})
    aki_hands = [e for e in rec.events if isinstance(e, HandEvent) and e.player == "aki" and 7.366 < e.t < 11.8]
    events = sorted([e for e in rec.events if e not in aki_hands] + [gap], key=lambda e: e.t)
    drill = S.SensedDrill("aki", TerminalView(io.StringIO(), game="ikatako"), paced=True)
    drill.start(rec.header)
    for ev in events:
        drill.event(ev)
    drill.finish(None)
    from referee.judge import judge
    from session.record import Entry, Record
    seen = Record(header=rec.header, entries=[Entry(i + 2, e) for i, e in enumerate(events)])
    referee = next(v for v in judge(seen).lines if v.get("type") == "verdict" and v["card"] == "ika")
    assert "aki" in referee.get("unclear", {})
    ika = next(c for c in drill.done_cards if c.card == "ika")
    assert ika.fb.verdict == "unclear"


class _Clock:
    def __init__(self):
        self.t = 100.0

    def monotonic(self):
        return self.t


def test_a_drawn_card_is_timed_from_its_shown_time_on_the_sensor_clock(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(S.time, "monotonic", clock.monotonic)
    out = io.StringIO()
    drill = S.SensedDrill("aki", TerminalView(out, game="ikatako"), paced=False, cards=2, seed=3, level="creatures")
    drill.start(SessionHeader(t=0.0, game="ikatako", mode="versus", players=("aki", "ben")))

    def at(session_t, events=()):
        clock.t = 100.0 + session_t
        for e in events:
            drill.event(e)
        drill.status({"now": session_t, "lag_ms": 0})

    at(0.5)  # ready …
    at(5.0)  # … the card is on the screen
    card = drill.cards[0]
    assert card.shown == pytest.approx(5.0)
    from rules import ikatako as R
    exp = R.expected_reaction(card.card, [])
    ups = [HandEvent(t=5.6, player="aki", side=s, state="up") for s in sorted(exp.sides)]
    ups.append(HandEvent(t=5.5, player="ben", side="left", state="up"))  # another seat: ignored
    at(6.0, ups + [ShoutEvent(t=5.7, player="aki", words=tuple(exp.say))])
    at(8.1)  # the window (3 s) has passed: judged
    assert card.fb is not None and card.fb.verdict == "correct"
    assert card.fb.reaction == pytest.approx(0.7, abs=0.001)  # the later of the hands and the shout
    assert "CORRECT" in out.getvalue()
    # the second card: the wrong hand
    for e in [HandEvent(t=8.5, player="aki", side=s, state="down") for s in sorted(exp.sides)]:
        drill.event(e)
    at(11.0)
    at(15.0)
    second = drill.cards[1]
    exp2 = R.expected_reaction(second.card, [])
    wrong_side = {"left": "right", "right": "left", "both": "left"}[exp2.hands]
    at(second.shown + 0.5, [HandEvent(t=second.shown + 0.4, player="aki", side=wrong_side, state="up"),
                            ShoutEvent(t=second.shown + 0.45, player="aki", words=tuple(exp2.say))])
    at(second.shown + 3.1)
    assert second.fb.verdict == "wrong" and drill.done
    assert S.SensedView(drill).drain()[0].name == "quit"


def test_a_word_the_referee_could_not_make_out_is_i_could_not_hear_you_not_wrong(monkeypatch, tmp_path):
    """The right hands and a shout whose word was not made out (``words`` empty): the drill
    says "I could not hear you" — not judged, no rating of the situation (FSRS), the answer
    still written to the progress file — never "wrong"."""
    clock = _Clock()
    monkeypatch.setattr(S.time, "monotonic", clock.monotonic)
    out = io.StringIO()
    progress = Progress(tmp_path / "progress.jsonl")
    drill = S.SensedDrill("aki", TerminalView(out, game="ikatako"), paced=False, cards=1, seed=3, level="creatures",
                          progress=progress)
    drill.start(SessionHeader(t=0.0, game="ikatako", mode="versus", players=("aki", "ben")))
    for t in (0.5, 5.0):
        clock.t = 100.0 + t
        drill.status({"now": t, "lag_ms": 0})
    card = drill.cards[0]
    from rules import ikatako as R
    exp = R.expected_reaction(card.card, [])
    for e in [*(HandEvent(t=5.6, player="aki", side=s, state="up") for s in sorted(exp.sides)),
              ShoutEvent(t=5.7, player="aki", words=())]:
        drill.event(e)
    clock.t = 108.1
    drill.status({"now": 8.1, "lag_ms": 0})
    assert card.fb is not None and card.fb.verdict == "unclear" and not card.fb.ok
    assert "I could not hear you" in card.fb.did and "NOT JUDGED" in out.getvalue() and "WRONG" not in out.getvalue()
    assert drill.scheduler.cards == {}  # no rating
    kinds = [json.loads(x)["type"] for x in (tmp_path / "progress.jsonl").read_text().splitlines() if x.strip()]
    assert "answer" in kinds and "fsrs" not in kinds


def test_a_raise_before_the_card_is_a_false_start(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(S.time, "monotonic", clock.monotonic)
    drill = S.SensedDrill("aki", TerminalView(io.StringIO(), game="ikatako"), paced=False, cards=1, seed=1,
                          level="creatures")
    drill.start(SessionHeader(t=0.0, game="ikatako", mode="versus", players=("aki", "ben")))
    for t, evs in ((0.5, []), (1.0, [HandEvent(t=0.9, player="aki", side="left", state="up")]), (5.0, []), (9.0, [])):
        clock.t = 100.0 + t
        for e in evs:
            drill.event(e)
        drill.status({"now": t, "lag_ms": 0})
    assert drill.cards[0].fb.verdict == "false_start"


def test_a_seat_not_at_the_table_is_one_clear_error(tmp_path):
    from click.testing import CliRunner

    from referee.cli import cli
    res = CliRunner().invoke(cli, ["teach", "ikatako", "--from-video", str(DEMO / "session.mp4"), "--audio",
                                   str(DEMO / "seats.wav"), "--calibration", str(DEMO / "calibration.json"),
                                   "--seat", "zoe", "--data", str(tmp_path), "--no-voice", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "zoe" in res.output and "aki, ben, chie, dai" in res.output
    assert "Traceback" not in res.output
    res = CliRunner().invoke(cli, ["teach", "mokochaka", "--calibration", str(DEMO / "calibration.json")])
    assert res.exit_code == 2 and "IKATAKO" in res.output


CLIP_S = 14.0  # the demo's cards 3, tako, ika (aki wrong on tako) and mirror


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    return demo_clip(tmp_path_factory.mktemp("clip"), CLIP_S)


def test_a_paced_recording_through_the_live_sources_gives_the_demos_verdicts_for_the_seat(clip, tmp_path):
    """The whole path: the recording released in real time by the live sources, the vision
    stage and the hearing job, the merge, the drill sink; the verdicts for aki on the
    clip's cards are the demo's (fixtures/demo/expected.jsonl) and the live run's own."""
    from click.testing import CliRunner

    from referee.cli import cli
    video, wav = clip
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["teach", "ikatako", "--from-video", str(video), "--audio", str(wav),
                                   "--calibration", str(DEMO / "calibration.json"), "--seat", "aki",
                                   "--data", str(tmp_path / "data"), "--no-voice", "--out", str(out),
                                   # (English on screen: the table's language, the calibration's, is Japanese)
                                   "--lang", "en", "--start", "2026-03-01T09:00:00"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    answers = [json.loads(x) for x in (tmp_path / "data" / "learners" / "you.jsonl").read_text().splitlines()]
    answers = [a for a in answers if a["type"] == "answer"]
    answers = list({a["n"]: a for a in answers}.values())  # (a revision replaces its answer)
    got = [(a["situation"].split("|")[0], a["verdict"]) for a in answers]
    truth_cards = [e for e in read_record(DEMO / "truth.jsonl").events if e.type == "card" and e.t < CLIP_S - 1.0]
    want = [(v["card"], _status({**v, "me": "aki"})) for v in _expected()[:len(truth_cards)]]
    live_lines = [json.loads(x) for x in (out / "session.jsonl").read_text().splitlines()]
    live = list({x["t"]: x for x in live_lines if x.get("type") == "verdict"}.values())  # (said twice: final, then said)
    # the drill's verdicts are the live referee's own for that seat, card by card, timed
    # from the same card event (shown = the card's time in the recording, session clock)
    assert [(v["card"], _status({**v, "me": "aki"})) for v in live] == got
    for a, v in zip(answers, live):
        assert abs(v["t"] - a["shown_t"]) < 0.001
        if a["verdict"] == "correct" and "aki" in v["times"]:
            assert a["reaction"] == pytest.approx(v["times"]["aki"], abs=0.001)
    assert f"aki: {len(got)} card(s)" in res.output and ("✗ WRONG" in res.output) == any(v == "wrong" for _, v in got)
    # ... and the demo's verdicts for aki, as far as the live perception kept up with the
    # recording (it analyses the newest frames only: under heavy load a card is seen a few
    # frames late and a hand raised before it counts as up already)
    figures = json.loads((out / "live-figures.json").read_text())
    load = (figures.get("load") or [0.0])[0]
    fell_behind = [x for x in live_lines if x.get("type") == "skipped" or x.get("card_time_uncertain")]
    overloaded = figures.get("processed", 0) < 0.7 * figures.get("captured", 1) or load > 2 * (os.cpu_count() or 1) \
        or bool(fell_behind)  # (frames skipped, a card seen late: the referee said so in the record)
    if got != want and overloaded:  # strict on a machine that keeps up (CI runs alone)
        pytest.xfail(f"the live perception gave aki {got}, the demo {want} (processed {figures.get('processed')} of "
                     f"{figures.get('captured')} frames, load {figures.get('load')}, {len(fell_behind)} line(s) saying "
                     "it fell behind); the drill agrees with the live judge")
    assert got == want

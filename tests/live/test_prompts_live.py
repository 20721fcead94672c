"""The choices the rules leave to players, raised live: a scripted table presses keys in the
window and in the terminal view while a session runs through the pipeline; the answers are
``choice`` events in the record and change the verdict, a prompt left alone keeps the
rules' default."""

from __future__ import annotations

import dataclasses
import io

import pytest

from referee.live.controls import ControlParams, Controls
from referee.live.state import LiveState
from referee.pipeline.core import Pipeline
from referee.pipeline.sinks import RecordSink
from session.events import CardEvent, EndEvent, SessionHeader, ShoutEvent
from session.record import read_record

PLAYERS = ("aki", "ben", "chie")
#: ben takes 3 and 5; on uzushio6 aki is first and ben says the wrong word
EVENTS = [CardEvent(t=1.0, card="3"), ShoutEvent(t=1.4, player="ben", words=("3",)),
          CardEvent(t=5.0, card="5"), ShoutEvent(t=5.4, player="ben", words=("5",)),
          CardEvent(t=9.0, card="uzushio6"), ShoutEvent(t=9.3, player="aki", words=("uzushio",)),
          ShoutEvent(t=9.5, player="ben", words=("ika",)),
          CardEvent(t=14.0, card="2"), EndEvent(t=16.0)]


def _view(kind: str, controls: Controls):
    state = LiveState()
    if kind == "window":
        from referee.live.window import LiveWindow

        return LiveWindow(state, controls)
    from referee.live.terminal import TerminalView

    return TerminalView(state, controls, out=io.StringIO(), keys=None)


def _play(kind: str, tmp_path, answers: dict[str, str]):
    """Run the session at 0.1 s steps; when a prompt of an action in ``answers`` is up, the
    table presses that key. Returns the record and the judgement."""
    controls = Controls(list(PLAYERS), ControlParams(choice_timeout_s=2.0))
    view = _view(kind, controls)
    record = RecordSink(tmp_path / f"{kind}.jsonl")
    pipe = Pipeline(["record", "table"], [record, view])
    controls.judge_state = lambda: pipe.judge.state
    pipe.start(SessionHeader(t=0.0, game="ikatako", mode="versus", players=PLAYERS))
    asked, pending = [], list(EVENTS)
    for step in range(0, 171):
        now = step / 10
        while pending and pending[0].t <= now:
            pipe.push("record", [pending.pop(0)])
        pipe.advance("record", now)
        view.status({"now": now})
        for p in controls.prompts:
            if p.action not in [a for a, _ in asked]:
                asked.append((p.action, p.question))
                if p.action in answers:
                    view.press(answers[p.action])
        if kind == "window":
            view.snapshot()  # the window's redraw: the clock closes prompts past their deadline
        else:
            view.screen()
        pipe.push("table", [dataclasses.replace(e, t=round(now, 4)) for e in view.drain()])
        pipe.advance("table", now - 0.01)
    judgement = pipe.finish()
    record.close()
    return read_record(tmp_path / f"{kind}.jsonl"), judgement, asked


def _uzushio_verdict(judgement):
    return next(v for v in judgement.lines if v.get("type") == "verdict" and v["card"] == "uzushio6")


@pytest.mark.parametrize("kind", ["window", "terminal"])
def test_the_prompts_are_raised_live_and_the_answers_are_choice_events(kind, tmp_path):
    rec, judgement, asked = _play(kind, tmp_path, {"uzushio": "2", "penalty": "2"})
    assert asked == [("uzushio", "aki: push a penalty (uzushio) onto whom?"),
                     ("penalty", "ben: which point card goes face down?")]
    choices = [e.to_dict() for e in rec.events if e.type == "choice"]
    assert [(c["player"], c["action"], c.get("to"), c.get("card")) for c in choices] == [
        ("aki", "uzushio", "chie", None), ("ben", "penalty", None, "5")]
    assert all(9.0 < c["t"] < 14.0 for c in choices)  # in the card's window, before the next card
    v = _uzushio_verdict(judgement)
    assert v["first"] == "aki" and v["wrong"] == ["ben"]
    assert v["penalties"] == {"ben": "5", "chie": None}  # chosen (the rules' default: the lowest, 3)
    assert v["effects"] == [{"action": "uzushio", "player": "aki", "to": "chie", "card": "uzushio6"}]


@pytest.mark.parametrize("kind", ["window", "terminal"])
def test_a_prompt_left_alone_keeps_the_rules_default_after_its_timeout(kind, tmp_path):
    rec, judgement, asked = _play(kind, tmp_path, {})
    assert [a for a, _ in asked] == ["uzushio", "penalty"]
    assert [e for e in rec.events if e.type == "choice"] == []  # nobody chose: no event
    v = _uzushio_verdict(judgement)
    assert v["penalties"] == {"ben": "3", "chie": None} and v["effects"] == []

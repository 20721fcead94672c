"""The one session driver (``referee.pipeline.driver``): each round every open source is
polled once, in the order given; its batches go into the merge as events, then the promise,
then the close; the header is written once, as soon as it can be made; the last open source
is asked to wait; a source's error stops the session as it is."""

import pytest

from referee.pipeline import CollectSink, Pipeline
from referee.pipeline.driver import Batch, Session
from session.errors import RefereeError
from session.events import Event, SessionHeader

HEADER = SessionHeader.from_dict({"t": 0.0, "type": "session", "game": "ikatako", "mode": "versus",
                                  "players": ["aki", "ben"], "options": {}})


def card(t):
    return Event.from_dict({"t": t, "type": "card", "card": "tako", "zone": "field"})


def shout(t, player="aki"):
    return Event.from_dict({"t": t, "type": "shout", "player": player, "words": ["tako"]})


class Scripted:
    """A source that gives one list of batches per poll, then is done; it notes every poll
    (its name and ``wait``) in ``log``."""

    def __init__(self, name, rounds, log):
        self.name, self.rounds, self.log = name, list(rounds), log
        self.done = not self.rounds

    def poll(self, wait=False):
        self.log.append((self.name, wait))
        out = self.rounds.pop(0)
        self.done = not self.rounds
        return out


class Failing:
    done = False

    def __init__(self, log):
        self.log = log

    def poll(self, wait=False):
        self.log.append(("failing", wait))
        raise RefereeError("the camera is gone")


class Recorder:
    """A pipeline stand-in that notes each call in order."""

    def __init__(self):
        self.calls, self.header = [], None

    def push(self, stream, events):
        self.calls.append(("push", stream, [e.t for e in events]))

    def advance(self, stream, t):
        self.calls.append(("advance", stream, t))

    def close(self, stream):
        self.calls.append(("close", stream))

    def frame(self, frame, events):
        self.calls.append(("frame", frame, [e.t for e in events]))

    def start(self, header):
        self.calls.append(("start",))
        self.header = header


def test_each_round_polls_the_open_sources_in_order_and_asks_only_the_last_one_open_to_wait():
    log = []
    a = Scripted("a", [[], [], []], log)
    b = Scripted("b", [[]], log)
    session = Session(Recorder(), [a, b], lambda: HEADER)
    session.run()
    assert log == [("a", False), ("b", False), ("a", True), ("a", True)]
    assert session.open_sources == []


def test_a_batch_goes_in_as_events_then_promise_then_close_then_the_frame():
    pipe = Recorder()
    batch = Batch("vision", [card(1.0), shout(1.2)], watermark=1.1, closed=True, shown=("img", [card(1.0)]))
    Session(pipe, [], lambda: HEADER).take([batch, Batch("hearing", watermark=0.5)])
    assert pipe.calls == [("push", "vision", [1.0, 1.2]), ("advance", "vision", 1.1), ("close", "vision"),
                          ("frame", "img", [1.0]), ("advance", "hearing", 0.5)]


def test_an_empty_batch_touches_nothing():
    pipe = Recorder()
    Session(pipe, [], lambda: HEADER).take([Batch("vision")])
    assert pipe.calls == []


def test_the_header_is_made_once_as_soon_as_it_can_be_and_events_before_it_wait():
    asked = []
    ready = {"now": False}

    def header():
        asked.append(ready["now"])
        return HEADER if ready["now"] else None

    log = []
    collect = CollectSink()
    pipe = Pipeline(["vision"], [collect], judge=False)
    src = Scripted("v", [[Batch("vision", [card(1.0)], 2.0)], [Batch("vision", [card(3.0)], 4.0)], []], log)
    session = Session(pipe, [src], header)
    session.step()
    assert pipe.header is None and collect.events == []  # polled, held in the merge
    ready["now"] = True
    session.step()
    assert pipe.header is HEADER
    assert [e.t for e in collect.events] == [1.0, 3.0]  # released in order once started
    session.step()
    assert asked == [False, True]  # never asked again once started


def test_events_reach_the_sinks_in_time_order_only_as_the_watermarks_allow():
    log = []
    collect = CollectSink()
    pipe = Pipeline(["vision", "hearing"], [collect], judge=False)
    vision = Scripted("vision", [[Batch("vision", [card(1.0)], 1.5)], [Batch("vision", [card(3.0)], 3.5)],
                                 [Batch("vision", closed=True)]], log)
    hearing = Scripted("hearing", [[Batch("hearing", [shout(1.2)], 1.1)], [Batch("hearing", [shout(2.0)], 5.0)],
                                   [Batch("hearing", [shout(6.0, "ben")], closed=True)]], log)
    session = Session(pipe, [vision, hearing], lambda: HEADER)
    released = []
    session.after_round = lambda: released.append([e.t for e in collect.events])
    session.run()
    # round 1: hearing promises only 1.1 (its own shout at 1.2 waits); round 2: vision
    # promises 3.5, hearing 5.0; round 3: both closed
    assert released == [[1.0], [1.0, 1.2, 2.0, 3.0], [1.0, 1.2, 2.0, 3.0, 6.0]]
    pipe.finish()
    assert pipe.late == []


def test_stop_ends_the_session_with_sources_still_open():
    log = []
    src = Scripted("a", [[]] * 10, log)
    rounds = []
    Session(Recorder(), [src], lambda: HEADER, after_round=lambda: rounds.append(1)).run(
        stop=lambda: len(rounds) >= 3)
    assert len(log) == 3 and not src.done


def test_a_source_that_fails_stops_the_session_with_its_own_error_and_nothing_after_it_is_polled():
    log = []
    pipe = Recorder()
    first = Scripted("first", [[Batch("vision", [card(1.0)], 1.0)], []], log)
    last = Scripted("last", [[], []], log)
    session = Session(pipe, [first, Failing(log), last], lambda: HEADER)
    with pytest.raises(RefereeError, match="^the camera is gone$"):
        session.run()
    assert log == [("first", False), ("failing", False)]  # one error, once: no second round
    assert pipe.calls == [("push", "vision", [1.0]), ("advance", "vision", 1.0)]  # what came before is in

"""The watermark merge releases events in canonical order, only once no earlier event can
still arrive, and never loses an event a stage sent too late."""

import math

from hypothesis import given, settings, strategies as st

from referee.pipeline.merge import WatermarkMerge
from session.events import CardEvent, HandEvent, ShoutEvent
from session.order import sort_key


def hand(t, player="aki", side="left", state="up"):
    return HandEvent(t=t, player=player, side=side, state=state)


def test_holds_events_until_every_stream_has_passed_them():
    m = WatermarkMerge(["vision", "hearing"])
    m.push("vision", [hand(1.0), hand(2.0, "ben")])
    m.advance("vision", 3.0)
    assert m.release() == []  # hearing may still send something earlier
    m.push("hearing", [ShoutEvent(t=1.5, player="ben", words=("ika",))])
    m.advance("hearing", 1.8)
    assert [e.t for e in m.release()] == [1.0, 1.5]
    m.close("hearing")
    assert [e.t for e in m.release()] == [2.0]
    assert m.watermark() == 3.0 and m.held == 0


def test_equal_times_come_out_in_the_canonical_kind_order():
    m = WatermarkMerge(["a", "b"])
    shout = ShoutEvent(t=2.0, player="aki", words=("ika",))
    card = CardEvent(t=2.0, card="ika", zone="field")
    m.push("a", [shout, hand(2.0)])
    m.push("b", [card])
    m.close("a")
    m.close("b")
    assert [e.type for e in m.release()] == ["card", "hand", "shout"]


def test_a_late_event_is_released_at_once_and_counted_not_lost():
    m = WatermarkMerge(["a"])
    m.push("a", [hand(1.0)])
    m.advance("a", 2.0)
    assert len(m.release()) == 1
    m.push("a", [hand(0.5, "ben")])  # earlier than the stream's own watermark
    out = m.release()
    assert [e.player for e in out] == ["ben"] and len(m.late) == 1 and m.late[0][0] == "a"


def test_watermark_is_the_slowest_open_stream():
    m = WatermarkMerge(["a", "b"])
    assert m.watermark() == -math.inf
    m.advance("a", 5.0)
    m.advance("b", 2.0)
    m.advance("b", 1.0)  # a watermark never goes back
    assert m.watermark() == 2.0
    m.close("b")
    assert m.watermark() == 5.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 400), st.sampled_from(["aki", "ben"])),
                max_size=40), st.integers(1, 50))
def test_any_interleaving_within_promises_gives_the_sorted_stream(items, lag):
    """Each stream sends its events out of order but never earlier than its watermark, which
    trails its newest event by ``lag``: the released sequence is the canonical sort of all."""
    m = WatermarkMerge(["a", "b", "c"])
    newest = {"a": 0, "b": 0, "c": 0}
    got, sent = [], []
    for stream, t_ms, player in items:
        t = max(t_ms, newest[stream] - lag) / 100
        ev = hand(t, player)
        sent.append(ev)
        m.push(stream, [ev])
        newest[stream] = max(newest[stream], t_ms)
        m.advance(stream, (newest[stream] - lag) / 100)
        got += m.release()
    for s in "abc":
        m.close(s)
    got += m.release()
    assert m.late == []
    assert [sort_key(e) for e in got] == sorted(sort_key(e) for e in sent)

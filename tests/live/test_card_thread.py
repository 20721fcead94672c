"""The card zones on a thread of their own (``TableWatcher.start_card_thread``, live): the
same card events and warnings as in the caller's thread on the demo's frames, the watermark
never ahead of the events handed back, and a zone busy recognising a card does not hold up
the caller (the live loop keeps taking frames for the seats)."""

from __future__ import annotations

import itertools
import json
import threading

import pytest

from tests.live.helpers import DEMO

SECONDS = 14.0  # the demo's first four cards (3, tako, ika, mirror)


def _layout():
    from calibration import load
    from vision.table import TableLayout

    lay = TableLayout.of(load(DEMO / "calibration.json"))
    return TableLayout(lay.width, lay.height, lay.zones, (), lay.references)  # the card zones only


def _frames():
    from vision.video import read_frames

    return list(itertools.takewhile(lambda f: f.t < SECONDS, read_frames(DEMO / "session.mp4")))


@pytest.fixture(scope="module")
def frames():
    if not (DEMO / "session.mp4").is_file():
        pytest.skip("the demo recording is missing")
    return _frames()


def _run(frames, threaded: bool):
    from vision.table import TableWatcher

    tw = TableWatcher(_layout(), card_every=2)
    if threaded:
        tw.start_card_thread(max_backlog=None)  # every frame to the zones, however far behind
    events, broken, mark = [], [], float("-inf")
    try:
        for f in frames:
            got = tw.update(f)
            broken += [e for e in got if e.t < mark]
            events += got
            mark = max(mark, min(f.t, tw.watermark()))
        got = tw.finish()
        broken += [e for e in got if e.t < mark]
        events += got
        return events, list(tw.warnings), broken
    finally:
        tw.close()


def test_the_card_thread_gives_the_same_cards_and_keeps_the_promise(frames):
    plain, plain_warnings, _ = _run(frames, False)
    threaded, threaded_warnings, broken = _run(frames, True)
    cards = [e for e in plain if e.type == "card"]
    assert len(cards) >= 4  # the demo's first cards were seen
    def dump(evs):
        return json.dumps([e.to_dict() for e in evs], sort_keys=True)

    assert dump(threaded) == dump(plain)  # the same events, in the same order of coming out
    assert threaded_warnings == plain_warnings
    assert broken == []


def _busy(tw, gate):
    zone = tw.cards[0]
    update = zone.update

    def busy(index, t, image):  # recognising a card: until the test lets it go
        gate.wait(10)
        return update(index, t, image)

    zone.update = busy


def test_a_busy_zone_does_not_hold_up_the_caller(frames):
    from vision.table import TableWatcher

    tw = TableWatcher(_layout(), card_every=2)
    tw.start_card_thread(max_backlog=None)
    gate = threading.Event()
    _busy(tw, gate)
    try:
        first = frames[:90]  # to 3 s: the first card (2.1 s) is recognised in them
        for f in first:  # returns at once: the frames wait for the zones on their thread
            assert tw.update(f) == []
        assert tw.card_thread.backlog >= 89
        assert tw.in_flight == len(first)  # (the live loop holds vision's clock advance while any is)
        assert tw.watermark() == float("-inf")  # nothing promised for frames the zones have not done
        gate.set()
        later = tw.finish()
        assert tw.card_thread.backlog == 0 and tw.watermark() > first[0].t - 1 and tw.in_flight == 0
        assert any(e.type == "card" for e in later)
        assert later == _run(first, False)[0]
    finally:
        gate.set()
        tw.close()


def test_a_full_backlog_keeps_frames_in_the_rings_without_analysing_them(frames):
    """Live: at most ``max_backlog`` frames wait to be analysed; the rest are only kept in the
    zones' rings (counted), so the zones' watermark is never far behind once they are free
    again, and the walk-back still has every frame to find a card's first one in."""
    from vision.table import TableWatcher

    tw = TableWatcher(_layout(), card_every=2)
    tw.start_card_thread(max_backlog=6)
    gate = threading.Event()
    _busy(tw, gate)
    try:
        for f in frames[:40]:
            tw.update(f)
        # at most 6 frames wait, and up to 6 more the zones analyse (every 2nd: card_every)
        assert tw.card_thread.backlog <= 12 and tw.card_thread.unanalysed >= 40 - 13
        gate.set()
        tw.finish()
        assert tw.card_thread.backlog == 0
        # every frame reached the rings, analysed or not (before: the dropped ones never did)
        assert [s.index for s in tw.cards[0].ring] == [f.index for f in frames[:40]]
        unanalysed = tw.card_thread.unanalysed
        for f in frames[40:60]:  # free again, one frame at a time: every frame to the zones
            tw.update(f)
            tw.finish()
        assert tw.card_thread.unanalysed == unanalysed
        # the watermark is the zones' own bound as of the last frame they did
        assert tw.watermark() == min(c.earliest_event_t() for c in tw.cards)
    finally:
        gate.set()
        tw.close()


def test_a_card_revealed_while_the_zones_are_behind_is_timed_at_its_first_frame(frames):
    """The zones busy through the first card's reveal (2.0 s): the frames they had no time
    for are kept, and the walk-back times the card as the unhurried zones do. (Before, those
    frames were not given to the zones, and the card was timed at the first frame analysed
    after the zones were free again: 1 s late here, up to 1.9 s live on a slow machine.)"""
    from vision.table import TableWatcher

    plain = [e for e in _run(frames[:120], False)[0] if e.type == "card"]
    tw = TableWatcher(_layout(), card_every=2)
    tw.start_card_thread(max_backlog=6)
    gate = threading.Event()
    _busy(tw, gate)
    events = []
    try:
        for f in frames[:90]:  # to 3 s: the zones stuck on the first frame meanwhile
            events += tw.update(f)
        assert tw.card_thread.unanalysed > 60  # most of them only kept
        gate.set()
        for f in frames[90:120]:  # free again
            events += tw.update(f)
            events += tw.finish()
        events += tw.finish()
    finally:
        gate.set()
        tw.close()
    cards = [e for e in events if e.type == "card"]
    assert plain and 1.9 < plain[0].t < 2.2
    assert [(e.card, e.t) for e in cards] == [(e.card, e.t) for e in plain]


def test_a_card_after_frames_the_referee_never_took_is_timed_with_a_warning(frames):
    """Frames the live loop never took (it fell behind) leave a gap in the zones' rings: a card
    first seen after one is timed at that frame and a warning says how much earlier it may
    have come; with every frame there is none."""
    from vision.table import TableWatcher

    def run(fs):
        tw = TableWatcher(_layout(), card_every=2)
        try:
            events = [e for f in fs for e in tw.update(f)] + tw.finish()
        finally:
            tw.close()
        return [e for e in events if e.type == "card"], [e for e in events if e.type == "warning"
                                                         and e.extra.get("card_time_uncertain")]

    cards, warned = run(frames[:100])
    assert cards and not warned  # every frame: the card at 2.0 s, no doubt
    cards, warned = run(frames[:50] + frames[70:100])  # 1.67-2.30 s never taken; the card came at 2.0
    assert [c.t for c in cards] == [frames[70].t]
    assert len(warned) == 1 and warned[0].t == cards[0].t and warned[0].extra["card"] == cards[0].card
    assert warned[0].extra["earliest"] == round(frames[49].t, 6)
    assert "may have come up to 0.70 s earlier" in warned[0].message


def test_at_the_end_of_the_input_the_kept_frames_are_analysed(frames):
    """A card revealed while the zones are behind and the input ends before they analysed two
    frames of it: the frames only kept meanwhile are analysed when the input ends (nothing to
    hurry for), so the card is read and timed as the unhurried zones do — under load it
    stayed unread (the live window test lost the demo's third card so)."""
    from vision.table import TableWatcher

    plain = [e for e in _run(frames[:80], False)[0] if e.type == "card"]
    tw = TableWatcher(_layout(), card_every=2)
    tw.start_card_thread(max_backlog=6)
    gate = threading.Event()
    _busy(tw, gate)
    try:
        events = [e for f in frames[:80] for e in tw.update(f)]  # the zones stuck on the first frame
        assert tw.card_thread.unanalysed > 50
        gate.set()
        events += tw.finish()
    finally:
        gate.set()
        tw.close()
    assert plain and [(e.card, e.t) for e in events if e.type == "card"] == [(e.card, e.t) for e in plain]

"""A second reading needs both ears (audio.found_inside.both_ears, issue 31 fairness): a call
found on a second reading (the rise's, the free start's) is taken only where both enrolled
engines are behind it — one sure, the other sure of it or leaning to it. One sure and the other
leaning elsewhere: decided before, unclear (no call found) after."""

import pytest

from audio.enroll import Verdict
from audio.found_inside import FoundParams, both_ears, find_inside
from audio.found_start import find_from_start
from audio.listen import ListenParams
from audio.onset import Segment
from audio.voices import decide
from tests.audio import test_found_inside as inside
from tests.audio import test_found_start as start


def beside(read, embedding_leans: tuple[str, ...] | None):
    """``read`` with the templates' verdict combined with an embedding that abstains and leans to
    ``embedding_leans``: the combined verdict as the listener would get it."""

    def both(seg):
        dtw, feats = read(seg)
        return decide(dtw, Verdict(None, 0.1, 0.0, embedding_leans, by="embedding")), feats

    return both


def test_one_sure_engine_and_the_other_leaning_to_the_call_is_both_ears():
    sure = decide(Verdict(("tako",), 2.0, 2.0, ("tako",)), Verdict(None, 0.1, 0.0, ("tako",), by="embedding"))
    elsewhere = decide(Verdict(("tako",), 2.0, 2.0, ("tako",)), Verdict(None, 0.1, 0.0, ("ika",), by="embedding"))
    nowhere = decide(Verdict(("tako",), 2.0, 2.0, ("tako",)), Verdict(None, 0.1, 0.0, None, by="embedding"))
    assert sure.tokens == elsewhere.tokens == nowhere.tokens == ("tako",)  # the listener's "decided"
    assert both_ears(sure) and not both_ears(elsewhere) and not both_ears(nowhere)
    assert both_ears(Verdict(("tako",), 2.0, 2.0, ("tako",)))  # one engine enrolled: no second ear to ask


@pytest.mark.parametrize("leans, found_after", [(("ika",), False), (("tako",), True)])
def test_the_rise_takes_a_call_only_with_both_ears(leans, found_after):
    x, onset, end = inside.table()
    samples, read = inside.reader(x)
    read = beside(read, leans)
    seg = Segment(0, onset - int(0.1 * inside.R), end, inside.R)
    own = ListenParams().own_db
    before = find_inside(seg, samples, read, own, FoundParams(both_engines=False))
    assert before is not None and before[1].tokens == ("tako",)
    after = find_inside(seg, samples, read, own, FoundParams())
    assert (after is not None) == found_after


@pytest.mark.parametrize("leans, found_after", [(("ika",), False), (("tako",), True)])
def test_the_free_start_takes_a_call_only_with_both_ears(leans, found_after):
    x, _, end = start.table()
    samples, read = inside.reader(x)
    read = beside(read, leans)
    seg = Segment(0, int(start.QUIET_S * inside.R), end, inside.R)
    own = ListenParams().own_db
    before = find_from_start(seg, samples, read, start.takes(), inside.R, own, FoundParams(both_engines=False))
    assert before is not None and before[1].tokens == ("tako",)
    after = find_from_start(seg, samples, read, start.takes(), inside.R, own, FoundParams())
    assert (after is not None) == found_after

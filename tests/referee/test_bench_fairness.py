"""The counting of ``benchmarks/bench_fairness.py`` on hand-made verdicts (the benchmark itself
replays the demo under sixteen conditions and prints the table; too slow for the tests)."""

from __future__ import annotations


from tests.conftest import load_benchmark

PLAYERS = ["aki", "ben", "chie", "dai"]


def _bench():
    return load_benchmark("bench_fairness")


def v(card, first=None, correct=(), wrong=(), missed=(), **more):
    return {"type": "verdict", "card": card, "first": first, "correct": list(correct), "wrong": list(wrong),
            "missed": list(missed), **more}


TRUTH = [
    v("3", "ben", correct=["ben", "aki", "chie", "dai"]),
    v("tako", "chie", correct=["chie", "ben", "dai"], wrong=["aki"]),
    v("ika", "aki", correct=["aki", "chie"], wrong=["dai"], missed=["ben"]),
    v("2", None, correct=["ben", "dai", "aki", "chie"], tie=["ben", "dai"], unsettled=True),
]


def test_unjust_and_abstentions_are_counted_per_player_card():
    got = [
        # card 3: the first and ben's word unclear (the field being added), aki made wrong
        v("3", None, correct=["chie", "dai"], wrong=["aki"], first_unclear=True,
          unclear={"ben": "heard a shout, the word was unclear"}),
        # card tako: not seen at all (no verdict)
        # card ika: dai (truth wrong) awarded first and correct, chie (truth correct) missed,
        # ben (truth missed) correct
        v("ika", "dai", correct=["dai", "aki", "ben"], missed=["chie"]),
        # card 2: the truth's unsettled tie given to ben; chie not heard (unjudged: an abstention)
        v("2", "ben", correct=["ben", "dai", "aki"], unjudged={"chie": "not heard: no audio"}),
        # a card the truth does not have: aki penalised on it
        v("5", None, wrong=["aki"]),
    ]
    c = _bench().count(got, TRUTH, PLAYERS)
    assert c.player_cards == 16
    assert (c.made_wrong, c.made_missed, c.wrong_first, c.false_award) == (1 + 1, 1, 2, 1)
    assert c.unjust == 6
    assert (c.abstain, c.first_unclear) == (2, 1)
    assert c.as_dict()["abstain_pct"] == 12.5
    assert (c.unseen, c.extra, c.misread) == (1, 1, 0)
    assert (c.unjudged, c.first_withheld) == (1, 1)
    # the truth against itself: nothing unjust, nothing abstained
    same = _bench().count(TRUTH, TRUTH, PLAYERS)
    assert (same.unjust, same.abstain, same.first_unclear, same.unseen, same.extra) == (0, 0, 0, 0, 0)


def test_a_misread_card_is_judged_against_the_truths_card_in_its_place():
    got = [v("3", "ben", correct=["ben", "aki", "chie", "dai"]),
           v("ika", None, wrong=["chie", "ben", "dai"], missed=["aki"]),  # tako read as ika
           TRUTH[2], TRUTH[3]]
    c = _bench().count(got, TRUTH, PLAYERS)
    assert (c.misread, c.unseen, c.extra) == (1, 0, 0)
    assert (c.made_wrong, c.made_missed, c.wrong_first, c.false_award) == (3, 0, 0, 0)


def test_the_room_conditions_change_the_audio_as_they_say(tmp_path):
    """gain-3 clips where the demo's peaks pass full scale; delayed-150ms moves only dai's
    channel, 150 ms later; pink-10dB lays noise 10 dB below each seat's speech level; reverb-0.6
    keeps the length and adds a tail."""
    import numpy as np

    from audio.capture import read_all

    bench = _bench()
    x, rate = read_all(bench.DEMO / "seats.wav")
    x = x.astype(np.float64)

    def wav(name):
        return read_all(bench.make(name, tmp_path).audio)[0].astype(np.float64)

    loud = wav("gain-3")
    assert np.abs(loud).max() > 0.99 and np.allclose(loud[np.abs(x) < 0.3], 3 * x[np.abs(x) < 0.3], atol=1e-4)
    late, k, d = wav("delayed-150ms"), bench._seat("dai")["channel"], int(0.15 * rate)
    assert not late[:d, k].any() and np.allclose(late[d:, k], x[:-d, k], atol=1e-4)
    others = [c for c in range(x.shape[1]) if c != k]
    assert np.allclose(late[:, others], x[:, others], atol=1e-4)
    noise = wav("pink-10dB") - x
    levels = bench._levels(x)
    for c in range(x.shape[1]):
        assert abs(20 * np.log10(np.sqrt(np.mean(noise[:, c] ** 2)) / levels[c]) + 10) < 0.5
    room = wav("reverb-0.6")
    assert room.shape == x.shape and np.mean(room ** 2) > np.mean(x ** 2)

"""The pure parts of ``benchmarks/table_sim.py`` (the simulated table for hearing, issue 31
item 1): the geometry, the room's reverberation, the noise's level, the outside construction
and the scoring. The benchmark itself listens with Whisper for minutes; not run here."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import load_benchmark, shared_path


def _sim():
    return load_benchmark("table_sim")


def _rms_db(x):
    return 20 * np.log10(np.sqrt(np.mean(np.asarray(x) ** 2)))


@pytest.mark.parametrize("seed", range(20))
def test_each_microphone_lies_15_to_40_cm_from_its_players_mouth(seed):
    s = _sim()
    rng = np.random.default_rng(seed)
    seats = int(rng.integers(3, 7))
    geo = s.table_geometry(rng, seats)
    assert geo.mouths.shape == geo.mics.shape == (seats, 3)
    d = np.linalg.norm(geo.mics - geo.mouths, axis=1)
    assert np.all((d >= 0.15) & (d <= 0.40))
    # each microphone is nearer its own player than any other player
    for k in range(seats):
        others = np.linalg.norm(geo.mouths - geo.mics[k], axis=1)
        assert np.argmin(others) == k
    assert np.all((geo.dims[:2] >= 3.0) & (geo.dims[:2] <= 8.0))
    assert 0.2 <= geo.rt60 <= 0.8
    for p in np.vstack([geo.mouths, geo.mics]):  # inside the room
        assert np.all(p > 0) and np.all(p < geo.dims)


def test_schroeder_rt60_of_an_exact_exponential_decay():
    s = _sim()
    rate = 16000
    t = np.arange(int(1.5 * rate)) / rate
    h = np.random.default_rng(0).standard_normal(len(t)) * np.exp(-3 * np.log(10) * t / 0.5)
    assert s.schroeder_rt60(h, rate) == pytest.approx(0.5, rel=0.05)


@pytest.mark.parametrize("rt60", [0.2, 0.45, 0.8])
def test_rendered_room_response_has_the_requested_rt60(rt60):
    pytest.importorskip("pyroomacoustics")
    s = _sim()
    rng = np.random.default_rng(3)
    geo = s.table_geometry(rng, 4)
    geo.rt60 = rt60
    irs = s.room_irs(geo, geo.mouths, rng)
    assert len(irs) == 4 and all(len(row) == 4 for row in irs)
    measured = [s.schroeder_rt60(irs[m][k], s.RATE) for m in range(4) for k in range(4) if m != k]
    assert np.median(measured) == pytest.approx(rt60, rel=0.15)
    # the direct path comes first at the distance's delay (the close microphone the earliest)
    delay = np.argmax(np.abs(irs[0][0])) - np.argmax(np.abs(irs[0][2]))
    assert delay < 0


def test_room_response_is_deterministic():
    pytest.importorskip("pyroomacoustics")
    s = _sim()
    geo = s.table_geometry(np.random.default_rng(5), 3)
    one = s.room_irs(geo, geo.mouths, np.random.default_rng(1))
    two = s.room_irs(geo, geo.mouths, np.random.default_rng(1))
    assert all(np.array_equal(x, y) for r1, r2 in zip(one, two) for x, y in zip(r1, r2))


@pytest.mark.parametrize("kind", ["white", "pink", "babble", "music"])
@pytest.mark.parametrize("snr", [0.0, 10.0, 30.0])
def test_noise_is_added_at_the_requested_snr(kind, snr):
    s = _sim()
    rng = np.random.default_rng(int(snr) + 7)
    n = 3 * s.RATE
    talkers = [np.sin(2 * np.pi * f * np.arange(s.RATE) / s.RATE) * np.hanning(s.RATE) for f in (150, 220, 310)]
    noise = {"white": lambda: s.white(n, rng), "pink": lambda: s.pink(n, rng),
             "babble": lambda: s.babble(n, rng, talkers), "music": lambda: s.music(n, rng)}[kind]()
    speech_rms = 0.03
    added = s.scaled_noise(noise * 5.0, speech_rms, snr)
    assert 20 * np.log10(speech_rms) - _rms_db(added) == pytest.approx(snr, abs=0.5)


def test_outside_construction_clips_2_5_s_apart_over_a_minus_50_db_floor():
    s = _sim()
    rate = s.RATE
    clips = []
    for k in range(4):  # a 0.1 s quiet start, then a tone: the true onset 0.1 s into each clip
        c = np.zeros(int(0.6 * rate))
        c[int(0.1 * rate):] = 0.1 * (k + 1) * np.sin(2 * np.pi * 300 * np.arange(int(0.5 * rate)) / rate)
        clips.append(c)
    x, truths = s.outside_channel(clips, noisy=False, rng=np.random.default_rng(0))
    assert np.diff(truths) == pytest.approx([2.5] * 3)
    assert truths[0] == pytest.approx(s.OUTSIDE_LEAD_S + 0.1)
    assert len(x) == int((s.OUTSIDE_LEAD_S + 2.5 * 4) * rate)
    lead = x[: int(s.OUTSIDE_LEAD_S * rate)]
    assert _rms_db(lead) == pytest.approx(-50.0, abs=0.3)
    gap = x[int((truths[0] + 0.6) * rate): int((truths[1] - 0.2) * rate)]  # between two clips: the floor alone
    assert _rms_db(gap) == pytest.approx(-50.0, abs=0.3)
    y, _ = s.outside_channel(clips, noisy=True, rng=np.random.default_rng(0))
    median_active = np.median([s.active_rms(c) for c in clips])
    noise = y[: int(s.OUTSIDE_LEAD_S * rate)]  # from the first sample: floor + white 10 dB under the clips
    expected = 10 * np.log10(median_active ** 2 * 10 ** (-10 / 10) + 10 ** (-50 / 10))
    assert _rms_db(noise) == pytest.approx(expected, abs=0.3)


def test_match_closest_first_each_once():
    s = _sim()
    assert s.match([1.0, 3.5, 6.0, 8.5], [1.01, 3.45, 3.52, 5.8, 8.75, 12.0]) == [(0, 0), (1, 2), (3, 4)]
    assert s.match([1.0, 1.2], [1.15]) == [(1, 0)]
    assert s.match([1.0], []) == []


def test_score_table_on_a_synthetic_table():
    s = _sim()
    T = s.Truth
    truths = [T(0, "fsdd:george", "shout", "2", "a", 2.0, 2.4),
              T(1, "fsdd:lucas", "shout", "3", "b", 2.2, 2.6, True),  # overlapping george's
              T(2, "fsdd:jackson", "shout", "4", "c", 5.0, 5.4),
              T(1, "fsdd:lucas", "talk", "", "d", 8.0, 8.5)]
    names = ["aki", "ben", "chie"]
    events = [
        {"t": 2.01, "player": "aki", "words": ["2"]},  # right, +10 ms
        {"t": 2.05, "player": "chie", "words": ["2"]},  # george's leak heard at chie's seat: bystander
        {"t": 2.1, "player": "chie", "words": []},  # near both shouts: one bystander event (no call), counted once
        {"t": 2.4, "player": "ben", "words": ["8"]},  # lucas detected (+200 ms), wrong word
        {"t": 5.5, "player": "chie", "words": ["4"]},  # +500 ms: too late, not detected
        {"t": 8.3, "player": "ben", "words": ["5"], "conf": 0.9},  # talk heard as a sure call: false alarm, acted on
        {"t": 11.0, "player": "aki", "words": []},  # nothing there: stray
    ]
    r = s.score_table(truths, events, names, dict(scenario="x"))
    by = {sh["file"]: sh for sh in r["shouts"]}
    assert by["a"]["detected"] and by["a"]["right"] and by["a"]["err_ms"] == pytest.approx(10.0)
    assert by["b"]["detected"] and not by["b"]["right"] and by["b"]["err_ms"] == pytest.approx(200.0)
    assert by["b"]["heard"] == "8"
    assert not by["c"]["detected"] and not by["c"]["right"] and by["c"]["err_ms"] is None
    assert r["bystander"] == 2 and r["bystander_calls"] == 1 and r["bystander_n"] == 3 * 2
    assert [u[:2] for u in r["unexplained"]] == [[2.05, "chie"], [2.1, "chie"], [5.5, "chie"], [11.0, "aki"]]
    assert r["talk_alarms"] == 1 and r["talk_acted"] == 1 and r["talk_n"] == 1
    events[5]["conf"] = 0.3  # below the judge's word_conf: the player would be unclear, not penalised
    assert s.score_table(truths, events, names, dict(scenario="x"))["talk_acted"] == 0
    assert r["stray"] == 2  # 5.5 at chie's and 11.0
    t = s.tally(r["shouts"])
    assert (t["n"], t["detected"], t["right"]) == (3, 2, 1)
    assert t["med_abs_ms"] == pytest.approx(105.0)


def test_pools_keep_talk_babble_and_shouts_apart():
    shared_path("data", "speech", "labels.csv")
    s = _sim()
    p = s.load_pools()
    assert {k: len(v) for k, v in p.digits.items()} == {sp: 80 for sp in s.DIGIT_SPEAKERS}
    talk = {r["file"] for v in p.talk.values() for r in v}
    babble = {r["file"] for r in p.babble}
    digits = {r["file"] for v in p.digits.values() for r in v}
    assert not talk & babble and not digits & (talk | babble)
    assert all(r["text"] == "zero" for sp in s.DIGIT_SPEAKERS for r in p.talk[sp])


def _row(detected=True, words=(), err_ms=10.0, t_end_heard=2.5, sure=False, t=2.0):
    return dict(detected=detected, words=list(words), err_ms=err_ms if detected else None, t=t,
                t_end_heard=t_end_heard if detected else None, sure=sure)


def test_each_loss_is_split_by_why():
    s = _sim()
    others = [4.5]  # the next clip's onset
    assert s.loss(_row(detected=False), "2", 2.4, [], others) == "not detected"
    assert s.loss(_row(words=["2"]), "2", 2.4, [], others) == "right"
    assert s.loss(_row(words=["3"], sure=True), "2", 2.4, [], others) == "another call (sure)"
    assert s.loss(_row(words=["3"]), "2", 2.4, [], others) == "another call (unsure)"
    assert s.loss(_row(), "2", 2.4, [], others) == "no call"
    assert s.loss(_row(words=["2", "2"]), "2", 2.4, [], others) == "cut or merged"  # two tokens
    assert s.loss(_row(t_end_heard=4.9), "2", 2.4, [], others) == "cut or merged"  # runs over the next clip
    split = [{"t": 2.3, "words": []}]  # another event inside the clip: the word heard as two
    assert s.loss(_row(words=["3"], sure=True), "2", 2.4, split, others) == "cut or merged"
    late = [{"t": 2.4 + s.CUT_AFTER_S + 0.05, "words": []}]  # after the clip's end and the allowance: not its part
    assert s.loss(_row(), "2", 2.4, late, others) == "no call"


def test_tally_counts_right_wrong_unclear_and_the_losses():
    s = _sim()
    shouts = [dict(_row(words=["2"]), right=True, loss="right"),
              dict(_row(words=["3"], sure=True), right=False, loss="another call (sure)"),
              dict(_row(words=["3"]), right=False, loss="another call (unsure)"),
              dict(_row(), right=False, loss="no call"),
              dict(_row(detected=False), right=False, loss="not detected")]
    t = s.tally(shouts)
    assert (t["n"], t["right"], t["detected"], t["wrong"], t["unclear"]) == (5, 1, 4, 1, 2)
    assert t["losses"] == {"not detected": 1, "cut or merged": 0, "another call (sure)": 1,
                           "another call (unsure)": 1, "no call": 1}


def test_outside_without_the_mirror_hears_only_the_shared_speakers_not_enrolled(tmp_path, monkeypatch):
    s = _sim()
    assert s.run_outside(list(s.FSDD_MIRROR_ONLY), None, 8, tmp_path, 31) == []  # nothing heard, nothing raised
    with pytest.raises(FileNotFoundError, match="FSDD mirror not given"):
        s.outside_rows("theo", None, tmp_path)
    monkeypatch.delenv(s.FSDD_ENV, raising=False)
    assert s.fsdd_dir(None) is None
    monkeypatch.setenv(s.FSDD_ENV, str(tmp_path))
    assert s.fsdd_dir(None) == tmp_path and s.fsdd_dir("/x") == __import__("pathlib").Path("/x")  # the option wins


def test_outside_shared_speakers_read_the_shared_clips():
    shared_path("data", "speech", "labels.csv")
    s = _sim()
    rows = s.outside_rows("george", None, None)
    assert len(rows) == 80 and all(p.is_file() for _, p in rows)
    assert [tok for tok, _ in rows[::10]] == [str(d) for d in range(2, 10)]


def _mirror():
    import os
    from pathlib import Path

    path = os.environ.get("FSDD_MIRROR") or "/work/.mirror/Jakobovski+free-spoken-digit-dataset/repo"
    if not (Path(path) / "HEAD").is_file():
        pytest.skip(f"no FSDD mirror at {path} (set $FSDD_MIRROR to a bare git directory of the dataset)")
    return Path(path)


def test_outside_reads_the_mirror_and_enrolls_other_takes_than_it_shouts(tmp_path):
    s = _sim()
    mirror = _mirror()
    rows = s.outside_rows("theo", mirror, tmp_path)
    assert len(rows) == 80 and rows[0][1].name == "2_theo_0.wav" and rows[-1][1].name == "9_theo_9.wav"
    clip = s.read_clip(rows[0][1])
    assert 0.2 < len(clip) / s.RATE < 1.5  # a spoken digit, resampled from 8 kHz
    folder = s.enroll_folder("theo", mirror, tmp_path, "aki")
    takes = sorted(p.name for p in (folder / "aki").glob("*.wav"))
    assert len(takes) == 8 * s.DEFAULT_TAKES and takes[:2] == ["2.10.wav", "2.11.wav"]
    assert not set(s.OUTSIDE_ENROLL_TAKES) & set(s.OUTSIDE_SHOUT_TAKES)


def test_outside_enrolls_two_or_three_takes_a_call_as_calibrate_asks(tmp_path):
    """``--outside-enroll-takes``: the first 2 or 3 of FSDD takes 10, 11, 12 of every digit
    (never a shouted take), each count in its own folder; other counts are refused."""
    s = _sim()
    mirror = _mirror()
    two = sorted(p.name for p in (s.enroll_folder("theo", mirror, tmp_path, "aki", 2) / "aki").glob("*.wav"))
    three = sorted(p.name for p in (s.enroll_folder("theo", mirror, tmp_path, "aki", 3) / "aki").glob("*.wav"))
    assert len(two) == 16 and "2.12.wav" not in two
    assert len(three) == 24 and three[:3] == ["2.10.wav", "2.11.wav", "2.12.wav"] and set(two) < set(three)
    with pytest.raises(ValueError, match="got 4"):
        s.enroll_folder("theo", mirror, tmp_path, "aki", 4)
    with pytest.raises(SystemExit) as exc:
        s.main(["--scenarios", "outside", "--outside-enroll-takes", "4"])
    assert exc.value.code == 2


def test_an_unknown_outside_speaker_is_one_clear_error(capsys):
    s = _sim()
    with pytest.raises(SystemExit) as exc:
        s.main(["--scenarios", "outside", "--outside-speakers", "george,bob"])
    assert exc.value.code == 2 and "unknown FSDD speaker(s) bob" in capsys.readouterr().err


def test_outside_zeros_are_no_call_and_each_ear_row_is_named_apart():
    """``--outside-words zero`` shouts each speaker's zeros (a "0" is no call of the game: never
    right); ``--outside-ear`` rows are named apart from the shipped hearing's, and every rule
    it offers is one the synthetic ear knows."""
    shared_path("data", "speech", "labels.csv")
    from audio import synthetic_ear

    s = _sim()
    rows = s.outside_rows("george", None, None, s.OUTSIDE_WORDS["zero"])
    assert len(rows) == 10 and {tok for tok, _ in rows} == {"0"} and all(p.is_file() for _, p in rows)
    assert set(s.EAR_RULES) == set(synthetic_ear.RULES) - {"record"}
    base = dict(condition="quiet", enrolled=False)
    assert s.outside_key(base) == "outside quiet"
    assert s.outside_key(dict(base, said="digits", ear=None)) == "outside quiet"
    assert s.outside_key(dict(base, said="zero", ear="both")) == "outside quiet zero ear:both"


def test_the_ear_is_beside_the_speech_model_only_while_asked():
    """:func:`ear_beside` wraps the hearing's own ``make_recognizer`` while open and puts it back
    (also on an error); None leaves it as shipped."""
    from audio import hearing, synthetic_ear

    s = _sim()
    made = hearing.make_recognizer
    with s.ear_beside(None):
        assert hearing.make_recognizer is made
    with pytest.raises(RuntimeError):
        with s.ear_beside("both"):
            assert hearing.make_recognizer is not made
            raise RuntimeError
    assert hearing.make_recognizer is made
    assert synthetic_ear.EarBeside.rule == "both"  # the rule the benchmark's headline measures by default


def test_ear_thresholds_given_badly_are_one_clear_error(capsys):
    s = _sim()
    with pytest.raises(SystemExit) as exc:
        s.main(["--scenarios", "outside", "--outside-ear", "both", "--ear-thresholds", "0.07"])
    assert exc.value.code == 2 and "--ear-thresholds takes MAX_DISTANCE,MIN_MARGIN" in capsys.readouterr().err
    assert s.EAR_THRESHOLDS is None  # nothing set by a refused value

"""Microphones of different gains heard at one level (``audio.gains``), and a table whose
cross-talk does not cancel on its own calibration recording heard uncancelled
(``audio.demix.cancels_on_itself``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from audio import demix, gains

RATE = 16000
DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"


def _bursts(rng, starts, n, length=0.4):
    s = np.zeros(n)
    for t0 in starts:
        a, m = int(t0 * RATE), int(length * RATE)
        s[a : a + m] += np.convolve(rng.standard_normal(m), np.ones(4) / 4, mode="same") * np.hanning(m)
    return s


def _calibration(rng, gains_db, leak=None, seconds=6.0):
    """Each seat alone in turn; its voice reaches the other mics through ``leak(i, j, voice)``
    (default: -10 dB, 2-4 ms late); each mic then scaled by its gain (dB)."""
    c, n = len(gains_db), int(seconds * RATE)
    voices = [_bursts(rng, [0.5 + 1.5 * j, 1.1 + 1.5 * j], n) for j in range(c)]
    x = np.stack(voices)
    for i in range(c):
        for j in range(c):
            if i != j:
                x[i] += leak(i, j, voices[j]) if leak else 10 ** (-0.5) * np.roll(voices[j], 32 + 16 * ((i + j) % 3))
    x = x * (10 ** (np.asarray(gains_db) / 20))[:, None] + 1e-4 * rng.standard_normal(x.shape)
    return x.T.astype(np.float32)


def test_mismatched_microphones_are_brought_to_their_median_level():
    x = _calibration(np.random.default_rng(1), [-12.0, 0.0, 8.0])
    corrections = gains.gains_db(x)
    assert np.allclose(corrections, [12.0, 0.0, -8.0], atol=0.5), corrections
    assert all(abs(g * 10 - round(g * 10)) < 1e-9 for g in corrections)  # 0.1 dB steps
    # evened out, every seat is heard alone at calibration (raw: the quiet mic's seat never is)
    raw = [len(f) for f in demix.solo_frames(x)]
    even = [len(f) for f in demix.solo_frames(demix.scaled(x, corrections))]
    assert raw[0] < demix.DemixParams().min_solo_frames <= min(even), (raw, even)


def test_microphones_within_the_spread_are_left_as_recorded():
    x = _calibration(np.random.default_rng(2), [-2.0, 0.0, 3.0])
    assert gains.gains_db(x) == [0.0, 0.0, 0.0]
    assert demix.scaled(x, [0.0, 0.0, 0.0]) is x


def test_the_demo_s_microphones_are_left_as_recorded():
    from audio.capture import read_all

    if not (DEMO / "seats.wav").is_file():
        pytest.skip("demo recording not found")
    x, _ = read_all(DEMO / "seats.wav")
    assert gains.gains_db(x) == [0.0] * x.shape[1]


def test_a_leak_that_is_mostly_echo_does_not_cancel_on_its_own_recording():
    rng = np.random.default_rng(3)
    tails = {}

    def echo(i, j, voice):  # a reverberant path: a weak direct tap and a 0.3-s decaying tail
        if (i, j) not in tails:
            t = np.arange(int(0.3 * RATE))
            h = rng.standard_normal(len(t)) * np.exp(-t / (0.05 * RATE)) * 0.02
            h[40] += 0.05
            tails[(i, j)] = h
        return np.convolve(voice, tails[(i, j)])[: len(voice)]

    dry = _calibration(np.random.default_rng(4), [0.0, 0.0, 0.0])
    wet = _calibration(np.random.default_rng(4), [0.0, 0.0, 0.0], leak=echo)
    assert demix.cancels_on_itself(demix.estimate(dry), dry)
    assert not demix.cancels_on_itself(demix.estimate(wet), wet)
    # what is left uncancelled is the whole leak, echo and all, not the direct tap's share
    raw = demix.raw_leaks_db(wet)
    fitted = demix.residual_leaks_db(wet)
    off = ~np.eye(3, dtype=bool)
    assert np.all(raw[off] > fitted[off] + 3), (raw, fitted)


def test_a_table_of_mismatched_microphones_in_an_echoing_room_is_heard_evened_and_uncancelled(tmp_path):
    from audio import hearing

    wav = _echo_table(tmp_path)  # (no clipping)
    warnings: list[str] = []
    source, _ = hearing.open_source(wav, wav, warnings, demix=True, leakage_from=wav, rate=RATE)
    assert any("each channel is heard at one speech level" in w for w in warnings), warnings
    assert any("heard without cancellation" in w for w in warnings), warnings
    assert source.applied and not np.any(source.leakage.fir)
    # the channels as recorded, each scaled by its correction
    from audio.capture import read_all

    heard, _ = read_all(wav)
    corrections = gains.gains_db(heard)
    assert np.allclose(corrections, [10.0, 0.0, -9.0], atol=1.0), corrections
    expected = heard.astype(np.float64) * (10 ** (np.asarray(corrections) / 20))[None, :]
    got = np.asarray(source.data, np.float64)
    assert np.max(np.abs(got - expected)) < 1e-3


def _echo_table(tmp_path):
    """A calibration recording of mismatched microphones (-10, 0, +9 dB) whose leak is an echo."""
    from scipy.io import wavfile

    rng = np.random.default_rng(5)
    tails = {}

    def echo(i, j, voice):
        if (i, j) not in tails:
            t = np.arange(int(0.3 * RATE))
            tails[(i, j)] = rng.standard_normal(len(t)) * np.exp(-t / (0.05 * RATE)) * 0.02
        return np.convolve(voice, tails[(i, j)])[: len(voice)]

    x = 0.2 * _calibration(np.random.default_rng(6), [-10.0, 0.0, 9.0], leak=echo)
    wav = tmp_path / "cal.wav"
    wavfile.write(wav, RATE, (np.clip(x, -1, 1) * 32767).astype(np.int16))
    return wav


def test_the_corrections_and_the_verdict_are_stored_at_calibration_and_heard_without_reading_again(tmp_path):
    """``referee calibrate`` stores the corrections (``gains_db``) and the self-cancellation
    verdict (``cancelled``, no paths) in ``audio.leakage``; a replay given that block hears what
    measuring the recording hears, number for number, without reading the recording."""
    from unittest import mock

    import audio.capture
    from audio import hearing
    from audio.capture import read_all
    from session.calibration import LeakMeasurement

    wav = _echo_table(tmp_path)
    x, rate = read_all(wav)
    m = LeakMeasurement.from_dict(hearing.measure_calibration(x, rate, wav).to_dict())  # (through the file's form)
    assert m.cancelled is False and m.paths == () and any(m.gains_db)
    assert m.residual_db == max(v for row in m.residual_leaks_db for v in row if v is not None)
    states, said = [], []
    for measured in (None, m):
        warnings: list[str] = []
        with mock.patch("audio.capture.read_all", wraps=audio.capture.read_all) as reads:
            source, _ = hearing.open_source(wav, wav, warnings, demix=True, leakage_from=wav, rate=RATE,
                                            measured=measured)
            source.data
        states.append((source.leakage.fir, source.speech_db, source.residual_db, source.residual_leaks_db,
                       source.data, reads.call_count))
        said.append(warnings)
    assert said[0] == said[1] and any("one speech level" in w for w in said[0])
    (fir0, lv0, r0, pairs0, data0, reads0), (fir1, lv1, r1, pairs1, data1, reads1) = states
    assert (reads0, reads1) == (1, 0)  # the stored block is honoured: the recording is not read
    assert not np.any(fir1) and lv0 == lv1 and r0 == r1
    assert np.allclose(pairs0, pairs1, equal_nan=True) and np.array_equal(data0, data1)


def test_an_older_block_without_the_corrections_is_heard_as_it_was_measured():
    """``audio.leakage`` from before ``gains_db`` and ``cancelled`` (its ``params`` the
    estimate's alone): used as stored — uncorrected, cancelled, the recording not read — with a
    warning to calibrate again."""
    from dataclasses import replace
    from unittest import mock

    import audio.capture
    from audio import hearing
    from session.calibration import load

    new = load(DEMO / "calibration.json").audio.leakage
    old = replace(new, gains_db=None, cancelled=None, params=hearing._params(demix_only=True))
    out = []
    for measured in (new, old):
        warnings: list[str] = []
        with mock.patch("audio.capture.read_all", wraps=audio.capture.read_all) as reads:
            source, _ = hearing.open_source(DEMO / "session.mp4", DEMO / "seats.wav", warnings, demix=True,
                                            leakage_from=DEMO / "seats.wav", channels=4, measured=measured)
            data = source.data
        out.append((warnings, reads.call_count, source.leakage.fir, data))
    assert out[0][:2] == ([], 0) and out[1][1] == 0
    assert len(out[1][0]) == 1 and "older than the microphones' level check" in out[1][0][0]
    assert np.array_equal(out[0][2], out[1][2]) and np.array_equal(out[0][3], out[1][3])


def test_live_hears_mismatched_microphones_in_an_echoing_room_as_the_replay_does(tmp_path):
    """``referee live`` and ``referee listen --demix-from`` (``audio.hearing.demixed_from``)
    even the microphones out and leave an echo-only leak uncancelled, as a replay does: the
    same warnings, the same samples heard."""
    from audio import hearing
    from audio.capture import Block, FileSource

    wav = _echo_table(tmp_path)
    said: list[str] = []
    replayed, _ = hearing.open_source(wav, wav, said, demix=True, leakage_from=wav, rate=RATE)
    warnings: list[str] = []
    live, _, _ = hearing.demixed_from(FileSource(wav, rate=RATE), wav, 3, warnings)
    assert any("each channel is heard at one speech level" in w for w in warnings), warnings
    assert any("heard without cancellation" in w for w in warnings), warnings
    assert live.cancelled is False  # (referee listen then says no "cancelling cross-talk")
    heard = np.concatenate([b.data for b in live if isinstance(b, Block)])
    want = np.asarray(replayed.data, np.float64)
    assert heard.shape == want.shape
    assert np.max(np.abs(heard - want)) < 1e-3  # (float32 blocks against the replay's array)


@pytest.mark.parametrize("table", ["echoing", "demo"])
def test_live_hears_a_calibration_s_stored_leakage_without_measuring_the_recording_again(tmp_path, table):
    """``referee live`` given the calibration's stored ``audio.leakage`` (``demixed_from``'s
    ``measured``) hears what measuring the recording hears — the same samples, warnings, levels
    and per-pair leaks — without reading the recording at start-up; a stale block (another
    file) is measured again with a warning."""
    from dataclasses import replace
    from unittest import mock

    import audio.capture
    from audio import hearing
    from audio.capture import Block, FileSource, read_all
    from session.calibration import LeakMeasurement

    if table == "demo" and not (DEMO / "seats.wav").is_file():
        pytest.skip("fixtures/demo/seats.wav is missing")
    wav = _echo_table(tmp_path) if table == "echoing" else DEMO / "seats.wav"
    x, rate = read_all(wav)
    m = LeakMeasurement.from_dict(hearing.measure_calibration(x, rate, wav).to_dict())  # (through the file's form)
    runs = []
    for measured in (None, m):
        warnings: list[str] = []
        with mock.patch("audio.capture.read_all", wraps=audio.capture.read_all) as reads:
            live, onset, left = hearing.demixed_from(FileSource(wav, rate=rate), wav, x.shape[1], warnings, measured)
            calls = reads.call_count
        heard = np.concatenate([b.data for b in live if isinstance(b, Block)])
        runs.append(dict(calls=calls, warnings=warnings, cancelled=live.cancelled, levels=live.speech_db, left=left,
                         onset=onset, pairs=live.residual_leaks_db, heard=heard))
    measured_now, stored = runs
    assert (measured_now["calls"], stored["calls"]) == (1, 0)  # the stored block is honoured: not read again
    for key in ("warnings", "cancelled", "levels", "left", "onset"):
        assert measured_now[key] == stored[key], key
    assert np.allclose(measured_now["pairs"], stored["pairs"], equal_nan=True)
    assert np.array_equal(measured_now["heard"], stored["heard"])
    assert stored["cancelled"] is (table == "demo")
    warnings = []
    with mock.patch("audio.capture.read_all", wraps=audio.capture.read_all) as reads:
        hearing.demixed_from(FileSource(wav, rate=rate), wav, x.shape[1], warnings, replace(m, sha256="0" * 64))
    assert reads.call_count == 1 and any("changed since the table was calibrated" in w for w in warnings), warnings


def test_the_seats_levels_move_with_the_microphones_median_drift_only():
    levels = [-21.0, -20.0, None, -18.0]
    calibrated_loud = [-17.0, -16.0, -16.0, -15.0]
    # every channel about 12 dB down (the interface's gain turned): all seats move by the median
    anchored, drift = gains.drifted_levels(levels, calibrated_loud, [-29.1, -28.0, -28.0, -26.8])
    assert drift == -12.0 and anchored == [-33.0, -32.0, None, -30.0]
    # one channel 8 dB down (a seat that hardly spoke: its neighbours' leak), the rest as
    # calibrated, and one clap 20 dB up: the median stands, nothing moves
    anchored, drift = gains.drifted_levels(levels, calibrated_loud, [-25.0, 4.0, -16.2, -15.1])
    assert drift is None and anchored == levels
    assert gains.drifted_levels(levels, calibrated_loud, [-19.0, -19.0, -19.0, -18.0],
                                gains.DriftParams(follow_db=2.0))[1] == -3.0
    with pytest.raises(ValueError, match="follow_db"):
        gains.DriftParams(follow_db=0.0)


@pytest.mark.parametrize("factor", [1.0, 0.25, 3.0])
def test_a_replay_follows_microphones_turned_down_or_up_since_calibration(tmp_path, factor):
    """The demo's session with every microphone x0.25 (-12 dB) or x3 (+9.5 dB) since its
    calibration: the onset detector's anchors (the seats' speech levels) follow the session's own
    level, with a warning; as recorded, the calibration's levels stand and nothing is said."""
    from scipy.io import wavfile

    from audio import hearing
    from audio.capture import read_all
    from session.calibration import load

    if not (DEMO / "seats.wav").is_file():
        pytest.skip("fixtures/demo/seats.wav is missing")
    measured = load(DEMO / "calibration.json").audio.leakage
    x, rate = read_all(DEMO / "seats.wav")
    wav = tmp_path / "session.wav"
    wavfile.write(wav, rate, np.clip(x * factor, -1, 1).astype(np.float32))
    warnings: list[str] = []
    source, _ = hearing.open_source(DEMO / "session.mp4", wav, warnings, demix=True,
                                    leakage_from=DEMO / "seats.wav", channels=4, measured=measured)
    said = [w for w in warnings if "than on the calibration recording" in w]
    assert measured.loud_db is not None  # (the demo's calibration stores the loud levels)
    if factor == 1.0:
        assert source.speech_db == list(measured.speech_db) and not said, warnings
        return
    moved = np.asarray(source.speech_db) - np.asarray(measured.speech_db)
    shift = 20 * np.log10(factor)
    if factor < 1:
        assert np.allclose(moved, shift, atol=0.3), moved
    else:  # (the demo peaks at 0.63: x3 clips its loudest frames, so the levels rise by less)
        assert np.all((moved > gains.DriftParams().follow_db) & (moved <= shift + 0.3)), moved
    assert len(said) == 1 and ("quieter" if factor < 1 else "louder") in said[0], warnings


def test_evened_blocks_are_scaled_per_channel_and_statuses_pass_through():
    from audio.capture import Block
    from audio.hearing import Evened

    class Src:
        rate, channels = RATE, 2

        def __iter__(self):
            yield Block(0, np.ones((4, 2), np.float32), RATE)
            yield "lost"

    out = list(Evened(Src(), [20.0, 0.0]))
    assert np.allclose(out[0].data[:, 0], 10.0) and np.allclose(out[0].data[:, 1], 1.0)
    assert out[1] == "lost"
    assert np.allclose(list(Evened(Src(), [0.0, 0.0]))[0].data, 1.0)

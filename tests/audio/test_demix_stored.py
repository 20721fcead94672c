"""The calibration's stored leakage measurement (``audio.leakage``, written by ``referee
calibrate``) replaces measuring the calibration recording at every replay: the hearing given
it is the hearing measuring the recording, number for number; a recording changed since is
measured again, with a warning, never heard with the old numbers."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

from tests.conftest import assert_close

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"

pytestmark = pytest.mark.skipif(not (DEMO / "seats.wav").is_file(), reason="fixtures/demo/seats.wav not found")


def _hear(session: Path, calibration: Path, measured, rate: int | None = None):
    """(source, warnings, read_all calls) of the replay's hearing of ``session``."""
    import audio.capture
    from audio import hearing

    warnings: list[str] = []
    with mock.patch("audio.capture.read_all", wraps=audio.capture.read_all) as reads:
        source, _ = hearing.open_source(DEMO / "session.mp4", session, warnings, demix=True, rate=rate,
                                        leakage_from=calibration, channels=4, measured=measured)
        source.data
    return source, warnings, reads.call_count


def _state(source):
    return (source.applied, source.leakage.fir, source.leakage.solo_frames, source.speech_db, source.residual_db,
            getattr(source, "residual_leaks_db", None), source.noise_ratio_db, source.data, getattr(source, "unfit", None), getattr(source, "swapped", None))


def _same(a, b):
    """The same hearing: equal, the kernels' last bits apart (the stored numbers were measured on
    another machine; ``tests.conftest.assert_close`` states the tolerances)."""
    assert_close(a, b, "hearing state")


def _stored():
    from session.calibration import load

    return load(DEMO / "calibration.json").audio.leakage


def test_the_stored_measurement_is_the_measurement_of_the_recording():
    from audio.capture import read_all
    from audio.hearing import measure_calibration

    x, rate = read_all(DEMO / "seats.wav")
    # the committed one is not stale (measured on another machine: equal to the kernels' last bits)
    assert_close(measure_calibration(x[:, :4], rate, DEMO / "seats.wav"), _stored(), "audio.leakage")


def test_a_stored_measurement_hears_as_measuring_the_recording_does(tmp_path):
    from audio.capture import read_all
    from audio.synth import write_wav

    x, rate = read_all(DEMO / "seats.wav")
    cut = tmp_path / "cut.wav"  # a cut session: its own estimate would differ from the calibration's
    write_wav(cut, x[5 * rate : 17 * rate], rate)
    for session in (DEMO / "seats.wav", cut):
        measured, w0, reads0 = _hear(session, DEMO / "seats.wav", None)
        stored, w1, reads1 = _hear(session, DEMO / "seats.wav", _stored())
        assert (reads0, reads1) == (1, 0)  # the calibration recording is no longer read
        assert w0 == w1 == []
        assert stored.measured_on == measured.measured_on == str(DEMO / "seats.wav")
        _same(_state(stored), _state(measured))


def test_an_older_file_without_the_pairs_measures_them_on_the_recording_again():
    """``audio.leakage`` without ``residual_leaks_db`` (a file calibrated before it): the stored
    leak paths are used, the per-pair leaks measured on the recording again (one read, a note);
    the hearing is the hearing of a file that has them. Unreadable: every pair is allowed the
    loudest pair's leak (``residual_leaks_db`` None), as before the pairs were measured."""
    from session.errors import MediaError

    old = replace(_stored(), residual_leaks_db=None)
    new, w0, reads0 = _hear(DEMO / "seats.wav", DEMO / "seats.wav", _stored())
    heard, w1, reads1 = _hear(DEMO / "seats.wav", DEMO / "seats.wav", old)
    assert (reads0, reads1) == (0, 1) and w0 == []
    assert len(w1) == 1 and "no per-pair leaks" in w1[0] and "measured on" in w1[0]
    _same(_state(heard), _state(new))
    assert np.isfinite(new.residual_leaks_db).sum() == 12  # (4 seats, each heard alone)
    with mock.patch("audio.capture.read_all", side_effect=MediaError("unreadable")):
        from audio import hearing

        w2: list[str] = []
        blind, _ = hearing.open_source(DEMO / "session.mp4", DEMO / "seats.wav", w2, demix=True,
                                       leakage_from=DEMO / "seats.wav", channels=4, measured=old)
    assert blind.applied and blind.residual_leaks_db is None and blind.residual_db == new.residual_db
    assert len(w2) == 1 and "cannot be read" in w2[0] and "loudest pair's leak" in w2[0]


def test_a_swapped_session_is_found_with_the_stored_measurement_too(tmp_path):
    from audio.capture import read_all
    from audio.synth import write_wav

    x, rate = read_all(DEMO / "seats.wav")
    swapped = tmp_path / "swapped.wav"
    write_wav(swapped, x[:, [0, 2, 1, 3]], rate)
    measured, w0, _ = _hear(swapped, DEMO / "seats.wav", None)
    stored, w1, _ = _hear(swapped, DEMO / "seats.wav", _stored())
    assert measured.swapped == stored.swapped and measured.swapped and w0 == w1
    _same(_state(stored), _state(measured))
    # the pairs follow the seats: the swapped seats' rows and columns exchanged
    from audio.demix import swap_order

    unswapped, _, _ = _hear(DEMO / "seats.wav", DEMO / "seats.wav", _stored())
    order = swap_order(stored.swapped[0], 4)
    assert order != [0, 1, 2, 3]
    assert_close(stored.residual_leaks_db, unswapped.residual_leaks_db[np.ix_(order, order)], "swapped pairs")


def test_a_changed_recording_warns_and_is_measured_again(tmp_path):
    from audio.capture import read_all
    from audio.synth import write_wav

    x, rate = read_all(DEMO / "seats.wav")
    calib = tmp_path / "seats.wav"
    # the same table, the calibration recording replaced since; 3 dB softer: within
    # DriftParams.follow_db, so the session's seats are not moved to their own level
    write_wav(calib, x * 0.7, rate)
    fresh, w0, reads0 = _hear(DEMO / "seats.wav", calib, None)
    stale, w1, reads1 = _hear(DEMO / "seats.wav", calib, _stored())
    assert reads1 == reads0 == 1
    assert w0 == [] and len(w1) == 1 and "changed since the table was calibrated" in w1[0] and str(calib) in w1[0]
    _same(_state(stale), _state(fresh))  # the recording's own numbers, not the stored ones
    assert stale.speech_db != list(_stored().speech_db)  # (3 dB softer: the test can tell them apart)


def test_other_parameters_warn_and_are_measured_again(tmp_path):
    calib = tmp_path / "seats.wav"
    shutil.copyfile(DEMO / "seats.wav", calib)  # the same bytes: the fingerprint fits
    m = _stored()
    other = replace(m, params=tuple((k, 256 if k == "hop" else v) for k, v in m.params))
    fresh, _, _ = _hear(DEMO / "seats.wav", calib, None)
    heard, w, reads = _hear(DEMO / "seats.wav", calib, other)
    assert reads == 1 and len(w) == 1 and "other parameters" in w[0]
    _same(_state(heard), _state(fresh))
    assert _hear(DEMO / "seats.wav", calib, m)[1:] == ([], 0)  # a copy of the file is the same file


def test_a_session_heard_on_fewer_channels_measures_as_before(tmp_path):
    """A stored block for 4 channels does not fit a 3-channel session: the recording is
    measured as it always was (its first 3 channels), without a warning of its own."""
    from audio import hearing

    w0: list[str] = []
    w1: list[str] = []
    a, _ = hearing.open_source(DEMO / "session.mp4", DEMO / "seats.wav", w0, demix=True, channels=3,
                               leakage_from=DEMO / "seats.wav")
    b, _ = hearing.open_source(DEMO / "session.mp4", DEMO / "seats.wav", w1, demix=True, channels=3,
                               leakage_from=DEMO / "seats.wav", measured=_stored())
    assert a.channels == b.channels == 3 and w0 == w1
    _same(_state(b), _state(a))

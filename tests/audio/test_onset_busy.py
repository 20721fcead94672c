"""The busy floor (``audio.busy_floor``, ``OnsetParams.busy_*``): shouts heard in babble.

Real voices (``../shared/data/speech``, read in place, as ``benchmarks/bench_vad.py`` lays them
out): FSDD digits said over six real Japanese talkers' babble 10 dB below the digits' active
level. Skipped with a message when the data is absent.
"""

from dataclasses import replace

import numpy as np
import pytest

from audio.busy_floor import BusyFloor
from audio.capture import Block
from audio.onset import OnsetDetector, OnsetParams

RATE = 16000


def _bench():
    from benchmarks import bench_vad

    if not (bench_vad.SPEECH / "labels.csv").is_file():
        pytest.skip(f"real speech clips not found at {bench_vad.SPEECH} (../shared/data/speech)")
    return bench_vad


def _babble_channel(digits: int, seconds: float = 0.0, seed: int = 7):
    """``digits`` FSDD clips (every 13th of the 240: all three speakers) laid 2.5 s apart after
    2 s, or ``seconds`` of babble alone; babble 10 dB under the digits' median active level and
    the bench's hiss. Returns the channel and the true onsets (s)."""
    b = _bench()
    shouts = b.rows(("keyword",), "en")[::13][:digits]
    clips = [b.read_clip(b.SPEECH / r["file"]) for r in shouts]
    ja = b.rows(("other", "sentence"), "ja")
    rng = np.random.default_rng(seed)
    talkers = [b.read_clip(b.SPEECH / ja[i]["file"]) for i in rng.choice(len(ja), b.BABBLE_TALKERS, replace=False)]
    level = float(np.median([b.active_rms(c) for c in clips])) if clips else 10 ** (-22.8 / 20)
    if clips:
        speech, truths = b.lay_out(clips)
    else:
        speech, truths = np.zeros(int(seconds * RATE)), np.zeros(0)
    n = len(speech)
    x = speech + b.hiss(n, rng) + level * 10 ** (-b.SNR_DB / 20) * b.babble(n, rng, talkers)
    return x.astype(np.float32)[:, None], truths


def _segments(x, params=None, block=320):
    det = OnsetDetector(1, RATE, params)
    segs = []
    for i in range(0, len(x), block):
        segs += det.update(Block(i, x[i : i + block], RATE))
    return segs + det.flush()


def _found(truths, segs):
    from benchmarks.bench_vad import match

    return match(truths, [s.t for s in segs])


def test_the_params_validate():
    OnsetParams(busy_window_s=None)  # off
    for bad in ({"busy_window_s": 0.0}, {"busy_chunk_s": -0.01}, {"busy_quantile": 1.5}, {"busy_gate_db": -1.0},
                {"busy_offset_db": float("nan")}, {"busy_min_s": 3.0}, {"busy_min_s": 0.001}):
        with pytest.raises(ValueError, match="busy_"):
            OnsetParams(**bad)


def test_the_order_statistic_is_exact_and_frozen_chunks_are_left_out():
    fl = BusyFloor(chunk_frames=2, window_chunks=3, quantile=0.5, min_chunks=2)
    frame = 0
    for energy, frozen in ((1.0, False), (100.0, False), (1e6, True), (1e-3, False), (1e-3, False)):
        for _ in range(2):
            fl.add(energy, frame, frozen)
            frame += 1
    # chunks fed: 1, 100, 1e-3, 1e-3 (1e6 frozen); the last three: 100, 1e-3, 1e-3 -> median 1e-3
    assert fl.value_db == pytest.approx(-30.0)


def test_a_babble_only_channel_gives_no_shout():
    x, _ = _babble_channel(0, seconds=40.0)
    segs = _segments(x)
    start_up = OnsetParams().busy_min_s  # before the busy floor has its first value: the trough floor
    assert [s.t for s in segs if s.t >= start_up] == []
    # the same channel on the trough floor alone: babble is heard as utterances held to the cut
    off = _segments(x, OnsetParams(busy_window_s=None))
    assert len([s for s in off if s.t >= start_up]) >= 5 and any(s.cut for s in off)


def test_shouts_in_babble_are_found_near_their_onsets():
    x, truths = _babble_channel(18)
    errors, extra = _found(truths, _segments(x))
    assert len(errors) >= 17 and extra <= 1
    assert np.median(np.abs(errors)) <= 0.06  # (10 dB of babble hides a word's first ~20 dB: late, not lost)
    off, _ = _found(truths, _segments(x, OnsetParams(busy_window_s=None)))
    assert len(off) <= 12  # the trough floor alone swallows shouts into babble's utterances


def test_blocks_of_any_size_give_the_same_onsets():
    x, _ = _babble_channel(6)
    key = lambda segs: [(s.start, s.end, s.peak_db, s.cut) for s in segs]  # noqa: E731
    # (WebRTC's second opinion, vad_trigger_db, is off here: with blocks shorter than its 30 ms
    # frame it answers before it has heard the run — block-dependent before the busy floor too)
    no_vad = OnsetParams(vad_trigger_db=None)
    want = key(_segments(x, no_vad))
    assert len(want) >= 5 and want != key(_segments(x, replace(no_vad, busy_window_s=None)))  # (the floor acts)
    for block in (16, 97, 1601, 4000):
        assert key(_segments(x, no_vad, block=block)) == want, block
    want = key(_segments(x))
    for block in (1601, 4000):
        assert key(_segments(x, block=block)) == want, block


def test_steady_noise_keeps_the_trough_floor():
    """White noise: the busy floor lies within ``busy_gate_db`` of the trough floor, so the
    segments are those of the detector without it (the steady floor's margins, which read the
    busy floor too, off in both: ``tests/audio/test_onset_steady.py`` tests them)."""
    rng = np.random.default_rng(3)
    b = _bench()
    shouts = b.rows(("keyword",), "en")[5::40][:6]
    clips = [b.read_clip(b.SPEECH / r["file"]) for r in shouts]
    speech, _ = b.lay_out(clips)
    level = float(np.median([b.active_rms(c) for c in clips]))
    x = (speech + level * 10 ** (-b.SNR_DB / 20) * b.white(len(speech), rng)).astype(np.float32)[:, None]
    key = lambda segs: [(s.start, s.end, s.peak_db) for s in segs]  # noqa: E731
    fixed = OnsetParams(steady_gate_db=None)
    assert key(_segments(x, fixed)) == key(_segments(x, replace(fixed, busy_window_s=None)))

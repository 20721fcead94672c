"""Live: a seat whose microphone is dead cancelled from the others by its leak fingerprint,
block by block (``audio.unreferenced.StreamingUnreferenced``), as the replay does offline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from audio import demix, unreferenced
from audio.capture import Block, read_all
from tests.audio.test_listen_attribution import RATE, _calibration, _muted_session

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"


def _stream(stage, x, y, seed=0):
    """Feed raw ``x`` and cancelled ``y`` in blocks of random sizes; the blocks handed on."""
    rng = np.random.default_rng(seed)
    out, k, held = [], 0, []
    while k < len(x):
        n = int(rng.integers(100, 700))
        got = stage.update(Block(k, x[k : k + n], RATE, 0.0), Block(k, y[k : k + n], RATE, 0.0))
        out += got
        k += n
        held.append(min(k, len(x)) - (out[-1].index + len(out[-1].data) if out else 0))
    return out + stage.flush(), held


def test_the_live_fingerprint_cancellation_is_the_offline_one(tmp_path):
    session, s = _muted_session(tmp_path)
    x, _ = read_all(session)
    cal, _ = read_all(_calibration(tmp_path))
    leak = demix.estimate(cal)
    y = leak.demix(x)
    where = unreferenced.live_dead_where(x, RATE)
    assert where[:, 1].all() and not where[:, [0, 2]].any()  # ben's channel is muted throughout
    own = unreferenced.live_dead_where(x, RATE, widen=False)[:, 1]
    offline = unreferenced.cancel_unreferenced(y, leak, 1, where[:, 1], used=leak, own=own)
    assert np.max(np.abs(offline[:, [0, 2]] - y[:, [0, 2]])) > 0.05  # the offline stage does remove ben's leak
    assert np.mean(offline[:, 1] ** 2) > 0.01 * np.mean(s[:, 1] ** 2)  # ... and puts his voice on his channel
    blocks, held = _stream(unreferenced.StreamingUnreferenced(leak, leak, RATE), x, y)
    # the session clock kept: contiguous blocks from sample 0 to the end
    assert blocks[0].index == 0 and all(a.index + len(a.data) == b.index for a, b in zip(blocks, blocks[1:]))
    got = np.concatenate([b.data for b in blocks])
    assert got.shape == x.shape and got.dtype == y.dtype
    assert np.max(np.abs(got - offline)) < 1e-4
    # while the seat is dead the output waits for its frames: bounded (64 ms + a block)
    p = unreferenced.UnreferencedParams()
    assert max(held) <= p.nperseg // 2 + p.hop + 96 + int(p.live_frame_s * RATE) + 700


def test_with_every_channel_alive_the_live_stage_holds_nothing_back(tmp_path):
    session, s = _muted_session(tmp_path, overlap=False)
    x, _ = read_all(session)
    x = x.copy()
    from tests.audio.test_listen_attribution import _mix

    x[:, 1] = _mix(s, np.random.default_rng(8))[:, 1]  # ben's microphone working
    leak = demix.estimate(read_all(_calibration(tmp_path))[0])
    y = leak.demix(x)
    stage = unreferenced.StreamingUnreferenced(leak, leak, RATE)
    for k in range(0, len(x), 320):
        got = stage.update(Block(k, x[k : k + 320], RATE, 0.0), Block(k, y[k : k + 320], RATE, 0.0))
        assert len(got) == 1 and got[0].index == k and np.array_equal(got[0].data, y[k : k + 320])
    assert stage.flush() == [] and stage.held_max == 0


def test_a_channel_muted_mid_session_is_cancelled_from_then_on_and_released_after(tmp_path):
    session, s = _muted_session(tmp_path, overlap=False)
    x, _ = read_all(session)
    x = x.copy()
    from tests.audio.test_listen_attribution import _mix

    x[:, 1] = _mix(s, np.random.default_rng(8))[:, 1]
    x[int(1.8 * RATE) : int(2.6 * RATE), 1] = 0.0  # ben's mic muted for his word at 2.0 s
    leak = demix.estimate(read_all(_calibration(tmp_path))[0])
    y = leak.demix(x)
    offline = unreferenced.cancel_unreferenced(y, leak, 1, unreferenced.live_dead_where(x, RATE)[:, 1], used=leak,
                                        own=unreferenced.live_dead_where(x, RATE, widen=False)[:, 1])
    blocks, held = _stream(unreferenced.StreamingUnreferenced(leak, leak, RATE), x, y, seed=3)
    got = np.concatenate([b.data for b in blocks])
    # the same but where the channel went dead: live, up to a block and a frame of it went
    # on before the stage knew (uncancelled there)
    edge = slice(int(1.8 * RATE), int(1.8 * RATE) + 700 + int(unreferenced.UnreferencedParams().live_frame_s * RATE))
    same = np.ones(len(x), bool)
    same[edge] = False
    assert np.max(np.abs(got - offline)[same]) < 1e-4
    word = slice(int(2.05 * RATE), int(2.35 * RATE))
    assert np.mean(got[word, 0] ** 2) < 0.01 * np.mean(y[word, 0] ** 2)  # his leak on aki's mic: -20 dB
    # held back only around the dead stretch: at once before it and again well after it
    assert held[0] == 0 and held[-1] == 0 and max(held) > 0


# ------------------------------------------------ the demo, through the live referee's hearing


def _live_hearing(wav: Path, unreferenced: bool = True):
    """The hearing ``referee live --from-video … --audio WAV`` runs (``audio.hearing.
    demixed_from`` over the calibration recording, then the listener), unpaced."""
    from audio import hearing
    from audio.capture import FileSource
    from calibration import load
    from referee.replay import ReplaySettings, hearing_plan

    cal = load(DEMO / "calibration.json")
    plan = hearing_plan(cal, cal.game, "versus", ReplaySettings(), DEMO / "calibration.json")
    src = FileSource(wav, rate=cal.audio.rate)
    source, _, left = hearing.demixed_from(src, plan.leakage_from, src.channels)
    assert source.cancelled  # (the demo's close microphones cancel)
    if not unreferenced:
        source.unreferenced = None
    source.residual_db = left
    warnings: list[str] = []
    listener = hearing.make_listener(plan, source, warnings)
    events = []
    for block in source:
        events += listener.update(block)
    return events + listener.close_window()


def _words(events, skip=()):
    return sorted((e["player"], round(e["t"]), tuple(e["words"])) for e in events
                  if e["type"] == "shout" and e["player"] not in skip)


@pytest.mark.skipif(not (DEMO / "seats.wav").is_file(), reason="the demo recording is not there")
def test_a_muted_seat_s_leak_heard_live_is_no_neighbour_s_words(tmp_path):
    from scipy.io import wavfile

    x, rate = read_all(DEMO / "seats.wav")
    y = x.copy()
    y[:, 1] = 0.0  # ben's microphone muted
    wav = tmp_path / "ben_muted.wav"
    wavfile.write(wav, rate, (np.clip(y, -1, 1) * 32767).astype(np.int16))
    unchanged = _live_hearing(DEMO / "seats.wav")
    # the unchanged demo, live: the stage changes nothing (nothing is dead)
    assert unchanged == _live_hearing(DEMO / "seats.wav", unreferenced=False)
    muted = _live_hearing(wav)
    assert [(e["state"], e["player"]) for e in muted if e["type"] == "audio_status"] == [("lost", "ben")]
    # every neighbour's word (to the second) as on the unchanged demo, none of ben's leak credited
    assert _words(muted) == _words(unchanged, skip=("ben",))
    # without the stage, ben's leak became the neighbours' words (what this test guards)
    assert _words(_live_hearing(wav, unreferenced=False)) != _words(unchanged, skip=("ben",))

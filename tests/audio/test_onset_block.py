"""The block-vectorised onset detector gives exactly the segments of the frame-by-frame one.

``tests/audio/onset_reference.py`` is the detector as it was (one numpy step per 1 ms
frame); :mod:`audio.onset` now does the vector work once per block. Same input, same
parameters (``refine_closure_s``, added after it, switched off) → the same segments (sample indices, peaks, dominance, cut flags), returned
after the same block, and the same ``earliest_start`` after every block (which decides
when the listener may release an utterance) — over tone bursts and synthetic speech in
babble, 1 to 4 channels, every code path of the parameters, and odd block sizes.
"""

from dataclasses import fields, replace

import pytest

from audio import synth
from audio.capture import Block
from audio.onset import OnsetDetector, OnsetParams
from tests.audio import onset_reference
from tests.audio.test_onset import RATE, hiss_then_burst, table


def _fields(seg) -> tuple:
    """The segment's fields that the reference's segments have (``cut_short`` came later: the
    replay's trimming sets it, never the detector)."""
    return tuple(getattr(seg, f.name) for f in fields(onset_reference.Segment))


def trace(cls, mix, params, block):
    det = cls(mix.shape[1], RATE, params)
    out = []
    for i in range(0, len(mix), block):
        segs = det.update(Block(i, mix[i : i + block], RATE))
        assert not any(getattr(s, "cut_short", False) for s in segs)
        out.append((i, [_fields(s) for s in segs], det.earliest_start()))
    out.append(("flush", [_fields(s) for s in det.flush()], None))
    return out


def assert_same(mix, params=None, blocks=(320,)):
    # the reference predates the closure crossing, the quick end and the VAD's second opinion:
    # off here (tested in test_onset.py and test_vad.py)
    # and the busy floor (tests/audio/test_onset_busy.py)
    params = replace(params or OnsetParams(), refine_closure_s=0.0, quick_end_s=0.0, vad_trigger_db=None,
                     busy_window_s=None)
    for block in blocks:
        ref = trace(onset_reference.OnsetDetector, mix, params, block)
        new = trace(OnsetDetector, mix, params, block)
        assert new == ref, f"block {block}"
    return [s for _, segs, _ in ref for s in segs]


PARAMS = [
    None,
    OnsetParams(refine=False),
    OnsetParams(hf_band_hz=(7000.0, 7000.0)),  # walk in the voice band only
    OnsetParams(remove_room=True, dip_s=0.0),
    OnsetParams(max_utterance_s=0.1, hangover_s=0.05),
    OnsetParams(smooth_s=0.012, hop_s=0.002, refine_max_s=0.05),
]


@pytest.mark.parametrize("params", PARAMS, ids=range(len(PARAMS)))
@pytest.mark.parametrize("seats", [1, 2, 3, 4])
def test_tone_bursts_give_the_same_segments(params, seats):
    onsets = [(0, 0.3), (seats - 1, 0.35), (min(1, seats - 1), 1.1), (0, 1.13)]
    for seed, snr in ((0, 30), (1, 12), (2, 40)):
        segs = assert_same(table(onsets, seats=seats, seconds=1.8, snr_db=snr, seed=seed), params)
        if params is None and snr >= 30:
            assert segs  # the comparison is not vacuous
    assert_same(hiss_then_burst(seats=max(2, seats)), params)


def test_block_size_does_not_matter():
    mix = table([(0, 0.5), (2, 0.55), (3, 1.2)], seconds=2.0, snr_db=20, seed=4)
    segs = assert_same(mix, None, blocks=(1, 7, 16, 333, 1601, len(mix)))
    assert [s[0] for s in sorted(segs, key=lambda s: s[1])] == [0, 2, 3]  # channels in onset order


def test_a_mono_stream_with_a_long_smoothing_window():
    # one column: the smoothing sums a window pairwise like numpy's mean (≥ 8 frames)
    mono = table([(0, 0.4), (0, 1.2)], seats=1, seconds=1.8, snr_db=25, seed=5)
    assert_same(mono, OnsetParams(smooth_s=0.012, refine=False), blocks=(320, 5))
    assert_same(mono, OnsetParams(smooth_s=0.012), blocks=(320,))


def test_synthetic_speech_in_babble_gives_the_same_segments():
    sentences = [synth.say(s, "ja", v) for v, s in enumerate(["今日はいい天気ですね。", "お茶を飲みましょう。"])]
    pairs = [("タコ", 3, "イカ", 1), ("イカタコ", 0, "タコ", 2), ("サルベージ", 4, "ゴ", 0)]
    heard = 0
    for k, (wa, va, wb, vb) in enumerate(pairs):
        a, b = synth.Shout(k % 4, synth.say(wa, "ja", va), 0.4), synth.Shout((k + 2) % 4, synth.say(wb, "ja", vb), 0.43 + 0.01 * k)
        for snr in (20, 10):
            mix = synth.mix_table(4, 2.0, [a, b], snr_db=snr, noise="babble", seed=k, babble_sentences=sentences)
            heard += len(assert_same(mix, None, blocks=(320, 97)))
    assert heard >= 6


@pytest.mark.parametrize("kernel", [True, False], ids=["kernel", "public"])
def test_the_band_filter_is_scipys_sosfilt_bit_for_bit(kernel, monkeypatch):
    """:class:`audio.onset._BandPass` (scipy's compiled kernel called directly, or the public
    function where that is missing) gives the very numbers of ``signal.sosfilt`` with its
    state carried, block after block, over blocks of uneven sizes."""
    import numpy as np
    from scipy import signal

    from audio import onset

    if not kernel:
        monkeypatch.setattr(onset, "_SOSFILT_KERNEL", None)
    elif onset._SOSFILT_KERNEL is None:
        pytest.skip("this scipy has no scipy.signal._sosfilt kernel: the public function is used")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5000, 3)) * np.array([1.0, 1e-3, 30.0])
    sos = signal.butter(2, [300.0, 6000.0], btype="bandpass", fs=RATE, output="sos")
    band, zi = onset._BandPass(sos, 3), np.zeros((sos.shape[0], 2, 3))
    a = 0
    for n in (320, 1, 17, 1000, 3662):
        want, zi = signal.sosfilt(sos, x[a : a + n], axis=0, zi=zi)
        got = band(x[a : a + n])
        assert got.shape == want.shape and np.array_equal(got, want)
        a += n
    assert a == len(x) and np.abs(want).max() > 0

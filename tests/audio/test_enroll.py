"""The voice-enrollment verifier: DTW over log-mel frames against a player's own takes."""

import json

import numpy as np
import pytest

from audio import enroll, synth
from tests.audio.conftest import SEATS

CALLS = [("イカ", "ika"), ("タコ", "tako"), ("ゴ", "5"), ("ジュウ", "10"), ("ハチ", "8")]
#: the tests of the templates' mechanism use the margin the synthetic voices allow (their takes
#: are 1.25 and more apart); the default (``Enrollment.min_margin``) is set on real voices
SYNTHETIC_MARGIN = 0.3


@pytest.fixture(scope="module")
def enrolled():
    e = enroll.Enrollment(synth.RATE, min_margin=SYNTHETIC_MARGIN)
    for text, token in CALLS:
        for speed in (0.9, 1.1):  # two other takes of the same voice
            e.add("dai", (token,), enroll.trim(synth.say(text, "ja", 1, speed=speed), synth.RATE))
    return e


def test_dtw_is_zero_on_itself_and_symmetric():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((30, 24)), rng.standard_normal((41, 24))
    assert enroll.dtw(a, a) == 0.0
    assert enroll.dtw(a, b) == pytest.approx(enroll.dtw(b, a))



def _dtw_cell_by_cell(a, b):
    """The textbook recursion, one cell at a time (the reference the fast walk must equal)."""
    cost = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2))
    n, m = cost.shape
    acc = np.full((n + 1, m + 1), np.inf)
    acc[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            acc[i, j] = cost[i - 1, j - 1] + min(min(acc[i - 1, j - 1], acc[i - 1, j]), acc[i, j - 1])
    return float(acc[n, m] / (n + m))


def test_dtw_equals_the_cell_by_cell_recursion_bit_for_bit():
    rng = np.random.default_rng(3)
    for n, m in [(1, 1), (1, 7), (7, 1), (2, 2), (30, 41), (41, 30), (55, 12)]:
        a, b = rng.standard_normal((n, 80)), rng.standard_normal((m, 80))
        assert enroll.dtw(a, b) == _dtw_cell_by_cell(a, b), (n, m)

def test_short_calls_are_recognised_from_the_players_own_takes(enrolled):
    """Each call is named from the player's takes; at the default margin (set on real voices)
    the verifier names it or abstains (the speech model then reads it) — never another call."""
    from dataclasses import replace

    rng = np.random.default_rng(1)
    strict = replace(enrolled, min_margin=enroll.Enrollment.min_margin)
    for text, token in CALLS:
        clip = synth.say(text, "ja", 1)
        noisy = clip + 0.003 * rng.standard_normal(len(clip)).astype(np.float32)
        assert enrolled.verify("dai", noisy).tokens == (token,), text
        assert strict.verify("dai", noisy).tokens in (None, (token,)), text


def test_other_speech_is_not_a_call(enrolled):
    sentence = synth.say("今日はいい天気ですね。", "ja", 1)
    verdict = enrolled.verify("dai", sentence)
    assert verdict.tokens is None and verdict.distance > enrolled.max_distance


def test_listen_with_an_enrollment_folder_uses_the_verifier(run_cli, tmp_path):
    folder = tmp_path / "enroll" / "dai"
    folder.mkdir(parents=True)
    for text, token in CALLS:
        for k, speed in enumerate((0.9, 1.1)):
            synth.write_wav(folder / f"{token}.{k}.wav", synth.say(text, "ja", 1, speed=speed))
    mix = synth.mix_table(4, 2.0, [synth.Shout(3, synth.say("ゴ", "ja", 1), 0.5)], snr_db=40, seed=9)
    wav = synth.write_wav(tmp_path / "table.wav", mix)
    result = run_cli("listen", "--wav", wav, "--seats", ",".join(SEATS), "--game", "ikatako", "--enroll", tmp_path / "enroll", "--json")
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(e["player"], e["words"]) for e in events] == [("dai", ["5"])]
    # (referee listen runs Whisper by default: the engine's words are kept as engine_words)
    assert ("vosk_words" in events[0] or "engine_words" in events[0]) and events[0]["enrolled"]["distance"] < 5.0


def test_an_empty_enrollment_folder_is_one_clear_error(tmp_path):
    from session.errors import CalibrationError

    with pytest.raises(CalibrationError, match="no enrollment takes"):
        enroll.from_folder(tmp_path)


def test_a_noisy_utterance_is_compared_through_its_noise(enrolled):
    rng = np.random.default_rng(4)
    clip = synth.say("ゴ", "ja", 1).astype(np.float64)
    level = np.sqrt(np.mean(clip[np.abs(clip) > 0.1 * np.abs(clip).max()] ** 2))
    noise = rng.standard_normal(len(clip) + synth.RATE) * level * 10 ** (-8 / 20)
    before, noisy = noise[: synth.RATE], clip + noise[synth.RATE :]
    plain = enrolled.verify("dai", noisy)
    said = enrolled.features(noisy, before)
    assert said.noise is not None  # 8 dB: adapted
    adapted = enrolled.verify("dai", feats=said)
    assert adapted.tokens == ("5",) and adapted.distance < plain.distance
    # a quiet utterance is compared as before (the features are the plain ones)
    quiet = enrolled.features(clip, np.zeros(synth.RATE) + 1e-6 * rng.standard_normal(synth.RATE))
    assert quiet.noise is None
    assert enrolled.verify("dai", feats=quiet) == enrolled.verify("dai", clip)
    assert enrolled.voice_distances(("5",), feats=quiet) == enrolled.voice_distances(("5",), clip)


@pytest.fixture(scope="module")
def numbers():
    e = enroll.Enrollment(synth.RATE, min_margin=SYNTHETIC_MARGIN)
    for text, token in (("ヨン", "4"), ("ゴ", "5"), ("ニ", "2"), ("イチ", "1")):
        for speed in (0.9, 1.1):
            e.add("dai", (token,), enroll.trim(synth.say(text, "ja", 1, speed=speed), synth.RATE))
    return e


def _in_noise(text, cut_s, seed):
    """``text`` in white noise 10 dB below it, its detector end ``cut_s`` early ->
    (utterance, the noise before it, what follows it)."""
    rng = np.random.default_rng(seed)
    clip = enroll.trim(synth.say(text, "ja", 1), synth.RATE).astype(np.float64)
    level = np.sqrt(np.mean(clip[np.abs(clip) > 0.1 * np.abs(clip).max()] ** 2))
    full = np.concatenate([clip, np.zeros(int(0.1 * synth.RATE))])
    noise = rng.standard_normal(len(full) + synth.RATE) * level * 10 ** (-10 / 20)
    noisy, end = full + noise[synth.RATE:], len(clip) - int(cut_s * synth.RATE)
    return noisy[:end], noise[: synth.RATE], noisy[end:]


def test_in_noise_a_word_whose_soft_end_the_detector_cut_is_heard_with_what_follows(numbers):
    said, before, after = _in_noise("ヨン", 0.1, seed=0)  # its ン under the noise, cut
    assert numbers.verify("dai", feats=numbers.features(said, before)).tokens != ("4",)
    assert numbers.verify("dai", feats=numbers.features(said, before, after)).tokens == ("4",)
    # a word the detector ended where it ended: the same verdict with what follows it
    said, before, after = _in_noise("ゴ", 0.0, seed=0)
    plain = numbers.verify("dai", feats=numbers.features(said, before))
    assert plain.tokens == ("5",)
    assert numbers.verify("dai", feats=numbers.features(said, before, after)) == plain
    # in quiet nothing follows the word into the comparison
    clip = synth.say("ゴ", "ja", 1)
    quiet = numbers.features(clip, np.full(synth.RATE, 1e-6), np.ones(1600))
    assert quiet.longer == () and numbers.verify("dai", feats=quiet) == numbers.verify("dai", clip)

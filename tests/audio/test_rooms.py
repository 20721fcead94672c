"""Enrolled takes heard through rooms (audio.rooms): a session recorded in another room than
the calibration compares its words with each take as a reverberant room would carry it too."""

import numpy as np
import pytest

from audio import enroll, rooms, synth, voices
from audio.takes import write_take


def test_a_response_is_the_direct_path_then_a_tail_at_its_ratio():
    room = rooms.RoomParams(0.5, 8.0, 7)
    h = rooms.response(room, 16000)
    assert h[0] == 1.0 and len(h) == int(round(1.2 * 0.5 * 16000))
    assert 10 * np.log10(1.0 / np.sum(h[1:] ** 2)) == pytest.approx(8.0, abs=1e-6)
    assert np.array_equal(h, rooms.response(room, 16000))  # seeded: the same on every run
    early, late = np.sum(h[1:800] ** 2), np.sum(h[-800:] ** 2)
    assert late < early * 1e-4  # it decays


def test_a_room_out_of_range_is_one_clear_error():
    with pytest.raises(ValueError, match=r"RoomParams\.rt60_s must be > 0"):
        rooms.RoomParams(0.0, 8.0, 1)


def test_a_reverberant_word_is_nearer_its_takes_heard_through_rooms():
    """The same word carried by a long echo: compared with the dry takes alone it stands far
    from them; with the takes heard through the rooms it stands nearer its own call."""
    dry = enroll.Enrollment(synth.RATE, min_margin=0.3)
    wet = enroll.Enrollment(synth.RATE, min_margin=0.3)
    for text, token in [("イカ", "ika"), ("タコ", "tako"), ("サルベージ", "salvage")]:
        for speed in (0.9, 1.1):
            take = enroll.trim(synth.say(text, "ja", 1, speed=speed), synth.RATE)
            for e in (dry, wet):
                e.add("dai", (token,), take)
            for heard in rooms.reverberant(take, synth.RATE):
                wet.add("dai", (token,), heard)
    word = synth.say("タコ", "ja", 1)
    echo = rooms.reverberant(word, synth.RATE, (rooms.RoomParams(0.6, 6.0, 99),))[0]
    far, near = dry.verify("dai", echo), wet.verify("dai", echo)
    assert near.nearest == ("tako",)
    assert near.distance < far.distance


def test_from_folder_enrols_each_take_once_per_room(tmp_path):
    take = synth.say("イカ", "ja", 1)
    for player in ("aki", "ben"):
        (tmp_path / player).mkdir()
        write_take(tmp_path / player / "ika.1.wav", take, synth.RATE)
    plain = voices.from_folder(tmp_path)
    through = voices.from_folder(tmp_path, rooms=rooms.ROOMS)
    assert [len(plain.templates[p]) for p in ("aki", "ben")] == [1, 1]
    assert [len(through.templates[p]) for p in ("aki", "ben")] == [1 + len(rooms.ROOMS)] * 2

"""The report's unclear section lists each unclear item with its evidence — the seat's audio
clip (a WAV that plays), the frames at the card and at the observation, the seat crop — and
the ``--decide`` line that settles it; evidence that is absent is said in words.

Cheap: a hand-made replay result over the first 8 s of the bundled demo (fixtures/demo),
its card 1 verdict as the no-enrollment replay judges it (ben's and dai's words unclear)."""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import re
import wave
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from referee import report, report_media, report_unclear
from referee.replay import Replay
from session.calibration import load
from tests.conftest import FIXTURES

DEMO = FIXTURES / "demo"
VERDICT = {"type": "verdict", "t": 2.0, "card": "3", "by": "aki", "expected": {"hands": "none", "say": ["3"]},
           "troubles": [], "first": None, "tie": [], "correct": ["aki", "chie"], "wrong": [], "missed": [],
           "times": {"aki": 0.78, "chie": 0.85}, "margin": 0.07, "why": {}, "unsettled": False, "taken_by": None,
           "discarded": True, "penalties": {}, "effects": [],
           "unclear": {"ben": "heard a shout at +0.520 s, the word was unclear",
                       "dai": "heard a shout at +0.920 s, the word was unclear"}, "first_unclear": True}


def _events() -> list[dict]:
    """The demo's truth up to 5 s, ben's and dai's words not made out."""
    lines = [json.loads(x) for x in (DEMO / "truth.jsonl").read_text(encoding="utf-8").splitlines()]
    events = [e for e in lines[1:] if e["t"] < 5.0]
    for e in events:
        if e["type"] == "shout" and e["player"] in ("ben", "dai"):
            e["words"] = []
    return events


def _result(tmp_path: Path, *, media: bool = True, dai_channel: bool = True) -> Replay:
    cal = load(DEMO / "calibration.json")
    if not dai_channel:
        cal = dataclasses.replace(cal, seats=tuple(dataclasses.replace(s, channel=None) if s.name == "dai" else s
                                                   for s in cal.seats))
    header = {"game": "ikatako", "mode": "versus", "players": ["aki", "ben", "chie", "dai"],
              "options": {"window": 3.0}}
    return Replay(video=DEMO / "session.mp4" if media else tmp_path / "none.mp4",
                  audio=DEMO / "seats.wav" if media else None, out=tmp_path, record=tmp_path / "session.jsonl",
                  header=header, events=_events(), judgement=SimpleNamespace(lines=[VERDICT]), landmarks={},
                  warnings=[], duration=5.0, elapsed={}, calibration=cal)


def _unclear_section(page: str) -> str:
    return page[page.index('<h2 id="unclear">'):page.index("<h2>Timeline</h2>")]


def _items(section: str) -> dict[str, str]:
    """Each item's HTML by player."""
    blocks = section.split('<div class="unclear-item">')[1:]
    return {re.search(r"<b class=unclear>(\w+)</b>", b).group(1): b for b in blocks}


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    return report.build_html(_result(tmp_path_factory.mktemp("unclear"), dai_channel=False))


def test_each_item_has_its_seat_clip_frames_crop_and_decide_line(page):
    section = _unclear_section(page)
    items = _items(section)
    assert sorted(items) == ["ben", "dai"]
    assert section.count('<section class="unclear-card" id="unclear1">') == 1
    card_frame = section.split('<div class="unclear-item">')[0]
    assert card_frame.count("data:image/jpeg") == 1 and "The card appears (2.000 s)" in card_frame
    ben = items["ben"]
    wav = base64.b64decode(re.search(r'<audio controls[^>]* src="data:audio/wav;base64,([^"]+)"', ben).group(1))
    with wave.open(io.BytesIO(wav)) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, report_unclear.CLIP_RATE)
        # from 0.3 s before the card (2.0 s) to the shout (2.52 s) + 1.5 s, inside the 3 s window
        assert w.getnframes() / w.getframerate() == pytest.approx(2.52 + 1.5 - (2.0 - 0.3), abs=0.002)
    assert ben.count("data:image/png") == 1  # the clip's waveform
    assert ben.count("data:image/jpeg") == 2  # the frame at the shout and the seat crop
    assert "At the shout's onset (2.520 s, +0.520 s from the card)" in ben
    assert "<code>referee judge session.jsonl --decide 1:ben=correct</code>" in ben
    assert "<code>referee judge session.jsonl --decide 1:ben=wrong</code>" in ben


def test_an_item_whose_player_has_no_audio_says_so(page):
    dai = _items(_unclear_section(page))["dai"]
    assert "<audio" not in dai
    assert "No audio clip: the calibration gives dai no microphone channel." in dai
    assert dai.count("data:image/jpeg") == 2 and "--decide 1:dai=correct" in dai


def test_without_video_or_audio_the_items_are_listed_with_what_is_absent(tmp_path):
    result = _result(tmp_path, media=False)
    items = report_unclear.unclear_items(report.card_views(result), result.events)
    audio = report_unclear.SeatAudio(None, 0, {}, result.events)
    section = report_unclear.section(items, result, {}, audio)
    assert "data:" not in section
    assert section.count("No audio clip: the session has no audio recording.") == 2
    assert "No video frame at the card (2.000 s)." in section
    assert "No video frame at the shout's onset (2.920 s)." in section
    assert "--decide 1:ben=wrong" in section and "--decide 1:dai=wrong" in section


@pytest.mark.parametrize("reason, want", [
    ("heard a shout at +0.520 s, the word was unclear", (2.52, "the shout's onset")),
    ("hand unclear: right hand up at +0.600 s, confidence 0.35 (below 0.5)", (2.6, "the hand event")),
    ("was still speaking when the card appeared (from 1.80 s): the word unclear", (1.8, "the shout's onset")),
    ("not heard: audio missing from 1.50 s (unplugged); no penalty", (2.0, "the card's appearance")),
])
def test_the_observation_is_the_moment_the_reason_names(reason, want):
    events = [{"type": "shout", "player": "ben", "t": 2.521, "words": []}]
    t, what = report_unclear.observation(reason, 2.0, 2.0, "ben", events)
    assert what == want[1]
    assert t == pytest.approx(2.521 if "shout at" in reason else want[0])


def test_the_cards_waveforms_are_read_on_the_audio_clock(tmp_path, monkeypatch):
    """The events are on the video clock; the recording's samples on the audio clock, the
    calibration's ``av_offset`` earlier: each card's waveforms (and the unclear clips) are
    cut that much earlier."""
    result = _result(tmp_path)
    result = dataclasses.replace(result, calibration=dataclasses.replace(result.calibration, av_offset=0.25))
    calls = []
    real = report.waveform
    spy = lambda *a, **k: calls.append((a[2:5], "width" in k)) or real(*a, **k)  # noqa: E731
    monkeypatch.setattr(report, "waveform", spy)  # the cards' waveforms
    monkeypatch.setattr(report_media, "waveform", spy)  # the unclear clips'

    report.build_html(result)
    per_card = [c for c, clip in calls if not clip]  # (the unclear clips give their own width)
    assert len(per_card) == 4 and len(calls) > 4  # one per seat; the window ends with the 5 s result
    assert all(c == pytest.approx((2.0 - report.WAVE_BEFORE_S - 0.25, 5.0 - 0.25, 2.0 - 0.25), abs=0.01) for c in per_card)


def test_a_room_microphone_item_plays_the_room_with_every_word_marked():
    """One laptop: no seat has a channel; the clip is the room's sound (the channels averaged,
    as the referee heard it) and marks each word with the seat it was credited to, or ?."""
    rate = 16000
    samples = np.zeros((rate * 4, 2), np.float32)
    samples[int(2.5 * rate):int(2.8 * rate), 0] = 0.4  # a word on the left channel only
    events = [{"type": "shout", "player": None, "t": 2.5, "t_end": 2.8, "words": ["tako"], "uncredited": "x"},
              {"type": "shout", "player": "aki", "t": 2.9, "t_end": 3.1, "words": ["ika"]}]
    audio = report_unclear.SeatAudio(samples, rate, {"aki": None, "ben": None}, events, room=True)
    assert audio.channel_of("ben") == 0 and audio.samples.shape == (rate * 4, 1)
    assert float(audio.samples[int(2.6 * rate), 0]) == pytest.approx(0.2)
    item = report_unclear.UnclearItem(number=1, verdict={}, player="ben", reason="not heard", card_t=2.0,
                                      window_end=5.0, observed=2.0, what="the card's appearance")
    html = report_unclear._clip_html(item, audio)
    assert "<audio" in html and "The room microphone" in html
    # without room, the same seat has no clip and says why
    plain = report_unclear.SeatAudio(samples, rate, {"aki": None, "ben": None}, events)
    assert "no microphone channel" in report_unclear._clip_html(item, plain)


def test_the_reports_frames_come_from_its_one_pass_and_only_an_unforeseen_time_is_decoded(monkeypatch):
    calls = []
    monkeypatch.setattr(report, "_frames_at", lambda video, times: calls.append(list(times)) or {t: np.full((2, 2, 3), 7, np.uint8) for t in times})
    frames = {1.0: np.zeros((2, 2, 3), np.uint8), 2.0: np.ones((2, 2, 3), np.uint8)}
    got = report._decoded(frames, Path("v.mp4"), [2.0, 1.0])
    assert calls == [] and got[2.0][0, 0, 0] == 1 and got[1.0][0, 0, 0] == 0
    got = report._decoded(frames, Path("v.mp4"), [1.0, 3.5])
    assert calls == [[3.5]] and got[3.5][0, 0, 0] == 7 and 3.5 in frames  # decoded once, then kept

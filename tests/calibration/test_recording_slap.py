"""``calibrate --from-video``: the recording's slap gives the audio-video offset, and the
camera checks run on it, as in the guided calibration."""

from __future__ import annotations

import wave

import numpy as np
import pytest

from calibration import recording, steps
from vision import degrade
from vision.contact import slap_clip

RATE = 16000


def _slap_recording(tmp_path, offset: float, t_contact: float = 1.0123, size=(640, 480)):
    """A recording of an empty table, then one slap landing at ``t_contact`` on the video
    clock; its sound starts ``offset`` earlier on the audio clock (video late by ``offset``)."""
    frames = [img for _, img in slap_clip(t_contact, size=size, seconds=2.0, table_y=int(size[1] * 0.69),
                                         fall_px=int(size[1] * 0.46))]
    video = tmp_path / "slap.mp4"
    degrade.reencode(frames, video, crf=16, preset="veryfast")
    rng = np.random.default_rng(3)
    x = rng.normal(0, 0.002, 3 * RATE)
    n = int(round((t_contact - offset) * RATE))
    x[n:n + 400] += 0.5 * np.exp(-np.arange(400) / 60) * np.sign(np.sin(np.arange(400) * 0.7) + 0.1)
    audio = tmp_path / "slap.wav"
    with wave.open(str(audio), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(RATE)
        f.writeframes(np.round(np.clip(x, -1, 1) * 32767).astype("<i2").tobytes())
    return video, audio


def _no_pose(image, box):
    return None


@pytest.mark.parametrize("offset", [0.0837, -0.021])
def test_the_slap_in_a_recording_gives_the_audio_video_offset(tmp_path, offset):
    video, audio = _slap_recording(tmp_path, offset)
    res = recording.calibrate_recording(video, audio, "ikatako", ["ann"], (), zones={"field": [0, 200, 640, 480]},
                                        pose=_no_pose)
    assert res.calibration["av_offset"] == pytest.approx(offset, abs=0.005)
    av = [c for c in res.checks if c.step == "av offset"]
    assert av and av[0].level == "ok" and f"{abs(offset) * 1000:.0f} ms" in av[0].message


def test_a_recording_without_a_slap_says_the_offset_is_not_measured(tmp_path):
    video, audio = _slap_recording(tmp_path, 0.05)
    showings = [recording.Showing(0.5, 1.0, card_seen=True)]
    assert recording.find_slap(showings) is None
    off, checks = recording.slap_offset(video, None, np.zeros((RATE, 1), np.float32), RATE)
    assert off is None and checks[0].level == "warn" and "no slap in the recording" in checks[0].message
    # a hand showing before the last card is no slap (it was the hand laying a card)
    early = recording.Showing(0.2, 0.4)
    assert recording.find_slap([early, recording.Showing(0.5, 1.0, card_seen=True)]) is None


def test_a_low_resolution_recording_warns_about_the_camera(tmp_path):
    video, audio = _slap_recording(tmp_path, 0.05, size=(320, 240))
    res = recording.calibrate_recording(video, audio, "ikatako", ["ann"], (), zones={"field": [0, 100, 320, 240]},
                                        pose=_no_pose)
    cam = [c for c in res.checks if c.step == "camera"]
    assert cam and cam[0].level == "warn" and f"below {steps.MIN_CAMERA_WIDTH} px wide" in cam[0].message

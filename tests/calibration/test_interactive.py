"""The guided front end, driven by a fake camera and window: the calibration recording of
the demo table plays as the camera, every prompt is answered with SPACE, the field is
"drawn" by a scripted selectROI. Only highgui and the capture are faked; the steps and
their checks are the real ones."""

from __future__ import annotations


import cv2
import pytest

from calibration import interactive
import rules

IKATAKO_CARDS = rules.get("ikatako").faces


class FakeCamera:
    def __init__(self, path):
        from vision.video import read_frames

        self.frames = read_frames(path)
        self.read_count = 0

    def isOpened(self):
        return True

    def read(self):
        fr = next(self.frames, None)
        if fr is None:
            return False, None
        self.read_count += 1
        return True, fr.image

    def get(self, prop):
        return 10.0 if prop == cv2.CAP_PROP_FPS else 0.0

    def set(self, prop, value):
        return False  # (a recording's size and rate are what they are)

    def release(self):
        pass


@pytest.fixture
def fake_highgui(monkeypatch):
    shown = []
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setattr(interactive, "display_problem", lambda env=None: None)  # no X server needed
    monkeypatch.setattr(cv2, "namedWindow", lambda *a, **k: None)
    monkeypatch.setattr(cv2, "imshow", lambda name, img: shown.append(img.shape))
    monkeypatch.setattr(cv2, "waitKey", lambda *a: 32)  # SPACE to every prompt
    monkeypatch.setattr(cv2, "destroyAllWindows", lambda: None)
    monkeypatch.setattr(cv2, "selectROI", lambda *a, **k: (500, 505, 280, 210))  # the demo's field
    return shown


def test_guided_calibration_with_a_fake_camera(recording, fake_highgui, monkeypatch):
    rec, truth = recording
    cam = FakeCamera(rec / "calibration.mp4")
    monkeypatch.setattr(cv2, "VideoCapture", lambda index, *backend: cam)
    res = interactive.calibrate_camera(0, "ikatako", truth["players"], IKATAKO_CARDS)
    cal = res.calibration
    assert cal["zones"] == {"field": [500, 505, 780, 715]}
    assert all(s["box"][3] == 505 for s in cal["seats"])  # seats end where the play area begins
    assert cal["camera"]["id"] == 0 and cal["camera"]["fps"] == 10.0
    assert set(res.references) == set(IKATAKO_CARDS)
    assert [s["name"] for s in cal["seats"]] == truth["players"]
    assert all(c.level != "fail" for c in res.checks), [str(c) for c in res.checks]
    assert any(c.step == "channels" and "no --audio-device" in c.message for c in res.checks)
    # live needs no audio-video offset (both senses stamped at capture): said, not "not measured"
    (av,) = [c for c in res.checks if c.step == "av offset"]
    assert av.level == "ok" and "stamped at capture on one clock" in av.message
    assert fake_highgui  # the window was drawn


def test_a_camera_that_stops_is_one_clear_error(recording, fake_highgui, monkeypatch):
    from session.errors import DeviceError

    rec, truth = recording
    cam = FakeCamera(rec / "calibration.mp4")
    cam.frames = iter(list(next(cam.frames) for _ in range(30)))  # 3 s of the empty table, then nothing
    monkeypatch.setattr(cv2, "VideoCapture", lambda index, *backend: cam)
    with pytest.raises(DeviceError, match="camera stopped"):
        interactive.calibrate_camera(0, "ikatako", truth["players"], IKATAKO_CARDS)


class FakeSoundDevice:
    """One 4-input USB interface; ``rec`` gives each seat's take of the calibration
    recording in turn (the seat's test word, cut from the rendered recording)."""

    def __init__(self, takes, rate, channels=4, name="USB Audio 4-in"):
        self.takes, self.rate = list(takes), rate
        self.devices = [{"name": name, "index": 0, "hostapi": 0, "max_input_channels": channels,
                         "default_samplerate": float(rate)}]
        self.default = type("Default", (), {"device": [0, -1]})()
        self.recorded = []

    def query_devices(self, device=None, kind=None):
        if device is None and kind is None:
            return self.devices
        if device in (None, 0):
            return self.devices[0]
        raise ValueError(f"Error querying device {device}")

    def query_hostapis(self):
        return [{"name": "ALSA"}]

    def rec(self, frames, samplerate, channels, device, dtype):
        import numpy as np

        take = self.takes.pop(0)[:frames, :channels]
        self.recorded.append((frames, samplerate, channels, device))
        return np.pad(take, ((0, frames - len(take)), (0, 0))).astype(np.float32)

    def wait(self):
        pass


def seat_takes(rec, truth):
    """Each seat's test word as a microphone would record it after SPACE, every channel: from
    0.3 s before its onset to just before the next seat's (the recording has them 0.9 s apart;
    at the table each take is its own), the rest of the take silent."""
    from audio.capture import read_all

    wav, rate = read_all(rec / "calibration.wav")
    times = truth["voice_times"]
    ends = [t - 0.05 for t in times[1:]] + [times[-1] + 0.9]
    return [wav[int((t - 0.3) * rate):int(e * rate)] for t, e in zip(times, ends)], rate


def test_each_player_speaks_and_their_channel_is_found(recording, fake_highgui, monkeypatch):
    """Step 5 at the table: the seats speak on channels (2, 0, 3, 1) of a 4-input interface;
    the map is found from what each player's take was loudest on, not assumed."""
    from audio import capture

    rec, truth = recording
    monkeypatch.setattr(cv2, "VideoCapture", lambda index, *backend: FakeCamera(rec / "calibration.mp4"))
    takes, rate = seat_takes(rec, truth)
    sd = FakeSoundDevice(takes, rate)
    monkeypatch.setattr(capture, "import_sounddevice", lambda: sd)
    res = interactive.calibrate_camera(0, "ikatako", truth["players"], IKATAKO_CARDS, audio_device=0)
    seats = {s["name"]: s["channel"] for s in res.calibration["seats"]}
    assert seats == dict(zip(truth["players"], truth["channels"]))
    assert res.calibration["audio"] == {"device": 0, "rate": rate, "channels": 4}
    assert len(sd.recorded) == 4 and all(r[2] == 4 for r in sd.recorded)
    assert not any(c.level == "fail" for c in res.checks if c.step.startswith("channel"))


def test_a_room_microphone_looks_for_no_channel(recording, fake_highgui, monkeypatch):
    """One laptop: its one microphone is the room's; nobody is asked to speak for a channel,
    the seats' channels stay unknown and the file says it is a room microphone."""
    from audio import capture

    rec, truth = recording
    monkeypatch.setattr(cv2, "VideoCapture", lambda index, *backend: FakeCamera(rec / "calibration.mp4"))
    sd = FakeSoundDevice([], 48000, channels=1, name="Built-in Microphone")
    monkeypatch.setattr(capture, "import_sounddevice", lambda: sd)
    res = interactive.calibrate_camera(0, "ikatako", truth["players"], IKATAKO_CARDS, audio_device=0, room=True)
    assert [s["channel"] for s in res.calibration["seats"]] == [None] * 4
    assert res.calibration["audio"] == {"device": 0, "rate": 48000, "channels": 1}
    assert res.calibration["extra"] == {"room_microphone": True}
    assert sd.recorded == []
    assert any(c.step == "channels" and "room microphone" in c.message for c in res.checks)


def test_the_framing_step_names_the_players_and_the_resolution():
    lines = interactive.framing_lines(["aki", "ben"], 640, 480)
    assert "2 players (aki, ben)" in lines[0]
    assert "640x480" in " ".join(lines) and "1280x720" in " ".join(lines)
    assert "1280x720" not in " ".join(interactive.framing_lines(["aki"], 1920, 1080)).replace("1920x1080", "")


def test_sea_salt_and_paper_asks_one_box_per_players_spread(recording, fake_highgui, monkeypatch):
    """Each player's cards in front of them (``p:NAME:spread``), not a TAKOYAKI griddle."""
    rec, truth = recording
    cam = FakeCamera(rec / "calibration.mp4")
    monkeypatch.setattr(cv2, "VideoCapture", lambda index, *backend: cam)
    asked = []

    class Enough(Exception):
        pass

    def select(img, prompt):
        asked.append(prompt)
        return (10 * len(asked), 400, 300, 700)

    def stop(*a, **k):
        raise Enough

    monkeypatch.setattr(interactive, "_select", select)
    monkeypatch.setattr(interactive.steps, "refine_seats", stop)
    with pytest.raises(Enough):
        interactive.calibrate_camera(0, "seasaltpaper", ["aki", "ben"], ("crab:blue", "mermaid"))
    assert asked == ["2/5 aki's cards in front of them: drag a box, ENTER",
                     "2/5 ben's cards in front of them: drag a box, ENTER"]

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
    monkeypatch.setattr(cv2, "VideoCapture", lambda index: cam)
    res = interactive.calibrate_camera(0, "ikatako", truth["players"], IKATAKO_CARDS)
    cal = res.calibration
    assert cal["zones"] == {"field": [500, 505, 780, 715]}
    assert all(s["box"][3] == 505 for s in cal["seats"])  # seats end where the play area begins
    assert cal["camera"]["id"] == 0 and cal["camera"]["fps"] == 10.0
    assert set(res.references) == set(IKATAKO_CARDS)
    assert [s["name"] for s in cal["seats"]] == truth["players"]
    assert all(c.level != "fail" for c in res.checks), [str(c) for c in res.checks]
    assert any(c.step == "channels" and "no --audio-device" in c.message for c in res.checks)
    assert fake_highgui  # the window was drawn


def test_a_camera_that_stops_is_one_clear_error(recording, fake_highgui, monkeypatch):
    from session.errors import DeviceError

    rec, truth = recording
    cam = FakeCamera(rec / "calibration.mp4")
    cam.frames = iter(list(next(cam.frames) for _ in range(30)))  # 3 s of the empty table, then nothing
    monkeypatch.setattr(cv2, "VideoCapture", lambda index: cam)
    with pytest.raises(DeviceError, match="camera stopped"):
        interactive.calibrate_camera(0, "ikatako", truth["players"], IKATAKO_CARDS)

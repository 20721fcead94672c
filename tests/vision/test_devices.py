"""``vision.devices``: which camera indices open and give a frame, at what size and rate,
and whether that fits a table. OpenCV's capture is faked (no camera on this machine)."""

from __future__ import annotations

import cv2
import numpy as np

from vision import devices


class FakeCapture:
    def __init__(self, opened=True, frame=(720, 1280), fps=30.0):
        self.opened, self.frame, self.fps, self.released = opened, frame, fps, False

    def isOpened(self):
        return self.opened

    def read(self):
        if self.frame is None:
            return False, None
        return True, np.zeros((*self.frame, 3), np.uint8)

    def get(self, prop):
        return self.fps if prop == cv2.CAP_PROP_FPS else 0.0

    def release(self):
        self.released = True


def test_cameras_that_open_and_give_a_frame_are_listed():
    caps = {0: FakeCapture(), 1: FakeCapture(frame=None),  # a V4L2 metadata node: opens, no frame
            2: FakeCapture(opened=False), 3: FakeCapture(frame=(480, 640), fps=0.0)}
    found = devices.list_cameras([0, 1, 2, 3], opener=caps.__getitem__)
    assert [c.to_dict() for c in found] == [{"index": 0, "width": 1280, "height": 720, "fps": 30.0},
                                           {"index": 3, "width": 640, "height": 480, "fps": None}]
    assert all(c.released for c in caps.values() if c.opened)
    assert found[0].verdict() == "fits a table"
    assert found[1].verdict() == "usable (640x480, fps unknown); 1280x720 at 30 fps is better"
    assert devices.CameraInfo(4, 320, 240, 30.0).verdict().startswith("too small (320x240, 30 fps)")


def test_no_camera_here_is_an_empty_list_without_opencv_lines(capfd):
    assert devices.list_cameras([0]) == []  # this machine has no /dev/video0
    assert devices.can_open(0) is False
    err = capfd.readouterr().err
    assert "WARN" not in err and "ERROR" not in err, err

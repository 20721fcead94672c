"""Nothing of MediaPipe's, TFLite's or OpenCV's own logging reaches the terminal: a pose
graph opens its models on threads of its own after the constructor returned, and those
lines ("INFO: Created TensorFlow Lite XNNPACK delegate for CPU.", absl's feedback-manager
warnings) came after the silence had ended. Run in a fresh process: they come once per
process."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

SCRIPT = """
import time
import numpy as np
from vision.hands import PoseEstimator
a = PoseEstimator((0, 0, 200, 200))
b = PoseEstimator((0, 0, 200, 200), video=False)
time.sleep(1.0)  # (the graphs' threads would speak now)
a.estimate(np.zeros((240, 240, 3), np.uint8)); b.estimate(np.zeros((240, 240, 3), np.uint8))
import cv2
from vision.devices import can_open
print("camera", can_open(7))
"""


def test_pose_and_a_missing_camera_write_nothing_on_stderr():
    run = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "camera False"
    assert run.stderr == "", run.stderr

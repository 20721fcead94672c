"""``referee calibrate --camera`` with a DISPLAY whose X server is not there: one line, not
Qt's SIGABRT (Qt aborts the process inside cv2.namedWindow)."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from calibration.interactive import display_problem


def _free_display() -> int:
    n = 77
    while Path(f"/tmp/.X11-unix/X{n}").exists() or Path(f"/tmp/.X{n}-lock").exists():
        n += 1
    return n


def test_a_display_without_x_server_is_one_clear_line(run_cli, monkeypatch, tmp_path):
    n = _free_display()
    monkeypatch.setenv("DISPLAY", f":{n}")
    res = run_cli("calibrate", "--game", "ikatako", "--camera", "0", "--players", "2", "--out", tmp_path)
    assert res.exit_code == 2
    assert res.output == (f"referee: error: no display: no X server answers on DISPLAY=:{n} (no socket "
                          f"/tmp/.X11-unix/X{n}); run it at the table's computer, or record the calibration "
                          "and use --from-video VIDEO --audio SEATS.wav\n")


def test_display_names_are_read():
    assert display_problem({"DISPLAY": "nonsense"}) == "DISPLAY='nonsense' is not a display name like :0 or host:0"
    assert "OpenCV's windows need X" in display_problem({"WAYLAND_DISPLAY": "wayland-0"})
    assert display_problem({}) is None  # no DISPLAY at all: require_display says so itself


def test_a_running_x_server_is_found():
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    n = _free_display()
    proc = subprocess.Popen([xvfb, f":{n}", "-nolisten", "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while display_problem({"DISPLAY": f":{n}"}) is not None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert display_problem({"DISPLAY": f":{n}"}) is None
        assert display_problem({"DISPLAY": f"unix:{n}.0"}) is None
    finally:
        proc.terminate()
        proc.wait(timeout=10)

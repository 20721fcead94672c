"""Write errors: a full disk or /dev/full is one line, and no truncated file is left.

The full disk is a real 64 kB tmpfs (``mount -t tmpfs -o size=64k``), mounted where this
user may mount (root in CI); elsewhere those tests are skipped with the reason.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from referee.outdir import OutputWriteError, write_text_atomic
from referee.preflight import PreflightError, check_output
from tests.conftest import FIXTURES, ROOT

SESSION = FIXTURES / "sessions" / "demo_ikatako_versus.jsonl"


def _tmpfs(folder, options: str):
    """A 64 kB tmpfs mounted on ``folder`` (skips with the reason where mounting is not allowed)."""
    folder.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
                              capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"cannot mount a tmpfs here ({exc})")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode} (needs root)")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=20)


@pytest.fixture
def tiny_disk(tmp_path):
    yield from _tmpfs(tmp_path / "tiny", "size=64k")


def _referee(*args, stdout=None):
    return subprocess.run([sys.executable, "-m", "referee", *map(str, args)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_judge_into_dev_full_is_one_line():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "w") as full:
        done = _referee("judge", SESSION, stdout=full)
    assert done.returncode == 2
    assert done.stderr == "referee: error: cannot write the output: No space left on device\n"


def test_judge_into_a_full_disk_is_one_line(tiny_disk):
    (tiny_disk / "filler").write_bytes(b"\0" * (60 * 1024))
    with pytest.raises(OSError):  # the disk really is full
        (tiny_disk / "filler2").write_bytes(b"\0" * (8 * 1024))
    with open(tiny_disk / "out.txt", "w") as out:
        done = _referee("judge", SESSION, "--json", stdout=out)
    assert done.returncode == 2
    assert done.stderr == "referee: error: cannot write the output: No space left on device\n"


def test_a_report_on_a_full_disk_leaves_no_truncated_file(tiny_disk):
    earlier = write_text_atomic(tiny_disk / "report.html", "<p>the earlier run</p>")
    with pytest.raises(OutputWriteError, match=r"^cannot write .*report.html: No space left on device$"):
        write_text_atomic(tiny_disk / "report.html", "<p>" + "x" * 200_000 + "</p>")
    assert earlier.read_text(encoding="utf-8") == "<p>the earlier run</p>"
    assert sorted(p.name for p in tiny_disk.iterdir()) == ["report.html"]  # no .part left


def test_a_lone_surrogate_does_not_fail_the_report(tmp_path):
    p = write_text_atomic(tmp_path / "report.html", "<p>a\ud800ki</p>")
    assert p.read_bytes() == b"<p>a\\ud800ki</p>"
    mask = os.umask(0o022)
    os.umask(mask)
    assert (p.stat().st_mode & 0o777) == 0o666 & ~mask  # as open() makes it


def test_preflight_refuses_a_disk_without_room(tiny_disk):
    with pytest.raises(PreflightError, match=r"only 64.0 kB free on its disk, a replay needs about 32.0 MB"):
        check_output(tiny_disk / "out")


@pytest.fixture
def read_only_disk(tmp_path):
    yield from _tmpfs(tmp_path / "ro", "size=64k,ro")


def test_preflight_refuses_a_read_only_disk(read_only_disk):
    with pytest.raises(PreflightError, match=r"^--out .*: cannot write in .*ro \(a read-only file system\)$"):
        check_output(read_only_disk / "out")

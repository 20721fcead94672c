"""``referee.outdir.OutputFolder``: one run per folder, whole folders only, nothing lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from referee.outdir import MARKER, OutputBusy, OutputFolder, OutputFolderError
from tests.conftest import ROOT


def _run(out, files: dict[str, str]) -> OutputFolder:
    folder = OutputFolder(out)
    with folder as staging:
        for name, text in files.items():
            (staging / name).write_text(text, encoding="utf-8")
    return folder


def test_a_run_appears_whole_with_its_marker(tmp_path):
    out = tmp_path / "replay"
    folder = _run(out, {"session.jsonl": "a\n", "report.html": "<p>a</p>"})
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, "session.jsonl", "report.html"])
    marker = json.loads((out / MARKER).read_text(encoding="utf-8"))
    assert marker["run"] == folder.run_id and marker["files"] == ["report.html", "session.jsonl"]
    assert marker["pid"] == os.getpid() and marker["started"] <= marker["finished"]
    # nothing but the lock is left beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == [".replay.lock", "replay"]
    # the folder and the files have the permissions open()/mkdir() give (not mkdtemp's 0700)
    mask = os.umask(0o022)
    os.umask(mask)
    assert (out.stat().st_mode & 0o777) == 0o777 & ~mask


def test_no_stale_file_of_an_earlier_run_survives(tmp_path):
    out = tmp_path / "replay"
    _run(out, {"session.jsonl": "old\n", "annotated.mp4": "old video"})
    _run(out, {"session.jsonl": "new\n"})
    assert not (out / "annotated.mp4").exists()
    assert (out / "session.jsonl").read_text(encoding="utf-8") == "new\n"


def test_a_failed_run_leaves_the_earlier_run_untouched(tmp_path):
    out = tmp_path / "replay"
    _run(out, {"session.jsonl": "old\n"})
    with pytest.raises(RuntimeError):
        with OutputFolder(out) as staging:
            (staging / "session.jsonl").write_text("half", encoding="utf-8")
            raise RuntimeError("the replay failed")
    assert (out / "session.jsonl").read_text(encoding="utf-8") == "old\n"
    assert not list(tmp_path.glob(".replay.staging-*"))


def test_final_maps_staging_paths(tmp_path):
    folder = OutputFolder(tmp_path / "r")
    with folder as staging:
        assert folder.final(staging / "report.html") == tmp_path / "r" / "report.html"


def test_a_folder_with_a_persons_files_is_refused_not_replaced(tmp_path):
    out = tmp_path / "docs"
    out.mkdir()
    (out / "thesis.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(OutputFolderError, match=r"holds files that are not a replay's \(thesis.txt\)"):
        _run(out, {"session.jsonl": "x"})
    assert (out / "thesis.txt").read_text(encoding="utf-8") == "mine"


def test_a_file_and_the_current_folder_are_refused(tmp_path, monkeypatch):
    f = tmp_path / "f"
    f.write_text("x", encoding="utf-8")
    with pytest.raises(OutputFolderError, match="is a file"):
        _run(f, {})
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OutputFolderError, match="holds the current folder"):
        _run(tmp_path, {})


_HOLDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from referee.outdir import OutputFolder
    with OutputFolder(sys.argv[1]) as staging:
        (staging / "session.jsonl").write_text("killed run\\n")
        print("ready", flush=True)
        time.sleep(60)
""")


def _holder(out):
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER, str(out)], stdout=subprocess.PIPE, text=True,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout.readline().strip() == "ready"
    return proc


def test_two_runs_into_one_folder_the_second_is_refused(tmp_path):
    out = tmp_path / "replay"
    proc = _holder(out)
    try:
        with pytest.raises(OutputBusy, match=rf"another run \(process {proc.pid}\) is writing there"):
            _run(out, {"session.jsonl": "second\n"})
    finally:
        proc.kill()
        proc.wait()


def test_a_killed_run_leaves_the_earlier_run_untouched_and_its_staging_marked(tmp_path):
    out = tmp_path / "replay"
    _run(out, {"session.jsonl": "earlier\n", "report.html": "earlier"})
    proc = _holder(out)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert (out / "session.jsonl").read_text(encoding="utf-8") == "earlier\n"
    staged = list(tmp_path.glob(".replay.staging-*"))
    assert len(staged) == 1 and (staged[0] / "session.jsonl").read_text() == "killed run\n"
    # the lock died with the process; the next run cleans the killed run's staging up
    _run(out, {"session.jsonl": "next\n"})
    assert (out / "session.jsonl").read_text(encoding="utf-8") == "next\n"
    assert not list(tmp_path.glob(".replay.staging-*"))


def test_killed_between_the_renames_the_earlier_folder_is_put_back(tmp_path):
    out = tmp_path / "replay"
    _run(out, {"session.jsonl": "earlier\n"})
    os.rename(out, tmp_path / ".replay.old-0123456789ab")  # as a kill after the first rename leaves it
    folder = OutputFolder(out)
    with pytest.raises(RuntimeError):
        with folder:
            assert (out / "session.jsonl").read_text(encoding="utf-8") == "earlier\n"
            raise RuntimeError("stop")
    assert (out / "session.jsonl").read_text(encoding="utf-8") == "earlier\n"

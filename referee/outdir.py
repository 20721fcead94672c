"""The output folder of a run (``referee replay --out``), written so that nothing is lost.

``with OutputFolder(out) as staging:`` — the run writes its files into ``staging``, a new
hidden folder beside ``out``; when the block ends normally the staging folder *becomes*
``out`` (the earlier run's folder is moved aside and removed), so ``out`` only ever holds
the files of one complete run:

- **Two runs into one folder**: the second is refused at once (:class:`OutputBusy`, one
  line naming the other run's process), never silently lost. The lock is an ``flock`` on
  ``.<name>.lock`` beside the folder: the kernel releases it when a run dies, however it
  dies, so a killed run never leaves a stale lock.
- **Stale files**: a new run's folder is its own (``annotated.mp4`` of an earlier run with
  ``--video`` does not survive beside a record of a run without it).
- **A failed or killed run** leaves the earlier run's folder untouched. A failure inside the
  block removes the staging folder; a killed run's staging folder stays, named
  ``.<name>.staging-*`` (clearly not a result) and is removed by the next run into ``out``.
- ``.referee-run.json`` in the folder says which run wrote it: ``run`` (an id), ``pid``,
  ``started``/``finished`` (UTC, ISO 8601) and the ``files``.

Decisions: a folder that holds anything but a run's own files (:data:`RUN_FILES`, the
marker, nothing else) is refused rather than replaced, so ``--out ~/Documents`` cannot wipe
a person's files; the folder that holds the current working directory is refused too.
The replacement is two renames (old aside, new in); if a run is killed between them,
``out`` is missing and the old folder lies beside it as ``.<name>.old-*``: the next run
puts it back before it starts.
"""

from __future__ import annotations

import datetime as _dt
import errno
import glob
import json
import os
import shutil
import tempfile
import uuid
from pathlib import Path

from session.errors import RefereeError

#: the files a run may leave in its output folder (anything else there is a person's)
RUN_FILES = frozenset({"session.jsonl", "report.html", "annotated.mp4"})
#: the marker saying which run wrote the folder
MARKER = ".referee-run.json"


class OutputBusy(RefereeError):
    """Another run is writing into the same output folder."""


class OutputFolderError(RefereeError):
    """The output folder cannot be used (not a run's folder, not writable)."""


class OutputWriteError(RefereeError):
    """A file could not be written (a full disk, a lost mount); nothing half-written is left."""


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all: into a temporary file beside
    it, flushed to the disk, then renamed over ``path``. A full disk is one
    :class:`OutputWriteError` line and leaves no truncated file (an earlier ``path`` stays
    as it was). A lone surrogate (no UTF-8 exists for it) is written as its backslash
    escape rather than failing the whole file."""
    path = Path(path)
    data = text.encode("utf-8", "backslashreplace")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
        os.fchmod(fd, 0o666 & ~_umask())  # as open() would make it (mkstemp makes 0600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise OutputWriteError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return path


class OutputFolder:
    """A run's output folder, written through a staging folder (see the module docstring).

    ``OutputFolder(out)`` locks and prepares on ``__enter__`` (returning the staging
    folder) and moves the staging folder into place on a normal exit. ``final(p)`` maps a
    path inside the staging folder to where it will be (for messages and results).
    """

    def __init__(self, path: str | Path, run_files: frozenset[str] | set[str] = RUN_FILES):
        self.path = Path(os.path.abspath(path))
        self.run_files = frozenset(run_files)
        self.parent = self.path.parent
        self.name = self.path.name
        self.run_id = uuid.uuid4().hex[:12]
        self.staging: Path | None = None
        self._lock_fd: int | None = None
        self._started = ""
        #: where a stopped run's record was kept (:meth:`_keep_stopped`), else None
        self.kept: Path | None = None

    # ------------------------------------------------------------------ enter / exit
    def __enter__(self) -> Path:
        if not self.name or self.path == self.path.parent:
            raise OutputFolderError(f"--out {self.path}: not a folder a run can own")
        if self.path.exists() and not self.path.is_dir():
            raise OutputFolderError(f"--out {self.path}: is a file, not a folder")
        cwd = Path(os.path.abspath(os.getcwd()))
        if cwd == self.path or self.path in cwd.parents:
            raise OutputFolderError(f"--out {self.path}: holds the current folder; give a folder of its own")
        try:
            self.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputFolderError(f"--out {self.path}: cannot create {self.parent} ({exc.strerror})") from None
        self._lock()
        try:
            self._recover()
            self._check_owned()
            self._started = _now()
            try:  # os.mkdir, not mkdtemp: the folder gets the usual permissions (umask), not 0700
                staging = self.parent / f".{self.name}.staging-{self.run_id}"
                os.mkdir(staging)
                self.staging = staging
            except OSError as exc:
                raise OutputFolderError(f"--out {self.path}: cannot write in {self.parent} ({exc.strerror})") from None
        except BaseException:
            self._unlock()
            raise
        return self.staging

    def __exit__(self, kind, exc, tb) -> None:
        try:
            if kind is None:
                self._commit()
            elif issubclass(kind, KeyboardInterrupt) and self.staging is not None \
                    and (self.staging / "session.jsonl").is_file():
                self.kept = self._keep_stopped(getattr(exc, "how", "Ctrl-C"))
            elif self.staging is not None:
                shutil.rmtree(self.staging, ignore_errors=True)
        finally:
            self._unlock()

    def final(self, p: str | Path) -> Path:
        """Where a path inside the staging folder will be once the run is in place."""
        p = Path(p)
        if self.staging is not None:
            try:
                return self.path / p.relative_to(self.staging)
            except ValueError:
                pass
        return p

    # ------------------------------------------------------------------ the lock
    def _lock(self) -> None:
        import fcntl

        lock = self.parent / f".{self.name}.lock"
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise OutputFolderError(f"--out {self.path}: cannot write in {self.parent} ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                os.close(fd)
                raise OutputFolderError(f"--out {self.path}: cannot lock it ({exc.strerror})") from None
            other = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise OutputBusy(f"--out {self.path}: another run (process {other}) is writing there; "
                             "wait for it to finish or give another folder") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        self._lock_fd = fd

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the flock
            self._lock_fd = None

    # ------------------------------------------------------------------ before the run
    def _recover(self) -> None:
        """Clean up after a killed run (we hold the lock: nothing of ours is live)."""
        olds = sorted(self.parent.glob(f".{_glob(self.name)}.old-*"))
        if not self.path.exists() and olds:  # killed between the two renames: put it back
            os.rename(olds[-1], self.path)
            olds = olds[:-1]
        for d in olds + sorted(self.parent.glob(f".{_glob(self.name)}.staging-*")):
            shutil.rmtree(d, ignore_errors=True)

    def _check_owned(self) -> None:
        """``out`` is new, empty, or a run's folder (nothing a person put there)."""
        if not self.path.is_dir():
            return
        foreign = sorted(p.name for p in self.path.iterdir() if p.name not in self.run_files and p.name != MARKER)
        if foreign:
            more = f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
            raise OutputFolderError(
                f"--out {self.path}: holds files that are not a replay's ({', '.join(foreign[:3])}{more}); "
                "give a new or empty folder (a run replaces its folder as a whole)")

    # ------------------------------------------------------------------ after the run
    def _keep_stopped(self, how: str) -> Path:
        """A run stopped from outside (Ctrl-C, SIGTERM) keeps its record up to the stop (the
        events are flushed as they are released): into ``out`` when ``out`` holds no earlier
        run, else beside it as ``<name>.stopped`` (an earlier run's complete folder is never
        replaced by a part of one; an earlier ``<name>.stopped`` is). The marker says
        ``"stopped": how``. Returns the folder."""
        assert self.staging is not None
        earlier = self.path.is_dir() and any(self.path.iterdir())
        if not earlier:
            self._commit(stopped=how)
            return self.path
        aside = self.parent / f"{self.name}.stopped"
        if aside.is_dir() and (aside / MARKER).is_file():
            shutil.rmtree(aside, ignore_errors=True)
        if aside.exists():  # (not ours: the record stays in the staging folder, named)
            kept = self.staging
        else:
            self._write_marker(stopped=how)
            os.rename(self.staging, aside)
            kept = aside
        self.staging = None
        return kept

    def _write_marker(self, **extra) -> None:
        assert self.staging is not None
        files = sorted(p.name for p in self.staging.iterdir() if p.name != MARKER)
        marker = {"run": self.run_id, "pid": os.getpid(), "started": self._started, "finished": _now(),
                  "files": files, **extra}
        (self.staging / MARKER).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")

    def _commit(self, **extra) -> None:
        assert self.staging is not None
        self._write_marker(**extra)
        for p in self.staging.iterdir():
            _fsync(p)
        _fsync(self.staging)
        old = None
        if self.path.exists():
            old = self.parent / f".{self.name}.old-{self.run_id}"
            os.rename(self.path, old)
        os.rename(self.staging, self.path)
        _fsync(self.parent)
        self.staging = None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _glob(name: str) -> str:
    return glob.escape(name)


def _fsync(p: Path) -> None:
    """Flush a file or folder to the disk (a crash after the rename keeps whole files)."""
    try:
        fd = os.open(p, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

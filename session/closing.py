"""Stopping what a run started, whatever state each part is in: the clean-up of a run that
failed, often before some of its stages had started.

Why (issue 36): a damaged card reference raised one clear ``MediaError``; the clean-up then
joined the frame reader's thread, which had never started, and Python's ``RuntimeError``
replaced the error — the person saw a traceback, and the hearing process, closed after the
reader, was left running. Two rules, kept here for every stage:

- every closer runs, even after one of them failed: a stage left running holds a core, the
  camera or a file;
- a close that fails while an error is propagating (a ``finally`` or ``__exit__``) never
  replaces that error: it is logged on one line and the first error goes on. With no error
  propagating, the first close failure is raised once every closer has run.
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import Callable

log = logging.getLogger("referee")


def close_all(*closers: Callable[[], object] | None) -> None:
    """Call every closer in order (``None`` or ``False`` ones are skipped: a stage that was
    never made). See the module docstring for what happens when one fails."""
    pending = sys.exc_info()[1]  # (in a finally or __exit__: the error that caused the close)
    first: BaseException | None = None
    for close in closers:
        if not close:
            continue
        try:
            close()
        except BaseException as exc:  # noqa: BLE001 - each closer must run; the first error wins
            if pending is None and first is None:
                first = exc
            else:
                log.warning("referee: while stopping after %s, %s failed too: %s",
                            _name(pending or first), _name(close), exc)
    if first is not None:
        raise first


def join_thread(thread: threading.Thread | None, timeout: float | None) -> None:
    """Join ``thread`` if it was ever started (joining one that was not raises) and is not
    the caller's own."""
    if thread is None or thread.ident is None or thread is threading.current_thread():
        return
    thread.join(timeout)


def stop_process(process, timeout: float) -> None:
    """Wait up to ``timeout`` for a started ``multiprocessing`` process to end, then
    terminate it and reap it (a process never started is left alone: joining one raises)."""
    if process is None or process.pid is None:
        return
    process.join(timeout)
    if process.is_alive():
        process.terminate()
        process.join(timeout=5)


def _name(what) -> str:
    if isinstance(what, BaseException):
        return f"{type(what).__name__} ({what})"
    return getattr(what, "__qualname__", None) or repr(what)

"""MediaPipe loaded quietly: its ``mp.solutions`` imported without the plotting modules it
does not need here, and its native start-up log lines (TFLite delegate, absl) kept off the
user's terminal. Used by pose (:mod:`vision.hands`) and mouths (:mod:`vision.mouth`); nothing
outside ``vision/`` imports MediaPipe."""

from __future__ import annotations

import contextlib
import os
import sys

from session.errors import ModelMissing


#: side of the blank picture each pose graph is opened with (its start-up log lines are said then)
WARM_SIZE = 64
#: MediaPipe's start-up log lines are silenced until a person was found this many times...
QUIET_FOUND_CALLS = 3
#: ... or for at most this many inferences (fd 2 is shared: the referee's own messages
#: written during a silenced inference would be lost too)
QUIET_MAX_CALLS = 60


@contextlib.contextmanager
def quiet_native_stderr():
    """Silence MediaPipe's native start-up log lines (TFLite delegate, absl warnings), which
    are written straight to file descriptor 2 and would bury the referee's own messages.
    Python exceptions still propagate."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


#: modules MediaPipe imports only to plot landmarks (``mediapipe.python.solutions.drawing_utils``
#: imports ``matplotlib.pyplot`` at import time: 0.3 CPU-s and up to 0.9 s of wall time in every
#: process that loads pose, i.e. each seat worker; this project never plots with them)
_PLOTTING = ("matplotlib", "matplotlib.pyplot")


@contextlib.contextmanager
def _without_plotting():
    """While MediaPipe is imported, :data:`_PLOTTING` are placeholder modules (unless already
    imported): its drawing helpers keep a placeholder that says so if ever used; afterwards the
    placeholders are taken out of ``sys.modules``, so a later ``import matplotlib`` is the real one."""
    import types

    placed = [name for name in _PLOTTING if name not in sys.modules]
    for name in placed:
        mod = types.ModuleType(name, "placeholder: not imported by vision.mediapipe_quiet (MediaPipe's landmark plotting)")

        def missing(attr, _name=name):
            raise AttributeError(f"{_name}.{attr}: MediaPipe's plotting is not loaded by this referee")

        mod.__getattr__ = missing
        sys.modules[name] = mod
    if placed == list(_PLOTTING):  # ``import matplotlib.pyplot as plt`` takes the attribute
        sys.modules["matplotlib"].pyplot = sys.modules["matplotlib.pyplot"]
    try:
        yield
    finally:
        for name in placed:
            if getattr(sys.modules.get(name), "__doc__", "").startswith("placeholder:"):
                del sys.modules[name]


def mediapipe_solutions():
    """MediaPipe's ``mp.solutions`` (the pinned 0.10.21), imported without its plotting
    modules; :class:`ModelMissing` when it is not installed (pose here, mouths in :mod:`vision.mouth`)."""
    try:
        with _without_plotting():
            import mediapipe as mp
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ModelMissing(f"mediapipe is not installed ({exc}); pip install mediapipe==0.10.21") from None
    if not hasattr(mp, "solutions"):  # pragma: no cover
        raise ModelMissing("this mediapipe has no mp.solutions pose model; pip install mediapipe==0.10.21")
    return mp.solutions



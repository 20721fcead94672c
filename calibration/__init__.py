"""Table geometry, seats, card references and microphone channels.

:func:`load` reads a calibration file (:mod:`session.calibration`, the file format) and checks
it against the game registry (:mod:`rules`): the game must be a registered one and every zone
one of its zones. The referee's commands read calibrations through it.
"""

from __future__ import annotations

import session as _session  # noqa: F401 - one BLAS thread whatever was imported first (session.threads)

from pathlib import Path


def load(path: str | Path):
    """A calibration file, validated, for a registered game."""
    import rules
    from session.calibration import load as read

    return read(path, games=rules)

"""The session contract, at the ground floor of the project.

What perception tells the referee and what the referee writes back: typed events
(:mod:`session.events`), the one canonical order of a record (:mod:`session.order`), the
record reader and streaming writer (:mod:`session.record`), the calibration file format
(:mod:`session.calibration`) and the error taxonomy (:mod:`session.errors`).

This package imports nothing else of the project, so ``rules/``, ``vision/`` and ``audio/``
can build and read events without climbing up into the application (``referee/``); the
layer contract in ``tests/test_layers.py`` keeps it that way.

(:mod:`session.threads` also sets one BLAS thread for the whole process, here at the bottom
that every package imports: the same recording gives the same record whatever was imported
first.)
"""

from session import threads as _threads  # noqa: F401 - one BLAS thread, see its docstring

"""``session.closing``: every closer runs, and a close that fails never hides the error that
caused the close (issue 36: a clean-up's ``RuntimeError`` buried a damaged reference's
``MediaError`` under a traceback)."""

from __future__ import annotations

import logging
import multiprocessing
import threading

import pytest

from session.closing import close_all, join_thread, stop_process
from session.errors import MediaError


def _failing(name: str, ran: list[str]):
    def close() -> None:
        ran.append(name)
        raise RuntimeError(f"{name} could not stop")

    return close


def test_a_failing_close_in_a_finally_keeps_the_first_error_and_every_closer_runs(caplog):
    ran: list[str] = []
    with caplog.at_level(logging.WARNING, logger="referee"):
        with pytest.raises(MediaError, match="reference image x.png is unreadable") as info:
            try:
                raise MediaError("reference image x.png is unreadable")
            finally:
                close_all(_failing("reader", ran), lambda: ran.append("hearing"), None, False,
                          _failing("stage", ran))
    assert ran == ["reader", "hearing", "stage"]
    assert info.value.__context__ is None  # nothing raised over it
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2 and "reader could not stop" in said[0] and "MediaError" in said[0]
    assert all("\n" not in s for s in said)  # one line each, no traceback


def test_with_no_error_propagating_the_first_close_failure_is_raised_after_every_closer_ran():
    ran: list[str] = []
    with pytest.raises(RuntimeError, match="reader could not stop"):
        close_all(_failing("reader", ran), lambda: ran.append("hearing"), _failing("stage", ran))
    assert ran == ["reader", "hearing", "stage"]


def test_in_an_exit_the_error_of_the_with_block_is_kept():
    class Stage:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            close_all(_failing("stage", []))

    with pytest.raises(MediaError):
        with Stage():
            raise MediaError("first")


def test_a_thread_or_process_never_started_is_joined_without_error():
    join_thread(threading.Thread(target=lambda: None), timeout=1)
    join_thread(None, timeout=1)
    stop_process(multiprocessing.get_context("spawn").Process(target=print), timeout=1)
    t = threading.Thread(target=lambda: None)
    t.start()
    join_thread(t, timeout=5)
    assert not t.is_alive()

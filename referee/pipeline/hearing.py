"""Hearing beside the video: a process of its own (or a thread) that opens the seats' audio,
builds the listener (``audio.hearing``) and streams its shout events back with its watermark.

Messages (small picklable dataclasses, in order): :class:`HearingReady` once the source and
the listener are ready (setup warnings, which file was heard, which voices are enrolled);
:class:`HeardEvents` after every :data:`BATCH_S` of audio — the shouts now complete and the
time before which no further shout can start (:meth:`audio.listen.Listener.watermark`);
:class:`HearingDone` at the end (the last events, where the audio ended, an error that cut it
short, figures). A setup failure is :class:`HearingFailed`.

Why a process (the default with pose workers): hearing takes a core of its own instead of
contending with decoding for the main process's GIL; ``--workers 0`` (several sessions at
once, one process each) runs it as a thread.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Union

from session.closing import join_thread, stop_process
from session.errors import RefereeError


@dataclass(frozen=True)
class HearingReady:
    """The source is open and the listener built (or nothing can be heard: ``listened``)."""

    warnings: tuple[str, ...] = ()
    heard_from: Path | None = None
    #: the enrolled voices' engine (``audio.voices.engine_of``), None without enrolled voices
    enrolled_by: str | None = None
    #: False when nobody is heard (no audio, or no seat with a channel)
    listened: bool = True
    kind: ClassVar[str] = "setup"

    @property
    def enrolled(self) -> bool:
        return self.enrolled_by is not None


@dataclass(frozen=True)
class HeardEvents:
    """The events now complete (dicts, on the audio clock) and the hearing's watermark."""

    events: list[dict]
    watermark: float
    #: per shout among ``events``, when it passed each step of hearing and when this message
    #: was sent (``time.monotonic()``; :mod:`audio.stage_times`): the live latency's parts
    timings: list[dict] = field(default_factory=list)
    kind: ClassVar[str] = "events"


@dataclass(frozen=True)
class HearingDone:
    """The end: the last events, where the audio ended, the error that cut it short (the
    events so far kept), the source's own warning and the figures."""

    events: list[dict] = field(default_factory=list)
    end: float = 0.0
    error: BaseException | None = None
    source_warning: str | None = None
    stats: dict[str, float] = field(default_factory=dict)
    kind: ClassVar[str] = "done"


@dataclass(frozen=True)
class HearingFailed:
    """Hearing could not start (no such file, no model): the replay stops with ``error``."""

    error: BaseException
    kind: ClassVar[str] = "fatal"


HearingMessage = Union[HearingReady, HeardEvents, HearingDone, HearingFailed]

#: audio between two ``events`` messages (latency of the watermark; cost: one message each)
BATCH_S = 0.25
#: live: a block that completes a shout sends its message at once instead of at the batch's
#: end (up to a batch of announcement latency: 0.04 s live, half that on average). The same
#: events and promises, only sooner; cost: a message more per shout. Replay keeps its batches.
SHOUTS_AT_ONCE = True


class _ThreadSink:
    def __init__(self, q: queue.Queue):
        self.q = q
        #: set when a message with a shout is put (the live loop's pacing stops waiting)
        self.news = threading.Event()

    def send(self, msg) -> None:
        self.q.put(msg)
        if isinstance(msg, HeardEvents) and any(e.get("type") == "shout" for e in msg.events):
            self.news.set()


def hear(sink, open_source, plan, batch_s: float = BATCH_S, stop: threading.Event | None = None,
         at_once: bool = False) -> None:
    """The hearing job's body: ``open_source(warnings) -> (source, heard_from)``; an
    ``events`` message every ``batch_s`` of audio, and with ``at_once`` (live) also as soon as
    a block completes a shout (:data:`SHOUTS_AT_ONCE`). ``stop`` (a thread's job): set, the
    hearing ends at its next block — a thread cannot be terminated as a process is."""
    from audio import hearing

    stats: dict[str, float] = {}
    c0, t0 = time.process_time(), time.perf_counter()
    try:
        warnings: list[str] = []
        source, heard_from = open_source(warnings)
        stats["audio_demix"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        listener = hearing.make_listener(plan, source, warnings) if source is not None else None
        stats["audio_setup"] = time.perf_counter() - t1
    except BaseException as exc:
        sink.send(HearingFailed(_picklable(exc)))
        return
    from audio.voices import engine_of

    sink.send(HearingReady(warnings=tuple(warnings), heard_from=heard_from,
                           enrolled_by=engine_of(getattr(listener, "verifier", None)),
                           listened=source is not None and listener is not None))
    end = 0.0
    error = None
    t2 = time.perf_counter()
    batch: list[dict] = []
    sent_at = float("-inf")
    if source is not None and listener is not None:
        try:
            for block in source:
                if stop is not None and stop.is_set():
                    break
                end = block.offset + (block.index + len(block.data)) / block.rate
                made = listener.update(block)
                batch.extend(made)
                if end - sent_at >= batch_s or (at_once and any(e.get("type") == "shout" for e in made)):
                    times = getattr(listener, "times", None)
                    timings = times.take() if times is not None else []
                    sent = time.monotonic()
                    sink.send(HeardEvents(batch, listener.watermark(), [dict(r, sent=sent) for r in timings]))
                    batch, sent_at = [], end
            batch.extend(listener.close_window())
        except BaseException as exc:  # reported by the pipeline, the events so far kept
            error = exc
    elif source is not None and not getattr(source, "offline", False):
        end, error = _drain(source, stop, sink, batch_s)
    stats["audio_listen"] = time.perf_counter() - t2
    stats["audio_cpu"] = time.process_time() - c0
    sink.send(HearingDone(events=batch, end=end, error=None if error is None else _picklable(error),
                          source_warning=getattr(source, "warning", None) if source is not None else None,
                          stats=stats))


def _drain(source, stop, sink, batch_s: float) -> tuple[float, BaseException | None]:
    """A live input with no seat to hear (a calibration without seat channels: one room
    microphone) is still read to its end: the live referee's tap on it is the audio's clock,
    and unread it stayed at 0 s, so every verdict waited for the session's end (measured on the
    demo played live with such a calibration: events known 117 s after capture). Its samples
    still go to ``seats.wav`` through the tap. Nothing will be heard, so the hearing's
    watermark is where the input has been read to."""
    end, sent_at = 0.0, float("-inf")
    try:
        for block in source:
            if stop is not None and stop.is_set():
                break
            if hasattr(block, "data"):
                end = block.offset + (block.index + len(block.data)) / block.rate
            if end - sent_at >= batch_s:
                sink.send(HeardEvents([], end))
                sent_at = end
    except BaseException as exc:  # noqa: BLE001 - reported as the listening loop's errors are
        return end, exc
    return end, None


def _picklable(exc: BaseException) -> BaseException:
    """``exc``, or its traceback's text as a RuntimeError when it cannot cross a process pipe."""
    import pickle
    import traceback

    try:
        pickle.dumps(exc)
    except Exception:
        return RuntimeError("".join(traceback.format_exception(exc)))
    return exc


def _hear_process(conn, *args) -> None:
    try:
        hear(conn, *args)
    except (BrokenPipeError, ConnectionResetError, EOFError):
        pass  # the replay is gone (stopped or killed): nobody to tell
    finally:
        conn.close()


class HearingJob:
    """The hearing running beside the video: a spawned process (``process``) or a thread.
    ``open_source`` and ``plan`` must be picklable for a process (a module-level function or
    a ``functools.partial`` of one)."""

    def __init__(self, process: bool, open_source, plan, batch_s: float = BATCH_S, at_once: bool = False):
        self.proc = self.thread = None
        self.finished = False
        self._stop = threading.Event()
        if process:
            import multiprocessing as mp

            from vision.parallel import start_without_sigint

            ctx = mp.get_context("spawn")
            self.conn, child = ctx.Pipe(duplex=False)
            self.proc = ctx.Process(target=_hear_process, args=(child, open_source, plan, batch_s, None, at_once),
                                    name="referee-hearing",
                                    daemon=True)
            try:
                start_without_sigint(self.proc)  # Ctrl-C is the replay's to handle, not the hearing's
            except BaseException:
                self.conn.close()
                raise
            finally:
                child.close()
        else:
            self.q: queue.Queue = queue.Queue()
            self._sink = _ThreadSink(self.q)
            self.thread = threading.Thread(target=hear, args=(self._sink, open_source, plan, batch_s,
                                                              self._stop, at_once), name="referee-hearing",
                                           daemon=True)
            self.thread.start()

    def _get(self, timeout: float | None):
        if self.proc is not None:
            if timeout is not None and not self.conn.poll(timeout):
                return None
            try:
                return self.conn.recv()
            except (EOFError, OSError):
                return HearingFailed(RefereeError("the hearing process stopped unexpectedly"))
        try:
            return self.q.get(timeout=timeout) if timeout is None or timeout > 0 else self.q.get_nowait()
        except queue.Empty:
            return None

    def has_shout(self) -> bool:
        """A message with a shout is waiting to be taken (never waits; the live loop's pacing
        asks). A process's job says whether any message waits."""
        if self.finished:
            return False
        if self.proc is not None:
            try:
                return self.conn.poll(0)
            except (EOFError, OSError):
                return True  # (taking it says the process stopped)
        return self._sink.news.is_set()

    def poll(self) -> list[HearingMessage]:
        """Messages ready now (never waits)."""
        return self._messages(0)

    def wait(self) -> list[HearingMessage]:
        """The remaining messages, waiting for the end of hearing."""
        return self._messages(None)

    def wait_one(self, timeout: float | None = None) -> list[HearingMessage]:
        """At least one message (waiting up to ``timeout``), then whatever else is ready."""
        if self.finished:
            return []
        first = self._get(timeout)
        if first is None:
            return []
        self.finished = isinstance(first, (HearingDone, HearingFailed))
        return [first] + self._messages(0)

    def _messages(self, timeout: float | None) -> list[HearingMessage]:
        if self.proc is None:  # (cleared before taking: a shout put meanwhile sets it again)
            self._sink.news.clear()
        out = []
        while not self.finished:
            msg = self._get(timeout)
            if msg is None:  # nothing ready (only when not waiting)
                break
            out.append(msg)
            self.finished = isinstance(msg, (HearingDone, HearingFailed))
        return out

    def close(self) -> None:
        """Stop the hearing, finished or not (a run that failed before reading its result):
        a process is terminated, a thread told to stop at its next block and left to end by
        itself (a speech model still loading cannot be interrupted; the thread is a daemon)."""
        self._stop.set()
        if self.proc is not None:
            stop_process(self.proc, timeout=0 if not self.finished else 5)
            self.conn.close()
        join_thread(self.thread, timeout=5 if self.finished else 0)

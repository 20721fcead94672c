"""Many recorded sessions on a Ray cluster: ``referee replay VIDEO... --ray [ADDRESS]``.

Why: a tournament that re-judges hundreds of recorded sessions outgrows one machine's process
pool (:func:`referee.replay.replay_many`). Ray (the optional extra ``[scale]``) spreads the
same sessions over every machine of a cluster, or over this machine's cores without ADDRESS.

What stays the local pool's:
- each session runs :func:`referee.replay.replay_task`, the local pool's own per-session
  function, with the same arguments (:func:`referee.replay.session_tasks`): the same record
  and report in the same folder, ``OUT/<video stem>/``, and the same
  :class:`~referee.replay.ReplaySummary` (bad input is its ``error``), yielded in the given
  order;
- a session's pose runs in its own process (no pose workers): one session per core.

What Ray adds:
- the sessions run in :class:`SessionWorker` actors, one per core (``--jobs`` to choose), each
  a process that loads the shared models once at its start (:func:`audio.hearing.preload`:
  Whisper, the voice embedding) and reuses them for every session it runs. The pose graphs are
  not shared: each seat's graph tracks its person from frame to frame, so a session opens its
  own (a graph carried over would start from the last session's last frame);
- a failed session — bad input, an error, or its worker's process dying (killed for memory, a
  node lost) — is run again, :data:`SESSION_ATTEMPTS` times in all, and then reported as failed
  while the others go on. A worker whose process died is started again by Ray
  (:data:`WORKER_RESTARTS`).

Paths are made absolute before they are sent: on a cluster every node must see the recordings,
the calibration and the output folder at the same path (a shared file system), and have the
project installed as here. Ray's own logs stay in its session folder (``/tmp/ray``), never on
the user's terminal, and a local Ray sends no usage statistics.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from session.errors import RefereeError, Stopped

#: how to get Ray, said when it is missing (it is not in the default install)
RAY_HINT = "pip install -e '.[scale]'"
#: runs of one session before it is reported as failed (the first and one retry): on a cluster
#: a run fails for reasons of its node (a worker killed for memory, a node lost, a network file
#: system's hiccup) that another run does not meet; bad input fails again at once (its checks
#: come before any work), so the retry costs about a second there
SESSION_ATTEMPTS = 2
#: times Ray starts a session worker again after its process died, before its sessions fail
WORKER_RESTARTS = 3
#: CPUs a session worker reserves: a session's pose runs in its own process, as in the local pool
SESSION_CPUS = 1
#: the object store of a local Ray: sessions send paths and summaries, never frames (Ray's
#: default, 30 % of the memory, would take that much of /dev/shm from the sessions)
LOCAL_OBJECT_STORE_BYTES = 128 * 2**20
#: Ray's own logging: errors only (its "Started a local Ray instance" and the like are noise here)
RAY_LOG_LEVEL = logging.ERROR
#: ``--ray`` without an address: a Ray of this machine's cores, started for the run and stopped after
LOCAL = "local"
#: how long a stopped run waits for the running sessions to keep their records so far
STOP_WAIT_S = 10.0
#: how long a cluster's address may take to answer before the run says it cannot reach it (Ray's
#: own connection to an address where nothing listens retries for about 14 minutes, 20 times)
CONNECT_TIMEOUT_S = 5.0


def import_ray():
    """Ray, or one clear line saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RefereeError(f"--ray needs Ray, which the default install leaves out: {RAY_HINT}") from None
    return ray


def check_address(address: str) -> str:
    """``address`` if it can name a Ray cluster (``local``, ``auto``, ``HOST:PORT``,
    ``ray://HOST:PORT``). Why: ``--ray`` takes an optional value, so ``--ray a.mp4 b.mp4``
    would take the first video for the address; that is said instead of a connection error."""
    if address in (LOCAL, "auto") or ":" in address:
        return address
    raise RefereeError(f"--ray {address}: not a Ray address (local, auto, HOST:PORT or ray://HOST:PORT); "
                       "write the videos before --ray")


class SessionWorker:
    """A Ray actor that replays sessions one after another in one process: it loads the models
    sessions share once, at its start, and every session it runs reuses them."""

    def __init__(self, model: str | None = None):
        from audio.hearing import preload

        self.sessions = 0
        try:
            self.loaded = preload(model)
        except RefereeError:  # (a model missing: each session then says so itself, as locally)
            self.loaded = ()

    def replay(self, task) -> Any:
        """One session through the local pool's own function, with where it ran."""
        import ray

        from referee.replay import replay_task

        self.sessions += 1
        context = ray.get_runtime_context()

        def stop_if_cancelled(frames: int, total: int) -> None:
            """``ray.cancel`` only raises a flag in a running actor task: seen at each frame,
            it stops the session as Ctrl-C stops a local one (its record so far kept)."""
            if context.is_canceled():
                raise KeyboardInterrupt

        summary = replay_task(task, on_progress=stop_if_cancelled)
        summary.worker = self.about()
        return summary

    def about(self) -> dict[str, Any]:
        """This worker: node, process, sessions run and Whisper model reads (1 once warmed)."""
        import ray

        from audio import whisper

        return {"node": ray.util.get_node_ip_address(), "pid": os.getpid(), "sessions": self.sessions,
                "model_reads": whisper.model_reads, "loaded": list(self.loaded)}


def replay_many_ray(videos: Sequence[Path], calibration: Path, base: Path, settings, *,
                    address: str | None = None, jobs: int | None = None) -> Iterator:
    """Replay several recordings on Ray into ``base/<video stem>/``, as :func:`referee.replay.
    replay_many` does on this machine: yields a :class:`~referee.replay.ReplaySummary` per
    video, in the given order. ``address``: None or ``local`` starts a Ray of this machine's
    cores (``jobs`` of them) for the run; otherwise the cluster there. A Ray already started
    in this process (a test's ``ray.init(num_cpus=2)``) is used as it is."""
    from referee.replay import session_tasks

    tasks = session_tasks([Path(v) for v in videos], Path(calibration), Path(base), settings)
    tasks = [_absolute(task) for task in tasks]
    ray = import_ray()
    with connected(ray, check_address(address or LOCAL), jobs):
        cores = _cluster_cores(ray)  # (a worker beyond them would wait for a core, its sessions with it)
        count = min(jobs or cores, cores, len(tasks))
        workers = start_workers(ray, count, settings.model)
        try:
            for i, summary in enumerate(run_sessions(ray, workers, tasks)):
                yield dataclasses.replace(summary, video=Path(videos[i]))  # (as given: the CLI prints it)
        finally:
            for w in workers:
                ray.kill(w)


def _absolute(task: tuple) -> tuple:
    """A task whose paths hold on any node sharing this file system (the local pool's relative
    paths name this process's working folder, which a Ray worker does not share)."""
    video, cal, out, settings = task
    if settings.enroll is not None:
        settings = dataclasses.replace(settings, enroll=Path(settings.enroll).absolute())
    return Path(video).absolute(), Path(cal).absolute(), Path(out).absolute(), settings


def _cluster_cores(ray) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1) // SESSION_CPUS))


@contextmanager
def connected(ray, address: str, jobs: int | None):
    """Ray started (``local``) or joined for the run, quiet, and stopped or left after it;
    a Ray this process started before is used as it is and left running."""
    if ray.is_initialized():
        yield
        return
    import signal

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # (no report to Ray's servers)
    options: dict[str, Any] = dict(include_dashboard=False, log_to_driver=False, logging_level=RAY_LOG_LEVEL)
    if address == LOCAL:
        options.update(num_cpus=jobs or os.cpu_count() or 1, object_store_memory=LOCAL_OBJECT_STORE_BYTES)
    else:
        _probe(address)
    term = signal.getsignal(signal.SIGTERM)  # (ray.init puts its own in; the referee's stops a run cleanly)
    try:
        with _native_stderr_aside():
            ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
        raise RefereeError(f"cannot start or reach Ray at {address}: {_first_line(exc)}{_token_hint(exc, address)}") \
            from None
    except SystemExit as exc:  # SIGTERM while Ray started: its own handler exits; stopped as anywhere else
        if exc.code != signal.SIGTERM:
            raise
        ray.shutdown()
        raise Stopped("SIGTERM", kept="nothing was replayed yet") from None
    finally:
        _restore(signal, term)
    try:
        yield
    finally:
        ray.shutdown()


def _probe(address: str) -> None:
    """One clear line when nothing answers at a ``HOST:PORT`` (or ``ray://HOST:PORT``) address,
    within :data:`CONNECT_TIMEOUT_S`, instead of Ray's quarter of an hour of retries."""
    import socket

    host, _, port = address.split("://")[-1].rpartition(":")
    if not host or not port.isdigit():
        return  # ("auto": Ray finds a cluster started on this machine, or says there is none)
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise RefereeError(f"cannot reach the Ray cluster at {address}: {exc.strerror or exc} (is `ray start "
                           "--head` running there, and is the port open?)") from None


@contextmanager
def _native_stderr_aside():
    """Ray's native code (C++) writes its warnings to the process's stderr while it starts or
    joins a cluster; they go to a file of their own instead of the user's terminal."""
    import sys
    import tempfile

    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # (no real stderr: nothing to keep clean)
        yield
        return
    with tempfile.TemporaryFile() as aside:
        os.dup2(aside.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _token_hint(exc: BaseException, address: str) -> str:
    """What to do when a cluster refused this machine for want of its token (Ray 2.5x starts
    clusters with token authentication; ``auto`` finds the token of a cluster started here,
    another machine needs it copied). Ray's own message says it several lines down, or not at
    all (Ray Client only times out)."""
    chain, seen = [], exc
    while seen is not None and len(chain) < 8:
        chain.append(f"{type(seen).__name__} {seen}".lower())
        seen = seen.__cause__ or seen.__context__
    text = " ".join(chain)
    if address == LOCAL or not ("auth" in text or ("://" in address and "timeout" in text)):
        return ""
    return ("; a cluster with token authentication wants its token here: RAY_AUTH_MODE=token and the head's "
            "~/.ray/auth_token (or RAY_AUTH_TOKEN)")


def _restore(signal, handler) -> None:
    try:
        if handler is not None:
            signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):  # (not the main thread: nothing was replaced)
        pass


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def start_workers(ray, count: int, model: str | None) -> list:
    """``count`` session workers, each reserving :data:`SESSION_CPUS` and started again by
    Ray when its process dies (the session it ran is retried by :func:`run_sessions`)."""
    actor = ray.remote(num_cpus=SESSION_CPUS, max_restarts=WORKER_RESTARTS, max_task_retries=0)(SessionWorker)
    return [actor.remote(model) for _ in range(count)]


def run_sessions(ray, workers: list, tasks: list[tuple]) -> Iterator:
    """Each task on the next free worker; a failed one again until :data:`SESSION_ATTEMPTS`;
    the summaries yielded in the tasks' order (each as soon as those before it are done)."""
    pending = deque(range(len(tasks)))
    attempts = [0] * len(tasks)
    idle, running, done, nxt = list(workers), {}, {}, 0
    noted: list[str] = []
    try:
        with _sigterm_noted() as noted:
            while nxt < len(tasks):
                while idle and pending:
                    i = pending.popleft()
                    attempts[i] += 1
                    worker = idle.pop()
                    running[worker.replay.remote(tasks[i])] = (i, worker)
                ready, _ = ray.wait(list(running), num_returns=1)
                i, worker = running.pop(ready[0])
                idle.append(worker)
                summary = _outcome(ray, ready[0], tasks[i][0])
                if summary.error is not None and attempts[i] < SESSION_ATTEMPTS:
                    pending.appendleft(i)  # (again at once, before the sessions not started)
                    continue
                done[i] = dataclasses.replace(summary, attempts=attempts[i])
                while nxt in done:
                    yield done.pop(nxt)
                    nxt += 1
    except KeyboardInterrupt as exc:  # stopped: the running sessions stop too, keeping their records so far
        _stop(ray, running)
        if noted and getattr(exc, "how", None) is None:
            raise Stopped(noted[0]) from None
        raise


@contextmanager
def _sigterm_noted():
    """Which signal stopped the run: ``ray.wait`` turns the referee's SIGTERM handler's
    :class:`~session.errors.Stopped` into a bare KeyboardInterrupt, and the CLI says
    "stopped (SIGTERM)" (exit status 143) as for the local pool only when it knows."""
    import signal

    noted: list[str] = []
    old = signal.getsignal(signal.SIGTERM)
    if not callable(old):
        yield noted
        return

    def note(signum, frame):
        noted.append("SIGTERM")
        old(signum, frame)

    try:
        signal.signal(signal.SIGTERM, note)
    except (ValueError, OSError):  # (not the main thread)
        yield noted
        return
    try:
        yield noted
    finally:
        signal.signal(signal.SIGTERM, old)


def _outcome(ray, ref, video: Path):
    """A finished run's summary; a run that raised or whose worker died is a failed summary."""
    from referee.replay import ReplaySummary

    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as exc:  # (the session raised: a bug, not bad input)
        cause = getattr(exc, "cause", None) or exc
        return ReplaySummary(video=video, error=f"{type(cause).__name__}: {_first_line(cause)}")
    except ray.exceptions.RayError as exc:  # its worker's process died, or its node left
        return ReplaySummary(video=video, error=f"its Ray worker stopped ({type(exc).__name__}: "
                                                f"{_first_line(exc)})")


def _stop(ray, running: dict) -> None:
    """Cancel each running session: it stops at its next frame and keeps its record so far,
    as in the local pool (``SessionWorker.replay``). A cancelled task's result is ready at
    once, while its worker is still stopping: the wait is for a call queued behind it."""
    for ref in running:
        try:
            ray.cancel(ref)
        except Exception:  # (already finished, or its worker gone)
            pass
    behind = [worker.about.remote() for _, worker in running.values()]
    if behind:
        ray.wait(behind, num_returns=len(behind), timeout=STOP_WAIT_S)

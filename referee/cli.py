"""The ``referee`` command line.

Built with click rather than typer: click is typer's own foundation, has no further
dependencies, supports lazily loaded sub-commands (so ``referee judge`` never imports
mediapipe or vosk), and its ``CliRunner`` lets the tests run every command in-process.

Sub-commands live in ``referee/commands/`` (and in ``audio``/``vision`` where they need
those packages); this file only maps names to them. Every :class:`RefereeError` becomes
one line on stderr and exit status 2; a traceback is a bug. Click's own usage errors (an
unknown option, a missing argument) are one line too, ``referee: error: ...`` with exit
status 2, and so is a failed write to standard output (``> /dev/full``). Output never fails
on text it cannot encode (a lone surrogate from a record's ``"\\ud800"``, a file name that is
not UTF-8): such characters are written as backslash escapes.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys

import click

from referee import __version__
from session.errors import RefereeError, Stopped


class LazyGroup(click.Group):
    """A click group whose commands are imported only when used."""

    def __init__(self, *args, lazy: dict[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx, name):
        if name in self.lazy:
            module_name, attr = self.lazy[name].split(":")
            return getattr(importlib.import_module(module_name), attr)
        return super().get_command(ctx, name)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except RefereeError as exc:
            raise ReportedError(str(exc)) from None

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """Click's main, with every failure as one line (see the module docstring)."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        _safe_streams()
        old_term = _stop_on_sigterm()
        try:
            status = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            _flush(sys.stdout)
        except click.exceptions.Abort as exc:
            stopped = exc.__cause__ if isinstance(exc.__cause__, Stopped) else Stopped()
            if isinstance(exc.__cause__, EOFError):  # (an end of input where a prompt waited)
                click.echo("referee: aborted (no more input)", err=True)
                sys.exit(130)
            click.echo(f"referee: stopped ({stopped.how})" + (f": {stopped.kept}" if stopped.kept else ""), err=True)
            sys.exit(143 if stopped.how == "SIGTERM" else 130)
        except _NO_ARGS_HELP as exc:  # bare `referee`: the help, as click shows it
            exc.show()
            sys.exit(exc.exit_code)
        except click.UsageError as exc:
            click.echo(f"referee: error: {_usage_line(exc)}", err=True)
            sys.exit(2)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except RefereeError as exc:
            click.echo(f"referee: error: {exc}", err=True)
            sys.exit(2)
        except OSError as exc:
            if not _is_output_error(exc):
                raise
            _silence_stdout()
            if isinstance(exc, BrokenPipeError):  # `referee judge ... | head`: the reader left
                sys.exit(1)
            click.echo(f"referee: error: cannot write the output: {exc.strerror or exc}", err=True)
            sys.exit(2)
        finally:
            _restore_sigterm(old_term)
        sys.exit(status if isinstance(status, int) else 0)


def _stop_on_sigterm():
    """SIGTERM (``kill PID``, a service manager, ``timeout``) stops a run as Ctrl-C does — the
    record so far kept, the worker processes stopped, one line said — instead of killing the
    process where it stands (its workers left running, its record in a hidden staging folder).
    Returns the handler it replaced (None outside the main thread: nothing installed)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(signum, frame):
        raise Stopped("SIGTERM")

    try:
        return signal.signal(signal.SIGTERM, stop)
    except (ValueError, OSError):
        return None


def _restore_sigterm(old) -> None:
    import signal

    if old is not None:
        try:
            signal.signal(signal.SIGTERM, old)
        except (ValueError, OSError):
            pass


_NO_ARGS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


def _usage_line(exc: click.UsageError) -> str:
    """Click's three-line usage error (usage, hint, message) as one line: the message and
    where the help is."""
    cmd = exc.ctx.command_path if exc.ctx is not None else "referee"
    return f"{exc.format_message().rstrip('.')} (see '{cmd} --help')"


def _safe_streams() -> None:
    """Unencodable characters on stdout/stderr become backslash escapes, never an error."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass


def _flush(stream) -> None:
    try:
        stream.flush()
    except ValueError:  # closed
        pass


def _is_output_error(exc: OSError) -> bool:
    """A failed write to stdout (full disk, /dev/full, a closed pipe), not a failed input."""
    return isinstance(exc, BrokenPipeError) or (exc.errno in (errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT)
                                               and exc.filename is None)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so Python's final flush does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


class ReportedError(click.ClickException):
    """A referee error shown to a person: one line, exit status 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"referee: error: {self.format_message()}", err=True, file=file)


COMMANDS = {
    "judge": "referee.commands.judge:judge_cmd",
    "demo": "referee.commands.replay:demo_cmd",
    "replay": "referee.commands.replay:replay_cmd",
    "rules": "referee.commands.rules:rules_cmd",
    "vision": "referee.commands.vision:vision_cmd",
    "watch": "referee.commands.watch:watch_cmd",
    "listen": "referee.commands.listen:listen_cmd",
    "models": "referee.commands.models:models_cmd",
    "devices": "referee.commands.devices:devices_cmd",
    "calibrate": "referee.commands.calibrate:calibrate_cmd",
    "live": "referee.commands.live:live_cmd",
    "teach": "referee.commands.teach:teach_cmd",
}


@click.group(name="referee", cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
def cli() -> None:
    """table referee: judges who reacted first and who was wrong at a card table."""


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the CLI, turning every failure into one clear line."""
    cli.main(args=argv, prog_name="referee")

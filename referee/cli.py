"""The ``referee`` command line.

Built with click rather than typer: click is typer's own foundation, has no further
dependencies, supports lazily loaded sub-commands (so ``referee judge`` never imports
mediapipe or vosk), and its ``CliRunner`` lets the tests run every command in-process.

Sub-commands live in ``referee/commands/`` (and in ``audio``/``vision`` where they need
those packages); this file only maps names to them. Every :class:`RefereeError` becomes
one line on stderr and exit status 2; a traceback is a bug.
"""

from __future__ import annotations

import importlib
import sys

import click

from referee import __version__
from session.errors import RefereeError


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
    "calibrate": "referee.commands.calibrate:calibrate_cmd",
    "live": "referee.commands.live:live_cmd",
}


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
def cli() -> None:
    """table referee: judges who reacted first and who was wrong at a card table."""


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the CLI, turning referee errors into one clear line."""
    try:
        status = cli.main(args=argv, prog_name="referee", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("referee: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except RefereeError as exc:
        click.echo(f"referee: error: {exc}", err=True)
        sys.exit(2)
    except BrokenPipeError:
        sys.exit(1)
    sys.exit(status if isinstance(status, int) else 0)

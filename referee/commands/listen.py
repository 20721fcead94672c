"""``referee listen``: hear a table (a recording or live input) and print shout events.

Seat k is channel k. A file with fewer channels than seats is refused unless ``--room``
says it is one room microphone (words and onsets, no attribution); a mono file with one
seat is simply that seat's close mic.
"""

from __future__ import annotations

from pathlib import Path

import click

from session.record import dumps


def _format(event: dict) -> str:
    if event["type"] != "shout":
        return f"{event['t']:9.3f}  [{event['type']}] {event.get('state', '')} {event.get('detail', '')}".rstrip()
    who = event["player"] or "(unattributed)"
    words = " ".join(event["words"]) or "-"
    tie = f"  tie with {', '.join(event['tie'])}" if event.get("tie") else ""
    conf = "" if event.get("conf") is None else f"  conf {event['conf']:.2f}"
    return f"{event['t']:9.3f}  {who:<14} {words:<16} «{event.get('text', '')}»{conf}{tie}"


@click.command("listen")
@click.option("--wav", "path", type=click.Path(dir_okay=False, path_type=Path), help="A recording: WAV (or any audio file).")
@click.option("--video", "video", type=click.Path(dir_okay=False, path_type=Path), help="A video: its audio track is heard.")
@click.option("--device", default=None, help="Live input device (number or name; see `python -m sounddevice`).")
@click.option("--seats", required=True, help="Players in seat order, comma-separated: seat k = channel k.")
@click.option("--game", required=True, help="The game whose calls to listen for (ikatako, mokochaka, seasaltpaper).")
@click.option("--mode", default=None, help="Game mode (ikatako: versus, coop, solo; co-op adds totals to the grammar).")
@click.option("--model", default=None, help="Speech engine: whisper-base (the default), or a Vosk model name or folder (see `referee models`).")
@click.option("--lang", default="ja", type=click.Choice(["ja", "en"]), show_default=True, help="Language the table speaks.")
@click.option("--room", is_flag=True, help="One room microphone for everyone: words, but no attribution.")
@click.option("--offset", default=0.0, type=float, show_default=True, help="Session time of the recording's start (s).")
@click.option("--rate", default=None, type=int, help="The rate the table is heard at (default 16000, the speech models'; a file at another rate "
                   "is resampled).")
@click.option("--enroll", "enroll_dir", type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="Voice enrollment: FOLDER/<player>/<call>[.<take>].wav; a verifier beside the speech engine.")
@click.option("--min-conf", default=0.0, type=click.FloatRange(0.0, 1.0), show_default=True,
              help="Vosk confidence gate: a call heard below it becomes a shout without words (see docs/hearing.md).")
@click.option("--demix-from", "demix_from", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="A recording of this table where each seat spoke alone (the calibration recording): the "
                   "seat-to-seat leakage measured there is cancelled as the audio comes.")
@click.option("--json", "as_json", is_flag=True, help="One docs/record.md object per line.")
def listen_cmd(path, video, device, seats, game, mode, model, lang, room, offset, rate, enroll_dir, min_conf,
               demix_from, as_json):
    """Print the shouts heard at the table: who, which words, when each started."""
    from referee.listening import ListenSetup, listen_table

    names = [s.strip() for s in seats.split(",") if s.strip()]
    if not names or len(set(names)) != len(names):
        raise click.BadParameter("give distinct player names, e.g. --seats aki,ben,chie", param_hint="--seats")
    inputs = [x for x in (path, video, device) if x is not None]
    if len(inputs) != 1:
        raise click.UsageError("give exactly one of --wav, --video, --device")
    setup = ListenSetup(names=tuple(names), game=game, mode=mode, wav=path, video=video, device=device, model=model,
                        lang=lang, room=room, offset=offset, rate=rate, enroll=enroll_dir, min_conf=min_conf,
                        demix_from=demix_from)

    def show(event) -> None:
        click.echo(dumps(event) if as_json else _format(event.to_dict()))

    listen_table(setup, show, lambda msg: click.echo(f"referee: {msg}", err=True))

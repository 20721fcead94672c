"""``referee listen``: hear a table (a recording or live input) and print shout events.

Seat k is channel k. A file with fewer channels than seats is refused unless ``--room``
says it is one room microphone (words and onsets, no attribution); a mono file with one
seat is simply that seat's close mic.
"""

from __future__ import annotations

from pathlib import Path

import click

from session.errors import MediaError
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
@click.option("--model", default=None, help="Model name or folder (default: the best installed for --lang).")
@click.option("--lang", default="ja", type=click.Choice(["ja", "en"]), show_default=True, help="Language the table speaks.")
@click.option("--room", is_flag=True, help="One room microphone for everyone: words, but no attribution.")
@click.option("--offset", default=0.0, type=float, show_default=True, help="Session time of the recording's start (s).")
@click.option("--rate", default=None, type=int, help="Live input sample rate (default: the device's).")
@click.option("--enroll", "enroll_dir", type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="Voice enrollment: FOLDER/<player>/<call>[.<take>].wav; a verifier beside Vosk.")
@click.option("--min-conf", default=0.0, type=click.FloatRange(0.0, 1.0), show_default=True,
              help="Vosk confidence gate: a call heard below it becomes a shout without words (see README Audio).")
@click.option("--demix-from", "demix_from", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="A recording of this table where each seat spoke alone (the calibration recording): the "
                   "seat-to-seat leakage measured there is cancelled as the audio comes.")
@click.option("--json", "as_json", is_flag=True, help="One docs/record.md object per line.")
def listen_cmd(path, video, device, seats, game, mode, model, lang, room, offset, rate, enroll_dir, min_conf,
               demix_from, as_json):
    """Print the shouts heard at the table: who, which words, when each started."""
    from audio import capture, lexicon, models
    from audio.listen import ListenParams, Listener, listen
    from audio.recognize import Recognizer

    names = [s.strip() for s in seats.split(",") if s.strip()]
    if not names or len(set(names)) != len(names):
        raise click.BadParameter("give distinct player names, e.g. --seats aki,ben,chie", param_hint="--seats")
    inputs = [x for x in (path, video, device) if x is not None]
    if len(inputs) != 1:
        raise click.UsageError("give exactly one of --wav, --video, --device")
    vocab = lexicon.vocabulary(game, mode)
    found = models.find(model, lang)
    recognizer = Recognizer(found, vocab)
    if device is not None:
        dev = int(device) if str(device).isdigit() else device
        channels, default_rate = capture.device_info(dev)
        channels = 1 if room else min(channels, len(names))
        source = capture.LiveSource(dev, channels, rate or default_rate, offset=offset)
        where = f"device {device}"
    else:
        file = path or video
        source = capture.FileSource(file, offset=offset)
        channels = source.channels
        where = str(file)
    if not room and channels < len(names):
        raise MediaError(
            f"{where} has {channels} channel(s) but the table has {len(names)} seats: record one close "
            "microphone per seat on one interface, or pass --room for a single room microphone (no attribution)"
        )
    if not room and channels > len(names):
        click.echo(f"referee: note: {where} has {channels} channels; using the first {len(names)}", err=True)
    click.echo(f"referee: listening with {found.name} ({found.path}), game {game}", err=True)
    verifier = None
    if enroll_dir is not None:
        from audio import enroll

        verifier = enroll.from_folder(enroll_dir)
        unknown = sorted(set(verifier.templates) - set(names))
        if unknown:
            click.echo(f"referee: note: enrolled player(s) not at the table: {', '.join(unknown)}", err=True)
    onset = None
    if demix_from is not None and not room:
        from audio.hearing import demixed_from

        source, onset, left = demixed_from(source, demix_from, channels)
        click.echo(f"referee: cancelling cross-talk measured on {demix_from}"
                   + (f" ({left:.0f} dB left)" if left is not None else ""), err=True)
    listener = Listener(names, channels, source.rate, recognizer, room=room, verifier=verifier, onset=onset,
                        params=ListenParams(min_conf=min_conf))
    try:
        for event in listen(source, listener):
            click.echo(dumps(event) if as_json else _format(event))
    except KeyboardInterrupt:
        for event in listener.close_window():
            click.echo(dumps(event) if as_json else _format(event))
    if getattr(source, "warning", None):  # (a demixed source passes the file's warning on)
        click.echo(f"referee: warning: {source.warning}", err=True)

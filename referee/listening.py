"""Listening to a table without judging it (``referee listen``): one seat's channel each (or
one room microphone), a recording or a live input, through the pipeline's hearing stream
(the one session driver, :class:`referee.pipeline.driver.Session`, over a
:class:`~referee.pipeline.sources.ListenerSource`) — each shout handed to the caller as soon
as the merge releases it (the listener's watermark says when no earlier shout can still
come)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from referee.pipeline import Pipeline
from referee.pipeline.driver import Session
from referee.pipeline.sources import ListenerSource
from referee.pipeline.sinks import EachEventSink
from session.errors import MediaError
from session.events import Event, SessionHeader


@dataclass(frozen=True)
class ListenSetup:
    """What to listen to: exactly one of ``wav``, ``video``, ``device``; seat k = channel k."""

    names: tuple[str, ...]
    game: str
    mode: str | None = None
    wav: Path | None = None
    video: Path | None = None
    device: str | None = None
    model: str | None = None
    lang: str = "ja"
    room: bool = False
    offset: float = 0.0
    rate: int | None = None  # heard at (None: audio.hearing.HEARING_RATE); a file at another rate is resampled
    enroll: Path | None = None
    min_conf: float = 0.0
    demix_from: Path | None = None


def listen_table(setup: ListenSetup, on_event: Callable[[Event], None], note: Callable[[str], None]) -> None:
    """Hear the table until the input ends (or Ctrl-C), calling ``on_event`` per event and
    ``note`` for what a person should know (the model used, unused channels, warnings)."""
    import rules
    from audio import capture
    from audio.hearing import HEARING_RATE, make_recognizer
    from audio.listen import ListenParams, Listener

    names = list(setup.names)
    vocab = rules.vocabulary(setup.game, setup.mode)
    # the same engine replay and the live referee use (Whisper base unless --model names another)
    recognizer = make_recognizer(setup.model, setup.lang, vocab)
    # heard at the speech models' rate, as a replay and the live referee hear (a 44.1 or 48 kHz
    # recording heard at its own rate missed words the same audio at 16 kHz gave: table_sim)
    rate = setup.rate or HEARING_RATE
    if setup.device is not None:
        dev = int(setup.device) if str(setup.device).isdigit() else setup.device
        channels, _ = capture.device_info(dev)
        channels = 1 if setup.room else min(channels, len(names))
        source = capture.LiveSource(dev, channels, rate, offset=setup.offset)
        where = f"device {setup.device}"
    else:
        file = setup.wav or setup.video
        source = capture.FileSource(file, offset=setup.offset, rate=rate)
        channels = source.channels
        where = str(file)
    if not setup.room and channels < len(names):
        raise MediaError(
            f"{where} has {channels} channel(s) but the table has {len(names)} seats: record one close "
            "microphone per seat on one interface, or pass --room for a single room microphone (no attribution)"
        )
    if not setup.room and channels > len(names):
        note(f"note: {where} has {channels} channels; using the first {len(names)}")
    note(f"listening with {recognizer.describe()}, game {setup.game}")
    verifier = None
    if setup.enroll is not None:
        from audio import voices

        verifier = voices.from_folder(setup.enroll)
        note(voices.describe(voices.engine_of(verifier)))
        unknown = sorted(set(verifier.templates) - set(names))
        if unknown:
            note(f"note: enrolled player(s) not at the table: {', '.join(unknown)}")
    onset = None
    if setup.demix_from is not None and not setup.room:
        from audio.hearing import demixed_from

        said: list[str] = []
        source, onset, left = demixed_from(source, setup.demix_from, channels, said)
        for line in said:
            note(line)
        if source.cancelled:  # (else the line above says it is left as it is)
            note(f"cancelling cross-talk measured on {setup.demix_from}" + (f" ({left:.0f} dB left)" if left is not None else ""))
    listener = Listener(names, channels, source.rate, recognizer, room=setup.room, verifier=verifier, onset=onset,
                        params=ListenParams(min_conf=setup.min_conf))
    pipe = Pipeline(["hearing"], [EachEventSink(on_event)], judge=False)
    heard = ListenerSource(source, listener)
    session = Session(pipe, [heard], lambda: SessionHeader(t=0.0, game=setup.game, players=tuple(names)))
    session.start_if_ready()
    try:
        session.run()
    except KeyboardInterrupt:
        pass
    if not heard.done:
        session.take(heard.end())
    pipe.finish()
    if getattr(source, "warning", None):  # (a demixed source passes the file's warning on)
        note(f"warning: {source.warning}")

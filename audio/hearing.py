"""Building the hearing of one table from plain inputs: the source of the seats' audio (a
file or a live device, with cross-talk cancelled) and the listener that turns its blocks
into ``shout`` events.

The pipeline (``referee.pipeline``) describes the table with a :class:`HearingPlan` — which
seat is on which channel, the measured seat-to-seat leakage, the enrollment folder, the
speech model — and never needs to know how hearing is put together; replay, ``referee
listen`` and the live referee all build their hearing here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from session.errors import MediaError


@dataclass(frozen=True)
class HearingPlan:
    """What hearing needs to know about a table (nothing else of its calibration)."""

    game: str
    mode: str | None
    #: seat name -> channel on the audio interface (seats without a channel are not heard)
    channels: Mapping[str, int]
    #: seat names in table order (the record's players)
    names: tuple[str, ...]
    #: seat-to-seat leakage measured at calibration (dB, negative), or None
    crosstalk_db: float | None = None
    #: folder of enrolled voice takes, or None
    enroll: Path | None = None
    model: str | None = None
    lang: str = "ja"
    demix: bool = True
    warnings: tuple[str, ...] = field(default_factory=tuple)


def open_source(video: Path, audio: Path | None, warnings: list[str], demix: bool = False,
                rate: int | None = None):
    """The recording's audio blocks, with cross-talk cancelled when ``demix`` (several seats):
    ``(source, heard_from)``, or ``(None, None)`` with a warning when there is no audio.
    ``rate``: the calibration's sample rate; a recording at another rate is resampled to it
    (``audio.capture.FileSource``; ``referee.preflight`` says so before the replay).

    Demixing reads the whole recording first (offline replay only) and measures the
    seat-to-seat leakage from the moments a seat speaks alone (``audio.demix``).
    """
    from audio.capture import FileSource

    if audio is not None:
        source, heard_from = FileSource(audio, rate=rate), audio
    else:
        try:
            source, heard_from = FileSource(video, rate=rate), video
        except MediaError as exc:
            warnings.append(f"no audio: {exc}; shouts are not heard (give the seats' recording with --audio)")
            return None, None
    if demix and source.channels > 1:
        from audio.demix import DemixedSource

        source = DemixedSource(source)
        if not source.applied:
            warnings.append("audio: seat-to-seat leakage could not be measured (no seat speaks alone, or the "
                            "channels are not close microphones); heard without cross-talk cancellation")
    return source, heard_from


def make_listener(plan: HearingPlan, source, warnings: list[str]):
    """The listener for ``source`` (None with a warning when no seat can be heard)."""
    from audio import lexicon, models
    from audio.listen import Listener
    from audio.recognize import Recognizer

    by_channel = {c: n for n, c in plan.channels.items() if c is not None}
    if not by_channel:
        warnings.append("calibration: no seat has an audio channel; shouts are not heard")
        return None
    # Listener maps channel k -> seats[k]; build that list (a seat without a channel is never heard)
    width = max(by_channel) + 1
    if source.channels < width:
        lost = sorted(n for c, n in by_channel.items() if c >= source.channels)
        warnings.append(f"audio has {source.channels} channel(s); seat(s) {', '.join(lost)} (channels "
                        f"{', '.join(str(c) for c, n in sorted(by_channel.items()) if n in lost)}) are not heard")
        width = source.channels
    chan_names = [by_channel.get(k, f"(channel {k})") for k in range(width)]
    recognizer = Recognizer(models.find(plan.model, plan.lang), lexicon.vocabulary(plan.game, plan.mode))
    verifier = None
    if plan.enroll is not None:
        from audio import enroll

        if not Path(plan.enroll).is_dir():
            warnings.append(f"enroll: folder {plan.enroll} not found; words from the speech model alone")
        else:
            verifier = enroll.from_folder(plan.enroll)
    onset = onset_params(plan.crosstalk_db, warnings, residual_db=getattr(source, "residual_db", None))
    if onset is not None:
        from audio.trim import TrimmingListener

        return TrimmingListener(chan_names, width, source.rate, recognizer, verifier=verifier, onset=onset,
                                crosstalk_db=-onset.crosstalk_db)
    return Listener(chan_names, width, source.rate, recognizer, verifier=verifier)


def onset_params(crosstalk_db, warnings: list[str], residual_db: float | None = None):
    """The onset detector's parameters for this table: the calibration's measured seat-to-seat
    leakage (``audio.crosstalk_db``, e.g. -10) sets how much of the loudest neighbour is
    subtracted. The detector's default (6 dB) over-subtracts a -10 dB leak by 2.5x, which
    hides the soft start of a second player's word under the first player's: on the demo
    12 of 35 onsets came 60-400 ms late or were lost (22 -> 13 found within 50 ms)."""
    from audio.onset import OnsetParams

    if residual_db is not None:  # cross-talk cancelled: see audio.demix.onset_params
        from audio.demix import onset_params as after_demix

        return after_demix(residual_db)
    leak = crosstalk_db
    if leak is None:
        return None
    if isinstance(leak, bool) or not isinstance(leak, (int, float)) or not -60 <= leak < 0:
        warnings.append(f"calibration audio.crosstalk_db: a negative number of dB expected, got {leak!r}; ignored")
        return None
    return OnsetParams(crosstalk_db=float(-leak))


class LiveDemixed:
    """A source with cross-talk cancelled block by block with a leakage measured beforehand
    (keeps ``rate``, ``channels`` and the source's warning)."""

    def __init__(self, source, leakage):
        self._source, self.rate, self._leakage = source, source.rate, leakage
        self.channels = getattr(source, "channels", None)

    @property
    def warning(self):
        return getattr(self._source, "warning", None)

    def __iter__(self):
        from audio.demix import live

        return live(self._source, self._leakage)


def demixed_from(source, recording: Path, channels: int):
    """``source`` with the leakage measured on ``recording`` cancelled, the onset detector's
    parameters for what is left, and the residual leak in dB; a recording that does not fit
    is one clear error."""
    from audio import demix
    from audio.capture import read_all

    samples, rate = read_all(recording)
    if rate != source.rate or samples.ndim != 2 or samples.shape[1] < channels:
        have = 1 if samples.ndim == 1 else samples.shape[1]
        raise MediaError(f"--demix-from {recording}: {have} channel(s) at {rate} Hz, but the input has {channels} "
                         f"at {source.rate} Hz: give a recording of this table made on the same interface")
    samples = samples[:, :channels]
    leakage = demix.estimate(samples)
    if not leakage.usable:
        raise MediaError(f"--demix-from {recording}: no seat-to-seat leakage could be measured (no seat speaks "
                         "alone, or the channels are not close microphones): record each seat saying a word alone")
    left = demix.residual_db(leakage.demix(samples))
    return LiveDemixed(source, leakage), (demix.onset_params(left) if left is not None else None), left

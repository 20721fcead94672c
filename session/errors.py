"""The error taxonomy: every problem the referee reports is one of these, with a message
that names what is wrong (a line, a field, a card) and, where it helps, how to fix it.

The CLI turns a :class:`RefereeError` into one line on stderr and a non-zero exit status;
anything else escaping is a bug.
"""

from __future__ import annotations


class RefereeError(Exception):
    """Base of every error the referee reports to a person."""


class EventError(RefereeError):
    """An event object breaks the session-record contract (docs/record.md)."""


class RecordError(RefereeError):
    """A session record cannot be used (missing file, no header, strict mode errors)."""


class RulesError(RefereeError):
    """A rules question cannot be answered (unknown game, card the deck lacks, bad option)."""


class UnknownGame(RulesError):
    pass


class UnknownCard(RulesError):
    pass


class IllegalAction(RulesError):
    """An action the game state does not allow now."""


class OptionError(RulesError):
    """A rule option has an unknown name or a value of the wrong kind."""


class ModelMissing(RefereeError):
    """A recognition model is not installed; the message says how to get it."""


class DeviceError(RefereeError):
    """A camera or microphone cannot be opened or stopped delivering."""


class MediaError(RefereeError):
    """A video, image or audio file is unreadable or has the wrong shape."""


class CalibrationError(RefereeError):
    """A calibration file is missing, malformed, or made for another table."""


class Stopped(KeyboardInterrupt):
    """The run was stopped from outside — Ctrl-C, or SIGTERM (``kill``, a service manager) —
    which is not an error: the CLI says how it was stopped and what was kept (``kept``: where
    the record up to then is), exit status 130 (143 for SIGTERM). A KeyboardInterrupt, so
    every ``except KeyboardInterrupt`` (the live loop's) handles SIGTERM the same way."""

    def __init__(self, how: str = "Ctrl-C", kept: str | None = None):
        super().__init__(how)
        self.how = how
        self.kept = kept


def unreadable_reason(path, exc: BaseException) -> str:
    """Why a media file could not be opened, in words: ``the file is empty (0 bytes)``, or
    the decoder's own reason without its error number and the path said again (FFmpeg's
    ``[Errno 1094995529] Invalid data found when processing input: '/x.wav'`` becomes
    ``invalid data found when processing input``)."""
    import os

    try:
        if os.path.getsize(path) == 0:
            return "an empty file, 0 bytes"
    except OSError:
        pass
    reason = getattr(exc, "strerror", None) or str(exc)
    return reason[:1].lower() + reason[1:] if reason[:2] != reason[:2].upper() else reason

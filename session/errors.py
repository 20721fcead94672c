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

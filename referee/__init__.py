"""table referee: judges a card table's reactions from a session record of events."""

__version__ = "0.1.0"

"""table referee: judges a card table's reactions from a session record of events."""

import session as _session  # noqa: F401 - one BLAS thread whatever was imported first (session.threads)

__version__ = "0.1.0"

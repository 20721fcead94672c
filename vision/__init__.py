"""Seeing the table: cards, raised hands and the token, as timed events (the only package
that imports mediapipe).

``OPENBLAS_NUM_THREADS=1`` is set before numpy is first imported through this package:
research measured 100 ms stalls of tiny matrix products under load without it.
"""

import os as _os

_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

"""Seeing the table: cards, raised hands and the token, as timed events (the only package
that imports mediapipe).

One BLAS thread (:mod:`session.threads`), set before numpy is first imported through this
package: research measured 100 ms stalls of tiny matrix products under load without it.
"""

import session as _session  # noqa: F401 - one BLAS thread (session.threads)

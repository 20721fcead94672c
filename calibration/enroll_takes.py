"""How many takes of each call the voice enrollment asks (``referee calibrate --enroll-takes``).

Kept apart from :mod:`calibration.enrollment` so the command line can name the range and the
default without loading the recording step (numpy and the take listener).
"""

#: takes per call: at least 2 (the verifier needs a second take to tell a call's spread),
#: at most 3 (each more costs every player ~2 s per call: docs/hearing.md, stop 50)
TAKES_RANGE = (2, 3)
#: takes per call asked when ``--enroll-takes`` is not given: a protocol choice within
#: :data:`TAKES_RANGE`, measured on voices never heard before (docs/hearing.md, stop 50)
DEFAULT_TAKES = 2

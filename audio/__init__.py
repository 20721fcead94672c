"""Perception from the microphones: shout onsets, words and speakers, as timed events.

The only package that imports vosk or sounddevice.
"""

import session as _session  # noqa: F401 - one BLAS thread whatever was imported first (session.threads)

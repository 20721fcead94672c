"""The calibration steps: pure functions from images and samples to findings and checks.

``referee calibrate`` has two front ends (an OpenCV window at a live table,
:mod:`calibration.interactive`; a recording, :mod:`calibration.recording`); both call
these steps, so what a step checks and what it tells a person to fix is the same in both
and is tested here on recorded input. A step returns its finding and a list of
:class:`Check` s (``ok`` / ``warn`` / ``fail``, with what to fix).

Steps and their self-checks:

- **cards** (:func:`find_card`, :func:`capture_reference`): a card shown alone is found as
  the card-shaped outline inside what changed against the empty table; its image must be
  sharp enough (variance of the Laplacian of the card warped to vision's canonical size
  >= :data:`MIN_SHARPNESS`) and be re-identified at once by :mod:`vision.cards` among the
  references captured so far (a look-alike = warning, another card or nothing = fail).
- **look-alikes** (:func:`lookalike_checks`): reference pairs vision may confuse
  (:meth:`vision.cards.References.lookalikes`) are listed and warned about.
- **field** (:func:`field_zone`): the zone around every card shown, widened by
  :data:`FIELD_MARGIN` card widths (cards are thrown, not placed).
- **seats** (:func:`seat_boxes`, :func:`refine_seats`): one column per player above the
  play area, the boundaries moved to half-way between neighbours' shoulders as pose finds
  them; every seat's person must be found by pose.
- **channels** (:func:`find_utterances`, :func:`channel_map`): each seat says a test word
  in turn; its channel is the loudest one and must stand >= :data:`DOMINANCE_DB` above the
  median of the others (research: a close mic is >= 5 dB above the rest when its seat
  speaks); two seats on one channel fail.

Each group of steps lives in its own module (:mod:`calibration.steps_cards`,
:mod:`calibration.steps_seats`, :mod:`calibration.steps_channels`,
:mod:`calibration.steps_clock`; the self-check in :mod:`calibration.steps_check`); this module
gathers them, so the front ends and the tests ask one place.
"""

from __future__ import annotations

from calibration.steps_check import Check, failed  # noqa: F401
from calibration.steps_cards import (CardCapture, DIFF_LEVEL, DIFF_SCALE, DUPLICATE_SCORE,  # noqa: F401
                                     FIELD_MARGIN, MIN_BLOB_FRACTION, MIN_CAMERA_WIDTH, MIN_CARD_PX, MIN_SHARPNESS,
                                     REF_MARGIN, camera_checks, capture_reference, changed_box, field_zone,
                                     find_card, lookalike_checks, reference_crop, sharpness, widen_box)
from calibration.steps_seats import PoseFn, default_pose, refine_seats, seat_boxes  # noqa: F401
from calibration.steps_channels import (DOMINANCE_DB, FRAME_S, MERGE_S, MIN_UTTERANCE_S, SPEECH_DB,  # noqa: F401
                                        VOICE_BAND, band_energy, channel_levels, channel_map, crosstalk_db,
                                        find_utterances, seat_corrections)
from calibration.steps_clock import (LIVE_CLOCKS, MIN_SLAP_SPEED, ONSET_FACTOR, ONSET_FLOOR,  # noqa: F401
                                     ONSET_NOISE_S, PLAUSIBLE_AV_OFFSET, audio_onset, av_offset, av_offset_checks)

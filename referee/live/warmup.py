"""The live run's warm-up: the vision stage run on the table's first image until it answers at
frame rate, before the session's clock starts (the pose workers load MediaPipe on their first
frames; without it the session's first seconds would be analysed at a frame a second)."""

from __future__ import annotations

import time

#: the warm-up ends when this many frames in a row took the stage less than WARM_FRAME_S
WARM_FRAMES, WARM_FRAME_S, WARM_MAX_S = 12, 0.08, 30.0
#: the warm-up's frames are stamped from here on (session s), one frame period apart, and
#: always before 0 (their events are dropped; a frame stamped in the session would put the
#: card zones' rings ahead of the camera's first frame): at most ``-WARM_FROM_S * fps - 1``
#: frames, 899 at 15 fps — the pose workers' warm-up needs a few dozen
WARM_FROM_S = -60.0


def first_image(opts, camera, cal):
    """An image of the table for the warm-up: the recording's first frame, or a frame from
    the camera (opened early; its stamps are re-based at the session start)."""
    import numpy as np

    if opts.from_video is not None:
        from vision.video import read_frames

        return next(iter(read_frames(opts.from_video))).image
    camera.open()
    frame = camera.next(timeout=5.0)
    return frame.image if frame is not None else np.zeros((cal.height, cal.width, 3), np.uint8)


def warm_up(stage, image, fps: float, align: int = 1) -> tuple[int, float]:
    """Run the vision stage on the table's first image until it answers at frame rate.

    The pose workers are spawned processes that load MediaPipe on their first frames (several
    seconds under load); without this the session's first seconds are analysed at a frame a
    second and the first card is missed. The frames are stamped before 0 and their events
    dropped: the stages only learn what the table looked like before the start. Returns the
    frames used (the session's frame count continues from there) and the seconds it took.

    The count ends at 1 modulo ``align`` (the card stride and every pose stride the session may
    take): session frame k is then
    analysed on the same schedule as frame k + 1 of ``video.mp4`` read back (its frame 0 is
    the copy at 0), so a replay of the recording looks at the same frames."""
    from vision.video import Frame

    t0 = time.monotonic()
    quick, n = 0, 0
    last = int(-WARM_FROM_S * fps) - 1  # (the last frame stamped before the session)
    while (quick < WARM_FRAMES or n % align != 1 % align) and time.monotonic() - t0 < WARM_MAX_S and n < last:
        c0 = time.monotonic()
        stage.update(Frame(n, round(WARM_FROM_S + n / fps, 6), image))
        n += 1
        cards = stage.tw.card_thread
        # (with the card zones on their thread: also until they keep up with the frames; without
        # pose workers nothing else paces the warm-up: each frame waits for the zones)
        settled = zones_settle(stage.tw, t0 + WARM_MAX_S) if stage.tw.workers is None else \
            cards is None or cards.backlog <= 2
        quick = quick + 1 if time.monotonic() - c0 < WARM_FRAME_S and settled else 0
    return n, round(time.monotonic() - t0, 2)


def zones_settle(tw, deadline: float) -> bool:
    """Wait (until ``deadline``, monotonic) for the card zones' thread to be done with every
    frame given to it; True when it is (or there is no such thread). Why: the warm-up gave
    frames as fast as the stage took them, and without seats (a game whose verdicts use no
    hands, ``rules.Game.uses_hands``) nothing slowed it: while the zones' thread started, the
    warm-up queued 830 000 frames in 30 s (each kept in the zones' rings, 2 GB), stamped up
    to 55 000 s into the session, and no card of the live TAKOYAKI demo was released. The
    pose workers' answers had paced it (with them the warm-up is as before: it goes on while
    the zones' backlog is over 2 frames, which also gives the workers more frames to warm up
    on — waiting for the zones there ended the IKATAKO demo's warm-up after 25 frames instead
    of ~480, and its paced run at load 15 gave 0 of 10 verdicts)."""
    cards = tw.card_thread
    if cards is None:
        return True
    while cards.in_flight and time.monotonic() < deadline:
        tw.take_cards()  # (the warm-up's events are dropped)
        time.sleep(0.002)
    return cards.in_flight == 0

"""Watching a recording without judging it (``referee watch``): the video alone through the
pipeline (reader thread → vision stage → merge), every card/hand/grab event handed to the
caller as soon as the merge releases it, in time order (warnings and skipped stretches go to
``on_warning`` as they happen)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from referee.pipeline.sinks import EachEventSink
from session.events import Event, SessionHeader


def watch(video: str | Path, calibration: str | Path, *, on_event: Callable[[Event], None], workers: int = 0,
          card_every: int = 1, pose_every: int = 1, on_progress: Callable[[int, int], None] | None = None,
          on_warning: Callable[[str], None] | None = None) -> int:
    """Perceive ``video`` with the table of ``calibration``; returns the number of events."""
    from referee.pipeline import recording
    from calibration import load
    from vision.cards import References
    from vision.table import TableLayout
    from vision.video import probe

    video, cal_path = Path(video), Path(calibration)
    cal = load(cal_path)
    warnings: list[str] = []
    if cal.card_zones:
        refs = References.from_folder(cal.references)
        warnings += [f"references {a} and {b} look alike ({s:.2f}); they may be reported as uncertain"
                     for a, b, s in refs.lookalikes()]
    info = probe(video)
    if (info.width, info.height) != (cal.width, cal.height):
        from session.errors import MediaError

        raise MediaError(f"{video} is {info.width}x{info.height}, the calibration is for {cal.width}x{cal.height}: "
                         "calibrate this camera setting")
    count = [0]

    def each(e: Event) -> None:
        if e.type not in ("warning", "skipped"):  # those go to on_warning as they happen
            count[0] += 1
            on_event(e)

    rec = recording.Recording(video=video, audio=None, layout=TableLayout.of(cal), hearing=None, info=info,
                              workers=workers, pose_every=pose_every, card_every=card_every, keep_landmarks=False)
    header = SessionHeader(t=0.0, game=cal.game, players=tuple(s.name for s in cal.seats))
    recording.run(rec, [EachEventSink(each)], lambda run: header, setup_warnings=warnings, on_progress=on_progress,
                  on_warning=on_warning, judge=False)
    return count[0]

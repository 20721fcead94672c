"""The dispute report of a live session (``OUT/report.html``), as ``referee demo`` and
``referee replay`` write one.

A live session leaves what a replay leaves — the record (``session.jsonl``), the camera's
``video.mp4`` and the seats' ``seats.wav`` — and its judgement; the report is drawn from
them by the same :mod:`referee.report` (the frames of each card, the words heard, the
unclear items for the table to settle). What a live session does not keep is the pose
landmarks of every frame (the pose workers hand back hand events only), so the report's
frames show the seats' boxes without the drawn skeleton.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from session.errors import RecordError


def write_live_report(result: Any, calibration: Path) -> Path | None:
    """Draw ``result.out/report.html`` for a finished :class:`referee.live.run.LiveResult`;
    None when there is nothing to report (no judgement: the session never started)."""
    from referee import report
    from referee.replay import Replay
    from session.calibration import load
    from session.record import read_record

    if result.judgement is None or not Path(result.record).is_file():
        return None
    rec = read_record(result.record)
    if rec.header is None:
        raise RecordError(f"{result.record}: no session header: no report")
    events = [e.to_dict() for e in rec.events]
    duration = max((float(e.get("t", 0.0)) for e in events), default=0.0)
    audio = Path(result.audio) if Path(result.audio).is_file() else None
    evidence = Replay(video=Path(result.video), audio=audio, out=Path(result.out), record=Path(result.record),
                      header=rec.header.to_dict(), events=events, judgement=result.judgement, landmarks={},
                      warnings=list(result.warnings), duration=duration, elapsed={}, calibration=load(calibration),
                      enrolled=bool(rec.header.extra.get("source", {}).get("enrolled")))
    report.write(evidence, html=True, video=False)
    return evidence.report

"""A fake pipeline run for the live views: the demo's true events fed to a sink the way the
pipeline does — events in order, each card's verdict line when the next card is revealed
(when a versus verdict becomes final), the judgement at the end; the view's scoreboard
reads an incremental judge fed alongside, as the live driver wires it. The lines come from the
batch judgement, so this works whether or not a game's judge is incremental yet."""

from __future__ import annotations

from pathlib import Path

from session import calibration as cal_mod
from session.record import read_record
from session.events import CardEvent
from referee.judge import judge

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"


def demo_clip(folder: Path, seconds: float) -> tuple[Path, Path]:
    """The demo's first ``seconds`` (``clip.mp4`` and ``seats.wav`` in ``folder``), made from
    the repo's own fixture: a recording short enough to play paced in a test."""
    import wave

    from vision.video import read_frames, write_video

    video, wav = folder / "clip.mp4", folder / "seats.wav"
    write_video(video, (f.image for f in read_frames(DEMO / "session.mp4") if f.t < seconds - 1e-6), fps=30)
    with wave.open(str(DEMO / "seats.wav")) as src, wave.open(str(wav), "wb") as dst:
        dst.setparams(src.getparams())
        dst.writeframes(src.readframes(int(seconds * src.getframerate())))
    return video, wav


def demo_calibration():
    return cal_mod.load(DEMO / "calibration.json")


def demo_record():
    return read_record(DEMO / "truth.jsonl")


def drive(sink, until: float | None = None, status: dict | None = None):
    """Feed the demo's events (up to ``until`` s) to ``sink``; returns the judgement."""
    from referee.judge import IncrementalJudge
    from referee.live.state import scoreboard

    record = demo_record()
    judgement = judge(record)
    pending = [v for v in judgement.lines if v.get("type") == "verdict"]
    inc = IncrementalJudge(record.header)  # the scoreboard is the judge's state, as live
    if getattr(sink, "state", None) is not None:
        sink.state.scores_from = lambda: scoreboard(inc)
    sink.start(record.header)
    if status:
        sink.status(status)
    for ev in record.events:
        if until is not None and ev.t > until:
            break
        inc.feed(ev)
        if isinstance(ev, CardEvent):
            final = [v for v in pending if v["t"] < round(ev.t, 3)]  # verdict times are in ms
            pending = pending[len(final):]
            if final:
                sink.verdicts(final)
        sink.event(ev)
        if status:
            sink.status(status)
    if until is None:
        sink.verdicts(pending)
        sink.finish(judgement)
    return judgement


def demo_state(folder: Path, until: float = float("inf"), extra=(), verdicts: bool = True):
    """The live state after a camera demo's truth events up to ``until`` (``folder``'s
    truth.jsonl, as the merge releases them, with ``extra`` events in time order) and its
    replay's verdicts (expected.jsonl) said by then."""
    import json

    from referee.live.state import LiveState, StateSink

    record = read_record(folder / "truth.jsonl")
    state = LiveState(cal_mod.load(folder / "calibration.json"), voice="on")
    sink = StateSink(state)
    sink.start(record.header)
    expected = [json.loads(s) for s in (folder / "expected.jsonl").read_text().splitlines() if s.strip()]
    lines = [v for v in expected if v.get("type") == "verdict"] if verdicts else []
    for ev in sorted([e for e in record.events if e.t <= until] + list(extra), key=lambda e: e.t):
        sink.event(ev)
        sink.verdicts([v for v in lines if v["t"] == ev.t])
    return state

"""One pipeline for replay, live play and teaching.

    sources ──► stages ──► watermark merge ──► record ──► incremental judge ──► sinks
    (frames,    (vision,    (time order, as      (session.   (verdicts as soon   (terminal, JSON
     audio,      hearing,    soon as no earlier   jsonl,      as final, early     lines, report,
     keys)       controls)   event can arrive)    flushed)    announcements)      window, voice)

:mod:`~referee.pipeline.core` is the spine (merge → record → judge → sinks) that every use
shares; :mod:`~referee.pipeline.recording` drives it from files (replay, ``referee demo``);
:mod:`~referee.pipeline.hearing` and :mod:`~referee.pipeline.vision` are the stages with the
threads and processes they need; :mod:`~referee.pipeline.sinks` the sinks' one interface.
"""

from referee.pipeline.core import Pipeline
from referee.pipeline.merge import WatermarkMerge
from referee.pipeline.sinks import CollectSink, RecordSink, Sink

__all__ = ["CollectSink", "Pipeline", "RecordSink", "Sink", "WatermarkMerge"]

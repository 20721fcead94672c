"""Live play at the table: the views (window, terminal), the table's controls and the
pre-game self-test — sinks and sources of events for the pipeline (``referee.pipeline``)."""

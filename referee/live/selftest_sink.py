"""The self-test's sink: the live run's events and levels gathered for
:func:`referee.live.selftest.evaluate`, and its screen drawn, until every seat passed."""

from __future__ import annotations

from session.events import Event

from referee.pipeline.sinks import Sink

#: once every seat passed, the self-test screen stays this long so the table sees it
SELFTEST_SHOW_S = 2.0


class SelfTestSink(Sink):
    """Collects what the self-test needs (hand and shout events, each seat's peak level) and
    draws the self-test's screen; :meth:`done` once every seat passed (and was shown)."""

    def __init__(self, players, channels: dict, params):
        self.players, self.channels, self.params = list(players), channels, params
        self.events: list[Event] = []
        self.levels: dict[str, list[float]] = {p: [] for p in players}
        self._passed_at: float | None = None
        self.now = 0.0

    def event(self, event):
        self.events.append(event)

    def status(self, info):
        self.now = float(info.get("now", self.now))
        peaks = info.get("peaks") or []
        for p, ch in self.channels.items():
            if ch is not None and ch < len(peaks) and peaks[ch] is not None:
                self.levels[p] = [peaks[ch]]
        if self._passed_at is None and self.result().passed:
            self._passed_at = self.now

    def result(self):
        from referee.live.selftest import evaluate

        return evaluate(self.players, self.events, self.levels, params=self.params)

    def done(self, now: float) -> bool:
        return self._passed_at is not None and now - self._passed_at >= SELFTEST_SHOW_S

    def image(self, state):
        from referee.live.selftest import render

        return render(self.result())

    def text(self, state):
        from referee.live.selftest import render_text

        return render_text(self.result())

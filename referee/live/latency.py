"""How late the live referee is, stage by stage, on the session clock: the figures of
``OUT/live-figures.json`` and of the live benchmarks (``benchmarks/bench_live_compare.py``,
``bench_live_soak.py``). A sink like any other: it reads the events, verdicts and
announcements as the merge releases them and never changes them."""

from __future__ import annotations

import time

from referee.live.word_split import WordSplit
from referee.pipeline.sinks import Sink

#: after a card's reveal: the stretch in which the frames the stage took are counted (figures)
REVEAL_SPAN_S = 1.5


class LatencyProbe(Sink):
    """Per-stage latency on the session clock (the benchmark's figures): how long after it
    happened each event was released by the merge (``event``: capture → event known), each
    verdict after its card's window closed and each announcement after the moment it names
    (``t``), the vision stage's time per frame and a frame's age when the stage took it."""

    def __init__(self):
        self._t0: float | None = None
        self.known: dict[str, list[float]] = {}
        self.verdict_ms: list[float] = []
        self.announce_ms: list[float] = []
        self.first_ms: list[float] = []
        self.tie_s = 0.033
        self.stage_ms: list[float] = []
        self.frame_age_ms: list[float] = []
        self.pose_lag_ms: list[float] = []  # the clock minus the newest frame whose hands are known
        self.found_ms: dict[str, list[float]] = {}  # capture -> the stage found it (before the merge)
        self.marks: dict[str, float] = {}  # each perceiving stream's last watermark
        self.mark_lag_ms: dict[str, list[float]] = {}  # the clock minus each stream's watermark
        self.parts: dict[str, list[float]] = {}  # the parts of a hand's and a shout's latency
        self.taken_t: list[float] = []  # capture times of the frames the vision stage took
        #: per reaction event (type, player, t): when a stage handed it over and when the merge released it
        self._found_at: dict[tuple, float] = {}
        self._released_at: dict[tuple, float] = {}
        self._reactions: dict[str, list[tuple[float, str, float | None]]] = {}  # player -> (t, type, t_end)
        self.first_split: list[dict[str, float]] = []  # the parts of a first-correct announcement's latency
        self.card_t: list[float] = []  # the cards' times (released)
        self.words = WordSplit()  # a first correct player's word: its end -> announced, step by step

    def found(self, events, confirmed_at: float | None = None) -> None:
        """Events as a stage hands them over (vision after a frame, hearing per batch): the
        part of the latency before the merge; the rest is the merge waiting for the slowest
        stream's watermark. Split further: a hand's onset → the capture of the frame that
        confirmed it (``confirmed_at``: the motion to a raised arm and the analysed frames the
        stride needs) → found (the frames in flight, the pose and re-analysis); a shout's
        onset → its end (the word being said) → found (the onset detector's hangover, the
        decoding and the batch)."""
        now = self._now()
        if now is None:
            return
        for ev in events:
            if ev.type in ("hand", "shout") and ev.t >= 0:
                self._found_at.setdefault((ev.type, ev.player, ev.t), now)
            if ev.type in ("card", "hand", "shout", "grab") and ev.t >= 0:
                self.found_ms.setdefault(ev.type, []).append((now - ev.t) * 1000)
                if ev.type == "hand" and confirmed_at is not None and confirmed_at >= ev.t:
                    self.parts.setdefault("hand_onset_to_confirming_frame", []).append((confirmed_at - ev.t) * 1000)
                    self.parts.setdefault("hand_confirming_frame_to_found", []).append((now - confirmed_at) * 1000)
                t_end = getattr(ev, "t_end", None)
                if ev.type == "shout" and isinstance(t_end, (int, float)) and t_end >= ev.t:
                    self.parts.setdefault("shout_utterance", []).append((t_end - ev.t) * 1000)
                    self.parts.setdefault("shout_end_to_found", []).append((now - t_end) * 1000)

    def vision_parts(self, now: float, tw) -> None:
        """What holds the vision watermark back: the card zones' bound or the seats' (an arm
        in the middle of a change holds it at the change)."""
        cards, seats = tw.card_marks(), tw.seat_marks()
        for name, marks in (("vision_cards", cards), ("vision_seats", seats)):
            marks = [m for m in marks if m is not None and m > -1e9]
            if marks:
                self.mark_lag_ms.setdefault(name, []).append((now - min(marks)) * 1000)

    def mark_lags(self, now: float) -> None:
        for name, mark in self.marks.items():
            if mark > -1e9:
                self.mark_lag_ms.setdefault(name, []).append((now - mark) * 1000)
        self.window = 3.0

    def start_clock(self, start: float) -> None:
        self._t0 = start
        self.words.start_clock(start)

    def hearing_times(self, rows: list[dict]) -> None:
        """The hearing's timings of its shouts (``HeardEvents.timings``) as the loop takes them."""
        self.words.timings(rows, self.marks)

    def _now(self) -> float | None:
        return None if self._t0 is None else time.monotonic() - self._t0

    def start(self, header):
        from rules import get

        opts = get(header.game).resolve_options(dict(header.options))
        self.window = float(opts.get("window", 3.0) or 3.0)
        self.tie_s = float(opts.get("tie_ms", 33) or 0) / 1000

    def event(self, event):
        now = self._now()
        if now is not None and event.type in ("card", "hand", "shout", "grab"):
            self.known.setdefault(event.type, []).append((now - event.t) * 1000)
        if event.type == "card" and event.t >= 0:
            self.card_t.append(event.t)
        if now is not None and event.type in ("hand", "shout") and event.t >= 0 and event.player:
            self._released_at.setdefault((event.type, event.player, event.t), now)
            t_end = getattr(event, "t_end", None) if event.type == "shout" else None
            self._reactions.setdefault(event.player, []).append((event.t, event.type, t_end))

    def verdicts(self, lines):
        now = self._now()
        for v in lines:
            if now is not None and v.get("type") == "verdict" and isinstance(v.get("t"), (int, float)):
                self.verdict_ms.append((now - (v["t"] + self.window)) * 1000)

    def announce(self, items):
        """First/tie: after the reaction plus the tie window; wrong/missed: after the window."""
        now = self._now()
        for a in items:
            card_t = a.get("card_t")
            if now is None or not isinstance(card_t, (int, float)):
                continue
            if a.get("what") in ("first", "tie") and isinstance(a.get("time"), (int, float)):
                self.first_ms.append((now - (card_t + a["time"] + self.tie_s)) * 1000)
                self._split(a, card_t + a["time"], now)
            elif a.get("what") in ("wrong", "missed", "nobody"):
                self.announce_ms.append((now - (card_t + self.window)) * 1000)

    def _split(self, a: dict, reaction: float, now: float) -> None:
        """Where a first-correct announcement's latency went, after the reaction + the tie
        window: the reaction's event (the word when the word timed it — RULES.md: the later of
        hand and word —, else the hand) found by its stage, released by the merge, announced;
        for a word also its end (said) — the floor no recogniser can beat."""
        player = a.get("player") or (a.get("players") or [None])[0]
        near = [r for r in self._reactions.get(player, []) if abs(r[0] - reaction) <= 0.002]
        if not near:
            return
        t, kind, t_end = min(near, key=lambda r: (abs(r[0] - reaction), r[1] != "shout"))
        target = reaction + self.tie_s
        row = {"kind": kind, "announced": (now - target) * 1000}
        if (kind, player, t) in self._found_at:
            row["found"] = (self._found_at[(kind, player, t)] - target) * 1000
        if (kind, player, t) in self._released_at:
            row["released"] = (self._released_at[(kind, player, t)] - target) * 1000
        if isinstance(t_end, (int, float)):
            row["word_end"] = (t_end - target) * 1000
            self.words.first(player, t, t_end, self._released_at.get((kind, player, t)), now)
        self.first_split.append(row)

    def figures(self) -> dict:
        def stats(xs):
            if not xs:
                return None
            ys = sorted(xs)
            return {"n": len(ys), "median": round(ys[len(ys) // 2]), "p95": round(ys[min(len(ys) - 1, int(0.95 * len(ys)))]),
                    "max": round(ys[-1])}

        return {"event_known_ms": {k: stats(v) for k, v in sorted(self.known.items())},
                "event_found_ms": {k: stats(v) for k, v in sorted(self.found_ms.items())},
                "watermark_lag_ms": {k: stats(v) for k, v in sorted(self.mark_lag_ms.items())},
                "parts_ms": {k: stats(v) for k, v in sorted(self.parts.items())},
                "verdict_after_window_ms": stats(self.verdict_ms),
                "first_announced_after_reaction_and_tie_ms": stats(self.first_ms),
                "wrong_missed_announced_after_window_ms": stats(self.announce_ms),
                "stage_ms": stats(self.stage_ms), "frame_age_ms": stats(self.frame_age_ms),
                "pose_lag_ms": stats(self.pose_lag_ms), "after_reveal": self.after_reveal(),
                "first_split_ms": {kind: {part: stats([r[part] for r in self.first_split if r["kind"] == kind and part in r])
                                          for part in ("word_end", "found", "released", "announced")}
                                   for kind in sorted({r["kind"] for r in self.first_split})},
                "after_word_end_ms": self.words.figures()}

    def after_reveal(self, span_s: float = REVEAL_SPAN_S) -> dict | None:
        """The stall after a card's reveal, per card: the longest gap between frames the vision
        stage took and how many it took in the ``span_s`` after the card's time."""
        if not self.card_t or not self.taken_t:
            return None
        import bisect

        gaps, taken = [], []
        ts = sorted(self.taken_t)
        for c in self.card_t:
            a, b = bisect.bisect_left(ts, c), bisect.bisect_right(ts, c + span_s)
            inside = [c] + ts[a:b] + [c + span_s]
            gaps.append(max(y - x for x, y in zip(inside, inside[1:])) * 1000)
            taken.append(b - a)
        ys = sorted(gaps)
        return {"cards": len(gaps), "span_s": span_s, "longest_gap_ms": {"median": round(ys[len(ys) // 2]),
                                                                     "max": round(ys[-1])},
                "frames_taken": {"median": sorted(taken)[len(taken) // 2], "min": min(taken)}}

"""Where a first correct player's announcement goes after the deciding word ends (live figures,
``live-figures.json`` ``latency.after_word_end_ms``; issue 35's target: ≤ 200 ms, median).

Every step on the session clock, in ms after the word's end (``t_end``, the last loud frame:
no recogniser can name a call before it is said):

* ``heard_to``: the audio the hearing had read when the detector decided the word's end
  (the quiet the end needs, ``OnsetParams.quick_end_s``, and the block it falls in);
* ``decided``: when it decided it (plus the hearing thread's lag behind the capture);
* ``ready``: handed to the recogniser (no other seat could still start a word before it);
* ``read``: its words read (the enrolled voices and the speech engine; ``by`` says which
  decided, ``cpu_ms`` what each cost);
* ``sent``: the hearing's message left (its batch);
* ``taken``: the live loop took it (its round: the camera's next frame, the vision stage);
* ``released``: the merge released it (``held_by``: the streams whose promise was still
  before the word's onset when it was taken);
* ``announced``: the judge announced the player.
"""

from __future__ import annotations

import time

#: the steps, in order
STEPS = ("heard_to", "decided", "ready", "read", "sent", "taken", "released", "announced")


class WordSplit:
    """The hearing's timings of each shout (``HeardEvents.timings``) joined with when the live
    loop took it, the merge released it and the judge announced it."""

    def __init__(self):
        self._t0: float | None = None
        self._rows: dict[tuple, dict] = {}
        self.split: list[dict] = []

    def start_clock(self, start: float) -> None:
        self._t0 = start

    def timings(self, rows: list[dict], marks: dict[str, float]) -> None:
        """A hearing batch's rows as the loop takes it; ``marks``: each stream's promise then."""
        if self._t0 is None:
            return
        now = time.monotonic()
        for r in rows:
            if r.get("player") is None or not isinstance(r.get("t"), (int, float)):
                continue
            row = {k: r[k] - self._t0 for k in ("decided", "ready", "read", "sent") if isinstance(r.get(k), float)}
            row["taken"] = now - self._t0
            if isinstance(r.get("heard_to"), (int, float)):
                row["heard_to"] = float(r["heard_to"])
            row["by"] = r.get("by")
            row["cpu_ms"] = {k: r[k] for k in ("prepare_cpu_ms", "decode_cpu_ms") if k in r}
            row["held_by"] = sorted(s for s, m in marks.items() if s != "hearing" and m <= r["t"])
            self._rows[(r["player"], round(float(r["t"]), 4))] = row
        if len(self._rows) > 512:  # (a long session: the oldest words were never a first)
            for key in list(self._rows)[:256]:
                del self._rows[key]

    def first(self, player: str, t: float, t_end: float, released: float | None, announced: float) -> None:
        """A first correct player announced (session clock), timed by the word at ``t``."""
        row = self._rows.get((player, round(t, 4)))
        if row is None:
            return
        ms = {k: (row[k] - t_end) * 1000 for k in STEPS[:-2] if k in row}
        if released is not None:
            ms["released"] = (released - t_end) * 1000
        ms["announced"] = (announced - t_end) * 1000
        self.split.append({"ms": ms, "by": row["by"], "cpu_ms": row["cpu_ms"], "held_by": row["held_by"]})

    def figures(self) -> dict | None:
        if not self.split:
            return None
        out: dict = {k: stats([s["ms"][k] for s in self.split if k in s["ms"]]) for k in STEPS}
        for k in ("prepare_cpu_ms", "decode_cpu_ms"):
            out[k] = stats([s["cpu_ms"][k] for s in self.split if k in s["cpu_ms"]])
        out["by"] = _counts(s["by"] for s in self.split)
        out["held_by"] = _counts(",".join(s["held_by"]) or "nothing" for s in self.split)
        out["words"] = [dict(s, ms={k: round(v) for k, v in s["ms"].items()}) for s in self.split]
        return out


def stats(xs) -> dict | None:
    """Median, p90, max and the count of ``xs`` (ms, rounded), None when empty."""
    ys = sorted(xs)
    if not ys:
        return None
    return {"n": len(ys), "median": round(ys[len(ys) // 2]), "p90": round(ys[min(len(ys) - 1, int(0.9 * len(ys)))]),
            "max": round(ys[-1])}


def _counts(xs) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in xs:
        out[str(x)] = out.get(str(x), 0) + 1
    return out

"""The pipeline's spine: released events reach every sink in canonical order and the judge
says each verdict as soon as it is final — the same verdicts batch judging gives."""

import json

from referee.judge import judge
from referee.pipeline import CollectSink, Pipeline, RecordSink
from session.events import Event, SessionHeader
from session.record import parse_lines, read_record

HEADER = {"t": 0.0, "type": "session", "game": "ikatako", "mode": "versus", "players": ["aki", "ben"],
          "options": {}}
EVENTS = [
    {"t": 1.0, "type": "card", "card": "tako", "zone": "field"},
    {"t": 1.30, "type": "hand", "player": "aki", "side": "left", "state": "up"},
    {"t": 1.35, "type": "shout", "player": "aki", "words": ["tako"]},
    {"t": 1.50, "type": "shout", "player": "ben", "words": ["ika"]},
    {"t": 2.5, "type": "hand", "player": "aki", "side": "left", "state": "down"},
    {"t": 5.0, "type": "card", "card": "3", "zone": "field"},
    {"t": 5.4, "type": "shout", "player": "ben", "words": ["3"]},
    {"t": 9.0, "type": "hand", "player": "ben", "side": "right", "state": "up"},
]


def _run(tmp_path, order):
    """Feed the events through two streams (vision: cards and hands; hearing: shouts) in
    ``order``, each stream's watermark trailing its newest event by 0.1 s."""
    collect = CollectSink()
    said: list[list] = []

    class Said(CollectSink):
        def verdicts(self, lines):
            said.append([(line["type"], line.get("card")) for line in lines])

    pipe = Pipeline(["vision", "hearing"], [RecordSink(tmp_path / "s.jsonl"), collect, Said()])
    pipe.start(SessionHeader.from_dict(HEADER))
    marks = {"vision": -1.0, "hearing": -1.0}
    for i in order:
        e = EVENTS[i]
        stream = "hearing" if e["type"] == "shout" else "vision"
        pipe.push(stream, [Event.from_dict(e)])
        marks[stream] = max(marks[stream], e["t"] - 0.1)
        pipe.advance(stream, marks[stream])
        said.append(("after", e["t"]))
    judgement = pipe.finish()
    for s in pipe.sinks:
        s.close()
    return collect, said, judgement


def test_events_reach_the_sinks_in_time_order_and_verdicts_match_batch_judging(tmp_path):
    collect, said, judgement = _run(tmp_path, [0, 2, 1, 3, 4, 6, 5, 7])
    assert [e.t for e in collect.events] == sorted(e["t"] for e in EVENTS)
    batch = judge(parse_lines([json.dumps(HEADER)] + [json.dumps(e) for e in EVENTS]))
    assert judgement.jsonl() == batch.jsonl()
    record = read_record(tmp_path / "s.jsonl")
    assert record.issues == [] and len(record.entries) == len(EVENTS)
    assert judge(record).jsonl() == batch.jsonl()


def test_a_card_verdict_is_said_once_the_next_card_is_released(tmp_path):
    _, said, _ = _run(tmp_path, range(len(EVENTS)))
    first = next(i for i, x in enumerate(said) if isinstance(x, list) and ("verdict", "tako") in x)
    # final when the next card (t=5.0) is released, i.e. once every stream passed it: after
    # the shout at 5.4 moved the hearing stream's watermark beyond it — not at the end
    assert said[first - 1] == ("after", 5.4) and ("after", 9.0) in said[first:]

"""Property tests at the edges: numbers at the ends of the float range and beyond it,
NaN/Infinity, lone surrogates and control characters, deep nesting — through the record
reader, the judge, the people's table and the JSON lines, and through every rule option.
Nothing but a :class:`RefereeError` may come out; what is accepted is in range."""

from __future__ import annotations

import json
import math

from hypothesis import HealthCheck, given, settings, strategies as st

import rules
from referee import announce
from referee.judge import judge
from session.errors import OptionError, RefereeError
from session.events import MAX_SESSION_S, Event
from session.record import parse_lines, read_record

HEADERS = {
    "ikatako": {"t": 0.0, "type": "session", "game": "ikatako", "mode": "versus", "players": ["aki", "ben"]},
    "mokochaka": {"t": 0.0, "type": "session", "game": "mokochaka", "players": ["aki", "ben"]},
    "takoyaki": {"t": 0.0, "type": "session", "game": "takoyaki", "players": ["aki", "ben"]},
}

# every character, surrogates (category Cs) and controls included
any_text = st.text(st.characters(blacklist_categories=()), max_size=12)
edge_floats = st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1e-300, 1e308, -1e308, 1.7976931348623157e308,
                               MAX_SESSION_S, math.nextafter(MAX_SESSION_S, math.inf), math.inf, -math.inf,
                               math.nan])
numbers = st.one_of(st.floats(), edge_floats, st.integers(), st.integers(min_value=-10 ** 500, max_value=10 ** 500))
leaf = st.one_of(st.none(), st.booleans(), numbers, any_text)
values = st.recursive(leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(any_text, c, max_size=3),
                      max_leaves=12)
deep = st.integers(min_value=1, max_value=3000).map(lambda n: json.loads("[" * min(n, 900) + "]" * min(n, 900)))

EVENT_FIELDS = {
    "card": ["card", "zone", "by", "conf"], "hand": ["player", "side", "state", "conf"],
    "shout": ["player", "words", "t_end", "text", "conf"], "grab": ["player", "conf"], "decision": ["first"],
    "choice": ["player", "action", "card", "to"], "correction": ["ref", "replace"], "end": [],
    "warning": ["message"], "skipped": ["what", "from", "to", "reason"], "audio_status": ["state", "detail"],
    "session": ["game", "players", "options"],
}
GOOD = {"card": "2", "zone": "field", "by": "aki", "conf": 0.9, "player": "aki", "side": "left", "state": "up",
        "words": ["2"], "t_end": 1.0, "text": "ni", "first": "aki", "action": "penalty", "to": "ben", "ref": 2,
        "replace": None, "message": "m", "what": "audio", "from": 0.0, "reason": "r", "detail": "d",
        "game": "ikatako", "players": ["aki"], "options": {}}


@st.composite
def events(draw):
    kind = draw(st.sampled_from(sorted(EVENT_FIELDS)))
    obj = {"t": draw(st.one_of(st.floats(0, 100), numbers)), "type": kind}
    for f in EVENT_FIELDS[kind]:
        obj[f] = draw(st.one_of(st.just(GOOD[f]), values))  # mostly right, sometimes anything
    if draw(st.booleans()):
        obj[draw(any_text)] = draw(st.one_of(values, deep))
    return obj


def _dump(obj) -> str:
    try:
        return json.dumps(obj, ensure_ascii=False)
    except (ValueError, RecursionError):  # ints of 4300+ digits cannot even be written
        return '{"t": 1, "type": "end"}'


def _judge_and_show(lines: list[str]) -> None:
    record = parse_lines(lines)
    for issue in record.issues:
        assert issue.line >= 1 and issue.message and "\n" not in issue.message
    try:
        judgement = judge(record, {})
    except RefereeError:
        return
    text = announce.table(judgement, record.header) + judgement.jsonl()
    text.encode("utf-8", "backslashreplace")
    assert "\x1b" not in announce.table(judgement, record.header)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(HEADERS)), st.lists(events(), max_size=8))
def test_any_edge_event_is_an_issue_or_judged(game, objs):
    _judge_and_show([json.dumps(HEADERS[game])] + [_dump(o) for o in objs])


@settings(max_examples=300, deadline=None)
@given(numbers)
def test_times_are_accepted_only_within_the_session_length(t):
    obj = {"t": t, "type": "end"}
    try:
        ev = Event.from_dict(obj)
    except RefereeError:
        assert not (isinstance(t, (int, float)) and math.isfinite(float(t) if abs(t) < 1e308 else math.inf)
                    and abs(t) <= MAX_SESSION_S)
        return
    assert math.isfinite(ev.t) and abs(ev.t) <= MAX_SESSION_S


@settings(max_examples=200, deadline=None)
@given(numbers)
def test_conf_is_accepted_only_in_0_1(conf):
    try:
        ev = Event.from_dict({"t": 1.0, "type": "grab", "player": "aki", "conf": conf})
    except RefereeError:
        return
    assert 0.0 <= ev.conf <= 1.0


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300).map(lambda b: b"\n".join([json.dumps(HEADERS["ikatako"]).encode(), b]))
       | st.integers(1, 20000).map(lambda n: (json.dumps(HEADERS["ikatako"]) + "\n" + "[" * n).encode()))
def test_raw_bytes_and_deep_nesting_are_line_issues(raw):
    record = read_record(raw)
    assert record.header is not None
    judge(record, {})


OPTIONS = [(game, o) for game in rules.names() for o in rules.get(game).options]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(OPTIONS), st.one_of(values, deep))
def test_every_rule_option_takes_a_checked_value_or_one_line(pair, value):
    game, option = pair
    try:
        got = option.check(value)
    except OptionError as exc:
        assert "\n" not in str(exc) and option.name in str(exc) and len(str(exc)) < 300
        return
    if isinstance(got, float):
        assert math.isfinite(got)
    if isinstance(got, (int, float)) and not isinstance(got, bool):
        assert option.minimum is None or got >= option.minimum
        assert option.maximum is None or got <= option.maximum
        if option.exclusive_minimum:
            assert got > option.minimum

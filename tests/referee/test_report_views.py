"""The dispute report reads each game's verdicts through the game's own description
(``describe`` in its judging module): a MOKOCHAKA report shows the calls, the grab order and
the penalties; an IKATAKO one hands and words; a game without a description every field."""

from __future__ import annotations

import re

import pytest

from referee import report
from referee.judge import judge
from referee.judging import view
from session.record import read_record
from tests.conftest import FIXTURES

SESSIONS = FIXTURES / "sessions"


def _verdicts(name):
    record = read_record(SESSIONS / name)
    lines = judge(record).lines
    return record.header.game, [v for v in lines if v["type"] == "verdict"]


def _plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_mokochaka_shows_calls_grab_order_and_penalties():
    game, verdicts = _verdicts("mokochaka_4p_game.jsonl")
    describe = report._describe(game)
    wrong = next(v for v in verdicts if v["penalties"] and v["penalties"][0]["reason"] == "wrong_call")
    desc = describe(wrong)
    html = report._facts(desc, report.CardView(wrong, wrong["t"], wrong["t"] + 3, {}))
    player = wrong["penalties"][0]["player"]
    assert f'<span class="bad">{player}</span> gives 1 card(s) to {wrong["penalties"][0]["to"]}' in html
    assert f"said {wrong['call']}" in _plain(html) and " | ".join(wrong["accepted"]) in _plain(html)
    grabbed = next(v for v in verdicts if v["grab_winner"])
    html = report._facts(describe(grabbed), report.CardView(grabbed, grabbed["t"], grabbed["t"] + 3, {}))
    assert f'<span class="ok">{grabbed["grab_winner"]}</span> +' in html and "(wins the token)" in html
    assert "takes pile(s)" in _plain(html)
    summary = report._summary([report.CardView(v, v["t"], v["t"] + 3, {}) for v in verdicts],
                              [describe(v) for v in verdicts])
    assert "<th>calls</th>" in summary and "<th>token</th>" in summary and "<th>penalties</th>" in summary
    assert summary.count("<tr>") == len(verdicts) + 1


@pytest.mark.parametrize("name", ["demo_ikatako_versus.jsonl", "ikatako_coop.jsonl", "ikatako_solo.jsonl"])
def test_ikatako_shows_the_expected_reaction_and_who_was_right(name):
    game, verdicts = _verdicts(name)
    describe = report._describe(game)
    for v in verdicts:
        desc = describe(v)
        html = _plain(report._facts(desc, report.CardView(v, v["t"], v["t"] + 3, {})))
        assert "expected" in html
        for p in v.get("wrong", []):
            assert desc.status[p] == "bad" and p in html
        if "ok" in v:
            assert desc.status[v["player"]] == ("ok" if v["ok"] else "bad")


def test_a_game_without_a_description_shows_every_field():
    desc = view.generic({"type": "verdict", "t": 1.0, "card": "7H", "player": "aki", "legal": True})
    html = _plain(report._facts(desc, report.CardView({}, 1.0, 4.0, {})))
    assert "7H" in html and "aki" in html and "true" in html
    assert report._cell([]) == "-"
    assert report._cell([[("a<b", "bad")]]) == '<span class="bad">a&lt;b</span>'


@pytest.mark.parametrize("mode", ["coop", "solo"])
def test_the_result_of_a_team_that_sank_is_shown(mode, tmp_path):
    """A co-op/solo result says whether the team sank with a bool (versus: a list of players)."""
    players = ["aki", "ben"] if mode == "coop" else ["aki"]
    lines = [f'{{"t": 0.0, "type": "session", "game": "ikatako", "mode": "{mode}", "players": {players!r}}}'.replace("'", '"')]
    # every card a miss (nobody reacts): the team sinks
    lines += [f'{{"t": {1.0 + 4 * k}, "type": "card", "card": "4", "by": "aki"}}' for k in range(12)]
    path = tmp_path / "sank.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    judgement = judge(read_record(path), {})
    result = [x for x in judgement.lines if x.get("type") == "result"][-1]
    assert result["sunk"] is True
    page = report._result(judgement)
    assert "sunk" in page and "Traceback" not in page

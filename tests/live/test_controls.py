"""The table's keys: pure key → event/command mapping."""

from __future__ import annotations

from session.events import (CardEvent, ChoiceEvent, CorrectionEvent, DecisionEvent, Event, HandEvent, ShoutEvent)
from referee.live.controls import Command, ControlParams, Controls, Prompt, prompts_for

PLAYERS = ["aki", "ben", "chie"]


def _table():
    c = Controls(PLAYERS, ControlParams(choice_timeout_s=5.0))
    lines = [CardEvent(t=2.0, card="tako"), HandEvent(t=2.4, player="aki", side="right", state="up"),
             ShoutEvent(t=2.5, player="aki", words=("tako",)), HandEvent(t=2.6, player="ben", side="left", state="up"),
             HandEvent(t=3.0, player="aki", side="right", state="down")]
    for i, ev in enumerate(lines, start=2):
        c.observe(ev, i)
    return c


def test_space_and_p_pause_and_resume():
    c = Controls(PLAYERS)
    assert c.key("space", 1.0) == [Command("pause")] and c.paused
    assert c.key("p", 2.0) == [Command("resume")] and not c.paused


def test_undo_strikes_the_card_of_the_last_verdict_heard():
    c = _table()
    assert c.key("u", 3.5) == [] and "no verdict" in c.message  # nothing heard yet
    c.heard({"type": "announce", "what": "first", "player": "ben", "card": "tako", "card_t": 2.0, "t": 3.1})
    out = c.key("u", 3.5)
    assert out == [CorrectionEvent(t=3.5, ref=2, replace=None)]
    assert out[0].to_dict()["type"] == "correction" and "undone" in c.message
    assert c.key("u", 3.6) == []  # undone once


def test_x_then_a_seat_strikes_that_players_reactions_on_the_last_card():
    c = _table()
    c.heard({"type": "verdict", "t": 2.0, "card": "tako", "tie": [], "unsettled": False})
    assert c.key("x", 4.0) == [] and c.pending == "x"
    out = c.key("1", 4.0)  # aki: the hand going up and the shout, not the hand coming down
    assert [e.ref for e in out] == [3, 4] and all(isinstance(e, CorrectionEvent) and e.replace is None for e in out)
    assert c.key("x", 4.1) == [] and c.key("1", 4.1) == [] and "nothing" in c.message
    c.key("x", 4.2)
    assert c.key("9", 4.2) == [] and "no seat 9" in c.message


def test_t_then_a_seat_settles_a_tie_and_only_a_tie():
    c = _table()
    assert c.key("t", 3.0) == [] and "no tie" in c.message and c.pending is None
    c.heard({"type": "announce", "what": "tie", "players": ["aki", "ben"], "card": "tako", "card_t": 2.0, "t": 3.1})
    c.key("t", 3.2)
    assert c.key("3", 3.2) == [] and "not in the tie" in c.message
    c.key("t", 3.3)
    assert c.key("2", 3.3) == [DecisionEvent(t=3.3, first="ben")]


def test_new_game_and_quit_need_the_key_twice():
    c = Controls(PLAYERS)
    assert c.key("q", 1.0) == [] and c.key("x", 1.0) == [] and c.message == "cancelled"
    assert c.key("q", 1.0) == [] and c.key("q", 1.1) == [Command("quit")]
    assert c.key("n", 1.2) == [] and c.key("n", 1.3) == [Command("new_game")]
    c.key("q", 2.0)
    assert c.key("escape", 2.0) == [] and c.pending is None


def test_a_prompt_takes_a_number_or_leaves_the_default_on_enter_or_timeout():
    c = Controls(PLAYERS, ControlParams(choice_timeout_s=5.0))
    verdict = {"type": "announce", "what": "first", "player": "ben", "card": "uzushio6", "card_t": 2.0}
    (p,) = prompts_for("ikatako", verdict, PLAYERS)
    c.ask(p, 3.0)
    assert "[1] aki" in c.prompt_text(3.0) and "[2] chie" in c.prompt_text(3.0) and "5 s" in c.prompt_text(3.0)
    out = c.key("2", 4.0)
    assert out == [ChoiceEvent(t=4.0, player="ben", action="uzushio")] and out[0].get("to") == "chie"
    assert out[0].to_dict() == {"t": 4.0, "type": "choice", "player": "ben", "action": "uzushio", "to": "chie"}
    c.ask(prompts_for("ikatako", verdict, PLAYERS)[0], 5.0)
    assert c.key("7", 5.5) == [] and c.prompts  # not an option: still asking
    assert c.tick(9.9) == [] and c.prompts
    assert c.tick(10.0) == [] and not c.prompts and "no effect" in c.message  # the rules' default
    c.ask(prompts_for("ikatako", verdict, PLAYERS)[0], 11.0)
    assert c.key("enter", 11.5) == [] and not c.prompts


def test_a_prompt_has_the_number_keys_before_the_seat_keys():
    c = _table()
    c.ask(Prompt("penalty", "aki", "aki: which card?", [("5", {"card": "5"}), ("7", {"card": "7"})], "the lowest"), 3.0)
    assert c.key("2", 3.1)[0].get("card") == "7"


def test_mokochaka_announcements_open_pile_and_penalty_prompts_and_the_verdict_closes_them():
    grab = {"type": "announce", "what": "grab", "player": "aki", "card": "moko1", "card_t": 2.0}
    pen = {"type": "announce", "what": "penalty", "player": "chie", "card": "moko1", "card_t": 2.0}
    (piles,) = prompts_for("mokochaka", grab, PLAYERS)
    (penalty,) = prompts_for("mokochaka", pen, PLAYERS)
    assert piles.action == "piles" and piles.options[1] == ("piles 0+2", {"piles": [0, 2]})
    assert penalty.player == "chie" and [o for o, _ in penalty.options] == ["aki", "ben"]
    # a verdict is too late for a choice (it counts until the next card): none from verdicts
    assert prompts_for("mokochaka", {"type": "verdict", "grab_winner": "aki"}, PLAYERS) == []
    assert prompts_for("ikatako", {"type": "verdict", "card": "uzushio6", "taken_by": "aki"}, PLAYERS) == []
    c = Controls(PLAYERS)
    c.raise_prompts("mokochaka", grab, 3.0)
    assert c.prompts and c.prompts[0].card_t == 2.0
    c.heard({"type": "verdict", "t": 2.0, "card": "moko1"})
    assert c.prompts == []


def test_an_ikatako_penalty_prompt_offers_the_players_point_cards_from_the_judges_state():
    class State:
        points = {"ben": ["5", "3", "3"], "aki": ["2"]}
        options = {"penalty_card": "lowest"}

    wrong = {"type": "announce", "what": "wrong", "player": "ben", "card": "ika", "card_t": 2.0}
    (p,) = prompts_for("ikatako", wrong, PLAYERS, State())
    assert [o for o, _ in p.options] == ["3", "5"] and p.options[0][1] == {"card": "3"} and "lowest" in p.default
    # one point card (or none): nothing to choose
    assert prompts_for("ikatako", dict(wrong, player="aki"), PLAYERS, State()) == []
    assert prompts_for("ikatako", wrong, PLAYERS, None) == []


def test_events_from_the_keys_are_record_events():
    c = _table()
    c.heard({"type": "verdict", "t": 2.0, "card": "tako", "unsettled": True, "tie": ["aki", "ben"]})
    c.key("t", 3.0)
    (ev,) = c.key("1", 3.0)
    assert Event.from_dict(ev.to_dict()) == ev


def test_an_unclear_item_is_asked_and_one_key_answers_it_with_a_decision():
    """A verdict with an unclear player raises "ben, card 2 (tako): … — right?"; ``y`` answers
    it (a decision naming the verdict number, the player and correct), ``n`` wrong; each item
    is asked once; one not answered by the next card stays not judged (no event)."""
    c = Controls(PLAYERS, ControlParams(choice_timeout_s=5.0))
    c.observe(CardEvent(t=1.0, card="3"), line=2)
    c.heard({"type": "verdict", "t": 1.0, "card": "3", "first": "aki"})
    c.observe(CardEvent(t=5.0, card="tako"), line=5)
    unclear = {"type": "verdict", "t": 5.0, "card": "tako", "first": None, "first_unclear": True,
               "unclear": {"ben": "heard a shout at +0.52 s, the word was unclear", "chie": "hand unclear"}}
    c.heard(unclear)
    c.heard(unclear)  # the same verdict again (a re-judge): not asked twice
    assert [p.player for p in c.prompts] == ["ben", "chie"]
    assert c.prompt_text(6.0).startswith("ben, card 2 (tako): heard a shout at +0.52 s, the word was unclear — right?")
    assert "[1] yes  [2] no" in c.prompt_text(6.0)
    got = c.key("y", 6.5)
    assert got == [DecisionEvent(t=6.5, card_index=2, player="ben", verdict="correct")]
    assert c.key("n", 6.8) == [DecisionEvent(t=6.8, card_index=2, player="chie", verdict="wrong")]
    assert c.prompts == []
    c.heard({**unclear, "unclear": {"aki": "hand unclear"}, "t": 5.0})
    assert [p.player for p in c.prompts] == ["aki"]
    c.observe(CardEvent(t=9.0, card="ika"), line=9)  # the next card: unanswered, not judged
    assert c.prompts == [] and c.key("y", 9.5) == []

"""The table's controls: keys → events for the record and commands for the pipeline.

One key map serves the window and the terminal view (both pass key names here). It is
pure: :meth:`Controls.key` and :meth:`Controls.tick` return what the key or the clock
produced — :class:`session.events` objects the pipeline merges as a source of its own
(``decision``, ``choice``, ``correction``), and :class:`Command` s it obeys (pause, resume,
new game, quit) — and never touch the pipeline themselves.

Keys (shown by :data:`HELP`):

* ``space``/``p`` pause or resume;
* ``u`` undo the last verdict: the card behind it is struck from the record (a
  ``correction`` deleting the card event: "that was no flip"); re-judged at once;
* ``x`` then a seat number: correct the last verdict by striking that player's reactions
  on its card (every hand going up, shout and grab of theirs in that card's window: a
  false detection); the verdict is re-judged without them;
* ``t`` then a seat number: settle a tie — that player takes the card (``decision``);
* an unclear item of a verdict ("ben, card 3 (3): heard a shout, the word was unclear —
  right?"): ``y``/``1`` or ``n``/``2`` answers it (a ``decision`` with ``card_index``,
  ``player``, ``verdict``: the card is judged again with it); unanswered by the next card, or
  after the prompt's timeout, it stays not judged (no event);
* a prompt (a choice the rules leave to players: uzushio target, penalty card, MOKOCHAKA
  piles or penalty receiver), raised by the views when an announcement opens it
  (:meth:`Controls.raise_prompts`) and closed by its card's verdict: its number keys pick an
  option (``choice``, timed when pressed: inside the card's window, where the judge reads
  it); ``enter`` or the timeout leaves the rules' default;
* ``n`` twice: new game; ``q`` twice: quit (a single stray key must not end a session);
* ``escape`` cancels a half-typed key.

Decision (the spec is silent): a prompt that times out writes **no** choice event — the
judge then applies the rules' default policy itself (RULES.md: "each overridable by a
``choice`` event"), so the default lives in one place, the rules, and the record shows
that nobody chose.
"""

from __future__ import annotations

import queue
from dataclasses import dataclass, field
from typing import Any, Sequence

from referee.judging.verdicts import CardVerdict, Verdict, verdict_of
from referee.judging.verdicts.ikatako import VersusVerdict
from session.events import (CardEvent, ChoiceEvent, CorrectionEvent, DecisionEvent, Event, GrabEvent, HandEvent,
                            ShoutEvent)
from session.params import check_ranges

#: the keys' help, in order: ``(name, text)``; the names in :data:`GAME_KEYS` are shown only
#: for a game whose live declaration lists them (:attr:`referee.judging.base.LivePlay.keys`)
KEY_HELP = (("pause", "space pause"), ("undo", "u undo last verdict"), ("strike", "x+seat strike a reaction"),
            ("tie", "t+seat settle a tie"), ("prompt", "1-9 answer a prompt (y/n an unclear item)"),
            ("new", "n n new game"), ("quit", "q q quit"))
#: the keys that do something only in some games (reactions to strike, ties, prompts)
GAME_KEYS = ("strike", "tie", "prompt")


def help_for(game: str | None) -> str:
    """The key line for ``game``: every key, less the game-specific ones (:data:`GAME_KEYS`)
    its live declaration does not list (TAKOYAKI: no reaction to strike, no tie, no prompt);
    no game known yet: every key."""
    if game:
        from referee.judging.base import live_play

        keys = set(live_play(game).keys)
    else:
        keys = set(GAME_KEYS)
    return "keys: " + " | ".join(text for name, text in KEY_HELP if name not in GAME_KEYS or name in keys)


HELP = help_for(None)


@dataclass(frozen=True)
class ControlParams:
    """How long a live prompt waits."""

    #: how long a prompt waits before the rules' default holds (s). The versus verdict is final
    #: at the next card anyway. Shorter: prompts missed in play; longer: the next flip held.
    choice_timeout_s: float = 8.0

    def __post_init__(self):
        check_ranges(self, positive=("choice_timeout_s",))


@dataclass(frozen=True)
class Command:
    """An instruction for the pipeline: ``pause``, ``resume``, ``new_game``, ``quit``."""

    name: str
    detail: str = ""


@dataclass
class Prompt:
    """A choice put to the table: ``player`` picks one of ``options`` (labels) for ``action``;
    each option's ``fields`` go into the choice event. ``default`` says what happens on
    timeout (the rules' default, in words)."""

    action: str
    player: str | None
    question: str
    options: list[tuple[str, dict[str, Any]]]
    default: str
    deadline: float = 0.0
    #: the card it belongs to (its reveal time): its verdict closes the prompt (too late then)
    card_t: float | None = None
    #: an answer about an unclear item of verdict number ``card_index`` (1 = the first card):
    #: the choice becomes a ``decision`` answer, and the next card closes the prompt
    card_index: int | None = None

    def text(self, now: float) -> str:
        left = max(0.0, self.deadline - now)
        opts = "  ".join(f"[{i}] {label}" for i, (label, _) in enumerate(self.options, 1))
        return f"{self.question}  {opts}  [enter] {self.default} ({left:.0f} s)"


@dataclass
class _Card:
    t: float
    line: int
    card: str
    events: list[tuple[Event, int]] = field(default_factory=list)


class Controls:
    """The key map and what it needs to know of the session (see module doc)."""

    def __init__(self, players: Sequence[str], params: ControlParams = ControlParams()):
        self.players = list(players)
        self.params = params
        self.paused = False
        self.pending: str | None = None  # "x", "t", "n", "q": waiting for the second key
        self.prompts: list[Prompt] = []
        self.message: str | None = None
        self._cards: list[_Card] = []
        self._verdict_card_t: float | None = None  # the card of the last verdict heard
        self._tie: list[str] = []
        #: each judged card's time (verdict lines give it to the ms) → its verdict number
        self._verdict_index: dict[float, int] = {}
        self._asked: set[tuple[float, str]] = set()  # unclear items already put to the table
        #: ``() -> the judge's rules state`` (``IncrementalJudge.state``): what a penalty
        #: prompt offers (the player's point cards); None: those prompts are not raised
        self.judge_state: Any = None

    # ------------------------------------------------------------------ what it observes
    def observe(self, event: Event, line: int | None = None) -> None:
        """An event the pipeline released, with its record line (corrections name lines)."""
        line = line or event.line
        if isinstance(event, CardEvent):
            self._cards.append(_Card(event.t, line, event.card))
            del self._cards[:-20]  # only recent cards can be corrected at the table
            # an unclear item not answered by the next card stays not judged
            self.prompts = [p for p in self.prompts if p.card_index is None]
        elif self._cards and isinstance(event, (HandEvent, ShoutEvent, GrabEvent)):
            self._cards[-1].events.append((event, line))

    def heard(self, item: dict[str, Any], game: str | None = None) -> None:
        """A verdict line or an announcement the table heard (the "last verdict"); ``game``
        reads the verdict line (None: found from its fields)."""
        t = item.get("card_t", item.get("t")) if item.get("type") == "announce" else item.get("t")
        if isinstance(t, (int, float)):
            self._verdict_card_t = float(t)
        if item.get("type") == "announce" and item.get("what") == "tie":
            who = item.get("players") or item.get("player")
            self._tie = list(who) if isinstance(who, (list, tuple)) else [who] if who else []
        elif item.get("type") == "verdict":
            verdict = verdict_of(game, item)
            self._tie = list(verdict.tie) if isinstance(verdict, VersusVerdict) and verdict.unsettled else []
            if isinstance(t, (int, float)):  # the card is final: a choice for it would count for the next
                self.prompts = [p for p in self.prompts if p.card_t is None or abs(p.card_t - t) >= 6e-4]
                self._ask_unclear(verdict, float(t))

    def _ask_unclear(self, verdict: Verdict, t: float) -> None:
        """Each unclear item of a verdict, put to the table once ("ben, card 3 (3): heard a
        shout, the word was unclear — right? [1] yes [2] no"): its answer is a ``decision``
        (``card_index``, ``player``, ``verdict``) and the card is judged again with it."""
        t = round(t, 3)
        index = self._verdict_index.setdefault(t, len(self._verdict_index) + 1)
        card = verdict.card if isinstance(verdict, CardVerdict) else "?"
        for player, reason in verdict.unclear.items():
            if (t, player) in self._asked or player not in self.players:
                continue
            self._asked.add((t, player))
            question = f"{player}, card {index} ({card}): {reason} — right?"
            self.ask(Prompt("answer", player, question, [("yes", {"verdict": "correct"}), ("no", {"verdict": "wrong"})],
                            "not judged", card_index=index), self._now_hint)

    #: the session time of the last key or clock tick (an answer prompt raised by a verdict
    #: line, which carries no clock, times out from it)
    _now_hint: float = 0.0

    def ask(self, prompt: Prompt, now: float) -> None:
        prompt.deadline = now + self.params.choice_timeout_s
        self.prompts.append(prompt)

    def raise_prompts(self, game: str | None, item: dict[str, Any], now: float) -> list[Prompt]:
        """The prompts an announcement opens (:func:`prompts_for`), asked now; the judge's
        rules state comes from :attr:`judge_state` (wired by the live driver)."""
        if not game:
            return []
        state = self.judge_state() if self.judge_state is not None else None
        found = prompts_for(game, item, self.players, state)
        for p in found:
            self.ask(p, now)
        return found

    # ------------------------------------------------------------------ keys and clock
    def key(self, key: str, now: float) -> list[Event | Command]:
        """What pressing ``key`` (a character, or ``space``/``enter``/``escape``) produces."""
        key = {" ": "space", "\r": "enter", "\n": "enter", "\x1b": "escape"}.get(key, key)
        self.message, self._now_hint = None, now
        if self.prompts and self.prompts[0].card_index is not None and key in ("y", "n") and self.pending is None:
            key = "1" if key == "y" else "2"  # an unclear item: y / n answer it
        if key == "escape":
            self.pending = None
            return []
        if self.pending in ("x", "t") and key.isdigit():
            what, self.pending = self.pending, None
            return self._seat_key(what, int(key), now)
        if self.pending in ("n", "q"):
            what, self.pending = self.pending, None
            if key == what:
                return [Command("new_game" if what == "n" else "quit")]
            self.message = "cancelled"
            return []
        self.pending = None
        if self.prompts and (key.isdigit() or key == "enter"):
            return self._answer(key, now)
        if key in ("space", "p"):
            self.paused = not self.paused
            return [Command("pause" if self.paused else "resume")]
        if key == "u":
            return self._undo(now)
        if key == "t" and not self._tie:
            self.message = "there is no tie to settle on the last card"
            return []
        if key in ("x", "t", "n", "q"):
            self.pending = key
            self.message = {"x": "strike whose reaction? press the seat number",
                            "t": "who takes the tie? press the seat number",
                            "n": "press n again for a new game", "q": "press q again to quit"}[key]
            return []
        return []

    def tick(self, now: float) -> list[Event | Command]:
        """Prompts past their deadline close with the rules' default (no event; see doc)."""
        self._now_hint = now
        while self.prompts and now >= self.prompts[0].deadline:
            p = self.prompts.pop(0)
            self.message = f"{p.action}: {p.default} (nobody chose)"
        return []

    # ------------------------------------------------------------------ the actions
    def _seat(self, number: int) -> str | None:
        return self.players[number - 1] if 1 <= number <= len(self.players) else None

    def _seat_key(self, what: str, number: int, now: float) -> list[Event | Command]:
        player = self._seat(number)
        if player is None:
            self.message = f"no seat {number} (seats 1-{len(self.players)})"
            return []
        if what == "t":
            if self._tie and player not in self._tie:
                self.message = f"{player} is not in the tie ({', '.join(self._tie)})"
                return []
            if not self._tie:
                self.message = "there is no tie to settle on the last card"
                return []
            self._tie = []
            self.message = f"tie settled: {player} takes it"
            return [DecisionEvent(t=now, first=player)]
        card = self._last_card()
        if card is None:
            self.message = "no verdict to correct yet"
            return []
        refs = [(ev, line) for ev, line in card.events if getattr(ev, "player", None) == player and line
                and not (isinstance(ev, HandEvent) and ev.state == "down")]
        if not refs:
            self.message = f"{player} did nothing on card {card.card} to strike"
            return []
        self.message = f"struck {len(refs)} reaction(s) of {player} on card {card.card}; re-judging"
        card.events = [(ev, line) for ev, line in card.events if (ev, line) not in refs]
        return [CorrectionEvent(t=now, ref=line, replace=None, extra={"by": "table", "why": "false detection"})
                for _, line in refs]

    def _last_card(self) -> _Card | None:
        if self._verdict_card_t is not None:
            for c in reversed(self._cards):
                if abs(c.t - self._verdict_card_t) < 6e-4:  # verdict times are rounded to ms
                    return c
        return None

    def _undo(self, now: float) -> list[Event | Command]:
        card = self._last_card()
        if card is None or not card.line:
            self.message = "no verdict to undo yet"
            return []
        self._cards.remove(card)
        self._verdict_card_t = None
        self.message = f"undone: card {card.card} struck from the record; re-judging"
        return [CorrectionEvent(t=now, ref=card.line, replace=None, extra={"by": "table", "why": "no flip"})]

    def _answer(self, key: str, now: float) -> list[Event | Command]:
        prompt = self.prompts[0]
        if key == "enter":
            self.prompts.pop(0)
            self.message = f"{prompt.action}: {prompt.default}"
            return []
        n = int(key)
        if not 1 <= n <= len(prompt.options):
            self.message = f"choose 1-{len(prompt.options)} or enter"
            return []
        self.prompts.pop(0)
        label, fields_ = prompt.options[n - 1]
        if prompt.card_index is not None:  # the table's answer about an unclear item
            self.message = f"card {prompt.card_index}: {prompt.player} {fields_['verdict']}; re-judging"
            return [DecisionEvent(t=now, card_index=prompt.card_index, player=prompt.player,
                                  verdict=fields_["verdict"])]
        self.message = f"{prompt.player or 'table'} chose {label}"
        return [ChoiceEvent(t=now, player=prompt.player, action=prompt.action, extra=dict(fields_))]

    # ------------------------------------------------------------------ for the views
    def prompt_text(self, now: float) -> str | None:
        return self.prompts[0].text(now) if self.prompts else None


# ---------------------------------------------------------------------- prompts of the rules
def prompts_for(game: str, item: dict[str, Any], players: Sequence[str], state: Any = None) -> list[Prompt]:
    """The choices an announcement opens to the table (see RULES.md), raised while the
    card's window is open: a choice counts only before the next card, and the verdict
    comes out at the next card — so prompts follow the announcements, never the verdicts.
    Which choices: the game's own declaration (``LIVE.prompts`` in ``referee/judging/<game>.py``).
    """
    if item.get("type") != "announce":
        return []
    from referee.judging.base import live_play

    declared = live_play(game).prompts
    return declared(item, players, state) if declared is not None else []


class ControlledView:
    """What the live window and the terminal view share as sinks: every call updates the
    view's state under its lock (``_lock``) and tells the table's controls (``controls``)
    what happened, so a key pressed next acts on what the table now sees. The keys' events
    and commands wait in ``_produced`` (a ``queue.Queue`` the view makes) until the pipeline
    drains them; ``changed()`` is the view's own redraw request."""

    def press(self, key: str) -> None:
        """One key (the view's key thread, or a test's)."""
        with self._lock:
            produced = self.controls.key(key, self.state.now)
            self.state.paused = self.controls.paused
            self.state.message = self.controls.message
        for item in produced:
            self._produced.put(item)
        self.changed()

    def drain(self) -> list[Any]:
        """Events and commands the keys produced since the last call (for the pipeline)."""
        out = []
        while True:
            try:
                out.append(self._produced.get_nowait())
            except queue.Empty:
                return out

    def _tick(self) -> None:
        """Under the lock, before a redraw: prompts that timed out, and the controls' message."""
        for item in self.controls.tick(self.state.now):
            self._produced.put(item)
        if self.controls.message:
            self.state.message = self.controls.message

    def start(self, header):
        with self._lock:
            super().start(header)
            self.controls.players = list(self.state.players)

    def event(self, event):
        with self._lock:
            super().event(event)
            self.controls.observe(event)

    def verdicts(self, lines):
        with self._lock:
            super().verdicts(lines)
            for line in lines:
                self.controls.heard(line, self.state.game)

    def announce(self, items):
        with self._lock:
            super().announce(items)
            for item in items:
                self.controls.heard(item)
                self.controls.raise_prompts(self.state.game, item, self.state.now)

    def status(self, info):
        with self._lock:
            super().status(info)

    def seen(self, events):
        with self._lock:
            super().seen(events)

    def finish(self, judgement):
        with self._lock:
            super().finish(judgement)

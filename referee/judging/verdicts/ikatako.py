"""IKATAKO's lines: a versus card's verdict, a co-op/solo card's verdict, and their results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from referee.judging.verdicts.base import CardVerdict, Result, fact


@dataclass(frozen=True, kw_only=True)
class _SeenLate(CardVerdict):
    """A card verdict that may say the camera saw the card late."""

    card_time_uncertain: dict[str, float] = fact(
        "the camera may have seen the card late: `{seen, earliest, counted_from}` (reactions count, and are "
        "timed, from `counted_from`)", factory=dict, optional=True)

    @property
    def counted_from(self) -> float | None:
        late = self.card_time_uncertain
        since = late.get("counted_from", late.get("earliest")) if isinstance(late, Mapping) else None
        return since if isinstance(since, (int, float)) and not isinstance(since, bool) else None


@dataclass(frozen=True, kw_only=True)
class VersusVerdict(_SeenLate):
    """One versus card: who was first, right, wrong or missed, and what it did to the game."""

    by: str | None = fact("who flipped the card (when the record names a player at the table)")
    expected: dict[str, Any] = fact("the reaction the card asks for: `{hands, say}`", factory=dict)
    troubles: list[str] = fact("the trouble cards lying in the field", factory=list)
    first: str | None = fact("who takes the card (the fastest correct reaction, or the table's decision)")
    tie: list[str] = fact("the players tied for first (within `tie_ms`)", factory=list)
    correct: list[str] = fact("the players whose reaction was right, fastest first", factory=list)
    wrong: list[str] = fact("the players whose reaction was wrong", factory=list)
    missed: list[str] = fact("the players who did not react when a reaction was due", factory=list)
    times: dict[str, float] = fact("`{player: seconds}`: each correct player's reaction time", factory=dict)
    margin: float | None = fact("seconds between the first and the next correct player (null: one or none)")
    why: dict[str, str] = fact("`{player: reason}` for every wrong or missed player", factory=dict)
    unsettled: bool = fact("a tie (or an unknown first) no decision settled: the card is discarded", False)
    taken_by: str | None = fact("who took the card as a point card")
    discarded: bool = fact("nobody took the card: it went to the discard", False)
    penalties: dict[str, str | None] = fact("`{player: card}`: the point card each penalised player turns down",
                                            factory=dict)
    effects: list[dict[str, Any]] = fact("the card effects applied (`salvage`, `uzushio`)", factory=list)
    first_unknown: list[str] = fact(
        "players not heard (or not seen) who could have been first: the first is unknown until a decision",
        factory=list, optional=True)
    onset_unsure: dict[str, str] = fact(
        "`{player: why}`: correct players whose word was found inside a longer sound, so their onset lies "
        "between two times, the earlier of which could have beaten the first: nobody takes the card "
        "(`first_unclear`) until a decision", factory=dict, optional=True)

    @property
    def fastest_heard(self) -> list[str]:
        """Of a first-unknown tie, the players who were heard (the others are ``first_unknown``)."""
        return [p for p in self.tie if p not in self.first_unknown]


@dataclass(frozen=True, kw_only=True)
class CoopVerdict(_SeenLate):
    """One co-op/solo card: the active player's declaration of the running total."""

    player: str = fact("the active player, the one judged on this card", "")
    expected: dict[str, Any] = fact("the declaration the card asks for: `{hands, say}`", factory=dict)
    ok: bool = fact("the declaration was right (false for a miss, and for a player not judged)", False)
    total: int = fact("the running total after this card", 0)
    time: float | None = fact("seconds from the card to the complete declaration (when right)")
    why: str | None = fact("why the declaration was a miss, or why it was not judged")
    effect: str | None = fact("the card's effect: `reversed` (uzushio) or `salvaged`")
    miss_piles: int = fact("the miss piles after this card", 0)


@dataclass(frozen=True, kw_only=True)
class VersusResult(Result):
    """The versus scoreboard."""

    mode: str = fact("the mode judged (`versus`)", "versus")
    scores: dict[str, int] = fact("`{player: points - penalties}`", factory=dict)
    points: dict[str, int] = fact("`{player: value of the point cards taken}`", factory=dict)
    penalties: dict[str, int] = fact("`{player: value of the point cards turned down}`", factory=dict)
    sunk: list[str] = fact("the players at 0 or below", factory=list)
    winners: list[str] = fact("the best players not sunk", factory=list)
    finished: bool = fact("the deck ran out and the last card was judged", False)
    cards_left: int = fact("cards not yet revealed when the record ends", 0)


@dataclass(frozen=True, kw_only=True)
class CoopResult(Result):
    """The co-op/solo team result."""

    mode: str = fact("the mode judged (`coop` or `solo`)", "coop")
    cleared: bool = fact("every card was declared without sinking", False)
    score: int = fact("the team's score: the last total declared right (0 when sunk)", 0)
    miss_piles: int = fact("the miss piles at the end", 0)
    sunk: bool = fact("the team sank (too many miss piles)", False)
    total: int = fact("the running total at the end", 0)
    cards_left: int = fact("cards not yet revealed when the record ends", 0)


TYPES = (VersusVerdict, CoopVerdict, VersusResult, CoopResult)


def parse(line: Mapping[str, Any]) -> VersusVerdict | CoopVerdict | VersusResult | CoopResult:
    """The typed IKATAKO line: the one place that tells a co-op/solo line from a versus one
    by its shape (a co-op verdict judges one ``player`` with ``ok``; a result names its mode)."""
    if line.get("type") == "result":
        return (CoopResult if line.get("mode") in ("coop", "solo") else VersusResult).from_dict(line)
    return (CoopVerdict if "ok" in line and "player" in line else VersusVerdict).from_dict(line)

"""What the MOKOCHAKA judge did not clearly perceive on a play, weighed: every reading of the
unclear calls, grabs and unheard players (:mod:`referee.judging.unclear`), and the table's answers."""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field

from referee.judging import unclear as uc
from referee.judging.mokochaka_play import OpenPlay, rounded_us
from rules.mokochaka import Resolve, SPECIAL_CALLS, Shout, Touch


def unless_unclear(session, play: OpenPlay, players, t: float, found):
    """The announcements an unclear observation cannot change: nothing on a play card not read;
    no call or penalty of a player with an unclear observation so far, and no token winner or
    grab penalty while anyone has one (the verdict weighs them, :func:`weigh_readings`)."""
    if uc.card_not_read(play.ev, clarity_of(session)):
        return []
    seen = OpenPlay(play.ev, play.cid, play.pile, play.player, play.played,
                    calls=[c for c in play.calls if c[0] < t],
                    unclear_shouts=[e for e in play.unclear_shouts if e.t < t],
                    unclear_grabs=[e for e in play.unclear_grabs if e.t < t])
    window = min(float(session.options["window"]), t - play.ev.t)
    doubt = {i.player for i in unclear_items(session, seen, players, window)}
    if not doubt:
        return found
    return [(key, what) for key, what in found
            if not (key == "grab" or (key[0] == "call" and play.player in doubt)
                    or (key[0] == "penalty" and (key[1] in doubt or what.get("reason") == "grab")))]


def clarity_of(session) -> uc.Clarity:
    return getattr(session, "clarity", None) or uc.Clarity()


@dataclass
class UnclearItem:
    """One unclear observation of a play: a ``call`` that may have been right, wrong or none
    (a shout not made out; a player not heard), or a ``grab`` that may or may not have
    happened (a doubtful touch, ``recorded``; a seat not seen, not recorded). ``fixed``: the
    table's answer about a call (``right``/``wrong``)."""

    kind: str
    player: str
    dt: float
    reason: str
    recorded: bool = True
    fixed: str | None = None

    def options(self) -> tuple:
        if self.kind == "grab":
            return (True, False)
        return (self.fixed,) if self.fixed else uc.SHOUT_READINGS


def unclear_items(session, play: OpenPlay, players, window: float) -> list[UnclearItem]:
    """The play's unclear observations, in seat order then time."""
    t, special = play.ev.t, play.played["call"]["special"]
    clarity, senses = clarity_of(session), getattr(session, "senses", None)
    called = {s.player for _, s in play.calls}
    grabbed = {p for _, _, p in play.grabs}
    items = [UnclearItem("call", sh.player, rounded_us(sh.t - t), uc.shout_reason(sh, t, clarity))
             for sh in play.unclear_shouts]
    items += [UnclearItem("grab", g.player, rounded_us(g.t - t), uc.hand_reason(g, t, clarity))
              for g in play.unclear_grabs]
    heard_unclear = {i.player for i in items if i.kind == "call"}
    seen_unclear = {i.player for i in items if i.kind == "grab"}
    for p in players if senses is not None else ():
        if p not in called and p not in heard_unclear and (deaf := senses.missing_near("audio", p, t, window)):
            items.append(UnclearItem("call", p, 0.0, f"not heard: {deaf}"))
        if special and p not in grabbed and p not in seen_unclear and (
                blind := senses.missing_near("video", p, t, window)):
            dt = min((s.dt for _, s in play.calls if s.player == p), default=0.0)
            items.append(UnclearItem("grab", p, dt, f"not seen: {blind}", recorded=False))
    return sorted(items, key=lambda i: (players.index(i.player), i.dt))


def answer_items(session, items: list[UnclearItem], answers: uc.CardAnswers, index: int, players,
                 not_read: str | None) -> dict[str, str]:
    """The table's answers about this play's unclear calls (``correct``: the call was the
    accepted one; ``wrong``: another): fixes those readings. Returns who was answered."""
    decided = {}
    for p, a in answers.verdicts.items():
        mine = [i for i in items if i.player == p and i.kind == "call"]
        if p not in players:
            session.warn(f"{a.describe()}: {p!r} is not at the table; ignored", a.line)
        elif not_read:
            session.warn(f"{a.describe()}: play {index} was not read; correct its card line to judge it; ignored",
                         a.line)
        elif not mine:
            session.warn(f"{a.describe()}: {p} made no unclear call on play {index} (an answer settles unclear "
                         "calls; a correction overrides the record); ignored", a.line)
        else:
            for i in mine:
                i.fixed = "right" if a.verdict == "correct" else "wrong"
            decided[p] = a.verdict
    return decided


@dataclass
class Weighed:
    """What the unclear observations of a play leave unjudged."""

    excused: tuple[str, ...] = ()  # penalised in some readings and not in others: no penalty
    hold_token: bool = False  # the token's winner differs between readings: nobody wins it
    unclear: dict[str, str] = field(default_factory=dict)  # player -> reason


def read_call(item: UnclearItem, choice: str, call) -> Shout:
    """An unclear call read as the accepted call (``right``) or as a wrong special call."""
    accepted = call["accepted"]
    wrong = next(c for c in SPECIAL_CALLS if c not in accepted)
    return Shout(item.player, accepted[0] if choice == "right" else wrong, item.dt)


def reading_action(play: OpenPlay, items: list[UnclearItem], combo, order, call) -> Resolve:
    """The play's resolution as one reading has its unclear observations."""
    calls = [s for _, s in play.calls]
    touches = [(dt, p) for _, dt, p in play.grabs]
    for item, choice in zip(items, combo):
        if item.kind == "call" and choice in ("right", "wrong"):
            calls.append(read_call(item, choice, call))
        elif item.kind == "grab" and choice:
            touches.append((item.dt, item.player))
    ordered = tuple(Touch(p, dt) for dt, p in sorted(touches, key=lambda g: (g[0], order[g[1]])))
    return Resolve(tuple(calls), ordered)


def weigh_readings(state, play: OpenPlay, items: list[UnclearItem], order, players) -> Weighed:
    """Resolve the play under every reading of its unclear observations (on copies of the
    state): who is penalised in some readings only, and whether the token's winner changes."""
    if not items:
        return Weighed()
    reasons: dict[str, list[str]] = {}
    for i in items:
        reasons.setdefault(i.player, []).append(i.reason)
    combos = list(itertools.product(*(i.options() for i in items)))
    if len(combos) > uc.MAX_READINGS:
        return Weighed(tuple(reasons), True, {p: "; ".join(r) + "; too many unclear observations to weigh"
                                              for p, r in reasons.items()})
    outcomes = []
    for combo in combos:
        trial = copy.deepcopy(state)
        d = trial.apply(reading_action(play, items, combo, order, play.played["call"])).details
        outcomes.append(({x["player"] for x in d["penalties"]}, d["grab_winner"]))
    mixed = [p for p in players if len({p in pen for pen, _ in outcomes}) > 1]
    winners = {w for _, w in outcomes}
    hold = len(winners) > 1
    unsure = [p for p in players if p in mixed or (hold and p in winners and p in reasons)]
    return Weighed(tuple(mixed), hold, {p: "; ".join(reasons.get(p) or ["the token's winner was unclear"])
                                        for p in unsure})


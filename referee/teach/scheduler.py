"""Which situation comes next: FSRS spaced repetition of every situation, a short in-session
relearning queue for mistakes, and a confusion table that brings back what the learner mixes up.

Each situation is one FSRS card (the ``fsrs`` package, MIT, offline; fuzzing off, so the same
answers at the same times give the same schedule). The rating of an answer:

- wrong, missed or a false start → ``Again`` (FSRS: due in 1 min; in this session it comes back
  after ``relearn_gap`` other cards);
- right but slower than the level's target → ``Hard`` (due sooner than a fast answer);
- right under the target → ``Good``; under ``easy_ratio`` × target → ``Easy``.

The confusion table counts (asked, answered-as) pairs: the learner gave the right answer of
another situation. New situations are drawn with the seeded ``random.Random``, the members of
confused pairs weighted ``confused_weight`` times, so the learner sees the two side by side.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Mapping, Sequence
import zlib

import fsrs

from referee.teach.core import Feedback, Situation
from session.params import check_ranges


@dataclass(frozen=True)
class SchedulerParams:
    """Which situation the lesson draws next."""

    #: cards between a mistake and its return in the same session: soon, but not the very next
    #: card, which would test short-term memory only.
    relearn_gap: int = 3
    #: a right answer faster than this share of the level's target rates Easy.
    easy_ratio: float = 0.5
    #: how much likelier a situation of a confused pair is drawn.
    confused_weight: float = 3.0

    def __post_init__(self):
        check_ranges(self, non_negative=("relearn_gap",), positive=("easy_ratio", "confused_weight"))


def card_id(key: str) -> int:
    """A stable FSRS card id for a situation key (FSRS would otherwise use the clock)."""
    return zlib.crc32(key.encode("utf-8"))


def rating(fb: Feedback, target_s: float, params: SchedulerParams = SchedulerParams()) -> fsrs.Rating:
    if not fb.ok or fb.reaction is None:
        return fsrs.Rating.Again
    if fb.reaction > target_s:
        return fsrs.Rating.Hard
    if fb.reaction <= params.easy_ratio * target_s:
        return fsrs.Rating.Easy
    return fsrs.Rating.Good


class Scheduler:
    """FSRS cards and the confusion table of one learner and one drill."""

    def __init__(self, cards: Mapping[str, fsrs.Card] | None = None, confusion: Counter | None = None,
                 seed: int = 0, params: SchedulerParams = SchedulerParams()):
        self.fsrs = fsrs.Scheduler(enable_fuzzing=False)
        self.cards: dict[str, fsrs.Card] = dict(cards or {})
        self.confusion: Counter = Counter(confusion or {})
        self.params = params
        self.rng = random.Random(seed)
        self._relearn: list[tuple[str, int]] = []  # (key, card number it was missed at)
        self._n = 0
        self._last: str | None = None

    def review(self, sit: Situation, fb: Feedback, target_s: float, now: datetime) -> fsrs.Card:
        """Rate the answer, update the situation's FSRS card and the confusion table."""
        card = self.cards.get(sit.key) or fsrs.Card(card_id=card_id(sit.key), due=now)
        card, _ = self.fsrs.review_card(card, rating(fb, target_s, self.params), now)
        self.cards[sit.key] = card
        if not fb.ok:
            self._relearn.append((sit.key, self._n))
            if fb.answered_as:
                self.confusion[(sit.key, fb.answered_as)] += 1
        return card

    def pick(self, pool: Sequence[Situation], now: datetime, review: Sequence[Situation] = ()) -> Situation:
        """The next situation from ``pool`` (the current level) or ``review`` (earlier
        levels, only when due)."""
        self._n += 1
        by_key = {s.key: s for s in list(pool) + list(review)}
        for i, (key, at) in enumerate(self._relearn):
            if self._n - at > self.params.relearn_gap and key in by_key and key != self._last:
                del self._relearn[i]
                return self._take(by_key[key])
        due = [s for s in by_key.values() if s.key in self.cards and self.cards[s.key].due <= now
               and s.key != self._last and not any(k == s.key for k, _ in self._relearn)]
        if due:
            return self._take(min(due, key=lambda s: (self.cards[s.key].due, s.key)))
        new = [s for s in pool if s.key not in self.cards and s.key != self._last]
        if new:
            confused = {k for pair in self.confusion for k in pair}
            weights = [self.params.confused_weight if s.key in confused else 1.0 for s in new]
            return self._take(self.rng.choices(new, weights=weights)[0])
        rest = [s for s in pool if s.key != self._last] or list(pool)
        far = datetime.max.replace(tzinfo=now.tzinfo)
        return self._take(min(rest, key=lambda s: (self.cards[s.key].due if s.key in self.cards else far, s.key)))

    def _take(self, sit: Situation) -> Situation:
        self._last = sit.key
        return sit

    def due_keys(self, now: datetime, horizon: timedelta = timedelta(0)) -> list[str]:
        """Situations due by ``now + horizon``, earliest first."""
        return sorted((k for k, c in self.cards.items() if c.due <= now + horizon), key=lambda k: (self.cards[k].due, k))

    def confused_pairs(self, n: int = 10) -> list[tuple[tuple[str, str], int]]:
        return sorted(self.confusion.items(), key=lambda kv: (-kv[1], kv[0]))[:n]

"""A teaching session: pick a situation, show it, read the keys, judge, say why, schedule.

One card: a "ready" screen for a random foreperiod (reaction drills: 0.8–1.6 s, so the card
cannot be anticipated; a key then is a false start), the card, the presses until ``enter``
or the level's window, the judged feedback (reason first) on the screen and in the voice,
the FSRS review and the progress lines, a short pause (a key skips it). The ladder moves up
when the level is mastered. The views and the voice are sinks: the lesson never waits on them
beyond the call that draws the feedback.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Protocol

from referee.teach.core import Feedback, Level, Press, Situation
from referee.teach.drills.base import Drill, Screen
from referee.teach.ghost import Ghost
from referee.teach.keys import SUBMIT, KeySource
from referee.teach.ladder import LadderParams, placement_result, standing
from referee.teach.progress import Progress
from referee.teach.scheduler import Scheduler, SchedulerParams
from session.params import check_ranges

QUIT_KEYS = ("escape", "q", "eof")
#: how often the answer time's countdown is redrawn while the lesson waits for a key
COUNTDOWN_STEP_S = 0.1


class View(Protocol):
    def ready(self, info: dict[str, Any]) -> None: ...
    def show(self, screen: Screen, info: dict[str, Any]) -> None: ...
    def feedback(self, fb: Feedback, info: dict[str, Any]) -> None: ...
    def message(self, text: str) -> None: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class LessonParams:
    """The pace of a keyboard lesson."""

    #: cards per session.
    cards: int = 20
    #: the random wait before a reaction card (s, from, to): long enough to settle,
    #: unpredictable enough that pressing early is a false start.
    foreperiod: tuple[float, float] = (0.8, 1.6)
    #: how long the feedback of a right answer stays before the next card (s; any key goes on).
    pause_right: float = 0.9
    #: ... of a wrong answer (s): its reason needs reading.
    pause_wrong: float = 5.0

    def __post_init__(self):
        check_ranges(self, at_least_one=("cards",), non_negative=("pause_right", "pause_wrong"))


class Lesson:
    def __init__(self, drill: Drill, progress: Progress, keys: KeySource, view: View, *, learner: str = "you",
                 lang: str = "en", seed: int = 0, voice=None, rival: bool = False, level: str | None = None,
                 placement: bool = True, params: LessonParams = LessonParams(),
                 ladder: LadderParams = LadderParams(), sched: SchedulerParams = SchedulerParams(),
                 start: datetime | None = None, only: list[Situation] | None = None):
        self.drill, self.progress, self.keys, self.view, self.voice = drill, progress, keys, view, voice
        self.learner, self.lang, self.seed, self.params, self.ladder = learner, lang, seed, params, ladder
        self.clock = keys.clock
        self.rng = random.Random(seed)
        self.levels = drill.levels()
        self.scheduler = Scheduler(progress.cards.get(drill.name), progress.confusion(drill.name), seed, sched)
        self.ghost = Ghost(progress.of(drill.name), random.Random(seed + 1)) if rival and drill.reaction else None
        self.start = start or datetime.now(timezone.utc).replace(microsecond=0)
        self._t0 = self.clock.now()
        self.session = progress.next_session()
        self.latencies: list[float] = []
        self.answers: list[dict[str, Any]] = []
        self.level_ups: list[str] = []
        names = [lv.rule for lv in self.levels]
        if level is not None and level not in names:
            from referee.teach.drills import UnknownDrill
            raise UnknownDrill(f"{drill.name} has no level {level!r} (levels: {', '.join(names)})")
        self.chosen = level
        reached = level or progress.level(drill.name)
        self.index = names.index(reached) if reached in names else 0
        self.only = list(only or [])
        self.placement = placement and level is None and not progress.of(drill.name) and not self.only
        self.quit = False
        # a recorded game's mistakes (``referee teach explain``): FSRS cards off the ladder or
        # above the learner's level, reviewed like the earlier levels' situations (first when due)
        made = (drill.make(k) for k in sorted(self.scheduler.cards))
        self.recorded = [s for s in made if s is not None]

    # ----------------------------------------------------------------- time
    def now(self) -> datetime:
        return self.start + timedelta(seconds=round(self.clock.now() - self._t0, 3))

    # ----------------------------------------------------------------- the session
    def run(self) -> dict[str, Any]:
        self.progress.append({"type": "start", "session": self.session, "drill": self.drill.name,
                              "at": self.now().isoformat(), "seed": self.seed, "lang": self.lang})
        if self.chosen is not None and self.chosen != self.progress.level(self.drill.name):
            # --level: the learner's level from now on (the progress page and the next session say it)
            self.progress.append({"type": "level", "drill": self.drill.name, "level": self.chosen,
                                  "at": self.now().isoformat(), "why": "chosen (--level)"})
        start_level = self.index
        # warm up: the first answer must not pay for importing the judge and the rules
        warm = self.levels[self.index]
        self.drill.feedback(warm.situations[0], [], warm, self.lang, learner=self.learner)
        if self.placement:
            self._placement()
        n = 0
        while n < self.params.cards and not self.quit:
            level = self.levels[self.index]
            review = [s for lv in self.levels[:self.index] for s in lv.situations]
            upto = {s.key for s in review} | {s.key for s in level.situations}
            review += [s for s in self.recorded if s.key not in upto]
            if self.only:  # a recorded game's mistakes: these situations only, the ladder stays
                sit = self.scheduler.pick(self.only, self.now())
            else:
                sit = self.scheduler.pick(level.situations, self.now(), review)
            lv = self._level_for(sit, level)
            fb = self.card(sit, lv, {"n": n + 1, "of": self.params.cards, "level": lv,
                                     "index": self.levels.index(lv), "at": self.index, "levels": len(self.levels),
                                     "current": level})
            if fb is None:
                break
            n += 1
            mine = [a for a in self.progress.of(self.drill.name) if not a.get("placement")]
            if not self.only and self.index < len(self.levels) - 1 and standing(mine, level, self.ladder)["mastered"]:
                self._level_up(self.index + 1, "mastered " + level.rule)
        return self.summary(start_level)

    def _level_for(self, sit: Situation, current: Level) -> Level:
        for lv in self.levels:
            if lv.rule == sit.rule:
                return lv
        return current

    def _placement(self) -> None:
        self.view.message(_t(self.lang, "Placement: a few cards to find your level.", "レベル判定: 数枚で始めるレベルを決めます。"))
        results = []
        for i, level in enumerate(self.levels):
            ok_all = True
            for _ in range(self.ladder.placement_per_level):
                sit = self.scheduler.pick(level.situations, self.now())
                fb = self.card(sit, level, {"n": len(results) + 1, "of": None, "level": level, "index": i,
                                            "placement": True, "levels": len(self.levels)})
                if fb is None:
                    return
                results.append((level.rule, fb.ok, fb.reaction))
                if not (fb.ok and fb.reaction is not None and fb.reaction < level.target_s):
                    ok_all = False
                    break
            if not ok_all:
                break
        start = placement_result(self.levels, results)
        if start > 0:
            self._level_up(start, "placement")
        n = len(self.levels)
        self.view.message(_t(self.lang, f"Start level: {start + 1} of {n}: {self.levels[start].title['en']}",
                             f"開始レベル: {start + 1}/{n}: {self.levels[start].title['ja']}"))

    def _level_up(self, index: int, why: str) -> None:
        self.index = index
        rule = self.levels[index].rule
        self.level_ups.append(rule)
        self.progress.append({"type": "level", "drill": self.drill.name, "level": rule, "at": self.now().isoformat(),
                              "why": why})
        lv = self.levels[index]
        n = len(self.levels)
        self.view.message(_t(self.lang, f"LEVEL UP → level {index + 1} of {n}: {lv.title['en']}",
                             f"レベルアップ → レベル{index + 1}/{n}: {lv.title['ja']}"))
        if self.voice:
            self.voice.say("level_up")

    # ----------------------------------------------------------------- one card
    def card(self, sit: Situation, level: Level, info: dict[str, Any]) -> Feedback | None:
        p = self.params
        wait = self.rng.uniform(*p.foreperiod) if self.drill.reaction else 0.3
        t_show = self.clock.now() + wait
        self.keys.on_ready(t_show, sit)
        self.view.ready(info)
        early: list[tuple[str, float]] = []
        while True:
            got = self.keys.get(t_show)
            if got is None:
                break
            if got[0] in QUIT_KEYS:
                self.quit = True
                return None
            early.append(got)
        screen = self.drill.screen(sit, self.lang)
        self.view.show(screen, info)
        shown = max(t_show, self.clock.now())  # the card is on the screen from here
        presses = [Press(k, round(t - shown, 4)) for k, t in early]
        deadline = shown + level.window_s
        t_answer = deadline
        while True:
            got = self._next_key(deadline, presses)
            if got is None:
                break
            key, t = got
            if key in QUIT_KEYS:
                self.quit = True
                return None
            presses.append(Press(key, round(t - shown, 4)))
            t_answer = t
            if key == SUBMIT:
                break
            echo = getattr(self.view, "pressed", None)
            if echo is not None:  # after the stamp: showing what was typed never delays it
                echo(presses)
        rival = self.ghost.answer() if self.ghost else None
        fb = self.drill.feedback(sit, presses, level, self.lang, learner=self.learner, rival=rival)
        self.view.feedback(fb, info)
        self.latencies.append(self.clock.now() - t_answer)
        if self.voice:
            self.voice.say(*fb.spoken)
        self._store(sit, level, fb, info)
        pause = p.pause_right if fb.ok else p.pause_wrong
        got = self.keys.get(self.clock.now() + pause)  # any key goes on; a quit key quits (not "goes on")
        self.keys.drain()
        if got is not None and got[0] in QUIT_KEYS:
            self.quit = True
        return fb

    def _next_key(self, deadline: float, presses: list[Press]) -> tuple[str, float] | None:
        """The next key before ``deadline``; meanwhile the view counts the answer time down
        (every :data:`COUNTDOWN_STEP_S`), so the learner sees the 3 s run out instead of
        meeting "TOO LATE". The key keeps the time it arrived: the steps change no reaction."""
        tick = getattr(self.view, "countdown", None)
        while True:
            now = self.clock.now()
            if tick is None:
                return self.keys.get(deadline)
            tick(max(0.0, deadline - now), presses)
            step = min(deadline, now + COUNTDOWN_STEP_S)
            got = self.keys.get(step)
            if got is not None or step >= deadline:
                return got

    def _store(self, sit: Situation, level: Level, fb: Feedback, info: dict[str, Any]) -> None:
        now = self.now()
        answer = {"type": "answer", "session": self.session, "n": len(self.answers) + 1, "drill": self.drill.name,
                  "rule": sit.rule, "situation": sit.key, "verdict": fb.verdict, "reaction": fb.reaction,
                  "answered": fb.answered, "answered_as": fb.answered_as, "placement": bool(info.get("placement")),
                  "at": now.isoformat()}
        self.answers.append(answer)
        self.progress.append(answer)
        card = self.scheduler.review(sit, fb, level.target_s, now)
        self.progress.append({"type": "fsrs", "drill": self.drill.name, "situation": sit.key, "card": card.to_dict()})
        if self.ghost:
            self.ghost.add(answer)

    def summary(self, start_level: int) -> dict[str, Any]:
        right = [a for a in self.answers if a["verdict"] == "correct"]
        times = [a["reaction"] for a in right if a["reaction"] is not None]
        lat = sorted(self.latencies)
        placed = sum(a["placement"] for a in self.answers)
        lang = self.lang if self.lang in ("en", "ja") else "en"
        return {"session": self.session, "drill": self.drill.name, "cards": len(self.answers) - placed,
                "placement": placed, "right": len(right),
                "accuracy": len(right) / len(self.answers) if self.answers else 0.0,
                "median_reaction": statistics.median(times) if times else None,
                "level_start": self.levels[start_level].rule, "level_now": self.levels[self.index].rule,
                # the levels as the header and the messages name them: "2 of 5: <title>"
                "levels": len(self.levels), "level_start_n": start_level + 1, "level_now_n": self.index + 1,
                "level_start_title": self.levels[start_level].title[lang],
                "level_now_title": self.levels[self.index].title[lang],
                "level_ups": list(self.level_ups),
                "false_starts": sum(a["verdict"] == "false_start" for a in self.answers),
                "feedback_ms_median": 1000 * statistics.median(lat) if lat else None,
                "feedback_ms_max": 1000 * lat[-1] if lat else None,
                "due": len(self.scheduler.due_keys(self.now(), timedelta(days=1))),
                # in words: the situation, what the answer given was the right answer of, the rule
                "confused": [self.drill.confusion_text(a, b, n, lang)
                             for (a, b), n in self.scheduler.confused_pairs(5)],
                "confused_keys": [[a, b, n] for (a, b), n in self.scheduler.confused_pairs(5)]}


def _t(lang: str, en: str, ja: str) -> str:
    return ja if lang == "ja" else en

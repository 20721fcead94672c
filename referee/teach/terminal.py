"""The keyboard-only terminal view: the card, the field, the keys; then the verdict and its
reason first. Plain ANSI (clear screen, colours when the output is a terminal), nothing to
install; the same view prints line by line into a file or a test's output."""

from __future__ import annotations

import shutil
import textwrap
import unicodedata
from typing import IO, Any

from referee.teach.core import Feedback
from referee.teach.drills.base import Screen
from referee.teach.phrases import VERDICT_TEXT

CLEAR = "\x1b[2J\x1b[H"
COLOURS = {"correct": "\x1b[1;32m", "wrong": "\x1b[1;31m", "missed": "\x1b[1;33m", "false_start": "\x1b[1;35m",
           "unclear": "\x1b[1;36m"}
BOLD, RESET = "\x1b[1m", "\x1b[0m"
MARK = {"correct": "✓", "wrong": "✗", "missed": "…", "false_start": "!", "unclear": "?"}


def game_title(game: str) -> str:
    """The game's title in capitals (its declaration: ``Game.title``); an unknown name as written."""
    import rules

    return rules.get(game).title.upper() if game in rules.names() else game.upper()


def width(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def big_card(label: str, inner: int = 15) -> list[str]:
    pad = max(0, inner - width(label))
    left = pad // 2
    body = " " * left + label + " " * (pad - left)
    return ["┌" + "─" * inner + "┐", "│" + " " * inner + "│", "│" + body + "│", "│" + " " * inner + "│",
            "└" + "─" * inner + "┘"]


class TerminalView:
    def __init__(self, out: IO[str], lang: str = "en", ansi: bool | None = None, game: str = ""):
        self.out = out
        self.lang = lang
        self.ansi = out.isatty() if ansi is None else ansi
        self.game = game
        self.notice = ""  # the last message (a level-up), kept on the next card's screen

    def _w(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def _c(self, code: str, text: str) -> str:
        return f"{code}{text}{RESET}" if self.ansi else text

    def _head(self, info: dict[str, Any]) -> str:
        return f"{game_title(self.game)} · {head_text(info, self.lang)}"

    def ready(self, info: dict[str, Any]) -> None:
        if self.ansi:
            self._w(CLEAR)
        note = "\n" + self._c(COLOURS["correct"], self.notice) if self.notice else ""
        self._w(self._c(BOLD, self._head(info)) + note + "\n\n   " + ("ready…" if self.lang == "en" else "準備…") + "\n")

    def show(self, screen: Screen, info: dict[str, Any]) -> None:
        lines = []
        if self.ansi:
            lines.append(CLEAR + self._c(BOLD, self._head(info)))
            if self.notice:
                lines.append(self._c(COLOURS["correct"], self.notice))
        self.notice = ""
        lines.append("")
        lines.append(self._c(BOLD, screen.title))
        lines.extend("  " + x for x in screen.lines)
        if screen.card:
            lines.append("")
            lines.extend("   " + x for x in big_card(screen.card))
        lines.append("")
        lines.append(screen.keys)
        lines.append(self._c(BOLD, answer_time_text(info, self.lang)))
        self._left: float | None = None
        self._w("\n".join(lines) + "\n")

    def pressed(self, presses) -> None:
        """Echo the answer so far on one line (the terminal does not echo in cbreak mode),
        with the answer time left."""
        self._presses = list(presses)
        keys = " ".join({"space": "␣"}.get(p.key, p.key) for p in presses if p.t >= 0)
        left = getattr(self, "_left", None)
        clock = f"   [{left:.1f} s left]" if left is not None and self.ansi else ""
        self._w(("\r\x1b[K" if self.ansi else "\r") + "> " + keys + clock)

    def countdown(self, left: float, presses) -> None:
        """The answer time left, redrawn on the echo line (a terminal only: a file or a
        pipe gets the answer, not ten lines a second)."""
        shown = round(left, 1)
        if not self.ansi or shown == getattr(self, "_left", None):
            return
        self._left = shown
        self.pressed(presses)

    def feedback(self, fb: Feedback, info: dict[str, Any]) -> None:
        if self.ansi and getattr(self, "_left", None) is not None:  # the answer stays, the clock goes
            self._left = None
            self.pressed(getattr(self, "_presses", []))
        head = f"{MARK[fb.verdict]} {VERDICT_TEXT[self.lang][fb.verdict]}"
        if fb.reaction is not None:
            head += f"  {fb.reaction:.2f} s"
        # wrapped at words to the terminal's width (a word cut at the edge reads as two)
        cols = shutil.get_terminal_size((80, 24)).columns - 1 if self.ansi else 10_000
        out = ["", self._c(COLOURS[fb.verdict], head), *_wrap(fb.reason(), cols)]  # the echo line ends first
        if fb.rival:
            out += _wrap(fb.rival, cols)
        self._w("\n".join(out) + "\n")

    def message(self, text: str) -> None:
        self.notice = text
        self._w("\n" + self._c(BOLD, text) + "\n")

    def close(self) -> None:
        pass


def _wrap(text: str, cols: int) -> list[str]:
    return textwrap.wrap(text, cols, break_long_words=False, break_on_hyphens=False) or [""]


def head_text(info: dict[str, Any], lang: str = "en") -> str:
    """The one header of every card, in the words the level messages use ("level 2 of 5:
    <title>"): during the placement, which level is being tested; after it, the learner's
    level, and for a review card from another level, that it is one."""
    lv, n_levels = info["level"], info.get("levels")
    of = f" of {n_levels}" if n_levels else ""
    of_ja = f"/{n_levels}" if n_levels else ""
    n = f"{info['n']}/{info['of']}" if info.get("of") else f"{info['n']}"
    if info.get("placement"):
        return (f"placement: testing level {info['index'] + 1}{of} ({lv.title['en']}) · card {n}" if lang != "ja" else
                f"レベル判定: レベル{info['index'] + 1}{of_ja} ({lv.title['ja']}) · {n}枚目")
    at = info.get("at", info["index"])
    current = info.get("current") or lv
    head = (f"level {at + 1}{of}: {current.title['en']} · card {n}" if lang != "ja" else
            f"レベル{at + 1}{of_ja}: {current.title['ja']} · {n}枚目")
    if info["index"] != at:
        head += (f" · review of level {info['index'] + 1}" if lang != "ja" else f" · 復習: レベル{info['index'] + 1}")
    return head


def answer_time_text(info: dict[str, Any], lang: str = "en") -> str:
    """The answer time and the quit keys, under every card's keys."""
    window = info["level"].window_s
    return (f"answer within {window:g} s  |  esc or q: quit" if lang != "ja" else
            f"{window:g}秒以内に答える  |  esc か q: 終了")


def summary_text(s: dict[str, Any], lang: str = "en", width: int | None = None) -> str:
    """The session in words: cards, right, false starts, the level as the header names it
    ("level 1 of 5: …"), and each mix-up with its rule (never a situation's internal key)."""
    med = f"{s['median_reaction']:.2f} s" if s["median_reaction"] is not None else "-"
    fb = f"{s['feedback_ms_median']:.1f} ms (max {s['feedback_ms_max']:.1f})" if s["feedback_ms_median"] is not None else "-"
    sep = "/" if lang == "ja" else " of "
    n = s.get("levels")
    start = f"{s.get('level_start_n', '?')}{sep}{n}: {s.get('level_start_title', s['level_start'])}"
    now = f"{s.get('level_now_n', '?')}{sep}{n}: {s.get('level_now_title', s['level_now'])}"
    false = s.get("false_starts", 0)
    if lang == "ja":
        extra = f" (+判定 {s['placement']}枚)" if s.get("placement") else ""
        lines = [f"セッション {s['session']}: {s['cards']}枚{extra}、正解 {s['right']} ({100 * s['accuracy']:.0f} %)、反応の中央値 {med}",
                 f"フライング (カードが出る前に押した): {false}",
                 f"レベル{start}" + (f" → レベル{now}" if now != start else " (そのまま)"),
                 f"回答から判定表示まで: {fb}", f"1日以内に復習: {s['due']}"]
    else:
        extra = f" (+{s['placement']} placement)" if s.get("placement") else ""
        lines = [f"session {s['session']}: {s['cards']} cards{extra}, {s['right']} right ({100 * s['accuracy']:.0f} %), median reaction {med}",
                 f"false starts (pressed before the card appeared): {false}",
                 f"level {start}" + (f" → level {now}" if now != start else " (unchanged)"),
                 f"answer to feedback: {fb}", f"due within a day: {s['due']}"]
    if s["confused"]:
        lines.append("混同:" if lang == "ja" else "mixed up:")
        for c in s["confused"]:  # (wrapped at words to ``width``: a terminal would cut them anywhere)
            lines += textwrap.wrap(c, width, initial_indent="  - ", subsequent_indent="    ",
                                   break_on_hyphens=False) if width and lang != "ja" else [f"  - {c}"]
    return "\n".join(lines)

"""The keyboard-only terminal view: the card, the field, the keys; then the verdict and its
reason first. Plain ANSI (clear screen, colours when the output is a terminal), nothing to
install; the same view prints line by line into a file or a test's output."""

from __future__ import annotations

import unicodedata
from typing import IO, Any

from referee.teach.core import Feedback
from referee.teach.drills.base import Screen
from referee.teach.phrases import VERDICT_TEXT

CLEAR = "\x1b[2J\x1b[H"
COLOURS = {"correct": "\x1b[1;32m", "wrong": "\x1b[1;31m", "missed": "\x1b[1;33m", "false_start": "\x1b[1;35m",
           "unclear": "\x1b[1;36m"}
BOLD, RESET = "\x1b[1m", "\x1b[0m"
GAME_NAMES = {"seasaltpaper": "SEA SALT & PAPER"}  # the others' names are their id in capitals
MARK = {"correct": "✓", "wrong": "✗", "missed": "…", "false_start": "!", "unclear": "?"}


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
        lv = info["level"]
        n = f"{info['n']}/{info['of']}" if info.get("of") else f"{info['n']}"
        tag = ("placement " if info.get("placement") else "") + (
            f"card {n}" if self.lang == "en" else f"{n}枚目")
        lvl = f"level {info['index'] + 1}: {lv.title[self.lang]}" if self.lang == "en" else \
            f"レベル{info['index'] + 1}: {lv.title[self.lang]}"
        return f"{GAME_NAMES.get(self.game, self.game.upper())} · {lvl} · {tag}"

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
        self._w("\n".join(lines) + "\n")

    def pressed(self, presses) -> None:
        """Echo the answer so far on one line (the terminal does not echo in cbreak mode)."""
        keys = " ".join({"space": "␣"}.get(p.key, p.key) for p in presses if p.t >= 0)
        self._w(("\r\x1b[K" if self.ansi else "\r") + "> " + keys)

    def feedback(self, fb: Feedback, info: dict[str, Any]) -> None:
        head = f"{MARK[fb.verdict]} {VERDICT_TEXT[self.lang][fb.verdict]}"
        if fb.reaction is not None:
            head += f"  {fb.reaction:.2f} s"
        out = ["", self._c(COLOURS[fb.verdict], head), fb.reason()]  # the echo line ends first
        if fb.rival:
            out.append(fb.rival)
        self._w("\n".join(out) + "\n")

    def message(self, text: str) -> None:
        self.notice = text
        self._w("\n" + self._c(BOLD, text) + "\n")

    def close(self) -> None:
        pass


def summary_text(s: dict[str, Any], lang: str = "en") -> str:
    med = f"{s['median_reaction']:.2f} s" if s["median_reaction"] is not None else "-"
    fb = f"{s['feedback_ms_median']:.1f} ms (max {s['feedback_ms_max']:.1f})" if s["feedback_ms_median"] is not None else "-"
    if lang == "ja":
        extra = f" (+判定 {s['placement']}枚)" if s.get("placement") else ""
        lines = [f"セッション {s['session']}: {s['cards']}枚{extra}、正解 {s['right']} ({100 * s['accuracy']:.0f} %)、反応の中央値 {med}",
                 f"レベル: {s['level_start']} → {s['level_now']}" + (f" (アップ: {', '.join(s['level_ups'])})" if s["level_ups"] else ""),
                 f"回答から判定表示まで: {fb}", f"1日以内に復習: {s['due']}"]
    else:
        extra = f" (+{s['placement']} placement)" if s.get("placement") else ""
        lines = [f"session {s['session']}: {s['cards']} cards{extra}, {s['right']} right ({100 * s['accuracy']:.0f} %), median reaction {med}",
                 f"level: {s['level_start']} → {s['level_now']}" + (f" (up: {', '.join(s['level_ups'])})" if s["level_ups"] else ""),
                 f"answer to feedback: {fb}", f"due within a day: {s['due']}"]
    if s["confused"]:
        lines.append(("混同: " if lang == "ja" else "mixed up: ") + "; ".join(s["confused"]))
    return "\n".join(lines)

"""The live referee's voice as a sink: who was first, who was wrong, said as it is known.

Speech is :class:`audio.voice.Voice` (engines, the rendered-phrase cache, a thread that
plays; ``say`` only queues, so speaking never blocks the pipeline). The phrases are a
finite set — each player's name and a handful of verdict words per language — rendered
when the session starts (:meth:`VoiceSink.start`), so nothing is synthesised while the
table waits. What is said:

- an announcement (``first``: "ben, first"; ``tie``: "tie, ben, dai"; ``wrong``: "aki,
  wrong"; ``missed``: "chie, too late"; ``nobody``);
- a final verdict only for a card nothing was announced for (a game whose judge does not
  announce): its first player, else "unclear" when a player was unclear on it (the table is
  asked), else "nobody";
- a lost camera or microphone, once each ("camera lost");
- for a game whose judging module says its own verdicts (``announcement(line)`` and
  ``phrases(players)``, e.g. TAKOYAKI: "7 of hearts", "on the 6 slot", "wrong slot"; "ben",
  "turn ends", "aki", "to play"; "aki", "wins"), that instead of the generic utterance (which
  knows only who was first, and would say "nobody" for every move); its phrases are keys
  ``g:GAME:PHRASE``, all rendered when the session starts like the others, and said in the
  table's language when the module translates them (``phrase_text(phrase, lang)``).

Short, and the newest card first. Each phrase is rendered without the engine's leading and
trailing silence, at a brisk rate, with a short gap between phrases (:data:`LIVE_VOICE`):
"ben, first" lasts about 0.6 s in English and 0.9 s in Japanese instead of 1.1 / 2.1 s.
Cards come every few seconds and a card's wrong players are said when its window closes, so
a player expects the next card's first to be heard as soon as it is known, not behind the
previous card's list: a card's first (or tie) is said before every waiting window
announcement, and the waiting window announcements of earlier cards are not said at all
(they stay on screen and in the record; :attr:`VoiceSink.superseded` counts them), nor is
one of an earlier card that comes after. A first is never dropped; firsts keep their order.

Languages: ``en`` (piper's joe voice, else espeak-ng) and ``ja`` (pyopenjtalk's Mei);
``referee live --lang ja|en`` picks one (see ``audio/voice.py`` for engines and licences).
"""

from __future__ import annotations

from typing import Any

from audio.voice import VoiceParams
from referee.pipeline.sinks import Sink
from session.closing import close_all
from session.events import AudioStatusEvent, WarningEvent

#: utterances waiting to be said (a teaching drill keeps 2 and drops older ones; at a table
#: "ben, first" must not be dropped for the "aki, wrong" that follows it: a card's
#: announcements are at most one first and one per player)
LIVE_QUEUE = 8

#: the live voice's rendering: phrases trimmed (-40 dB), said 1.25× the engines' own rate
#: (brisk, as a referee calls; not judged by ear on this machine, which has no speakers:
#: lower it if a table finds it hurried), 0.03 s between phrases (the trimmed edges keep
#: 0.01 s each side, so phrases stay apart)
LIVE_VOICE = VoiceParams(max_queue=LIVE_QUEUE, gap_s=0.03, speed=1.25)

_PHRASES: dict[str, tuple[str, str]] = {
    "first": ("first", "いちばん"),
    "tie": ("tie", "どうちゃく"),
    "wrong": ("wrong", "ちがいます"),
    "missed": ("too late", "時間切れ"),
    "nobody": ("nobody", "だれも取れません"),
    "unclear": ("unclear", "はっきりしません"),
    "camera_lost": ("camera lost", "カメラが切れました"),
    "mic_lost": ("microphone lost", "マイクが切れました"),
}


def phrase_text(key: str, lang: str) -> str:
    """The text of a live phrase key: ``p:NAME`` is the player's name, ``g:GAME:PHRASE`` a
    game's own phrase (in ``lang`` when its judging module translates it), else the table above."""
    if key.startswith("p:"):
        return key[2:]
    if key.startswith("g:"):
        game, phrase = key[2:].split(":", 1)
        words = game_words(game)
        return words.text(phrase, lang) if words is not None else phrase
    return _PHRASES[key][0 if lang == "en" else 1]


class GameWords:
    """A game's own spoken verdicts, from its judging module: ``announcement(line)`` (the
    phrases said for one verdict line), ``phrases(players)`` (all it can say) and, optional,
    ``phrase_text(phrase, lang)`` (a phrase in the table's language; without it: as given)."""

    def __init__(self, game: str, module: Any):
        self.game = game
        self.announcement, self.phrases = module.announcement, module.phrases
        self._text = getattr(module, "phrase_text", None)
        self._module = module

    def keys(self, line: dict[str, Any]) -> tuple[str, ...]:
        return tuple(f"g:{self.game}:{p}" for p in self.announcement(line))

    def all_keys(self, players) -> list[str]:
        return sorted(f"g:{self.game}:{p}" for p in self.phrases(players))

    def text(self, phrase: str, lang: str) -> str:
        return self._text(phrase, lang) if self._text is not None else phrase

    def text_of_line(self, line: dict[str, Any]) -> str | None:
        """What is said for ``line`` as one line of text for the screen (the module's
        ``announcement_text`` when it has one, else the phrases joined); None: nothing said."""
        shown = getattr(self._module, "announcement_text", None)
        if shown is not None:
            return shown(line)
        said = self.announcement(line)
        return " ".join(said) if said else None


def game_words(game: str | None) -> GameWords | None:
    """The game's own spoken verdicts (see :class:`GameWords`), or None for a game whose judging
    module has none (the generic :func:`utterance` is said)."""
    if not game:
        return None
    try:
        from referee import judging

        module = judging.module(game)
    except Exception:  # (an unknown game: the generic words)
        return None
    if callable(getattr(module, "announcement", None)) and callable(getattr(module, "phrases", None)):
        return GameWords(game, module)
    return None


def utterance(item: dict[str, Any]) -> tuple[str, ...]:
    """The phrase keys said for one announcement or verdict line (empty: nothing to say)."""
    what = item.get("what")
    if item.get("type") == "verdict":
        first = item.get("first") or item.get("grab_winner") or (item.get("player") if item.get("ok") else None)
        if first:
            return (f"p:{first}", "first")
        return ("unclear",) if _unclear(item) else ("nobody",)
    if what == "first" and item.get("player"):
        return (f"p:{item['player']}", "first")
    if what == "tie":
        return ("tie",) + tuple(f"p:{p}" for p in (item.get("players") or []))
    if what in ("wrong", "missed") and item.get("player"):
        return (f"p:{item['player']}", what)
    if what == "nobody":
        return ("nobody",)
    return ()


def _unclear(line: dict[str, Any]) -> bool:
    """Whether nobody took the card because the referee did not clearly perceive something (a
    player unclear, the first resting on it): the table hears "unclear", never "wrong" or
    "nobody" (the table is asked; referee.judging.unclear)."""
    from referee.judging.verdicts import CardVerdict, verdict_of

    v = verdict_of(None, line)
    return bool(v.unclear) or (isinstance(v, CardVerdict) and v.first_unclear)


class VoiceSink(Sink):
    """Speaks the live verdicts (see module doc); ``voice`` is a ready :class:`audio.voice.Voice`
    (tests pass one with a recording player), else one is made for ``lang``."""

    def __init__(self, lang: str = "ja", voice: Any = None, output: Any = None):
        self.lang = lang
        #: the timed output (:class:`audio.sound_out.TimedOutput`) the voice plays through, if any
        self.output = output
        if voice is None:
            from audio.sound_out import timed_output
            from audio.voice import Voice, cache_dir

            # one output stream kept open, each utterance's hand-off timed ("sound starts")
            self.output, _ = timed_output()
            voice = Voice(lang, lambda k: phrase_text(k, lang), cache=cache_dir(), player=self.output,
                          params=LIVE_VOICE)
        self.voice = voice
        self._announced: set[Any] = set()  # cards something was said for (their card_t)
        self._warned: set[str] = set()
        # "sound starts": per utterance said, the moment it names (session clock) and its kind
        self._t0: float | None = None
        #: window announcements not said because a later card's first came (keys, card_t)
        self.superseded: list[tuple[tuple[str, ...], Any]] = []
        self._newest_first: float | None = None  # card_t of the newest card a first was said for
        #: the game's own spoken verdicts (:func:`game_words`), set when the session starts
        self.words: GameWords | None = None
        self.window_s, self.tie_s = 3.0, 0.033
        #: (kind, target, queued, handed, latency, duration): session seconds; kind first/window/loss
        self.sounds: list[tuple[str, float | None, float, float, float]] = []
        if self.output is not None:
            self.output.on_handed = self._handed

    @property
    def warning(self) -> str | None:
        return getattr(self.voice, "warning", None)

    def start(self, header) -> None:
        keys = list(_PHRASES) + [f"p:{p}" for p in header.players]
        self.words = game_words(header.game)
        if self.words is not None:
            keys += self.words.all_keys(header.players)
        self.voice.prepare(keys)
        try:
            from rules import get

            opts = get(header.game).resolve_options(dict(header.options))
            self.window_s = float(opts.get("window", 3.0) or 3.0)
            self.tie_s = float(opts.get("tie_ms", 33) or 0) / 1000
        except Exception:  # (a game without these options: the defaults)
            pass

    def start_clock(self, start: float) -> None:
        """The session clock's start (``time.monotonic()``): sounds are timed on it."""
        self._t0 = start

    def _say(self, keys: tuple[str, ...], kind: str, target: float | None, card_t: Any = None) -> None:
        import time

        queued = time.monotonic() - self._t0 if self._t0 is not None else None
        tag = (kind, target, queued, card_t)
        if not hasattr(self.voice, "drop_waiting"):  # a voice without priorities: in order
            self.voice.say(*keys)
            return
        say = self.voice.say
        if kind == "first":
            if isinstance(card_t, (int, float)):
                self._newest_first = card_t if self._newest_first is None else max(self._newest_first, card_t)
                self.superseded += [(k, t[3]) for k, t in self.voice.drop_waiting(
                    lambda t: t is not None and t[0] == "window" and _earlier(t[3], card_t))]
            say(*keys, tag=tag, urgent=True)
        elif kind == "window" and _earlier(card_t, self._newest_first):
            self.superseded.append((tuple(keys), card_t))
        else:
            say(*keys, tag=tag, keep=kind == "loss")

    def _handed(self, t: float, latency: float, duration: float = 0.0) -> None:
        """The output's hand-off of the utterance just taken (``Voice.said_tags[-1]``)."""
        tags = getattr(self.voice, "said_tags", None)
        if self._t0 is None or not tags or tags[-1] is None or tags[-1][2] is None:
            return
        kind, target, queued, _ = tags[-1]
        self.sounds.append((kind, target, queued, t - self._t0, latency, duration))

    def sound_figures(self) -> dict[str, Any] | None:
        """``sound_ms`` of ``live-figures.json``: per kind (``first``: after the reaction + the
        tie window; ``window``: wrong/missed/a final verdict, after the window's close; ``move``:
        a game's own verdict, e.g. a TAKOYAKI move, after its card landed) the
        first sample handed to the output stream after that moment, the same plus the
        stream's reported output latency (sound starts), and the part spent between the
        announcement and the hand-off (the voice's queue); None without an output."""
        if self.output is None:
            return None

        def stats(xs):
            ys = sorted(xs)
            return {"n": len(ys), "median": round(ys[len(ys) // 2]),
                    "p95": round(ys[min(len(ys) - 1, int(0.95 * len(ys)))]), "max": round(ys[-1])} if ys else None

        out: dict[str, Any] = {"said": len(self.sounds),
                               "stream_latency_ms": stats([s[4] * 1000 for s in self.sounds]),
                               "utterance_ms": stats([s[5] * 1000 for s in self.sounds])}
        # the voice's own path (phrase cache, its thread, the hand-off) apart from the wait
        # behind utterances still being said: the announcements made with the voice idle
        idle, busy_until = [], float("-inf")
        for s in sorted(self.sounds, key=lambda s: s[3]):
            if s[2] >= busy_until:
                idle.append((s[3] - s[2]) * 1000)
            busy_until = max(busy_until, s[3] + s[5])
        out["idle_announced_to_handed"] = stats(idle)
        out["superseded"] = len(self.superseded)
        for kind in ("first", "window", "move"):
            xs = [s for s in self.sounds if s[0] == kind and s[1] is not None]
            out[kind] = {"handed_after_target": stats([(s[3] - s[1]) * 1000 for s in xs]),
                         "sound_after_target": stats([(s[3] + s[4] - s[1]) * 1000 for s in xs]),
                         "announced_to_handed": stats([(s[3] - s[2]) * 1000 for s in xs])}
        return out

    def announce(self, items: list[dict[str, Any]]) -> None:
        for item in items:
            keys = utterance(item) if self.words is None else ()
            if keys:
                self._announced.add(_card_key(item.get("card_t")))
                card_t, what = item.get("card_t"), item.get("what")
                target = None
                if isinstance(card_t, (int, float)):
                    if what in ("first", "tie") and isinstance(item.get("time"), (int, float)):
                        target = card_t + item["time"] + self.tie_s
                    elif what in ("wrong", "missed", "nobody"):
                        target = card_t + self.window_s
                self._say(keys, "first" if what in ("first", "tie") else "window", target, card_t)

    def verdicts(self, lines: list[dict[str, Any]]) -> None:
        for line in lines:
            if line.get("type") != "verdict" or line.get("provisional"):
                continue
            if _card_key(line.get("t")) in self._announced:
                continue
            if self.words is not None:  # the game's own words, said as soon as the move is judged
                keys = self.words.keys(line)
                if keys:
                    self._announced.add(_card_key(line.get("t")))
                    t = line.get("t")
                    self._say(keys, "move", t if isinstance(t, (int, float)) else None, t)
                continue
            keys = utterance(line)
            if keys:
                self._announced.add(_card_key(line.get("t")))
                t = line.get("t")
                self._say(keys, "window", t + self.window_s if isinstance(t, (int, float)) else None, t)

    def event(self, event) -> None:
        if isinstance(event, WarningEvent) and event.extra.get("source") == "camera" \
                and event.extra.get("state") == "lost" and "camera" not in self._warned:
            self._warned.add("camera")
            self._say(("camera_lost",), "loss", None)
        elif isinstance(event, AudioStatusEvent) and event.state == "lost" and "mic" not in self._warned:
            self._warned.add("mic")
            self._say(("mic_lost",), "loss", None)

    def close(self) -> None:
        wait = getattr(self.voice, "wait", None)
        if wait is not None:
            wait(3.0)
        close_all(self.voice.close, self.output is not None and self.output.close)


def _earlier(card_t: Any, than: Any) -> bool:
    """Card ``card_t`` came before card ``than`` (unknown times: no)."""
    return isinstance(card_t, (int, float)) and isinstance(than, (int, float)) and card_t < than - 1e-6


def _card_key(t: Any) -> Any:
    """Verdict times are rounded to the millisecond, announcement card times too."""
    return round(t, 3) if isinstance(t, (int, float)) else t

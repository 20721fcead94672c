"""The live referee's voice as a sink: who was first, who was wrong, said as it is known.

Speech is :class:`audio.voice.Voice` (engines, the rendered-phrase cache, a thread that
plays; ``say`` only queues, so speaking never blocks the pipeline). The phrases are a
finite set — each player's name and a handful of verdict words per language — rendered
when the session starts (:meth:`VoiceSink.start`), so nothing is synthesised while the
table waits. What is said:

- an announcement (``first``: "ben, first"; ``tie``: "tie, ben, dai"; ``wrong``: "aki,
  wrong"; ``missed``: "chie, too late"; ``nobody``);
- a final verdict only for a card nothing was announced for (a game whose judge does not
  announce): its first player, else "nobody";
- a lost camera or microphone, once each ("camera lost").

Languages: ``en`` (piper's joe voice, else espeak-ng) and ``ja`` (pyopenjtalk's Mei);
``referee live --lang ja|en`` picks one (see ``audio/voice.py`` for engines and licences).
"""

from __future__ import annotations

from typing import Any

from referee.pipeline.sinks import Sink
from session.events import AudioStatusEvent, WarningEvent

#: utterances waiting to be said (a teaching drill keeps 2 and drops older ones; at a table
#: "ben, first" must not be dropped for the "aki, wrong" that follows it: a card's
#: announcements are at most one first and one per player)
LIVE_QUEUE = 8

_PHRASES: dict[str, tuple[str, str]] = {
    "first": ("first", "いちばん"),
    "tie": ("tie", "どうちゃく"),
    "wrong": ("wrong", "ちがいます"),
    "missed": ("too late", "時間切れ"),
    "nobody": ("nobody", "だれも取れません"),
    "camera_lost": ("camera lost", "カメラが切れました"),
    "mic_lost": ("microphone lost", "マイクが切れました"),
}


def phrase_text(key: str, lang: str) -> str:
    """The text of a live phrase key: ``p:NAME`` is the player's name, else the table above."""
    if key.startswith("p:"):
        return key[2:]
    return _PHRASES[key][0 if lang == "en" else 1]


def utterance(item: dict[str, Any]) -> tuple[str, ...]:
    """The phrase keys said for one announcement or verdict line (empty: nothing to say)."""
    what = item.get("what")
    if item.get("type") == "verdict":
        first = item.get("first") or item.get("grab_winner") or (item.get("player") if item.get("ok") else None)
        return (f"p:{first}", "first") if first else ("nobody",)
    if what == "first" and item.get("player"):
        return (f"p:{item['player']}", "first")
    if what == "tie":
        return ("tie",) + tuple(f"p:{p}" for p in (item.get("players") or []))
    if what in ("wrong", "missed") and item.get("player"):
        return (f"p:{item['player']}", what)
    if what == "nobody":
        return ("nobody",)
    return ()


class VoiceSink(Sink):
    """Speaks the live verdicts (see module doc); ``voice`` is a ready :class:`audio.voice.Voice`
    (tests pass one with a recording player), else one is made for ``lang``."""

    def __init__(self, lang: str = "ja", voice: Any = None):
        self.lang = lang
        if voice is None:
            from audio.voice import Voice, VoiceParams, cache_dir

            voice = Voice(lang, lambda k: phrase_text(k, lang), cache=cache_dir(),
                          params=VoiceParams(max_queue=LIVE_QUEUE))
        self.voice = voice
        self._announced: set[Any] = set()  # cards something was said for (their card_t)
        self._warned: set[str] = set()

    @property
    def warning(self) -> str | None:
        return getattr(self.voice, "warning", None)

    def start(self, header) -> None:
        keys = list(_PHRASES) + [f"p:{p}" for p in header.players]
        self.voice.prepare(keys)

    def announce(self, items: list[dict[str, Any]]) -> None:
        for item in items:
            keys = utterance(item)
            if keys:
                self._announced.add(_card_key(item.get("card_t")))
                self.voice.say(*keys)

    def verdicts(self, lines: list[dict[str, Any]]) -> None:
        for line in lines:
            if line.get("type") != "verdict" or line.get("provisional"):
                continue
            if _card_key(line.get("t")) in self._announced:
                continue
            keys = utterance(line)
            if keys:
                self._announced.add(_card_key(line.get("t")))
                self.voice.say(*keys)

    def event(self, event) -> None:
        if isinstance(event, WarningEvent) and event.extra.get("source") == "camera" \
                and event.extra.get("state") == "lost" and "camera" not in self._warned:
            self._warned.add("camera")
            self.voice.say("camera_lost")
        elif isinstance(event, AudioStatusEvent) and event.state == "lost" and "mic" not in self._warned:
            self._warned.add("mic")
            self.voice.say("mic_lost")

    def close(self) -> None:
        wait = getattr(self.voice, "wait", None)
        if wait is not None:
            wait(3.0)
        self.voice.close()


def _card_key(t: Any) -> Any:
    """Verdict times are rounded to the millisecond, announcement card times too."""
    return round(t, 3) if isinstance(t, (int, float)) else t

"""The live voice says TAKOYAKI's own verdicts (referee.judging.takoyaki.announcement), not
the generic "nobody" of a card game with a first player (issue 34 item 1)."""

from __future__ import annotations

import json

import numpy as np

from audio.voice import Engine, Voice, VoiceParams
from session.events import SessionHeader
from referee.commands.demo_files import TAKOYAKI_DEMO
from referee.judging.takoyaki import phrases
from referee.live.voice import LIVE_QUEUE, VoiceSink, phrase_text


class Beeps(Engine):
    name, lang = "beeps", "en"

    def render(self, text):
        return np.full(len(text) * 10, 0.1, np.float32)


def _sink(lang="en"):
    texts = []

    def text(k):
        texts.append(phrase_text(k, lang))
        return texts[-1]

    voice = Voice(lang, text, engine=Beeps(), player=lambda x, rate: None, find=False,
                  params=VoiceParams(max_queue=LIVE_QUEUE))
    return VoiceSink(lang, voice=voice), voice, texts


HEADER = SessionHeader(t=0.0, game="takoyaki", mode="versus", players=("aki", "ben"))


def test_takoyaki_verdicts_are_said_in_the_games_own_words_and_all_are_rendered_at_start():
    sink, voice, _ = _sink()
    sink.start(HEADER)
    sink.verdicts([
        {"type": "verdict", "t": 1.0, "player": "aki", "card": "AC", "zone": "p:aki:slot1", "action": "place",
         "legal": True, "next": "aki"},  # a chain goes on: nothing said
        {"type": "verdict", "t": 2.0, "player": "aki", "card": "7H", "zone": "p:aki:slot6", "action": "place",
         "legal": False, "why": "wrong slot: 7H goes on slot 7", "next": "aki"},
        {"type": "verdict", "t": 3.0, "player": "aki", "card": "QS", "zone": "pile0", "action": "discard",
         "legal": True, "next": "ben"},
        {"type": "verdict", "t": 4.0, "player": "ben", "card": "2H", "zone": "p:ben:slot2", "action": "place",
         "legal": True, "next": None, "winner": "ben"}])
    assert voice.wait(10.0)
    said = [tuple(k.split(":", 2)[2] for k in keys) for keys in voice.spoken]
    assert said == [("7 of hearts", "on the 6 slot", "wrong slot"), ("aki", "turn ends", "ben", "to play"),
                    ("ben", "wins")]
    assert "nobody" not in {k for keys in voice.spoken for k in keys}
    assert {f"g:takoyaki:{p}" for p in phrases(["aki", "ben"])} <= set(voice.rendered)  # all, at start


def test_takoyaki_in_japanese():
    sink, voice, texts = _sink("ja")
    sink.start(HEADER)
    sink.verdicts([{"type": "verdict", "t": 2.0, "player": "aki", "card": "7H", "zone": "p:aki:slot6",
                    "action": "place", "legal": False, "why": "wrong slot", "next": "aki"}])
    assert voice.wait(10.0)
    assert [phrase_text(k, "ja") for k in voice.spoken[0]] == ["ハートの7", "6のマス", "マスがちがいます"]
    assert phrase_text("g:takoyaki:on the ace slot", "ja") == "エースのマス"
    assert phrase_text("g:takoyaki:joker", "ja") == "ジョーカー"
    assert all(t.isascii() is False or t in ("aki", "ben") for t in texts)  # every phrase translated


def test_the_demos_verdicts_are_said_winner_last():
    """The rendered demo's expected verdicts (fixtures/takoyaki): each chain's end and the win."""
    sink, voice, _ = _sink()
    sink.start(HEADER)
    lines = [json.loads(s) for s in (TAKOYAKI_DEMO / "expected.jsonl").read_text().splitlines() if s.strip()]
    verdicts = [v for v in lines if v.get("type") == "verdict"]
    for line in lines:  # (a move every second or so at a table: the voice keeps up)
        sink.verdicts([line])
        assert voice.wait(10.0)
    ends = [v for v in verdicts if v["action"] == "discard" and v.get("next")]
    assert len(voice.spoken) == len(ends) + 1 and voice.spoken[-1] == ("g:takoyaki:aki", "g:takoyaki:wins")
    assert [s[0] for s in sink.sounds] == [] or all(s[0] == "move" for s in sink.sounds)

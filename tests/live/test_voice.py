"""The live voice: what is said for announcements and verdicts (a fake engine, a recorder)."""

from __future__ import annotations

import numpy as np

from audio.voice import Engine, Voice, VoiceParams
from session.events import AudioStatusEvent, SessionHeader, WarningEvent
from referee.live.voice import LIVE_QUEUE, VoiceSink, phrase_text, utterance


class Beeps(Engine):
    name, lang = "beeps", "en"

    def render(self, text):
        return np.full(len(text) * 10, 0.1, np.float32)


def _sink():
    played = []
    voice = Voice("en", lambda k: phrase_text(k, "en"), engine=Beeps(), player=lambda x, rate: played.append(len(x)),
                  find=False, params=VoiceParams(max_queue=LIVE_QUEUE))
    return VoiceSink("en", voice=voice), voice, played


def test_announcements_are_said_and_a_verdict_only_when_nothing_was_announced_for_its_card():
    sink, voice, played = _sink()
    sink.start(SessionHeader(t=0.0, game="ikatako", mode="versus", players=("aki", "ben")))
    sink.announce([{"type": "announce", "what": "first", "player": "ben", "card": "3", "card_t": 2.0, "t": 3.0}])
    sink.verdicts([{"type": "verdict", "t": 2.0, "card": "3", "first": "ben"}])  # already said
    sink.verdicts([{"type": "verdict", "t": 5.533, "card": "tako", "first": None}])
    sink.announce([{"type": "announce", "what": "tie", "players": ["aki", "ben"], "card": "2", "card_t": 9.0, "t": 9.5}])
    assert voice.wait(10.0)
    assert voice.spoken == [("p:ben", "first"), ("nobody",), ("tie", "p:aki", "p:ben")]
    assert len(played) == 3 and "p:aki" in voice.rendered  # names rendered when the session started


def test_losses_are_said_once():
    sink, voice, _ = _sink()
    lost = WarningEvent(t=1.0, message="camera 0 lost", extra={"source": "camera", "state": "lost"})
    for ev in (lost, lost, AudioStatusEvent(t=2.0, state="lost"), AudioStatusEvent(t=3.0, state="lost")):
        sink.event(ev)
    assert voice.wait(10.0) and voice.spoken == [("camera_lost",), ("mic_lost",)]


def test_the_phrases_exist_in_both_languages():
    for key in ("first", "tie", "wrong", "missed", "nobody", "camera_lost", "mic_lost"):
        assert phrase_text(key, "en") and phrase_text(key, "ja")
    assert phrase_text("p:aki", "ja") == "aki"
    assert utterance({"type": "announce", "what": "wrong", "player": "aki"}) == ("p:aki", "wrong")
    assert utterance({"type": "announce", "what": "bogus"}) == ()

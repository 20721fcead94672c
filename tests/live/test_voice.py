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
    assert voice.wait(10.0)  # said before the next card's tie (waiting, it would not be: see below)
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
    for key in ("first", "tie", "wrong", "missed", "nobody", "unclear", "camera_lost", "mic_lost"):
        assert phrase_text(key, "en") and phrase_text(key, "ja")
    assert phrase_text("p:aki", "ja") == "aki"
    assert utterance({"type": "announce", "what": "wrong", "player": "aki"}) == ("p:aki", "wrong")
    assert utterance({"type": "announce", "what": "bogus"}) == ()


class _Stream:
    """A stand-in output stream: what was written, and a reported latency."""

    latency = 0.05

    def __init__(self):
        self.written = []

    def write(self, data):
        self.written.append(len(data))

    def stop(self):
        pass

    def close(self):
        pass


def test_sound_starts_is_timed_from_the_moment_the_announcement_names():
    """``sound_ms``: the first sample handed to the output stream after the reaction + tie
    window (a first) or the window's close (wrong), and the same plus the stream's latency."""
    import time

    from audio.sound_out import TimedOutput

    stream = _Stream()
    output = TimedOutput(opener=lambda rate: stream, pace=False)
    voice = Voice("en", lambda k: phrase_text(k, "en"), engine=Beeps(), player=output, find=False,
                  params=VoiceParams(max_queue=LIVE_QUEUE))
    sink = VoiceSink("en", voice=voice, output=output)
    output.on_handed = sink._handed
    sink.start(SessionHeader(t=0.0, game="ikatako", mode="versus", players=("aki", "ben")))
    sink.start_clock(time.monotonic() - 10.0)  # the session is 10 s old
    sink.announce([{"type": "announce", "what": "first", "player": "ben", "card": "3", "card_t": 9.0, "time": 0.3,
                    "t": 9.3}])
    sink.announce([{"type": "announce", "what": "wrong", "player": "aki", "card": "3", "card_t": 9.0, "t": 9.5}])
    assert voice.wait(10.0) and len(stream.written) == 2
    fig = sink.sound_figures()
    assert fig["said"] == 2 and fig["stream_latency_ms"]["median"] == 50
    first = fig["first"]["handed_after_target"]["median"]
    assert 10_000 - 9_333 <= first < 10_000 - 9_333 + 5_000  # handed after the session's 10 s
    assert fig["first"]["sound_after_target"]["median"] - first in (49, 50, 51)
    assert fig["window"]["handed_after_target"]["median"] >= 10_000 - 12_000
    assert fig["idle_announced_to_handed"]["n"] >= 1  # the first was said with the voice idle
    assert _sink()[0].sound_figures() is None  # no timed output: no figure


class _Padded(Engine):
    """A tone padded with silence before and after, as the engines render; its rate follows ``speed``."""

    name, lang = "padded", "en"

    def __init__(self):
        self.calls = []

    def render(self, text):
        self.calls.append((text, self.speed))
        tone = np.full(int(2205 / self.speed), 0.5, np.float32)
        return np.concatenate([np.zeros(6000, np.float32), tone, np.zeros(7000, np.float32)])


def test_phrases_are_trimmed_and_the_cache_key_holds_the_rendering(tmp_path):
    from audio.voice import RATE

    eng = _Padded()
    v = Voice("en", lambda k: k, engine=eng, player=lambda x, r: None, find=False, cache=tmp_path,
              params=VoiceParams(edge_s=0.01))
    x = v.render("ben")
    assert len(x) == 2205 + 2 * round(0.01 * RATE)  # the silence cut, 10 ms kept each side
    untrimmed = Voice("en", lambda k: k, engine=_Padded(), player=lambda x, r: None, find=False, cache=tmp_path,
                      params=VoiceParams(trim_db=None))
    assert len(untrimmed.render("ben")) == 6000 + 2205 + 7000  # not the trimmed file from the cache
    brisk_engine = _Padded()
    brisk = Voice("en", lambda k: k, engine=brisk_engine, player=lambda x, r: None, find=False, cache=tmp_path,
                  params=VoiceParams(speed=1.25))
    assert brisk_engine.calls == [] and len(brisk.render("ben")) < len(x)  # rendered anew, faster
    assert brisk_engine.calls == [("ben", 1.25)]
    again = _Padded()
    Voice("en", lambda k: k, engine=again, player=lambda x, r: None, find=False, cache=tmp_path,
          params=VoiceParams(speed=1.25)).render("ben")
    assert again.calls == []  # same rendering: from the cache


class _Gate:
    """A player that holds the first utterance until released (the voice is busy speaking)."""

    def __init__(self):
        import threading

        self.go = threading.Event()
        self.started = threading.Event()
        self.n = 0

    def __call__(self, x, rate):
        self.n += 1
        if self.n == 1:
            self.started.set()
            self.go.wait(10)


def test_a_newer_cards_first_is_said_before_and_instead_of_earlier_cards_window_announcements():
    gate = _Gate()
    voice = Voice("en", lambda k: phrase_text(k, "en"), engine=Beeps(), player=gate, find=False,
                  params=VoiceParams(max_queue=LIVE_QUEUE))
    sink = VoiceSink("en", voice=voice)
    sink.start(SessionHeader(t=0.0, game="ikatako", mode="versus", players=("aki", "ben", "chie", "dai")))
    sink.announce([{"type": "announce", "what": "first", "player": "ben", "card_t": 2.0, "time": 0.4, "t": 2.4}])
    assert gate.started.wait(10)  # "ben, first" is being said
    sink.announce([{"type": "announce", "what": "wrong", "player": "aki", "card_t": 2.0, "t": 5.0},
                   {"type": "announce", "what": "missed", "player": "chie", "card_t": 2.0, "t": 5.0}])
    sink.event(WarningEvent(t=5.1, message="camera 0 lost", extra={"source": "camera", "state": "lost"}))
    sink.announce([{"type": "announce", "what": "first", "player": "dai", "card_t": 5.3, "time": 0.5, "t": 5.8},
                   {"type": "announce", "what": "first", "player": "aki", "card_t": 8.6, "time": 0.5, "t": 9.1}])
    sink.announce([{"type": "announce", "what": "wrong", "player": "ben", "card_t": 5.3, "t": 8.3}])  # late
    sink.verdicts([{"type": "verdict", "t": 11.9, "card": "tako", "first": None}])  # a newer card: said
    gate.go.set()
    assert voice.wait(10.0)
    assert voice.spoken == [("p:ben", "first"), ("p:dai", "first"), ("p:aki", "first"), ("camera_lost",),
                            ("nobody",)]
    assert sorted(sink.superseded) == [(("p:aki", "wrong"), 2.0), (("p:ben", "wrong"), 5.3),
                                       (("p:chie", "missed"), 2.0)]


def test_a_card_nobody_took_because_something_was_unclear_is_said_unclear():
    """The voice says "unclear", never "wrong" or "nobody", where the referee did not clearly
    perceive who took the card; a clear first is still said."""
    unclear = {"type": "verdict", "t": 2.0, "card": "3", "first": None, "correct": [], "wrong": [],
               "unclear": {"ben": "heard a shout at +0.520 s, the word was unclear"}, "first_unclear": True}
    assert utterance(unclear) == ("unclear",)
    assert utterance({**unclear, "first": "aki", "first_unclear": False}) == ("p:aki", "first")
    assert utterance({"type": "verdict", "t": 2.0, "card": "3", "first": None}) == ("nobody",)
    coop = {"type": "verdict", "t": 1.0, "card": "4", "player": "aki", "ok": False, "total": 4,
            "unclear": {"aki": "heard a shout at +0.400 s, the word was unclear"}}
    assert utterance(coop) == ("unclear",)

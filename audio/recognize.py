"""Words with Vosk: a grammar-limited recognizer that decodes one utterance at a time.

Why one utterance at a time: in continuous table noise Vosk's own end-of-utterance
detection may never fire (results ~2 s late in research), so the caller hands over the
samples of a window it chose (an utterance from the onset detector, or a reaction window)
and the result is forced with ``FinalResult()``. Each window gets a fresh recognizer,
so a result never depends on what was heard before (determinism). Vosk's word times are not used (30 ms
steps, ~30 ms early, and they keep counting across results): onsets come from
:mod:`audio.onset`.

At start-up every word of the grammar is looked up in the model
(``vosk_model_find_word``): Vosk itself would drop a missing grammar word with only a
log warning, and the call it spells would silently never be heard.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from math import gcd
from pathlib import Path

import numpy as np
from scipy import signal

from audio.lexicon import Lexicon, Parsed, Vocabulary, grammar_phrases
from audio.models import FoundModel
from session.errors import ModelMissing

VOSK_RATE = 16000


def _import_vosk():
    try:
        import vosk
    except (ImportError, OSError) as exc:
        raise ModelMissing(f"the vosk package is not usable ({exc}); pip install vosk") from None
    vosk.SetLogLevel(-1)
    return vosk


_MODELS: dict[Path, object] = {}


def undithered(path: Path) -> Path:
    """A view of the model folder whose feature config says ``--dither=0``.

    Kaldi adds random dither noise to the samples unless told not to, and the models'
    ``conf/mfcc.conf`` do not: the same utterance then gets a slightly different
    confidence on every decode. The view is a folder of symlinks to the model's files
    (the model itself is not touched) with its own ``conf/mfcc.conf``.
    """
    path = Path(path).resolve()
    mfcc = path / "conf" / "mfcc.conf"
    if not mfcc.is_file() or "--dither" in mfcc.read_text(errors="replace"):
        return path
    import hashlib
    import os
    import tempfile

    view = Path(tempfile.gettempdir()) / f"referee-vosk-{hashlib.sha1(str(path).encode()).hexdigest()[:12]}"
    conf = view / "conf"
    if not (conf / "mfcc.conf").is_file():
        tmp = Path(tempfile.mkdtemp(prefix="referee-vosk-", dir=tempfile.gettempdir()))
        for entry in path.iterdir():
            if entry.name != "conf":
                os.symlink(entry, tmp / entry.name)
        (tmp / "conf").mkdir()
        for entry in (path / "conf").iterdir():
            if entry.name != "mfcc.conf":
                os.symlink(entry, tmp / "conf" / entry.name)
        (tmp / "conf" / "mfcc.conf").write_text(mfcc.read_text().rstrip("\n") + "\n--dither=0\n")
        try:
            os.rename(tmp, view)
        except OSError:  # another process made it first
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    return view


def load_model(found: FoundModel):
    """The loaded Vosk model of a folder (cached: loading takes seconds), without dither."""
    path = Path(found.path).resolve()
    if path not in _MODELS:
        vosk = _import_vosk()
        try:
            _MODELS[path] = vosk.Model(str(undithered(path)))
        except Exception as exc:
            raise ModelMissing(f"model {found.name} at {path} cannot be loaded ({exc}); reinstall it") from None
    return _MODELS[path]


def find_word(model, word: str) -> bool:
    finder = getattr(model, "find_word", None) or getattr(model, "vosk_model_find_word")
    return finder(word) >= 0


@dataclass(frozen=True)
class Heard:
    """What the recognizer heard in one window."""

    text: str  # raw words, as the model spells them
    words: tuple[str, ...]
    conf: float | None  # mean word confidence
    parsed: Parsed


class Recognizer:
    """A Vosk recognizer limited to one game's calls as spelled by one model's lexicon."""

    def describe(self) -> str:
        """The engine and where its model is (for a person: ``referee listen`` says it)."""
        return f"Vosk model {self.found.name} ({self.found.path})"

    def __init__(self, found: FoundModel, vocab: Vocabulary, lexicon: Lexicon | None = None):
        self.found, self.vocab = found, vocab
        self.lexicon = lexicon or Lexicon.for_model(found.name)
        self.model = load_model(found)
        missing = sorted(w for w in self.lexicon.words(vocab) if not find_word(self.model, w))
        if missing:
            raise ModelMissing(
                f"model {found.name} lacks the word(s) {', '.join(missing)} used by the lexicon "
                f"{self.lexicon.path}: fix the lexicon or use the model it was written for"
            )
        self.unk = find_word(self.model, "[unk]")
        self.narrow(None)

    def narrow(self, tokens: list[str] | None) -> None:
        """Limit the grammar to ``tokens`` (and numbers if any is a number); None: the whole game."""
        vocab = self.vocab
        if tokens is not None:
            names = tuple(t for t in vocab.names if t in tokens)
            numbers = tuple(n for n in vocab.numbers if str(n) in tokens)
            vocab = vocab.narrowed(names or vocab.names, numbers)
        phrases = grammar_phrases(self.lexicon, vocab)
        if self.unk:
            phrases.append("[unk]")  # lets an official model say "not a call"
        self.grammar = json.dumps(phrases, ensure_ascii=False)
        self._active_vocab = vocab

    def _recognizer(self):
        # A fresh recognizer per window (< 1 ms): a reused one carries adaptation state
        # across utterances, so the same utterance decoded later gave another confidence.
        vosk = _import_vosk()
        rec = vosk.KaldiRecognizer(self.model, VOSK_RATE, self.grammar)
        rec.SetWords(True)
        return rec

    def decode(self, samples: np.ndarray, rate: int) -> Heard:
        """Recognise one window of mono float samples (any rate) and parse it into tokens."""
        x = np.asarray(samples, dtype=np.float64)
        if rate != VOSK_RATE:
            g = gcd(int(rate), VOSK_RATE)
            x = signal.resample_poly(x, VOSK_RATE // g, int(rate) // g)
        pcm = (np.clip(x, -1.0, 1.0) * 32767).astype("<i2").tobytes()
        rec = self._recognizer()
        step = VOSK_RATE // 5 * 2  # 0.2 s of int16
        for i in range(0, len(pcm), step):
            rec.AcceptWaveform(pcm[i : i + step])
        result = json.loads(rec.FinalResult())
        items = [w for w in result.get("result", []) if w.get("word") and w["word"] != "[unk]"]
        words = tuple(w["word"] for w in items)
        conf = round(float(np.mean([w.get("conf", 1.0) for w in items])), 3) if items else None
        text = " ".join(w for w in result.get("text", "").split() if w != "[unk]")
        return Heard(text, words, conf, self.lexicon.parse(words, self._active_vocab))

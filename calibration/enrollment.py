"""The voice-enrollment step of ``referee calibrate``: every player says every call of the
game a few times into their own seat's microphone, and the takes become the enrolled voices
(``DIR/<player>/<call>.<take>.wav``, as :func:`audio.enroll.from_folder` loads them).

**The prompts** (:func:`prompts`): player by player (seat order); for each, round by round
(take 1 of every call, then take 2 of every call, ...); in each round the calls in the
vocabulary's order (:func:`audio.calls.enrollment_calls` of :func:`rules.vocabulary`:
the game's own list, nothing named here). Why rounds: two takes said back to back are nearly
the same take, and from the second round on every take can be checked against every call.
A recording for ``--enroll-from`` holds the takes in this order.

**A take** (:func:`audio.takes.listen`): from the prompt until the voice has been quiet for
``tail_s`` (or ``listen_s`` without a voice), on the player's seat channel, with a level meter.
It is said again (up to ``max_tries`` times) when:

- no speech was heard, or the onset detector finds no word in it (:func:`audio.takes.no_word`);
- it is clipped (:func:`audio.takes.clipped`: a sample at -0.1 dBFS, or a flat top);
- it is *heard as another call* (:class:`CallCheck`).

**Heard as another call**: the new take is compared with the player's own takes so far by the
enrolled-voice verifier itself (:meth:`audio.enroll.Enrollment.verify`: DTW over log-mel
frames), not by the speech model. Why: it is cheap (a few ms a take; Whisper costs 0.2-1 s a
take on a 2-GHz core and seconds to load), deterministic (pure numpy, the same answer on
every computer), and it asks the question that matters — will *this player's* templates tell
this call from the others at the table? — where Whisper would judge a voice it has never
heard, on one word out of context. The take is refused when the verifier names another call
surely, or when it lies nearer to another call's takes than to this call's own earlier take.
Its limit: a take can only be compared with what was recorded before it (the first round
checks each call against the calls before it). A take still heard as another call after
``max_tries`` is kept with a warning (the two calls sound alike in this voice: redo them with
``--enroll-only``); a take never heard is left out with a warning.

The takes are written to a staging folder next to the target and moved in place only when
every player is done: a session stopped half-way leaves the earlier takes as they were. An
earlier folder is kept as ``DIR.previous``.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from audio.takes import Heard, Level, TakeParams, TakeSource
from calibration.enroll_takes import DEFAULT_TAKES, TAKES_RANGE
from session.errors import CalibrationError
from session.calls import Vocabulary

#: how often a take may be said before the step gives up on it (kept with a warning when it
#: was only heard as another call; left out when it held no word or was clipped)
MAX_TRIES = 3
#: before a call has a take of its own, a new take is heard as another call only when it lies
#: this near to that call's take (DTW distance, :mod:`audio.enroll`): as near as a repeat of
#: one word. Measured on the real English digits (``../shared/data/speech``, three speakers,
#: take 2 and 3 against take 1): a repeat of the same digit 1.9-8.3 (median 2.8), the nearest
#: other digit 2.7-5.6 — so 2.5 refuses no honest take there and catches a word said wrong
#: only when it is a close repeat (espeak voices: repeats 0.8-2.1, other calls >= 3.3). Cost:
#: most wrong words of the first round pass; the next round catches them (nearer to another
#: call than to their own take: 5 of 48 honest real takes were, and were asked again).
ALIKE_DISTANCE = 2.5


@dataclass(frozen=True)
class Prompt:
    """One take to record: who, on which channel, which call (tokens and as written), which take."""

    player: str
    channel: int
    tokens: tuple[str, ...]
    text: str
    take: int
    of: int
    #: the game's calls, to write what a take was heard as instead (None: as the tokens)
    vocab: Vocabulary | None = field(default=None, compare=False, repr=False)

    @property
    def filename(self) -> str:
        return f"{'_'.join(self.tokens)}.{self.take}.wav"


def prompts(game: str, seats: Sequence[tuple[str, int | None]], lang: str = "ja",
            takes: int = DEFAULT_TAKES) -> list[Prompt]:
    """Every take of every seat in the order they are asked (see the module docstring)."""
    import rules
    from audio.calls import enrollment_calls, say_call

    if not TAKES_RANGE[0] <= takes <= TAKES_RANGE[1]:
        raise CalibrationError(f"--enroll-takes: {TAKES_RANGE[0]} or {TAKES_RANGE[1]} takes per call, got {takes}")
    vocab = rules.vocabulary(game)
    calls = enrollment_calls(vocab)
    out = []
    for name, channel in seats:
        if channel is None:
            raise CalibrationError(f"seat {name} has no microphone channel: find the channels first (the "
                                   "calibration's channel step) before recording the voices")
        for k in range(1, takes + 1):
            out += [Prompt(name, channel, c, say_call(vocab, c, lang), k, takes, vocab) for c in calls]
    return out


class EnrollUI(Protocol):
    """What the step shows (the terminal's :class:`calibration.enroll_ui.TerminalUI`; tests
    collect it)."""

    def player(self, name: str, channel: int, count: int) -> None:
        """A player's turn begins (a live table waits here until they are ready)."""

    def prompt(self, p: Prompt, attempt: int) -> None: ...

    def level(self, level: Level) -> None: ...

    def result(self, p: Prompt, why: str | None, heard: Heard) -> None:
        """The take is kept (``why`` None) or must be said again (``why``)."""

    def note(self, text: str) -> None: ...


class CallCheck:
    """The player's takes so far as enrolled voices: is a new take heard as another call?"""

    def __init__(self):
        from audio.enroll import Enrollment
        from audio.hearing import HEARING_RATE

        self.rate = HEARING_RATE
        self.voices = Enrollment(HEARING_RATE)

    def heard_as(self, player: str, tokens: tuple[str, ...], word16: np.ndarray) -> tuple[str, ...] | None:
        """The other call this take is heard as, or None: the call of the player's nearest
        take when this call already has a take of theirs (the take is nearer to another call
        than to its own: the verifier would confuse them at the table); before that, another
        call nearer than :data:`ALIKE_DISTANCE` (as near as a repeat of one word)."""
        from audio.enroll import trim

        if not self.voices.knows(player):
            return None
        verdict = self.voices.verify(player, trim(word16, self.rate))
        if verdict.nearest is None or verdict.nearest == tokens:
            return None
        own = any(t == tokens for t, _ in self.voices.templates[player])
        return verdict.nearest if own or verdict.distance <= ALIKE_DISTANCE else None

    def add(self, player: str, tokens: tuple[str, ...], word16: np.ndarray) -> None:
        from audio.enroll import trim

        self.voices.add(player, tokens, trim(word16, self.rate))


@dataclass
class EnrollResult:
    """What the step did: the folder, takes kept per player, the retakes asked and why, warnings."""

    folder: Path
    kept: dict[str, int] = field(default_factory=dict)
    retakes: list[tuple[Prompt, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    previous: Path | None = None


def record(source: TakeSource, plan: Sequence[Prompt], folder: str | Path, ui: EnrollUI, *,
           params: TakeParams | None = None, max_tries: int = MAX_TRIES, lang: str = "ja") -> EnrollResult:
    """Record every prompt of ``plan`` from ``source`` into ``folder`` (see the module docstring)."""
    folder = Path(folder)
    params = params or TakeParams()
    staging = folder.with_name(folder.name + ".recording")
    if staging.exists():
        shutil.rmtree(staging)
    result = EnrollResult(folder)
    t0 = time.perf_counter()
    check = CallCheck()
    source.open()
    try:
        current = None
        for p in plan:
            if p.player != current:
                current = p.player
                ui.player(p.player, _channel(p, source), sum(1 for q in plan if q.player == p.player))
            _one_take(source, p, staging, ui, check, result, params, max_tries, lang)
        result.previous = _commit(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        source.close()
    result.seconds = time.perf_counter() - t0
    return result


def _channel(p: Prompt, source: TakeSource) -> int:
    """The source channel of ``p``'s seat (a mono recording: channel 0 for every seat)."""
    if source.channels == 1:
        return 0
    if p.channel >= source.channels:
        raise CalibrationError(f"seat {p.player} is on channel {p.channel}, but the audio input has "
                               f"{source.channels} channel(s) (0-{source.channels - 1})")
    return p.channel


def _said(p: Prompt, tokens: tuple[str, ...], lang: str) -> str:
    """How the call a take was heard as is written (the prompt's game spells it)."""
    from audio.calls import say_call

    return say_call(p.vocab, tokens, lang) if p.vocab is not None else " ".join(tokens)


def _one_take(source, p: Prompt, staging: Path, ui: EnrollUI, check: CallCheck, result: EnrollResult,
              params: TakeParams, max_tries: int, lang: str) -> None:
    """Ask for take ``p`` until it is good or ``max_tries`` are spent; write it when kept."""
    from audio.takes import listen, problem, to_hearing_rate, write_take

    channel = _channel(p, source)
    for attempt in range(1, max_tries + 1):
        ui.prompt(p, attempt)
        heard = listen(source, channel, params, ui.level)
        if heard.ended and heard.voiced is None:
            raise CalibrationError(f"the recording ended before {p.player}'s take {p.take} of {p.text!r}: it must "
                                   "hold every prompted take in order: player by player, take 1 of every call, then take 2, ...")
        word = to_hearing_rate(heard.word(params.pad_s), heard.rate)
        why = problem(heard, word, params)
        other = None if why else check.heard_as(p.player, p.tokens, word)
        if other is not None:
            why = f"heard as {_said(p, other, lang)}: say {p.text}"
        if why is None or (other is not None and attempt == max_tries):
            ui.result(p, None, heard)
            if why is not None:
                result.warnings.append(f"{p.player}: {p.text} (take {p.take}) was still heard as "
                                       f"{_said(p, other, lang)} after {max_tries} tries: kept; if {p.player}'s "
                                       "calls are misheard, redo the voices (referee calibrate --enroll-only)")
                ui.note(result.warnings[-1])
            write_take(staging / p.player / p.filename, word)
            check.add(p.player, p.tokens, word)
            result.kept[p.player] = result.kept.get(p.player, 0) + 1
            return
        ui.result(p, why, heard)
        result.retakes.append((p, why))
    result.warnings.append(f"{p.player}: {p.text} (take {p.take}) left out after {max_tries} tries (last: {why})")
    ui.note(result.warnings[-1])


def _commit(staging: Path, folder: Path) -> Path | None:
    """Move the staged takes to ``folder``; an earlier ``folder`` becomes ``folder.previous``
    (replacing an older one). Returns where the earlier takes went, or None."""
    if not staging.is_dir():  # (no take kept at all)
        staging.mkdir(parents=True)
    previous = None
    if folder.exists():
        previous = folder.with_name(folder.name + ".previous")
        if previous.exists():
            shutil.rmtree(previous)
        folder.rename(previous)
    staging.rename(folder)
    return previous


def open_source(recording: str | Path | None = None, device=None, channels: int | None = None,
                rate: int | None = None) -> TakeSource:
    """Where the takes come from: ``recording`` (a WAV of the prompted takes, no sound card),
    else the audio input ``device`` (None: the default input) with at least ``channels``
    channels; a missing or unopenable device is one :class:`session.errors.DeviceError`."""
    from audio.takes import ArraySource, DeviceSource

    if recording is not None:
        return ArraySource.from_file(recording)
    return DeviceSource(device, channels, rate)


def enroll_table(game: str, seats: Sequence[tuple[str, int | None]], folder: str | Path, source: TakeSource,
                 ui: EnrollUI, *, lang: str = "ja", takes: int = DEFAULT_TAKES) -> EnrollResult:
    """The step for a table being calibrated: every seat's takes into ``folder``."""
    return record(source, prompts(game, seats, lang, takes), folder, ui, lang=lang)


def enroll_field(folder: Path, cal_path: Path) -> str:
    """The ``enroll`` value for ``folder``: relative to the calibration file's folder when
    inside it (as :func:`session.calibration.save` writes paths), else absolute."""
    try:
        return Path(folder).resolve().relative_to(Path(cal_path).resolve().parent).as_posix()
    except ValueError:
        return str(Path(folder).resolve())


def load_for_enrollment(cal_path: str | Path):
    """The calibration to redo the voices of, validated; an ``enroll`` folder that is gone is
    no obstacle (this step makes it again)."""
    import json

    import rules
    from session import calibration as schema

    cal_path = Path(cal_path)
    try:
        return schema.load(cal_path, games=rules)
    except CalibrationError as exc:
        if "enroll: folder" not in str(exc):
            raise
    obj = json.loads(cal_path.read_text(encoding="utf-8"))
    obj.pop("enroll", None)
    return schema.Calibration.from_dict(obj, base=cal_path.parent, games=rules)


def redo(cal_path: str | Path, source: TakeSource, ui: EnrollUI, *, lang: str = "ja",
         takes: int = DEFAULT_TAKES) -> EnrollResult:
    """``referee calibrate --enroll-only``: record the voices of an existing calibration's seats
    again, into the folder its ``enroll`` field names (else ``enroll/`` beside it), and set that
    field — every other byte of the file unchanged (:func:`session.calibration.with_field`)."""
    from session.calibration import with_field

    cal_path = Path(cal_path)
    cal = load_for_enrollment(cal_path)
    folder = Path(cal.enroll) if cal.enroll is not None else cal_path.parent / "enroll"
    result = enroll_table(cal.game, [(s.name, s.channel) for s in cal.seats], folder, source, ui,
                          lang=lang, takes=takes)
    text = cal_path.read_bytes().decode("utf-8")  # (bytes: a CRLF file keeps its line ends)
    staged = cal_path.with_name(cal_path.name + ".part")
    staged.write_bytes(with_field(text, "enroll", enroll_field(folder, cal_path)).encode("utf-8"))
    staged.replace(cal_path)
    return result

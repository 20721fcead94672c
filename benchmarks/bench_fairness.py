"""Fairness at a real table (issue 30, item 6): the bundled demo replayed under conditions a
real table brings, and per condition how many player-cards got an UNJUST verdict and how
many ABSTENTIONS, against the truth.

    python benchmarks/bench_fairness.py [--only NAME[,NAME]] [--keep DIR] [--json]

The truth is ``referee judge fixtures/demo/truth.jsonl`` (the verdicts the demo's true events
give). Each condition is a changed copy of the demo's audio and/or video written to a temp
folder (``--keep DIR``: to DIR, with each replay's record, report and stderr), every random
part seeded, then ``python -m referee replay VIDEO --audio WAV --calibration
fixtures/demo/calibration.json --out DIR --json [--no-enroll]`` in a subprocess (its stderr
is kept and shown only when it fails). The conditions (``--only`` takes names or numbers):

  0 baseline          the demo unchanged
  1 no-enroll         the voices not enrolled (``--no-enroll``: the speech model alone)
  2 reverb            each microphone's signal convolved with a room impulse response of its
                      own: the direct path (1) plus exponentially decaying seeded white noise
                      (RT60 0.3 s: amplitude exp(-6.91 t / 0.3 s), 0.36 s long), scaled so
                      direct / reverberant energy is 8 dB
  3 gain-0.25         every microphone ×0.25 (-12 dB)
  4 lowpass-3k        every microphone through an 8th-order Butterworth low-pass at 3 kHz
  5 white-10dB        white noise on every microphone 10 dB below that seat's speech level
  6 reverb-no-enroll  2 and 1 together
  7 48k               the recording resampled to 48 kHz (polyphase ×3); the calibration says
                      16 kHz: the referee resamples it back (if it refused with a clear error
                      the row says 'refused: <message>' instead of counts)
  8 babble-10dB       six "talkers" of the demo's own speech (seat channels taken at seeded
                      time shifts of 2-34 s, circularly) summed into a room signal that reaches
                      every microphone 0-3 ms apart, 10 dB below that seat's speech level
  9 dark              every video frame's pixel values ×0.35, re-encoded (x264 crf 18)
 10 blocked           a black rectangle over dai's seat box (calibration.json) from 16.0 to
                      19.0 s (dai raises a hand at 16.67 s and lowers it at 18.10 s), re-encoded
 11 unplugged         ben's microphone channel zeros from the middle of the recording on
 12 reverb-0.6        as 2 with RT60 0.6 s (0.72 s long), direct / reverberant 8 dB
 13 gain-3            every microphone x3 (+9.5 dB): the demo's peaks (0.60-0.63 of full scale)
                      clip, as an input turned up too far does
 14 pink-10dB         pink noise (1/f, ``noises.pink``) on every microphone 10 dB below that
                      seat's speech level, each microphone its own draw
 15 delayed-150ms     dai's microphone 150 ms late (its first 150 ms silent): the other players'
                      onsets must stay put

Counting, over player-cards (each truth verdict × each player), verdicts matched to the
truth's by card order and card id (:func:`align`):

* UNJUST, one category per player-card, the first that applies: **made wrong** (the truth
  has the player correct, the verdict wrong), **made missed** (truth correct, verdict
  missed), **wrong first** (the verdict names the player first, the truth names another or
  no one: tie, unsettled), **false award** (the verdict has the player correct where the
  truth does not);
* ABSTENTION: a player in the verdict's ``unclear`` (or ``unjudged``) dict; **first unclear**:
  a verdict with ``"first_unclear": true`` (counted per card);
* shown beside them: **unjudged**, the abstentions for a missing sense (a player in the
  verdict's ``unjudged``: not heard or not seen; the judge lists them in ``unclear`` too), and
  **first withheld** (the truth names a first, the verdict none: a tie, ``first_unknown``).

Each row also gives the seconds the condition took (making its inputs and the replay); below
the table, every unjust player-card, abstention, unseen or extra card, and the warnings the
referee printed ("referee: warning: …"); then the load average at the start and the end.

When the counts differ: a truth card with no verdict (not seen) is counted under **unseen**
(its player-cards neither unjust nor abstentions); a verdict with no truth card is
**extra** and is judged against a card where no reaction was due and no one was correct
(its wrong/missed players count as made wrong/missed, its first as wrong first, its correct
players as false awards); a run of verdicts whose card ids differ from an equally long run
of truth cards between two matches is paired in order (**misread**: the verdict judged a
card the truth calls otherwise) and counted against that truth card.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
DEMO = ROOT / "fixtures" / "demo"
CAL = DEMO / "calibration.json"

#: the reverberant room: RT60 (s) and direct-to-reverberant ratio (dB)
RT60_S, DRR_DB = 0.3, 8.0
#: the camera blocked: whose seat, from when, how long (s)
BLOCKED_SEAT, BLOCKED_FROM_S, BLOCKED_FOR_S = "dai", 16.0, 3.0
#: the microphone unplugged halfway
UNPLUGGED_SEAT = "ben"
#: the late microphone: whose, by how long (s)
DELAYED_SEAT, DELAY_S = "dai", 0.15
#: the dark video: every pixel value times this
DARK = 0.35


# ------------------------------------------------------------------------------ counting
def align(got: list[dict], truth: list[dict]) -> tuple[list[tuple[dict | None, dict | None]], int]:
    """Pairs (truth verdict or None, verdict or None) in card order, matched by card id
    (difflib's longest matching runs of ids); between two matches an equally long run of
    differing ids is paired in order (misread cards, their number returned too), anything
    else is left unpaired (a truth card not seen, or an extra verdict)."""
    a, b = [v.get("card") for v in truth], [v.get("card") for v in got]
    pairs: list[tuple[dict | None, dict | None]] = []
    misread = 0
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal" or (op == "replace" and i2 - i1 == j2 - j1):
            pairs += [(truth[i], got[j]) for i, j in zip(range(i1, i2), range(j1, j2))]
            misread += (i2 - i1) if op == "replace" else 0
        else:
            pairs += [(truth[i], None) for i in range(i1, i2)] + [(None, got[j]) for j in range(j1, j2)]
    return pairs, misread


#: the unjust categories, in the order one is picked for a player-card
CATEGORIES = ("made_wrong", "made_missed", "wrong_first", "false_award")
#: a truth for a verdict on a card the truth does not have: no reaction due, no one correct
NO_CARD = {"type": "verdict", "first": None, "correct": [], "wrong": [], "missed": []}


@dataclass
class Count:
    player_cards: int = 0
    made_wrong: int = 0
    made_missed: int = 0
    wrong_first: int = 0
    false_award: int = 0
    abstain: int = 0
    first_unclear: int = 0
    unjudged: int = 0
    first_withheld: int = 0
    unseen: int = 0
    extra: int = 0
    misread: int = 0
    #: one line per unjust player-card, abstention, unseen or extra card
    details: list[str] = field(default_factory=list)

    @property
    def unjust(self) -> int:
        return sum(getattr(self, c) for c in CATEGORIES)

    def as_dict(self) -> dict:
        d = {k: v for k, v in self.__dict__.items()}
        d["unjust"] = self.unjust
        d["abstain_pct"] = round(100 * self.abstain / self.player_cards, 1) if self.player_cards else 0.0
        return d


def _typed(line: dict):
    """An IKATAKO versus verdict line as its typed verdict (referee.judging.verdicts)."""
    from referee.judging.verdicts import verdict_of

    return verdict_of("ikatako", line)


def unjust_kind(p: str, v, t, no_card: bool = False) -> str | None:
    """The unjust category of player ``p`` on verdict ``v`` against truth ``t`` (typed
    verdicts; ``no_card``: the truth has no such card; None: just)."""
    t_correct = p in t.correct
    if t_correct and p in v.wrong:
        return "made_wrong"
    if t_correct and p in v.missed:
        return "made_missed"
    if v.first == p and t.first != p:
        return "wrong_first"
    if p in v.correct and not t_correct:
        return "false_award"
    if no_card and (p in v.wrong or p in v.missed):
        return "made_wrong" if p in v.wrong else "made_missed"  # a penalty on no card
    return None


def count(got: list[dict], truth: list[dict], players: list[str]) -> Count:
    """UNJUST and ABSTENTION counts of the verdicts ``got`` against the ``truth`` verdicts
    (only ``type: verdict`` lines are read from either), see the module docstring."""
    got = [v for v in got if v.get("type", "verdict") == "verdict"]
    truth = [v for v in truth if v.get("type", "verdict") == "verdict"]
    c = Count(player_cards=len(truth) * len(players))
    pairs, c.misread = align(got, truth)
    for t_line, v_line in pairs:
        where = f"{(v_line or t_line).get('t')} s card {(v_line or t_line).get('card')}"
        if v_line is None:
            c.unseen += 1
            c.details.append(f"{where}: no verdict (card not seen)")
            continue
        if t_line is None:
            c.extra += 1
            c.details.append(f"{where}: a verdict on a card the truth does not have")
        elif t_line.get("card") != v_line.get("card"):
            where += f" (truth: {t_line.get('card')})"
        v, t = _typed(v_line), _typed(t_line or NO_CARD)
        _count_card(c, where, v, t, players, no_card=t_line is None)
    return c


def _count_card(c: Count, where: str, v, t, players: list[str], no_card: bool) -> None:
    """One verdict ``v`` against its truth ``t`` (typed), per player, into ``c``."""
    if v.first_unclear:
        c.first_unclear += 1
        c.details.append(f"{where}: first unclear")
    if t.first and not v.first:
        c.first_withheld += 1
    unclear = {**v.unjudged, **v.unclear}  # (the judge lists both in unclear)
    for p in players:
        if p in unclear:
            c.abstain += 1
            c.details.append(f"{where}: {p} unclear ({unclear[p]})")
        if p in v.unjudged:
            c.unjudged += 1
        kind = unjust_kind(p, v, t, no_card)
        if kind:
            setattr(c, kind, getattr(c, kind) + 1)
            c.details.append(f"{where}: {p} {kind.replace('_', ' ')}: truth {_said(p, t, no_card)}, verdict {_said(p, v)}")


def _said(p: str, v, no_card: bool = False) -> str:
    for k in ("wrong", "missed", "correct"):
        if p in getattr(v, k):
            return k + (" (first)" if v.first == p else "")
    if p in v.unjudged:
        return "unjudged"
    if p in v.unclear:
        return "unclear"
    return "nothing due" if no_card else "not listed"


# ------------------------------------------------------------------------------ conditions
class Refused(Exception):
    """The referee refused a condition's input with a clear error (the message)."""


@dataclass
class Inputs:
    video: Path
    audio: Path
    args: list[str] = field(default_factory=list)


def _audio():
    from audio.capture import read_all

    x, rate = read_all(DEMO / "seats.wav")
    return x.astype("float64"), rate


def _write_wav(path: Path, y, rate: int) -> Path:
    import numpy as np
    from scipy.io import wavfile

    wavfile.write(path, rate, (np.clip(y, -1, 1) * 32767).round().astype(np.int16))
    return path


def _levels(x):
    """Each channel's speech level (``bench_demo_audio.speech_level``: RMS of the loud frames)."""
    import numpy as np

    from benchmarks.bench_demo_audio import speech_level

    return np.array([speech_level(x[:, k]) for k in range(x.shape[1])])


def reverberant(x, rate: int, rt60: float = RT60_S, drr_db: float = DRR_DB, seed: int = 30):
    """Each channel convolved with its own room impulse response: 1 at 0 (the direct path),
    then seeded white noise decaying by 60 dB over ``rt60`` (to 1.2 x rt60), its energy
    ``drr_db`` below the direct path's."""
    import numpy as np
    from scipy.signal import fftconvolve

    n = int(round(1.2 * rt60 * rate))
    t = np.arange(n) / rate
    y = np.empty_like(x)
    for k in range(x.shape[1]):
        rng = np.random.default_rng(seed + k)
        tail = rng.standard_normal(n) * np.exp(-np.log(1000.0) * t / rt60)
        tail[0] = 0.0
        tail *= np.sqrt(10 ** (-drr_db / 10) / np.sum(tail ** 2))
        h = tail
        h[0] = 1.0
        y[:, k] = fftconvolve(x[:, k], h)[: len(x)]
    return y


def babble(x, rate: int, snr_db: float = 10.0, talkers: int = 6, seed: int = 31):
    """The demo's own speech as a room's babble: ``talkers`` seat channels, each circularly
    shifted by a seeded 2-34 s and brought to one speech level, summed; every microphone gets
    it 0-3 ms late, ``snr_db`` below that seat's speech level."""
    import numpy as np

    from benchmarks.bench_demo_audio import speech_level

    rng = np.random.default_rng(seed)
    level = _levels(x)
    room = np.zeros(len(x))
    for _ in range(talkers):
        ch = int(rng.integers(x.shape[1]))
        room += np.roll(x[:, ch], int(rng.integers(2 * rate, 34 * rate))) / level[ch]
    room = np.concatenate([np.zeros(48), room])
    out = x.copy()
    for k in range(x.shape[1]):
        d = int(rng.integers(0, 48))
        out[:, k] += room[48 - d: 48 - d + len(x)] * level[k] * 10 ** (-snr_db / 20) / speech_level(room)
    return out


def _seat(name: str) -> dict:
    cal = json.loads(CAL.read_text(encoding="utf-8"))
    return next(s for s in cal["seats"] if s["name"] == name)


def _video(path: Path, change) -> Path:
    """The demo's video with ``change(t, image) -> image`` applied to each frame, re-encoded as
    the repository re-encodes (``vision.degrade.reencode``: x264, crf 18, veryfast)."""
    from vision.degrade import reencode
    from vision.video import read_frames

    reencode((change(f.t, f.image) for f in read_frames(DEMO / "session.mp4")), path, crf=18, preset="veryfast")
    return path


def make(name: str, folder: Path) -> Inputs:
    """Write condition ``name``'s inputs into ``folder``."""
    import numpy as np

    video, wav = DEMO / "session.mp4", DEMO / "seats.wav"
    if name == "baseline":
        return Inputs(video, wav)
    if name == "no-enroll":
        return Inputs(video, wav, ["--no-enroll"])
    if name == "dark":
        lut = np.clip(np.arange(256) * DARK + 0.5, 0, 255).astype(np.uint8)
        return Inputs(_video(folder / "dark.mp4", lambda t, im: lut[im]), wav)
    if name == "blocked":
        x0, y0, x1, y1 = _seat(BLOCKED_SEAT)["box"]

        def block(t, im):
            if BLOCKED_FROM_S <= t < BLOCKED_FROM_S + BLOCKED_FOR_S:
                im = im.copy()
                im[y0:y1, x0:x1] = 0
            return im

        return Inputs(_video(folder / "blocked.mp4", block), wav)
    x, rate = _audio()
    out = folder / f"{name}.wav"
    if name in ("reverb", "reverb-no-enroll"):
        return Inputs(video, _write_wav(out, reverberant(x, rate), rate), ["--no-enroll"] if "no-enroll" in name else [])
    if name == "gain-0.25":
        return Inputs(video, _write_wav(out, x * 0.25, rate))
    if name == "lowpass-3k":
        from scipy.signal import butter, sosfilt

        sos = butter(8, 3000, fs=rate, output="sos")
        return Inputs(video, _write_wav(out, sosfilt(sos, x, axis=0), rate))
    if name == "white-10dB":
        rng = np.random.default_rng(32)
        return Inputs(video, _write_wav(out, x + rng.standard_normal(x.shape) * _levels(x) * 10 ** (-10 / 20), rate))
    if name == "48k":
        from scipy.signal import resample_poly

        return Inputs(video, _write_wav(out, resample_poly(x, 3, 1, axis=0), rate * 3))
    if name == "babble-10dB":
        return Inputs(video, _write_wav(out, babble(x, rate), rate))
    if name == "unplugged":
        y = x.copy()
        y[len(y) // 2:, _seat(UNPLUGGED_SEAT)["channel"]] = 0.0
        return Inputs(video, _write_wav(out, y, rate))
    if name == "reverb-0.6":
        return Inputs(video, _write_wav(out, reverberant(x, rate, rt60=0.6), rate))
    if name == "gain-3":
        return Inputs(video, _write_wav(out, x * 3.0, rate))
    if name == "pink-10dB":
        from benchmarks.noises import pink

        rng = np.random.default_rng(33)
        noise = np.stack([pink(len(x), rng, rate) for _ in range(x.shape[1])], axis=1)
        return Inputs(video, _write_wav(out, x + noise * _levels(x) * 10 ** (-10 / 20), rate))
    if name == "delayed-150ms":
        y = x.copy()
        k, d = _seat(DELAYED_SEAT)["channel"], int(round(DELAY_S * rate))
        y[:, k] = np.concatenate([np.zeros(d), x[:-d, k]])
        return Inputs(video, _write_wav(out, y, rate))
    raise ValueError(f"no condition {name!r}")


CONDITIONS = ("baseline", "no-enroll", "reverb", "gain-0.25", "lowpass-3k", "white-10dB", "reverb-no-enroll", "48k",
              "babble-10dB", "dark", "blocked", "unplugged", "reverb-0.6", "gain-3", "pink-10dB", "delayed-150ms")


# ------------------------------------------------------------------------------ running
def truth_verdicts() -> tuple[list[dict], list[str]]:
    """The verdicts ``referee judge fixtures/demo/truth.jsonl`` gives, and the players."""
    from referee.judge import judge
    from session.record import read_record

    rec = read_record(DEMO / "truth.jsonl")
    lines = [v if isinstance(v, dict) else v.to_dict() for v in judge(rec, {}).lines]
    return [v for v in lines if v.get("type") == "verdict"], list(rec.header.players)


def replay(inputs: Inputs, out: Path) -> tuple[list[dict], list[str]]:
    """``python -m referee replay`` of ``inputs`` into ``out``: its verdicts and the warnings
    it printed ("referee: warning: …"). Its stdout (the verdicts) goes to ``out/verdicts.jsonl``,
    its stderr to ``out/stderr.txt``; a clear referee error ("referee: error: …", exit status 2)
    is :class:`Refused`, anything else a RuntimeError carrying the stderr's last line and end."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "referee", "replay", str(inputs.video), "--audio", str(inputs.audio),
           "--calibration", str(CAL), "--out", str(out), "--json", *inputs.args]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(x for x in (str(ROOT), os.environ.get("PYTHONPATH")) if x))
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    (out / "stderr.txt").write_text(p.stderr, encoding="utf-8")
    warned = [ln.removeprefix("referee: warning:").strip() for ln in p.stderr.splitlines()
              if ln.startswith("referee: warning:")]
    if p.returncode:
        errors = [ln for ln in p.stderr.splitlines() if ln.startswith("referee: error:")]
        if p.returncode == 2 and errors:
            raise Refused(errors[-1].removeprefix("referee: error:").strip())
        last = next((ln.strip() for ln in reversed(p.stderr.splitlines()) if ln.strip()), "")
        raise RuntimeError(f"exit status {p.returncode}: {last}\n{p.stderr[-3000:]}")
    (out / "verdicts.jsonl").write_text(p.stdout, encoding="utf-8")
    return [json.loads(ln) for ln in p.stdout.splitlines() if ln.startswith("{")], warned


def pick(only: str | None) -> list[str]:
    if not only:
        return list(CONDITIONS)
    out = []
    for w in (x.strip() for x in only.split(",") if x.strip()):
        name = CONDITIONS[int(w)] if w.isdigit() and int(w) < len(CONDITIONS) else w
        if name not in CONDITIONS:
            raise SystemExit(f"bench_fairness: no condition {w!r} (one of: "
                             + ", ".join(f"{i} {n}" for i, n in enumerate(CONDITIONS)) + ")")
        out.append(name)
    return out


def _load() -> list[float]:
    return [round(v, 2) for v in os.getloadavg()]


HEAD = (f"{'condition':<20} {'p-cards':>7}  {'unjust (wrong/missed/first/award)':<34} {'abstain':>11} "
        f"{'1st?':>4} {'unjudged':>8} {'withheld':>8}  {'unseen/extra/misread':<20} {'seconds':>7}")


def row_text(r: dict) -> str:
    name = f"{r['n']} {r['condition']}".strip()
    if "refused" in r or "failed" in r:
        what = f"refused: {r['refused']}" if "refused" in r else f"FAILED: {r['failed']}"
        return f"{name:<20} {what}  ({r['seconds']:.0f} s)"
    c = r["count"]
    unjust = f"{c['unjust']} ({c['made_wrong']}/{c['made_missed']}/{c['wrong_first']}/{c['false_award']})"
    abstain = f"{c['abstain']} ({c['abstain_pct']:.1f}%)"
    return (f"{name:<20} {c['player_cards']:>7}  {unjust:<34} {abstain:>11} {c['first_unclear']:>4} "
            f"{c['unjudged']:>8} {c['first_withheld']:>8}  {c['unseen']}/{c['extra']}/{c['misread']:<16} "
            f"{r['seconds']:>7.1f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--only", default=None, metavar="NAME[,NAME]", help="run these conditions (names or numbers)")
    ap.add_argument("--keep", type=Path, default=None, metavar="DIR", help="keep the inputs and outputs in DIR")
    ap.add_argument("--json", action="store_true", help="also print the rows as JSON")
    a = ap.parse_args(argv)
    names = pick(a.only)
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_demo_audio's helpers
    load0 = _load()
    print(f"fairness on the demo: {len(names)} condition(s); load average at start "
          f"{' '.join(map(str, load0))} ({os.cpu_count()} cores)", flush=True)
    truth, players = truth_verdicts()
    print(f"truth: {len(truth)} verdicts x {len(players)} players = {len(truth) * len(players)} player-cards "
          f"(referee judge {DEMO.relative_to(ROOT)}/truth.jsonl)", flush=True)
    tmp = None
    if a.keep:
        base = a.keep
        base.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.mkdtemp(prefix="bench-fairness-")
        base = Path(tmp)
    rows = []
    try:
        print(HEAD, flush=True)
        for name in names:
            n = CONDITIONS.index(name)
            folder = base / f"{n:02d}-{name}"
            folder.mkdir(parents=True, exist_ok=True)
            t0 = time.monotonic()
            row: dict = {"n": n, "condition": name}
            try:
                inputs = make(name, folder)
                row["made_s"] = round(time.monotonic() - t0, 1)
                got, row["warnings"] = replay(inputs, folder / "out")
                c = count(got, truth, players)
                row["verdicts"] = sum(1 for v in got if v.get("type") == "verdict")
                row["count"] = c.as_dict()
            except Refused as exc:
                row["refused"] = str(exc)
            except RuntimeError as exc:
                row["failed"] = str(exc).splitlines()[0]
                print(f"{name}: the replay failed, {exc}", file=sys.stderr, flush=True)
            row["seconds"] = round(time.monotonic() - t0, 1)
            rows.append(row)
            print(row_text(row), flush=True)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    counted = [r for r in rows if "count" in r]
    tot = {k: sum(r["count"][k] for r in counted) for k in
           ("player_cards", "unjust", *CATEGORIES, "abstain", "first_unclear", "unjudged", "first_withheld", "unseen",
            "extra", "misread")}
    tot["abstain_pct"] = round(100 * tot["abstain"] / tot["player_cards"], 1) if tot["player_cards"] else 0.0
    print(row_text({"n": "", "condition": f"total ({len(counted)})", "count": tot,
                    "seconds": sum(r["seconds"] for r in rows)}))
    load1 = _load()
    print(f"load average at start {' '.join(map(str, load0))}, at end {' '.join(map(str, load1))}")
    for r in counted:
        for d in r["count"]["details"]:
            print(f"  {r['condition']}: {d}")
        for w in r.get("warnings") or []:
            print(f"  {r['condition']}: the referee warned: {w[:300]}")
    if a.keep:
        print(f"inputs and outputs kept in {base}")
    if a.json:
        print(json.dumps({"rows": rows, "total": tot, "load_start": load0, "load_end": load1}))
    return 1 if any("failed" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

"""`referee listen --demix-from`: cross-talk cancelled live, from a recording of the table.

The demo recording (fixtures/demo: four seats, neighbours leaking at -10 dB, everybody
shouting within 0.4 s) is both the recording the leakage is measured on and the input.
"""

import json
from pathlib import Path

import numpy as np

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
SEATS = "aki,ben,chie,dai"


def _onset_hits(stdout: str) -> int:
    """Shouts heard on the right seat within 30 ms of the truth's onset."""
    truth = [json.loads(x) for x in (DEMO / "truth.jsonl").read_text(encoding="utf-8").splitlines()]
    truth = [e for e in truth if e["type"] == "shout"]
    heard = [json.loads(x) for x in stdout.splitlines() if x.strip()]
    return sum(any(h["player"] == t["player"] and abs(h["t"] - t["t"]) <= 0.03 for h in heard) for t in truth)


def test_cancelling_live_puts_more_onsets_on_time(run_cli):
    # (the words from the seats' enrolled voices: the onsets are the detector's either way, and
    # Whisper on every utterance made this test 86 s of a 2-GHz AVX2 core, against 29 s)
    base = ("listen", "--wav", DEMO / "seats.wav", "--seats", SEATS, "--game", "ikatako", "--json",
            "--enroll", DEMO / "enroll")
    plain = run_cli(*base)
    cancelled = run_cli(*base, "--demix-from", DEMO / "seats.wav")
    assert plain.exit_code == 0 and cancelled.exit_code == 0, cancelled.output
    assert "cancelling cross-talk" in cancelled.stderr
    assert _onset_hits(cancelled.stdout) >= 30  # of 35
    assert _onset_hits(cancelled.stdout) > _onset_hits(plain.stdout)


def test_a_recording_that_does_not_fit_is_one_clear_error(run_cli, tmp_path):
    from audio.synth import write_wav

    mono = write_wav(tmp_path / "mono.wav", np.zeros((16000, 1), np.float32))
    res = run_cli("listen", "--wav", DEMO / "seats.wav", "--seats", SEATS, "--game", "ikatako",
                  "--demix-from", mono)
    assert res.exit_code == 2
    assert "--demix-from" in res.output and "same interface" in res.output and "Traceback" not in res.output
    quiet = write_wav(tmp_path / "quiet.wav", np.zeros((16000, 4), np.float32))
    res = run_cli("listen", "--wav", DEMO / "seats.wav", "--seats", SEATS, "--game", "ikatako",
                  "--demix-from", quiet)
    assert res.exit_code == 2 and "speaks alone" in res.output


def test_a_48_khz_recording_is_heard_as_the_same_table_at_16_khz(run_cli, tmp_path):
    """``referee listen`` hears at the speech models' rate: a 48 kHz copy of the demo's first
    12 s (an interface recording at its own rate) gives the shouts the 16 kHz recording gives,
    cancelled with the 16 kHz calibration recording (heard at its own rate before: another
    onset detector's frames, and the calibration recording refused)."""
    from scipy.signal import resample_poly

    from audio.capture import read_all
    from audio.synth import write_wav

    x, rate = read_all(DEMO / "seats.wav")
    part = x[: 12 * rate]
    low = write_wav(tmp_path / "low.wav", part, rate)
    high = write_wav(tmp_path / "high.wav", resample_poly(part, 3, 1, axis=0).astype(np.float32), 3 * rate)
    args = ("--seats", SEATS, "--game", "ikatako", "--json", "--enroll", DEMO / "enroll", "--demix-from",
            DEMO / "seats.wav")
    a, b = run_cli("listen", "--wav", low, *args), run_cli("listen", "--wav", high, *args)
    assert a.exit_code == 0 and b.exit_code == 0, b.output

    def shouts(out):
        evs = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        return [(e["player"], tuple(e["words"]), e["t"]) for e in evs if e["type"] == "shout"]

    got, want = shouts(b.stdout), shouts(a.stdout)
    assert len(want) >= 8 and [s[:2] for s in got] == [s[:2] for s in want]
    assert max(abs(g[2] - w[2]) for g, w in zip(got, want)) <= 0.005

"""The mouth, read (issue 33 item 4): an opening measured in a face size that speech does not
change, hysteresis between ``open`` and ``closed``, a face too small or missing is ``unseen``
(never "closed"); on real talking faces (GRID corpus, read in place when present) and on the
real photos of ../shared/data/poses."""

import csv
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from session.events import Event, MouthEvent
from session.errors import EventError
from vision.mouth import MouthParams, MouthReading, MouthTracker, opening, square_around

ROOT = Path(__file__).resolve().parents[2]
POSES = ROOT.parent / "shared" / "data" / "poses"
#: GRID corpus (CC BY 4.0) as a public lip-reading repository holds it (speaker s1's videos and
#: word alignments), read in place from its mirror: ``MOUTH_GRID_GIT`` or the default below
GRID_GIT = Path(os.environ.get("MOUTH_GRID_GIT", ROOT.parent / ".mirror" / "TVR28+LipNet" / "repo"))


def _face(gap: float, eyes: float = 40.0) -> np.ndarray:
    pts = np.zeros((468, 2))
    pts[33], pts[263] = (100.0, 100.0), (100.0 + eyes, 100.0)
    for up, low in ((13, 14), (82, 87), (312, 317)):
        pts[up], pts[low] = (120.0, 150.0), (120.0, 150.0 + gap)
    return pts


def test_the_opening_is_the_inner_lips_gap_in_eye_corner_distances():
    value, eyes = opening(_face(4.0, 40.0))
    assert value == pytest.approx(0.1) and eyes == pytest.approx(40.0)
    # the same face twice as near: the same opening
    assert opening(_face(8.0, 80.0))[0] == pytest.approx(0.1)


def _run(tracker, values, dt=0.04):
    out = []
    for i, v in enumerate(values):
        out += tracker.update(i * dt, MouthReading(v, 40.0) if v is not None else MouthReading(None))
    return [(e.state, e.t) for e in out]


def test_hysteresis_opens_at_open_at_closes_at_closed_at_timed_at_the_crossing():
    p = MouthParams(open_at=0.04, closed_at=0.02)
    got = _run(MouthTracker("aki", p), [0.0, 0.01, 0.03, 0.05, 0.035, 0.03, 0.025, 0.01])
    # 0.03 -> 0.05 crosses 0.04 halfway between 0.08 s and 0.12 s; 0.025 -> 0.01 crosses 0.02 a third in
    assert got == [("closed", 0.0), ("open", 0.1), ("closed", pytest.approx(0.24 + 0.04 / 3, abs=1e-6))]


def test_jitter_between_the_two_levels_does_not_flicker():
    p = MouthParams(open_at=0.04, closed_at=0.02)
    assert _run(MouthTracker("aki", p), [0.0, 0.039, 0.021, 0.039, 0.021]) == [("closed", 0.0)]
    assert _run(MouthTracker("aki", p), [0.0, 0.05, 0.021, 0.039, 0.021]) == [("closed", 0.0), ("open", pytest.approx(0.032))]


def test_the_opening_is_measured_above_the_mouths_own_rest():
    """Lips resting parted (0.12, as 2 of 9 GRID speakers) are closed; they open when they
    part further. The rest is the smallest opening of the last ``rest_s``: a mouth held open
    longer than that becomes its own rest and closes, to open again with the next word."""
    p = MouthParams(open_at=0.02, closed_at=0.01, rest_s=0.2)
    got = _run(MouthTracker("aki", p), [0.12, 0.12, 0.125, 0.15, 0.15, 0.15, 0.15, 0.15, 0.15, 0.12, 0.12, 0.15])
    assert [s for s, _ in got] == ["closed", "open", "closed", "open"]
    assert got[1][1] == pytest.approx(0.08 + 0.04 * (0.02 - 0.005) / (0.03 - 0.005))
    assert 0.24 <= got[2][1] <= 0.32  # some 0.2 s after the opening the rest is 0.15: closed


def test_a_mouth_not_read_is_unseen_at_once_never_closed():
    got = _run(MouthTracker("aki"), [0.01, None, None, 0.01, 0.3])
    assert [s for s, _ in got] == ["closed", "unseen", "closed", "open"]
    assert got[1][1] == pytest.approx(0.04) and got[2][1] == pytest.approx(0.12)
    # seen again: its rest is not known yet, it starts closed at that frame
    assert _run(MouthTracker("aki"), [None, 0.3]) == [("unseen", 0.0), ("closed", 0.04)]


def test_the_events_are_the_records_mouth_events():
    (ev,) = MouthTracker("aki").update(1.5, MouthReading(0.01, 40.0))
    assert ev.to_dict() == {"t": 1.5, "type": "mouth", "player": "aki", "state": "closed"}
    assert Event.from_dict(ev.to_dict()) == ev and isinstance(Event.from_dict(ev.to_dict()), MouthEvent)
    with pytest.raises(EventError, match="'state' must be one of open, closed, unseen"):
        Event.from_dict({"t": 1.0, "type": "mouth", "player": "aki", "state": "shut"})
    with pytest.raises(EventError, match="'player'"):
        Event.from_dict({"t": 1.0, "type": "mouth", "state": "open"})


@pytest.mark.parametrize("name, bad", [("open_at", 0), ("open_at", math.nan), ("closed_at", -0.1), ("rest_s", 0),
                                       ("min_eyes_px", math.inf), ("open_at", "0.1"), ("min_eyes_px", True)])
def test_params_are_validated(name, bad):
    with pytest.raises(ValueError, match=f"MouthParams.{name}"):
        MouthParams(**{name: bad})
    with pytest.raises(ValueError, match="closed_at .* must be below open_at"):
        MouthParams(open_at=0.03, closed_at=0.03)


def test_a_face_crop_is_clipped_to_the_frame():
    assert square_around(10, 10, 40, (100, 200, 3)) == (0, 0, 30, 30)
    assert square_around(-50, 10, 40, (100, 200, 3)) is None


def _labels():
    if not (POSES / "labels.csv").exists():
        pytest.skip(f"no real photos at {POSES} (../shared/data/poses): the face check needs them")
    with open(POSES / "labels.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_real_photos_a_face_read_or_the_mouth_not_seen():
    """Faces seen from the back or in profile, and small faces, are *not seen*; front faces
    large enough are read (ids: file and person of labels.csv)."""
    import cv2

    from vision.mouth import MouthReader

    rows = {(r["file"], r["person"]): r for r in _labels()}
    got = {}
    for key in [("r07_kite.jpg", "1"), ("r17_backpack.jpg", "1"), ("r09_warrior.jpg", "1"), ("r28_kids.jpg", "4"),
                ("r01_hand1.jpg", "1"), ("r13_with_computer.jpg", "1"), ("r26_two_seated.jpg", "1")]:
        r = rows[key]
        reader = MouthReader(tuple(int(r[k]) for k in ("x1", "y1", "x2", "y2")))
        try:
            got[key[0]] = reader.read(cv2.imread(str(POSES / key[0])))
        finally:
            reader.close()
    for unseen in ("r07_kite.jpg", "r17_backpack.jpg", "r09_warrior.jpg", "r28_kids.jpg"):
        assert got[unseen].opening is None, unseen
    for seen in ("r01_hand1.jpg", "r13_with_computer.jpg", "r26_two_seated.jpg"):
        assert got[seen].opening is not None and got[seen].eyes_px >= MouthParams().min_eyes_px, seen


def _grid_clip(tmp_path: Path, name: str) -> tuple[Path, list[tuple[float, float, str]]]:
    if not (GRID_GIT / "HEAD").exists():
        pytest.skip(f"no GRID corpus mirror at {GRID_GIT} (fetch github:TVR28/LipNet or set MOUTH_GRID_GIT)")
    video = tmp_path / f"{name}.mpg"
    show = ["git", "--git-dir", str(GRID_GIT), "show"]
    video.write_bytes(subprocess.run(show + [f"HEAD:data/s1/{name}.mpg"], capture_output=True, check=True).stdout)
    align = subprocess.run(show + [f"HEAD:data/alignments/s1/{name}.align"], capture_output=True, check=True, text=True)
    words = [(int(a) / 25000, int(b) / 25000, w) for a, b, w in (line.split() for line in align.stdout.splitlines())]
    return video, words


def test_a_real_talking_face_opens_before_its_first_word_and_not_in_the_silence_after(tmp_path):
    """GRID s1 "bin blue at f four please" (bbaf4p, not one of the clips the levels were chosen
    on): the mouth opens within the crediting window before the first word, and no opening
    comes in the silence after the last word."""
    import cv2

    from referee.pipeline.crediting import CreditParams
    from vision.mouth import MouthReader

    video, words = _grid_clip(tmp_path, "bbaf4p")
    spoken = [w for w in words if w[2] not in ("sil", "sp")]
    cap = cv2.VideoCapture(str(video))
    ok, frame = cap.read()
    reader, tracker, events, i = MouthReader((0, 0, frame.shape[1], frame.shape[0])), MouthTracker("s1"), [], 0
    try:
        while ok:
            events += tracker.update(i / 25.0, reader.read(frame))
            ok, frame = cap.read()
            i += 1
    finally:
        reader.close()
        cap.release()
    opens = [e.t for e in events if e.state == "open"]
    first, last = spoken[0][0], spoken[-1][1]
    p = CreditParams()
    assert any(first - p.mouth_before_s <= t <= first + p.mouth_after_s for t in opens), (first, opens)
    assert not [t for t in opens if t > last + 0.3] and "unseen" not in [e.state for e in events]


def test_the_watcher_reads_every_nth_frame_and_says_a_missing_face_is_unseen():
    from types import SimpleNamespace

    from vision.mouth import MouthWatcher

    with pytest.raises(ValueError, match="every must be a whole number"):
        MouthWatcher([], every=0)
    w = MouthWatcher([("aki", (0, 0, 64, 64)), ("ben", (64, 0, 128, 64))], every=2)
    try:
        blank = np.zeros((64, 128, 3), np.uint8)
        got = [w.update(SimpleNamespace(index=i, t=i / 30, image=blank)) for i in range(1, 5)]
    finally:
        w.close()
    assert got[0] == [] and got[2] == []  # frames 1 and 3 not read
    assert [(e.t, e.player, e.state) for e in got[1]] == [(round(2 / 30, 6), "aki", "unseen"),
                                                          (round(2 / 30, 6), "ben", "unseen")]
    assert got[3] == [] and w.readings == 4

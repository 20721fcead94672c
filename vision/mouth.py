"""Whose mouth opened: one laptop, one room microphone (issue 33 item 4).

A room microphone hears every player alike; the mouth that opened with a word says who said
it (:mod:`referee.pipeline.crediting`). This module reads one seat's mouth on each frame it is
given and turns the readings into ``mouth`` events (``open``/``closed``/``unseen``).

How (MediaPipe 0.10.21, models from its wheel only: nothing is downloaded at run time):

- The **face** is found by the full-range face detector (``face_detection``,
  ``model_selection=1``) in the seat's crop (:func:`vision.hands.seat_crop_box`), then
  followed from frame to frame by the face mesh's own landmarks; the detector runs again only
  when the mesh loses the face. On whole 1280-px table photos the mesh alone missed 2 of 3
  scenes; the detector first and the mesh on a small crop found 9/9 faces (RESEARCH.md).
- The **face mesh** (``face_mesh``, one face, no iris refinement) runs on a square crop around
  the face scaled to :data:`MESH_SIZE` pixels, each crop alone (``static_image_mode``): the same
  frame gives the same reading whatever came before it, on every computer.
- The **opening** (:func:`opening`) is the inner lips' gap (the mean of three vertical pairs
  of inner-lip points, the middle and both sides) over the distance between the outer eye
  corners: a face size that speech does not change, so the measure does not depend on how
  far the player sits from the camera.
- A face whose eye corners are less than :attr:`MouthParams.min_eyes_px` pixels apart in the
  frame is too small for the lips to be read: its mouth is **not seen** (never "closed").
- **Hysteresis** (:class:`MouthTracker`), above the mouth's own **rest** (its smallest opening
  over the last :attr:`MouthParams.rest_s`: some people's lips rest parted): a mouth is
  ``open`` once the opening is :attr:`MouthParams.open_at` above its rest and ``closed`` again
  once it falls to :attr:`MouthParams.closed_at` above it; each change is timed where the
  opening crossed that level,
  interpolated between the two frames around it. A frame without a readable mouth makes the
  state ``unseen`` at once (a seat whose mouth is not seen may be the one speaking: the
  crediting never credits a word by the mouth while another seat's mouth is unseen).

The thresholds were chosen on GRID corpus clips of one speaker and reported on others
(docs/seeing.md, "The mouth"; ``benchmarks/bench_mouth.py``).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from session.events import MouthEvent
from vision.hands import seat_crop_box
from vision.mediapipe_quiet import QUIET_FOUND_CALLS, QUIET_MAX_CALLS, mediapipe_solutions, quiet_native_stderr

#: face-mesh points of the inner lips, upper and lower, in pairs: the middle (13, 14) and one
#: to each side (82, 87 and 312, 317)
LIP_PAIRS = ((13, 14), (82, 87), (312, 317))
#: face-mesh points of the outer eye corners (the face size the opening is measured in)
EYE_CORNERS = (33, 263)
#: side (pixels) of the square crop the face mesh reads: the mesh model's own input is 192 px,
#: and a larger crop only costs the resize
MESH_SIZE = 256
#: the face crop's side, in face-detection boxes (or in the mesh's own landmark box when the
#: face is followed): the mesh expects some margin around the face
FACE_MARGIN = 1.7
#: the face detector's lowest score for a face (MediaPipe's default)
DETECT_SCORE = 0.5


@dataclass(frozen=True)
class MouthParams:
    """When a mouth is open, closed or not seen."""

    #: a mouth is ``open`` once its opening (inner-lip gap over the eye-corner distance) is
    #: this much above its rest (:attr:`rest_s`). Chosen on 101 GRID clips of speaker s1 (the
    #: half the figures in docs/seeing.md are not from): 0.02 found 93/101 first words within
    #: the crediting window, 3 openings in 79 s of silence; 0.025: 90/101 and 2; 0.03: 83/101;
    #: 0.04: 63/101 (GRID's speakers hardly open their mouths; a shout at a table opens wider).
    #: Lower catches an opening earlier (a longer lead over the voice) but opens on a smile, a
    #: breath or mesh jitter; higher misses quiet words.
    open_at: float = 0.02
    #: an open mouth is ``closed`` again once its opening falls to this above its rest: the
    #: gap between the two levels keeps mesh jitter (about 0.005) from flickering the state.
    #: Higher closes between syllables more often (more ``open`` events in one word).
    closed_at: float = 0.01
    #: a mouth's rest is its smallest opening over this many seconds before (and at) the frame:
    #: some people's lips rest parted (2 of 9 GRID speakers other than s1 rested at 0.10-0.20,
    #: above any fixed level: their mouths were never "closed", so never opened). Measured
    #: against a fixed level instead, the first words found were 88/101 on the same s1 clips.
    #: Longer remembers an earlier, more closed moment (a mouth held open long stays ``open``);
    #: shorter takes a slowly opening mouth as its rest and misses it.
    rest_s: float = 1.0
    #: a face whose outer eye corners are closer than this in the frame (pixels) is too small
    #: for its lips to be read: its mouth is ``unseen``. GRID tune clips scaled down (40 clips,
    #: the fixed levels first tried): eyes 66 px apart found 33/40 first words with a median
    #: lead of 106 ms, 23 px 36/40 and 34 ms, 16 px 34/40 but -3 ms (seen only once the voice
    #: had begun). Lower reads faces farther away but later; a table camera at 1280 px sees
    #: eyes 27-58 px apart (faces 60-130 px wide).
    min_eyes_px: float = 20.0

    def __post_init__(self):
        for name, top in (("open_at", 1.0), ("closed_at", 1.0), ("min_eyes_px", 500.0), ("rest_s", 10.0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    math.isfinite(value) and 0 < value <= top):
                raise ValueError(f"MouthParams.{name} must be a number in (0, {top:g}], got {value!r}")
        if self.closed_at >= self.open_at:
            raise ValueError(f"MouthParams.closed_at ({self.closed_at}) must be below open_at ({self.open_at})")


@dataclass(frozen=True)
class MouthReading:
    """One frame's mouth: ``opening`` None when not seen; ``eyes_px`` the eye-corner distance
    in frame pixels (0 without a face)."""

    opening: float | None
    eyes_px: float = 0.0


def opening(points: np.ndarray) -> tuple[float, float]:
    """(inner-lip gap over eye-corner distance, eye-corner distance) of face-mesh ``points``
    (N×2, any one pixel scale)."""
    eyes = float(np.hypot(*(points[EYE_CORNERS[0]] - points[EYE_CORNERS[1]])))
    gap = float(np.mean([np.hypot(*(points[a] - points[b])) for a, b in LIP_PAIRS]))
    return (gap / eyes if eyes > 1e-6 else 0.0), eyes


def square_around(cx: float, cy: float, side: float, shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
    """A square of ``side`` centred on (cx, cy), clipped to a frame of ``shape``; None when
    nothing of it is left."""
    half = side / 2
    x1, y1 = max(0, int(round(cx - half))), max(0, int(round(cy - half)))
    x2, y2 = min(shape[1], int(round(cx + half))), min(shape[0], int(round(cy + half)))
    return (x1, y1, x2, y2) if x2 - x1 >= 8 and y2 - y1 >= 8 else None


class MouthReader:
    """One seat's mouth (its box from calibration): :meth:`read` a full BGR frame."""

    def __init__(self, box: tuple[int, int, int, int], params: MouthParams | None = None):
        self.box = tuple(int(v) for v in box)
        self.params = params or MouthParams()
        solutions = mediapipe_solutions()
        with quiet_native_stderr():
            self._detector = solutions.face_detection.FaceDetection(model_selection=1,
                                                                    min_detection_confidence=DETECT_SCORE)
            self._mesh = solutions.face_mesh.FaceMesh(static_image_mode=True, max_num_faces=1,
                                                      refine_landmarks=False, min_detection_confidence=0.5)
            blank = np.zeros((64, 64, 3), np.uint8)
            self._detector.process(blank)
            self._mesh.process(blank)
        self._face: tuple[float, float, float] | None = None  # centre x, y and side of the face crop
        #: the last mesh's points in frame pixels (N×2; None when no face was read): for drawing
        #: and measuring
        self.points: np.ndarray | None = None
        #: mesh inferences, faces found, detector inferences (their first log lines are silenced)
        self._calls = self._found = self._detects = 0

    def read(self, frame_bgr: np.ndarray) -> MouthReading:
        """The mouth of the seat's person on this frame (never mirrored)."""
        self.points = None
        if self._face is not None:
            got = self._mesh_at(frame_bgr, self._face)
            if got is not None:
                return got
        self._face = self._detect(frame_bgr)
        if self._face is None:
            return MouthReading(None)
        got = self._mesh_at(frame_bgr, self._face)
        return got if got is not None else MouthReading(None)

    def _detect(self, frame_bgr: np.ndarray) -> tuple[float, float, float] | None:
        x1, y1, x2, y2 = seat_crop_box(self.box, frame_bgr.shape)
        crop = frame_bgr[y1:y2, x1:x2]
        if crop.size == 0:
            return None
        self._detects += 1
        if self._detects <= QUIET_FOUND_CALLS:  # its native warnings come with its first pictures
            with quiet_native_stderr():
                res = self._detector.process(cv2.cvtColor(crop, cv2.COLOR_BGR2RGB))
        else:
            res = self._detector.process(cv2.cvtColor(crop, cv2.COLOR_BGR2RGB))
        if not res.detections:
            return None
        h, w = crop.shape[:2]
        best = max(res.detections, key=lambda d: d.location_data.relative_bounding_box.width)
        bb = best.location_data.relative_bounding_box
        side = max(bb.width * w, bb.height * h) * FACE_MARGIN
        return x1 + (bb.xmin + bb.width / 2) * w, y1 + (bb.ymin + bb.height / 2) * h, side

    def _mesh_at(self, frame_bgr: np.ndarray, face: tuple[float, float, float]) -> MouthReading | None:
        """The mesh on the face crop; None (and the face forgotten) when it finds no face."""
        box = square_around(*face, frame_bgr.shape)
        if box is None:
            self._face = None
            return None
        x1, y1, x2, y2 = box
        crop = cv2.resize(frame_bgr[y1:y2, x1:x2], (MESH_SIZE, MESH_SIZE), interpolation=cv2.INTER_LINEAR)
        self._calls += 1
        if self._found < QUIET_FOUND_CALLS and self._calls <= QUIET_MAX_CALLS:
            with quiet_native_stderr():  # the mesh's native warnings come with its first faces
                res = self._mesh.process(cv2.cvtColor(crop, cv2.COLOR_BGR2RGB))
        else:
            res = self._mesh.process(cv2.cvtColor(crop, cv2.COLOR_BGR2RGB))
        if not res.multi_face_landmarks:
            self._face = None
            return None
        self._found += 1
        lm = res.multi_face_landmarks[0].landmark
        pts = np.array([(x1 + p.x * (x2 - x1), y1 + p.y * (y2 - y1)) for p in lm])
        self.points = pts
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        self._face = (float((lo[0] + hi[0]) / 2), float((lo[1] + hi[1]) / 2), float(max(hi - lo)) * FACE_MARGIN)
        value, eyes = opening(pts)
        if eyes < self.params.min_eyes_px:
            return MouthReading(None, eyes)
        return MouthReading(value, eyes)

    def close(self) -> None:
        self._detector.close()
        self._mesh.close()


class MouthTracker:
    """One seat's readings in, its ``mouth`` events out (the hysteresis of the module doc).
    The first reading says the state it finds; after that, only changes."""

    def __init__(self, player: str, params: MouthParams | None = None):
        self.player = player
        self.params = params or MouthParams()
        self.state: str | None = None
        self._last: tuple[float, float] | None = None  # (t, opening above rest) of the last seen frame
        self._recent: deque[tuple[float, float]] = deque()  # (t, opening) over the last rest_s

    def update(self, t: float, reading: MouthReading) -> list[MouthEvent]:
        if reading.opening is None:
            self._last = None
            self._recent.clear()  # (the face seen next may be another's, or at another angle)
            return self._to("unseen", t)
        p = self.params
        self._recent.append((t, reading.opening))
        while self._recent[0][0] < t - p.rest_s:
            self._recent.popleft()
        value = reading.opening - min(v for _, v in self._recent)
        if self.state in (None, "unseen"):
            new = "open" if value >= p.open_at else "closed"
            out = self._to(new, t)
        elif self.state == "closed" and value >= p.open_at:
            out = self._to("open", self._crossing(t, value, p.open_at))
        elif self.state == "open" and value <= p.closed_at:
            out = self._to("closed", self._crossing(t, value, p.closed_at))
        else:
            out = []
        self._last = (t, value)
        return out

    def _crossing(self, t: float, value: float, level: float) -> float:
        """When the opening crossed ``level``: interpolated between the last seen frame and
        this one (this frame's time when there is none)."""
        if self._last is None:
            return t
        t0, v0 = self._last
        if v0 == value:
            return t
        f = min(1.0, max(0.0, (level - v0) / (value - v0)))
        return t0 + f * (t - t0)

    def _to(self, state: str, t: float) -> list[MouthEvent]:
        if state == self.state:
            return []
        self.state = state
        return [MouthEvent(t=round(t, 6), player=self.player, state=state)]


#: read the mouths on every frame by default: a crossing is then interpolated between frames
#: 33 ms apart (30 fps). Each reading costs about 6 ms of CPU per seat with a face (GRID's
#: 360×288 frames, docs/seeing.md), so 4 seats at 30 fps take some 70 % of one core: the
#: live referee reads every 2nd frame
MOUTH_EVERY = 1


class MouthWatcher:
    """Every seat's mouth on the frames it is given (``every``-th frame; the others only move
    the clock): the one-laptop mode's third sense. ``seats``: (player, box) pairs, the box in
    frame pixels (anything with ``x1 y1 x2 y2`` or a 4-tuple)."""

    def __init__(self, seats, params: MouthParams | None = None, every: int = MOUTH_EVERY):
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError(f"MouthWatcher every must be a whole number of frames >= 1, got {every!r}")
        self.params = params or MouthParams()
        self.every = every
        self.readers: list[tuple[MouthReader, MouthTracker]] = []
        try:
            for player, box in seats:
                b = (box.x1, box.y1, box.x2, box.y2) if hasattr(box, "x1") else tuple(box)
                self.readers.append((MouthReader(b, self.params), MouthTracker(player, self.params)))
        except BaseException:
            self.close()
            raise
        #: seconds spent reading mouths (wall clock: MediaPipe works on threads of its own), and
        #: readings made
        self.seconds = 0.0
        self.readings = 0
        self._prev_t = -math.inf

    def update(self, frame) -> list[MouthEvent]:
        """The mouth events known after ``frame`` (``index``, ``t``, ``image``). A change is
        never timed before the previous frame given: the stage's watermark has passed it (at
        ``every`` > 1 the crossing between two read frames may lie there)."""
        import time

        out: list[MouthEvent] = []
        if frame.index % self.every == 0:
            t0 = time.perf_counter()
            for reader, tracker in self.readers:
                for ev in tracker.update(frame.t, reader.read(frame.image)):
                    out.append(ev if ev.t >= self._prev_t else MouthEvent(t=round(self._prev_t, 6), player=ev.player,
                                                                           state=ev.state))
                self.readings += 1
            self.seconds += time.perf_counter() - t0
        self._prev_t = frame.t
        return out

    def close(self) -> None:
        for reader, _ in self.readers:
            reader.close()
        self.readers = []

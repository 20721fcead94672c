"""Reading a live session's pose strides from its record (``referee replay --follow-live``)."""

from __future__ import annotations

import json

import pytest

from referee.replay import live_strides
from session.errors import RefereeError


def _record(path, source, warnings):
    lines = [{"type": "session", "t": 0.0, "game": "ikatako", "mode": "versus", "players": ["aki", "ben"],
              "source": source}]
    lines += [{"type": "warning", "t": t, "message": f"pose every {n} frames", "source": "pose", "pose_every": n,
               "lag_ms": 300, **({"after_frame_t": a} if a is not None else {})} for t, n, a in warnings]
    lines += [{"type": "warning", "t": 4.0, "message": "camera 0 lost", "source": "camera", "state": "lost"}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_the_strides_are_the_headers_and_each_pose_warnings_change_after_its_frame(tmp_path):
    rec = _record(tmp_path / "s.jsonl", {"live": True, "pose_every": 6, "card_every": 3},
                  [(9.1, 4, 9.066667), (3.5, 8, 3.433333), (5.0, 6, None)])  # (a change without its frame: old)
    s = live_strides(rec)
    assert (s.pose_every, s.card_every) == (6, 3)
    assert s.changes == ((3.433333, 8), (9.066667, 4))


def test_a_record_that_is_not_a_live_sessions_is_refused(tmp_path):
    rec = _record(tmp_path / "s.jsonl", {"video": "session.mp4", "pose_every": 8}, [])
    with pytest.raises(RefereeError, match="not the record of a live session"):
        live_strides(rec)
    with pytest.raises(RefereeError, match="no such session record"):
        live_strides(tmp_path / "missing.jsonl")

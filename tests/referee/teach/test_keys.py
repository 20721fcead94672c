"""Key presses are stamped when they arrive, not when the lesson reads them."""

import os
import pty
import time

from referee.teach.keys import FakeClock, ScriptedKeys, StreamKeys, TtyKeys


def test_tty_keys_are_stamped_on_arrival():
    master, slave = pty.openpty()
    keys = TtyKeys(slave)
    try:
        t0 = time.monotonic()
        os.write(master, b"f")
        time.sleep(0.3)  # the lesson is busy elsewhere
        got = keys.get(time.monotonic() + 1.0)
        read_at = time.monotonic()
        assert got is not None and got[0] == "f"
        assert got[1] - t0 < 0.1 and read_at - got[1] > 0.2  # the stamp is the arrival, not the read
        os.write(master, b"\r")
        assert keys.get(time.monotonic() + 1.0)[0] == "enter"
    finally:
        keys.close()
        os.close(master)
        os.close(slave)


def test_stream_keys_names_and_eof():
    r, w = os.pipe()
    keys = StreamKeys(os.fdopen(r, "r"))
    os.write(w, b"J \n")
    os.close(w)
    got = [keys.get(time.monotonic() + 1.0)[0] for _ in range(4)]
    assert got == ["j", "space", "enter", "eof"]


def test_scripted_keys_move_the_fake_clock():
    clock = FakeClock(100.0)
    keys = ScriptedKeys(lambda sit: [(0.5, "f"), (-0.2, "j")], clock)
    keys.on_ready(101.0, None)
    assert keys.get(101.5) == ("j", 100.8) and clock.now() == 100.8
    assert keys.get(101.2) is None and clock.now() == 101.2
    assert keys.get(102.0) == ("f", 101.5)

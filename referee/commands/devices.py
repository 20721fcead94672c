"""``referee devices``: the cameras and audio inputs here, and which fit a table of N seats.

Parses the options, asks :mod:`vision.devices` and :mod:`audio.devices` (the only places
that open a camera or query PortAudio) and prints what it found in a person's words, with
the ``referee calibrate`` line to run next. Nothing found is said, never a traceback.
"""

from __future__ import annotations

import json

import click


def _cameras():
    from vision.devices import list_cameras

    return list_cameras()


def _inputs():
    """The audio inputs, or ``([], why)`` when PortAudio is missing or lists none."""
    from audio.devices import list_inputs
    from session.errors import DeviceError

    try:
        return list_inputs(), None
    except DeviceError as exc:
        return [], str(exc)
    except Exception as exc:  # noqa: BLE001 - PortAudio's own errors: said, not a traceback
        return [], f"PortAudio could not list the inputs ({exc})"


def plan(cameras, inputs, seats: int) -> dict:
    """What to use: the camera, the input and the mode (``seats``: a channel per seat;
    ``room``: one laptop, one room microphone; None: something is missing)."""
    from audio.devices import best_for, fit

    camera = max(cameras, key=lambda c: (c.width * c.height, c.fps or 0), default=None)
    inp = best_for(inputs, seats)
    mode = fit(inp, seats).mode if inp is not None else None
    return {"camera": camera, "input": inp, "mode": mode}


def _lines(cameras, inputs, seats: int, audio_problem: str | None) -> list[str]:
    from audio.devices import ROOM, fit

    out = ["Cameras"]
    if cameras:
        out += [f"  {c.index:<3} {f'{c.width}x{c.height}':<10} {'?' if not c.fps else f'{c.fps:g}':>3} fps  "
                f"{c.verdict()}" for c in cameras]
    else:
        out.append("  none found: plug in a USB webcam (720p, 30 fps), or check that no other program is using it")
    out += ["", f"Audio inputs (for a table of {seats} seats)"]
    if inputs:
        width = min(40, max(len(i.name) for i in inputs))
        for i in inputs:
            name = i.name if len(i.name) <= width else i.name[:width - 1] + "…"
            out.append(f"  {i.index:<3} {name:<{width}} {i.channels:>2} ch {i.rate:>6} Hz  "
                       f"{'default' if i.default else '':<7}  {fit(i, seats).text}")
    else:
        out.append("  none found" + (f": {audio_problem}" if audio_problem else
                                     ": plug in the seats' USB audio interface (one input per seat)"))
    p = plan(cameras, inputs, seats)
    out += ["", "Next"]
    if p["camera"] is None or p["input"] is None:
        missing = " and ".join(w for w, v in (("a camera", p["camera"]), ("an audio input", p["input"])) if v is None)
        out.append(f"  the referee needs {missing}; `referee demo` runs without any")
        return out
    cmd = f"referee calibrate --game ikatako --camera {p['camera'].index} --audio-device {p['input'].index}"
    if p["mode"] == "room":
        out.append(f"  only a room microphone: one-laptop mode ({ROOM})")
        cmd += " --room"
    out.append(f"  {cmd}")
    return out


@click.command("devices")
@click.option("--seats", type=click.IntRange(1, 12), default=4, show_default=True,
              help="Players at the table: which audio inputs have a channel for each.")
@click.option("--json", "as_json", is_flag=True, help="Print what was found as JSON.")
def devices_cmd(seats, as_json) -> None:
    """List the cameras (index, resolution, fps) and the audio inputs (channels, rate), and
    say which fit a table of --seats players."""
    cameras = _cameras()
    inputs, problem = _inputs()
    if as_json:
        from audio.devices import fit

        p = plan(cameras, inputs, seats)
        click.echo(json.dumps({
            "seats": seats,
            "cameras": [dict(c.to_dict(), verdict=c.verdict()) for c in cameras],
            "inputs": [dict(i.to_dict(), fit=fit(i, seats).mode, says=fit(i, seats).text) for i in inputs],
            "audio_problem": problem,
            "use": {"camera": p["camera"].index if p["camera"] else None,
                    "audio_device": p["input"].index if p["input"] else None, "mode": p["mode"]},
        }, ensure_ascii=False))
        return
    click.echo("\n".join(_lines(cameras, inputs, seats, problem)))

"""Rule options given on the command line as NAME=VALUE (values parsed as JSON)."""

from __future__ import annotations

import json
from typing import Any, Iterable

from session.errors import OptionError


def parse_option_args(args: Iterable[str]) -> dict[str, Any]:
    """``["window=2.5", "penalty=lowest"]`` -> ``{"window": 2.5, "penalty": "lowest"}``.

    A value that is not JSON (``lowest``) is taken as a string.
    """
    out: dict[str, Any] = {}
    for arg in args:
        name, sep, raw = arg.partition("=")
        if not sep or not name.strip():
            raise OptionError(f"option {arg!r} must look like NAME=VALUE")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        except (ValueError, RecursionError):  # a number of 4300+ digits, nesting too deep
            raise OptionError(f"option {name.strip()!r}: the value is too long or nested too deeply") from None
        out[name.strip()] = value
    return out

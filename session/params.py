"""Checking a settings dataclass's plain numbers (the ``*Params`` classes' ``__post_init__``).

Each ``*Params`` class names its thresholds; this says, in one ValueError naming the class, the
field and the allowed range, when one of them is out of the range it can mean anything in. A
field set to None (a setting turned off) is not checked.
"""

import math
import numbers

#: range name -> (test, how the error message states it)
_RANGES = {
    "positive": (lambda v: v > 0, "> 0"),
    "non_negative": (lambda v: v >= 0, ">= 0"),
    "fraction": (lambda v: 0 <= v <= 1, "in [0, 1]"),
    "at_least_one": (lambda v: v >= 1, ">= 1"),
    "finite": (lambda v: True, "a finite number"),
}


def check_ranges(params, **fields: tuple[str, ...]) -> None:
    """Raise ValueError unless every named field of ``params`` is a finite number in its range:
    ``check_ranges(self, positive=("hop_s",), fraction=("share",))``; the ranges are
    ``positive``, ``non_negative``, ``fraction``, ``at_least_one`` and ``finite``."""
    owner = type(params).__name__
    for kind, names in fields.items():
        test, allowed = _RANGES[kind]
        for name in names:
            value = getattr(params, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) \
                    or not test(value):
                raise ValueError(f"{owner}.{name} must be {allowed}, got {value!r}")

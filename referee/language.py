"""One default language for ``referee live`` and ``referee teach``: the table's.

``--lang`` when given; else the table's calibration when there is one — its ``extra.lang``
(``referee calibrate --lang`` writes it), and a calibration that names none was made for Japanese (``referee calibrate --lang``'s
default, in which its voice enrollment was said), so it stays Japanese; else the locale
(``LC_ALL``, ``LC_MESSAGES``, ``LANG``, the first set: ``ja…`` is Japanese, anything else —
``C``, ``POSIX``, ``en_GB`` — English). Before, ``live`` defaulted to Japanese and ``teach``
to English, so a learner drilled in one language and played in the other.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Mapping

LANGS = ("ja", "en")
#: what a calibration without a language was made for (``referee calibrate --lang`` default)
CALIBRATION_DEFAULT = "ja"


def from_locale(env: Mapping[str, str] | None = None) -> str:
    """The locale's language: the first of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set."""
    env = os.environ if env is None else env
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = (env.get(name) or "").strip()
        if value:
            return "ja" if value.lower().startswith("ja") else "en"
    return "en"


def from_calibration(path: Path | str) -> str | None:
    """The calibration's language (``extra.lang``; :data:`CALIBRATION_DEFAULT` when it names
    none); None when the file cannot be read as JSON (the command's own checks then say why)."""
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(obj, dict):
        return None
    extra = obj.get("extra") if isinstance(obj.get("extra"), dict) else {}
    lang = extra.get("lang", obj.get("lang"))  # (a version 1 file keeps free keys at the top)
    return lang if lang in LANGS else CALIBRATION_DEFAULT


def table_language(lang: str | None, calibration: Path | str | None = None,
                   env: Mapping[str, str] | None = None) -> str:
    """The language to use: ``lang`` if given, else the calibration's, else the locale's."""
    if lang is not None:
        return lang
    if calibration is not None:
        got = from_calibration(calibration)
        if got is not None:
            return got
    return from_locale(env)

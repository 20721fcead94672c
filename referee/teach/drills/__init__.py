"""The drills of the five games; :func:`get` by the name ``referee teach NAME`` takes."""

from __future__ import annotations

import importlib

from session.errors import RefereeError

DRILLS = {
    "ikatako": ("referee.teach.drills.ikatako", "VersusDrill"),
    "ikatako-coop": ("referee.teach.drills.ikatako", "CoopDrill"),
    "mokochaka": ("referee.teach.drills.mokochaka", "MokochakaDrill"),
    "takoyaki": ("referee.teach.drills.takoyaki", "TakoyakiDrill"),
    "seasaltpaper": ("referee.teach.drills.seasaltpaper", "SeaSaltPaperDrill"),
    "toratanu": ("referee.teach.drills.toratanu", "ToratanuDrill"),
}


class UnknownDrill(RefereeError):
    pass


def get(name: str):
    """The drill called ``name`` (a fresh instance)."""
    if name not in DRILLS:
        raise UnknownDrill(f"no drill {name!r} (drills: {', '.join(DRILLS)})")
    module, cls = DRILLS[name]
    return getattr(importlib.import_module(module), cls)()

"""The checks of a layout shot's new references (:mod:`calibration.deck_shot`): each read
among every reference so far and the shot's own, and a repeat told from a look-alike."""

from __future__ import annotations

import numpy as np

from calibration import steps
from calibration.steps import Check

#: a new reference whose face matches another code's this well (NCC, the same way up) is that
#: card laid again even when the reading calls it itself: the same card rendered twice scored
#: 0.99-1.00, and a JS laid again as JH was read "JH" at lead 0.09 (its two references' printed
#: frames found on either side of the line). Different cards of the drawn demo deck reach 0.981
#: (QC/QS), so this is chosen on that deck alone and its margin is thin; a real card in two
#: photos scores lower and is caught when it is not read as itself (DUPLICATE_SCORE). Lower:
#: look-alike decks' distinct cards refused; higher: a repeat read as itself passes
REPEAT_SCORE = 0.985


def card_checks(crops: dict[str, np.ndarray], captured: dict[str, np.ndarray]) -> dict[str, list[Check]]:
    """Each new reference read among every reference (those ``captured`` before and the
    shot's own): the same picture as another code's (:func:`repeat_of` at :data:`REPEAT_SCORE`:
    a card laid twice, another deck's) = fail; else read as itself = ok; else the same picture
    at :data:`calibration.steps.DUPLICATE_SCORE` = fail; too close to another = a look-alike
    warning (as the one-card path); read as another or not at all = fail. Unlike the one-card
    path's check, a face between the two scores is a repeat only when the references cannot
    tell the two apart: a deck whose clubs and spades differ in the pips alone (the drawn
    demo deck: 0.94-0.98 against the spades of the same rank) is not refused when the
    reading tells them apart."""
    from vision.cards import References, recognise

    out: dict[str, list[Check]] = {}
    if not crops:
        return out
    refs = References.from_images({**captured, **crops})
    for code, crop in crops.items():
        step = f"card {code}"
        ms = recognise(crop, refs)
        ok = [m for m in ms if m.status == "ok"]
        unc = [m for m in ms if m.status == "uncertain"]
        same = repeat_of(code, refs)
        if same is not None and same[1] >= REPEAT_SCORE:
            out[code] = [Check(step, "fail", f"the same picture as {same[0]} (score {same[1]:.3f}): was "
                                             f"{same[0]} laid twice? lay {code} in its place")]
            continue
        if ok and ok[0].code == code:
            out[code] = [Check(step, "ok", f"re-identified (score {ok[0].score:.2f}, lead {ok[0].margin:.2f} over "
                                           f"{ok[0].runner_up or 'none'})")]
            continue
        if same is not None:
            out[code] = [Check(step, "fail", f"the same picture as {same[0]} (score {same[1]:.2f}): was "
                                             f"{same[0]} laid twice? lay {code} in its place")]
        elif unc and code in (unc[0].code, unc[0].runner_up):
            other = unc[0].runner_up if unc[0].code == code else unc[0].code
            out[code] = [Check(step, "warn", f"looks like {other} (score {unc[0].score:.2f}, lead {unc[0].margin:.2f}"
                                             f"): the referee will call such a card uncertain, never guess")]
        elif ok:
            out[code] = [Check(step, "fail", f"recognised as {ok[0].code}, not {code}: is {code} in its place?")]
        else:
            out[code] = [Check(step, "fail", "not re-identified from its own reference: lay it flat, without glare")]
    return out


def repeat_of(code: str, refs) -> tuple[str, float] | None:
    """The other code whose reference (in ``refs``, :class:`vision.cards.References`) is the
    same picture as ``code``'s: their faces' NCC the same way up at
    :data:`calibration.steps.DUPLICATE_SCORE` or more (as
    :meth:`vision.cards.References.lookalikes` compares references, at 0 degrees only: a card
    laid the same way as the first time), the best such code, or None."""
    from vision.card_references import ncc, padded

    new = [padded(r.template) for r in refs.refs if r.code == code]
    best: tuple[str, float] | None = None
    for r in refs.refs:
        if r.code == code:
            continue
        s = max(float(ncc(t, r.template)) for t in new)
        if s >= steps.DUPLICATE_SCORE and (best is None or s > best[1]):
            best = (r.code, s)
    return best

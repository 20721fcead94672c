"""The whole word's take, where the free start's best take matched only the word's end
(issue 31, item 6; docs/hearing.md, stop 51).

:mod:`audio.found_start` slides the seat's enrolled takes along an utterance and reads the word
from where the best-matching take begins; a start found inside the span's loud core is refused
(a take matched the word's end only). But a word may *end with another call*: イカタコ ends with
タコ, so a タコ take can match its second half better than any イカタコ take matches the whole (the
demo under babble 10 dB: aki's イカタコ, its best free match a タコ take 290 ms into the word) —
and the search ended there, the whole word's takes never tried.

Here the search continues, only where the best take was refused: among the matches whose
reading would hold the whole loud core (the voice's rise before the match no later than the
core's first sample, the match's end after its last — the two loud-core rules of
:func:`audio.found_start.find_from_start`), the best one is the candidate. The word is then
read as the free start reads it, and kept only if the engines decide it, with both ears, and
it is that take's call. No new number (``FoundParams.whole_word`` turns it off). Cost: where
the best take was refused, two more open-begin passes over the takes and a level walk per
distinct match start.
"""

from __future__ import annotations


def whole_word_start(takes, logmel, core: tuple[int, int], search, rise, start_of, end_of):
    """``(found, rise)`` of the best-matching take among those whose reading would hold the
    span's whole loud core ``core`` (first and last sample) — the voice's rise before the
    match's start no later than the core's first sample, the match's end after its last (the
    two loud-core rules of :func:`audio.found_start.find_from_start`) — or ``(None, None)``.
    ``search(takes, logmel, holds)``: :func:`audio.found_start.best_start`; ``rise(sample)``:
    where the voice rises before a sample, or None; ``start_of(frame)`` / ``end_of(frame)``:
    the sample where a match starting / ending on a log-mel frame starts / ends.

    Why: the loud-core rule refuses a start found inside the word, but the best take there may
    be a call the word ends with (the demo under babble 10 dB: aki's イカタコ, whose best free
    match was a タコ take 290 ms into it; docs/hearing.md, stop 51) — the whole word's take was
    never tried. Only where the best take was refused, so no word found before changes; the
    reading must still be decided by both ears and be that take's call."""
    rises: dict[int, int | None] = {}

    def rise_at(first: int) -> int | None:
        if first not in rises:
            rises[first] = rise(start_of(first))
        return rises[first]

    def holds(first: int, last: int) -> bool:
        a = rise_at(first)
        return (start_of(first) if a is None else a) <= core[0] and end_of(last) > core[1]

    found = search(takes, logmel, holds=holds)
    return (None, None) if found is None else (found, rise_at(found[1]))

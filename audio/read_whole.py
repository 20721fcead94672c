"""A word cut short, read whole: in a reverberant room the trim (:mod:`audio.trim`) cuts a seat's
word where the neighbours' echoes swamp its dominance test, and a cut marked ``cut_short`` (the
seat's channel stays about as loud after the cut) is unclear unless the enrolled voices name the
same call for the cut span and the whole one. This module gives the whole span's call a voice
of its own (issue 31, item 6).

Why (docs/hearing.md, 2026-12-07 "(stop 50): words heard whole in a reverberant room"): on the
demo at RT60 0.6 s every one of the 5 cut-short words was named right by the enrolled voices
over the detector's whole span (chie's タコ and サルベージ, aki's and chie's イカタコ, aki's 4),
while their cut spans were unsure or a shorter call (サ heard "3", イカタコ heard "イカ"). The
detector's whole span is what every table without the trim reads (one microphone, the outside
scenario of ``benchmarks/table_sim.py``): the word with its own reverberant tail.

What the trim guarded against is still there: the whole span may carry a *neighbour's* word
leaking in (on the dry demo, the detector's spans gave the enrolled voices 9 right of 35).
So the whole span's call is taken only when

- the enrolled voices decide it as the listener decides (one engine sure, no conflict;
  :func:`audio.found_inside.decided`),
- it contains the cut part: the cut span, read again, names that call or leans to it
  (:func:`contains_cut`; without this, wrong calls on real voices), and
- no neighbour speaking after the cut (:meth:`audio.listen.Listener._own_voice`, the existing
  ``own_level_db`` test; unknown counts as speaking) may have said that call: each one's own
  enrolled voices, read over the same span on its own channel, neither name it nor lean to it
  (a neighbour not enrolled, or one whose reading says nothing: it may have, so no).

When a neighbour says the same call the word stays as before (the cut span's call if it is the
same, else unclear): the seat may have said only a prefix (イカ under a neighbour's イカタコ), and
an unclear word costs nobody a penalty. No threshold is chosen here: every test is an existing
one's. The onset is never moved; the shout's end becomes the detector's, and the record says
where the trim had cut (``read_whole``). Cost: only on cut-short spans (never on the dry demo):
two more readings of the span (the cut part, and the span taken), and one per neighbour speaking
after the cut (~15-40 ms of CPU each).
"""

from __future__ import annotations

from dataclasses import replace

from audio.found_inside import decided
from audio.onset import Segment


def neighbour_may_say(seg: Segment, cut: int, call: tuple[str, ...], neighbours, speaking, knows, read) -> bool:
    """Whether a neighbour speaking in ``seg`` after sample ``cut`` may have said ``call``: its
    own enrolled voices, read on its channel over ``seg``'s span, name it or lean to it, or
    cannot tell (not enrolled, no reading). ``neighbours``: the other channels heard;
    ``speaking(channel, start, end)``: the seat's own voice there (True, False, None: unknown,
    :meth:`audio.listen.Listener._own_voice`); ``knows(channel)``: its seat is enrolled;
    ``read(segment)``: the enrolled voices' ``(verdict, features)`` of a span
    (:meth:`audio.listen.Listener.read_voices`)."""
    for j in neighbours:
        if speaking(j, cut, seg.end) is False:
            continue  # not speaking after the cut: its voice is not what goes on
        if not knows(j):
            return True
        verdict = read(replace(seg, channel=j))[0]
        if verdict is None or call in (verdict.tokens, verdict.nearest):
            return True
    return False


def contains_cut(whole, cut) -> bool:
    """Whether the whole span's call (``whole``, a verdict deciding one) contains the cut part:
    the enrolled voices' reading of the cut span (``cut``) names that call or leans to it (both
    engines, :func:`audio.voices.decide`). Why: a cut part heard as another call (サ of
    サルベージ as "3", イカ of イカタコ as "イカ") or leaning elsewhere leaves the word's
    beginning and its whole at odds, and on real voices (``benchmarks/bench_read_whole.py``)
    taking the whole span's call without this made wrong calls (7 of 192 taken, george, jackson
    and lucas; 6 of 163, nicolas, theo and yweweler) — the neighbour's word or a "zero"/"one"
    heard whole as a call."""
    return cut is not None and whole.tokens in (cut.tokens, cut.nearest)


def record(seg: Segment, cut: int) -> dict:
    """The shout's ``read_whole`` field: where the trim had cut the word that was read whole."""
    return {"cut_at": round(seg.offset + cut / seg.rate, 4)}

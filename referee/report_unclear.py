"""The report's "Unclear — for the table to settle" section: each unclear item with its evidence.

The judge leaves a player *unclear* on a card when it did not clearly perceive what decided
the verdict (a word not made out, a doubtful hand, a card not read, a seat not heard or not
seen: docs/rules.md, "The referee's own uncertainty"). People settle such an item by looking
and listening, so the section shows, per card with unclear items:

- the frame at the card's appearance (the field zone boxed), once per card;

and per unclear item (card number, player, reason):

- the audio clip of that player's seat channel (the channel the referee heard them on), from
  :data:`CLIP_BEFORE_S` before the card (or the observation, if earlier) to the end of the
  card's window or :data:`CLIP_AFTER_S` after the observation, whichever comes first — as
  recorded, mono 16-bit PCM at :data:`CLIP_RATE` — with its waveform, the shout's onset marked;
- the frame at the unclear observation (the shout's onset, the hand event; the card's
  appearance when the reason names no moment) with the player's seat boxed, and the seat
  cropped from it with the pose drawn;
- the command that settles it: ``referee judge RECORD --decide N:PLAYER=correct|wrong``.

Evidence that is absent (no video, no audio, no channel for the seat) is said in words.
The frames come from the report's one decoding pass: :func:`evidence_times` gives the times
to decode along with the cards' other evidence.
"""

from __future__ import annotations

import base64
import io
import re
import wave
from dataclasses import dataclass
from math import gcd
from typing import Any, Mapping

import cv2
import numpy as np

from referee import report_media as media

#: seconds of audio before the card (or the observation, if earlier) in an item's clip
CLIP_BEFORE_S = media.WAVE_BEFORE_S
#: seconds after the observation a clip reaches at most (a call lasts well under a second;
#: shorter clips keep the page small: ~45 kB of WAV per second at 16 kHz)
CLIP_AFTER_S = 1.5
#: sample rate of the embedded clips: enough for speech (8 kHz of bandwidth), a third of 48 kHz
CLIP_RATE = 16_000
#: a reason's moment and a recorded event farther apart than this are not the same observation
#: (reasons give offsets to the millisecond)
SNAP_S = 0.05
#: widths in pixels of the card frame, the observation frame, the seat crop and the waveform
CARD_FRAME_W, OBSERVATION_FRAME_W, CROP_W, CLIP_WAVE_W = 420, 420, 200, 420
#: height in pixels of a clip's waveform
CLIP_WAVE_H = 60
#: seconds shaded after a shout's onset when the record gives no end (as the cards' waveforms do)
SHOUT_SHADE_S = 0.3
#: the field zone's box colour (BGR, yellow as in the cards' evidence) and the seat's (magenta: the
#: report's unclear purple is too dark to see on the frames)
ZONE_BGR, SEAT_BGR = (0, 255, 255), (255, 0, 255)

CSS = """
section.unclear-card{border-left:4px solid #5a4a8a;padding:2px 0 8px 12px;margin:18px 0}
section.unclear-card h3{margin:4px 0 8px}
div.unclear-item{border-top:1px dashed #bbb;padding-top:6px;margin-top:8px}
div.unclear-item h4{margin:2px 0 6px;font-weight:normal}
figure.clip audio{display:block;width:420px;margin-bottom:4px}
p.settle{margin:6px 0 2px} p.settle code{background:#f3f0fa;padding:1px 4px}
.absent{color:#a06000;font-style:italic} p.how{max-width:420px;margin:0}
"""

#: a reason's moment relative to the card: "heard a shout at +0.520 s", "left hand up at +0.300 s"
_AT_OFFSET = re.compile(r"at \+(\d+(?:\.\d+)?) s")
#: a still-speaking reason's absolute moment: "was still speaking when the card appeared (from 29.98 s)"
_SPEAKING_FROM = re.compile(r"still speaking when the card appeared \(from (\d+(?:\.\d+)?) s\)")


@dataclass(frozen=True)
class UnclearItem:
    """One unclear item and when to look: ``number`` is the verdict number ``--decide`` names;
    ``observed`` the moment of the unclear observation (``what`` says which kind)."""

    number: int
    verdict: Mapping[str, Any]
    player: str
    reason: str
    card_t: float
    window_end: float
    observed: float
    what: str

    @property
    def clip_span(self) -> tuple[float, float]:
        start = min(self.card_t, self.observed) - CLIP_BEFORE_S
        return start, min(self.window_end, max(self.observed, self.card_t) + CLIP_AFTER_S)


def observation(reason: str, card_t: float, since: float, player: str, events: list[dict]) -> tuple[float, str]:
    """When the unclear observation happened and what it was, from the reason the judge wrote
    (its offsets count from ``since``: the card, or where a late card counts from), snapped to
    the player's recorded shout or hand event. A reason without a moment (a card not read, a
    seat not heard or not seen) points at the card."""
    own = [e for e in events if e.get("player") == player and e.get("type") in ("shout", "hand", "grab")]
    spoke = _SPEAKING_FROM.search(reason)
    at = _AT_OFFSET.search(reason)
    if spoke:
        t, kinds = float(spoke.group(1)), ("shout",)
    elif at:
        t, kinds = since + float(at.group(1)), ("shout",) if "shout" in reason[:at.end()] else ("hand", "grab")
    else:
        return card_t, "the card's appearance"
    near = [e for e in own if e["type"] in kinds and abs(e["t"] - t) <= SNAP_S]
    if near:
        t = min(near, key=lambda e: abs(e["t"] - t))["t"]
    return float(t), ("the shout's onset" if kinds == ("shout",) else "the hand event")


def unclear_items(views: list, events: list[dict], game: str | None = None) -> list[UnclearItem]:
    """Every unclear item of the report's cards (``referee.report.CardView``) of ``game``, numbered as
    the judge numbers verdicts, with the moment of its observation."""
    from referee.judging.verdicts import verdict_of
    from referee.judging.view import unclear_items as items

    by_verdict = {id(v.verdict): v for v in views}
    out = []
    for number, verdict, player, reason in items([v.verdict for v in views], game):
        view = by_verdict[id(verdict)]
        since = verdict_of(game, verdict).counted_from
        t, what = observation(reason, view.start, view.start if since is None else since, player, events)
        out.append(UnclearItem(number, verdict, player, reason, view.start, view.end, t, what))
    return out


def evidence_times(items: list[UnclearItem]) -> list[float]:
    """The frames the section needs, for the report's one decoding pass."""
    return [t for item in items for t in (item.card_t, item.observed)]


# ------------------------------------------------------------------ the clip
def seat_clip(samples: np.ndarray, rate: int, t0: float, t1: float, av_offset: float | None = None) -> np.ndarray:
    """One channel's samples over the video-clock span [t0, t1], at :data:`CLIP_RATE` (the
    audio clock is the video clock minus the calibration's ``av_offset``)."""
    from scipy import signal

    shift = av_offset or 0.0
    a, b = max(0, int(round((t0 - shift) * rate))), max(0, int(round((t1 - shift) * rate)))
    x = np.asarray(samples[a:b], dtype=np.float32)
    if rate != CLIP_RATE and len(x):
        g = gcd(CLIP_RATE, int(rate))
        x = signal.resample_poly(x, CLIP_RATE // g, int(rate) // g).astype(np.float32)
    return x


def wav_bytes(x: np.ndarray, rate: int = CLIP_RATE) -> bytes:
    """Mono 16-bit PCM WAV of float samples in -1..1 (clipped, not normalised: as recorded)."""
    pcm = (np.clip(x, -1.0, 1.0) * 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return buf.getvalue()


def _clip_html(item: UnclearItem, audio: "SeatAudio") -> str:
    """The item's audio player and waveform, or why there is none."""
    t0, t1 = item.clip_span
    channel = audio.channel_of(item.player)
    if isinstance(channel, str):
        return f'<figure class="clip"><p class="absent">No audio clip: {media.escape(channel)}.</p></figure>'
    x = seat_clip(audio.samples[:, channel], audio.rate, t0, t1, audio.av_offset)
    if not len(x):
        return (f'<figure class="clip"><p class="absent">No audio clip: the recording has no sound from '
                f"{t0:.2f} s.</p></figure>")
    data = base64.b64encode(wav_bytes(x)).decode()
    return (f'<figure class="clip"><audio controls preload="metadata" src="data:audio/wav;base64,{data}"></audio>'
            f"{media.img_tag(_clip_waveform(item, audio, channel), png=True)}<figcaption>"
            f"{_whose(item, audio, channel)}, {t0:.2f}–{t1:.2f} s as recorded: grey "
            "line = the card, red = each voice onset with the words heard.</figcaption></figure>")


def _whose(item: UnclearItem, audio: "SeatAudio", channel: int) -> str:
    if audio.room:
        return "The room microphone (everyone; each word marked with the seat it was credited to, or ?)"
    return f"{media.escape(item.player)}'s microphone (channel {channel})"


def _clip_waveform(item: UnclearItem, audio: "SeatAudio", channel: int) -> np.ndarray:
    """The clip's waveform (``media.waveform`` reads times on the audio clock), the player's
    shouts marked, an unclear one as "(word unclear)"."""
    t0, t1 = item.clip_span
    shift = audio.av_offset or 0.0
    own = [e for e in audio.events if e.get("type") == "shout" and t0 <= e["t"] <= t1
           and (audio.room or e.get("player") == item.player)]
    shouts = [(e["t"] - shift, e.get("t_end", e["t"] + SHOUT_SHADE_S) - shift,
               (" ".join(e.get("words") or []) or "(word unclear)") + (f" ({e.get('player') or '?'})" if audio.room else ""))
              for e in own]
    label = "room microphone" if audio.room else f"{item.player} (channel {channel})"
    return media.waveform(audio.samples[:, channel], audio.rate, t0 - shift, t1 - shift, item.card_t - shift, shouts,
                           label, width=CLIP_WAVE_W, height=CLIP_WAVE_H)


@dataclass(frozen=True)
class SeatAudio:
    """The session's recording as the section reads it (``samples`` None: no recording)."""

    samples: np.ndarray | None
    rate: int
    channels: Mapping[str, int | None]
    events: list[dict]
    av_offset: float | None = None
    #: one room microphone (one laptop): every item's clip is the room's sound, its channels
    #: averaged as the referee heard them, with every word marked (credited or not)
    room: bool = False

    def __post_init__(self):
        if self.room and self.samples is not None and self.samples.ndim == 2 and self.samples.shape[1] > 1:
            object.__setattr__(self, "samples", self.samples.mean(axis=1, keepdims=True))

    def channel_of(self, player: str) -> int | str:
        """The player's channel in the recording, or why there is none (a sentence)."""
        if self.samples is None:
            return "the session has no audio recording"
        if self.room:
            return 0
        ch = self.channels.get(player)
        if ch is None:
            return f"the calibration gives {player} no microphone channel"
        if ch >= self.samples.shape[1]:
            return f"{player}'s channel {ch} is not in the recording ({self.samples.shape[1]} channels)"
        return ch


# ------------------------------------------------------------------ the frames
def _resized(img: np.ndarray, width: int) -> np.ndarray:
    return cv2.resize(img, (width, int(round(width * img.shape[0] / img.shape[1]))), interpolation=cv2.INTER_AREA)


def _boxed(img: np.ndarray, box, colour) -> np.ndarray:
    shown = img.copy()
    cv2.rectangle(shown, (box[0], box[1]), (box[2] - 1, box[3] - 1), colour, 3)
    return shown


def _card_frame_html(card_t: float, frames: Mapping[float, np.ndarray], zones: list) -> str:
    img = frames.get(card_t)
    if img is None:
        return f'<figure><p class="absent">No video frame at the card ({card_t:.3f} s).</p></figure>'
    for box in zones:
        img = _boxed(img, box, ZONE_BGR)
    return (f"<figure>{media.img_tag(_resized(img, CARD_FRAME_W))}<figcaption>The card appears ({card_t:.3f} s); "
            "the field zone boxed in yellow.</figcaption></figure>")


def _observation_html(item: UnclearItem, frames: Mapping[float, np.ndarray], seat_box, result) -> str:
    """The frame at the observation (the seat boxed) and the seat crop with the pose drawn."""
    img = frames.get(item.observed)
    if img is None:
        return f'<figure><p class="absent">No video frame at {item.what} ({item.observed:.3f} s).</p></figure>'
    if seat_box is None:
        return (f"<figure>{media.img_tag(_resized(img, OBSERVATION_FRAME_W))}<figcaption>At {item.what} "
                f"({item.observed:.3f} s); the calibration has no seat box for {media.escape(item.player)}."
                "</figcaption></figure>")
    whole = _boxed(img, seat_box, SEAT_BGR)
    posed = img.copy()
    media.draw_pose(posed, media.landmarks_at(result, item.player, item.observed), seat_box, item.player, SEAT_BGR)
    when = f"{item.observed:.3f} s, {item.observed - item.card_t:+.3f} s from the card"
    return (f"<figure>{media.img_tag(_resized(whole, OBSERVATION_FRAME_W))}<figcaption>At {item.what} ({when}); "
            f"{media.escape(item.player)}'s seat boxed.</figcaption></figure>"
            f"<figure>{media.img_tag(media.crop_box(posed, seat_box, width=CROP_W))}<figcaption><b class=unclear>"
            f"{media.escape(item.player)}</b> at {item.what}, pose drawn (own left blue, right orange): "
            f"{media.escape(item.reason)}</figcaption></figure>")


# ------------------------------------------------------------------ the section
def _how_to_look(items: list[UnclearItem], room: bool = False) -> str:
    """Beside the card's frame: who is unclear on it and how to weigh each item."""
    who = ", ".join(dict.fromkeys(i.player for i in items))
    clip = "the room's one microphone: whose voice is it?" if room else "that seat's own microphone"
    return (f'<p class="how">Unclear on this card: <b class=unclear>{media.escape(who)}</b>. For each below: play '
            f"the clip ({clip}), look at the seat at the moment marked, then run one of "
            "the two lines under it.</p>")


def settle_line(item: UnclearItem, record: str) -> str:
    """How the table settles the item: the exact ``--decide`` answers (``Answer.parse``'s syntax)."""
    base = f"referee judge {record} --decide {item.number}:{item.player}="
    return (f'<p class="settle">Settle it: <code>{media.escape(base)}correct</code> or '
            f"<code>{media.escape(base)}wrong</code></p>")


def _item_html(item: UnclearItem, frames, audio: SeatAudio, seat_box, result, record: str) -> str:
    return (f'<div class="unclear-item"><h4><b class=unclear>{media.escape(item.player)}</b>: '
            f"{media.escape(item.reason)}</h4><div class=ev>{_clip_html(item, audio)}"
            f"{_observation_html(item, frames, seat_box, result)}</div>{settle_line(item, record)}</div>")


def section(items: list[UnclearItem], result, frames: Mapping[float, np.ndarray], audio: SeatAudio) -> str:
    """The section's HTML: a summary table, then per card its frame and each item's evidence."""
    if not items:
        return ""
    record = result.record.name
    seat_box = {s.name: s.box.to_list() for s in result.calibration.seats}
    zones = [z.to_list() for z in result.calibration.card_zones.values()]
    rows = "".join(f'<tr><td><a href="#unclear{i.number}">{i.number}</a></td><td>{i.card_t:.3f}</td>'
                   f'<td>{media.escape(i.verdict.get("card", "?"))}</td><td class=unclear>{media.escape(i.player)}</td>'
                   f"<td>{media.escape(i.reason)}</td></tr>" for i in items)
    parts = ['<h2 id="unclear">Unclear — for the table to settle</h2><p>The referee was not sure of these '
             "observations: no penalty, no point and no card taken on them. Listen to the clip, look at the "
             f"frames, then settle each with <code>referee judge {media.escape(record)} --decide N:PLAYER=correct"
             "</code> (or <code>=wrong</code>; N the card's number), or a <code>decision</code> line in the "
             "record.</p>"
             '<table class="v"><tr><th>#</th><th>t (s)</th><th>card</th><th>player</th><th>why unclear</th></tr>'
             f"{rows}</table>"]
    for number in dict.fromkeys(i.number for i in items):
        mine = [i for i in items if i.number == number]
        first = mine[0]
        parts.append(f'<section class="unclear-card" id="unclear{number}"><h3>Card {number}: '
                     f'{media.escape(first.verdict.get("card", "?"))} at {first.card_t:.3f} s '
                     f'(<a href="#card{number}">its verdict and evidence</a>)</h3>'
                     f"<div class=ev>{_card_frame_html(first.card_t, frames, zones)}{_how_to_look(mine, audio.room)}</div>")
        parts.extend(_item_html(i, frames, audio, seat_box.get(i.player), result, record) for i in mine)
        parts.append("</section>")
    return "".join(parts)

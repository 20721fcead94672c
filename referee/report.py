"""The dispute report (``report.html``) and the annotated video of a replay.

One self-contained HTML page: every image is embedded (base64 JPEG/PNG), no script, no
server, no network. Drawn with OpenCV/numpy only (matplotlib would add ~40 MB for a few
line plots). Per card: the expected reaction, who was first and by how much, who was wrong
and why, who missed, and the evidence:

- the frame at the card's appearance (the field zone boxed);
- each player's frame at their reaction (first hand up or first word in the card's
  window), cropped to the seat box, with shoulders, elbows and wrists drawn (the person's
  own left in blue, right in orange) and the shoulder line the wrist must pass;
- each seat's waveform around the card with the detector's onsets marked and the words.

The evidence frames come from a second decoding pass (only up to the last needed time):
the replay itself keeps no frames, only landmarks, so memory does not grow with length.

Decisions: a player's "reaction time" in the evidence is the judge's ``times`` entry when
there is one (the time it ranked them by), else their first hand-up or shout in the
window; a card's window is ``window`` seconds (3.0) or up to the next card. The annotated
video (``--video``) is drawn at half resolution (faster to encode, enough to see hands).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.report_media import (SIDE_BGR, TIMELINE_W, WAVE_BEFORE_S, crop_box, escape, img_tag, landmarks_at, draw_pose,
                                  waveform)

CSS = """
body{font-family:system-ui,sans-serif;margin:24px;max-width:1240px;color:#222}
h1{margin-bottom:4px} .sub{color:#555;margin-top:0}
table.v{border-collapse:collapse;margin:8px 0 16px} table.v td,table.v th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
table.v th{background:#f3f3f3}
.ok{color:#137a13;font-weight:600} .bad{color:#c0141b;font-weight:600} .miss{color:#a06000;font-weight:600}
.unclear{color:#5a4a8a;font-weight:600;font-style:italic}
.warn{background:#fff4d6;border:1px solid #e0b84a;padding:8px 12px;margin:12px 0}
section.card{border-top:3px solid #333;margin-top:28px;padding-top:6px}
.facts{font-size:1.05em;line-height:1.5} .ev{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}
figure{margin:0} figcaption{font-size:.85em;color:#333;max-width:330px}
img{border:1px solid #aaa} .legend span{display:inline-block;margin-right:14px}
.sw{display:inline-block;width:12px;height:12px;vertical-align:middle;margin-right:4px}
"""


# ------------------------------------------------------------------ what each card needs
@dataclass
class CardView:
    verdict: dict
    start: float
    end: float
    reactions: dict[str, float]  # player -> session time of their reaction


def card_views(result) -> list[CardView]:
    """One view per verdict that has a card and a time."""
    events = result.events
    verdicts = [v for v in result.judgement.lines if v.get("type") == "verdict" and "t" in v]
    window = float((result.header.get("options") or {}).get("window", 3.0))
    card_ts = sorted(e["t"] for e in events if e["type"] == "card")
    views = []
    for v in verdicts:
        t = float(v["t"])
        nxt = [c for c in card_ts if c > t + 0.005]  # verdict times are rounded to the ms
        end = min(t + window, nxt[0]) if nxt else t + window
        reactions = {p: round(t + float(dt), 6) for p, dt in (v.get("times") or {}).items()}
        for e in events:
            p = e.get("player")
            if p and p not in reactions and t <= e["t"] <= end and (
                    e["type"] == "shout" or (e["type"] == "hand" and e.get("state") == "up")):
                reactions[p] = e["t"]
        views.append(CardView(v, t, end, reactions))
    return views


def _frames_at(video: Path, times: list[float]) -> dict[float, np.ndarray]:
    """The decoded frame nearest each time (second pass, stops after the last time; only
    the frames picked are converted to BGR: ``vision.video.frames_at``)."""
    from vision.video import frames_at

    return frames_at(video, times, tolerance=0.5)


def _decoded(frames: dict[float, np.ndarray], video: Path, times: list[float]) -> dict[float, np.ndarray]:
    """The frames at ``times`` from the report's one pass; a time it did not foresee is
    decoded then (a second pass, only for that)."""
    missing = [t for t in times if t not in frames]
    if missing:
        frames.update(_frames_at(video, missing))
    return {t: frames[t] for t in times if t in frames}


def timeline(result, views: list[CardView], width: int = TIMELINE_W) -> np.ndarray:
    """The whole session: a row per player (hands up as bars, shouts as red ticks with
    words), cards as vertical lines labelled at the top, skipped spans hatched."""
    players = list(result.header.get("players", []))
    dur = max(result.duration, 1.0)
    left, top, row = 70, 44, 46
    height = top + row * len(players) + 30
    img = np.full((height, width, 3), 255, np.uint8)
    plot_w = width - left - 10
    tx = lambda t: int(left + t / dur * plot_w)  # noqa: E731
    for s in range(0, int(dur) + 1, 5 if dur > 20 else 1):
        cv2.line(img, (tx(s), top - 4), (tx(s), height - 26), (235, 235, 235), 1)
        cv2.putText(img, f"{s}s", (tx(s) - 8, height - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (80, 80, 80), 1, cv2.LINE_AA)
    for e in result.events:
        if e["type"] == "skipped":
            a, b = e.get("from", e["t"]), e.get("to") or dur
            for xx in range(tx(a), tx(b), 6):
                cv2.line(img, (xx, top), (xx + 10, height - 28), (180, 180, 240), 1)
    for i, p in enumerate(players):
        y = top + i * row
        cv2.putText(img, p, (6, y + row // 2 + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
        cv2.line(img, (left, y + row - 1), (width - 10, y + row - 1), (220, 220, 220), 1)
        up: dict[str, float] = {}
        for e in result.events:
            if e.get("player") != p:
                continue
            if e["type"] == "hand":
                side = e["side"]
                if e["state"] == "up":
                    up[side] = e["t"]
                elif side in up:
                    yy = y + (8 if side == "left" else 20)
                    cv2.rectangle(img, (tx(up.pop(side)), yy), (tx(e["t"]), yy + 9), SIDE_BGR[side], -1)
            elif e["type"] == "shout":
                cv2.line(img, (tx(e["t"]), y + 4), (tx(e["t"]), y + row - 6), (0, 0, 220), 2)
                cv2.putText(img, " ".join(e.get("words") or ["?"]), (tx(e["t"]) + 3, y + row - 8),
                            cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 0, 180), 1, cv2.LINE_AA)
        for side, t in up.items():
            yy = y + (8 if side == "left" else 20)
            cv2.rectangle(img, (tx(t), yy), (tx(dur), yy + 9), SIDE_BGR[side], -1)
    for k, v in enumerate(views, 1):
        x = tx(v.start)
        cv2.line(img, (x, 14), (x, height - 28), (40, 40, 40), 1)
        cv2.putText(img, f"{k}:{v.verdict.get('card', '?')}", (x + 2, 12 + 14 * (k % 2)), cv2.FONT_HERSHEY_SIMPLEX, 0.42,
                    (0, 0, 0), 1, cv2.LINE_AA)
    return img


# ------------------------------------------------------------------ the page
def _describe(game: str):
    """The game's own description of a verdict (its judging module's ``describe``)."""
    from referee import judging
    from referee.judging import view as views

    return getattr(judging.module(game), "describe", views.generic)


def _cell(cell) -> str:
    """A :mod:`referee.judging.view` cell as HTML: parts marked ok/bad/miss are coloured."""
    lines = ["".join(f'<span class="{st}">{escape(t)}</span>' if st else escape(t) for t, st in line) for line in cell or []]
    return "<br>".join(x for x in lines if x) or "-"


def _heard(view: CardView, events: list[dict]) -> str:
    out = []
    for e in events:
        if e["type"] == "shout" and view.start <= e["t"] <= view.end:
            words = " ".join(e.get("words") or []) or "no call"
            how = []
            conf = f", confidence {e['conf']:.2f}" if e.get("conf") is not None else ""
            if e.get("decided_by") == "enrollment" and isinstance(e.get("enrolled"), dict):
                # the enrolled voice was sure: the speech model was not asked
                how.append(f"matched {e.get('player') or '?'}'s enrolled calls: distance "
                           f"{e['enrolled']['distance']:.2f} (lower is closer); the speech model was not needed")
            elif e.get("decided_by") and "engine_words" in e:
                alone = " ".join(e["engine_words"]) or "no call"
                how.append(f"speech model ({e['decided_by']}): {alone}{conf}")
            elif "vosk_words" in e:
                # the enrolled voice decides when it is sure; the speech model's guess is shown beside it
                alone = " ".join(e["vosk_words"]) or "no call"
                how.append(f"compared with {e.get('player') or '?'}'s enrolled calls: distance "
                           f"{e['enrolled']['distance']:.2f}, lower is closer; the speech model alone heard "
                           f"{alone}{conf}")
            elif conf:
                how.append(f"speech model{conf}")
            # the model's raw text (Hangul for the Korean model) only on hover: it means nothing to the table
            out.append(f"{escape(e.get('player') or '?')} at {e['t']:.3f} s: <b title=\"{escape(e.get('text') or '')}\">"
                       f"{escape(words)}</b> <span style='color:#666'>({escape('; '.join(how) or 'heard')})</span>")
    return "<br>".join(out) or "nobody spoke"


def _facts(desc, view: CardView, events: list[dict] | None = None) -> str:
    from referee.judging.view import HEARD

    rows = []
    for label, cell in desc.facts:
        if cell is None and label == HEARD:
            if events is not None:
                rows.append((label, _heard(view, events)))
            continue
        rows.append((label, _cell(cell)))
    return '<table class="v facts">' + "".join(f"<tr><th>{escape(k)}</th><td>{val}</td></tr>" for k, val in rows) + "</table>"


def _summary(views: list[CardView], descs: list) -> str:
    names = [name for name, _ in descs[0].columns] if descs else []
    out = ['<table class="v"><tr><th>#</th><th>t (s)</th>' + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr>"]
    for k, (view, desc) in enumerate(zip(views, descs), 1):
        cells = "".join(f"<td>{_cell(cell)}</td>" for _, cell in desc.columns)
        out.append(f'<tr><td><a href="#card{k}">{k}</a></td><td>{view.start:.3f}</td>{cells}</tr>')
    out.append("</table>")
    return "".join(out)


def _result(judgement) -> str:
    from referee.judging.verdicts import verdict_of

    res = [x for x in judgement.lines if x.get("type") == "result"]
    if not res:
        return ""
    r = res[-1]
    scores = r.get("scores") or {}
    winners = set(r.get("winners") or [])
    sunk = r.get("sunk")  # the players sunk (versus); co-op/solo: whether the team sank (a bool)
    sunk = set(sunk) if isinstance(sunk, list) else set()
    unclear = verdict_of(getattr(judgement, "game", None), r).unclear
    count = (lambda p: f"<td>{unclear.get(p, 0)}</td>") if unclear else (lambda p: "")  # noqa: E731
    rows = "".join(f"<tr><td>{escape(p)}</td><td>{s}</td>{count(p)}<td>{'winner' if p in winners else ''}"
                   f"{' sunk' if p in sunk else ''}</td></tr>" for p, s in scores.items())
    if not rows:
        return f"<pre>{escape(json.dumps(r, ensure_ascii=False))}</pre>"
    head = "<th>unclear items</th>" if unclear else ""
    return f'<h2>Result</h2><table class="v"><tr><th>player</th><th>score</th>{head}<th></th></tr>{rows}</table>'


def _unclear(items, result, frames, samples, rate) -> str:
    """Every unclear item (card, player, reason) with its evidence, for the table to settle
    (:mod:`referee.report_unclear`): nobody was penalised or scored on them."""
    from referee import report_unclear

    seats = {s.name: s.channel for s in result.calibration.seats}
    audio = report_unclear.SeatAudio(samples, rate, seats, result.events, result.calibration.av_offset,
                                     room=bool(result.calibration.extra.get("room_microphone")))
    return report_unclear.section(items, result, frames, audio)


def build_html(result) -> str:
    from audio.capture import read_all

    from referee.report_unclear import CSS as UNCLEAR_CSS, unclear_items, evidence_times

    views = card_views(result)
    describe = _describe(result.header["game"])
    descs = [describe(v.verdict) for v in views]
    cal = result.calibration
    seat_box = {s.name: s.box.to_list() for s in cal.seats}
    seat_chan = {s.name: s.channel for s in cal.seats}
    unclear = unclear_items(views, result.events, result.header["game"])
    from referee import judging

    # a game's own evidence beside a verdict (Sea Salt & Paper: each card read in a spread),
    # its frames decoded in the same single pass as the rest
    game = judging.module(result.header["game"])
    game_evidence = getattr(game, "report_evidence", None)
    game_times = getattr(game, "report_evidence_times", lambda verdict, events: [])
    need = ([v.start for v in views] + [t for v in views for t in v.reactions.values()] + evidence_times(unclear)
            + [t for v in views for t in game_times(v.verdict, result.events)])
    frames = _frames_at(result.video, need)
    samples, rate = (None, 0)
    if result.audio is not None:
        try:
            samples, rate = read_all(result.audio)
        except Exception:  # a broken audio file was already reported by the replay
            samples = None
    shouts = [e for e in result.events if e["type"] == "shout"]
    h = result.header
    parts = [f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Dispute report: {escape(result.video.name)}</title>"
             f"<style>{CSS}{UNCLEAR_CSS}</style></head><body>",
             f"<h1>Dispute report</h1><p class=sub>{escape(h['game'].upper())} {escape(h.get('mode') or '')} · players "
             f"{escape(', '.join(h['players']))} · video <code>{escape(result.video.name)}</code> · audio "
             f"<code>{escape(result.audio.name if result.audio else 'none')}</code> · {result.duration:.1f} s · "
             f"words {'from enrolled voices + speech model' if result.enrolled else 'from the speech model alone'}</p>"]
    if result.warnings:
        parts.append('<div class="warn"><b>Warnings — what the replay could not see or hear:</b><ul>'
                     + "".join(f"<li>{escape(w)}</li>" for w in result.warnings) + "</ul></div>")
    parts.append("<h2>Verdicts</h2>" + _summary(views, descs) + _result(result.judgement)
                 + _unclear(unclear, result, frames, samples, rate))
    parts.append("<h2>Timeline</h2><p class=legend><span><i class=sw style='background:#1e82e6'></i>left hand up</span>"
                 "<span><i class=sw style='background:#ff8c14'></i>right hand up</span>"
                 "<span><i class=sw style='background:#dc0000'></i>shout, with the words heard (? = speech, no call)</span>"
                 "<span>vertical lines: cards, numbered as below</span></p>" + img_tag(timeline(result, views), png=True))
    parts.append("<h2>Cards and evidence</h2><p>Sides are the player's own: <b style='color:#1e82e6'>left</b>, "
                 "<b style='color:#ff8c14'>right</b>. Short coloured lines at the shoulders: the height the wrist must "
                 "pass for a raised hand. Waveforms: grey line = the card appears, red lines = each detected voice "
                 "onset, with the words heard.</p>")
    for k, (view, desc) in enumerate(zip(views, descs), 1):
        v = view.verdict
        if game_evidence is not None:
            desc_html = game_evidence(v, result.events, lambda ts: _decoded(frames, result.video, ts))
        else:
            desc_html = ""
        parts.append(f'<section class="card" id="card{k}"><h3>Card {k}: {escape(desc.title)} at {view.start:.3f} s'
                     + (f" (turned by {escape(v['by'])})" if v.get("by") else "") + "</h3>" + _facts(desc, view, result.events)
                     + desc_html)
        ev = ['<div class="ev">']
        img = frames.get(view.start)
        if img is not None:
            shown = img.copy()
            for zname, z in cal.card_zones.items():
                b = z.to_list()
                cv2.rectangle(shown, (b[0], b[1]), (b[2] - 1, b[3] - 1), (0, 255, 255), 3)
            shown = cv2.resize(shown, (640, int(640 * shown.shape[0] / shown.shape[1])), interpolation=cv2.INTER_AREA)
            ev.append(f"<figure>{img_tag(shown)}<figcaption>The card appears ({view.start:.3f} s); the field zone boxed in "
                      "yellow.</figcaption></figure>")
        for p in h["players"]:
            t = view.reactions.get(p)
            if t is None or p not in seat_box:
                continue
            img = frames.get(t)
            if img is None:
                continue
            shown = img.copy()
            status = desc.status.get(p, "miss")
            colour = {"ok": (40, 160, 40), "bad": (30, 30, 210), "miss": (0, 140, 220),
                      "unclear": (138, 74, 90)}.get(status, (0, 140, 220))
            draw_pose(shown, landmarks_at(result, p, t), seat_box[p], p, colour)
            word = {"ok": "correct", "bad": "wrong", "miss": "missed", "unclear": "unclear (not judged)"}.get(
                status, "missed")
            ev.append(f"<figure>{img_tag(crop_box(shown, seat_box[p]))}<figcaption><b class={status}>{escape(p)}</b> {word}: "
                      f"reaction at {t:.3f} s (+{t - view.start:.3f} s after the card)</figcaption></figure>")
        ev.append("</div>")
        parts.extend(ev)
        if samples is not None:
            t0, t1 = view.start - WAVE_BEFORE_S, view.end
            strips = []
            for p in h["players"]:
                ch = seat_chan.get(p)
                if ch is None or ch >= samples.shape[1]:
                    continue
                # the samples are on the audio clock: the video clock minus the calibration's av_offset
                shift = cal.av_offset or 0.0
                ons = [(s["t"] - shift, s.get("t_end", s["t"] + 0.3) - shift, " ".join(s.get("words") or ["(no call)"]))
                       for s in shouts if s.get("player") == p and t0 <= s["t"] <= t1]
                strips.append(waveform(samples[:, ch], rate, t0 - shift, t1 - shift, view.start - shift, ons,
                                       f"{p} (channel {ch})  {t0:.2f}-{t1:.2f} s"))
            if strips:
                parts.append("<p><b>Each seat's microphone</b> from 0.3 s before the card to the end of its window:</p>"
                             + img_tag(np.vstack(strips), png=True))
        parts.append("</section>")
    parts.append(f"<p class=sub>Session record: <code>{escape(result.record.name)}</code> (re-judge it with "
                 "<code>referee judge session.jsonl</code>; add <code>correction</code> lines to override what "
                 "perception saw).</p></body></html>")
    return "\n".join(parts)


def write_video(result, path: Path, scale: float = 0.5) -> None:
    """The session re-encoded with seat boxes, raised hands, the current card and its verdict."""
    from vision.video import read_frames, write_video as encode

    cal = result.calibration
    views = card_views(result)
    describe = _describe(result.header["game"])
    captions = [describe(v.verdict).captions() for v in views]
    hands = [e for e in result.events if e["type"] == "hand"]
    shouts = [e for e in result.events if e["type"] == "shout"]

    def caption(t: float) -> tuple[str, str]:
        cur = [k for k, v in enumerate(views) if v.start <= t]
        if not cur:
            return "", ""
        top, after = captions[cur[-1]]
        return (top, "") if t < views[cur[-1]].end else (top, after)

    def frames():
        for fr in read_frames(result.video):
            img = fr.image.copy()
            for s in cal.seats:
                b = s.box.to_list()
                up = set()
                for e in hands:
                    if e["player"] == s.name and e["t"] <= fr.t:
                        (up.add if e["state"] == "up" else up.discard)(e["side"])
                cv2.rectangle(img, (b[0], b[1]), (b[2] - 1, b[3] - 1), (255, 255, 255), 2)
                said = [x for x in shouts if x["player"] == s.name and x["t"] <= fr.t <= x["t"] + 1.0]
                # one line each (a seat box is narrow): name, hands up, the words said
                lines = [s.name] + ([" + ".join(sorted(up)) + " up"] if up else [])
                if said:
                    lines.append("\"" + (" ".join(said[-1].get("words") or []) or "(no call)") + "\"")
                for i, text in enumerate(lines):
                    at = (b[0] + 8, b[1] + 34 + 36 * i)
                    cv2.putText(img, text, at, cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 5, cv2.LINE_AA)
                    cv2.putText(img, text, at, cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 2, cv2.LINE_AA)
            top, bottom = caption(fr.t)
            for i, line in enumerate((f"{fr.t:6.2f} s  {top}", bottom)):
                if line:
                    y = img.shape[0] - 60 + 36 * i
                    cv2.putText(img, line, (20, y), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 6, cv2.LINE_AA)
                    cv2.putText(img, line, (20, y), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 255, 255), 2, cv2.LINE_AA)
            if scale != 1.0:
                img = cv2.resize(img, (int(img.shape[1] * scale) // 2 * 2, int(img.shape[0] * scale) // 2 * 2),
                                 interpolation=cv2.INTER_AREA)
            yield img

    fps = int(round(result.header.get("source", {}).get("fps") or 30))
    encode(path, frames(), fps=fps, crf=26)


def write(result, *, html: bool = True, video: bool = False) -> None:
    if html:
        from referee.outdir import write_text_atomic

        path = write_text_atomic(result.out / "report.html", build_html(result))  # whole or not at all
        result.report = path
    if video:
        path = result.out / "annotated.mp4"
        write_video(result, path)
        result.annotated = path

"""Card recognition: real photos with the same deck's references (floors below the measured
figures), rendered look-alikes, and the appearance time found by walking back."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from session.calibration import Box
from session.errors import MediaError
from tests.vision.helpers import card_rows, set_cards
from vision import cards, synth


def _refs(deck: str) -> cards.References:
    imgs = {r["cards"]: cv2.imread(str(r["path"])) for r in card_rows() if r["role"] == "ref" and r["deck"] == deck}
    return cards.References.from_images(imgs)


def _score(deck: str):
    from vision.bench import card_queries, score_cards

    refs = _refs(deck)
    right = wrong = total = 0
    for _, img, truth in card_queries(card_rows(), deck):
        total += len(truth)
        r, w, _u = score_cards(cards.recognise(img, refs), truth)
        right, wrong = right + r, wrong + w
    return right, wrong, total


def test_real_scenes_with_own_deck_references():
    # measured: 16/16 right, 0 wrong (4 phone photos, 1-8 cards each)
    right, wrong, total = _score("USPCC-bicycle-like")
    assert total == 16
    assert right >= 14 and wrong == 0


def test_real_webcam_cards_on_white_paper():
    # measured: 16/16 right, 0 wrong (white cards on white paper; 6S vs 7S, first-stage lead
    # 0.051, is decided by the second stage: before it 15/16 and 1 uncertain)
    right, wrong, total = _score("wmcnicho-deck")
    assert total == 16
    assert right >= 15 and wrong == 0


def test_second_stage_never_picks_a_wrong_code_among_the_nearest_real_look_alikes():
    """Forced on every real card with its 4 nearest codes (whatever the first-stage lead):
    the look-alike tournament picks the right code or none. Measured: 32/32 right."""
    right = total = 0
    for deck in ("wmcnicho-deck", "USPCC-bicycle-like"):
        refs = _refs(deck)
        for r in card_rows():
            if r["role"] != "query" or r["deck"] != deck:
                continue
            img = cv2.imread(str(r["path"]))
            if max(img.shape[:2]) > 1000:
                s = 1000 / max(img.shape[:2])
                img = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
            truth = r["cards"].replace(";", " ").split()
            for m in cards.recognise(img, refs):
                if m.status != "ok" or m.code not in truth:
                    continue
                look = cards.Face(cards.warp_card(img, m.quad))
                cand, flipped = look.cand, look.flipped
                best = {}
                for i, ref in enumerate(refs.refs):
                    for rot, c in ((False, cand), (True, flipped)):
                        sc = cards.ncc(c, ref.template)
                        if sc > best.get(ref.code, (-2.0,))[0]:
                            best[ref.code] = (sc, rot, i)
                close = sorted(best.items(), key=lambda kv: -kv[1][0])[:4]
                won = cards.lookalike_tournament(look, close, refs)
                assert won is None or close[won][0] == m.code, (r["file"], m.code, close[won][0])
                total += 1
                right += won is not None
    assert total == 32 and right >= 30


def _pip_pair():
    six = synth.card_face("six", 3)
    h, w = six.shape[:2]
    seven = six.copy()
    cv2.circle(seven, (w // 2, h // 5), max(3, w // 25), (30, 30, 30), -1)  # one more small pip
    return six, seven


@pytest.mark.parametrize("angle", [10, 190, -20])
def test_faces_told_apart_by_one_small_pip(angle):
    """Two faces that differ by one small pip: the whole-card lead is ~0.01 (uncertain by the
    first stage); the second stage tells them apart, at 0° and 180°."""
    six, seven = _pip_pair()
    refs = cards.References.from_images({"six": six, "seven": seven}, find_outline=False)
    for code, face in (("six", six), ("seven", seven)):
        scene = synth.table_background(480, 360, np.random.default_rng(2))
        synth.place_card(scene, face, synth.card_quad(240, 180, 130, angle, 0.08), gain=0.9, tint=(0.9, 1.0, 1.1))
        scene = cv2.GaussianBlur(scene, (5, 5), 1.2)
        ms = cards.recognise(scene, refs)
        assert len(ms) == 1 and ms[0].status == "ok" and ms[0].code == code and ms[0].separated
        first = cards.match_face(cards.warp_card(scene, ms[0].quad), refs, second_stage=False)
        assert first.status == "uncertain" and first.margin < cards.MIN_MARGIN


def test_a_finger_over_the_telling_pip_leaves_the_card_uncertain():
    six, seven = _pip_pair()
    refs = cards.References.from_images({"six": six, "seven": seven}, find_outline=False)
    for face in (six, seven):
        scene = synth.table_background(480, 360, np.random.default_rng(2))
        quad = synth.card_quad(240, 180, 130, 10, 0.08)
        synth.place_card(scene, face, quad, gain=0.9, tint=(0.9, 1.0, 1.1))
        p = quad.mean(axis=0) + ((quad[0] + quad[1]) / 2 - quad.mean(axis=0)) * 0.6  # over the pip
        cv2.ellipse(scene, (int(p[0]), int(p[1])), (14, 10), 0, 0, 360, (120, 150, 210), -1)
        scene = cv2.GaussianBlur(scene, (5, 5), 1.2)
        ms = cards.recognise(scene, refs)
        assert [m.status for m in ms] == ["uncertain"]


def test_turned_twin_is_uncertain_never_guessed():
    face = synth.card_face("c01", 1)
    twin = np.ascontiguousarray(face[::-1, ::-1])  # Uzushio 6 vs 9: the same picture turned
    refs = cards.References.from_images({"six": face, "nine": twin}, find_outline=False)
    assert refs.lookalikes() and refs.lookalikes()[0][:2] == ("nine", "six")
    scene = synth.table_background(400, 400, np.random.default_rng(1))
    synth.place_card(scene, face, synth.card_quad(200, 200, 150, 8))
    ms = cards.recognise(scene, refs)
    assert len(ms) == 1 and ms[0].status == "uncertain"
    assert cards.codes_of(ms) == ([], 1)
    # the second stage sees no difference between the references (the same picture turned)
    t6, t9 = refs.refs[1].template, refs.refs[0].template
    assert cards.separate(cards.padded(t6), t6, np.ascontiguousarray(t9[::-1, ::-1])) is None


def test_rendered_deck_warped_lit_and_blurred():
    deck = synth.card_deck(12)
    refs = cards.References.from_images(deck, find_outline=False)
    rng = np.random.default_rng(3)
    right = 0
    for i, (code, face) in enumerate(deck.items()):
        scene = synth.table_background(480, 360, rng)
        synth.place_card(scene, face, synth.card_quad(240, 180, 130, rng.uniform(-30, 30) + 180 * (i % 2), 0.08),
                         gain=rng.uniform(0.75, 1.05), tint=(0.9, 1.0, 1.1))
        scene = cv2.GaussianBlur(scene, (5, 5), 1.2)
        ms = cards.recognise(scene, refs)
        right += [m.code for m in ms if m.status == "ok"] == [code]
    assert right >= 11


def test_nothing_is_recognised_on_an_empty_table():
    refs = cards.References.from_images(synth.card_deck(6), find_outline=False)
    scene = synth.table_background(480, 360, np.random.default_rng(5))
    cv2.rectangle(scene, (100, 100), (180, 220), (230, 230, 230), -1)  # a blank card-sized paper
    assert [m for m in cards.recognise(scene, refs) if m.status == "ok"] == []


def test_appearance_time_walks_back_to_the_first_recognisable_frame():
    clip = synth.demo_clip(640, 480, seconds=2.2)
    refs = cards.References.from_images(dict(clip.deck))
    w = cards.CardZoneWatcher("field", Box(*clip.zones["field"]), refs, every=3)
    events = []
    for k in range(clip.n_frames):
        events += w.update(k, k / clip.fps, clip.frame(k))
    assert [e.card for e in events] == [d.code for d in clip.drops]
    for e, d in zip(events, clip.drops):
        assert abs(e.extra["frame"] - d.frame) <= 1
        assert e.zone == "field"


def test_reference_folder_errors(tmp_path):
    with pytest.raises(MediaError, match="not found"):
        cards.References.from_folder(tmp_path / "nope")
    with pytest.raises(MediaError, match="no images"):
        cards.References.from_folder(tmp_path)
    (tmp_path / "2S.jpg").write_bytes(b"not a jpeg")
    with pytest.raises(MediaError, match="2S.jpg is unreadable"):
        cards.References.from_folder(tmp_path)


def test_reference_names_group_codes(tmp_path):
    face = synth.card_face("c02", 2)
    refs = cards.References.from_images({"ika": face, "ika_1": face, "tako": synth.card_face("c04", 4)},
                                        find_outline=False)
    assert refs.codes == ["ika", "tako"]


def test_demo_cards_under_a_hand_are_timed_at_their_first_frame():
    """The rendered demo (fixtures/demo): "mirror" and "ikatako" are laid face up with the
    fingers still over the card's top edge, on a pile of light cards, so no outline is found
    for two frames; the walk-back compares those frames at the place the card was later
    recognised. Measured before: both 2 frames late; now 0."""
    import json
    from pathlib import Path

    from session.calibration import load
    from vision.video import read_frames

    demo = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
    if not (demo / "session.mp4").is_file():
        pytest.skip("fixtures/demo/session.mp4 not present")
    cal = load(demo / "calibration.json")
    refs = cards.References.from_folder(cal.references)
    truth = {e["card"]: round(e["t"] * 30) for e in map(json.loads, open(demo / "truth.jsonl"))
             if e["type"] == "card" and e["card"] in ("mirror", "ikatako")}
    windows = [(truth[c] - 40, truth[c] + 10) for c in ("mirror", "ikatako")]
    got = {}
    watcher = None
    for fr in read_frames(demo / "session.mp4"):
        inside = [w for w in windows if w[0] <= fr.index <= w[1]]
        if not inside:
            watcher = None
            if fr.index > windows[-1][1]:
                break
            continue
        if watcher is None:
            watcher = cards.CardZoneWatcher("field", cal.card_zones["field"], refs)
        for e in watcher.update(fr.index, fr.t, fr.image):
            got[e.card] = e.extra["frame"]
    assert got["mirror"] == truth["mirror"]
    assert got["ikatako"] == truth["ikatako"]


def test_real_phone_photos_seen_at_an_angle():
    """The own-deck phone photos seen as a camera at the table's edge sees them (the table
    turned 45 degrees: cards lying along the line of sight foreshortened below the old
    aspect range, cards lying sideways look portrait). Measured: 15/16, 0 wrong (the code
    before: 7/16)."""
    from vision import degrade

    refs = _refs("USPCC-bicycle-like")
    right = wrong = total = 0
    for r in card_rows():
        if r["role"] != "query" or r["deck"] != "USPCC-bicycle-like":
            continue
        img = cv2.imread(str(r["path"]))
        s = 1000 / max(img.shape[:2])
        img = degrade.oblique(cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), 45)
        left = r["cards"].replace(";", " ").split()
        total += len(left)
        for m in cards.recognise(img, refs):
            if m.status == "ok" and m.code in left:
                right += 1
                left.remove(m.code)
            elif m.status == "ok":
                wrong += 1
    assert total == 16
    assert right >= 14 and wrong == 0


def test_a_foreshortened_sideways_card_is_read_the_right_way_round():
    face = synth.card_face("c05", 5)
    refs = cards.References.from_images({"c05": face, "c02": synth.card_face("c02", 2)}, find_outline=False)
    scene = synth.table_background(480, 360, np.random.default_rng(3))
    # a portrait card lying sideways, squashed along its long side: in the image its long
    # side is the *shorter* one (1.1 : 1), and the old aspect range gave no outline at all
    quad = np.float32([[150, 120], [330, 120], [330, 285], [150, 285]])  # 180 x 165 px
    synth.place_card(scene, np.ascontiguousarray(np.rot90(face)), quad)
    ms = [m for m in cards.recognise(scene, refs) if m.status == "ok"]
    assert [m.code for m in ms] == ["c05"]


def test_a_card_that_comes_but_cannot_be_read_is_a_warning_event():
    """A card with no reference (not in the deck's references, or unreadable) changes the
    zone and settles: the watcher says so with a warning event at the change, never silence."""
    clip = synth.demo_clip(640, 480, seconds=2.2)
    unread = clip.drops[0].code
    refs = cards.References.from_images({c: f for c, f in clip.deck.items() if c != unread})
    w = cards.CardZoneWatcher("field", Box(*clip.zones["field"]), refs)
    events = []
    for k in range(clip.n_frames):
        events += w.update(k, k / clip.fps, clip.frame(k))
    assert [e.card for e in events if e.type == "card"] == [clip.drops[1].code]
    warns = [e for e in events if e.type == "warning"]
    assert len(warns) == 1 and warns[0].extra["unread"] and warns[0].extra["zone"] == "field"
    t_drop = clip.drops[0].frame / clip.fps
    assert t_drop - 0.2 <= warns[0].t <= t_drop + 0.2
    assert warns[0].message.startswith(f"card in the field not recognised at {warns[0].t:.1f} s")


def _framed_image(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A reference photo of a card with a printed frame: (image, card quad, frame quad)."""
    rng = np.random.default_rng(seed)
    img = np.full((300, 400, 3), 90, np.uint8)
    cv2.rectangle(img, (100, 50), (200, 200), (235, 235, 235), -1)
    tex = rng.integers(0, 255, (9, 6, 3)).astype(np.uint8)
    img[80:170, 120:180] = cv2.resize(tex, (60, 90), interpolation=cv2.INTER_NEAREST)
    card = cards.order_quad(np.float32([[100, 50], [200, 50], [200, 200], [100, 200]]))
    frame = cards.order_quad(np.float32([[120, 80], [180, 80], [180, 170], [120, 170]]))
    return img, card, frame


def test_a_deck_with_printed_frames_gets_both_faces_for_every_code():
    """Most references show card and frame; one lost its frame, one its card edge (its lone
    outline is the frame): both are completed from the deck's frame position."""
    found = {}
    for k in range(4):
        img, card, frame = _framed_image(k)
        found[f"c{k}"] = (img, card, frame)
    img, card, frame = _framed_image(10)
    found["lost_frame"] = (img, card, None)
    img11, card11, frame11 = _framed_image(11)
    found["lost_card"] = (img11, frame11, None)
    out = cards.consistent_faces(found)
    assert [s for s, _ in out["lost_frame"]] == ["lost_frame", "lost_frame#inner*"]
    assert [s for s, _ in out["lost_card"]] == ["lost_card#card", "lost_card#inner"]
    truth = cards.warp_card(img, frame).astype(np.float32)
    made = out["lost_frame"][1][1].astype(np.float32)
    assert float(np.abs(made - truth).mean()) < 6
    card_made = out["lost_card"][0][1].astype(np.float32)
    assert float(np.abs(card_made - cards.warp_card(img11, card11).astype(np.float32)).mean()) < 6
    # a deck where few references show a frame is left as found
    few = {n: (v[0], v[1], None) for n, v in found.items()}
    few["c0"] = found["c0"]
    assert [s for s, _ in cards.consistent_faces(few)["lost_frame"]] == ["lost_frame"]


@pytest.mark.parametrize("degrees, axis, floor", [(45, "x", 10), (60, "x", 10), (45, "y", 12)])
def test_real_webcam_cards_seen_at_an_angle_are_never_misread(degrees, axis, floor):
    """The white-on-white webcam deck seen as from the table's edge. Measured: 45 degrees
    13/16, 60 degrees 14/16, turned sideways 15/16, 0 wrong in each (before the reference
    completion and the re-alignment gates: 1-3 wrong per view; before the seeded
    re-alignment 12, 13, 14)."""
    from vision import degrade
    from vision.bench import card_queries, score_cards

    refs = _refs("wmcnicho-deck")
    right = wrong = 0
    for _, img, truth in card_queries(card_rows(), "wmcnicho-deck"):
        r, w, _ = score_cards(cards.recognise(degrade.oblique(img, degrees, axis), refs), truth)
        right, wrong = right + r, wrong + w
    assert wrong == 0 and right >= floor


def test_the_new_parameters_are_validated():
    with pytest.raises(ValueError, match="framed_share"):
        cards.FrameParams(framed_share=0.0)
    with pytest.raises(ValueError, match="partners"):
        cards.RefineGateParams(partners=-1)
    with pytest.raises(ValueError, match="partner_score"):
        cards.RefineGateParams(partner_score=1.5)
    with pytest.raises(ValueError, match="seeded"):
        cards.RefineGateParams(seeded=-1)
    with pytest.raises(ValueError, match="seeded_min_fit"):
        cards.RefineGateParams(seeded_min_fit=1.5)
    with pytest.raises(ValueError, match="share"):
        cards.OcclusionParams(share=1.5)
    with pytest.raises(ValueError, match="both_frames"):
        cards.SecondStageParams(both_frames=1)
    with pytest.raises(ValueError, match="seen_as_face"):
        cards.SecondStageParams(seen_as_face=1)
    with pytest.raises(ValueError, match="min_undersampling"):
        cards.SecondStageParams(min_undersampling=0.5)


def test_a_card_back_under_a_hand_is_not_re_aligned_and_nothing_changes(monkeypatch):
    """The demo's "tako" is brought face down under a hand (frames 160-164: a misfit card
    back): those faces are found covered (:class:`cards.OcclusionParams`) and skip the ECC
    re-alignment; with the test off (share 0) the ECC runs on them and the card event is
    the same (the card already lying there when the watch starts is reported too)."""
    import json
    from dataclasses import replace
    from pathlib import Path

    from session.calibration import load
    from vision.video import read_frames

    demo = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
    if not (demo / "session.mp4").is_file():
        pytest.skip("fixtures/demo/session.mp4 not present")
    cal = load(demo / "calibration.json")
    refs = cards.References.from_folder(cal.references)
    true = [round(e["t"] * 30) for e in map(json.loads, open(demo / "truth.jsonl"))
            if e["type"] == "card" and e["card"] == "tako"][0]
    frames = [fr for fr in read_frames(demo / "session.mp4") if true - 30 <= fr.index <= true + 8]
    realign = cards.realign_face
    calls = []

    def counted(*a, **k):
        calls.append(1)
        return realign(*a, **k)

    set_cards(monkeypatch, "realign_face", counted)
    runs = {}
    for share in (cards.OCCLUSION.share, 0.0):
        set_cards(monkeypatch, "OCCLUSION", replace(cards.OCCLUSION, share=share))
        calls.clear()
        w = cards.CardZoneWatcher("field", cal.card_zones["field"], refs)
        events = [e for fr in frames for e in w.update(fr.index, fr.t, fr.image)]
        runs[share] = ([(e.type, getattr(e, "card", None), e.extra.get("frame")) for e in events], len(calls))
    (on, ecc_on), (off, ecc_off) = runs[cards.OcclusionParams().share], runs[0.0]
    assert on == off and ("card", "tako", true) in on
    assert ecc_off >= 10 and ecc_on <= ecc_off // 5


def test_a_far_rival_left_in_doubt_is_re_aligned_from_the_winners_homography(monkeypatch):
    """The webcam deck at 60 degrees: winners re-aligned to 0.98 were left uncertain by a far
    code not re-aligned (or whose own ECC failed); re-aligning it from the winner's
    homography (:attr:`cards.RefineGateParams.seeded`) reads more cards, never a wrong one.
    Measured: 14/16 without, 16/16 with, 0 wrong."""
    from dataclasses import replace

    from vision import degrade
    from vision.bench import card_queries, score_cards

    refs = _refs("wmcnicho-deck")
    seen = [(degrade.oblique(img, 60), truth) for _, img, truth in card_queries(card_rows(), "wmcnicho-deck")]
    got = {}
    for seeded in (0, cards.REFINE_GATE.seeded):
        set_cards(monkeypatch, "REFINE_GATE", replace(cards.RefineGateParams(), seeded=seeded))
        right = wrong = 0
        for img, truth in seen:
            r, w, _ = score_cards(cards.recognise(img, refs), truth)
            right, wrong = right + r, wrong + w
        got[seeded] = (right, wrong)
    assert got[0][1] == 0 and got[cards.REFINE_GATE.seeded][1] == 0
    assert got[cards.REFINE_GATE.seeded][0] > got[0][0]


def test_a_pair_is_measured_in_the_other_frame_only_when_the_residual_alone_fails(monkeypatch):
    """:func:`cards.separated`: the 3x rule in ``a``'s frame; only a face whose residual alone
    fails is measured again in ``b``'s frame, and wins when it lies within the fraction of
    ``a`` there too (alpha from ``b`` near 1, residual small)."""
    from dataclasses import replace

    face = a = b = np.zeros((4, 4), np.float32)
    back = {}
    set_cards(monkeypatch, "separate", lambda f, ta, tb: back["res"])
    on, off = cards.SecondStageParams(), replace(cards.SecondStageParams(), both_frames=False)
    assert cards.separated(face, a, b, (0.1, 0.2, 0.1), on)  # passes in a's frame
    assert not cards.separated(face, a, b, None, on)
    back["res"] = (0.93, 0.18, 0.4)  # in b's frame: 0.93 of the way to a, residual 0.18
    assert cards.separated(face, a, b, (0.15, 0.35, 0.08), on)
    assert not cards.separated(face, a, b, (0.15, 0.35, 0.08), off)
    assert not cards.separated(face, a, b, (0.4, 0.35, 0.08), on)  # alpha fails: no second look
    assert not cards.separated(face, a, b, (0.15, 0.35, 0.5), on)  # elsewhere fails
    back["res"] = (0.6, 0.18, 0.4)  # in b's frame the face is only 0.6 of the way to a
    assert not cards.separated(face, a, b, (0.15, 0.35, 0.08), on)
    back["res"] = (0.93, 0.4, 0.4)  # ... or far off the line there too
    assert not cards.separated(face, a, b, (0.15, 0.35, 0.08), on)


def test_look_alikes_at_an_angle_are_told_apart_in_both_frames(monkeypatch):
    """The webcam deck at 45 degrees: spades and clubs whose residual off the pair's line was
    just above a third in one reference's frame are read when the other frame agrees
    (:attr:`cards.SecondStageParams.both_frames`), never wrongly. Measured: 13/16 without,
    14/16 with, 0 wrong (the matched second stage off in both runs: it reads the rest)."""
    from dataclasses import replace

    got = _webcam_deck_tilted(monkeypatch, 45, "SECOND_STAGE", lambda both: replace(cards.SecondStageParams(), both_frames=both,
                                                                                             matched_blur=False))
    assert got[False][1] == 0 and got[True][1] == 0
    assert got[True][0] > got[False][0]


def test_real_look_alikes_at_an_angle_are_read_as_the_face_was_imaged(monkeypatch):
    """The webcam deck at 45 degrees: the 5C whose centre pip lies 6 px off its reference's,
    uncertain against the 4C, is read with :attr:`cards.SecondStageParams.matched_blur`, and
    nothing is read wrong. Measured: 15/16 without, 16/16 with, 0 wrong."""
    from dataclasses import replace

    got = _webcam_deck_tilted(monkeypatch, 45, "SECOND_STAGE", lambda on: replace(cards.SecondStageParams(), matched_blur=on))
    assert got[False][1] == 0 and got[True][1] == 0
    assert got[True][0] > got[False][0]


def _inked_pair():
    """Two rendered look-alikes of different ink: the same four round pips and index, black
    (``2C``) and red (``2D``)."""
    def face(ink):
        img = np.full((300, 200, 3), 240, np.uint8)
        for x, y in ((100, 70), (100, 230), (55, 150), (145, 150)):
            cv2.circle(img, (x, y), 22, ink, -1)
        cv2.putText(img, "2", (12, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.1, ink, 3, cv2.LINE_AA)
        return img
    return face((30, 30, 30)), face((40, 40, 200))


def _seen(face: np.ndarray) -> np.ndarray:
    scene = synth.table_background(480, 360, np.random.default_rng(2))
    synth.place_card(scene, face, synth.card_quad(240, 180, 130, 12, 0.08), gain=0.9, tint=(0.9, 1.0, 1.1))
    return cv2.GaussianBlur(scene, (5, 5), 1.2)


def test_a_look_alike_of_another_ink_in_doubt_is_settled_by_the_faces_ink(monkeypatch):
    """A doubt between a black and a red look-alike (forced here: a margin the pair's lead
    does not reach, no second stage) is settled by the face's own ink, either way; with the
    ink test off it stays uncertain. The inks come from the references, not the codes."""
    from dataclasses import replace

    black, red = _inked_pair()
    refs = cards.References.from_images({"2C": black, "2D": red}, find_outline=False)
    for code, face in (("2C", black), ("2D", red)):
        quad = cards.find_card_outlines(_seen(face))[0]
        warp = cards.warp_card(_seen(face), quad)
        m = cards.match_face(warp, refs, min_margin=0.3, second_stage=False)
        assert (m.code, m.status, m.inked) == (code, "ok", True)
        set_cards(monkeypatch, "INK", replace(cards.InkParams(), on=False))
        assert cards.match_face(warp, refs, min_margin=0.3, second_stage=False).status == "uncertain"
        set_cards(monkeypatch, "INK", cards.InkParams())
    # the same faces named the other way round: the ink is the reference's, never the name's
    swapped = cards.References.from_images({"2D": black, "2C": red}, find_outline=False)
    m = cards.match_face(cards.warp_card(_seen(red), cards.find_card_outlines(_seen(red))[0]), swapped,
                         min_margin=0.3, second_stage=False)
    assert (m.code, m.status) == ("2C", "ok")


def test_an_unclear_ink_settles_nothing():
    """A grey face (no ink darker than the paper), a face whose ink lies half-way between the
    two inks, and a face that fits its winner below :attr:`InkParams.min_fit` settle
    nothing; a red face settles a black winner's red rival never, and contradicts the black
    winner (its own code could be missing)."""
    black, red = _inked_pair()
    refs = cards.References.from_images({"2C": black, "2D": red}, find_outline=False)
    i_black, i_red = (next(i for i, r in enumerate(refs.refs) if r.code == c) for c in ("2C", "2D"))
    grey = cards.Face(np.full((cards.CANON_H, cards.CANON_W, 3), 128, np.uint8))
    assert cards.ink_colour(grey.cand) is None
    assert not cards.ink_settles(grey, refs, i_black, "2D", 0.99)
    assert not cards.ink_settles(grey, refs, i_red, "2C", 0.99)
    brown = cards.Face(cv2.resize(_brown(), (cards.CANON_W, cards.CANON_H)))
    assert not cards.ink_settles(brown, refs, i_black, "2D", 0.99)
    assert not cards.ink_settles(brown, refs, i_red, "2C", 0.99)
    look = cards.Face(cv2.resize(red, (cards.CANON_W, cards.CANON_H)))
    assert cards.ink_settles(look, refs, i_red, "2C", 0.99)
    assert not cards.ink_settles(look, refs, i_red, "2C", 0.9)  # below min_fit
    assert not cards.ink_settles(look, refs, i_black, "2D", 0.99)
    assert cards.ink_contradicts(look, refs, i_black, [("2C", None), ("2D", None)]) == "2D"
    assert cards.ink_contradicts(look, refs, i_red, [("2D", None), ("2C", None)]) is None


def _brown() -> np.ndarray:
    """The pair's pips in an ink half-way between black and red."""
    img = np.full((300, 200, 3), 240, np.uint8)
    for x, y in ((100, 70), (100, 230), (55, 150), (145, 150)):
        cv2.circle(img, (x, y), 22, (36, 36, 130), -1)
    return img


def test_ink_params_are_validated():
    for bad in ({"dark": 1.5}, {"inset": 0.6}, {"min_share": 0.0}, {"min_gap": 0.0}, {"fraction": 0.6},
                {"min_fit": 1.5}, {"on": 1}):
        with pytest.raises(ValueError):
            cards.InkParams(**bad)


def test_real_webcam_cards_at_30_degrees_read_more_with_the_ink_test(monkeypatch):
    """The webcam deck (white on white) tilted 30 degrees: a 2C left in doubt by 2D (the red
    rival's ECC fails) is read by its ink. Measured: 15/16 without, 16/16 with, 0 wrong."""
    from dataclasses import replace

    got = _webcam_deck_tilted(monkeypatch, 30, "INK", lambda on: replace(cards.InkParams(), on=on))
    assert got[False][1] == 0 and got[True][1] == 0
    assert got[True][0] > got[False][0]


def _webcam_deck_tilted(monkeypatch, degrees, name, params):
    """(right, wrong) over the real webcam deck turned ``degrees``, with ``cards.<name>`` set to
    ``params(False)`` and then ``params(True)``."""
    from vision import degrade
    from vision.bench import card_queries, score_cards

    refs = _refs("wmcnicho-deck")
    seen = [(degrade.oblique(img, degrees), truth) for _, img, truth in card_queries(card_rows(), "wmcnicho-deck")]
    got = {}
    for on in (False, True):
        set_cards(monkeypatch, name, params(on))
        right = wrong = 0
        for img, truth in seen:
            r, w, _ = score_cards(cards.recognise(img, refs), truth)
            right, wrong = right + r, wrong + w
        got[on] = (right, wrong)
    return got


def test_the_seeded_re_alignment_adds_no_wrong_card_when_a_code_is_missing(monkeypatch):
    """The webcam deck at 60 degrees, each card's own code left out of the references (a
    card the deck lacks): anything read is wrong. The seeded re-alignment settles doubts only
    for a winner that fits as well as its own card (:attr:`cards.RefineGateParams.seeded_min_fit`);
    without that gate it read one more such card (4S as 4C). Measured: 12 wrong with the
    seeded re-alignment off, 13 with it and no gate, 12 with the gate; the full deck 16/16
    with the gate."""
    from dataclasses import replace

    from vision import degrade
    from vision.bench import card_queries

    full = _refs("wmcnicho-deck")
    seen = [(degrade.oblique(img, 60), truth) for _, img, truth in card_queries(card_rows(), "wmcnicho-deck")]

    def wrong_with(gate) -> int:
        set_cards(monkeypatch, "REFINE_GATE", gate)
        n = 0
        for img, truth in seen:
            for code in sorted(set(truth)):
                refs = cards.References([r for r in full.refs if r.code != code])
                n += sum(1 for m in cards.recognise(img, refs) if m.status == "ok" and m.code not in truth)
        return n

    off = wrong_with(replace(cards.RefineGateParams(), seeded=0))
    ungated = wrong_with(replace(cards.RefineGateParams(), seeded_min_fit=0.0))
    gated = wrong_with(cards.RefineGateParams())
    assert gated <= off < ungated


def test_a_reference_seen_through_a_small_outline_is_blurred_like_the_face():
    """:func:`cards.seen_through`: through an outline of the canonical size the reference is
    left as it is; through a small, foreshortened one it loses its fine detail (as a face
    warped up from few pixels does), and a face warped from such a picture is nearer to it
    than to the sharp reference."""
    face = cards.reference_face(synth.card_face("c05", 5), False)  # canonical size
    t = cards.face_template(face)
    m = cards.ALIGN_MARGIN
    full = np.float32([[0, 0], [cards.CANON_W - 1, 0], [cards.CANON_W - 1, cards.CANON_H - 1], [0, cards.CANON_H - 1]])
    same = cards.seen_through(t, full + 40)
    assert same.shape == t.shape
    assert float(cards.unit_vector(same) @ cards.unit_vector(t)) > 0.98
    small = np.float32([[100, 100], [140, 102], [150, 130], [92, 128]])  # 40-58 px wide, 28 px deep
    seen = cards.seen_through(t, small)

    def detail(x):
        g = cv2.cvtColor(np.clip(x, 0, 1).astype(np.float32), cv2.COLOR_BGR2GRAY)
        return float(np.abs(cv2.Laplacian(g, cv2.CV_32F)).mean())

    assert detail(seen) < 0.5 * detail(t)
    # the card itself photographed through that outline, then warped like a face
    img = np.full((260, 260, 3), 60, np.uint8)
    h = cv2.getPerspectiveTransform(full, small)
    cv2.warpPerspective(face, h, (260, 260), dst=img, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_TRANSPARENT)
    got = cards.normalise(cards.warp_card(img, small))[m:-m, m:-m]
    assert float(cards.unit_vector(got) @ cards.unit_vector(seen)) > float(cards.unit_vector(got) @ cards.unit_vector(t))


def test_support_fits_are_the_same_as_testing_every_fit_first():
    """:func:`cards.supported_fits` measures the side support lazily; its fits are those of
    the eager rule (every fit's support first, then repeats, then fits alike a found
    outline), on random near-duplicate quads and contours."""
    rng = np.random.default_rng(7)
    params = cards.OutlineParams()
    for trial in range(40):
        base = np.float32([[20, 20], [80, 22], [82, 110], [18, 108]]) + rng.uniform(0, 60, 2).astype(np.float32)
        fits = []
        for _ in range(int(rng.integers(1, 7))):
            q = (base + rng.uniform(-4, 4, (4, 2))).astype(np.float32)
            contour = q if rng.random() < 0.6 else q[:3]  # a side unfollowed: no support
            fits.append((q, contour.reshape(-1, 1, 2).astype(np.int32)))
        found = [(base + rng.uniform(-30, 30, 2)).astype(np.float32) for _ in range(int(rng.integers(0, 3)))]
        supported = [q for q, c in fits if cards.side_support(q, c, params) >= params.support]
        eager = [q for q in cards.distinct_quads(supported)
                 if not any(min(cards.covered_share(q, u), cards.covered_share(u, q)) >= params.covered for u in found)]
        lazy = cards.supported_fits(fits, found, params)
        assert len(lazy) == len(eager) and all(np.array_equal(a, b) for a, b in zip(lazy, eager)), trial


def test_a_clear_outline_is_looked_at_one_way_round_only():
    """A clean head-on card's outline scores well the first way (its long side the card's),
    so it is not warped and looked at the other way too (:data:`cards.BOTH_WAYS_CLEAR`); a
    foreshortened card lying sideways still is, and is read the right way round."""
    refs = cards.References.from_images({c: synth.card_face(c, i) for c, i in (("c01", 1), ("c05", 5), ("c09", 9))},
                                        find_outline=False)
    img = synth.table_background(400, 400, np.random.default_rng(3))
    quad = np.float32([[120, 80], [270, 80], [270, 305], [120, 305]])
    synth.place_card(img, synth.card_face("c05", 5), quad)
    looks = cards.first_looks(img, [quad], refs)
    assert len(looks) == 1 and looks[0][0] >= cards.BOTH_WAYS_CLEAR and looks[0][1] == "c05"
    assert [m.code for m in cards.recognise(img, refs) if m.status == "ok"] == ["c05"]


def _pip_card(centre_pip: bool, drop: int = 0) -> np.ndarray:
    """A plain pip card at the canonical size: four corner pips, and with ``centre_pip`` a
    fifth in the middle, ``drop`` pixels lower than where the reference has it (a pip
    printed or photographed a few pixels off: the real 5C at 45 degrees, 6 px)."""
    img = np.full((cards.CANON_H, cards.CANON_W, 3), 240, np.uint8)
    for x, y in ((45, 50), (105, 50), (45, 175), (105, 175)):
        cv2.circle(img, (x, y), 13, (35, 35, 35), -1)
    if centre_pip:
        cv2.circle(img, (75, 112 + drop), 14, (35, 35, 35), -1)
    return img


def _as_seen(card: np.ndarray, sigma: float) -> np.ndarray:
    """A canonical face as a small or foreshortened outline leaves it: blurred by ``sigma``."""
    return cv2.GaussianBlur(cards.normalise(card), (0, 0), sigma)


#: an outline 40 x 50 px: warped up 3.8-4.5x, the footprint explains a blur of about 2.2 px
_SMALL = np.float32([[100, 100], [140, 100], [140, 150], [100, 150]])
#: an outline of the canonical size: warped up not at all, no blur explained
_FULL = np.float32([[0, 0], [cards.CANON_W, 0], [cards.CANON_W, cards.CANON_H], [0, cards.CANON_H]])


def test_a_blurred_pip_off_its_place_is_told_apart_as_the_face_was_imaged():
    """:attr:`cards.SecondStageParams.matched_blur`: a small face's centre pip, blurred and 6 px
    off the reference's, leaves the sharp comparison undecided (a third of the way to the
    look-alike without it); both references blurred to the face's sharpness and the pip
    placed by its own shift read it -- only through a small outline, never the wrong way, and
    the look-alike without the pip is read as itself."""
    from dataclasses import replace

    five, four = cards.face_template(_pip_card(True)), cards.face_template(_pip_card(False))
    face = _as_seen(_pip_card(True, drop=6), 2.0)
    sharp = cards.separate(face, five, four)
    assert sharp is not None and not cards.separated(face, five, four, sharp)  # the rule as it was
    assert max(abs(sharp[0]), sharp[1], sharp[2]) > cards.SEPARATE_FRACTION
    assert cards.separated(face, five, four, sharp, quad=_SMALL)
    off = replace(cards.SecondStageParams(), matched_blur=False)
    assert not cards.separated(face, five, four, sharp, off, quad=_SMALL)
    assert not cards.separated(face, four, five, cards.separate(face, four, five), quad=_SMALL)
    # the look-alike seen the same way: itself, never the other
    other = _as_seen(_pip_card(False), 2.0)
    assert not cards.separated(other, five, four, cards.separate(other, five, four), quad=_SMALL)
    assert cards.separated(other, four, five, cards.separate(other, four, five), quad=_SMALL)


def test_the_blur_is_estimated_from_the_face_and_capped_by_the_outlines_footprint():
    """:func:`cards.face_blur` finds the face's own blur where the two references agree (the
    same whichever of them the face is); :func:`cards.footprint` caps it: a large outline
    explains no blur, so a face blurred beyond it is not matched by blurring the references."""
    five, four = _pip_card(True), _pip_card(False)
    a, b = cards.face_template(five), cards.face_template(four)
    for card in (five, four):
        qa, ga, gb = cards.ecc_aligned(_as_seen(card, 2.0), a, b)
        assert abs(cards.face_blur(qa, ga, gb, 3.0) - 2.0) <= 0.5
        assert cards.face_blur(qa, ga, gb, 1.0) <= 1.0
    assert 1.8 < cards.footprint(_SMALL) < 2.6
    assert cards.footprint(_FULL) == 0.0


def test_a_whole_feature_is_placed_by_its_own_shift_and_nothing_else_moves():
    """:func:`cards.placed_in_frame`: the centre pip one reference has and the other has not is found
    6 px off in the face and moved onto the reference's place; the corner pips (where the
    references agree) keep the card's one alignment."""
    a, b = cards.face_template(_pip_card(True)), cards.face_template(_pip_card(False))
    pad = cards.SECOND_STAGE.place_shift
    qp, ga, gb = cards.ecc_aligned(cards.normalise(_pip_card(True, drop=6)), a, b, pad)
    h, w = ga.shape
    placed = cards.placed_in_frame(qp, ga, gb, pad)
    unplaced = qp[pad:pad + h, pad:pad + w]
    centre = np.s_[104 - 20:104 + 26, 67 - 20:67 + 20]  # both centre pips (the trimmed frame)
    assert np.abs(placed - ga)[centre].mean() < 0.5 * np.abs(unplaced - ga)[centre].mean()
    corner = np.s_[:80, :]
    assert np.array_equal(placed[corner], unplaced[corner])
    m = cards.pair_measures(placed, ga, gb)
    assert m is not None and max(abs(m[0]), m[1], m[2]) <= cards.SEPARATE_FRACTION


def test_the_matched_blur_parameters_are_validated():
    for bad in (dict(matched_blur=1), dict(place_features="yes"), dict(max_blur=-1.0), dict(blur_step=0.0),
                dict(misfit_reach=-1), dict(place_shift=-2)):
        with pytest.raises(ValueError):
            cards.SecondStageParams(**bad)


def test_an_unchanged_zone_promises_its_last_analysed_frame_and_keeps_the_promise():
    """Before a card comes, the zone is still the picture it last accounted for: no card can
    be timed at or before its last analysed frame, so the watermark follows the frames (not
    the ring's oldest, RING_FRAMES behind); every event comes at or after every promise made
    before it, and while the zone changes the bound waits where the change began."""
    clip = synth.demo_clip(640, 480, seconds=2.2)
    refs = cards.References.from_images(dict(clip.deck))
    w = cards.CardZoneWatcher("field", Box(*clip.zones["field"]), refs, every=2)
    promised, behind, events = float("-inf"), [], []
    for k in range(clip.n_frames):
        out = w.update(k, k / clip.fps, clip.frame(k))
        assert all(e.t > promised for e in out), (k, promised, [(e.type, e.t) for e in out])
        events += out
        promised = max(promised, w.earliest_event_t())
        behind.append(k / clip.fps - w.earliest_event_t())
    assert [e.card for e in events if e.type == "card"] == [d.code for d in clip.drops]
    # the first card's zone (an empty mat) promised within 2 frames of the newest from its
    # first accounted frames on, where the ring's oldest would be up to 45 frames behind
    before_first = behind[2:clip.drops[0].frame - 1]
    assert before_first and max(before_first) <= 2 / clip.fps + 1e-9

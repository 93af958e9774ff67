"""The robustness benchmark's pieces: deterministic degradations that keep images images; a split by puzzle."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from conftest import EASY, PHOTOS, need, rendered_frame


@pytest.fixture(scope="module")
def robust():
    pytest.importorskip("onnxruntime")
    need(PHOTOS / "printed")  # train_cells and photos find their data at import
    import eval_robust

    return eval_robust


@pytest.fixture(scope="module")
def frame():
    quad = np.float32([[200, 100], [520, 110], [510, 420], [190, 410]])
    return rendered_frame(EASY, quad, size=(640, 480)), np.float32([190, 100, 520, 420])


def test_every_degradation_is_the_same_twice_and_gives_a_colour_jpeg(robust, frame):
    img, box = frame
    data = cv2.imencode(".jpg", img)[1].tobytes()
    for name in robust.CONDITIONS:
        a = robust.degrade(data, img, "photo1", name, box)
        b = robust.degrade(data, img, "photo1", name, box)
        assert a == b, name
        out = cv2.imdecode(np.frombuffer(a, np.uint8), cv2.IMREAD_COLOR)
        assert out is not None and out.dtype == np.uint8 and out.ndim == 3, name
    assert robust.degrade(data, img, "photo1", "taken", box) == data  # the file itself
    assert robust.degrade(data, img, "photo1", "dim", box) != robust.degrade(data, img, "photo2", "dim", box)


def test_sizes_shrink_as_named_and_the_others_keep_the_picture_size(robust, frame):
    img, box = frame
    rng = np.random.default_rng(0)
    assert robust.half(img, rng, box).shape == (240, 320, 3)
    assert robust.w320(img, rng, box).shape == (240, 320, 3)
    for fn in (robust.gaussian_blur, robust.motion_blur, robust.dim, robust.shadow, robust.glare, robust.warm,
               robust.cold):
        out = fn(img, np.random.default_rng(1), box)
        assert out.shape == img.shape and out.dtype == np.uint8, fn.__name__
    assert robust.screen(img, rng, box).shape[:2] == (round(480 * 0.93), round(640 * 0.93))


def test_glare_saturates_part_of_the_grid_only_and_dim_is_darker_and_noisier(robust, frame):
    img, box = frame
    x0, y0, x1, y1 = box.astype(int)
    lit = robust.glare(img, np.random.default_rng(3), box)
    white = (lit >= 254).all(axis=2)
    grid_area = (x1 - x0) * (y1 - y0)
    assert 0.02 * grid_area < white[y0:y1, x0:x1].sum() < 0.3 * grid_area
    assert white[y0:y1, x0:x1].sum() > 0.9 * white.sum()  # a highlight on the grid, hardly elsewhere
    dark = robust.dim(img, np.random.default_rng(3), box)
    assert dark.mean() < 0.85 * img.mean()
    paper = (cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) > 235)
    assert dark[paper].std() > img[paper].std()


def test_a_puzzle_is_held_out_with_all_its_photos():
    need(PHOTOS / "printed")
    from photos import held_out_puzzles, load

    held = held_out_puzzles()
    photos = load(PHOTOS / "printed")
    by_puzzle: dict[str, set[bool]] = {}
    for ph in photos:
        by_puzzle.setdefault(ph.givens, set()).add(ph.name in held)
    assert all(len(sides) == 1 for sides in by_puzzle.values())
    assert 0.15 * len(photos) < len(held) < 0.3 * len(photos)


@pytest.mark.data
def test_no_shipped_model_trained_on_a_held_out_photo(robust):
    """Each model's json lists the photos it held out; none of the benchmark's held-out sudoku-photos may be
    missing from any list (models trained on the photo-number split had seen 40 of the 70)."""
    held = [it for it in robust.items("held-out") if it.group != "hand"]
    assert len(held) == 70
    assert robust.seen_in_training(held) == []
    train = [it for it in robust.items("train") if it.group != "hand"]
    assert len(robust.seen_in_training(train)) == len({it.name for it in train})


@pytest.mark.data
def test_a_held_out_page_in_a_dim_rooms_sensor_noise_is_read_as_print_not_handwriting(robust):
    """image150 in the benchmark's dim room: speckled paper made its print look like pen strokes (13
    givens read as entries, the puzzle unsolvable). The noisy grid is now smoothed before its views are
    cut (``kinds.quiet``); a clean grid is left exactly as it is."""
    from ar_sudoku.io.images import decode_image
    from ar_sudoku.vision.kinds import KINDS, paper_noise, quiet, warp_views_grid

    item = next(it for it in robust.items("held-out") if it.name == "image150" and it.group == "printed")
    data = item.path.read_bytes()
    photo = decode_image(data, full=False)
    dark = robust.degrade(data, photo.image, item.name, "dim", np.float32(item.box) / photo.scale)
    obj = robust.read_json(dark)
    assert obj["givens"] == item.givens and not (obj.get("entries") or "").strip(".")
    assert obj["status"] == "solved" and not obj.get("mistakes")
    corners = np.float32(obj["corners"])
    clean = warp_views_grid(cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY), corners)
    noisy = warp_views_grid(cv2.imdecode(np.frombuffer(dark, np.uint8), cv2.IMREAD_GRAYSCALE), corners)
    assert paper_noise(clean) <= KINDS.noisy_paper < paper_noise(noisy)
    assert quiet(clean) is clean


def _darker_room(robust, name: str, group: str = "printed"):
    """The train-split photo ``name`` of ``group``: its truth, its decode, and its encoding in the darker room."""
    from ar_sudoku.io.images import decode_image

    item = next(it for it in robust.items("train") if it.name == name and it.group == group)
    data = item.path.read_bytes()
    photo = decode_image(data, full=False)
    return item, photo, robust.degrade(data, photo.image, item.name, "dim_dark", np.float32(item.box) / photo.scale)


@pytest.mark.data
def test_a_page_in_a_darker_rooms_speckle_is_found_where_its_outline_broke(robust, monkeypatch):
    """Train image43 in the benchmark's darker room (0.18 of the light): the speckle broke the thresholded
    outline and no grid was found. A speckled picture where no pass finds one is searched once more smoothed
    (``grid.GRID.speckled``): the puzzle is read whole. The same photo as taken is not speckled."""
    from ar_sudoku.vision import grid, quads

    item, photo, dark = _darker_room(robust, "image43")
    obj = robust.read_json(dark)
    assert obj["status"] == "solved" and obj["givens"] == item.givens
    gray = cv2.imdecode(np.frombuffer(dark, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert quads.speckle(gray) > grid.GRID.speckled >= quads.speckle(cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY))
    monkeypatch.setattr(grid, "GRID", replace(grid.GRID, speckled=1e9))  # as before: no second look
    assert robust.read_json(dark)["status"] == "no_grid"


@pytest.mark.data
def test_a_dark_bottom_row_lost_in_the_speckle_is_not_taken_for_the_pictures_edge(robust, monkeypatch):
    """Train image199 in the darker room: the bottom two rows lie in the photo's own falloff, where the speckle
    broke their lines; the rest was taken for a grid cut by the picture's edge, its last rows extrapolated past
    the frame (five givens wrong). The smoothed look finds the whole grid, another one than the first by two
    corners (``grid.GRID.moved``), and it is taken: the puzzle is read whole."""
    from ar_sudoku.vision import grid

    item, photo, dark = _darker_room(robust, "image199")
    obj = robust.read_json(dark)
    assert obj["status"] == "solved" and obj["givens"] == item.givens
    bottom = max(y for _, y in obj["corners"])
    assert bottom < photo.image.shape[0]  # the grid's last line inside the picture, where it is
    monkeypatch.setattr(grid, "GRID", replace(grid.GRID, moved=1e9))  # as before: the first grid kept
    before = robust.read_json(dark)
    assert before["givens"] != item.givens and max(y for _, y in before["corners"]) < bottom - 50


@pytest.mark.data
def test_red_entries_in_a_darker_rooms_speckle_keep_apart_from_the_print_by_their_colour(robust, monkeypatch):
    """Train image77 (red pen) in the darker room: each colour channel's own noise scattered the cells' ink
    shares, and three cells fell on the wrong side of the line between the page's two inks. The noisy grid's
    colour is now smoothed as its grey is (``kinds.KINDS.ink_sigma``): givens and entries split exactly."""
    from ar_sudoku.vision import kinds

    item, _, dark = _darker_room(robust, "image77", "mixed")
    obj = robust.read_json(dark)
    assert obj["givens"] == item.givens and obj["entries"] == item.entries
    assert obj["status"] == "solved" and not obj.get("mistakes")
    # as before: a one-pixel kernel, the colour as it came
    monkeypatch.setattr(kinds, "KINDS", replace(kinds.KINDS, ink_sigma=1e-3))
    before = robust.read_json(dark)
    assert (before["givens"], before["entries"]) != (item.givens, item.entries)


@pytest.mark.data
def test_a_red_entry_the_model_doubts_in_a_darker_room_is_settled_by_its_ink(robust, monkeypatch):
    """Train image184 (red pen) in the darker room: the noise spread both inks, so the page's two inks were apart
    by under three times their spread and its colour had no vote; the model read the red 3 at r3c9 as print
    (0.75). A noisy grid's inks vote at twice their spread, on the cells the model is unsure of alone
    (``kinds.ink_votes(noisy=True)``): givens and entries split exactly."""
    from ar_sudoku.vision import kinds

    item, _, dark = _darker_room(robust, "image184", "mixed")
    obj = robust.read_json(dark)
    assert obj["givens"] == item.givens and obj["entries"] == item.entries
    assert obj["status"] == "solved" and not obj.get("mistakes")
    votes = kinds.ink_votes
    monkeypatch.setattr(kinds, "ink_votes", lambda probs, inks, sure=0.9, noisy=False: votes(probs, inks, sure))
    before = robust.read_json(dark)  # as before: a noisy page votes only as a clean one does
    assert before["givens"][26] == "3" and item.entries[26] == "3"  # r3c9


@pytest.mark.data
def test_print_faded_under_a_readable_glare_is_read_and_a_shadow_is_not_taken_for_glare(robust):
    """image170 under the benchmark's readable glare: print faded to a quarter of its contrast was taken
    for blanks. Its contrast is now given back against the lifted paper (``cells.glare_gain``); the
    photo as taken and the same photo under an uneven shadow get no gain at all."""
    from ar_sudoku.io.images import decode_image
    from ar_sudoku.vision.cells import glare_gain

    item = next(it for it in robust.items("held-out") if it.name == "image170" and it.group == "printed")
    data = item.path.read_bytes()
    photo = decode_image(data, full=False)
    box = np.float32(item.box) / photo.scale
    obj = robust.read_json(robust.degrade(data, photo.image, item.name, "glare_readable", box))
    assert obj["givens"] == item.givens and obj["status"] == "solved" and not obj.get("unreadable")

    def paper(img: np.ndarray) -> np.ndarray:  # each cell's paper level (its median), as quick_ink takes it
        x0, y0, x1, y1 = box.astype(int)
        grey = cv2.resize(cv2.cvtColor(img[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY), (108, 108), interpolation=cv2.INTER_AREA)
        return np.median(grey.reshape(9, 12, 9, 12).astype(np.float32), axis=(1, 3))

    shaded = robust.shadow(photo.image, np.random.default_rng(10), box)
    for img in (photo.image, shaded):
        assert glare_gain(paper(img), paper(img)) is None
    lit = robust.glare_readable(photo.image, np.random.default_rng(10), box)
    gain = glare_gain(paper(lit), paper(lit))
    assert gain is not None and gain.max() > 2 and np.median(gain) == 1.0


@pytest.mark.data
def test_a_page_written_in_black_pen_and_out_of_focus_keeps_its_entries_apart_from_its_print(robust, monkeypatch):
    """image102 (train split) under the benchmark's Gaussian blur: black pen on grey print, so colour cannot
    tell them apart, and blurred, six pen entries looked like print (read as givens). The out-of-focus grid's
    views are now sharpened (``kinds.unblur``); the photo as taken and a shaken (streaked) one are not."""
    from ar_sudoku.io.images import decode_image
    from ar_sudoku.vision import kinds

    item = next(it for it in robust.items("train") if it.name == "image102" and it.group == "mixed")
    data = item.path.read_bytes()
    photo = decode_image(data, full=False)
    box = np.float32(item.box) / photo.scale
    soft = robust.degrade(data, photo.image, item.name, "blur", box)
    obj = robust.read_json(soft)
    assert obj["givens"] == item.givens and obj["entries"] == item.entries
    assert obj["status"] == "solved" and not obj.get("mistakes")

    corners = np.float32(obj["corners"])
    pictures = {c: cv2.imdecode(np.frombuffer(robust.degrade(data, photo.image, item.name, c, box), np.uint8),
                                cv2.IMREAD_COLOR) for c in ("taken", "blur", "motion")}
    # the streak left in: deblur.unstreak now takes this one out first, and unblur is about a streak it sees
    monkeypatch.setattr(kinds, "unstreak", lambda square, cell, margin=0: square)
    seen = {c: kinds.grid_views(img, corners).views for c, img in pictures.items()}
    monkeypatch.setattr(kinds, "unblur", lambda norm, cell, margin: norm)
    unsharpened = {c: kinds.grid_views(img, corners).views for c, img in pictures.items()}
    assert np.array_equal(seen["taken"], unsharpened["taken"])
    assert np.array_equal(seen["motion"], unsharpened["motion"])
    assert not np.array_equal(seen["blur"], unsharpened["blur"])


@pytest.mark.data
def test_print_in_the_givens_own_ink_stays_print_however_small_a_poor_picture_makes_it(robust):
    """image112 (train split, red pen) on a phone screen: the moiré cut two printed 1s short, and as shorter
    than the page's print they were taken for handwriting (``small_print_is_written``), though their ink is
    the printer's. A cell whose colour votes for the givens' ink now stays print (in a dim room too)."""
    from ar_sudoku.io.images import decode_image

    item = next(it for it in robust.items("train") if it.name == "image112" and it.group == "mixed")
    data = item.path.read_bytes()
    photo = decode_image(data, full=False)
    box = np.float32(item.box) / photo.scale
    for condition in ("screen", "dim"):
        obj = robust.read_json(robust.degrade(data, photo.image, item.name, condition, box))
        assert obj["givens"] == item.givens and obj["entries"] == item.entries, condition
        assert obj["status"] == "solved" and not obj.get("mistakes"), condition


@pytest.mark.data
def test_a_shaken_written_on_page_is_read_the_right_way_up(robust):
    """image1067 (train split) under the benchmark's motion blur: the print model, sure of few digits, read the
    page turned a quarter (by a hair over upright) and nothing matched. A weak turn is now asked of the
    cell-kind model too (``reading.confirm_turn``), which reads it best upright; a photo really taken turned
    keeps its turn. (The models trained on the split by puzzle miss one shaken entry of it, r4c2: missed, never
    misread.)"""
    from ar_sudoku.io.images import decode_image

    item = next(it for it in robust.items("train") if it.name == "image1067" and it.group == "mixed")
    data = item.path.read_bytes()
    photo = decode_image(data, full=False)
    obj = robust.read_json(robust.degrade(data, photo.image, item.name, "motion", np.float32(item.box) / photo.scale))
    assert obj["givens"] == item.givens
    read = [(e, t) for e, t in zip(obj["entries"], item.entries) if e != t]
    assert all(e == "." for e, _ in read) and len(read) <= 1, read
    assert obj["status"] == "solved" and not obj.get("mistakes")
    turned = next(it for it in robust.items("train") if it.name == "image1031" and it.group == "printed")
    assert robust.read_json(turned.path.read_bytes())["givens"] == turned.givens  # taken a quarter turned


@pytest.mark.data
def test_a_printed_6_in_a_dim_rooms_sensor_noise_is_not_read_as_an_8(robust):
    """image41 (train split, printed) in the benchmark's dim room: speckle closed a printed 6 into an 8 and the
    puzzle broke the rules. The print model's grid is now smoothed when its paper is speckled
    (``reading.quiet_digits``); the photo as taken is left exactly as it is."""
    from ar_sudoku.io.images import decode_image
    from ar_sudoku.vision.orient import quiet_digits, warp

    item = next(it for it in robust.items("train") if it.name == "image41" and it.group == "printed")
    data = item.path.read_bytes()
    photo = decode_image(data, full=False)
    dark = robust.degrade(data, photo.image, item.name, "dim", np.float32(item.box) / photo.scale)
    obj = robust.read_json(dark)
    assert obj["givens"] == item.givens and obj["status"] == "solved" and not obj.get("mistakes")
    clean = warp(cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY), np.float32(obj["corners"]))
    noisy = warp(cv2.imdecode(np.frombuffer(dark, np.uint8), cv2.IMREAD_GRAYSCALE), np.float32(obj["corners"]))
    assert quiet_digits(clean) is clean and quiet_digits(noisy) is not noisy


@pytest.mark.data
def test_a_shaken_printed_page_is_deblurred_and_read_without_a_wrong_digit(robust):
    """image1086 (train split, printed, 1280 px) under the benchmark's motion blur: a streak across its rows
    smeared 9s into 3s and 5s and 6s into 5s (6 wrong digits), and print into handwriting. The grid's streak
    is now measured on the grid and deconvolved before its cells are cut (``deblur.unstreak``)."""
    from ar_sudoku.io.images import decode_image

    item = next(it for it in robust.items("train") if it.name == "image1086" and it.group == "printed")
    data = item.path.read_bytes()
    photo = decode_image(data, full=False)
    obj = robust.read_json(robust.degrade(data, photo.image, item.name, "motion", np.float32(item.box) / photo.scale))
    assert obj["givens"] == item.givens and obj["status"] == "solved" and not obj.get("mistakes")
    assert not (obj.get("entries") or "").strip(".")


@pytest.mark.data
def test_a_right_entry_shaken_across_the_diagonal_is_a_doubt_not_a_mistake(robust):
    """image1036 (train split, mixed) under the benchmark's motion blur: a streak across the diagonal left the
    grid as steep across x as across y, so the picture passed for sharp, and a written 4 read as 7 by both
    readers was called the person's mistake. The four directions' evenness now tells a shaken picture
    (``EntryOpinion.poor_picture``), where a disagreement is only a doubt."""
    from ar_sudoku.io.images import decode_image

    item = next(it for it in robust.items("train") if it.name == "image1036" and it.group == "mixed")
    data = item.path.read_bytes()
    photo = decode_image(data, full=False)
    obj = robust.read_json(robust.degrade(data, photo.image, item.name, "motion", np.float32(item.box) / photo.scale))
    assert obj["givens"] == item.givens and obj["status"] == "solved"
    assert not obj.get("mistakes")
    assert [d["cell"] for d in obj["doubts"]] == ["r6c6"]

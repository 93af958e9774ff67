"""A shaken camera's streak: measured on the grid itself and taken back out before the cells are cut (issue 21)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from conftest import PHOTOS, need

from ar_sudoku.vision import deblur
from ar_sudoku.vision.cells import warp_grid


def test_a_line_psf_is_a_normalised_streak_of_its_length_and_direction():
    k = deblur.line_psf(9, 0)
    assert k.sum() == pytest.approx(1.0)
    rows = np.flatnonzero(k.sum(axis=1) > 1e-6)
    cols = np.flatnonzero(k.sum(axis=0) > 1e-6)
    assert len(rows) <= 2 and 9 <= len(cols) <= 11  # one row (two at a sub-pixel centre), nine-odd px long
    turned = deblur.line_psf(9, 90)
    assert np.flatnonzero(turned.sum(axis=0) > 1e-6).size <= 2  # now one column


@pytest.fixture(scope="module")
def sharp_photo():
    need(PHOTOS / "printed")
    from ar_sudoku.vision.grid import find_grid
    from photos import DEFAULT_DIR, load

    ph = next(p for p in load(DEFAULT_DIR / "printed") if p.name == "image1078")  # train split, 1280x960
    gray = cv2.imread(str(ph.path), cv2.IMREAD_GRAYSCALE)
    quad = find_grid(gray)
    assert quad is not None
    return gray, quad.corners, ph.givens


@pytest.mark.data
@pytest.mark.parametrize(("length", "angle"), [(15.0, 20.0), (13.0, 60.0), (15.0, 110.0), (17.0, 160.0)])
def test_a_streak_of_known_length_and_direction_is_measured_and_taken_out(sharp_photo, length, angle):
    gray, corners, givens = sharp_photo
    cell = 32
    picture_cell = float(np.ptp(corners, axis=0).max()) / 9
    streaked = warp_grid(cv2.filter2D(gray, -1, deblur.line_psf(length, angle)), corners, cell)
    found = deblur.measure_streak(streaked, cell)
    assert found is not None
    assert abs((found.angle - angle + 90) % 180 - 90) <= 5
    assert found.length * picture_cell / cell == pytest.approx(length, rel=0.15)
    undone = deblur.unstreak(streaked, cell)
    assert undone is not streaked and undone.dtype == streaked.dtype

    # the print model reads the deconvolved grid right, given for given
    from ar_sudoku.vision.cells import cut_cells
    from ar_sudoku.vision.digits import DigitReader

    assert DigitReader().read(cut_cells(undone)).givens == givens


@pytest.mark.data
def test_a_sharp_grid_is_left_exactly_as_it_is(sharp_photo):
    gray, corners, givens = sharp_photo
    for cell in (32, 60):
        square = warp_grid(gray, corners, cell)
        assert deblur.measure_streak(square, cell) is None
        assert deblur.unstreak(square, cell) is square


@pytest.mark.data
def test_a_shaken_12mp_page_whose_outline_the_streak_broke_is_found_once_the_streak_is_taken_out():
    """03_10_iphone_14_1 (train split, pen and pencil, 12 MP) under the benchmark's motion blur: a streak almost
    down the page smeared the grid's rows into the paper and no pass found its outline ("no Sudoku grid
    found"). A photo with no grid found is searched again with the picture's own streak deconvolved
    (``deblur.picture_streak``), and the whole reading then agrees with the solution."""
    pytest.importorskip("onnxruntime")
    need(PHOTOS / "printed")
    import eval_robust as robust
    from ar_sudoku.io.images import decode_image
    from ar_sudoku.vision.grid import find_grid
    from ar_sudoku.vision.quads import WORK_SIZE, shrink, to_gray

    item = next(it for it in robust.items("train") if it.name == "03_10_iphone_14_1")
    data = item.path.read_bytes()
    photo = decode_image(data, full=False)
    shaken = robust.degrade(data, photo.image, item.name, "motion", np.float32(item.box) / photo.scale)
    gray = to_gray(decode_image(shaken, full=False).image)
    sharp = find_grid(to_gray(photo.image))
    assert sharp is not None

    # the streak, measured on the whole picture at the search's working size, is the one drawn
    h, w = gray.shape
    k = WORK_SIZE / max(h, w)
    streak = deblur.picture_streak(shrink(gray, (round(w * k), round(h * k))))
    assert streak is not None  # motion_blur: 7 px on 640, in the direction drawn from the photo's own seed
    angle = (-robust._rng(item.name, "motion").uniform(0, 180)) % 180
    assert abs((streak.angle - angle + 90) % 180 - 90) <= 5
    assert streak.length == pytest.approx(7 * WORK_SIZE / 640, rel=0.15)

    found = find_grid(gray)
    assert found is not None
    assert np.abs(found.corners - sharp.corners).max() < 0.1 * np.ptp(sharp.corners[:, 0]) / 9  # a tenth of a cell
    obj = robust.read_json(shaken)
    assert robust.score(item, obj)["agrees"] and not obj.get("mistakes")


@pytest.mark.data
def test_a_short_streak_that_leaves_the_gradient_energy_even_is_measured_and_the_page_split_exactly():
    """image28 (train split, mixed, 640 px) under the benchmark's motion blur: a 7 px streak left the grid's
    gradient energy nearly as even as a sharp grid's (its digits are small at 640 px), the grid passed for
    sharp, and printed givens were read as handwriting. The steepest edges of four directions
    (``deblur.DEBLUR.steep_even``) now tell the streak, the cepstrum measures it, and the page is split exactly."""
    pytest.importorskip("onnxruntime")
    need(PHOTOS / "printed")
    import eval_robust as robust
    from ar_sudoku.io.images import decode_image
    from ar_sudoku.vision.grid import find_grid
    from ar_sudoku.vision.quads import to_gray

    item = next(it for it in robust.items("train") if it.name == "image28" and it.group == "mixed")
    data = item.path.read_bytes()
    photo = decode_image(data, full=False)
    shaken = robust.degrade(data, photo.image, item.name, "motion", np.float32(item.box) / photo.scale)
    gray = to_gray(decode_image(shaken, full=False).image)
    quad = find_grid(gray)
    assert quad is not None
    cell = 32
    square = warp_grid(gray, quad.corners, cell)
    assert deblur.measure_streak(warp_grid(to_gray(photo.image), quad.corners, cell), cell) is None  # as taken
    found = deblur.measure_streak(square, cell)
    assert found is not None
    angle = (-robust._rng(item.name, "motion").uniform(0, 180)) % 180
    assert abs((found.angle - angle + 90) % 180 - 90) <= 8
    picture_cell = float(np.ptp(quad.corners, axis=0).max()) / 9
    assert found.length * picture_cell / cell == pytest.approx(7, rel=0.2)  # motion_blur: 7 px on 640

    obj = robust.read_json(shaken)
    assert obj["givens"] == item.givens and obj["entries"] == item.entries and not obj.get("mistakes")


def _shaken(name: str, group: str):
    """A train photo under eval_robust's motion blur: (eval_robust, its item, the encoded shaken photo)."""
    pytest.importorskip("onnxruntime")
    need(PHOTOS / "printed")
    import eval_robust as robust
    from ar_sudoku.io.images import decode_image

    item = next(it for it in robust.items("train") if it.name == name and it.group == group)
    data = item.path.read_bytes()
    photo = decode_image(data, full=False)
    return robust, item, robust.degrade(data, photo.image, item.name, "motion", np.float32(item.box) / photo.scale)


@pytest.mark.data
def test_a_grid_found_only_once_the_streak_is_out_has_its_crossings_fitted_on_the_deblurred_picture():
    """image1066 (train split, printed, 1280 px) under the benchmark's motion blur: a 15 px streak near the
    vertical hid the grid, and once found on the deblurred working-size picture its crossings were fitted on
    the streaked full-size one, pulled along the streak by a twelfth of a cell: six givens were read as
    handwriting and a 1 as a written 7. The grid's part of the full picture is now deconvolved before the fit."""
    robust, item, shaken = _shaken("image1066", "printed")
    obj = robust.read_json(shaken)
    assert obj["givens"] == item.givens and obj["status"] == "solved" and not obj.get("mistakes")
    assert not (obj.get("entries") or "").strip(".")


@pytest.mark.data
def test_a_deblurred_grid_is_a_poor_picture_whose_disagreements_are_doubts_not_mistakes():
    """image209 (train split, mixed) under the benchmark's motion blur: its streak is measured and taken out,
    and the deconvolved grid looks sharp, so entries that both readers misread (restored strokes, not seen
    ones) were called the person's mistakes: four false alarms. A grid with a measured streak is now a poor
    picture (``EntryOpinion.poor_picture``): what disagrees with the solution is said as a doubt. (Its
    misread given is now set right by the entries, ``reading.entries_against``: nothing disagrees.)"""
    from ar_sudoku.vision.grid import find_grid
    from ar_sudoku.vision.kinds import CELL, MARGIN, KindReader, warp_views_grid
    from ar_sudoku.vision.quads import to_gray
    from ar_sudoku.vision.writing import EntryOpinion

    robust, item, shaken = _shaken("image209", "mixed")
    obj = robust.read_json(shaken)
    assert obj["status"] == "solved" and not obj.get("mistakes")
    gray = to_gray(cv2.imdecode(np.frombuffer(shaken, np.uint8), cv2.IMREAD_COLOR))
    quad = find_grid(gray)
    assert quad is not None
    raw = warp_views_grid(gray, quad.corners, deblur=False)
    assert deblur.measure_streak(raw, CELL, MARGIN) is not None
    assert EntryOpinion(KindReader(), gray, quad.corners, quad.lattice if quad.bent else None).poor_picture()

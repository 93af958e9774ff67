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

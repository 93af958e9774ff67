from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from conftest import photo_truth, rendered_frame

from ar_sudoku.sudoku.generator import generate
from ar_sudoku.vision.cells import cut_cells, evenness, quick_ink, warp_grid
from ar_sudoku.vision.grid import find_grid
from ar_sudoku.vision.quads import order_corners, to_gray
from ar_sudoku.vision.synth import quad

PUZZLE = generate("medium", seed=11).puzzle


@pytest.mark.parametrize(("angle", "tilt"), [(0, 0.0), (15, 0.1), (-25, -0.15)])
def test_grid_corners_on_rendered_frames(angle, tilt):
    truth = quad((640, 360), 430, angle, tilt)
    found = find_grid(rendered_frame(PUZZLE, truth))
    assert found is not None
    # the finder returns the outer edge of the border line; the truth is its centre line
    assert np.abs(found.corners - order_corners(truth)).max() < 8


@pytest.mark.data
@pytest.mark.parametrize("name", ["image10", "image1000", "image1045", "image105"])
def test_grid_corners_on_real_photos(name):
    path, _, truth = photo_truth(name)
    found = find_grid(cv2.imread(str(path)))
    assert found is not None
    diag = float(np.hypot(*(truth[0] - truth[2])))
    assert np.abs(found.corners - truth).max() < 0.03 * diag


def test_no_grid_in_a_picture_without_one():
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 255, (480, 640, 3), dtype=np.uint8)
    assert find_grid(noise) is None
    assert find_grid(np.full((480, 640, 3), 200, np.uint8)) is None
    text = np.full((480, 640), 255, np.uint8)
    for y in range(20, 460, 24):
        cv2.putText(text, "Lorem ipsum dolor sit amet 123 456", (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7, 0, 2)
    assert find_grid(text) is None


def _filled_page(sigma: float, digits: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """A page written in to its last cell, thin lines pale and box lines dark, blurred by ``sigma`` px (of 900)."""
    from ar_sudoku.vision.render import put_centered

    solution = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
    img = np.full((900, 840, 3), 238, np.uint8)
    cell, x0, y0 = 60, 140, 160
    for k in range(10):
        colour, width = ((20, 20, 20), 3) if k % 3 == 0 else ((190, 190, 190), 1)
        cv2.line(img, (x0 + k * cell, y0), (x0 + k * cell, y0 + 9 * cell), colour, width)
        cv2.line(img, (x0, y0 + k * cell), (x0 + 9 * cell, y0 + k * cell), colour, width)
    for i, ch in enumerate(solution if digits else ""):
        r, c = divmod(i, 9)
        put_centered(img, ch, (x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell), cell * 0.62, (60, 40, 40))
    for y in (60, 90, 760, 790):  # a newspaper's text above and below
        cv2.rectangle(img, (60, y), (780, y + 10), (90, 90, 90), -1)
    corners = np.float32([[x0, y0], [x0 + 9 * cell, y0], [x0 + 9 * cell, y0 + 9 * cell], [x0, y0 + 9 * cell]])
    return cv2.GaussianBlur(img, (0, 0), sigma), corners


@pytest.mark.parametrize("sigma", [3.0, 4.0])
def test_a_filled_in_page_out_of_focus_is_found_whole_by_its_box_lines(sigma):
    """Blurred, a page written in to its last cell keeps its box lines while its thin lines fade into the paper
    and the digits fill its cells: no outline looks like a grid of 10+10 lines but one of its boxes. The whole
    grid is found by its box lines (``grid.box_line_score``), not a box of it."""
    img, corners = _filled_page(sigma)
    grid = find_grid(img)
    assert grid is not None
    assert np.abs(grid.corners - corners).max() < 15  # a quarter of a cell


def test_a_table_of_three_by_three_is_no_grid_by_its_box_lines():
    """Box lines alone make no Sudoku: an empty 3x3 table, blurred, holds no digits in its 81 cells."""
    img = np.full((900, 840, 3), 238, np.uint8)
    for k in range(4):
        cv2.line(img, (140 + k * 180, 160), (140 + k * 180, 700), (20, 20, 20), 3)
        cv2.line(img, (140, 160 + k * 180), (680, 160 + k * 180), (20, 20, 20), 3)
    assert find_grid(cv2.GaussianBlur(img, (0, 0), 3.0)) is None


def test_cells_with_ink_are_the_givens():
    truth = quad((640, 360), 450, 5, 0.05)
    frame = rendered_frame(PUZZLE, truth)
    cuts = cut_cells(warp_grid(to_gray(frame), order_corners(truth)))
    assert "".join("x" if h else "." for h in cuts.has_ink) == "".join("." if c == "." else "x" for c in PUZZLE)
    assert cuts.patches[cuts.has_ink].max() > 0.9  # normalised ink
    assert cuts.patches[~cuts.has_ink].max() == 0


def test_reader_reads_rendered_digits(reader):
    truth = quad((640, 360), 450, -8, 0.08)
    cuts = cut_cells(warp_grid(to_gray(rendered_frame(PUZZLE, truth)), order_corners(truth)))
    reading = reader.read(cuts)
    assert reading.givens == PUZZLE
    assert reading.confidence.shape == (81,) and (reading.confidence <= 1).all()


def test_a_shaded_row_of_empty_cells_holds_no_ink():
    """A highlighted band (or a shadow's end) over empty cells is paper, not a digit."""
    from ar_sudoku.vision.cells import CELL

    side = 9 * CELL
    img = np.full((side, side), 225, np.uint8)
    for k in range(10):
        t = 3 if k % 3 == 0 else 1
        cv2.line(img, (k * CELL, 0), (k * CELL, side), 30, t)
        cv2.line(img, (0, k * CELL), (side, k * CELL), 30, t)
    digits = {0: "5", 10: "3", 40: "7", 44: "1", 80: "9"}
    for i, d in digits.items():
        r, c = divmod(i, 9)
        cv2.putText(img, d, (c * CELL + 9, r * CELL + 25), cv2.FONT_HERSHEY_SIMPLEX, 0.75, 20, 2, cv2.LINE_AA)
    band = [48, 49, 50]  # r6c4..r6c6, empty, shaded grey as a highlighted row is
    for i in band:
        r, c = divmod(i, 9)
        img[r * CELL + 2: (r + 1) * CELL - 1, c * CELL + 2: (c + 1) * CELL - 1] = 150
    cuts = cut_cells(img)
    assert not cuts.has_ink[band].any() and not cuts.faint[band].any()
    assert cuts.has_ink[list(digits)].all()


def _inked_page(pale: set[int], dark: set[int]) -> np.ndarray:
    """A 9x9 grid on white paper: pale strokes (print) in ``pale``, dark pen strokes in ``dark``."""
    img = np.full((360, 360), 210, np.uint8)
    for i in range(10):
        cv2.line(img, (i * 40, 0), (i * 40, 359), 90, 1)
        cv2.line(img, (0, i * 40), (359, i * 40), 90, 1)
    for cells, ink in ((pale, 165), (dark, 40)):
        for c in cells:
            y, x = divmod(c, 9)
            cv2.line(img, (x * 40 + 20, y * 40 + 10), (x * 40 + 20, y * 40 + 30), ink, 3)
    return img


def test_pale_print_on_a_page_written_in_dark_pen_is_still_ink_once_the_print_is_looked_for():
    givens = set(range(0, 81, 3))
    corners = np.float32([[0, 0], [359, 0], [359, 359], [0, 359]])
    page = _inked_page(givens, set(range(81)) - givens)  # every other cell written in dark pen
    want = np.array([i in givens for i in range(81)])
    assert (quick_ink(page, corners)[want] <= 0.5).all()  # against the pen's ink the print looks gone
    assert (quick_ink(page, corners, expect=want)[want] > 0.5).all()
    # print rubbed out (or another puzzle) still shows as gone: a quarter of the print may go unnoticed in the scale
    gone = set(list(givens)[:6])
    page = _inked_page(givens - gone, set(range(81)) - givens)
    ink = quick_ink(page, corners, expect=want)
    assert all(ink[c] <= 0.5 for c in gone) and all(ink[c] > 0.5 for c in givens - gone)


def test_the_per_frame_ink_look_is_each_cells_darkest_middle_against_its_median_scaled_by_the_print():
    """``quick_ink``'s cells, each a row of its own, give what numpy's median and percentiles over the grid give."""
    rng = np.random.default_rng(3)
    corners = np.float32([[4, 3], [352, 6], [356, 355], [2, 350]])
    for k in range(5):
        page = _inked_page(set(rng.choice(81, 25, replace=False)), set(rng.choice(81, 10 * k, replace=False)))
        page = np.clip(page * rng.uniform(0.4, 1.0) + rng.normal(0, 4, page.shape), 0, 255).astype(np.uint8)
        want = rng.random(81) < 0.3
        w = warp_grid(page, corners, 12).astype(np.float32).reshape(9, 12, 9, 12)
        depth = (np.median(w, axis=(1, 3)) - w[:, 3:9, :, 3:9].min(axis=(1, 3))).reshape(81)
        for expect in (None, want):
            scale = np.percentile(depth, 95)
            if expect is not None:
                scale = min(scale, np.percentile(depth[expect], 75))
            assert np.allclose(quick_ink(page, corners, expect=expect), depth / max(scale, 10.0), rtol=1e-6)


def test_a_glare_spot_is_told_from_a_lit_side_by_the_rows_and_columns_median_light_as_numpy_takes_it():
    from ar_sudoku.vision.cells import CELLS, is_spot

    rng = np.random.default_rng(4)
    for k in range(200):
        levels = rng.normal(170, 6, (9, 9)).astype(np.float32)
        if k % 3 == 0:
            levels += np.linspace(0, 50, 9, dtype=np.float32)[None, :]  # a lamp's fall-off across the page
        if k % 2 == 0:
            y, x = rng.integers(0, 9, 2)
            levels[y, x] += rng.uniform(20, 80)  # a spot of light on one cell
        typical = float(np.median(levels))
        expected = np.median(levels, axis=1, keepdims=True) + np.median(levels, axis=0, keepdims=True) - typical
        assert is_spot(levels) == (float(((levels - expected) / np.maximum(255.0 - expected, 1.0)).max()) >= CELLS.spot)


def test_a_glare_on_grey_paper_falling_off_is_a_glare_and_a_shadow_is_still_a_shadow():
    """Grey paper in a lamp's fall-off (150 to 110) under a glare spot (up to 250): the spot alone spans the
    paper past ``CELLS.shaded``, and the page was taken for shaded, its glare given no gain (train image37). Left
    out of the span, the spot is a glare; a fall-off as steep as a shadow's is still uneven, spot or not."""
    from ar_sudoku.vision.cells import CELLS, glare_gain, uneven

    rng = np.random.default_rng(7)
    yy, xx = np.mgrid[0:9, 0:9].astype(np.float32)
    spot = 120.0 * np.exp(-((yy - 3) ** 2 + (xx - 3) ** 2) / 6.0)

    def span(levels: np.ndarray) -> tuple[float, float]:
        low, high = np.percentile(levels, [5, 95])
        return float(low), float(high)

    grey = 150.0 - 5.0 * xx + rng.normal(0, 2, (9, 9))
    glared = np.minimum(grey + spot, 250.0).astype(np.float32)
    low, high = span(glared)
    assert high > CELLS.shaded * low  # the raw span says "shadow" ...
    assert not uneven(glared, low, high)  # ... but the spot aside, the paper is even enough
    assert glare_gain(glared, glared) is not None
    shaded = (200.0 - 16.0 * xx + rng.normal(0, 2, (9, 9))).astype(np.float32)  # 200 down to 72: a shadow
    for page in (shaded, np.minimum(shaded + spot, 250.0).astype(np.float32)):
        assert uneven(page, *span(page)) and glare_gain(page, page) is None
    # a smooth paper map (the kind model's views) is judged by its cells' centres
    smooth = cv2.resize(glared, (270, 270), interpolation=cv2.INTER_NEAREST)
    assert not uneven(smooth, *span(smooth))
    # a page in shadow but for one lit corner of 4 x 4 cells: more than a lamp's highlight covers, still a shadow
    corner = np.full((9, 9), 90.0, np.float32)
    corner[:4, :4] = 200.0
    assert uneven(corner, *span(corner)) and glare_gain(corner, corner) is None


def test_a_page_that_shades_alternate_boxes_is_no_glare_and_its_shaded_print_stays_inked():
    """A page printing its boxes on grey and white by turns: its white boxes stand above the grey rows and columns
    of boxes around them as a glare's spot would, or a bold digit's ink, pulling its cell's level down, moves a
    column's median so that a white cell stands above it; either way the white cells were given a glare's gain
    (white 243 over grey 202: x2), the print in the grey boxes fell under the ink check's half, and the live answer
    was held back on frames of a page lying in full view (scoreboard generator P, pages 4, 5 and its pulled page).
    Measured against its box's level, the white is the paper; a glare still stands above it."""
    from ar_sudoku.vision.cells import CELLS, box_lift, glare_gain, is_spot, quick_ink

    rng = np.random.default_rng(3)
    box = np.add.outer(np.arange(9) // 3, np.arange(9) // 3) % 2  # 1: a grey box (four of nine)
    yy, xx = np.mgrid[0:9, 0:9].astype(np.float32)
    spot = 120.0 * np.exp(-((yy - 4) ** 2 + (xx - 1) ** 2) / 2.0)
    for grey_boxes in (box == 1, box == 0):  # four grey boxes, or five (the corners and the middle)
        for light, grey in ((243, 202), (200, 150), (235, 196)):
            levels = np.where(grey_boxes, grey, light) + rng.normal(0, 2, (9, 9))
            inked = rng.random((9, 9)) < 0.2
            levels[inked] -= rng.uniform(5, 60, int(inked.sum()))  # a digit's ink pulls its cell's level down
            levels = levels.astype(np.float32)
            assert box_lift(levels) is not None and not is_spot(levels)
            assert is_spot(np.minimum(levels + spot, 250.0).astype(np.float32))  # a glare on such a page
    levels = np.where(box == 1, 202.0, 243.0).astype(np.float32)
    assert glare_gain(levels, levels) is None
    # drawn: dark print in every cell, half the white cells' paper a little darker (a blur of their print, as in
    # the video), so the page's typical paper is under ``bright_paper``: the grey boxes' print as inked as the rest
    cell = 40
    uneven_white = np.where((box == 0) & (np.add.outer(np.arange(9), np.arange(9)) % 2 == 1), 230.0, levels)
    page = np.kron(uneven_white, np.ones((cell, cell), np.float32)).astype(np.uint8)
    for r, c in np.ndindex(9, 9):
        cv2.putText(page, "8", (c * cell + 10, r * cell + 32), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 60, 3)
    corners = np.float32([[0, 0], [9 * cell, 0], [9 * cell, 9 * cell], [0, 9 * cell]])
    assert (quick_ink(page, corners, expect=np.ones(81, bool)) > 0.5).all()
    # a page without boxes at two levels is judged by its rows' and columns' light alone, a glare on it too
    assert box_lift(np.full((9, 9), 200.0, np.float32)) is None
    glared = np.minimum(160.0 + 2 * spot, 250.0).astype(np.float32)
    assert box_lift(glared) is None and is_spot(glared) and glare_gain(glared, glared) is not None
    assert CELLS.light_boxes >= 3  # a lamp's spot of max_spot cells lifts two boxes' levels at most


@pytest.mark.parametrize("n", [4, 6, 16])
def test_a_grid_of_another_size_in_uneven_light_is_normalised_as_a_shadowed_one(n):
    """A 4 x 4, 6 x 6 or 16 x 16 grid's cells are no 9 x 9 page of spots: a span of twice over is a shadow,
    judged by the span alone (a review caught the first ``uneven`` failing on them)."""
    from ar_sudoku.vision.cells import normalise

    cell = 32
    page = np.tile(np.linspace(70, 200, n * cell, dtype=np.float32), (n * cell, 1))
    page[cell // 2: cell // 2 + 2, :] = 20.0  # a stroke across the first row of cells
    norm = normalise(page.astype(np.uint8), cell)
    assert norm.shape == page.shape and float(norm[cell // 2, cell * (n - 1) + cell // 2]) > 0.5


@pytest.mark.parametrize("angle", [0, 15, 75, 90])
def test_a_shaking_hands_streak_near_the_grids_lines_makes_its_edges_uneven_and_dim_light_does_not(angle):
    """(A streak near 45 degrees blurs both ways alike: those frames are still read, as before.)"""
    corners = np.float32([[0, 0], [359, 0], [359, 359], [0, 359]])
    page = _inked_page(set(range(0, 81, 3)), set(range(1, 81, 3)))
    sharp = evenness(page, corners)
    n = 25  # a 12 px streak at the scale the locator works on (the grid here is 360 px, not 450)
    k = np.zeros((n, n), np.float32)
    c, dx, dy = n // 2, 12 * math.cos(math.radians(angle)), 12 * math.sin(math.radians(angle))
    cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA)
    streaked = cv2.filter2D(page, -1, k / k.sum())
    assert evenness(streaked, corners) < 0.93 * sharp  # the locator's BLUR: this frame is not read
    dim = np.clip(page.astype(np.float32) * 0.25 + np.random.default_rng(0).normal(0, 3, page.shape), 0, 255)
    assert evenness(dim.astype(np.uint8), corners) > 0.93 * sharp


def test_digits_a_line_runs_through_are_read_and_the_line_is_no_digit_in_the_empty_cells_it_crosses(reader):
    """A line across the digits of a row and down a column (a fold, a rule printed through the grid, as
    image1049's bottom row has) is taken off them: each digit it merges with is kept and read, and what
    the line leaves in the empty cells it crosses is not read as a digit."""
    from ar_sudoku.vision.synth import page

    img, corners = page(PUZZLE)
    gray = to_gray(img)
    x0, y0 = corners[0]
    cell = (corners[1][0] - x0) / 9
    low = int(y0 + 8.72 * cell)  # through the bottom row's digits, below their middles
    cv2.line(gray, (int(x0), low), (int(x0 + 9 * cell), low), 60, 5)
    left = int(x0 + 1.5 * cell)  # down the second column, through its digits
    cv2.line(gray, (left, int(y0)), (left, int(y0 + 9 * cell)), 60, 5)
    crossed = [72 + c for c in range(9)] + [9 * r + 1 for r in range(9)]
    assert any(PUZZLE[i] != "." for i in crossed) and any(PUZZLE[i] == "." for i in crossed)
    cuts = cut_cells(warp_grid(gray, corners))
    assert reader.read(cuts).givens == PUZZLE

"""Two puzzles of one size side by side, their outlines merged with the page's rules: each is rebuilt from its own
boxes (``grid.by_pieces_apart``), and squares of another kind (a calendar) are not taken for a grid."""

from __future__ import annotations

import cv2
import numpy as np
from conftest import EASY

from ar_sudoku.vision import curled, quads
from ar_sudoku.vision.grid import find_grid
from ar_sudoku.vision.page_grids import find_page_grids
from ar_sudoku.vision.render import BLACK, draw_grid_lines, put_centered

CELL = 36


def _puzzle(img: np.ndarray, puzzle: str, x0: int, y0: int) -> None:
    for i, ch in enumerate(puzzle):
        if ch != ".":
            r, c = divmod(i, 9)
            put_centered(img, ch, (x0 + (c + 0.5) * CELL, y0 + (r + 0.5) * CELL), CELL * 0.55, BLACK)
    draw_grid_lines(img, (x0, y0), CELL)


def _ruled(img: np.ndarray, y0: int) -> np.ndarray:
    """Rules across the page through the boxes' lines: no outline on the page is a grid's alone."""
    for y in (y0 + 3 * CELL, y0 + 6 * CELL):
        cv2.line(img, (0, y), (img.shape[1] - 1, y), BLACK, 3)
    return img


def _page_of_two() -> np.ndarray:
    """A whole puzzle and, beside it, one of the same size cut by the frame's right edge."""
    img = np.full((540, 960, 3), 240, np.uint8)
    _puzzle(img, EASY, 60, 90)
    _puzzle(img, EASY[::-1], 700, 90)
    return _ruled(img, 90)


def test_the_whole_puzzle_beside_a_cut_one_of_its_size_is_found_from_its_own_boxes():
    img = _page_of_two()
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(gray, (640, 360), interpolation=cv2.INTER_AREA)
    pieces = curled._pieces(quads.binarize(small), 0.02 * small.size)
    # all the boxes of that size, of both puzzles, make no grid: their hull holds two
    assert curled._from_pieces(pieces, small, 0.25, 0.02 * small.size) is None
    truth = np.float32([[60, 90], [60 + 9 * CELL, 90], [60 + 9 * CELL, 90 + 9 * CELL], [60, 90 + 9 * CELL]])
    for found in (find_grid(img, allow_cut=False, precise=False), find_page_grids(img).grids[0]):
        assert found is not None and found.score >= 0.45
        assert np.abs(found.corners - truth).max() < 0.25 * CELL  # the inside of the border, a few px in


def test_squares_of_a_calendar_beside_the_puzzle_are_no_grid():
    # two tables of 3x3 squares of a puzzle's box size: each a lattice of nine pieces, neither a puzzle's lines
    img = np.full((540, 960, 3), 240, np.uint8)
    box = 3 * CELL
    for x0 in (60, 560):
        for r in range(3):
            for c in range(3):
                x, y = x0 + c * box, 90 + r * box
                cv2.rectangle(img, (x, y), (x + box, y + box), BLACK, 2)
                put_centered(img, str(1 + 3 * r + c), (x + box / 4, y + box / 4), CELL * 0.5, BLACK)
    _ruled(img, 90)
    assert find_grid(img) is None
    assert find_page_grids(img).grids == []

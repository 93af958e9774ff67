"""Puzzles printed in colour (red or blue givens and lines), with a thick outer border or faint lines, are found
and read as print: no given taken for a pen's entry."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from conftest import EASY

from ar_sudoku.ar.photo import analyse
from ar_sudoku.vision.kinds import KindReader
from ar_sudoku.vision.render import draw_grid_lines, put_centered
from ar_sudoku.vision.synth import background, place

QUAD = np.float32([[340, 100], [940, 110], [930, 700], [330, 690]])
BLACK, RED, BLUE, GREY = (0, 0, 0), (30, 30, 200), (160, 60, 0), (190, 190, 190)


def _digits(colour: tuple[int, int, int], cell: int, margin: int) -> np.ndarray:
    """EASY's givens printed in ``colour`` on paper, no lines yet."""
    side = 9 * cell
    img = np.full((side + 2 * margin, side + 2 * margin, 3), 245, np.uint8)
    for i, ch in enumerate(EASY):
        if ch != ".":
            r, c = divmod(i, 9)
            put_centered(img, ch, (margin + (c + 0.5) * cell, margin + (r + 0.5) * cell), cell * 0.55, colour)
    return img


def _page(digits: tuple[int, int, int], lines: tuple[int, int, int], border: int,
          cell: int = 60, margin: int = 90) -> tuple[np.ndarray, np.ndarray]:
    side = 9 * cell
    img = _digits(digits, cell, margin)
    draw_grid_lines(img, (margin, margin), cell, color=lines)
    if border:
        cv2.rectangle(img, (margin, margin), (margin + side, margin + side), lines, border)
    return img, np.float32([[margin, margin], [margin + side, margin], [margin + side, margin + side],
                            [margin, margin + side]])


@pytest.mark.parametrize("digits, lines, border", [(RED, BLACK, 0), (RED, RED, 0), (BLUE, BLUE, 0),
                                                   (BLACK, BLACK, 14), (BLACK, GREY, 0)],
                         ids=["red givens", "all red", "all blue", "thick outer border", "faint lines"])
def test_a_puzzle_printed_in_colour_or_with_odd_borders_is_found_and_read_as_print(digits, lines, border, reader):
    img, corners = _page(digits, lines, border)
    frame = place(img, corners, QUAD, background((1280, 800), 1), blur=0.7)
    res = analyse(frame, reader, kinds=KindReader()).result
    assert res.status == "solved" and res.givens == EASY
    assert res.corners is not None and float(np.abs(res.corners - QUAD).max()) < 10
    assert res.written is not None and "e" not in res.written.cells and res.written.mistakes(res.solution) == ()


def _bordered(border: tuple[int, int, int], width: int, cell: int = 60, margin: int = 90) -> tuple[np.ndarray,
                                                                                                  np.ndarray]:
    """EASY printed in black with its outer border alone drawn ``width`` px wide in ``border`` (outside the grid)."""
    side = 9 * cell
    img = _digits(BLACK, cell, margin)
    for k in range(1, 9):
        t = max(3, cell // 10) if k % 3 == 0 else max(1, cell // 30)
        cv2.line(img, (margin + k * cell, margin), (margin + k * cell, margin + side), BLACK, t)
        cv2.line(img, (margin, margin + k * cell), (margin + side, margin + k * cell), BLACK, t)
    h = width // 2
    cv2.rectangle(img, (margin - h, margin - h), (margin + side + h, margin + side + h), border, width)
    return img, np.float32([[margin, margin], [margin + side, margin], [margin + side, margin + side],
                            [margin, margin + side]])


@pytest.mark.parametrize("border, width", [((185, 185, 185), 1), ((0, 0, 0), 40)],
                         ids=["faint thin outer border", "very thick outer border"])
def test_a_faint_thin_or_a_very_thick_outer_border_gives_the_grid_flat_and_in_place(border, width, reader):
    """A hairline grey border (the outline broken at the search's size: the grid is fitted from its inner
    lines, and a corner pulled off the faint border is no curl) or one two thirds of a cell thick."""
    img, corners = _bordered(border, width)
    frame = place(img, corners, QUAD, background((1280, 800), 1), blur=0.7)
    res = analyse(frame, reader, kinds=KindReader()).result
    assert res.status == "solved" and res.givens == EASY
    cell = 600 / 9
    assert res.corners is not None and float(np.abs(res.corners - QUAD).max()) < 0.25 * cell
    assert res.lattice is not None and float(np.abs(res.lattice[0, 0] - QUAD[0]).max()) < 0.25 * cell

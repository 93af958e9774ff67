"""A grid's size from its lines (``vision.sizes.line_structure``, issue 58): cell lines printed faint, and pages of
the second, independent generator (``scripts/sized_pages_b.py``, never tuned on)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ar_sudoku.sudoku.solver import parse_line, solve
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.kinds import KindReader
from ar_sudoku.vision.reading import process_images
from ar_sudoku.vision.sizes import line_structure


def test_a_sixteen_by_sixteen_grid_of_grey_hairlines_is_counted_by_its_box_lines():
    """A flat 16x16 grid whose cell lines are grey 230 (its 4x4 boxes' lines black): a 16x16 grid, or a 4x4 one
    (its boxes taken for cells) that may be 16x16, never nothing."""
    import sized_pages

    font = sized_pages.page_fonts()
    if not font:
        pytest.skip("no DejaVu or Liberation face installed")
    givens = "1" + "." * 255
    img = sized_pages.printed(givens, (4, 4), "1-9A-G", 30, font[0], faint=230)
    gray = img[..., 0]
    side = 16 * 30
    quad = np.float32([[4, 4], [4 + side, 4], [4 + side, 4 + side], [4, 4 + side]])
    n, box, _, other = line_structure(gray, quad)
    assert (n, box) == (16, (4, 4)) or (n, other) == (4, 16)


@pytest.mark.parametrize(("box", "style", "seed"), [((4, 4), "1-16", 3), ((4, 4), "0-F", 5), ((2, 3), "1-9", 1)])
def test_a_page_of_the_second_generator_is_read_at_its_size_and_solved(box, style, seed):
    """Generator B's pages (Pillow, other faces and rules, another camera): read at their own size, fully right."""
    import sized_pages_b

    if not sized_pages_b.faces():
        pytest.skip("none of generator B's faces is installed")
    page = sized_pages_b.sized_page_b(box, style, random.Random(seed))
    results, _ = process_images(page.image, DigitReader(), kinds=KindReader())
    truth = solve(parse_line(page.givens, box=box), 10.0).solution
    assert len(results) == 1 and results[0].box == box and results[0].givens == page.givens
    assert results[0].solution == truth and results[0].symbols == style


@pytest.mark.parametrize("seed", [0, 1])
def test_a_sixteen_by_sixteen_page_whose_cell_lines_are_grey_is_read_as_sixteen_by_sixteen(seed):
    """Generator A's 16x16 page with its cell lines printed grey 230 (its boxes' lines black), photographed:
    before, its lines scored under the bar and the page was searched as a 9x9 puzzle, unsolvable."""
    import sized_pages

    page = sized_pages.sized_page((4, 4), "1-9A-G", random.Random(f"faint {seed}"), faint=230)
    results, _ = process_images(page.image, DigitReader(), kinds=KindReader())
    assert len(results) == 1 and results[0].size == 16 and results[0].givens == page.givens
    assert results[0].status == "solved"

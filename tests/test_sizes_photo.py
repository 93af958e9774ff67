"""Issue 24: photos of 4x4, 6x6 (2x3 and turned 3x2 boxes) and 16x16 grids found, read and solved.

The pages are generated puzzles printed in a face the symbol model never trained on, photographed
(perspective, a slight bow, uneven light, blur, noise: ``scripts/sized_pages.py``), written to a file and
read by the real command in its own process."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from ar_sudoku.sudoku.solver import SYMBOLS, parse_line, solve
from ar_sudoku.vision.render import draw_grid_lines
from ar_sudoku.vision.sizes import grid_side, styled

ROOT = Path(__file__).resolve().parents[1]


def _photo(tmp_path: Path, box: tuple[int, int], style: str, seed: int) -> tuple[Path, object]:
    import sized_pages

    page = sized_pages.sized_page(box, style, random.Random(seed))
    path = tmp_path / f"page_{box[0]}x{box[1]}_{seed}.jpg"
    assert cv2.imwrite(str(path), page.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path, page


def _image(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ar_sudoku", "image", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def _solution(givens: str, box: tuple[int, int]) -> str:
    res = solve(parse_line(givens, box=box), 10.0)
    assert res.solution
    return res.solution


@pytest.mark.parametrize("box", [(2, 2), (2, 3), (3, 2), (4, 4)])
def test_a_flat_grid_of_each_size_is_counted_by_its_lines_and_its_thick_lines_give_the_boxes(box):
    n = box[0] * box[1]
    cell = 480 // n
    img = np.full((n * cell + 40, n * cell + 40), 255, np.uint8)
    draw_grid_lines(img, (20, 20), cell, box=box)
    quad = np.float32([[20, 20], [20 + n * cell, 20], [20 + n * cell, 20 + n * cell], [20, 20 + n * cell]])
    side, found_box, score = grid_side(img, quad)
    assert (side, found_box) == (n, box)
    assert score > 0.5


@pytest.mark.parametrize("box,seed", [((2, 3), 1), ((3, 2), 2), ((2, 2), 3)])
def test_a_photographed_six_by_six_or_four_by_four_page_is_read_and_solved_by_the_image_command(tmp_path, box, seed):
    path, page = _photo(tmp_path, box, "1-9", seed)
    done = _image(str(path), "--json")
    assert done.returncode == 0, done.stderr
    (obj,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert obj["givens"] == page.givens
    assert obj["solution"] == _solution(page.givens, box)
    assert (obj["size"], obj["box"], obj["symbols"], obj["status"]) == (box[0] * box[1], f"{box[0]}x{box[1]}",
                                                                        "1-9", "solved")
    assert obj["puzzle"] == 0 and len(obj["confidence"]) == len(page.givens)
    # the corners found are the centres of the printed grid's outer lines
    cell = float(np.linalg.norm(page.corners[0] - page.corners[1])) / (box[0] * box[1])
    assert float(np.abs(np.asarray(obj["corners"]) - page.corners).max()) < 0.1 * cell


@pytest.mark.parametrize("style,seed", [("1-9A-G", 4), ("0-F", 5), ("1-16", 6)])
def test_a_photographed_sixteen_by_sixteen_page_is_read_in_the_symbols_it_prints(tmp_path, style, seed):
    path, page = _photo(tmp_path, (4, 4), style, seed)
    done = _image(str(path), "--json")
    assert done.returncode == 0, done.stderr
    (obj,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert (obj["size"], obj["box"], obj["symbols"], obj["status"]) == (16, "4x4", style, "solved")
    assert obj["givens"] == page.givens  # the solver's symbols, whatever the page prints
    assert obj["solution"] == _solution(page.givens, (4, 4))


def test_the_text_output_and_the_annotated_photo_answer_in_the_pages_own_style(tmp_path):
    path, page = _photo(tmp_path, (4, 4), "1-16", 7)
    out = tmp_path / "solved.png"
    done = _image(str(path), "-o", str(out))
    assert done.returncode == 0, done.stderr
    solution = _solution(page.givens, (4, 4))
    # the first row of the solution as the page prints it: numbers up to 16, never letters
    first = styled(solution[:16], "1-16")
    row = next(line for line in done.stdout.splitlines() if line.startswith("|") and line.count("|") > 8)
    assert [t for t in row.split("|   |")[-1].split() if t != "|"] == first  # the solution's side
    assert not any(ch in done.stdout for ch in "ABCDEFG")
    # answers are drawn in the blank cells only: the answers' green (as on a 9x9 grid) appears where the page had none
    before, after = cv2.imread(str(path)), cv2.imread(str(out))
    hmat = cv2.getPerspectiveTransform(np.float32([[0, 0], [16, 0], [16, 16], [0, 16]]), page.corners)
    ink = (after[..., 1].astype(int) - after[..., 2].astype(int) > 60) & ~(
        before[..., 1].astype(int) - before[..., 2].astype(int) > 60)
    for i, ch in enumerate(page.givens):
        x, y = cv2.perspectiveTransform(np.float32([[[i % 16 + 0.5, i // 16 + 0.5]]]), hmat)[0, 0]
        near = ink[int(y) - 6:int(y) + 7, int(x) - 6:int(x) + 7]
        assert near.any() == (ch == "."), f"cell {i} ({ch})"


def test_a_misread_given_that_clashes_is_settled_by_its_second_likeliest_reading_and_only_then():
    from ar_sudoku.sudoku.vocabulary import Status
    from ar_sudoku.vision.sizes import settle

    puzzle = "1.........23.315....4.......4.6....2"  # tests/test_sizes.py's SIX (2x3 boxes)
    values = np.array([SYMBOLS.index(ch) + 1 if ch != "." else 0 for ch in puzzle])
    conf = np.where(values > 0, 0.99, 1.0)
    likely = {int(i): [int(values[i])] for i in np.flatnonzero(values)}
    misread = values.copy()
    misread[10] = 3  # r2c5 printed 2, read (unsurely) as 3: it clashes with r2c6's 3
    conf[10] = 0.6
    likely[10] = [3, 2]
    status, fixed, solution, _ = settle(misread, conf, likely, (2, 3), 1.0)
    assert status == Status.SOLVED and list(fixed) == list(values)
    assert solution == _solution(puzzle, (2, 3))
    # with no second reading to offer: left unknown, the cell leaves several solutions, and its surely read
    # neighbour is not overturned instead (that would solve, as another puzzle): nothing is invented
    likely[10] = [3]
    status, kept, solution, message = settle(misread, conf, likely, (2, 3), 1.0)
    assert status == Status.INVALID and solution is None and list(kept) == list(misread) and "both" in message
    # a surely read reading that breaks the rules is reported as read, with why
    broken = values.copy()
    broken[1] = 1  # r1c2 read 1 (surely) beside r1c1's 1
    status, kept, solution, message = settle(broken, np.full(36, 0.99), {}, (2, 3), 1.0)
    assert status == Status.INVALID and solution is None and list(kept) == list(broken) and "both" in message


def test_a_nine_by_nine_photo_keeps_every_field_and_gains_its_size(tmp_path):
    done = _image(str(ROOT / "samples" / "photo.jpg"), "--json")
    (obj,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert (obj["size"], obj["box"], obj["symbols"]) == (9, "3x3", "1-9")
    for key in ("path", "corners", "lattice", "givens", "confidence", "solution", "status", "message", "ms",
                "cells", "entries", "candidates", "mistakes", "doubts", "unreadable", "puzzle"):
        assert key in obj
    assert len(obj["givens"]) == 81 and set(obj["givens"]) <= set(SYMBOLS[:9] + ".")


def test_a_page_of_a_nine_by_nine_puzzle_and_a_six_by_six_one_beside_it_reads_and_solves_both(tmp_path):
    """A newspaper's puzzle corner: a 9x9 puzzle and a children's 6x6 side by side. The 6x6 grid, read as 9x9,
    has several solutions; read for what it is, it solves, and both are answered, left to right."""
    import eval_page
    import sized_pages

    nine = eval_page.rendered_page(1, random.Random(3), size=(960, 720))
    six = sized_pages.sized_page((2, 3), "1-9", random.Random(1), size=(960, 720))
    path = tmp_path / "corner.jpg"
    assert cv2.imwrite(str(path), np.hstack([nine.image, six.image]), [cv2.IMWRITE_JPEG_QUALITY, 92])
    done = _image(str(path), "--json")
    assert done.returncode == 0, done.stderr
    got = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(p["puzzle"], p["size"], p["status"]) for p in got] == [(0, 9, "solved"), (1, 6, "solved")]
    assert got[0]["givens"] == nine.givens[0] and got[1]["givens"] == six.givens
    assert got[1]["solution"] == _solution(six.givens, (2, 3))


def test_a_four_by_four_puzzle_beside_a_solved_nine_by_nine_one_is_found_although_no_nine_by_nine_search_sees_it(
        tmp_path):
    """The 9x9 puzzle solves, so nothing asks for another size; but its neighbour's outline looked like a grid
    and held no 9x9 one (``grid.find_page_grids``'s ``unlike``): that alone sends the page to the sizes' search."""
    import eval_page
    import sized_pages
    from ar_sudoku.vision.page_grids import find_page_grids

    rng = random.Random(1)
    nine = eval_page.rendered_page(1, rng, size=(960, 720))
    four = sized_pages.sized_page((2, 2), "1-9", rng, size=(960, 720))
    image = np.hstack([nine.image, four.image])
    page = find_page_grids(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    assert len(page.grids) == 1 and page.unlike  # the 9x9 search alone finds the 9x9 puzzle only
    path = tmp_path / "corner.png"
    assert cv2.imwrite(str(path), image)
    done = _image(str(path), "--json")
    assert done.returncode == 0, done.stderr
    got = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(p["puzzle"], p["size"], p["status"]) for p in got] == [(0, 9, "solved"), (1, 4, "solved")]
    assert got[1]["givens"] == four.givens and got[1]["solution"] == _solution(four.givens, (2, 2))


@pytest.mark.data
def test_a_nine_by_nine_photo_alone_has_no_outline_sending_it_to_the_sizes_search():
    """The sizes' search is paid only where an outline asks for it: a lone newspaper puzzle has none."""
    from conftest import PHOTOS, need

    from ar_sudoku.vision.page_grids import find_page_grids

    photo = cv2.imread(str(need(PHOTOS / "printed" / "image1.jpg")))
    page = find_page_grids(cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY))
    assert len(page.grids) == 1 and not page.unlike


def _turned(point: np.ndarray, k: int, shape: tuple[int, ...]) -> np.ndarray:
    """Where ``np.rot90(image, k)`` puts a point (x, y) of ``image`` (k = 1: a quarter turn to the left)."""
    h, w = shape[:2]
    x, y = point
    return {1: np.array([y, w - 1 - x]), 2: np.array([w - 1 - x, h - 1 - y]), 3: np.array([h - 1 - y, x])}[k]


@pytest.mark.parametrize("box,style,seed,k", [((2, 3), "1-9", 0, 1), ((2, 2), "1-9", 1, 2), ((4, 4), "0-F", 0, 3)])
def test_a_page_of_another_size_photographed_sideways_or_upside_down_is_read_the_right_way_up(
        tmp_path, box, style, seed, k):
    """Its symbols read unsurely upright, so each quarter turn is read and the one that reads best is
    settled: the givens, the answer and the first corner (the puzzle's own top-left) are the page's."""
    import sized_pages

    page = sized_pages.sized_page(box, style, random.Random(seed))
    path = tmp_path / "turned.png"
    assert cv2.imwrite(str(path), np.ascontiguousarray(np.rot90(page.image, k)))
    done = _image(str(path), "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.splitlines()[0])
    assert (got["status"], got["size"], got["givens"]) == ("solved", box[0] * box[1], page.givens)
    assert got["solution"] == _solution(page.givens, box)
    top_left = _turned(page.corners[0], k, page.image.shape)
    assert np.linalg.norm(np.asarray(got["corners"][0]) - top_left) < 0.05 * page.image.shape[1]


def test_a_correction_reaches_the_six_by_six_puzzle_it_names_on_a_page_beside_a_nine_by_nine_one(tmp_path):
    """``--set 1:rRcC=D`` is puzzle 1's on the whole page (the 6x6 one, right of the 9x9): the 6x6 reading
    takes it as sure, the 9x9 one is left as read; a cell off the 6x6 grid is said, not put elsewhere."""
    import eval_page
    import sized_pages

    nine = eval_page.rendered_page(1, random.Random(3), size=(960, 720))
    six = sized_pages.sized_page((2, 3), "1-9", random.Random(1), size=(960, 720))
    path = tmp_path / "corner.png"
    assert cv2.imwrite(str(path), np.hstack([nine.image, six.image]))
    i = six.givens.index(".")
    value = _solution(six.givens, (2, 3))[i]
    row, col = divmod(i, 6)
    done = _image(str(path), "--json", "--set", f"1:r{row + 1}c{col + 1}={value}", "--set", "1:r8c8=1")
    assert done.returncode == 0, done.stderr
    got = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(p["size"], p["status"]) for p in got] == [(9, "solved"), (6, "solved")]
    assert got[0]["givens"] == nine.givens[0]
    assert got[1]["givens"] == six.givens[:i] + value + six.givens[i + 1:]
    assert "r8c8=1" in got[1]["message"]

"""Print against handwriting for the page (``vision.page_print``, issue 58): print taken for a hand is print again
on pages drawn in faces the cell-kind model half takes for handwriting (``scripts/print_pages.py``), and real
handwriting stays handwriting."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from conftest import SHARED, need

from ar_sudoku.vision.entries import cell_region, ink_height
from ar_sudoku.vision.kinds import CELL, ENTRY, GIVEN, MARGIN, CellKinds, KindReader, grid_views
from ar_sudoku.vision.page_print import print_alike


class _Heights:
    """Digit heights measured on the square as ``writing.EntryOpinion.heights`` measures them."""

    def __init__(self, square: np.ndarray):
        self.square = square

    def heights(self, cells: list[int], flat: bool = False) -> list[int]:
        return [ink_height(cell_region(self.square, i)) for i in cells]


def _square(printed: dict[int, str], written: dict[int, str]) -> np.ndarray:
    """A 9 x 9 grid seen square-on: ``printed`` in one face at one place, ``written`` by a 'hand' (a script face,
    each digit of its own size, slant and place)."""
    side = 9 * CELL + 2 * MARGIN
    sq = np.full((side, side), 235, np.uint8)
    for k in range(10):
        t = 3 if k % 3 == 0 else 1
        cv2.line(sq, (MARGIN + k * CELL, MARGIN), (MARGIN + k * CELL, side - MARGIN), 30, t)
        cv2.line(sq, (MARGIN, MARGIN + k * CELL), (side - MARGIN, MARGIN + k * CELL), 30, t)
    rng = np.random.default_rng(3)
    for i, d in printed.items():
        x, y = MARGIN + (i % 9) * CELL + 17, MARGIN + (i // 9) * CELL + 46
        cv2.putText(sq, d, (x, y), cv2.FONT_HERSHEY_DUPLEX, 1.4, 30, 3, cv2.LINE_AA)
    for i, d in written.items():
        dx, dy = rng.integers(-6, 7, 2)
        x, y = MARGIN + (i % 9) * CELL + 16 + int(dx), MARGIN + (i // 9) * CELL + 44 + int(dy)
        cv2.putText(sq, d, (x, y), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, float(rng.uniform(1.0, 1.6)), 30,
                    int(rng.integers(2, 4)), cv2.LINE_AA)
    noise = np.random.default_rng(1).normal(0, 1.5, sq.shape)
    return np.clip(sq + noise, 0, 255).astype(np.uint8)


def _kinds(printed: dict[int, str], entries: dict[int, str]) -> CellKinds:
    """The kind model's say, as if it were sure of ``printed`` and took ``entries`` for a hand."""
    probs = np.zeros((81, 20), np.float32)
    probs[:, 0] = 1.0
    for i, d in printed.items():
        probs[i] = 0.0
        probs[i, int(d)] = 0.97
        probs[i, 0] = 0.03
    for i, d in entries.items():
        probs[i] = 0.0
        probs[i, 9 + int(d)] = 0.95
        probs[i, int(d)] = 0.05
    kinds = np.array([GIVEN if i in printed else ENTRY if i in entries else 0 for i in range(81)], np.int8)
    digits = np.array([int(printed.get(i, entries.get(i, 0))) for i in range(81)], np.int8)
    return CellKinds(kinds, digits, probs, probs.max(axis=1))


PRINTED = {0: "3", 4: "7", 8: "5", 13: "3", 20: "2", 24: "9", 30: "7", 31: "5", 40: "6", 50: "2", 56: "9", 60: "3",
           66: "8", 76: "6", 80: "4"}


def test_entries_printed_in_the_pages_face_are_its_print_and_a_hand_is_not():
    """Of the "entries", the 3 and 7 printed in the page's face match its sure 3s and 7s (a template), the two 8s
    of its print match each other (twins: no sure 8 to match), and the script hand's 3, 7 and 8s stay entries."""
    as_print = {22: "3", 44: "7", 10: "8", 70: "8"}
    hand = {2: "3", 16: "7", 38: "8", 62: "8"}
    square = _square({**PRINTED, **as_print}, hand)
    kinds = _kinds(PRINTED, {**as_print, **hand})
    out = print_alike(kinds, square, _Heights(square))
    assert {i for i in range(81) if out.kinds[i] == GIVEN} == set(PRINTED) | set(as_print)
    assert {i for i in range(81) if out.kinds[i] == ENTRY} == set(hand)
    assert all(int(out.digits[i]) == int(d) for i, d in as_print.items())


def test_a_page_with_too_little_sure_print_is_left_to_the_model():
    """Seven sure givens say no page's look (``PrintLook.least_print``): an "entry" printed like them stays."""
    printed = dict(list(PRINTED.items())[:7])
    square = _square({**printed, 22: "3"}, {})
    kinds = _kinds(printed, {22: "3"})
    assert print_alike(kinds, square, _Heights(square)) is kinds


def test_twins_join_too_little_sure_print_to_say_the_pages_look():
    """Seven sure givens alone say no page's look, nor do two pairs of twins; together they do (a face the model
    half takes for a hand, generator P's EB Garamond: seven sure givens and seven twins). The twins are print,
    and so is a lone 7 printed like the page's sure 7s; the script hand stays handwriting."""
    printed = {i: PRINTED[i] for i in (0, 4, 8, 13, 20, 30, 60)}  # three 3s: how alike the page prints a digit
    twins = {10: "8", 70: "8", 22: "4", 52: "4"}
    lone = {44: "7"}
    hand = {2: "3", 16: "7", 38: "8", 62: "8"}
    square = _square({**printed, **twins, **lone}, hand)
    kinds = _kinds(printed, {**twins, **lone, **hand})
    out = print_alike(kinds, square, _Heights(square))
    assert {i for i in range(81) if out.kinds[i] == GIVEN} == set(printed) | set(twins) | set(lone)
    assert {i for i in range(81) if out.kinds[i] == ENTRY} == set(hand)


@pytest.mark.data
@pytest.mark.parametrize("name", ["02_17_honor_view_10_0", "02_17_iphone_14_0"])
def test_a_pens_most_alike_digits_stay_handwriting(name):
    """Training photos of the handwritten-photos set whose pen 7s are the most alike of any hand's (0.95 within
    five pixels, smoothed): no written cell is made print."""
    import photos

    need(SHARED / "handwritten-photos")
    sample = next(s for s in photos.hw_photos() if s.name == name)
    image = cv2.imread(str(sample.path))
    seen = grid_views(image, sample.corners)
    reader = KindReader()
    kinds = reader.read(seen.views, seen.inks, noisy=seen.noisy)
    out = print_alike(kinds, seen.square, _Heights(seen.square))
    written = [i for i in range(81) if 10 <= sample.labels[i] <= 18]
    assert not any(out.kinds[i] == GIVEN and kinds.kinds[i] == ENTRY for i in written)


@pytest.mark.data
@pytest.mark.parametrize("seed", [0, 2])
def test_a_page_in_a_face_the_model_half_takes_for_a_hand_is_read_as_print_alone(seed):
    """A page of generator P in EB Garamond (its old-style figures: eight to eleven of its givens taken for
    handwriting before), photographed: its givens read exactly, solved, and nothing is called an entry."""
    import print_pages
    from ar_sudoku.vision.digits import DigitReader
    from ar_sudoku.vision.reading import process_images
    from scenes_b import PUZZLES, solve_checked

    faces = {f.stem: f for f in print_pages.print_faces()}
    if "EBGaramond08-Regular" not in faces:
        pytest.skip("fonts-ebgaramond is not installed")
    puzzles = [ln.strip() for ln in need(PUZZLES).read_text().splitlines() if len(ln.strip()) == 81]
    rng = np.random.default_rng([77, seed])
    puzzle = puzzles[int(rng.integers(len(puzzles)))]
    solution = solve_checked(puzzle)
    page = print_pages.draw_page(puzzle, solution, rng, 0.0, [faces["EBGaramond08-Regular"]])
    photo, _ = print_pages.photograph(page, rng, (1600, 1200))
    result = process_images(photo, DigitReader(), kinds=KindReader())[0][0]
    assert result.givens == puzzle and result.solution == solution
    assert result.written is not None and set(result.written.entries) == {"."}

"""The page's own print as a faded given's template (``vision.own_print``): a rendered grid, its print
faded by a glare's light as ``eval_robust.glare`` adds it (pixel = (1 - a) * page + a * white)."""

from __future__ import annotations

import cv2
import numpy as np

from ar_sudoku.vision.kinds import CELL, MARGIN
from ar_sudoku.vision.own_print import prefers, print_matches, print_read, print_seen, seen_in

PAPER, INK = 150, 40  # grey paper, as a newspaper under a lamp: room above it for a glare's light


def _lines() -> np.ndarray:
    """An empty 9 x 9 grid seen square-on, ``kinds.CELL`` px a cell with ``kinds.MARGIN`` around it."""
    side = 9 * CELL + 2 * MARGIN
    drawn = np.full((side, side), PAPER, np.uint8)
    for k in range(10):
        t = 3 if k % 3 == 0 else 1
        cv2.line(drawn, (MARGIN + k * CELL, MARGIN), (MARGIN + k * CELL, side - MARGIN), INK, t)
        cv2.line(drawn, (MARGIN, MARGIN + k * CELL), (side - MARGIN, MARGIN + k * CELL), INK, t)
    return drawn


def _square(digits: dict[int, str], lift: dict[int, float]) -> np.ndarray:
    """A 9 x 9 grid seen square-on with ``digits`` (cell: digit) printed in one font; ``lift``: per cell, the
    share of white a glare adds."""
    drawn = _lines()
    for i, d in digits.items():
        x, y = MARGIN + (i % 9) * CELL + 17, MARGIN + (i // 9) * CELL + 46
        cv2.putText(drawn, d, (x, y), cv2.FONT_HERSHEY_DUPLEX, 1.4, INK, 3, cv2.LINE_AA)
    page = drawn.astype(np.float32)
    rng = np.random.default_rng(1)
    alpha = np.zeros((9, 9), np.float32)
    for i, a in lift.items():
        alpha[i // 9, i % 9] = a
    alpha = np.pad(np.kron(alpha, np.ones((CELL, CELL), np.float32)), MARGIN)
    noise = rng.normal(0, 1.5, page.shape).astype(np.float32)  # a camera's
    return np.clip(page * (1 - alpha) + 255 * alpha + noise, 0, 255).astype(np.uint8)


GIVENS = {0: "3", 13: "3", 26: "3", 31: "7", 47: "7", 60: "7"}


def test_a_given_faded_to_a_twentieth_of_its_contrast_is_seen_a_blank_cell_is_not():
    """A 3 whose cell a glare lifts 95% of the way to white keeps 5.5 grey levels of stroke: it still matches the
    page's clear 3s. A blank cell beside it, lifted 98% (its camera noise as strong, by the light it has left, as
    the print would be), matches nothing."""
    faded, blank = 40, 41
    square = _square({**GIVENS, faded: "3"}, {faded: 0.95, blank: 0.98})
    givens = "".join(GIVENS.get(i, ".") for i in range(81))
    cover = np.zeros(81, np.float32)
    cover[[faded, blank]] = 0.95, 0.98
    assert list(print_seen(square, givens, {faded: "3", blank: "3"}, cover)) == [faded]


def test_the_reverse_pages_print_showing_through_a_blank_cell_is_not_the_pages_print():
    """A 3 printed on the other side of a thin page shows through a clear blank cell: its shape matches (0.9),
    but its strokes have an eighth of the print's contrast, and no glare took the rest. A digit the page shows
    nowhere clear (a 5) has no template, and its cell is not asked."""
    seen_through = 40
    front, back, paper = _square(GIVENS, {}), _square({seen_through: "3"}, {}), _square({}, {})
    square = np.clip(front + 0.12 * (back.astype(np.float32) - paper), 0, 255).astype(np.uint8)
    givens = "".join(GIVENS.get(i, ".") for i in range(81))
    assert print_seen(square, givens, {seen_through: "3"}, None) == {}
    assert print_seen(_square({**GIVENS, seen_through: "5"}, {}), givens, {seen_through: "5"}, None) == {}


def test_the_cells_in_doubt_are_no_template():
    """The doubted cells (and those a glare lifts) give no template: a page whose only clear 7s are in doubt
    asks nothing of them."""
    square = _square(GIVENS, {})
    givens = "".join(GIVENS.get(i, ".") for i in range(81))
    assert print_seen(square, givens, {31: "7"}, None, skip=(47, 60)) == {}
    assert list(print_seen(square, givens, {31: "7"}, None)) == [31]


def test_the_matches_of_every_digit_give_what_print_seen_gives():
    """``restore_unreadable`` asks ``print_matches`` of the doubted cells once and reads ``print_seen``'s answer
    from it (``seen_in``): the same templates, the same cells seen."""
    faded, blank = 40, 41
    square = _square({**GIVENS, faded: "3", 49: "7"}, {faded: 0.9, blank: 0.9, 49: 0.5})
    givens = "".join(GIVENS.get(i, ".") for i in range(81))
    cover = np.zeros(81, np.float32)
    cover[[faded, blank, 49]] = 0.9, 0.9, 0.5
    doubted = (faded, blank, 49)
    asked = {faded: "3", blank: "7", 49: "7"}
    seen = print_seen(square, givens, asked, cover, doubted)
    assert sorted(seen) == [faded, 49]
    assert seen_in(print_matches(square, givens, doubted, cover), asked) == seen


def test_the_print_tells_two_solutions_apart_only_by_a_margin_above_the_bar():
    """``prefers``: one solution over another when, where they differ, the print matches its digit ``READ_MARGIN``
    better and at least ``MATCH``, and nowhere the other's so. A digit the page prints nowhere clear (NaN) has no
    say, and a cell both fall short at says nothing."""
    matches = np.full((81, 9), np.nan, np.float32)
    matches[40, [2, 7]] = 0.8, 0.6  # r5c5: a 3's print, an 8's less so
    matches[41, [2, 7]] = 0.5, 0.45  # r5c6: neither
    one, other = ["1"] * 81, ["1"] * 81
    one[40], other[40] = "3", "8"
    one[41], other[41] = "8", "3"
    a, b = "".join(one), "".join(other)
    assert prefers(matches, (40, 41), a, b) and not prefers(matches, (40, 41), b, a)
    matches[41, [2, 7]] = 0.8, 0.55  # r5c6 now shows the 3 that ``other`` puts there: the print is torn
    assert not prefers(matches, (40, 41), a, b) and not prefers(matches, (40, 41), b, a)
    matches[40, 7] = np.nan  # the page prints no clear 8: r5c5 has no say
    assert prefers(matches, (40, 41), b, a)
    matches[40, [2, 7]] = 0.54, 0.3  # the better digit under the bar says nothing
    matches[41, [2, 7]] = 0.5, 0.5
    assert not prefers(matches, (40, 41), a, b)


def test_the_print_reads_a_faded_given_as_its_digit_and_a_digit_it_has_no_template_of_as_another():
    """``print_read``: a 7 a glare lifts half the way to white reads 7 against the page's 3s and 7s. A 5, which the
    page prints nowhere, reads as its likeliest look-alike: alone this is no reader, and ``unreadable_cells`` takes
    its word only where both models read the same digit."""
    faded, unknown = 49, 50
    square = _square({**GIVENS, faded: "7", unknown: "5"}, {faded: 0.5})
    givens = "".join(GIVENS.get(i, ".") for i in range(81))
    cover = np.zeros(81, np.float32)
    cover[faded] = 0.5
    read = print_read(square, givens, (faded, unknown), cover)
    assert read[faded] == "7" and read.get(unknown) != "5"


def test_the_print_breaks_a_tie_the_ink_leaves_but_never_overturns_the_ink():
    """``doubts._clear`` on a puzzle whose four doubted cells (r4c6, r4c9, r5c6, r5c9) form a rectangle the
    readable cells leave two ways round (1 3 / 3 1 or 3 1 / 1 3). With the ink even, the page's print of r5c6
    (a 3's, not a 1's) makes the reading's own way clear; where the ink makes the other way likelier (r4c6 reads
    3 at 0.5, 1 at 0.2), the print does not overturn it."""
    from conftest import EASY_SOLUTION

    from ar_sudoku.vision.doubts import _clear

    corners = [32, 35, 41, 44]
    givens = "".join("." if i in corners else d for i, d in enumerate(EASY_SOLUTION))
    assert [EASY_SOLUTION[i] for i in corners] == ["1", "3", "3", "1"]
    either = np.full((81, 9), 0.01, np.float32)
    either[corners, 0] = either[corners, 2] = 0.3  # each corner a 1 or a 3, even odds
    matches = np.full((81, 9), np.nan, np.float32)
    matches[41, [0, 2]] = 0.5, 0.8  # r5c6 shows the page's 3 better than its 1
    assert not _clear(EASY_SOLUTION, givens, corners, either, 1.0)
    assert _clear(EASY_SOLUTION, givens, corners, either, 1.0, matches)
    either[32, [0, 2]] = 0.2, 0.5  # the ink now prefers the other way round
    assert not _clear(EASY_SOLUTION, givens, corners, either, 1.0, matches)


def _drawn(cells: dict[int, tuple[str, int, int, int]]) -> np.ndarray:
    """A clean grid with ``cells`` (cell: digit, Hershey font, dx, dy): the print in one font at one place, a
    'hand' in another font, or the print standing off its place by (dx, dy) px."""
    drawn = _lines()
    for i, (d, font, dx, dy) in cells.items():
        x, y = MARGIN + (i % 9) * CELL + 17 + dx, MARGIN + (i // 9) * CELL + 46 + dy
        cv2.putText(drawn, d, (x, y), font, 1.4, INK, 3, cv2.LINE_AA)
    return drawn


PRINT, HAND = cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX


def test_print_is_like_the_pages_other_print_of_its_digit_a_hand_is_not():
    """``print_likeness``: a 3 in the page's font matches its other 3s (the cell left out of its own template)
    about as closely as they match each other; a 3 in a script hand matches them less than ``WRITING.like_print`` of
    that, and a digit printed only once has no template (``SOURCES``)."""
    from ar_sudoku.vision.own_print import print_likeness
    from ar_sudoku.vision.writing import WRITING

    printed = {0: "3", 13: "3", 26: "3", 31: "7", 47: "7", 60: "7", 70: "5"}
    cells = {i: (d, PRINT, 0, 0) for i, d in printed.items()}
    cells.update({40: ("3", PRINT, 0, 0), 41: ("3", HAND, 0, 0), 42: ("5", PRINT, 0, 0)})
    digits = np.zeros(81, np.int64)
    for i, (d, _, _, _) in cells.items():
        digits[i] = int(d)
    like = print_likeness(_drawn(cells), digits, list(printed), [0, 13, 40, 41, 42])
    own = np.median(like[[0, 13], 2])
    assert like[40, 2] > WRITING.like_print * own > like[41, 2]
    assert np.isnan(like[42, 4])  # one printed 5 alone is no template
    assert np.isnan(like[1]).all()  # not asked


def test_print_standing_off_its_place_is_not_the_print_where_it_stands():
    """With ``place``, the cell must show the print where the print stands: the same 7 drawn 7 px off matches
    the template as well a few pixels off, and not at its place."""
    from ar_sudoku.vision.own_print import print_likeness

    printed = {31: "7", 47: "7", 60: "7", 0: "3", 13: "3"}
    cells = {i: (d, PRINT, 0, 0) for i, d in printed.items()}
    cells.update({40: ("7", PRINT, 0, 0), 41: ("7", PRINT, 4, 4)})
    digits = np.zeros(81, np.int64)
    for i, (d, _, _, _) in cells.items():
        digits[i] = int(d)
    square = _drawn(cells)
    anywhere = print_likeness(square, digits, list(printed), [40, 41])
    at_place = print_likeness(square, digits, list(printed), [40, 41], place=2)
    assert anywhere[40, 6] > 0.9 and anywhere[41, 6] > 0.9
    assert at_place[40, 6] > 0.9 and at_place[41, 6] == 0.0


def test_a_short_given_whose_shape_is_the_pages_print_is_print():
    """``writing.shaped_as_print``: of cells a size rule would make handwriting, a print 7 is print by its shape
    against the page's surest 7s; a script hand's 7 is not; a digit printed too seldom is not judged."""
    from ar_sudoku.vision.kinds import CellKinds, decide
    from ar_sudoku.vision.writing import shaped_as_print

    printed = {31: "7", 47: "7", 60: "7", 0: "3", 13: "3", 26: "3"}
    cells = {i: (d, PRINT, 0, 0) for i, d in printed.items()}
    cells.update({40: ("7", PRINT, 0, 0), 41: ("7", HAND, 0, 0), 42: ("2", PRINT, 0, 0)})
    probs = np.zeros((81, 20), np.float32)
    probs[:, 0] = 1.0
    for i, (d, _, _, _) in cells.items():
        probs[i] = 0.0
        probs[i, int(d)] = 0.95 if i in printed else 0.6  # the page's print sure, the three asked not
        probs[i, 0] = 1.0 - probs[i].sum()
    kind, digit, confidence = decide(probs)
    kinds = CellKinds(kind, digit, probs, confidence)
    assert shaped_as_print(kinds, _drawn(cells), [40, 41, 42]) == {40}
    assert shaped_as_print(kinds, _drawn(cells), []) == set()

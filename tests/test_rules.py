"""The rules' repair of a misread puzzle (``sudoku.rules.check_reading``): the likeliest repair, not the smallest.

The readings are two of our training photos' in a dim room (sudoku-photos printed image21 under
``dim_dark``, mixed image42 under ``dim``), the models' odds of the cells that matter as they read them,
every other cell read surely as printed.
"""

from __future__ import annotations

import numpy as np

from ar_sudoku.sudoku.rules import Reading, check_reading
from ar_sudoku.sudoku.solver import parse_line, solve
from ar_sudoku.sudoku.vocabulary import Status

IMAGE21 = "6.1.85..4...3......89....2..1.......7.2.58..9...46.1...5..2.6........34...79...8."
IMAGE42 = "7.........214.5.8.....29..6.123.6.9.84....5......5....9....3..2......7.8.6..1.4.."


def _cell(name: str) -> int:
    return (int(name[1]) - 1) * 9 + int(name[3]) - 1


def reading(givens: str, odds: dict[str, dict[int, float]]) -> Reading:
    """``givens`` read surely (0.99, the rest spread evenly), but for the cells of ``odds`` (cell: digit: odds)."""
    probs = np.zeros((81, 10), np.float32)
    for i, ch in enumerate(givens):
        d = 0 if ch == "." else int(ch)
        probs[i] = 0.01 / 9
        probs[i, d] = 0.99
    for name, ps in odds.items():
        i = _cell(name)
        probs[i] = (1.0 - sum(ps.values())) / (10 - len(ps))
        for d, p in ps.items():
            probs[i, d] = p
    digits = probs.argmax(axis=1)
    return Reading(digits, probs.max(axis=1), probs)


def misread(givens: str, cells: dict[str, str]) -> str:
    out = list(givens)
    for name, d in cells.items():
        out[_cell(name)] = d
    return "".join(out)


def test_two_likely_misreads_are_repaired_rather_than_one_unlikely_one():
    # a dim room's 6 read as 5 and 5 read as 8 (row 1 then holds two 8s); an 8 read where a 9 stands would
    # also end the clash and solve one way: another puzzle, every answer drawn wrong
    seen = misread(IMAGE21, {"r1c1": "5", "r1c6": "8"})
    other = misread(seen, {"r1c6": "9"})
    assert solve(parse_line(other)).status == Status.SOLVED  # the smaller repair is a puzzle too
    result = check_reading(reading(seen, {"r1c1": {5: 0.443, 6: 0.376}, "r1c6": {8: 0.413, 5: 0.252, 9: 0.094}}))
    assert result.status == Status.SOLVED
    assert result.givens == IMAGE21
    assert set(result.corrected) == {"r1c1: 5->6", "r1c6: 8->5"}
    assert result.solution == solve(parse_line(IMAGE21)).solution


def test_one_misread_is_repaired_rather_than_two_that_are_together_a_little_likelier():
    # r3c9's 6 read as 8 (r3c9 and r8c9 both 8 in column 9); a 5 there and the right 8 below turned to 9
    # end the clash as well, at odds a little better than the one change
    seen = misread(IMAGE42, {"r3c9": "8"})
    odds = {"r3c9": {8: 0.471, 5: 0.306, 6: 0.114}, "r8c9": {8: 0.541, 9: 0.222, 5: 0.092}}
    two = misread(seen, {"r3c9": "5", "r8c9": "9"})
    assert solve(parse_line(two)).status == Status.SOLVED
    result = check_reading(reading(seen, odds))
    assert result.status == Status.SOLVED
    assert result.corrected == ("r3c9: 8->6",)
    assert result.givens == IMAGE42


def test_a_sure_misread_that_clashes_is_repaired_when_its_digit_has_some_odds():
    # image26 in a dim room: the 6 in r1c1 read as an 8 at 0.98, the 6 at 0.015; the clash (two 8s in
    # row 1 and in box 1) says one of three cells is misread, and only one digit in one of them solves
    seen = misread(IMAGE21, {"r1c1": "8"})
    result = check_reading(reading(seen, {"r1c1": {8: 0.978, 6: 0.0151}}))
    assert result.status == Status.SOLVED
    assert result.corrected == ("r1c1: 8->6",)
    assert result.givens == IMAGE21


def test_a_clash_no_digit_with_odds_ends_is_left_invalid():
    # the same clash, the reader seeing no 6 at all: nothing is guessed
    seen = misread(IMAGE21, {"r1c1": "8"})
    probs = {"r1c1": {8: 0.9999}}
    result = check_reading(reading(seen, probs))
    assert result.status == Status.INVALID
    assert result.solution is None


def test_a_reading_of_several_solutions_is_not_settled_by_taking_a_given_away():
    # r5c1's 7 missed (a blank at 0.55) and r9c3's 7 read surely as 3: the missed 7 filled in still leaves
    # several solutions, and with r5c5's clean 5 (0.62) taken away as well it solves one way, another puzzle's
    # (a page printed across its box lines, generator P: a wrong answer drawn on 78 frames). Taking a given away
    # only adds solutions: no repair of a reading of several solutions does it
    seen = misread(IMAGE21, {"r9c3": "3", "r5c1": "."})
    odds = {"r5c1": {0: 0.55, 7: 0.44}, "r5c5": {5: 0.62, 0: 0.30}, "r9c3": {3: 0.97}}
    wrong = misread(seen, {"r5c1": "7", "r5c5": "."})
    assert solve(parse_line(wrong)).status == Status.SOLVED  # the repair the rules took before: one solution
    assert solve(parse_line(wrong)).solution != solve(parse_line(IMAGE21)).solution
    result = check_reading(reading(seen, odds))
    assert not result.corrected
    assert result.solution is None or "several solutions" in result.message

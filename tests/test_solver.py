from __future__ import annotations

import random

import pytest
from conftest import EASY, EASY_SOLUTION, HARDEST, HARDEST_SOLUTION, PATHOLOGICAL, PUZZLES, SLOW, need
from hypothesis import given, settings
from hypothesis import strategies as st

from ar_sudoku.sudoku.generator import _full_grid
from ar_sudoku.sudoku.solver import (
    Board,
    PuzzleFormatError,
    count_solutions,
    is_solution,
    parse_line,
    parse_puzzle,
    parse_puzzles,
    solve,
    validate,
)


def test_classic_puzzles_have_their_known_solutions():
    assert solve(parse_line(EASY)).solution == EASY_SOLUTION
    assert solve(parse_line(HARDEST)).solution == HARDEST_SOLUTION


@pytest.mark.data
def test_a_17_clue_puzzle():
    line = need(PUZZLES / "17clue_1000.txt").read_text().splitlines()[0]
    board = parse_line(line)
    assert board.givens == 17
    res = solve(board)
    assert res.status == "solved" and is_solution(board, res.solution)
    assert count_solutions(board).count == 1


@pytest.mark.data
@pytest.mark.parametrize("name", ["easy50.txt", "hardest.txt", "top95.txt"])
def test_every_shared_puzzle_is_solved_correctly(name):
    for line in need(PUZZLES / name).read_text().split():
        board = parse_line(line)
        res = solve(board, timeout=5)
        assert res.status == "solved" and is_solution(board, res.solution), line


def test_zero_and_dot_blanks_are_the_same():
    assert parse_line(EASY).cells == parse_line(EASY.replace(".", "0")).cells


def test_grid_of_rows_and_multi_puzzle_files():
    rows = "\n".join(" ".join(EASY[r * 9 : r * 9 + 9].replace(".", "0")) for r in range(9))
    assert parse_puzzle(rows).cells == parse_line(EASY).cells
    text = f"# a comment\n{EASY}\n\n{HARDEST}\n{rows}\n"
    boards = parse_puzzles(text)
    assert [b.line for b in boards] == [2, 4, 5]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (EASY[:-1], "80 symbols"),
        (EASY[:40] + "x" + EASY[41:], "line 1, column 41: unexpected 'x'"),
        ("5 3 0 0 7 0 0 0 0\n6 0 0 1 9 5 0 0 0\n", "grid ends after 2 rows"),
        ("5 3 0 0 7 0 0 0\n", "8 values in a row"),
        (EASY + "\n" + "1 2 3 4 5 6 7 8 9\n" * 8 + "1 2 3 4 5 6 7 8 q", "line 10, column 17: unexpected 'q'"),
    ],
)
def test_bad_input_says_what_and_where(text, fragment):
    with pytest.raises(PuzzleFormatError, match=fragment.replace("(", r"\(")):
        parse_puzzles(text)


def test_conflicting_givens_are_named():
    bad = "55" + EASY[2:]
    conflicts = validate(parse_line(bad))
    assert any(str(c) == "r1c1 and r1c2 are both 5 in row 1" for c in conflicts)
    res = solve(parse_line(bad))
    assert res.status == "invalid" and "r1c1" in res.message


def test_no_solution():
    # valid givens, but r1c9 can take no digit (1-8 in its row, 9 in its column)
    p = "12345678." + "........9" + "." * 63
    assert not validate(parse_line(p))
    assert solve(parse_line(p)).status == "unsolvable"
    assert count_solutions(parse_line(p)).label == "0"


def test_norvigs_impossible_puzzle_is_proved_unsolvable():
    # 17 givens, no rule broken, no solution: cell-only branching took 120 s to prove it
    board = parse_line(PATHOLOGICAL)
    res = solve(board, timeout=5)
    assert res.status == "unsolvable" and res.message == "no solution"
    counted = count_solutions(board, timeout=5)
    assert counted.complete and counted.label == "0"


def _with_wrong_given(line: str, rng: random.Random) -> str:
    """A unique puzzle plus one given that breaks no rule but differs from its solution."""
    res = count_solutions(parse_line(line))
    assert res.count == 1 and res.first
    options = [
        line[:i] + d + line[i + 1 :]
        for i in range(len(line))
        if line[i] == "."
        for d in "123456789"
        if d != res.first[i]
    ]
    options = [p for p in options if not validate(parse_line(p))]
    return rng.choice(options)


@pytest.mark.data
@pytest.mark.parametrize("name", ["top95.txt", "hardest.txt", "17clue_1000.txt"])
def test_a_wrong_extra_given_is_proved_unsolvable(name):
    rng = random.Random(name)
    for line in need(PUZZLES / name).read_text().split()[:4]:
        p = _with_wrong_given(line, rng)
        assert solve(parse_line(p), timeout=5).status == "unsolvable", p
        assert count_solutions(parse_line(p), timeout=5).label == "0", p


def test_several_solutions_counted():
    assert count_solutions(parse_line("." * 81)).label == "2+"
    assert count_solutions(parse_line(EASY)).label == "1"


def test_deadline_ends_a_pathological_search():
    """A search of minutes ends at its deadline (the overrun is measured by scripts/bench_solver.py)."""
    res = solve(parse_line(SLOW), timeout=0.2)
    assert res.status == "timeout" and "timed out" in res.message
    assert count_solutions(parse_line("." * 81), limit=10**9, timeout=0.05).complete is False
    assert count_solutions(parse_line("." * 81), limit=10**9, timeout=0.05).label.endswith("(timed out)")


@pytest.mark.data
def test_cancel_stops_the_search():
    hard = parse_line(need(PUZZLES / "top95.txt").read_text().split()[0])
    assert solve(hard, cancel=lambda: True).status == "timeout"


def test_4x4_and_16x16():
    four = parse_line("1..." "..2." ".3.." "...4")
    res = solve(four)
    assert res.status == "solved" and is_solution(four, res.solution)
    sixteen = parse_line("." * 256)
    res = solve(sixteen, timeout=5)
    assert res.status == "solved" and is_solution(sixteen, res.solution)
    assert set(res.solution) == set("123456789ABCDEFG")
    with pytest.raises(PuzzleFormatError, match="expected 1-4"):
        parse_line("5" + "." * 15)
    assert solve(parse_line("12.." "..3." "...." "....")).status == "unsolvable"  # r2c1 and r2c2 both need the 4


def test_sparse_16x16_puzzles():
    # 52 givens each, digits relabelled so the search order differs; the branch on a
    # digit's two places runs most on boards this open, so keep it covered here
    full = solve(parse_line("." * 256), timeout=5).solution
    rng = random.Random(7)
    for _ in range(4):
        relabel = dict(zip("123456789ABCDEFG", rng.sample("123456789ABCDEFG", 16), strict=True))
        cells = [relabel[c] for c in full]
        for i in rng.sample(range(256), 204):
            cells[i] = "."
        board = parse_line("".join(cells))
        res = solve(board, timeout=10)
        assert res.status == "solved" and is_solution(board, res.solution)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), holes=st.integers(30, 64))
def test_hidden_cells_of_random_grids(seed, holes):
    rng = random.Random(seed)
    grid = _full_grid(rng)
    cells = list(grid)
    for i in rng.sample(range(81), holes):
        cells[i] = "."
    board = parse_line("".join(cells))
    res = solve(board, timeout=5)
    assert res.status == "solved"
    assert is_solution(board, res.solution)
    if count_solutions(board).count == 1:
        assert res.solution == grid


def test_board_helpers():
    b = parse_line(EASY)
    assert isinstance(b, Board) and b.to_string() == EASY
    assert b.pretty().count("\n") == 12

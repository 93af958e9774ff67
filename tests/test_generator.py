from __future__ import annotations

import pytest
from conftest import EASY, HARDEST

from ar_sudoku.sudoku.generator import LEVELS, generate, rate
from ar_sudoku.sudoku.solver import count_solutions, is_solution, parse_line


@pytest.mark.parametrize("level", LEVELS)
def test_generated_puzzles_are_unique_and_rated(level):
    p = generate(level, seed=7)
    board = parse_line(p.puzzle)
    assert count_solutions(board).count == 1
    assert is_solution(board, p.solution)
    assert p.rating.level == level
    assert rate(p.puzzle) == p.rating


def test_seed_reproduces():
    assert generate("medium", seed=3) == generate("medium", seed=3)
    assert generate("medium", seed=3).puzzle != generate("medium", seed=4).puzzle


def test_rating_of_known_puzzles():
    assert rate(EASY).level == "easy"
    hard = rate(HARDEST)
    assert hard.level == "hard" and hard.guesses > 0


def test_bad_difficulty():
    with pytest.raises(ValueError, match="difficulty"):
        generate("impossible", seed=1)  # type: ignore[arg-type]

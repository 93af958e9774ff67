from __future__ import annotations

import pytest
from conftest import EASY, HARDEST

from ar_sudoku.sudoku.generator import LEVELS, RATINGS, generate, rate
from ar_sudoku.sudoku.logic import explain, solvable_within
from ar_sudoku.sudoku.solver import count_solutions, is_solution, parse_line
from ar_sudoku.sudoku.steps import TECHNIQUES


@pytest.mark.parametrize("level", LEVELS)
def test_generated_puzzles_are_unique_and_rated(level):
    p = generate(level, seed=7)
    board = parse_line(p.puzzle)
    assert count_solutions(board).count == 1
    assert is_solution(board, p.solution)
    assert p.rating.level == level
    assert rate(p.puzzle) == p.rating
    # the level is the hardest technique needed: the puzzle falls to that level, not to the one below
    assert p.rating.guesses == 0 and TECHNIQUES[p.rating.hardest] == level
    assert solvable_within(p.puzzle, level)
    if level != "easy":
        assert not solvable_within(p.puzzle, LEVELS[LEVELS.index(level) - 1])


def test_hard_puzzles_are_rated_hard():
    """How fast they come is measured by scripts/bench_hints.py, not by a stopwatch here."""
    for seed in range(5):
        assert generate("hard", seed=100 + seed).rating.level == "hard"


def test_seed_reproduces():
    assert generate("medium", seed=3) == generate("medium", seed=3)
    assert generate("medium", seed=3).puzzle != generate("medium", seed=4).puzzle


def test_rating_of_known_puzzles():
    easy = rate(EASY)
    assert easy.level == "easy" and easy.naked + easy.hidden == EASY.count(".")
    # Project Euler 96 grids: one needs pointing, one an X-wing (rated by the hardest step)
    assert rate("1..92....524.1...........7..5...81.2.........4.27...9..6...........3.945....71..6").level == "medium"
    assert rate(".43.8.25.6.............1.949....4.7....6.8....1.2....382.5.............5.34.9.71.").hardest == "x-wing"
    # no named technique is left at the start of Inkala's puzzle: cells must be revealed
    fiendish = rate(HARDEST)
    assert fiendish.level == "fiendish" == RATINGS[-1] and fiendish.guesses > 0
    assert not explain(HARDEST).logical


def test_bad_difficulty():
    with pytest.raises(ValueError, match="difficulty"):
        generate("impossible", seed=1)  # type: ignore[arg-type]

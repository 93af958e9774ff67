"""Puzzles with exactly one solution, rated by the human techniques they need.

A random full grid is dug out cell by cell (in symmetric pairs, as printed
puzzles are) while the techniques of the asked difficulty still fill it in;
that alone proves the solution unique (every technique is a deduction valid
in all solutions), so no search is needed per dug cell. The rating is the
hardest technique of the step-by-step explanation (`logic.explain`):

- *easy*: singles only (naked and hidden singles);
- *medium*: locked candidates (pointing, claiming) are needed;
- *hard*: pairs, triples, quads, fish, wings or coloring are needed;
- *fiendish*: no named technique is left at some point: a cell must be
  guessed (revealed). Puzzles are rated so, but not generated so.

Hidden singles are "easy" because newspapers' easy puzzles need them and
people find them first (scanning a box for a digit). A seed makes every run
repeatable.

Every size works (4x4, 6x6 with 2x3 or 3x2 boxes, 9x9, 16x16): the clue
floors scale with the number of cells, and small grids may not reach *hard*
at all (a 4x4 never needs more than singles), in which case the closest
level found is returned and its rating says so.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from ar_sudoku.sudoku import logic
from ar_sudoku.sudoku.solver import SYMBOLS, Board, Box, default_box, solve

Difficulty = Literal["easy", "medium", "hard"]
LEVELS: tuple[Difficulty, ...] = ("easy", "medium", "hard")  # what `generate` makes
RATINGS: tuple[logic.Level, ...] = logic.LEVELS  # what `rate` can say: the above and "fiendish"
MIN_CLUES = {"easy": 34, "medium": 27, "hard": 17}  # newspapers print about this many on a 9x9
ATTEMPTS_16 = 6  # a 16x16 dig is slow; fewer tries for the asked level


@dataclass(frozen=True)
class Rating:
    level: logic.Level
    naked: int  # cells placed as naked singles
    hidden: int  # cells placed as hidden singles
    guesses: int  # cells revealed because no named technique applied (0 when logical)
    hardest: str | None = None  # the hardest technique used


@dataclass(frozen=True)
class Puzzle:
    puzzle: str
    solution: str
    rating: Rating
    seed: int
    box: Box = (3, 3)

    @property
    def size(self) -> int:
        return self.box[0] * self.box[1]

    @property
    def clues(self) -> int:
        return sum(ch != "." for ch in self.puzzle)


def min_clues(difficulty: Difficulty, size: int = 9) -> int:
    """The clue floor of a level, scaled from the 9x9 figure by the number of cells."""
    return max(size, round(MIN_CLUES[difficulty] * size * size / 81))


def rate(puzzle: str, solution: str | None = None, box: Box | None = None) -> Rating:
    """Explain the puzzle step by step: the hardest step gives the level."""
    e = logic.explain(puzzle, solution=solution, box=box)
    count = {t: 0 for t in ("naked single", "hidden single", "reveal")}
    for step in e.steps:
        if step.technique in count:
            count[step.technique] += 1
    return Rating(e.rating, count["naked single"], count["hidden single"], count["reveal"], e.hardest)


def _full_grid(rng: random.Random, box: Box = (3, 3)) -> str:
    """A random complete grid: random diagonal boxes, solved, then shuffled (9x9: kept as it was, so
    old seeds give the same puzzles), or for other boxes a shuffled pattern grid."""
    if box != (3, 3):
        return _pattern_grid(rng, box)
    cells = [0] * 81
    for b in range(3):
        digits = rng.sample(range(1, 10), 9)
        for k, v in enumerate(digits):
            cells[(b * 3 + k // 3) * 9 + b * 3 + k % 3] = v
    result = solve(Board(tuple(cells)))
    assert result.solution is not None
    grid = [[result.solution[r * 9 + c] for c in range(9)] for r in range(9)]
    # rows within bands, bands, then the same for columns by transposing
    for _ in range(2):
        bands = rng.sample(range(3), 3)
        order = [b * 3 + r for b in bands for r in rng.sample(range(3), 3)]
        grid = [grid[r] for r in order]
        grid = [list(col) for col in zip(*grid, strict=False)]
    relabel = dict(zip("123456789", rng.sample("123456789", 9), strict=False))
    return "".join(relabel[ch] for row in grid for ch in row)


def _pattern_grid(rng: random.Random, box: Box) -> str:
    """A complete grid for ``box`` (rows x columns), from the pattern ``(C*(r%R) + r//R + c) % size``, which
    keeps every row, column and box whole, shuffled by the moves that keep a grid valid: rows within a band
    of boxes, bands, columns within a stack, stacks, and a relabelling of the symbols."""
    rows_per_box, cols_per_box = box
    size = rows_per_box * cols_per_box
    bands = rng.sample(range(size // rows_per_box), size // rows_per_box)
    row_order = [b * rows_per_box + r for b in bands for r in rng.sample(range(rows_per_box), rows_per_box)]
    stacks = rng.sample(range(size // cols_per_box), size // cols_per_box)
    col_order = [s * cols_per_box + c for s in stacks for c in rng.sample(range(cols_per_box), cols_per_box)]
    labels = rng.sample(SYMBOLS[:size], size)
    return "".join(labels[(cols_per_box * (r % rows_per_box) + r // rows_per_box + c) % size]
                   for r in row_order for c in col_order)


def generate(difficulty: Difficulty = "medium", seed: int | None = None,
             attempts: int | None = None, box: Box = (3, 3)) -> Puzzle:
    """One unique puzzle of the asked difficulty (the closest found in ``attempts``).

    Each attempt digs a fresh grid as far as the difficulty's techniques still solve it; the
    attempt counts when the result also needs the difficulty's own techniques (a dig for
    *hard* often ends up *medium*, so several attempts are normal). ``box`` sets the size:
    (2, 2) 4x4, (2, 3) or (3, 2) 6x6, (3, 3) 9x9, (4, 4) 16x16.
    """
    if difficulty not in LEVELS:
        raise ValueError(f"difficulty must be one of {', '.join(LEVELS)}")
    size = box[0] * box[1]
    if default_box(size) != box and box[::-1] != default_box(size):
        raise ValueError(f"no {box[0]}x{box[1]} boxes on a {size}x{size} grid")
    if attempts is None:
        attempts = ATTEMPTS_16 if size > 9 else 60
    if seed is None:
        seed = random.randrange(2**31)
    rng = random.Random(seed)
    want = LEVELS.index(difficulty)
    best: Puzzle | None = None
    ncells = size * size
    floor = min_clues(difficulty, size)
    for _ in range(attempts):
        solution = _full_grid(rng, box)
        puzzle = list(solution)
        pairs = sorted({tuple(sorted((i, ncells - 1 - i))) for i in range(ncells)})
        rng.shuffle(pairs)
        for pair in pairs:
            if sum(ch != "." for ch in puzzle) - len(set(pair)) < floor:
                break
            saved = [puzzle[i] for i in pair]
            for i in pair:
                puzzle[i] = "."
            if not logic.solvable_within("".join(puzzle), difficulty, box):
                for i, ch in zip(pair, saved, strict=False):
                    puzzle[i] = ch
        text = "".join(puzzle)
        rating = rate(text, solution, box)
        candidate = Puzzle(text, solution, rating, seed, box)
        if rating.level == difficulty:
            return candidate
        if best is None or abs(RATINGS.index(rating.level) - want) < abs(RATINGS.index(best.rating.level) - want):
            best = candidate
    assert best is not None
    return best


def generate_many(difficulty: Difficulty, count: int, seed: int | None = None,
                  box: Box = (3, 3)) -> list[Puzzle]:
    """``count`` puzzles; puzzle k uses seed ``seed + k`` so each is reproducible alone."""
    if seed is None:
        seed = random.randrange(2**31)
    return [generate(difficulty, seed + k, box=box) for k in range(count)]

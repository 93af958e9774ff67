"""Puzzles with exactly one solution, rated by the techniques they need.

A random full grid is dug out cell by cell (in symmetric pairs, as printed
puzzles are) while the puzzle keeps a unique solution and stays within the
asked difficulty. The rating replays the puzzle with human techniques:
*easy* falls to naked singles alone, *medium* needs hidden singles, *hard*
needs guessing (search). A seed makes every run repeatable.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from ar_sudoku.sudoku.solver import Board, count_solutions, solve, units

Difficulty = Literal["easy", "medium", "hard"]
LEVELS: tuple[Difficulty, ...] = ("easy", "medium", "hard")
MIN_CLUES = {"easy": 34, "medium": 27, "hard": 17}  # newspapers print about this many


@dataclass(frozen=True)
class Rating:
    level: Difficulty
    naked: int  # cells placed as naked singles
    hidden: int  # cells placed as hidden singles
    guesses: int  # search nodes needed after singles stall (0 if none)


@dataclass(frozen=True)
class Puzzle:
    puzzle: str
    solution: str
    rating: Rating
    seed: int

    @property
    def clues(self) -> int:
        return sum(ch != "." for ch in self.puzzle)


def rate(puzzle: str) -> Rating:
    """Replay with singles: which techniques a person needs for this puzzle."""
    cells = [0 if ch in ".0" else int(ch) for ch in puzzle]
    full = 0x1FF
    rows, cols, boxes = [0] * 9, [0] * 9, [0] * 9

    def place(i: int, v: int) -> None:
        cells[i] = v
        b = 1 << (v - 1)
        rows[i // 9] |= b
        cols[i % 9] |= b
        boxes[(i // 27) * 3 + (i % 9) // 3] |= b

    for i, v in enumerate(cells):
        if v:
            place(i, v)

    def cand(i: int) -> int:
        return full & ~(rows[i // 9] | cols[i % 9] | boxes[(i // 27) * 3 + (i % 9) // 3])

    naked = hidden = 0
    while True:
        progress = False
        for i in range(81):
            if not cells[i]:
                m = cand(i)
                if m and not m & (m - 1):
                    place(i, m.bit_length())
                    naked += 1
                    progress = True
        if progress:
            continue
        for unit in units(3):
            for d in range(9):
                b = 1 << d
                spots = [i for i in unit if not cells[i] and cand(i) & b]
                if len(spots) == 1:
                    place(spots[0], d + 1)
                    hidden += 1
                    progress = True
        if not progress:
            break
    if all(cells):
        return Rating("medium" if hidden else "easy", naked, hidden, 0)
    rest = Board(3, tuple(cells))
    return Rating("hard", naked, hidden, solve(rest).nodes)


def _full_grid(rng: random.Random) -> str:
    """A random complete grid: random diagonal boxes, solved, then shuffled."""
    cells = [0] * 81
    for b in range(3):
        digits = rng.sample(range(1, 10), 9)
        for k, v in enumerate(digits):
            cells[(b * 3 + k // 3) * 9 + b * 3 + k % 3] = v
    result = solve(Board(3, tuple(cells)))
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


def generate(difficulty: Difficulty = "medium", seed: int | None = None,
             attempts: int = 50) -> Puzzle:
    """One unique puzzle of the asked difficulty (the closest found in ``attempts``)."""
    if difficulty not in LEVELS:
        raise ValueError(f"difficulty must be one of {', '.join(LEVELS)}")
    if seed is None:
        seed = random.randrange(2**31)
    rng = random.Random(seed)
    want = LEVELS.index(difficulty)
    best: Puzzle | None = None
    for _ in range(attempts):
        solution = _full_grid(rng)
        puzzle = list(solution)
        pairs = sorted({tuple(sorted((i, 80 - i))) for i in range(81)})
        rng.shuffle(pairs)
        for pair in pairs:
            if sum(ch != "." for ch in puzzle) - len(set(pair)) < MIN_CLUES[difficulty]:
                break
            saved = [puzzle[i] for i in pair]
            for i in pair:
                puzzle[i] = "."
            text = "".join(puzzle)
            board = Board(3, tuple(0 if ch == "." else int(ch) for ch in text))
            ok = count_solutions(board, 2).count == 1
            if ok and want < 2 and LEVELS.index(rate(text).level) > want:
                ok = False
            if not ok:
                for i, ch in zip(pair, saved, strict=False):
                    puzzle[i] = ch
        text = "".join(puzzle)
        rating = rate(text)
        candidate = Puzzle(text, solution, rating, seed)
        if rating.level == difficulty:
            return candidate
        if best is None or abs(LEVELS.index(rating.level) - want) < abs(
            LEVELS.index(best.rating.level) - want
        ):
            best = candidate
    assert best is not None
    return best


def generate_many(difficulty: Difficulty, count: int, seed: int | None = None) -> list[Puzzle]:
    """``count`` puzzles; puzzle k uses seed ``seed + k`` so each is reproducible alone."""
    if seed is None:
        seed = random.randrange(2**31)
    return [generate(difficulty, seed + k) for k in range(count)]

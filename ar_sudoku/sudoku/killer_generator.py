"""Killer puzzles with exactly one solution, few or no givens, rated by the techniques they need.

A random full grid (the ordinary generator's) is cut into cages: each grows from a free cell by random
orthogonal neighbours whose digit it does not hold yet, to a size drawn as newspapers print them (mostly
2-4 cells, some 5, a few single cells). The sums follow from the grid. Such a cutting has one solution
less often than one would hope (two cages that can trade digits between them); while it has several, the
cages holding cells where two of them differ are cut again, and only then is such a cell printed as a
given (at most ``MAX_GIVENS``); failing that, another cutting is tried. The rating is the hardest step of
the logical explanation (:mod:`ar_sudoku.sudoku.killer_logic`). A seed makes every run repeatable.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ar_sudoku.sudoku.generator import Difficulty, _full_grid
from ar_sudoku.sudoku.killer import NCELLS, Killer, make_killer, neighbours
from ar_sudoku.sudoku.killer_solver import some_solutions
from ar_sudoku.sudoku.logic import LEVELS, Level

# how often newspapers print cages of 1, 2, 3, 4 and 5 cells (a one-cell cage is a given in disguise: rare)
WEIGHTS = (0.03, 0.32, 0.35, 0.22, 0.08)
MAX_GIVENS = 3  # a killer page prints none, or a few
RECUTS = 30  # cages cut again where two solutions differ before a given is printed instead
CUTTINGS = 10  # cuttings tried per attempt before giving up on a grid
SOLVE_TIMEOUT = 2.0  # seconds for each uniqueness check: a cutting this hard is not what a newspaper prints
ATTEMPTS = 12  # puzzles tried for the asked difficulty (the closest is returned)


@dataclass(frozen=True)
class KillerPuzzle:
    killer: Killer
    solution: str
    level: Level
    hardest: str | None
    seed: int

    @property
    def clues(self) -> int:
        return self.killer.givens.givens


def cut_cages(solution: str, rng: random.Random, weights: Sequence[float] = WEIGHTS) -> list[list[int]]:
    """A random cutting of a full grid into cages whose digits do not repeat (each a list of cells); cage
    sizes 1, 2, 3, ... drawn with ``weights``."""
    return _regrow([], list(range(NCELLS)), solution, rng, weights)


def _regrow(kept: list[list[int]], free: list[int], solution: str, rng: random.Random,
            weights: Sequence[float] = WEIGHTS) -> list[list[int]]:
    """``kept`` cages and new ones grown over the ``free`` cells: each from a random free cell by random free
    neighbours whose digit it does not hold yet, to a size drawn with ``weights``."""
    cages = [list(c) for c in kept]
    owner = [-1] * NCELLS
    for k, cage in enumerate(cages):
        for c in cage:
            owner[c] = k
    order = list(free)
    rng.shuffle(order)
    for start in order:
        if owner[start] >= 0:
            continue
        want = rng.choices(range(1, len(weights) + 1), weights)[0]
        cage = [start]
        owner[start] = len(cages)
        digits = {solution[start]}
        while len(cage) < want:
            nxt = [n for c in cage for n in neighbours(c) if owner[n] < 0 and solution[n] not in digits]
            if not nxt:
                break
            n = rng.choice(nxt)
            cage.append(n)
            owner[n] = len(cages)
            digits.add(solution[n])
        cages.append(cage)
    _absorb_singles(cages, owner, solution, rng)
    return [sorted(c) for c in cages if c]


def _absorb_singles(cages: list[list[int]], owner: list[int], solution: str, rng: random.Random) -> None:
    """One-cell cages that were not asked for (a cage that could not grow) join a neighbour's cage that lacks
    their digit, when one is small enough; asked-for ones stay, about as rarely as they were drawn."""
    for k, cage in enumerate(cages):
        if len(cage) != 1 or rng.random() < WEIGHTS[0]:
            continue
        c = cage[0]
        options = [owner[n] for n in neighbours(c)
                   if owner[n] != k and len(cages[owner[n]]) <= len(WEIGHTS)
                   and solution[c] not in {solution[x] for x in cages[owner[n]]}]
        if options:
            target = rng.choice(options)
            cages[target].append(c)
            owner[c] = target
            cage.clear()


def _sums(solution: str, cuts: list[list[int]]) -> list[tuple[int, list[int]]]:
    return [(sum(int(solution[c]) for c in cage), cage) for cage in cuts]


def _unique(solution: str, cuts: list[list[int]], rng: random.Random,
            weights: Sequence[float] = WEIGHTS) -> Killer | None:
    """A cutting made into a puzzle of one solution: while it has several, the cages holding two cells where two
    of them differ are cut again at random (up to ``RECUTS`` times); then up to ``MAX_GIVENS`` such cells are
    printed as givens. None when that does not make it unique in time."""
    givens = ["."] * NCELLS
    for step in range(RECUTS + MAX_GIVENS + 1):
        killer = make_killer("".join(givens), _sums(solution, cuts))
        found, complete = some_solutions(killer, 2, timeout=SOLVE_TIMEOUT)
        if not complete or not found:
            return None
        if len(found) == 1:
            return killer
        differ = [i for i in range(NCELLS) if found[0][i] != found[1][i]]
        rng.shuffle(differ)
        if step < RECUTS:
            hit = {k for k, cage in enumerate(cuts) for c in differ[:2] if c in cage}
            cuts = _regrow([c for k, c in enumerate(cuts) if k not in hit],
                           [c for k in hit for c in cuts[k]], solution, rng, weights)
        else:
            givens[differ[0]] = solution[differ[0]]
    return None


def generate_killer(difficulty: Difficulty | None = None, seed: int | None = None,
                    attempts: int = ATTEMPTS, weights: Sequence[float] = WEIGHTS) -> KillerPuzzle:
    """One killer puzzle of one solution; with ``difficulty``, the first of ``attempts`` rated so (or the
    closest), else the first made. ``weights``: how often cages of 1, 2, 3, ... cells are drawn."""
    from ar_sudoku.sudoku.killer_logic import explain_killer

    if seed is None:
        seed = random.randrange(2**31)
    rng = random.Random(seed)
    best: KillerPuzzle | None = None
    for _ in range(attempts if difficulty else 1):
        solution = _full_grid(rng)
        killer = None
        for _ in range(CUTTINGS):
            killer = _unique(solution, cut_cages(solution, rng, weights), rng, weights)
            if killer is not None:
                break
        if killer is None:
            continue
        e = explain_killer(killer, solution=solution)
        made = KillerPuzzle(killer, solution, e.rating, e.hardest, seed)
        if difficulty is None or made.level == difficulty:
            return made
        if best is None or _distance(made.level, difficulty) < _distance(best.level, difficulty):
            best = made
    if best is None:
        raise RuntimeError(f"no killer puzzle made from seed {seed}")
    return best


def _distance(level: Level, want: Difficulty) -> int:
    return abs(LEVELS.index(level) - LEVELS.index(want))


def generate_killers(count: int, seed: int | None = None, difficulty: Difficulty | None = None) -> list[KillerPuzzle]:
    """``count`` puzzles; puzzle k uses seed ``seed + k`` so each is reproducible alone."""
    if seed is None:
        seed = random.randrange(2**31)
    return [generate_killer(difficulty, seed + k) for k in range(count)]

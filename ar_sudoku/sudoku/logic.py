"""A logical solver that names its steps: hints, full explanations and a difficulty rating.

People asking for help want a nudge, not the answer: "is there a mistake?",
"where can I go next, and why?". This module replays a puzzle of any size with human
techniques, easiest first, and records each step as a small frozen `Step`:
the technique, the digit placed or the candidates removed, the cells and unit
that prove it, and one plain sentence.

Candidates are one bitmask per cell (bit d-1 for digit d); placing a digit
clears it from every peer at once, so a "naked single" is simply a mask with
one bit. Techniques, in order of difficulty (see `TECHNIQUES`):

- singles (easy): naked single, hidden single;
- locked candidates (medium): pointing, claiming;
- subsets, fish, wings, coloring (hard): naked/hidden pair, triple, quad;
  X-wing, Swordfish, Jellyfish; XY-wing, XYZ-wing, W-wing; simple coloring.

Every technique is a deduction valid in *every* solution (no uniqueness
arguments), so a puzzle these steps fill completely has exactly one solution,
and no step can ever disagree with it. When no technique applies, a `reveal`
step gives one cell of the solution (from the bitmask search in `solver`),
picking the cell after which the most singles follow. A puzzle that needs a
reveal is rated "fiendish".
"""

from __future__ import annotations

from collections.abc import Sequence

from ar_sudoku.sudoku.solver import SYMBOLS, Board, Box, CountResult, count_solutions, parse_line, validate
from ar_sudoku.sudoku.steps import (
    _G9,
    LEVELS,
    TECHNIQUES,
    Candidates,
    Explanation,
    Geometry,
    Level,
    NoSolutionError,
    Step,
    geometry,
    place_step,
)
from ar_sudoku.sudoku.techniques import FINDERS, Finder, find_step_with, singles_bulk

REVEAL_TRIES = 12  # cells scored per reveal: the ones with the fewest candidates


def _reveal(g: Candidates, solution: str) -> Step:
    """One cell of the solution: of the cells with the fewest candidates, the one that unlocks most singles."""
    geo = g.geo
    empties = sorted((geo.pop[g.cand[i]], i) for i in range(geo.ncells) if not g.values[i])[:REVEAL_TRIES]
    best, best_key = empties[0][1], (-1, 0, 0)
    for count, i in empties:
        trial = g.copy()
        trial.place(i, geo.value(solution[i]))
        key = (sum(singles_bulk(trial)), -count, -i)
        if key > best_key:
            best, best_key = i, key
    d = geo.value(solution[best])
    return place_step(geo, "reveal", best, d, (best,), None,
                  "no named technique applies here, so this cell is revealed from the solution")


def _values(text: str, geo: Geometry = _G9) -> list[int]:
    return [geo.value(ch) for ch in text]


def _board(puzzle: str | Board, box: Box | None = None) -> Board:
    """A board from text (``box`` for turned 6x6 boxes) or as given; every size the solver knows works."""
    return parse_line(puzzle.strip(), box=box) if isinstance(puzzle, str) else puzzle


def find_solution(puzzle: str | Board, timeout: float | None = 10.0) -> str:
    """The one solution, or NoSolutionError saying why there is none to explain."""
    board = _board(puzzle)
    conflicts = validate(board)
    if conflicts:
        raise NoSolutionError("; ".join(str(c) for c in conflicts))
    return the_one(count_solutions(board, 2, timeout), timeout)


def the_one(res: CountResult, timeout: float | None) -> str:
    """A search's one solution (any puzzle type: ordinary or killer), or NoSolutionError saying why not."""
    if res.count == 0:
        raise NoSolutionError("no solution" if res.complete else f"no solution found within {timeout:g} s")
    if res.count > 1:
        raise NoSolutionError("several solutions; a puzzle needs exactly one to be explained")
    assert res.first is not None
    return res.first


def explain(puzzle: str | Board, timeout: float | None = 10.0, solution: str | None = None,
            box: Box | None = None) -> Explanation:
    """Every step from the givens to the full grid, easiest technique first at each step.

    ``solution``, when the caller already has it (the generator does), skips the search.
    ``box`` gives a text puzzle's box shape when it is not the default (3x2 turned 6x6 boxes).
    """
    board = _board(puzzle, box)
    if solution is None:
        solution = find_solution(board, timeout)
    g = Candidates.from_values(board.cells, geometry(board.box))
    steps: list[Step] = []
    while g.empty:
        step = find_step_with(g) or _reveal(g, solution)
        g.apply(step)
        steps.append(step)
    return Explanation(board.to_string(), solution, tuple(steps), board.box)


def _state(board: Board, solution: str, entries: str | None, reveal_digit: bool) -> Candidates | Step:
    """The grid of givens plus the correct entries, or the first wrong entry as a mistake step.

    Entries on a given's cell are ignored: a camera reads givens too.
    """
    geo = geometry(board.box)
    values = list(board.cells)
    if entries is None:
        return Candidates.from_values(values, geo)
    try:
        written = _values(entries, geo)
    except ValueError:
        written = []
    if len(entries) != geo.ncells or len(written) != geo.ncells:
        top = SYMBOLS[geo.size - 1]
        raise ValueError(f"entries are {geo.ncells} characters: 1-{top}, or '.'/'0' for an empty cell")
    for i, d in enumerate(written):
        if values[i] or not d:
            continue
        right = geo.value(solution[i])
        if d != right:
            clash = [p for p in geo.peer_list[i] if board.cells[p] == d or (not board.cells[p] and written[p] == d)]
            text = f"{geo.names[i]} is wrong: it is {right}, not {d}" if reveal_digit else f"{geo.names[i]} is wrong"
            return Step("mistake", i, right if reveal_digit else None, (), (i, *clash), None,
                        text + "; remove it first", geo.size)
        values[i] = d
    return Candidates.from_values(values, geo)


# on paper, a hidden single comes first: the box (or line) that proves it can be shaded, where a
# naked single's reason is all twenty peers at once
PAPER_ORDER: tuple[tuple[str, Finder], ...] = (FINDERS[1], FINDERS[0], *FINDERS[2:])


def next_steps(puzzle: str | Board, entries: str | None = None, reveal_digit: bool = False,
               timeout: float | None = 10.0, finders: Sequence[tuple[str, Finder]] = FINDERS) -> tuple[Step, ...]:
    """The steps up to and including the next placed digit: what a hint on paper needs.

    A mistake in the entries comes alone and first; an empty tuple means the grid is full.
    ``finders`` sets the order techniques are tried in (``PAPER_ORDER`` for a hint drawn on paper).
    """
    board = _board(puzzle)
    solution = find_solution(board, timeout)
    state = _state(board, solution, entries, reveal_digit)
    if isinstance(state, Step):
        return (state,)
    steps: list[Step] = []
    while state.empty:
        step = find_step_with(state, finders) or _reveal(state, solution)
        steps.append(step)
        if step.cell is not None:
            break
        state.apply(step)
    return tuple(steps)


def next_step(puzzle: str | Board, entries: str | None = None, reveal_digit: bool = False,
              timeout: float | None = 10.0) -> Step | None:
    """The one next hint: a mistake first, else the easiest step from here; None when the grid is full."""
    board = _board(puzzle)
    solution = find_solution(board, timeout)
    state = _state(board, solution, entries, reveal_digit)
    if isinstance(state, Step):
        return state
    if not state.empty:
        return None
    return find_step_with(state) or _reveal(state, solution)


def find_step(candidates: Sequence[str], values: str | None = None, box: Box = (3, 3)) -> Step | None:
    """The easiest step on a given pencil-mark state (81 strings of candidate digits), or None.

    For a grid with pencil marks, and for pinning textbook examples; ``values`` holds the placed
    digits (81 characters, '.' for an empty cell); their peers lose those digits. ``box`` for other sizes.
    """
    geo = geometry(box)
    if len(candidates) != geo.ncells:
        raise ValueError(f"candidates: give {geo.ncells} strings of digits")
    placed = _values(values, geo) if values is not None else [0] * geo.ncells
    g = Candidates([0] * geo.ncells, [sum(1 << (geo.value(ch) - 1) for ch in set(c)) for c in candidates],
              geo.ncells, geo)
    for i, v in enumerate(placed):
        if v:  # a placed digit also clears stale pencil marks of its peers
            g.place(i, v)
    return find_step_with(g)


def solvable_within(puzzle: str, level: Level, box: Box | None = None) -> bool:
    """True when techniques up to ``level`` fill the whole grid (which proves the solution unique).

    The generator calls this for every cell it digs out, so singles run in bulk, without steps.
    """
    limit = LEVELS.index(level)
    finders = [(n, f) for n, f in FINDERS[2:] if LEVELS.index(TECHNIQUES[n]) <= limit]
    board = _board(puzzle, box)
    geo = geometry(board.box)
    g = Candidates.from_values(board.cells, geo)
    while True:
        singles_bulk(g)
        if not g.empty:
            return True
        if any(not g.cand[i] for i in range(geo.ncells) if not g.values[i]):
            return False  # no solution at all
        step = find_step_with(g, finders)
        if step is None:
            return False
        g.apply(step)

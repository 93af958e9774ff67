"""The rules applied to a reading: solve it, and repair it when it breaks them.

Pure Python and numpy, no OpenCV: this is what the solve worker's process
imports, so it starts fast. A reading that breaks the rules or has no
solution is not taken as final: the least confident cells' second choices
(including "empty") are tried, cheapest first, before reporting ``invalid``
or ``unsolvable``.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ar_sudoku.sudoku.killer import Cage
from ar_sudoku.sudoku.solver import count_solutions, parse_line, solve, validate
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.sudoku.written import Written

Cancel = Callable[[], bool]
SEVERAL = "the reading has several solutions; one is shown"  # a solution drawn, not the only one
NOT_UNIQUE = "the reading has several solutions (a digit was probably missed)"  # none drawn (``require_unique``)
AS_PRINT = "read as print alone: the doubtful handwriting is the page's print"
# A repair's cost is how much less likely the reader saw its digits (the log of the odds), plus this for each cell it
# changes: two misreads are taken over one only when clearly likelier together (in a dim room a 6 read
# as 5 and a 5 as 8 cost less than one right 8 turned to 9, the smaller but wrong repair)
REPAIR_CELL = 0.5
# a clashing given's digits the reader saw at these odds are tried, however sure it was of its own (a dim room's 6
# closed into an 8, surely, the 6 at slight odds): one of the clashing cells is misread
CLASH_ODDS = 0.005
FAINT_BLANK = 0.5  # a blank cell another reader is this sure of is not taken for faint print (:func:`faint_givens`)
FEWEST_GIVENS = 17  # no 9x9 puzzle with one solution has fewer: a reading with fewer is no puzzle to guess at


@dataclass(frozen=True)
class Reading:
    """What the model saw in 81 cells: digits (0 = empty), confidences and full probabilities."""

    digits: np.ndarray  # (81,) int
    confidence: np.ndarray  # (81,) float in [0, 1]
    probs: np.ndarray  # (81, 10): P(empty), P(1)..P(9)

    @property
    def givens(self) -> str:
        return "".join(str(d) if d else "." for d in self.digits)


@dataclass(frozen=True)
class PassLog:
    """What one named pass of a reading did: its time and the cells whose reading it changed (row by row)."""

    name: str
    ms: float
    changed: tuple[int, ...] = ()
    states: tuple[str, ...] = ()  # each changed cell as the pass left it: its kind, its digit, '?' when hidden


@dataclass(frozen=True)
class BoardResult:
    """One picture's outcome (its JSON is written in the shell: ``io.records.board_json``)."""

    status: Status  # solved | no_grid | invalid | unsolvable | timeout | error
    corners: np.ndarray | None = None  # TL, TR, BR, BL of the puzzle itself
    givens: str | None = None
    confidence: np.ndarray | None = None
    solution: str | None = None
    message: str = ""
    ms: float = 0.0
    corrected: tuple[str, ...] = ()  # cells changed by the rules, e.g. "r3c5: 1->7"
    lattice: np.ndarray | None = None  # (10, 10, 2) line crossings, row by row from the puzzle's top-left
    written: Written | None = None  # the person's entries and pencil marks, when the cells' kinds were read
    unreadable: tuple[int, ...] = ()  # cells washed out (glare): not read, not taken as blank, no answer drawn
    box: tuple[int, int] = (3, 3)  # rows x columns of one box: the grid's side is their product (issue 24)
    symbols: str = "1-9"  # how the page prints its values: 1-9, or on 16x16 "1-9A-G", "0-F" or "1-16"
    passes: tuple[PassLog, ...] = ()  # the reading's passes in order (``vision.passes``): time, cells changed
    cages: tuple[Cage, ...] | None = None  # a killer page's cages (their sums and cells), as read; None: ordinary

    @property
    def size(self) -> int:
        return self.box[0] * self.box[1]

    @property
    def entries(self) -> str | None:
        return None if self.written is None else self.written.entries


def _try(givens: str, timeout: float, cancel: Cancel | None = None) -> tuple[Status, str | None, str]:
    board = parse_line(givens)
    conflicts = validate(board)
    if conflicts:
        return Status.INVALID, None, "; ".join(str(c) for c in conflicts[:3])
    res = solve(board, timeout, cancel)
    if res.status == Status.SOLVED:
        return Status.SOLVED, res.solution, ""
    if res.status == Status.TIMEOUT:
        return Status.TIMEOUT, None, res.message
    return Status.UNSOLVABLE, None, "the reading has no solution"


def faint_givens(result: BoardResult, reading: Reading, share: float = 0.1,
                 overrides: dict[int, int] | None = None, blank: np.ndarray | None = None) -> BoardResult:
    """A solved board with the faint digits that agree with the solution taken as givens.

    A cell whose print is too faint for the cutter's threshold stays empty in the reading, with a small
    share of the digit the model saw (``digits.DIGITS.faint_share``), and the rules add it back only when the
    puzzle needs it. Once solved, a faint digit that the model read (``share``: half of that share) as
    the solution's own digit is print, not a cell to draw an answer over. A cell the user set is left as set.
    ``blank``: (81,) another reader's odds of each cell being blank (the cell-kind model's); a cell it is
    ``FAINT_BLANK`` sure of is no faint print (a dim room's speckle gave a blank fair odds of the solution's
    digit while the kind model was sure it was blank; faint print is never that sure of blank).
    """
    if result.status != Status.SOLVED or result.solution is None or result.givens is None:
        return result
    seen = {i: float(reading.probs[i, int(d)]) for i, (ch, d) in enumerate(zip(result.givens, result.solution))
            if ch == "." and reading.probs[i, int(d)] >= share and i not in (overrides or {})
            and (blank is None or blank[i] < FAINT_BLANK)}
    return solution_givens(result, seen)


def solution_givens(result: BoardResult, seen: dict[int, float]) -> BoardResult:
    """A solved board with each blank cell of ``seen`` made a given of the solution's digit, read with the
    confidence ``seen`` gives it (print the reading missed, found once the puzzle is solved)."""
    if not seen or result.solution is None or result.givens is None:
        return result
    givens = list(result.givens)
    conf = None if result.confidence is None else result.confidence.copy()
    for i, odds in seen.items():
        givens[i] = result.solution[i]
        if conf is not None:
            conf[i] = odds
    return replace(result, givens="".join(givens), confidence=conf)


def _cost(p: np.ndarray, read: int, alt: int) -> float:
    """How much less likely the reader saw digit ``alt`` than the ``read`` one (the log of their odds)."""
    return float(np.log(p[read] + 1e-9) - np.log(p[alt] + 1e-9))


def check_reading(reading: Reading, timeout: float = 1.0, max_tries: int = 40,
                  overrides: dict[int, int] | None = None, require_unique: bool = False,
                  cancel: Cancel | None = None) -> BoardResult:
    """Solve the reading; if it breaks the rules, try the likeliest second choices.

    A repair changes one or two cells, the likeliest first (``REPAIR_CELL``: a second change must earn its
    place); the clashing givens of a reading that breaks the rules are tried at any digit the reader saw
    some of (``CLASH_ODDS``). ``overrides`` (cell -> digit, 0 = empty) are the user's corrections and are
    never changed. With ``require_unique`` a reading with several solutions
    (a digit was missed) is reported ``unsolvable`` instead of drawing a guess.
    """
    digits = reading.digits.copy()
    fixed = set(overrides or {})
    for i, d in (overrides or {}).items():
        digits[i] = d
    givens = "".join(str(d) if d else "." for d in digits)
    status, solution, message = _try(givens, timeout, cancel)
    if status == Status.SOLVED and count_solutions(parse_line(givens), 2, timeout, cancel).count == 1:
        return BoardResult(status, givens=givens, confidence=reading.confidence, solution=solution)
    first = (status, solution, message)
    # alternatives: for each inked cell, its second-best class; cost = how much less likely it is. A reading
    # that solves several ways misses a given: a change must fill a blank cell then. Turning a read given
    # into another digit alone also makes the puzzle unique, but another puzzle (a glare's faded 5 left out,
    # a 4 above it "corrected" to 5: every digit drawn wrong). Nor may it take a given away: that only adds
    # solutions, so a fill that needs one gone is fitted round a misread elsewhere (a 9 printed across a box
    # line read as 6, a clean 5 taken away and a 2 added: one solution, another puzzle's)
    several = status == Status.SOLVED
    alts = _alternatives(reading, digits, fixed, givens if status == Status.INVALID else None)
    tries = 0
    deadline = time.perf_counter() + max(0.2, timeout)
    combos = sorted((c for size in (1, 2) for c in itertools.combinations(alts, size)),
                    key=lambda c: sum(a[0] for a in c) + REPAIR_CELL * len(c))
    for combo in combos:
        if len({a[1] for a in combo}) < len(combo) or (several and (
                all(digits[a[1]] for a in combo) or any(digits[a[1]] and not a[2] for a in combo))):
            continue
        if tries >= max_tries or time.perf_counter() > deadline or (cancel is not None and cancel()):
            break
        tries += 1
        d2 = digits.copy()
        for _, i, alt in combo:
            d2[i] = alt
        g2 = "".join(str(d) if d else "." for d in d2)
        st, sol, _ = _try(g2, min(timeout, 0.2), cancel)
        if st == Status.SOLVED and count_solutions(parse_line(g2), 2, 0.2, cancel).count == 1:
            note = tuple(f"r{i // 9 + 1}c{i % 9 + 1}: {digits[i] or '.'}->{alt or '.'}" for _, i, alt in combo)
            conf = reading.confidence.copy()
            for _, i, alt in combo:
                conf[i] = float(reading.probs[i][alt])
            return BoardResult(Status.SOLVED, givens=g2, confidence=conf, solution=sol,
                               message="corrected by the rules: " + ", ".join(note), corrected=note)
    status, solution, message = first
    if status == Status.SOLVED and require_unique:
        return BoardResult(Status.UNSOLVABLE, givens=givens, confidence=reading.confidence, message=NOT_UNIQUE)
    if status == Status.SOLVED:  # several solutions and no single fix: still draw one, but say so
        return BoardResult(Status.SOLVED, givens=givens, confidence=reading.confidence, solution=solution,
                           message=SEVERAL)
    return BoardResult(status, givens=givens, confidence=reading.confidence, message=message)


def or_as_print(result: BoardResult, printed: Reading | None, timeout: float = 1.0,
                overrides: dict[int, int] | None = None, cancel: Cancel | None = None) -> BoardResult:
    """``result``, or, when its givens leave several solutions, the page read as print alone (``printed``: every
    digit the print model saw, "entries" too) if that makes one sound puzzle as read, not mended.

    The live twin of the photo path's ``passes.page_as_print``: print the cell-kind model doubts (a face it
    never saw) is taken for a hand, and the givens without it leave several solutions, so nothing was ever
    drawn. A right entry taken as print changes no answer; a wrong one breaks the puzzle, and the reading
    stands. The caller asks only on a page not surely written on (``kinds.sure_of_writing``)."""
    if printed is None or result.status != Status.UNSOLVABLE or result.message != NOT_UNIQUE:
        return result
    alone = check_reading(printed, timeout, overrides=overrides, require_unique=True, cancel=cancel)
    if alone.status != Status.SOLVED or alone.corrected:
        return result
    return replace(alone, message=AS_PRINT)


def _alternatives(reading: Reading, digits: np.ndarray, fixed: set[int],
                  invalid: str | None) -> list[tuple[float, int, int]]:
    """(cost, cell, digit) changes a repair may make, cheapest first: each inked cell's second choices (the 12
    likeliest), and on a reading that breaks the rules (``invalid``: its givens) every digit its clashing givens
    showed some of, however sure the reader was of them."""
    alts = []
    for i in range(81):
        if i in fixed:
            continue
        p = reading.probs[i]
        d = int(digits[i])
        for alt in np.argsort(-p)[:5]:
            alt = int(alt)
            if alt != d and p[alt] > 0.02:
                alts.append((_cost(p, d, alt), i, alt))
    alts.sort()
    alts = alts[:12]
    if invalid is not None:
        clashing = {c for conflict in validate(parse_line(invalid)) for c in (conflict.a, conflict.b)} - fixed
        have = {(i, alt) for _, i, alt in alts}
        for i in sorted(clashing):
            p = reading.probs[i]
            d = int(digits[i])
            alts += [(_cost(p, d, alt), i, alt) for alt in range(10)
                     if alt != d and p[alt] > CLASH_ODDS and (i, alt) not in have]
    return alts

"""What to draw on a killer page: the answers clear of the cages' sums, or the next killer step.

A killer page's sums stand in the top-left corners of the cells, where an answer drawn the ordinary size
would cover them: its answers are drawn smaller, low and to the right (``Marks.corner_clear``). A hint is
the killer logic's next step (cage sums, combinations and the rule of 45 first), drawn as any hint is.
"""

from __future__ import annotations

from dataclasses import replace

from ar_sudoku.ar.marks import Marks, Mode, hint_marks, plan_marks
from ar_sudoku.sudoku.killer import Cage, Killer
from ar_sudoku.sudoku.killer_logic import next_killer_step
from ar_sudoku.sudoku.logic import NoSolutionError, Step
from ar_sudoku.sudoku.solver import parse_line


def plan_killer(givens: str, solution: str, cages: tuple[Cage, ...], show: Mode,
                unreadable: tuple[int, ...] = ()) -> tuple[Marks, Step | None]:
    """The marks of ``show`` on a solved killer page, and the hint's step in hint mode."""
    if show != "hint":
        return replace(plan_marks(show, givens, solution, unreadable=unreadable), corner_clear=True), None
    try:
        step = next_killer_step(Killer(parse_line(givens), cages), timeout=2.0)
    except (NoSolutionError, ValueError):
        return Marks(corner_clear=True), None
    if step is None:
        return Marks(text="the puzzle is complete", corner_clear=True), None
    return replace(hint_marks(step), corner_clear=True), step

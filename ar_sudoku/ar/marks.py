"""What to draw on the paper, decided apart from how it is drawn.

Three display modes, the same for photos and the live view:

- ``answer``: every missing digit, and each mistake ringed with the right digit small beside it;
- ``check``: mistakes only, no answers: "is there a mistake?";
- ``hint``: the next logical step only: its cell ringed, the unit that proves
  it shaded, its digit small; a mistake in the entries comes first.

``plan_marks`` is pure: givens, solution, the person's entries and a mode in,
a frozen :class:`Marks` out. The overlay renders a ``Marks`` in the grid's plane.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ar_sudoku.sudoku.logic import PAPER_ORDER, next_steps
from ar_sudoku.sudoku.steps import UNIT_CELLS, NoSolutionError, Step
from ar_sudoku.sudoku.vocabulary import is_empty
from ar_sudoku.sudoku.written import NAMES

Mode = Literal["answer", "check", "hint"]
MODES: tuple[Mode, ...] = ("answer", "check", "hint")


@dataclass(frozen=True)
class Marks:
    """Cells to mark, in the flat grid (cells 0-80, row by row)."""

    answers: tuple[tuple[int, str], ...] = ()  # (cell, digit): drawn large in an empty cell
    mistakes: tuple[int, ...] = ()  # entries that disagree with the solution: ringed in red
    ring: tuple[int, ...] = ()  # the hinted cell (or the cells that prove an elimination)
    shade: tuple[int, ...] = ()  # the unit that proves the hint
    small: tuple[tuple[int, str], ...] = ()  # (cell, text) drawn small: the hinted digit, "-4" for a removal
    text: str = ""  # the sentence for the status box
    corner_clear: bool = False  # answers drawn smaller and low to the right: a killer cage's sum is in the corner

    @property
    def empty(self) -> bool:
        return not (self.answers or self.mistakes or self.ring or self.small)


def mistakes_of(givens: str, solution: str, entries: str | None) -> tuple[int, ...]:
    """Entries (in cells that hold no given) that disagree with the solution."""
    if not entries:
        return ()
    return tuple(i for i, (g, e) in enumerate(zip(givens, entries))
                 if is_empty(g) and not is_empty(e) and e != solution[i])


def hint_marks(step: Step) -> Marks:
    """How one step of the logical solver is shown on the paper."""
    if step.technique == "mistake":
        return Marks(mistakes=(step.cell,) if step.cell is not None else (), text=step.text)
    shade = UNIT_CELLS.get(step.unit or "", ())
    if step.cell is not None and step.digit is not None:
        return Marks(ring=(step.cell,), shade=tuple(shade), small=((step.cell, str(step.digit)),), text=step.text)
    return Marks(ring=tuple(step.cells), shade=tuple(shade),
                 small=tuple((c, f"-{d}") for c, d in step.eliminations), text=step.text)


def doubt_text(doubts: tuple[tuple[int, str], ...], solution: str | None, reveal: bool = True) -> str:
    """``r3c7 looks like 1; the solution has 7``: entries the reading is not sure enough of to call wrong."""
    return "; ".join(f"{NAMES[i]} looks like {d}" + (f"; the solution has {solution[i]}" if reveal and solution
                                                     else "") for i, d in doubts)


def plan_marks(mode: Mode, givens: str, solution: str, entries: str | None = None,
               mistakes: tuple[int, ...] | None = None, doubts: tuple[tuple[int, str], ...] = (),
               unreadable: tuple[int, ...] = ()) -> Marks:
    """The marks of ``mode`` for a solved board; ``entries`` are the person's own digits (81 chars or None).

    ``mistakes``: the entries the reading is sure are wrong (default: every entry that differs from the
    solution); ``doubts`` are only said, never ringed; ``unreadable`` cells (glare) get no answer drawn:
    what is under the glare is not known.
    """
    wrong = mistakes_of(givens, solution, entries) if mistakes is None else tuple(mistakes)
    said_doubts = doubt_text(doubts, solution, reveal=mode == "answer")
    if mode == "answer":
        filled = set(i for i, e in enumerate(entries or "") if not is_empty(e)) | set(unreadable)
        answers = tuple((i, solution[i]) for i, g in enumerate(givens) if is_empty(g) and i not in filled)
        return Marks(answers=answers, mistakes=wrong, small=tuple((i, f"+{solution[i]}") for i in wrong),
                     text=said_doubts)
    if mode == "check":
        left = sum(1 for i, g in enumerate(givens) if is_empty(g) and (not entries or is_empty(entries[i])))
        said = f"{len(wrong)} mistake{'s' * (len(wrong) != 1)}" if wrong else "no mistakes"
        text = "; ".join(filter(None, [f"{said}; {left} cell{'s' * (left != 1)} still empty", said_doubts]))
        return Marks(mistakes=wrong, text=text)
    try:
        steps = next_steps(givens, entries, timeout=2.0, finders=PAPER_ORDER)
    except (NoSolutionError, ValueError):
        return Marks(mistakes=wrong)
    if not steps:
        return Marks(text="the puzzle is complete")
    marks = hint_marks(steps[0])
    last = steps[-1]
    if len(steps) > 1 and last.cell is not None:  # eliminations lead up to a placement: show where
        marks = Marks(marks.answers, marks.mistakes, marks.ring, marks.shade,
                      marks.small + ((last.cell, "?"),), marks.text)
    return marks

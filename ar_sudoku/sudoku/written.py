"""What a person wrote on the puzzle, checked against its solution (pure: strings in, strings out).

A puzzle someone has started holds printed givens, their own entries and
perhaps pencilled candidates. The solver sees the givens only; the entries
are then compared with the solution: a wrong one is a *mistake*, and two
entries (or an entry and a given) that repeat a digit in a unit break the
rules outright, named with their unit as givens are.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from ar_sudoku.sudoku.solver import count_solutions, parse_line, validate
from ar_sudoku.sudoku.vocabulary import is_empty

NAMES = tuple(f"r{i // 9 + 1}c{i % 9 + 1}" for i in range(81))

# A person's correction of a misread cell: ``r3c5=7`` (0 or . clears it), or ``1:r3c5=7`` for puzzle 1 of a page
CORRECTION = re.compile(r"^(?:(\d{1,2}):)?r([1-9])c([1-9])=([0-9.])$", re.IGNORECASE)
# by puzzle index (None: the first puzzle read), each cell's digit (0 clears it)
Corrections = dict[int | None, dict[int, int]]


def parse_corrections(items: list[str]) -> Corrections:
    """``r3c5=7`` -> ``{None: {22: 7}}`` (the first puzzle read); ``1:r3c5=0`` -> ``{1: {22: 0}}`` (puzzle 1 of a
    page, 0 first, in reading order); ValueError names an item that is neither."""
    out: Corrections = {}
    for item in items:
        m = CORRECTION.match(item.strip())
        if not m:
            raise ValueError(f"{item[:40]!r}: expected rRcC=D or N:rRcC=D (puzzle N of a page), e.g. r3c5=7 "
                             "(0 clears the cell)")
        puzzle = None if m[1] is None else int(m[1])
        out.setdefault(puzzle, {})[(int(m[2]) - 1) * 9 + int(m[3]) - 1] = 0 if is_empty(m[4]) else int(m[4])
    return out


@dataclass(frozen=True)
class Written:
    """The person's part of the page: ``entries`` (81 chars, '.' none) and the cells' kinds.

    ``cells``: 81 chars, ``g`` printed given, ``e`` handwritten entry, ``c`` pencilled candidates only,
    ``.`` blank, ``?`` unreadable (washed out by glare: not known to be blank). ``candidates``: the
    pencilled digits of each cell, or None when they were not read.

    Telling someone that a digit they wrote right is wrong is the worst thing a checker can do, so
    an entry the reading is not sure of is not a mistake: it is a *doubt* (``doubts``: the cell and
    the digit it looks like), said as "looks like", never ringed; its ``entries`` digit is the
    solution's, so nothing downstream (marks, hints) takes it for wrong. ``checked`` is False when
    the solution is one of several: then no entry is checked at all.
    """

    cells: str
    entries: str
    candidates: tuple[str, ...] | None = None
    doubts: tuple[tuple[int, str], ...] = ()
    checked: bool = True

    def mistakes(self, solution: str) -> tuple[int, ...]:
        """Entries that disagree with the solution, row by row (none when the entries are not checked)."""
        if not self.checked:
            return ()
        return tuple(i for i, e in enumerate(self.entries) if not is_empty(e) and e != solution[i])

    def mistake_lines(self, solution: str, reveal: bool = True) -> list[str]:
        """``r3c5: written 7, the solution has 4`` (without the answer when not ``reveal``); doubts are not here."""
        out = []
        for i in self.mistakes(solution):
            out.append(f"{NAMES[i]}: written {self.entries[i]}, the solution has {solution[i]}" if reveal
                       else f"{NAMES[i]}: written {self.entries[i]} is wrong")
        return out

    def doubt_lines(self, solution: str, reveal: bool = True) -> list[str]:
        """``r3c7 looks like 1; the solution has 7``: an entry the reading is not sure enough of to call wrong."""
        if not self.checked:
            return []
        return [f"{NAMES[i]} looks like {d}" + (f"; the solution has {solution[i]}" if reveal else
                                                 "; look again (not sure enough to call it wrong)")
                for i, d in self.doubts]

    def clashes(self, givens: str) -> list[str]:
        """Entries that break the rules with a given or another entry, named with the unit."""
        both = "".join(e if not is_empty(e) else g for g, e in zip(givens, self.entries))
        written = {i for i, e in enumerate(self.entries) if not is_empty(e)}
        return [str(c) for c in validate(parse_line(both)) if c.a in written or c.b in written]


def from_kinds(givens: str, kinds: str, digits: str) -> Written:
    """The written part once the givens are settled.

    ``kinds`` (81 chars of ``.gec``) and ``digits`` (the digit read in each cell, '.' none) come from
    the cell reader; ``givens`` are the givens the rules settled on. A cell read as a given that the
    rules did not keep was written by hand (its digit is an entry); a given the rules added is printed.
    """
    cells, entries = [], []
    for g, k, d in zip(givens, kinds, digits):
        if not is_empty(g):
            cells.append("g")
            entries.append(".")
        elif k in "ge" and not is_empty(d):
            cells.append("e")
            entries.append(d)
        elif k == "c":
            cells.append("c")
            entries.append(".")
        else:
            cells.append(".")
            entries.append(".")
    return Written("".join(cells), "".join(entries))


def settle(givens: str, entries: list[tuple[int, str]], timeout: float = 0.3) -> tuple[str, tuple[int, ...]] | None:
    """A unique solution for givens that leave several, chosen by the person's own entries.

    A printed given misread as an entry leaves the puzzle open. Most entries are right, so
    ``entries`` ((cell, digit), surest first) are added to the givens one by one, each only if
    the puzzle keeps a solution, until one solution is left. Returns it with the cells it took,
    or None when the entries do not settle it within ``timeout`` seconds.
    """
    grid = list(givens)
    used: list[int] = []
    deadline = time.perf_counter() + timeout
    for i, d in entries:
        if not is_empty(grid[i]) or time.perf_counter() > deadline:
            continue
        trial = grid.copy()
        trial[i] = d
        found = count_solutions(parse_line("".join(trial)), 2, max(0.01, deadline - time.perf_counter()))
        if not found.complete or found.count == 0:
            continue
        grid = trial
        used.append(i)
        if found.count == 1 and found.first is not None:
            return found.first, tuple(used)
    return None

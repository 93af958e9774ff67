"""Killer Sudoku as data: givens plus cages, each cage a sum over orthogonally connected cells.

A killer page prints a 9x9 grid divided into cages; the digits of a cage add up to its printed sum and
do not repeat, and the ordinary rules hold too. This module is the puzzle type and its text form (one
JSON object a line, ``{"givens": "81 chars", "cages": [{"sum": 17, "cells": [0, 9, 10]}, ...]}``, cells
0-80 row by row), validated so that a bad puzzle is one clear line (:class:`KillerFormatError`) rather
than a solver that says "no solution". The digit combinations every cage can hold are precomputed here
for the solver and the logical steps alike. Pure Python: no OpenCV.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

from ar_sudoku.sudoku.solver import Board, PuzzleFormatError, cell_name, parse_line

SIDE = 9
NCELLS = SIDE * SIDE
TOTAL = 45 * SIDE  # every digit of a full grid: what the cages of a fully caged page add up to


class KillerFormatError(PuzzleFormatError):
    """A killer puzzle that cannot be: a cell in two cages, a cage in pieces, a sum no digits make."""


@dataclass(frozen=True)
class Cage:
    """One cage: its printed sum and its cells (0-80, sorted, so ``cells[0]`` is where the sum is printed:
    the top-most, then left-most cell)."""

    total: int
    cells: tuple[int, ...]

    @property
    def first(self) -> int:
        return self.cells[0]

    @property
    def name(self) -> str:
        """How a person finds it on the page: by the cell its sum is printed in."""
        return f"the {self.total} cage at {cell_name(self.first)}"


@dataclass(frozen=True)
class Killer:
    """A killer puzzle: ``givens`` (a 9x9 board, usually empty) and its cages, in the order of their first cell."""

    givens: Board
    cages: tuple[Cage, ...]
    line: int | None = None  # where it came from in a file, for messages

    @property
    def size(self) -> int:
        return SIDE

    @property
    def box(self) -> tuple[int, int]:
        return (3, 3)

    def to_string(self, blank: str = ".") -> str:
        return self.givens.to_string(blank)

    def cage_of(self) -> tuple[int, ...]:
        """Each cell's cage index (-1 for a cell in none)."""
        out = [-1] * NCELLS
        for k, cage in enumerate(self.cages):
            for c in cage.cells:
                out[c] = k
        return tuple(out)


# --------------------------------------------------------------------------- combinations


@cache
def combos(n: int, total: int) -> tuple[int, ...]:
    """Every set of ``n`` different digits 1-9 adding up to ``total``, as bitmasks (bit d-1 for digit d)."""
    return tuple(sum(1 << (d - 1) for d in ds) for ds in combinations(range(1, SIDE + 1), n) if sum(ds) == total)


def sum_range(n: int) -> tuple[int, int]:
    """The least and greatest sum of ``n`` different digits: 1+2+..+n and 9+8+..+(10-n)."""
    return n * (n + 1) // 2, sum(range(SIDE + 1 - n, SIDE + 1))


def neighbours(cell: int) -> Iterable[int]:
    """The cells orthogonally next to ``cell``."""
    r, c = divmod(cell, SIDE)
    if r > 0:
        yield cell - SIDE
    if r < SIDE - 1:
        yield cell + SIDE
    if c > 0:
        yield cell - 1
    if c < SIDE - 1:
        yield cell + 1


def connected(cells: Sequence[int]) -> bool:
    """Whether ``cells`` form one orthogonally connected piece."""
    todo, seen = [cells[0]], {cells[0]}
    want = set(cells)
    while todo:
        for n in neighbours(todo.pop()):
            if n in want and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(want)


# --------------------------------------------------------------------------- building and checking


def make_killer(givens: str | Board, cages: Iterable[tuple[int, Iterable[int]]], line: int | None = None) -> Killer:
    """A checked killer puzzle from its givens and ``(sum, cells)`` pairs; :class:`KillerFormatError` says what
    is wrong: a cell outside 0-80 or in two cages, a cage in pieces or with a sum its cells cannot make, or a
    fully caged grid whose sums do not add up to 405."""
    board = givens if isinstance(givens, Board) else parse_line(givens, line)
    if board.size != SIDE:
        raise KillerFormatError(f"a killer puzzle is 9x9; the givens make a {board.size}x{board.size} grid", line)
    owner: dict[int, int] = {}
    built: list[Cage] = []
    for k, (total, cells) in enumerate(cages, 1):
        cage = _cage(k, total, cells, line)
        for c in cage.cells:
            if c in owner:
                raise KillerFormatError(f"{cell_name(c)} is in cages {owner[c]} and {k}; a cell is in one cage", line)
            owner[c] = k
        built.append(cage)
    if not built:
        raise KillerFormatError("no cages; a killer puzzle needs them (an ordinary puzzle is 81 characters)", line)
    if len(owner) == NCELLS:
        total = sum(c.total for c in built)
        if total != TOTAL:
            raise KillerFormatError(f"the cage sums add up to {total}; a fully caged grid's make {TOTAL}", line)
    built.sort(key=lambda c: c.first)
    return Killer(board, tuple(built), line)


def _cage(k: int, total: object, cells: Iterable[int], line: int | None) -> Cage:
    """Cage number ``k`` (1 first, as written) checked alone."""
    cells = list(cells)
    if not cells:
        raise KillerFormatError(f"cage {k} has no cells", line)
    if any(isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < NCELLS for c in cells):
        bad = next(c for c in cells if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < NCELLS)
        raise KillerFormatError(f"cage {k}: cell {bad!r} is not a cell number 0-80 (row by row)", line)
    if len(set(cells)) != len(cells):
        raise KillerFormatError(f"cage {k} names a cell twice", line)
    where = f"cage {k} ({', '.join(cell_name(c) for c in sorted(cells))})"
    if len(cells) > SIDE:
        raise KillerFormatError(f"{where}: {len(cells)} cells; a cage holds at most 9 (its digits do not repeat)",
                                line)
    if isinstance(total, bool) or not isinstance(total, int):
        raise KillerFormatError(f"{where}: its sum {total!r} is not a whole number", line)
    lo, hi = sum_range(len(cells))
    if not lo <= total <= hi:
        raise KillerFormatError(f"{where}: sum {total} is impossible for {len(cells)} different digits ({lo}-{hi})",
                                line)
    if not connected(cells):
        raise KillerFormatError(f"{where}: its cells are not orthogonally connected", line)
    return Cage(total, tuple(sorted(cells)))


def parse_killer_line(text: str, line: int | None = None) -> Killer:
    """One killer puzzle written as a JSON object on one line (the module's docstring has the form)."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise KillerFormatError(f"not a JSON object ({exc.msg} at column {exc.colno})", line) from None
    except RecursionError:
        raise KillerFormatError("not a killer puzzle (JSON nested too deep)", line) from None
    if not isinstance(obj, dict):
        raise KillerFormatError("a killer puzzle is a JSON object with \"cages\" (and \"givens\")", line)
    givens = obj.get("givens", "." * NCELLS)
    if not isinstance(givens, str):
        raise KillerFormatError("\"givens\" is a string of 81 characters ('.' or 0 blank)", line)
    cages = obj.get("cages")
    if not isinstance(cages, list):
        raise KillerFormatError("\"cages\" is missing: a list of {\"sum\": N, \"cells\": [0-80, ...]}", line)
    pairs = []
    for k, cage in enumerate(cages, 1):
        if not isinstance(cage, dict) or "sum" not in cage or not isinstance(cage.get("cells"), list):
            raise KillerFormatError(f"cage {k} is not {{\"sum\": N, \"cells\": [0-80, ...]}}", line)
        pairs.append((cage["sum"], cage["cells"]))
    return make_killer(givens.strip(), pairs, line)


def is_killer_line(text: str) -> bool:
    """Whether a line of a puzzle file is a killer puzzle: any line whose first non-blank is ``{``."""
    return text.lstrip().startswith("{")


def is_killer_solution(killer: Killer, solution: str) -> bool:
    """Whether ``solution`` (81 digits) keeps the ordinary rules, the givens, and every cage's sum without a repeat."""
    from ar_sudoku.sudoku.solver import is_solution

    if not is_solution(killer.givens, solution):
        return False
    for cage in killer.cages:
        digits = [int(solution[c]) for c in cage.cells]
        if sum(digits) != cage.total or len(set(digits)) != len(digits):
            return False
    return True

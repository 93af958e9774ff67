"""What a logical step is, and the board of candidates every technique works on.

The shared vocabulary of ``logic`` (the driver: explanations and hints) and ``techniques`` (the finders): a
board's geometry at any size, a ``Step`` with its sentence, and ``Candidates``, one bitmask a cell (bit d-1 for
digit d) where placing a digit clears it from every peer at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from ar_sudoku.errors import ArSudokuError
from ar_sudoku.sudoku.solver import SYMBOLS, Box, symbol_value
from ar_sudoku.sudoku.solver import units as solver_units
from ar_sudoku.sudoku.vocabulary import is_empty

Level = Literal["easy", "medium", "hard", "fiendish"]
LEVELS: tuple[Level, ...] = ("easy", "medium", "hard", "fiendish")

# technique -> level, in the order they are tried (easiest first)
TECHNIQUES: dict[str, Level] = {
    "naked single": "easy",
    "hidden single": "easy",
    "pointing": "medium",
    "claiming": "medium",
    "naked pair": "hard",
    "hidden pair": "hard",
    "naked triple": "hard",
    "hidden triple": "hard",
    "x-wing": "hard",
    "swordfish": "hard",
    "xy-wing": "hard",
    "xyz-wing": "hard",
    "naked quad": "hard",
    "hidden quad": "hard",
    "jellyfish": "hard",
    "w-wing": "hard",
    "simple coloring": "hard",
    "reveal": "fiendish",
}

# --------------------------------------------------------------------------- tables

@dataclass(frozen=True)
class Geometry:
    """The units, peers and names of one board shape (``box``: rows x columns of one box).

    Every technique reads its tables from here, so the same code gives hints on
    4x4, 6x6 (2x3 or turned 3x2 boxes), 9x9 and 16x16 boards.
    """

    box: Box
    size: int
    ncells: int
    full: int
    rows: tuple[tuple[int, ...], ...]
    cols: tuple[tuple[int, ...], ...]
    boxes: tuple[tuple[int, ...], ...]
    units: tuple[tuple[int, ...], ...]  # unit u: rows 0..size-1, then columns, then boxes
    unit_names: tuple[str, ...]
    unit_cells: dict[str, tuple[int, ...]]
    scan_order: tuple[int, ...]
    row_of: tuple[int, ...]
    col_of: tuple[int, ...]
    box_of: tuple[int, ...]
    cell_units: tuple[tuple[int, int, int], ...]
    peers: tuple[frozenset[int], ...]
    peer_list: tuple[tuple[int, ...], ...]
    names: tuple[str, ...]
    digits: tuple[tuple[int, ...], ...]  # mask -> digits
    pop: tuple[int, ...]  # mask -> how many digits

    def symbol(self, d: int) -> str:
        return SYMBOLS[d - 1]

    def value(self, ch: str) -> int:
        """The digit of a symbol ('.' or '0' blank on boards up to 9x9 is 0)."""
        return 0 if is_empty(ch) else symbol_value(ch, self.size)


@cache
def geometry(box: Box = (3, 3)) -> Geometry:
    rows_per_box, cols_per_box = box
    size = rows_per_box * cols_per_box
    n = size * size
    rows = tuple(tuple(r * size + c for c in range(size)) for r in range(size))
    cols = tuple(tuple(r * size + c for r in range(size)) for c in range(size))
    boxes = tuple(solver_units(box)[2 * size:])
    units = rows + cols + boxes
    unit_names = tuple([f"row {k + 1}" for k in range(size)] + [f"column {k + 1}" for k in range(size)]
                       + [f"box {k + 1}" for k in range(size)])
    row_of = tuple(i // size for i in range(n))
    col_of = tuple(i % size for i in range(n))
    box_of = tuple((i // size) // rows_per_box * (size // cols_per_box) + (i % size) // cols_per_box
                   for i in range(n))
    cell_units = tuple((row_of[i], size + col_of[i], 2 * size + box_of[i]) for i in range(n))
    peers = tuple(frozenset(j for u in cell_units[i] for j in units[u]) - {i} for i in range(n))
    digits = tuple(tuple(d + 1 for d in range(size) if m >> d & 1) for m in range(1 << size))
    return Geometry(
        box, size, n, (1 << size) - 1, rows, cols, boxes, units, unit_names, dict(zip(unit_names, units)),
        tuple(range(2 * size, 3 * size)) + tuple(range(2 * size)),  # boxes first: people scan boxes first
        row_of, col_of, box_of, cell_units, peers, tuple(tuple(sorted(p)) for p in peers),
        tuple(f"r{i // size + 1}c{i % size + 1}" for i in range(n)), digits, tuple(len(ds) for ds in digits))


# the 9x9 tables, by name, for callers that only meet 9x9 boards (the camera's)
_G9 = geometry((3, 3))
FULL = _G9.full
ROWS, COLS, BOXES, UNITS = _G9.rows, _G9.cols, _G9.boxes, _G9.units
UNIT_NAMES = _G9.unit_names
UNIT_CELLS = _G9.unit_cells  # "box 2" -> its cells: what a drawing of Step.unit shades
SCAN_ORDER = _G9.scan_order
ROW_OF, COL_OF, BOX_OF, CELL_UNITS = _G9.row_of, _G9.col_of, _G9.box_of, _G9.cell_units
PEERS, PEER_LIST, NAMES = _G9.peers, _G9.peer_list, _G9.names
DIGITS, POP = _G9.digits, _G9.pop


class NoSolutionError(ArSudokuError):
    """A puzzle without exactly one solution cannot be explained: no, several, or not found in time."""

    exit_code = 1  # "some input had no answer"


# --------------------------------------------------------------------------- steps


@dataclass(frozen=True)
class Step:
    """One move a person can make, and why.

    ``cell``/``digit`` is the placement (a mistake step has the wrong cell and
    no digit); ``eliminations`` are (cell, digit) candidates removed; ``cells``
    are the cells that prove it; ``unit`` is the row, column or box it happens
    in, when there is one. Cells are 0-80 (0 to size*size-1), row by row; ``size`` is the board's side.
    """

    technique: str
    cell: int | None
    digit: int | None
    eliminations: tuple[tuple[int, int], ...]
    cells: tuple[int, ...]
    unit: str | None
    text: str
    size: int = 9

    @property
    def level(self) -> Level:
        return TECHNIQUES.get(self.technique, "easy")

    def __str__(self) -> str:
        return f"{self.technique}: {self.text}"


@dataclass(frozen=True)
class Explanation:
    """A puzzle solved step by step; ``logical`` when no cell had to be revealed."""

    puzzle: str
    solution: str
    steps: tuple[Step, ...]
    box: Box = (3, 3)

    @property
    def logical(self) -> bool:
        return all(s.technique != "reveal" for s in self.steps)

    @property
    def rating(self) -> Level:
        """The level of the hardest step: what a person needs to know to solve it."""
        return LEVELS[max((LEVELS.index(s.level) for s in self.steps), default=0)]

    @property
    def hardest(self) -> str | None:
        """The hardest technique used (the first one of the top level)."""
        order = list(TECHNIQUES)
        return max((s.technique for s in self.steps), key=order.index, default=None)


def cell_names(size: int) -> tuple[str, ...]:
    """The cells' names (``r3c5``) on a grid of this side: they depend on the side only, not the boxes."""
    return tuple(geometry({4: (2, 2), 6: (2, 3), 9: (3, 3), 16: (4, 4)}[size]).names)


def names_of(geo: Geometry, cells: Iterable[int]) -> str:
    return ", ".join(geo.names[c] for c in cells)


def listed(items: Sequence[Any], word: str = "and") -> str:
    """'a', 'a and b', 'a, b and c' (or 'or')."""
    items = [str(x) for x in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]


def removals(geo: Geometry, elims: Sequence[tuple[int, int]], by_cell: bool = False) -> str:
    """'remove 4 from r1c2, r1c3; 5 and 7 from r5c5': digits that leave the same cells go together.

    ``by_cell`` lists cells that lose the same digits together instead (hidden subsets read better so).
    """
    groups: dict[int, list[int]] = {}
    for c, d in elims:
        key, val = (c, d) if by_cell else (d, c)
        groups.setdefault(key, []).append(val)
    merged: dict[tuple[int, ...], list[int]] = {}
    for key, vals in groups.items():
        merged.setdefault(tuple(vals), []).append(key)
    if by_cell:
        parts = [f"{listed(ds)} from {names_of(geo, cs)}" for ds, cs in merged.items()]
    else:
        parts = [f"{listed(ds)} from {names_of(geo, cs)}" for cs, ds in merged.items()]
    return "remove " + "; ".join(parts)


def place_step(geo: Geometry, technique: str, cell: int, digit: int, cells: Iterable[int], unit: int | None,
           why: str) -> Step:
    return Step(technique, cell, digit, (), tuple(cells), None if unit is None else geo.unit_names[unit],
                f"{geo.names[cell]} is {digit}: {why}", geo.size)


def elimination_step(geo: Geometry, technique: str, elims: list[tuple[int, int]], cells: Iterable[int],
               unit: int | None, text: str) -> Step:
    return Step(technique, None, None, tuple(sorted(elims)), tuple(cells),
                None if unit is None else geo.unit_names[unit], text, geo.size)


# --------------------------------------------------------------------------- the grid


class Candidates:
    """Placed digits and candidate masks; placing a digit clears it from the peers."""

    __slots__ = ("values", "cand", "empty", "geo")

    def __init__(self, values: list[int], cand: list[int], empty: int, geo: Geometry = _G9):
        self.values = values
        self.cand = cand
        self.empty = empty
        self.geo = geo

    @classmethod
    def from_values(cls, values: Sequence[int], geo: Geometry = _G9) -> Candidates:
        g = cls([0] * geo.ncells, [geo.full] * geo.ncells, geo.ncells, geo)
        for i, v in enumerate(values):
            if v:
                g.place(i, v)
        return g

    def copy(self) -> Candidates:
        return Candidates(self.values.copy(), self.cand.copy(), self.empty, self.geo)

    def place(self, i: int, d: int) -> None:
        self.values[i] = d
        self.cand[i] = 0
        self.empty -= 1
        keep = ~(1 << (d - 1))
        cand = self.cand
        for p in self.geo.peer_list[i]:
            cand[p] &= keep

    def apply(self, step: Step) -> None:
        if step.cell is not None and step.digit is not None:
            self.place(step.cell, step.digit)
        for c, d in step.eliminations:
            self.cand[c] &= ~(1 << (d - 1))

    def where(self, unit: Sequence[int], bit: int) -> list[int]:
        cand = self.cand
        return [i for i in unit if cand[i] & bit]



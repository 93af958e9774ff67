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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Any, Literal

from ar_sudoku.errors import ArSudokuError
from ar_sudoku.sudoku.solver import (
    SYMBOLS,
    Board,
    Box,
    count_solutions,
    parse_line,
    symbol_value,
    validate,
)
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


def _names(geo: Geometry, cells: Iterable[int]) -> str:
    return ", ".join(geo.names[c] for c in cells)


def _and(items: Sequence[Any], word: str = "and") -> str:
    """'a', 'a and b', 'a, b and c' (or 'or')."""
    items = [str(x) for x in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]


def _removals(geo: Geometry, elims: Sequence[tuple[int, int]], by_cell: bool = False) -> str:
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
        parts = [f"{_and(ds)} from {_names(geo, cs)}" for ds, cs in merged.items()]
    else:
        parts = [f"{_and(ds)} from {_names(geo, cs)}" for cs, ds in merged.items()]
    return "remove " + "; ".join(parts)


def _place(geo: Geometry, technique: str, cell: int, digit: int, cells: Iterable[int], unit: int | None,
           why: str) -> Step:
    return Step(technique, cell, digit, (), tuple(cells), None if unit is None else geo.unit_names[unit],
                f"{geo.names[cell]} is {digit}: {why}", geo.size)


def _eliminate(geo: Geometry, technique: str, elims: list[tuple[int, int]], cells: Iterable[int],
               unit: int | None, text: str) -> Step:
    return Step(technique, None, None, tuple(sorted(elims)), tuple(cells),
                None if unit is None else geo.unit_names[unit], text, geo.size)


# --------------------------------------------------------------------------- the grid


class _Grid:
    """Placed digits and candidate masks; placing a digit clears it from the peers."""

    __slots__ = ("values", "cand", "empty", "geo")

    def __init__(self, values: list[int], cand: list[int], empty: int, geo: Geometry = _G9):
        self.values = values
        self.cand = cand
        self.empty = empty
        self.geo = geo

    @classmethod
    def from_values(cls, values: Sequence[int], geo: Geometry = _G9) -> _Grid:
        g = cls([0] * geo.ncells, [geo.full] * geo.ncells, geo.ncells, geo)
        for i, v in enumerate(values):
            if v:
                g.place(i, v)
        return g

    def copy(self) -> _Grid:
        return _Grid(self.values.copy(), self.cand.copy(), self.empty, self.geo)

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


# --------------------------------------------------------------------------- singles


def _naked_single(g: _Grid) -> Step | None:
    geo = g.geo
    cand, values = g.cand, g.values
    for i in range(geo.ncells):
        m = cand[i]
        if m and not m & (m - 1):
            d = m.bit_length()
            for u in (geo.cell_units[i][2], geo.cell_units[i][0], geo.cell_units[i][1]):
                if all(values[j] for j in geo.units[u] if j != i):
                    return _place(geo, "naked single", i, d, [j for j in geo.units[u] if j != i], u,
                                  f"it is the last empty cell of {geo.unit_names[u]}")
            proof: dict[int, int] = {}
            for p in geo.peer_list[i]:
                if values[p] and values[p] not in proof:
                    proof[values[p]] = p
            return _place(geo, "naked single", i, d, sorted(proof.values()), None,
                          "every other digit is already in its row, column or box")
    return None


def _hidden_single(g: _Grid) -> Step | None:
    geo = g.geo
    cand, values = g.cand, g.values
    for u in geo.scan_order:
        unit = geo.units[u]
        once = twice = 0
        for i in unit:
            m = cand[i]
            twice |= once & m
            once |= m
        hidden = once & ~twice
        if hidden:
            bit = hidden & -hidden
            d = bit.bit_length()
            i = next(j for j in unit if cand[j] & bit)
            proof: list[int] = []
            for j in unit:  # for each other empty cell, a peer outside the unit already holding d
                if j != i and not values[j]:
                    p = next((p for p in geo.peer_list[j] if values[p] == d and p not in unit), None)
                    if p is not None and p not in proof:
                        proof.append(p)
            return _place(geo, "hidden single", i, d, sorted(proof), u,
                          f"it is the only cell of {geo.unit_names[u]} where {d} fits")
    return None


def _singles_bulk(g: _Grid) -> tuple[int, int]:
    """Place every single that follows, without writing steps: (naked, hidden) placed.

    Used to score a reveal and by the generator, where only the outcome counts.
    """
    geo = g.geo
    cand, values = g.cand, g.values
    naked = hidden = 0
    progress = True
    while progress and g.empty:
        progress = False
        for i in range(geo.ncells):
            m = cand[i]
            if m and not m & (m - 1):
                g.place(i, m.bit_length())
                naked += 1
                progress = True
        if progress:
            continue
        for unit in geo.units:
            once = twice = 0
            for i in unit:
                m = cand[i]
                twice |= once & m
                once |= m
            hidden_bits = once & ~twice
            while hidden_bits:
                bit = hidden_bits & -hidden_bits
                hidden_bits ^= bit
                for i in unit:
                    if cand[i] & bit and not values[i]:
                        g.place(i, bit.bit_length())
                        hidden += 1
                        progress = True
                        break
    return naked, hidden


# --------------------------------------------------------------------------- locked candidates


def _pointing(g: _Grid) -> Step | None:
    geo = g.geo
    for b in range(geo.size):
        box = geo.boxes[b]
        for d in range(1, geo.size + 1):
            bit = 1 << (d - 1)
            spots = g.where(box, bit)
            if len(spots) < 2:
                continue
            for line_of, lines, base in ((geo.row_of, geo.rows, 0), (geo.col_of, geo.cols, geo.size)):
                k = line_of[spots[0]]
                if all(line_of[s] == k for s in spots):
                    elims = [(j, d) for j in g.where(lines[k], bit) if geo.box_of[j] != b]
                    if elims:
                        line = geo.unit_names[base + k]
                        return _eliminate(
                            geo, "pointing", elims, spots, 2 * geo.size + b,
                            f"in box {b + 1}, {d} fits only in {line} ({_names(geo, spots)}), so no other cell of "
                            f"{line} can be {d}: {_removals(geo, elims)}")
    return None


def _claiming(g: _Grid) -> Step | None:
    geo = g.geo
    for u in range(2 * geo.size):
        bit_spots = [(d, g.where(geo.units[u], 1 << (d - 1))) for d in range(1, geo.size + 1)]
        for d, spots in bit_spots:
            if len(spots) < 2:
                continue
            b = geo.box_of[spots[0]]
            if all(geo.box_of[s] == b for s in spots):
                elims = [(j, d) for j in g.where(geo.boxes[b], 1 << (d - 1)) if j not in spots]
                if elims:
                    return _eliminate(
                        geo, "claiming", elims, spots, u,
                        f"in {geo.unit_names[u]}, {d} fits only in box {b + 1} ({_names(geo, spots)}),"
                        f" so no other cell "
                        f"of box {b + 1} can be {d}: {_removals(geo, elims)}")
    return None


# --------------------------------------------------------------------------- subsets

_SIZE_NAMES = {2: "pair", 3: "triple", 4: "quad"}


def _naked_subset(size: int) -> Callable[[_Grid], Step | None]:
    name = f"naked {_SIZE_NAMES[size]}"

    def find(g: _Grid) -> Step | None:
        geo = g.geo
        cand = g.cand
        for u in geo.scan_order:
            empties = [i for i in geo.units[u] if cand[i]]
            if len(empties) <= size:
                continue
            small = [i for i in empties if 2 <= geo.pop[cand[i]] <= size]
            for combo in combinations(small, size):
                m = 0
                for i in combo:
                    m |= cand[i]
                if geo.pop[m] != size:
                    continue
                elims = [(j, d) for j in empties if j not in combo for d in geo.digits[cand[j] & m]]
                if elims:
                    return _eliminate(
                        geo, name, elims, combo, u,
                        f"{_and([geo.names[i] for i in combo])} hold only {_and(geo.digits[m])} between them, so no "
                        f"other cell of {geo.unit_names[u]} can: {_removals(geo, elims)}")
        return None

    find.__name__ = f"_naked_{_SIZE_NAMES[size]}"
    return find


def _hidden_subset(size: int) -> Callable[[_Grid], Step | None]:
    name = f"hidden {_SIZE_NAMES[size]}"

    def find(g: _Grid) -> Step | None:
        geo = g.geo
        cand = g.cand
        for u in geo.scan_order:
            unit = geo.units[u]
            if sum(1 for i in unit if cand[i]) <= size:
                continue
            spots: dict[int, int] = {}  # digit -> mask of positions within the unit
            for k, i in enumerate(unit):
                for d in geo.digits[cand[i]]:
                    spots[d] = spots.get(d, 0) | 1 << k
            digits = [d for d, m in spots.items() if 2 <= geo.pop[m] <= size]
            for combo in combinations(sorted(digits), size):
                pos = 0
                for d in combo:
                    pos |= spots[d]
                if geo.pop[pos] != size:
                    continue
                keep = sum(1 << (d - 1) for d in combo)
                cells = [unit[k] for k in range(geo.size) if pos >> k & 1]
                elims = [(c, d) for c in cells for d in geo.digits[cand[c] & ~keep]]
                if elims:
                    return _eliminate(
                        geo, name, elims, cells, u,
                        f"in {geo.unit_names[u]}, {_and(combo)} fit only in {_and([geo.names[c] for c in cells])}, so "
                        f"those cells hold nothing else: {_removals(geo, elims, by_cell=True)}")
        return None

    find.__name__ = f"_hidden_{_SIZE_NAMES[size]}"
    return find


# --------------------------------------------------------------------------- fish

_FISH_NAMES = {2: "x-wing", 3: "swordfish", 4: "jellyfish"}


def _fish(size: int) -> Callable[[_Grid], Step | None]:
    name = _FISH_NAMES[size]

    def find(g: _Grid) -> Step | None:
        geo = g.geo
        cand = g.cand
        for d in range(1, geo.size + 1):
            bit = 1 << (d - 1)
            for base_lines, cover_lines, base_word, cover_word in ((geo.rows, geo.cols, "rows", "columns"),
                                                                   (geo.cols, geo.rows, "columns", "rows")):
                lines = []  # (line index, mask of cover positions)
                for k, line in enumerate(base_lines):
                    m = 0
                    for p, i in enumerate(line):
                        if cand[i] & bit:
                            m |= 1 << p
                    if 2 <= geo.pop[m] <= size:
                        lines.append((k, m))
                for combo in combinations(lines, size):
                    cover = 0
                    for _, m in combo:
                        cover |= m
                    if geo.pop[cover] != size:
                        continue
                    base = {k for k, _ in combo}
                    covers = [p for p in range(geo.size) if cover >> p & 1]
                    elims = [(cover_lines[p][k], d) for p in covers for k in range(geo.size)
                             if k not in base and cand[cover_lines[p][k]] & bit]
                    if elims:
                        cells = sorted(base_lines[k][p] for k in base for p in covers if cand[base_lines[k][p]] & bit)
                        return _eliminate(
                            geo, name, elims, cells, None,
                            f"in {base_word} {_and(sorted(k + 1 for k in base))}, {d} fits only in {cover_word} "
                            f"{_and([p + 1 for p in covers])}, so those {cover_word} have their {d} in these "
                            f"{base_word}: {_removals(geo, elims)}")
        return None

    find.__name__ = f"_{name.replace('-', '_')}"
    return find


# --------------------------------------------------------------------------- wings


def _xy_wing(g: _Grid) -> Step | None:
    geo = g.geo
    cand = g.cand
    bivalue = [i for i in range(geo.ncells) if geo.pop[cand[i]] == 2]
    for pivot in bivalue:
        xy = cand[pivot]
        wings = [j for j in bivalue if j in geo.peers[pivot] and geo.pop[cand[j] & xy] == 1]
        for a, b in combinations(wings, 2):
            ca, cb = cand[a], cand[b]
            z = ca & ~xy
            if ca & xy == cb & xy or z != cb & ~xy:
                continue
            elims = [(k, z.bit_length()) for k in sorted(geo.peers[a] & geo.peers[b]) if cand[k] & z]
            if elims:
                x, y, zd = (ca & xy).bit_length(), (cb & xy).bit_length(), z.bit_length()
                return _eliminate(
                    geo, "xy-wing", elims, (pivot, a, b), None,
                    f"{geo.names[pivot]} is {x} or {y};"
                    f" if {x}, {geo.names[a]} is {zd}, if {y}, {geo.names[b]} is {zd}; "
                    f"either way one of them is {zd}, so no cell that sees both can be {zd}: {_removals(geo, elims)}")
    return None


def _xyz_wing(g: _Grid) -> Step | None:
    geo = g.geo
    cand = g.cand
    bivalue = [i for i in range(geo.ncells) if geo.pop[cand[i]] == 2]
    for pivot in range(geo.ncells):
        xyz = cand[pivot]
        if geo.pop[xyz] != 3:
            continue
        wings = [j for j in bivalue if j in geo.peers[pivot] and cand[j] & xyz == cand[j]]
        for a, b in combinations(wings, 2):
            z = cand[a] & cand[b]
            if cand[a] | cand[b] != xyz or geo.pop[z] != 1:
                continue
            elims = [(k, z.bit_length()) for k in sorted(geo.peers[pivot] & geo.peers[a] & geo.peers[b]) if cand[k] & z]
            if elims:
                zd = z.bit_length()
                return _eliminate(
                    geo, "xyz-wing", elims, (pivot, a, b), None,
                    f"{geo.names[pivot]} is {_and(geo.digits[xyz], 'or')},"
                    f" {geo.names[a]} is {_and(geo.digits[cand[a]], 'or')}, "
                    f"{geo.names[b]} is {_and(geo.digits[cand[b]], 'or')}: one of the three is {zd}, so no cell that "
                    f"sees all three can be {zd}: {_removals(geo, elims)}")
    return None


def _strong_links(g: _Grid, bit: int) -> list[tuple[int, int, int]]:
    """Units where a digit fits in exactly two cells: (cell, cell, unit)."""
    geo = g.geo
    links = []
    for u in range(len(geo.units)):
        spots = g.where(geo.units[u], bit)
        if len(spots) == 2:
            links.append((spots[0], spots[1], u))
    return links


def _w_wing(g: _Grid) -> Step | None:
    geo = g.geo
    cand = g.cand
    bivalue = [i for i in range(geo.ncells) if geo.pop[cand[i]] == 2]
    for a, b in combinations(bivalue, 2):
        if cand[a] != cand[b] or b in geo.peers[a]:
            continue
        both = geo.peers[a] & geo.peers[b]
        for x, y in (geo.digits[cand[a]], geo.digits[cand[a]][::-1]):
            ybit = 1 << (y - 1)
            elims = [(k, y) for k in sorted(both) if cand[k] & ybit]
            if not elims:
                continue
            for p, q, u in _strong_links(g, 1 << (x - 1)):
                if {p, q} & {a, b}:
                    continue
                if (p in geo.peers[a] and q in geo.peers[b]) or (p in geo.peers[b] and q in geo.peers[a]):
                    return _eliminate(
                        geo, "w-wing", elims, (a, b, p, q), u,
                        f"{geo.names[a]} and {geo.names[b]} are both {x} or {y},"
                        f" and {geo.unit_names[u]} has its {x} in "
                        f"{geo.names[p]} or {geo.names[q]},"
                        f" which see them: one of {geo.names[a]}, {geo.names[b]} is {y}, so no "
                        f"cell that sees both can be {y}: {_removals(geo, elims)}")
    return None


def _simple_coloring(g: _Grid) -> Step | None:
    """Chains of strong links on one digit: color them on/off alternately; a color is true."""
    geo = g.geo
    cand = g.cand
    for d in range(1, geo.size + 1):
        bit = 1 << (d - 1)
        adj: dict[int, list[int]] = {}
        for p, q, _ in _strong_links(g, bit):
            adj.setdefault(p, []).append(q)
            adj.setdefault(q, []).append(p)
        seen: set[int] = set()
        for start in sorted(adj):
            if start in seen:
                continue
            color = {start: 0}
            queue = [start]
            for c in queue:
                for n in adj[c]:
                    if n not in color:
                        color[n] = 1 - color[c]
                        queue.append(n)
            seen.update(color)
            if len(color) < 4:
                continue
            groups = [sorted(c for c, k in color.items() if k == 0), sorted(c for c, k in color.items() if k == 1)]
            chain = ", ".join(f"{geo.names[c]}{'+' if color[c] == 0 else '-'}" for c in sorted(color))
            lead = f"where {d} fits only twice in a unit, one cell is {d} and the other not: color them + and -"
            for k in (0, 1):  # color wrap: two cells of one color see each other, so that color is false
                clash = next(((a, b) for a, b in combinations(groups[k], 2) if b in geo.peers[a]), None)
                if clash:
                    elims = [(c, d) for c in groups[k]]
                    return _eliminate(
                        geo, "simple coloring", elims, sorted(color), None,
                        f"{lead} ({chain}); {geo.names[clash[0]]} and {geo.names[clash[1]]} share a color and see each "
                        f"other, so that color cannot be {d}: {_removals(geo, elims)}")
            elims = [(c, d) for c in range(geo.ncells) if cand[c] & bit and c not in color
                     and any(p in geo.peers[c] for p in groups[0]) and any(p in geo.peers[c] for p in groups[1])]
            if elims:
                return _eliminate(
                    geo, "simple coloring", elims, sorted(color), None,
                    f"{lead} ({chain}) and one color holds the {d}s, so no cell that sees both colors can be "
                    f"{d}: {_removals(geo, elims)}")
    return None


# --------------------------------------------------------------------------- the driver

Finder = Callable[[_Grid], Step | None]
FINDERS: tuple[tuple[str, Finder], ...] = (
    ("naked single", _naked_single),
    ("hidden single", _hidden_single),
    ("pointing", _pointing),
    ("claiming", _claiming),
    ("naked pair", _naked_subset(2)),
    ("hidden pair", _hidden_subset(2)),
    ("naked triple", _naked_subset(3)),
    ("hidden triple", _hidden_subset(3)),
    ("x-wing", _fish(2)),
    ("swordfish", _fish(3)),
    ("xy-wing", _xy_wing),
    ("xyz-wing", _xyz_wing),
    ("naked quad", _naked_subset(4)),
    ("hidden quad", _hidden_subset(4)),
    ("jellyfish", _fish(4)),
    ("w-wing", _w_wing),
    ("simple coloring", _simple_coloring),
)
assert [n for n, _ in FINDERS] == [t for t in TECHNIQUES if t != "reveal"]


def _find(g: _Grid, finders: Sequence[tuple[str, Finder]] = FINDERS) -> Step | None:
    for _, finder in finders:
        step = finder(g)
        if step is not None:
            return step
    return None


REVEAL_TRIES = 12  # cells scored per reveal: the ones with the fewest candidates


def _reveal(g: _Grid, solution: str) -> Step:
    """One cell of the solution: of the cells with the fewest candidates, the one that unlocks most singles."""
    geo = g.geo
    empties = sorted((geo.pop[g.cand[i]], i) for i in range(geo.ncells) if not g.values[i])[:REVEAL_TRIES]
    best, best_key = empties[0][1], (-1, 0, 0)
    for count, i in empties:
        trial = g.copy()
        trial.place(i, geo.value(solution[i]))
        key = (sum(_singles_bulk(trial)), -count, -i)
        if key > best_key:
            best, best_key = i, key
    d = geo.value(solution[best])
    return _place(geo, "reveal", best, d, (best,), None,
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
    res = count_solutions(board, 2, timeout)
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
    g = _Grid.from_values(board.cells, geometry(board.box))
    steps: list[Step] = []
    while g.empty:
        step = _find(g) or _reveal(g, solution)
        g.apply(step)
        steps.append(step)
    return Explanation(board.to_string(), solution, tuple(steps), board.box)


def _state(board: Board, solution: str, entries: str | None, reveal_digit: bool) -> _Grid | Step:
    """The grid of givens plus the correct entries, or the first wrong entry as a mistake step.

    Entries on a given's cell are ignored: a camera reads givens too.
    """
    geo = geometry(board.box)
    values = list(board.cells)
    if entries is None:
        return _Grid.from_values(values, geo)
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
    return _Grid.from_values(values, geo)


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
        step = _find(state, finders) or _reveal(state, solution)
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
    return _find(state) or _reveal(state, solution)


def find_step(candidates: Sequence[str], values: str | None = None, box: Box = (3, 3)) -> Step | None:
    """The easiest step on a given pencil-mark state (81 strings of candidate digits), or None.

    For a grid with pencil marks, and for pinning textbook examples; ``values`` holds the placed
    digits (81 characters, '.' for an empty cell); their peers lose those digits. ``box`` for other sizes.
    """
    geo = geometry(box)
    if len(candidates) != geo.ncells:
        raise ValueError(f"candidates: give {geo.ncells} strings of digits")
    placed = _values(values, geo) if values is not None else [0] * geo.ncells
    g = _Grid([0] * geo.ncells, [sum(1 << (geo.value(ch) - 1) for ch in set(c)) for c in candidates],
              geo.ncells, geo)
    for i, v in enumerate(placed):
        if v:  # a placed digit also clears stale pencil marks of its peers
            g.place(i, v)
    return _find(g)


def solvable_within(puzzle: str, level: Level, box: Box | None = None) -> bool:
    """True when techniques up to ``level`` fill the whole grid (which proves the solution unique).

    The generator calls this for every cell it digs out, so singles run in bulk, without steps.
    """
    limit = LEVELS.index(level)
    finders = [(n, f) for n, f in FINDERS[2:] if LEVELS.index(TECHNIQUES[n]) <= limit]
    board = _board(puzzle, box)
    geo = geometry(board.box)
    g = _Grid.from_values(board.cells, geo)
    while True:
        _singles_bulk(g)
        if not g.empty:
            return True
        if any(not g.cand[i] for i in range(geo.ncells) if not g.values[i]):
            return False  # no solution at all
        step = _find(g, finders)
        if step is None:
            return False
        g.apply(step)

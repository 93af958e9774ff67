"""Sudoku boards as text, validation, and a fast bitmask solver with a deadline.

The solver keeps one candidate bitmask per cell, propagates naked singles as
they appear (Norvig's elimination, on ints instead of strings), finds hidden
singles with a once/twice bit trick per unit, and branches on the cell with the
fewest candidates, or, when every open cell has three or more, on a digit with
only two places in a unit (what proves unsolvable boards quickly). It is pure
Python so it runs anywhere the package installs, and it checks a deadline so a
garbage reading from the camera can never hang the caller. Every board size
newspapers print shares one code path: 4x4 (2x2 boxes), 6x6 (2x3 boxes, or 3x2
"turned"), 9x9 (3x3) and 16x16 (4x4); a box is ``rows x columns``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from ar_sudoku.errors import ArSudokuError
from ar_sudoku.sudoku.vocabulary import Status, is_empty

SYMBOLS = "123456789ABCDEFG"
SIZES = {16: 4, 36: 6, 81: 9, 256: 16}  # cell count -> side
Box = tuple[int, int]  # rows x columns of one box
BOXES: dict[int, tuple[Box, ...]] = {4: ((2, 2),), 6: ((2, 3), (3, 2)), 9: ((3, 3),), 16: ((4, 4),)}  # first: default



class PuzzleFormatError(ArSudokuError, ValueError):
    """Input that is not a puzzle; the message names the line and column."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        where = []
        if line is not None:
            where.append(f"line {line}")
        if column is not None:
            where.append(f"column {column}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)
        self.line = line
        self.column = column


def default_box(size: int) -> Box:
    """The box newspapers print for a side: 2x2, 2x3 (6x6 with wide boxes), 3x3, 4x4."""
    if size not in BOXES:
        raise PuzzleFormatError(f"a {size}x{size} grid is not supported (4x4, 6x6, 9x9 or 16x16)")
    return BOXES[size][0]


def box_label(box: Box) -> str:
    return f"{box[0]}x{box[1]}"


def parse_box(text: str) -> Box:
    """``"2x3"`` (rows x columns of one box) as a box; only the shapes in :data:`BOXES` are allowed."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", text)
    box = (int(m[1]), int(m[2])) if m else None
    if box is None or box not in {b for bs in BOXES.values() for b in bs}:
        allowed = ", ".join(box_label(b) for bs in BOXES.values() for b in bs)
        raise PuzzleFormatError(f"box {text!r}: give rows x columns, one of {allowed}")
    return box


@dataclass(frozen=True)
class Board:
    """A Sudoku of side ``box[0] * box[1]``; cells row by row, 0 = blank.

    ``box`` is one box's rows x columns: 6x6 grids are printed with 2x3 boxes
    or turned, 3x2; every other size has square boxes.
    """

    cells: tuple[int, ...]
    box: Box = (3, 3)
    line: int | None = None  # where it came from in a file, for messages

    @property
    def size(self) -> int:
        return self.box[0] * self.box[1]

    def to_string(self, blank: str = ".") -> str:
        return "".join(SYMBOLS[v - 1] if v else blank for v in self.cells)

    def pretty(self) -> str:
        return format_grid(self.to_string(), self.box)

    @property
    def givens(self) -> int:
        return sum(1 for v in self.cells if v)


@dataclass(frozen=True)
class Conflict:
    """Two givens that break the rules: same digit twice in one unit."""

    a: int
    b: int
    digit: int
    unit: str  # "row 3", "column 5", "box 2"
    size: int

    def __str__(self) -> str:
        sym = SYMBOLS[self.digit - 1]
        return f"{cell_name(self.a, self.size)} and {cell_name(self.b, self.size)} are both {sym} in {self.unit}"


@dataclass(frozen=True)
class SolveResult:
    status: Status
    solution: str | None = None
    nodes: int = 0
    seconds: float = 0.0
    conflicts: tuple[Conflict, ...] = ()

    @property
    def message(self) -> str:
        if self.status == Status.SOLVED:
            return "solved"
        if self.status == Status.UNSOLVABLE:
            return "no solution"
        if self.status == Status.TIMEOUT:
            return f"timed out after {self.seconds:.2f} s"
        return "; ".join(str(c) for c in self.conflicts) or "givens break the rules"


@dataclass(frozen=True)
class CountResult:
    count: int  # solutions found, up to the limit
    limit: int
    complete: bool  # False when the deadline ended the search early
    first: str | None = None

    @property
    def label(self) -> str:
        if not self.complete and self.count < self.limit:
            return f"{self.count}+ (timed out)" if self.count else "timed out"
        return f"{self.count}+" if self.count >= self.limit else str(self.count)


def cell_name(index: int, size: int = 9) -> str:
    return f"r{index // size + 1}c{index % size + 1}"


def format_grid(text: str, box: Box = (3, 3)) -> str:
    """A boxed grid for people: rows of digits with lines between boxes (``box``: rows x columns)."""
    rows, cols = box
    size = rows * cols
    sep = "+".join("-" * (2 * cols + 1) for _ in range(rows))
    lines = ["+" + sep + "+"]
    for r in range(size):
        row = text[r * size : (r + 1) * size]
        parts = [" ".join(row[b * cols : (b + 1) * cols]) for b in range(rows)]
        lines.append("| " + " | ".join(parts) + " |")
        if r % rows == rows - 1:
            lines.append("+" + sep + "+")
    return "\n".join(lines)


# --------------------------------------------------------------------------- parsing


ZERO_F = "0123456789ABCDEF"  # the other way 16x16 puzzles are written: 0-F, only '.' blank


def _symbol_value(ch: str, size: int, symbols: str = SYMBOLS) -> int | None:
    """Digit value of a symbol on a board of side ``size``, 0 for a blank, None if not allowed.

    ``symbols``: the alphabet the text is written in, value 1 first (``ZERO_F``: ``0`` is a value, not a blank).
    """
    if ch == "." or (is_empty(ch) and ch not in symbols):
        return 0
    idx = symbols.find(ch.upper())
    if 0 <= idx < size:
        return idx + 1
    return None


def symbol_value(ch: str, size: int = 9) -> int:
    """The digit a solution's symbol stands for (``"A"`` is 10 on a 16x16 board)."""
    v = _symbol_value(ch, size)
    if not v:
        raise PuzzleFormatError(f"unexpected {ch!r} in a solution")
    return v


def _allowed(size: int, symbols: str = SYMBOLS) -> str:
    """The symbols a puzzle of this side takes, as an error message names them."""
    last = symbols[size - 1]
    digits = f"{symbols[0]}-{symbols[min(size, 9 if symbols[0] == '1' else 10) - 1]}"
    if not last.isdigit():
        digits += f"A-{last}"
    blanks = "'.' or '0'" if "0" not in symbols else "'.'"
    return f"{digits}, {blanks}"


def _shown(ch: str) -> str:
    """A character for an error message: a byte that was not UTF-8 text (read as a lone surrogate) by its value."""
    if "\udc80" <= ch <= "\udcff":
        return f"byte 0x{ord(ch) - 0xDC00:02X} (not UTF-8 text)"
    return repr(ch)


def _board_box(size: int, box: Box | None, line: int | None) -> Box:
    """The box of a puzzle of this side: the one asked for (it must fit), else the default."""
    if box is None:
        return default_box(size)
    if box[0] * box[1] != size:
        raise PuzzleFormatError(
            f"a {size}x{size} puzzle cannot have {box_label(box)} boxes (they fit {box[0] * box[1]}x"
            f"{box[0] * box[1]})", line)
    return box


def parse_line(text: str, line: int | None = None, column0: int = 1, box: Box | None = None, *,
               symbols: str = SYMBOLS) -> Board:
    """One puzzle written as 16, 36, 81 or 256 symbols in a row; ``box`` for 3x2 (turned) 6x6 boxes;
    ``symbols`` the alphabet it is written in (``ZERO_F`` for a 16x16 written 0-F)."""
    if len(text) not in SIZES:
        raise PuzzleFormatError(
            f"{len(text)} symbols; a puzzle has 81 (9x9), 16 (4x4), 36 (6x6) or 256 (16x16)", line
        )
    size = SIZES[len(text)]
    shape = _board_box(size, box, line)
    cells = []
    for i, ch in enumerate(text):
        v = _symbol_value(ch, size, symbols)
        if v is None:
            raise PuzzleFormatError(f"unexpected {_shown(ch)} (expected {_allowed(size, symbols)})", line, column0 + i)
        cells.append(v)
    return Board(tuple(cells), shape, line)


def parse_puzzles(text: str, box: Box | None = None) -> list[Board]:
    """Every puzzle in a text: one-line puzzles and/or grids of space-separated rows.

    Blank lines and ``#`` comments are skipped. A grid is ``size`` consecutive
    lines of ``size`` tokens each (``0`` or ``.`` for a blank), as printed by
    most Sudoku programs. The first bad line raises :class:`PuzzleFormatError`.
    """
    boards, errors = parse_puzzles_lenient(text, box)
    if errors:
        raise errors[0]
    return boards


def parse_puzzles_lenient(text: str, box: Box | None = None, *,
                          symbols: str = SYMBOLS) -> tuple[list[Board], list[PuzzleFormatError]]:
    """Like :func:`parse_puzzles`, but a bad puzzle is skipped and its error kept (in line order), so one
    bad line in a long file does not stop the good ones. A byte-order mark at the start is ignored.
    ``box`` (e.g. 3x2 for turned 6x6 boxes) applies to every puzzle; one of another size is an error.
    ``symbols``: the alphabet the puzzles are written in (``ZERO_F``: 0-F)."""
    boards: list[Board] = []
    errors: list[PuzzleFormatError] = []
    raw_lines = text.removeprefix("\ufeff").splitlines()
    i = 0
    while i < len(raw_lines):
        stripped = raw_lines[i].strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        try:
            board, used = _parse_one(raw_lines, i, box, symbols)
        except PuzzleFormatError as exc:
            errors.append(exc)
            # a bad one-line puzzle is one line; a bad grid is skipped up to the next blank line
            i += 1
            if len(stripped.replace("|", " ").split()) > 1:
                while i < len(raw_lines) and raw_lines[i].strip():
                    i += 1
            continue
        boards.append(board)
        i += used
    return boards, errors


def _parse_one(raw_lines: list[str], i: int, box: Box | None = None, symbols: str = SYMBOLS) -> tuple[Board, int]:
    """The puzzle starting at line ``i`` (0-based) and how many lines it takes."""
    raw = raw_lines[i]
    lineno = i + 1
    stripped = raw.strip()
    tokens = stripped.replace("|", " ").split()
    if len(tokens) == 1:
        col = raw.find(stripped) + 1
        return parse_line(stripped, lineno, col, box, symbols=symbols), 1
    # a grid of rows: the first row's width sets the size
    size = len(tokens)
    if size not in BOXES:
        raise PuzzleFormatError(
            f"{size} values in a row; a grid row has 9 (or 4, 6, 16) values", lineno
        )
    shape = _board_box(size, box, lineno)
    cells: list[int] = []
    for r in range(size):
        j = i + r
        if j >= len(raw_lines) or not raw_lines[j].strip():
            raise PuzzleFormatError(
                f"grid ends after {r} rows; it needs {size}", j + 1 if j < len(raw_lines) else j
            )
        row = raw_lines[j].replace("|", " ").split()
        # rows drawn with box lines ("------+------") are skipped
        if all(set(t) <= set("-+=") for t in row):
            raise PuzzleFormatError("separator lines are not supported; give the digits only", j + 1)
        if len(row) != size:
            raise PuzzleFormatError(f"{len(row)} values in this row, expected {size}", j + 1)
        pos = 0
        for tok in row:
            pos = raw_lines[j].find(tok, pos) + 1
            v = _symbol_value(tok, size, symbols) if len(tok) == 1 else None
            if v is None:
                shown = _shown(tok) if len(tok) == 1 else repr(tok)
                raise PuzzleFormatError(f"unexpected {shown} (expected {_allowed(size, symbols)})", j + 1, pos)
            cells.append(v)
    return Board(tuple(cells), shape, lineno), size


def parse_puzzle(text: str, box: Box | None = None) -> Board:
    """Exactly one puzzle from a string (one line or a grid of rows)."""
    boards = parse_puzzles(text, box)
    if not boards:
        raise PuzzleFormatError("no puzzle found")
    if len(boards) > 1:
        raise PuzzleFormatError(f"{len(boards)} puzzles found, expected one")
    return boards[0]


# --------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class _Tables:
    box: Box
    size: int
    ncells: int
    full: int
    units: tuple[tuple[int, ...], ...]  # rows, then columns, then boxes
    unit_names: tuple[str, ...]
    peers: tuple[tuple[int, ...], ...]
    bit_value: dict[int, int]  # single bit -> digit value


@cache
def _tables(box: Box) -> _Tables:
    rows_per_box, cols_per_box = box
    size = rows_per_box * cols_per_box
    rows = [tuple(r * size + c for c in range(size)) for r in range(size)]
    cols = [tuple(r * size + c for r in range(size)) for c in range(size)]
    boxes = []
    for band in range(size // rows_per_box):  # boxes row by row, as cells are
        for stack in range(size // cols_per_box):
            boxes.append(tuple((band * rows_per_box + r) * size + stack * cols_per_box + c
                               for r in range(rows_per_box) for c in range(cols_per_box)))
    units = tuple(rows + cols + boxes)
    names = tuple(
        [f"row {i + 1}" for i in range(size)]
        + [f"column {i + 1}" for i in range(size)]
        + [f"box {i + 1}" for i in range(size)]
    )
    peers = []
    for i in range(size * size):
        ps: set[int] = set()
        for u in units:
            if i in u:
                ps.update(u)
        ps.discard(i)
        peers.append(tuple(sorted(ps)))
    return _Tables(
        box, size, size * size, (1 << size) - 1, units, names, tuple(peers),
        {1 << d: d + 1 for d in range(size)},
    )


def units(box: Box = (3, 3)) -> tuple[tuple[int, ...], ...]:
    """The cell indices of every row, then column, then box of a board with boxes of ``box``."""
    return _tables(box).units


# --------------------------------------------------------------------------- validation


def validate(board: Board) -> list[Conflict]:
    """Givens that repeat a digit within a row, column or box."""
    t = _tables(board.box)
    out: list[Conflict] = []
    for name, unit in zip(t.unit_names, t.units, strict=False):
        seen: dict[int, int] = {}
        for i in unit:
            v = board.cells[i]
            if not v:
                continue
            if v in seen:
                out.append(Conflict(seen[v], i, v, name, t.size))
            else:
                seen[v] = i
    return out


def is_solution(board: Board, solution: str) -> bool:
    """True when ``solution`` is complete, keeps every given, and breaks no rule."""
    t = _tables(board.box)
    if len(solution) != t.ncells:
        return False
    vals = [_symbol_value(ch, t.size) for ch in solution]
    if any(not v for v in vals):
        return False
    if any(g and g != v for g, v in zip(board.cells, vals, strict=False)):
        return False
    want = set(range(1, t.size + 1))
    return all({vals[i] for i in u} == want for u in t.units)


# --------------------------------------------------------------------------- search


class _Timeout(Exception):
    pass


class _Search:
    """One depth-first search; counts nodes and watches the deadline."""

    CHECK_EVERY = 64

    def __init__(
        self, box: Box, deadline: float | None, limit: int, cancel: Callable[[], bool] | None = None
    ):
        self.t = _tables(box)
        self.deadline = deadline
        self.cancel = cancel
        self.limit = limit
        self.nodes = 0
        self.solutions: list[list[int]] = []

    def assign(self, cand: list[int], i: int, bit: int) -> bool:
        """Put ``bit`` in cell i and eliminate it from peers, chasing naked singles."""
        peers = self.t.peers
        stack = [(i, bit)]
        cand[i] = bit
        while stack:
            i, bit = stack.pop()
            for p in peers[i]:
                m = cand[p]
                if m & bit:
                    m ^= bit
                    if not m:
                        return False
                    cand[p] = m
                    if not m & (m - 1):
                        stack.append((p, m))
        return True

    def hidden_singles(self, cand: list[int], units: list[tuple[int, ...]]) -> int:
        """Place digits that fit only one cell of a unit; -1 on contradiction.

        Units found complete are removed from ``units`` so deeper nodes skip them.
        """
        full = self.t.full
        assign = self.assign
        placed = 0
        done = []
        for k, unit in enumerate(units):
            once = twice = solved = 0
            for i in unit:
                m = cand[i]
                if m & (m - 1):
                    twice |= once & m
                    once |= m
                else:
                    solved |= m
            if not once:
                done.append(k)
                continue
            if (once | solved) != full:
                return -1
            hidden = once & ~twice & ~solved
            while hidden:
                bit = hidden & -hidden
                hidden ^= bit
                for i in unit:
                    if cand[i] & bit:
                        if cand[i] != bit:
                            if not assign(cand, i, bit):
                                return -1
                            placed += 1
                        break
        for k in reversed(done):
            del units[k]
        return placed

    def two_places(self, cand: list[int], units: list[tuple[int, ...]]) -> tuple[int, int, int] | None:
        """The tightest digit with exactly two places in a unit: ``(cell, cell, bit)``.

        Of all such places, the pair whose cells have the fewest candidates
        between them wins: the same "most constrained first" rule as for cells,
        and on unsolvable boards it finds the contradiction in a few nodes.
        """
        best = None
        best_score = 1 << 30
        for unit in units:
            once = twice = thrice = 0
            for i in unit:
                m = cand[i]
                if m & (m - 1):
                    thrice |= twice & m
                    twice |= once & m
                    once |= m
            two = twice & ~thrice
            while two:
                bit = two & -two
                two ^= bit
                a, b = [i for i in unit if cand[i] & bit]
                score = cand[a].bit_count() + cand[b].bit_count()
                if score < best_score:
                    best, best_score = (a, b, bit), score
        return best

    def run(self, cand: list[int], units: list[tuple[int, ...]]) -> None:
        """Propagate, then branch two ways wherever the board allows it.

        The branch is the cell with the fewest candidates. When every open cell
        has three or more, hidden singles are first run to a fixed point, and a
        digit with only two places in some unit is preferred: its two places
        are the branches. Choosing from units as well as cells is what ends
        unsolvable searches: Norvig's "impossible" puzzle took 120 s with cells
        alone and takes milliseconds this way; sparse 16x16 boards gain as much.
        Solvable 9x9 puzzles rarely get there (a cell with two candidates is
        almost always at hand), so they pay next to nothing for it.
        """
        self.nodes += 1
        if self.nodes % self.CHECK_EVERY == 1:
            if self.deadline is not None and time.perf_counter() > self.deadline:
                raise _Timeout
            if self.cancel is not None and self.cancel():
                raise _Timeout
        while True:
            placed = self.hidden_singles(cand, units)
            if placed < 0:
                return
            best = -1
            best_count = 99
            for i, m in enumerate(cand):
                if m & (m - 1):
                    c = m.bit_count()
                    if c < best_count:
                        best, best_count = i, c
                        if c == 2:
                            break
            if best < 0:
                self.solutions.append(cand)
                return
            if best_count == 2 or not placed:
                break
        assign = self.assign
        if best_count > 2:
            pair = self.two_places(cand, units)
            if pair is not None:
                a, b, bit = pair
                for i in (a, b):
                    child = cand.copy()
                    if assign(child, i, bit):
                        self.run(child, units.copy())
                        if len(self.solutions) >= self.limit:
                            return
                return
        m = cand[best]
        while m:
            bit = m & -m
            m ^= bit
            child = cand.copy()
            if assign(child, best, bit):
                self.run(child, units.copy())
                if len(self.solutions) >= self.limit:
                    return


def _initial(board: Board) -> list[int] | None:
    t = _tables(board.box)
    cand = [t.full] * t.ncells
    s = _Search(board.box, None, 1)
    for i, v in enumerate(board.cells):
        if v:
            bit = 1 << (v - 1)
            if not cand[i] & bit or not s.assign(cand, i, bit):
                return None
    return cand


def _to_text(cand: list[int], t: _Tables) -> str:
    bv = t.bit_value
    return "".join(SYMBOLS[bv[m] - 1] for m in cand)


def _search(
    board: Board, timeout: float | None, limit: int, cancel: Callable[[], bool] | None = None
) -> tuple[_Search, bool, float]:
    start = time.perf_counter()
    deadline = None if timeout is None else start + timeout
    search = _Search(board.box, deadline, limit, cancel)
    cand = _initial(board)
    timed_out = False
    if cand is not None:
        try:
            search.run(cand, list(search.t.units))
        except _Timeout:
            timed_out = True
    return search, timed_out, time.perf_counter() - start


def solve(
    board: Board, timeout: float | None = None, cancel: Callable[[], bool] | None = None
) -> SolveResult:
    """Solve under a deadline (seconds). Conflicting givens give ``invalid``.

    ``cancel`` is polled with the deadline so a superseded search stops early;
    a cancelled search reports ``timeout``.
    """
    conflicts = validate(board)
    if conflicts:
        return SolveResult(Status.INVALID, conflicts=tuple(conflicts))
    search, timed_out, secs = _search(board, timeout, 1, cancel)
    if search.solutions:
        return SolveResult(Status.SOLVED, _to_text(search.solutions[0], search.t), search.nodes, secs)
    if timed_out:
        return SolveResult(Status.TIMEOUT, None, search.nodes, secs)
    return SolveResult(Status.UNSOLVABLE, None, search.nodes, secs)


def count_solutions(
    board: Board, limit: int = 2, timeout: float | None = None, cancel: Callable[[], bool] | None = None
) -> CountResult:
    """Count solutions up to ``limit``: 2 tells 'unique' from 'several'."""
    if validate(board):
        return CountResult(0, limit, True)
    search, timed_out, _ = _search(board, timeout, limit, cancel)
    first = _to_text(search.solutions[0], search.t) if search.solutions else None
    return CountResult(len(search.solutions), limit, not timed_out, first)


def all_solutions(board: Board, limit: int, timeout: float | None = None) -> list[str] | None:
    """Every solution of ``board`` when it has at most ``limit`` (none when its givens conflict), else None
    (more, or the search ran out of time)."""
    if validate(board):
        return []
    search, timed_out, _ = _search(board, timeout, limit + 1)
    if timed_out or len(search.solutions) > limit:
        return None
    return [_to_text(s, search.t) for s in search.solutions]


def solve_text(text: str, timeout: float | None = None) -> SolveResult:
    """Parse one puzzle and solve it: the one-call entry for scripts."""
    return solve(parse_puzzle(text), timeout)

"""A killer Sudoku solver: the ordinary bitmask search with cage sums, under the same deadline.

A killer page usually prints no givens at all, so the ordinary solver's singles find nothing and a plain
search would wander. Each cage is a constraint of its own: its cells see each other (a digit never repeats
in a cage), and of the digit combinations its sum allows (precomputed, :func:`killer.combos`) only those
that every one of its cells can still take are kept, which narrows each cell to the digits of those
combinations, places a digit every combination needs when only one cell can hold it, and takes such a digit
from every cell that sees all the places it can go. The rule of 45 adds what players add: a row, column,
box or run of rows/columns holds 45 a unit, so the few cells its whole cages leave over (the "innies") or
the cells of its cages that stick out of it (the "outies") have a known sum too; those are constraints of
their own, set up once per puzzle. The search branches on the cell with the fewest candidates, in the
smallest cage, whose constraints failed most often so far (on puzzles of large cages that cut the nodes
five-fold against fewest-candidates alone), and checks the deadline (and a cancel flag) as the ordinary
solver does, so a garbage reading from the camera can never hang the caller.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from ar_sudoku.sudoku.killer import NCELLS, SIDE, Killer, combos
from ar_sudoku.sudoku.solver import CountResult, SolveResult, units, validate
from ar_sudoku.sudoku.vocabulary import Status

FULL = (1 << SIDE) - 1
UNITS = units((3, 3))
LOW = tuple((m & -m).bit_length() if m else 0 for m in range(1 << SIDE))  # a mask's smallest digit
HIGH = tuple(m.bit_length() for m in range(1 << SIDE))  # ... and its greatest
SINGLE = frozenset(1 << d for d in range(SIDE))
MAX_LEFT = 6  # innies/outies kept as constraints up to this many cells: larger sums narrow next to nothing


def _between(lo: int, hi: int) -> int:
    """The digits lo..hi (clipped to 1-9) as a mask."""
    lo, hi = max(lo, 1), min(hi, SIDE)
    return 0 if lo > hi else ((1 << hi) - 1) & ~((1 << (lo - 1)) - 1)


@dataclass(frozen=True)
class SumGroup:
    """Cells whose digits add up to ``total``; ``distinct`` when they see each other (a cage, or innies in one
    unit), then ``options`` lists the digit sets that can fill them; otherwise their sum is bounded only."""

    cells: tuple[int, ...]
    total: int
    distinct: bool
    options: tuple[int, ...] = ()


@dataclass(frozen=True)
class Structure:
    """What the search needs of a killer puzzle, set up once: each cell's peers (its row, column, box and cage),
    the sum constraints (cages and the rule of 45's innies and outies) and the constraints of each cell."""

    peers: tuple[tuple[int, ...], ...]
    peer_sets: tuple[frozenset[int], ...]
    groups: tuple[SumGroup, ...]
    of_cell: tuple[tuple[int, ...], ...]
    weight: tuple[int, ...]  # each cell's cage size: among equal cells, branch in the tightest cage


@cache
def _unit_peers() -> tuple[frozenset[int], ...]:
    return tuple(frozenset(j for u in UNITS if i in u for j in u) - {i} for i in range(NCELLS))


def regions() -> list[tuple[str, tuple[int, ...], int]]:
    """The regions whose digits' sum is known, for the rule of 45: each row, column and box, and every run of
    2-8 adjacent rows or columns; ``(name, cells, units)`` where the sum is 45 a unit."""
    out: list[tuple[str, tuple[int, ...], int]] = []
    for word, line in (("row", lambda k: UNITS[k]), ("column", lambda k: UNITS[SIDE + k])):
        for n in range(1, SIDE):
            for a in range(SIDE - n + 1):
                cells = tuple(sorted(c for k in range(a, a + n) for c in line(k)))
                out.append((f"{word} {a + 1}" if n == 1 else f"{word}s {a + 1}-{a + n}", cells, n))
    out += [(f"box {b + 1}", tuple(sorted(UNITS[2 * SIDE + b])), 1) for b in range(SIDE)]
    return out


def leftovers(killer: Killer, cells: tuple[int, ...], units_in: int,
              cage_of: tuple[int, ...] | None = None) -> list[tuple[str, tuple[int, ...], int]]:
    """The rule of 45 on one region: ``("innies", cells, sum)`` for the cells inside it that its whole cages
    leave over, and ``("outies", cells, sum)`` for the cells of its cages that stick out of it (``cage_of``:
    each cell's cage, :meth:`Killer.cage_of`, when the caller has it)."""
    cage_of = cage_of or killer.cage_of()
    inside = set(cells)
    whole = partial = 0
    innies: list[int] = []
    touching: set[int] = set()
    uncaged = False
    for c in cells:
        k = cage_of[c]
        if k < 0:
            uncaged = True
            innies.append(c)
        else:
            touching.add(k)
    for k in touching:
        cage = killer.cages[k]
        if all(c in inside for c in cage.cells):
            whole += cage.total
        else:
            partial += cage.total
            innies += [c for c in cage.cells if c in inside]
    out = []
    known = 45 * units_in
    if innies:
        out.append(("innies", tuple(sorted(innies)), known - whole))
    if not uncaged:
        outies = sorted(c for k in touching for c in killer.cages[k].cells if c not in inside)
        if outies:
            out.append(("outies", tuple(outies), whole + partial - known))
    return out


def sees_all(cells: tuple[int, ...], peers: tuple[tuple[int, ...], ...]) -> bool:
    """Whether every two of ``cells`` see each other (so their digits differ)."""
    return all(b in peers[a] for i, a in enumerate(cells) for b in cells[i + 1:])


def structure(killer: Killer) -> Structure:
    """Peers, cages and the rule of 45's constraints of one puzzle."""
    cage_of = killer.cage_of()
    unit_peers = _unit_peers()
    peers = tuple(tuple(sorted(unit_peers[i] | ({c for c in killer.cages[cage_of[i]].cells} - {i}
                                                 if cage_of[i] >= 0 else set()))) for i in range(NCELLS))
    groups = [SumGroup(c.cells, c.total, True, combos(len(c.cells), c.total)) for c in killer.cages]
    seen = {g.cells for g in groups}
    for _, cells, n in regions():
        for _, left, total in leftovers(killer, cells, n, cage_of):
            if len(left) > MAX_LEFT or left in seen:
                continue
            seen.add(left)
            distinct = sees_all(left, peers)
            groups.append(SumGroup(left, total, distinct, combos(len(left), total) if distinct else ()))
    of_cell: list[list[int]] = [[] for _ in range(NCELLS)]
    for k, g in enumerate(groups):
        for c in g.cells:
            of_cell[c].append(k)
    weight = tuple(len(killer.cages[cage_of[i]].cells) if cage_of[i] >= 0 else SIDE for i in range(NCELLS))
    return Structure(peers, tuple(frozenset(p) for p in peers), tuple(groups), tuple(tuple(g) for g in of_cell),
                     weight)


class _Timeout(Exception):
    pass


class _Contradiction(Exception):
    pass


class _Search:
    """One depth-first search over candidate masks; counts nodes and watches the deadline."""

    CHECK_EVERY = 16

    def __init__(self, st: Structure, deadline: float | None, limit: int, cancel: Callable[[], bool] | None):
        self.st = st
        self.deadline = deadline
        self.cancel = cancel
        self.limit = limit
        self.nodes = 0
        self.solutions: list[list[int]] = []
        self.touched: list[int] = []
        self.fails = [1] * len(st.groups)

    def assign(self, cand: list[int], i: int, bit: int) -> None:
        """Put ``bit`` in cell i and take it from its peers, chasing naked singles; raises on a contradiction."""
        peers = self.st.peers
        touched = self.touched
        stack = [i]
        cand[i] = bit
        touched.append(i)
        while stack:
            i = stack.pop()
            bit = cand[i]
            for p in peers[i]:
                m = cand[p]
                if m & bit:
                    m ^= bit
                    if not m:
                        raise _Contradiction
                    cand[p] = m
                    touched.append(p)
                    if not m & (m - 1):
                        stack.append(p)

    def narrow(self, cand: list[int], g: SumGroup) -> None:
        """Keep of each cell of ``g`` only the digits its sum still allows."""
        cells = g.cells
        if g.distinct:
            self._combos(cand, g)
            return
        lo = hi = 0
        for c in cells:
            m = cand[c]
            lo += LOW[m]
            hi += HIGH[m]
        if not lo <= g.total <= hi:
            raise _Contradiction
        for c in cells:
            m = cand[c]
            keep = m & _between(g.total - (hi - HIGH[m]), g.total - (lo - LOW[m]))
            if keep != m:
                self._set(cand, c, keep)

    def _combos(self, cand: list[int], g: SumGroup) -> None:
        cells = g.cells
        union = fixed = 0
        for c in cells:
            m = cand[c]
            union |= m
            if not m & (m - 1):
                fixed |= m
        allowed, needed = 0, FULL
        for opt in g.options:
            if opt & fixed == fixed and not opt & ~union:
                for c in cells:
                    if not cand[c] & opt:
                        break
                else:
                    allowed |= opt
                    needed &= opt
        if not allowed:
            raise _Contradiction
        for c in cells:
            m = cand[c]
            if m & ~allowed:
                self._set(cand, c, m & allowed)
        needed &= ~fixed
        while needed:
            bit = needed & -needed
            needed ^= bit
            spots = [c for c in cells if cand[c] & bit]
            if not spots:
                raise _Contradiction
            if len(spots) == 1:
                if cand[spots[0]] != bit:
                    self.assign(cand, spots[0], bit)
                continue
            # the digit is in one of ``spots``: no cell that sees them all can hold it (a cage's "pointing")
            sets = self.st.peer_sets
            common = sets[spots[0]].intersection(*[sets[c] for c in spots[1:]])
            for p in common:
                if cand[p] & bit:
                    self._set(cand, p, cand[p] & ~bit)

    def _set(self, cand: list[int], c: int, m: int) -> None:
        if not m:
            raise _Contradiction
        if not m & (m - 1):
            self.assign(cand, c, m)
        else:
            cand[c] = m
            self.touched.append(c)

    def hidden_singles(self, cand: list[int]) -> bool:
        """Place every digit that fits only one cell of a row, column or box; True when any was placed."""
        placed = False
        for unit in UNITS:
            once = twice = 0
            for i in unit:
                m = cand[i]
                twice |= once & m
                once |= m
            if once != FULL:
                raise _Contradiction
            hidden = once & ~twice
            while hidden:
                bit = hidden & -hidden
                hidden ^= bit
                for i in unit:
                    if cand[i] & bit:
                        if cand[i] != bit:
                            self.assign(cand, i, bit)
                            placed = True
                        break
        return placed

    def propagate(self, cand: list[int], dirty: set[int]) -> None:
        """Narrow the constraints of the touched cells, then hidden singles, until nothing changes."""
        groups, of_cell, touched = self.st.groups, self.st.of_cell, self.touched
        while True:
            while dirty or touched:
                for c in touched:
                    dirty.update(of_cell[c])
                touched.clear()
                while dirty:
                    k = dirty.pop()
                    try:
                        self.narrow(cand, groups[k])
                    except _Contradiction:
                        self.fails[k] += 1
                        raise
                    if touched:
                        break
            if not self.hidden_singles(cand):
                return

    def run(self, cand: list[int], dirty: set[int]) -> None:
        """Propagate, then branch on the likeliest cell to fail: few candidates, in a small cage, whose
        constraints have failed often so far (a failure-weighted "fewest candidates first", dom/wdeg)."""
        self.nodes += 1
        if self.nodes % self.CHECK_EVERY == 1:
            if self.deadline is not None and time.perf_counter() > self.deadline:
                raise _Timeout
            if self.cancel is not None and self.cancel():
                raise _Timeout
        try:
            self.propagate(cand, dirty)
        except _Contradiction:
            self.touched.clear()
            return
        best, best_key = -1, 1e9
        fails, of_cell, weight = self.fails, self.st.of_cell, self.st.weight
        for i, m in enumerate(cand):
            if m & (m - 1):
                key = m.bit_count() * weight[i] / (sum(fails[k] for k in of_cell[i]) or 1)
                if key < best_key:
                    best, best_key = i, key
        if best < 0:
            self.solutions.append(cand)
            return
        m = cand[best]
        while m:
            bit = m & -m
            m ^= bit
            child = cand.copy()
            try:
                self.assign(child, best, bit)
            except _Contradiction:
                self.touched.clear()
                continue
            self.run(child, set())
            if len(self.solutions) >= self.limit:
                return


def _search(killer: Killer, timeout: float | None, limit: int,
            cancel: Callable[[], bool] | None) -> tuple[_Search, bool, float]:
    start = time.perf_counter()
    deadline = None if timeout is None else start + timeout
    search = _Search(structure(killer), deadline, limit, cancel)
    cand = [FULL] * NCELLS
    timed_out = False
    try:
        for i, v in enumerate(killer.givens.cells):
            if v:
                if not cand[i] & 1 << (v - 1):
                    raise _Contradiction
                search.assign(cand, i, 1 << (v - 1))
        search.run(cand, set(range(len(search.st.groups))))
    except _Contradiction:
        pass
    except _Timeout:
        timed_out = True
    return search, timed_out, time.perf_counter() - start


def _text(cand: list[int]) -> str:
    return "".join(str(m.bit_length()) for m in cand)


def solve_killer(killer: Killer, timeout: float | None = None,
                 cancel: Callable[[], bool] | None = None) -> SolveResult:
    """Solve under a deadline (seconds); givens that repeat a digit in a unit give ``invalid``."""
    conflicts = validate(killer.givens)
    if conflicts:
        return SolveResult(Status.INVALID, conflicts=tuple(conflicts))
    search, timed_out, secs = _search(killer, timeout, 1, cancel)
    if search.solutions:
        return SolveResult(Status.SOLVED, _text(search.solutions[0]), search.nodes, secs)
    return SolveResult(Status.TIMEOUT if timed_out else Status.UNSOLVABLE, None, search.nodes, secs)


def count_killer(killer: Killer, limit: int = 2, timeout: float | None = None,
                 cancel: Callable[[], bool] | None = None) -> CountResult:
    """Count solutions up to ``limit``: 2 tells "unique" from "several"."""
    if validate(killer.givens):
        return CountResult(0, limit, True)
    search, timed_out, _ = _search(killer, timeout, limit, cancel)
    first = _text(search.solutions[0]) if search.solutions else None
    return CountResult(len(search.solutions), limit, not timed_out, first)


def some_solutions(killer: Killer, limit: int, timeout: float | None = None,
                   cancel: Callable[[], bool] | None = None) -> tuple[list[str], bool]:
    """Up to ``limit`` solutions, and whether the search was complete (False: out of time)."""
    if validate(killer.givens):
        return [], True
    search, timed_out, _ = _search(killer, timeout, limit, cancel)
    return [_text(s) for s in search.solutions], not timed_out


def killer_solutions(killer: Killer, limit: int, timeout: float | None = None) -> list[str] | None:
    """Every solution when there are at most ``limit``, else None (more, or out of time)."""
    found, complete = some_solutions(killer, limit + 1, timeout)
    if not complete or len(found) > limit:
        return None
    return found

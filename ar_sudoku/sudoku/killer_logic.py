"""Killer Sudoku step by step, as players solve it: hints, explanations and a rating.

A killer page has no givens to start from, so the ordinary techniques find nothing until the cages have
spoken. Players use, easiest first:

- *cage sum*: the last open cell of a cage is its sum less the digits already in it;
- *cage combination*: the digits a cage's sum allows its open cells (a 2-cell 3 is 1+2; a 3-cell 23 is
  6+8+9): every candidate no combination can put in a cell goes;
- *innies/outies* (the rule of 45): a row, column, box or run of rows or columns holds 45 a unit, so the
  few cells its whole cages leave over inside it (innies), or the cells its cages put outside it (outies),
  have a known sum: one such cell is placed, a few lose the digits that sum cannot use;

then the ordinary techniques of :mod:`ar_sudoku.sudoku.logic`, which stay valid (a cage's cells see each
other as a row's do: the killer grid's peers include the cage mates, so placing a digit clears it from its
cage too). Every step is a deduction valid in every solution; when none applies a cell is revealed from the
solver's answer, as for an ordinary puzzle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache

from ar_sudoku.sudoku.killer import NCELLS, Cage, Killer, combos
from ar_sudoku.sudoku.killer_solver import count_killer, leftovers, regions
from ar_sudoku.sudoku.logic import _reveal, the_one
from ar_sudoku.sudoku.solver import validate
from ar_sudoku.sudoku.steps import (
    LEVELS,
    TECHNIQUES,
    Candidates,
    Geometry,
    Level,
    NoSolutionError,
    Step,
    elimination_step,
    geometry,
    listed,
    names_of,
    place_step,
    removals,
)
from ar_sudoku.sudoku.techniques import FINDERS

# technique -> level, in the order they are tried: singles, the killer techniques, then the ordinary ones
KILLER_TECHNIQUES: dict[str, Level] = {
    "naked single": "easy",
    "hidden single": "easy",
    "cage sum": "easy",
    "cage combination": "easy",
    "innies/outies": "medium",
    **{t: lv for t, lv in TECHNIQUES.items() if t not in ("naked single", "hidden single")},
}
MAX_LEFT = 4  # innies/outies reasoned about up to this many open cells (players rarely track more)

Finder = Callable[[Candidates], Step | None]


@dataclass(frozen=True)
class KillerExplanation:
    """A killer puzzle solved step by step; ``logical`` when no cell had to be revealed."""

    killer: Killer
    solution: str
    steps: tuple[Step, ...]

    @property
    def puzzle(self) -> str:
        return self.killer.to_string()

    @property
    def box(self) -> tuple[int, int]:
        return (3, 3)

    @property
    def logical(self) -> bool:
        return all(s.technique != "reveal" for s in self.steps)

    @property
    def rating(self) -> Level:
        return LEVELS[max((LEVELS.index(level_of(s)) for s in self.steps), default=0)]

    @property
    def hardest(self) -> str | None:
        order = list(KILLER_TECHNIQUES)
        return max((s.technique for s in self.steps), key=order.index, default=None)


def level_of(step: Step) -> Level:
    """A step's level on a killer page."""
    return KILLER_TECHNIQUES.get(step.technique, "easy")


# --------------------------------------------------------------------------- tables


def killer_geometry(killer: Killer) -> Geometry:
    """The 9x9 geometry with each cell's cage mates among its peers: a digit never repeats in a cage."""
    geo = geometry((3, 3))
    cage_of = killer.cage_of()
    peers = tuple(frozenset(geo.peers[i] | ({c for c in killer.cages[cage_of[i]].cells} - {i}
                                            if cage_of[i] >= 0 else set())) for i in range(NCELLS))
    return replace(geo, peers=peers, peer_list=tuple(tuple(sorted(p)) for p in peers))


@dataclass(frozen=True)
class Leftover:
    """Innies or outies of one region: ``cells`` add up to ``total``."""

    region: str
    kind: str  # "innies" or "outies"
    cells: tuple[int, ...]
    total: int
    known: int  # the region's sum, 45 a unit
    cages: int  # what its cages add up to (whole ones for innies, all touching it for outies)


@cache
def _regions() -> tuple[tuple[str, tuple[int, ...], int], ...]:
    return tuple(regions())


def killer_leftovers(killer: Killer) -> tuple[Leftover, ...]:
    """Every region's innies and outies (the rule of 45), small groups first."""
    out = []
    cage_of = killer.cage_of()
    for name, cells, n in _regions():
        for kind, left, total in leftovers(killer, cells, n, cage_of):
            known = 45 * n
            cages = known - total if kind == "innies" else known + total
            out.append(Leftover(name, kind, left, total, known, cages))
    return tuple(sorted(out, key=lambda lo: len(lo.cells)))


# --------------------------------------------------------------------------- what a set of cells can hold


def _allowed(g: Candidates, cells: Sequence[int], total: int, distinct: bool) -> tuple[list[int], list[int]]:
    """Each open cell's digits that some filling of ``cells`` adding up to ``total`` can give it (digits
    different when ``distinct``, else different only where two cells see each other), and the digit sets
    used by those fillings (as masks; only when ``distinct``)."""
    geo = g.geo
    allowed = [0] * len(cells)
    used: list[int] = []
    if distinct:
        for opt in combos(len(cells), total):
            ok = _fill_distinct(g, cells, opt)
            if any(ok):
                used.append(opt)
                allowed = [a | b for a, b in zip(allowed, ok)]
        return allowed, used
    cand = [g.cand[c] for c in cells]
    pick = [0] * len(cells)

    def walk(k: int, left: int) -> bool:
        if k == len(cells):
            return left == 0
        found = False
        for d in geo.digits[cand[k]]:
            if d > left or any(pick[j] == d and cells[j] in geo.peers[cells[k]] for j in range(k)):
                continue
            pick[k] = d
            if walk(k + 1, left - d):
                found = True
                for j in range(k, len(cells)):
                    allowed[j] |= 1 << (pick[j] - 1)
        return found

    walk(0, total)
    return allowed, used


def _fill_distinct(g: Candidates, cells: Sequence[int], opt: int) -> list[int]:
    """Per cell, the digits of ``opt`` it takes in some way of filling ``cells`` with exactly ``opt``'s digits."""
    n = len(cells)
    reach: list[set[int]] = [{0}]
    for c in cells:
        m = g.cand[c] & opt
        reach.append({u | b for u in reach[-1] for b in _bits(m & ~u)})
    good = {opt} & reach[n]
    out = [0] * n
    for k in range(n - 1, -1, -1):
        m = g.cand[cells[k]] & opt
        keep = set()
        for u in reach[k]:
            for b in _bits(m & ~u):
                if u | b in good:
                    keep.add(u)
                    out[k] |= b
        good = keep
    return out


def _bits(m: int) -> list[int]:
    out = []
    while m:
        b = m & -m
        out.append(b)
        m ^= b
    return out


def _open(g: Candidates, cells: Sequence[int], total: int) -> tuple[list[int], int]:
    """The cells not yet filled, and what they must add up to."""
    return [c for c in cells if not g.values[c]], total - sum(g.values[c] for c in cells)


def _sum_text(digits: int, geo: Geometry) -> str:
    return "+".join(str(d) for d in geo.digits[digits])


# --------------------------------------------------------------------------- the killer techniques


def _cage_sum(cages: Sequence[Cage]) -> Finder:
    def find(g: Candidates) -> Step | None:
        geo = g.geo
        for cage in cages:
            cells, left = _open(g, cage.cells, cage.total)
            if len(cells) == 1 and len(cage.cells) > 1 and 1 <= left <= 9 and g.cand[cells[0]] >> (left - 1) & 1:
                others = [c for c in cage.cells if c != cells[0]]
                return place_step(geo, "cage sum", cells[0], left, cage.cells, None,
                              f"it is the last open cell of {cage.name}, whose other cells ({names_of(geo, others)}) "
                              f"add up to {cage.total - left}")
        return None

    return find


def _cage_combination(cages: Sequence[Cage]) -> Finder:
    def find(g: Candidates) -> Step | None:
        geo = g.geo
        for cage in cages:
            cells, left = _open(g, cage.cells, cage.total)
            if not cells:
                continue
            allowed, used = _allowed(g, cells, left, True)
            elims = [(c, d) for c, a in zip(cells, allowed) for d in geo.digits[g.cand[c] & ~a]]
            if not elims or not used:
                continue
            ways = listed([_sum_text(m, geo) for m in used], "or")
            placed = [c for c in cage.cells if g.values[c]]
            lead = f"{cage.name} ({names_of(geo, cage.cells)})"
            if placed:
                lead += (f" has {names_of(geo, placed)} filled; its open cells ({names_of(geo, cells)}) add up to "
                         f"{left} with digits it lacks")
            return elimination_step(geo, "cage combination", elims, cage.cells, None,
                              f"{lead} can only be {ways}: {removals(geo, elims)}")
        return None

    return find


def _innies_outies(groups: Sequence[Leftover]) -> Finder:
    def find(g: Candidates) -> Step | None:
        geo = g.geo
        for lo in groups:
            cells, left = _open(g, lo.cells, lo.total)
            if not cells or len(cells) > MAX_LEFT:
                continue
            why = _rule_of_45(geo, lo)
            if len(cells) == 1:
                c = cells[0]
                if 1 <= left <= 9 and g.cand[c] >> (left - 1) & 1:
                    placed = [x for x in lo.cells if x != c]
                    than = f", {left} once {names_of(geo, placed)} are taken away" if placed else ""
                    return place_step(geo, "innies/outies", c, left, lo.cells, None, f"{why}{than}")
                continue
            distinct = all(b in geo.peers[a] for i, a in enumerate(cells) for b in cells[i + 1:])
            allowed, _ = _allowed(g, cells, left, distinct)
            elims = [(c, d) for c, a in zip(cells, allowed) for d in geo.digits[g.cand[c] & ~a]]
            if elims:
                placed = [c for c in lo.cells if c not in cells]
                now = (f"; with {names_of(geo, placed)} filled, {names_of(geo, cells)} add up to {left}"
                       if placed else "")
                return elimination_step(geo, "innies/outies", elims, lo.cells, None,
                                        f"{why}{now}: {removals(geo, elims)}")
        return None

    return find


def _rule_of_45(geo: Geometry, lo: Leftover) -> str:
    """Why a region's innies or outies add up to what they do, in a player's words."""
    cells = names_of(geo, lo.cells)
    verb = "add" if lo.region.startswith(("rows", "columns")) else "adds"
    if lo.kind == "innies":
        return (f"rule of 45: {lo.region} {verb} up to {lo.known} and the cages wholly inside to {lo.cages}, so "
                f"the cells they leave ({cells}) add up to {lo.total}")
    return (f"rule of 45: the cages reaching into {lo.region} add up to {lo.cages} and {lo.region} {verb} up to "
            f"{lo.known}, so the cells they put outside it ({cells}) add up to {lo.total}")


def killer_finders(killer: Killer) -> tuple[tuple[str, Finder], ...]:
    """The techniques, easiest first, for this puzzle's cages."""
    groups = killer_leftovers(killer)
    own = {"cage sum": _cage_sum(killer.cages), "cage combination": _cage_combination(killer.cages),
           "innies/outies": _innies_outies(groups)}
    ordinary = dict(FINDERS)
    return tuple((name, own.get(name) or ordinary[name]) for name in KILLER_TECHNIQUES if name != "reveal")


# --------------------------------------------------------------------------- the driver


def find_killer_solution(killer: Killer, timeout: float | None = 10.0) -> str:
    """The one solution, or :class:`NoSolutionError` saying why there is none to explain."""
    conflicts = validate(killer.givens)
    if conflicts:
        raise NoSolutionError("; ".join(str(c) for c in conflicts))
    return the_one(count_killer(killer, 2, timeout), timeout)


def _first(g: Candidates, finders: Sequence[tuple[str, Finder]]) -> Step | None:
    for _, finder in finders:
        step = finder(g)
        if step is not None:
            return step
    return None


def _start(killer: Killer, entries: str | None = None, solution: str | None = None,
           reveal_digit: bool = False) -> Candidates | Step:
    """The grid of givens (and the entries that agree with the solution), or the first wrong entry."""
    geo = killer_geometry(killer)
    values = list(killer.givens.cells)
    if entries is not None and solution is not None:
        if len(entries) != NCELLS:
            raise ValueError("entries are 81 characters: 1-9, or '.'/'0' for an empty cell")
        for i, ch in enumerate(entries):
            if values[i] or ch in ".0":
                continue
            if ch != solution[i]:
                text = f"{geo.names[i]} is wrong: it is {solution[i]}, not {ch}" if reveal_digit else \
                    f"{geo.names[i]} is wrong"
                return Step("mistake", i, int(solution[i]) if reveal_digit else None, (), (i,), None,
                            text + "; remove it first")
            values[i] = int(ch)
    return Candidates.from_values(values, geo)


def explain_killer(killer: Killer, timeout: float | None = 10.0, solution: str | None = None) -> KillerExplanation:
    """Every step from the givens to the full grid, easiest technique first at each step."""
    if solution is None:
        solution = find_killer_solution(killer, timeout)
    g = _start(killer)
    assert isinstance(g, Candidates)
    finders = killer_finders(killer)
    steps: list[Step] = []
    while g.empty:
        step = _first(g, finders) or _reveal(g, solution)
        g.apply(step)
        steps.append(step)
    return KillerExplanation(killer, solution, tuple(steps))


def next_killer_step(killer: Killer, entries: str | None = None, reveal_digit: bool = False,
                     timeout: float | None = 10.0) -> Step | None:
    """The one next hint: a wrong entry first, else the easiest step from here; None when the grid is full."""
    solution = find_killer_solution(killer, timeout)
    state = _start(killer, entries, solution, reveal_digit)
    if isinstance(state, Step):
        return state
    if not state.empty:
        return None
    return _first(state, killer_finders(killer)) or _reveal(state, solution)
